// The timeline's Bookmarks tab: the trace's bookmarks and the view they were made in (saved
// beside the trace), add, annotate, remove, jump.
#pragma once

#include "gui/model/TimelineSession.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QListWidget;

namespace pto::gui {

class TimelineBookmarks : public QWidget {
    Q_OBJECT
public:
    explicit TimelineBookmarks(QWidget* parent = nullptr);

    /// Loads the bookmarks and saved view of `trace` (empty path: none).
    void setTrace(const std::filesystem::path& trace);
    /// The view saved with the bookmarks when the trace was last closed.
    const std::optional<TimelineViewState>& savedView() const { return m_view; }
    /// Keeps the view with the bookmarks (saved when the trace has any).
    void saveView(const TimelineViewState& view);
    /// Adds a bookmark and saves the sidecar.
    void add(Bookmark bookmark);
    void removeAt(int row);
    /// Sets the note of bookmark `row` (the annotation shown after its cycle) and saves.
    void setNote(int row, const QString& note);
    /// How a bookmark's time is named: "cycle", or "ns" for a measured trace.
    void setTimeUnit(const QString& unit);
    const std::vector<Bookmark>& bookmarks() const { return m_marks; }
    QListWidget* list() const { return m_list; }
    /// The note of the selected bookmark; Return saves what was typed.
    QLineEdit* noteEdit() const { return m_note; }
    QString statusText() const;

signals:
    /// A bookmark was clicked: the timeline shows it.
    void activated(const pto::gui::Bookmark& bookmark);

private:
    void refresh();
    void save();

    std::filesystem::path m_trace;
    std::vector<Bookmark> m_marks;
    QString m_unit = QStringLiteral("cycles");
    std::optional<TimelineViewState> m_view;
    QListWidget* m_list = nullptr;
    QLineEdit* m_note = nullptr;
    QLabel* m_status = nullptr;
};

} // namespace pto::gui
