// Search of the timeline by slice name: the matches in time order, with next/previous.
#pragma once

#include <QAbstractListModel>
#include <QString>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

namespace pto::tracedb {
class TraceReader;
}

namespace pto::gui {

class CancelToken;

struct SearchMatch {
    std::int64_t sliceId = 0;
    std::int64_t ts = 0;
    std::int64_t dur = 0;
    std::int64_t trackId = 0;
    QString name;
};

/// Rows are the slices whose name contains the query (case-insensitive), by ts then id, at
/// most kMaxMatches of them (truncated() says when more exist). current() is the match the
/// user stepped to; next()/previous() wrap around.
class TimelineSearchModel : public QAbstractListModel {
    Q_OBJECT
public:
    static constexpr int kMaxMatches = 100000;
    enum Role { SliceIdRole = Qt::UserRole + 1, TsRole, TrackIdRole };

    explicit TimelineSearchModel(QObject* parent = nullptr);
    ~TimelineSearchModel() override;

    void setReader(const tracedb::TraceReader* reader);
    /// Runs the search on the calling thread; an empty text clears it. Returns the number of
    /// matches.
    int search(const QString& text);
    /// Runs the search on a worker thread with its own connection to `trace`: the model
    /// empties now and fills when searchFinished() arrives (on this object's thread). A newer
    /// search, setReader() or destruction cancels it.
    void searchInBackground(const std::filesystem::path& trace, const QString& text);
    bool searching() const { return m_searching; }
    const QString& text() const { return m_text; }
    bool truncated() const { return m_truncated; }

    const std::vector<SearchMatch>& matches() const { return m_matches; }
    int current() const { return m_current; }
    /// Steps to the first match starting after `afterCycle` (or the next one after current()
    /// when afterCycle < 0); wraps. Returns the new current index, -1 without matches.
    int next(std::int64_t afterCycle = -1);
    int previous(std::int64_t beforeCycle = -1);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

signals:
    void currentChanged(int row);
    /// A background search ended with `count` matches; `error` says why it failed, if it did.
    void searchFinished(int count, const QString& error);

private:
    void setCurrent(int row);
    void show(const QString& text, std::vector<SearchMatch> matches, bool truncated);
    void stopWorker();

    const tracedb::TraceReader* m_reader = nullptr;
    QString m_text;
    std::vector<SearchMatch> m_matches;
    bool m_truncated = false;
    int m_current = -1;
    std::thread m_worker;
    std::shared_ptr<CancelToken> m_cancel;
    std::uint64_t m_generation = 0;
    bool m_searching = false;
};

} // namespace pto::gui
