// The Bookmarks tab of the timeline view.
#include "gui/widgets/TimelineBookmarks.h"

#include <algorithm>

#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace pto::gui {

TimelineBookmarks::TimelineBookmarks(QWidget* parent) : QWidget(parent) {
    m_list = new QListWidget(this);
    m_list->setToolTip(tr("Click to show; B on the timeline adds one at the selected slice"));
    m_note = new QLineEdit(this);
    m_note->setPlaceholderText(tr("Note of the selected bookmark (Return saves it)"));
    m_note->setEnabled(false);
    auto* remove = new QPushButton(tr("Remove"), this);
    m_status = new QLabel(this);
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_list, 1);
    layout->addWidget(m_note);
    layout->addWidget(remove);
    layout->addWidget(m_status);
    connect(m_list, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        const int row = m_list->row(item);
        if (row >= 0 && row < int(m_marks.size())) emit activated(m_marks[std::size_t(row)]);
    });
    connect(remove, &QPushButton::clicked, this, [this] { removeAt(m_list->currentRow()); });
    connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) {
        const bool valid = row >= 0 && row < int(m_marks.size());
        m_note->setEnabled(valid);
        m_note->setText(valid ? m_marks[std::size_t(row)].note : QString());
    });
    connect(m_note, &QLineEdit::returnPressed, this,
            [this] { setNote(m_list->currentRow(), m_note->text()); });
}

void TimelineBookmarks::setTrace(const std::filesystem::path& trace) {
    m_trace = trace;
    TimelineSession loaded = trace.empty() ? TimelineSession{} : loadSession(trace);
    m_marks = std::move(loaded.bookmarks);
    m_view = loaded.view;
    refresh();
    m_status->setText(loaded.error.isEmpty() ? QString()
                                             : tr("Bookmarks not loaded: %1").arg(loaded.error));
}

void TimelineBookmarks::add(Bookmark bookmark) {
    if (m_trace.empty()) return;
    m_marks.push_back(std::move(bookmark));
    std::stable_sort(m_marks.begin(), m_marks.end(),
                     [](const Bookmark& a, const Bookmark& b) { return a.cycle < b.cycle; });
    refresh();
    save();
}

void TimelineBookmarks::removeAt(int row) {
    if (row < 0 || row >= int(m_marks.size())) return;
    m_marks.erase(m_marks.begin() + row);
    refresh();
    save();
}

void TimelineBookmarks::setNote(int row, const QString& note) {
    if (row < 0 || row >= int(m_marks.size()) || m_marks[std::size_t(row)].note == note) return;
    m_marks[std::size_t(row)].note = note;
    refresh();
    m_list->setCurrentRow(row);
    save();
}

void TimelineBookmarks::saveView(const TimelineViewState& view) {
    m_view = view;
    if (!m_marks.empty()) save();
}

QString TimelineBookmarks::statusText() const {
    return m_status->text();
}

void TimelineBookmarks::setTimeUnit(const QString& unit) {
    m_unit = unit;
    refresh();
}

void TimelineBookmarks::refresh() {
    m_list->clear();
    for (const Bookmark& b : m_marks)
        m_list->addItem(m_unit == QStringLiteral("ns")
                            ? tr("%1 ns — %2").arg(b.cycle).arg(b.note)
                            : tr("cycle %1 — %2").arg(b.cycle).arg(b.note));
}

void TimelineBookmarks::save() {
    const QString error = saveSession(m_trace, {m_marks, m_view, {}});
    m_status->setText(
        error.isEmpty() ? tr("%n bookmark(s), saved beside the trace", nullptr, int(m_marks.size()))
                        : tr("Bookmarks not saved: %1").arg(error));
}

} // namespace pto::gui
