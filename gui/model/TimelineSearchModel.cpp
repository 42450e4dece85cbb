// Finds slices by name for the timeline's search box and steps through them.
#include "gui/model/TimelineSearchModel.h"

#include "gui/model/CancelToken.h"
#include "gui/model/WorkerResult.h"

#include "trace_db/TraceReader.h"

#include <fmt/format.h>

#include <QMetaObject>

#include <algorithm>
#include <atomic>
#include <string>
#include <unordered_map>

namespace pto::gui {

TimelineSearchModel::TimelineSearchModel(QObject* parent) : QAbstractListModel(parent) {}

void TimelineSearchModel::setReader(const tracedb::TraceReader* reader) {
    stopWorker();
    m_reader = reader;
    show({}, {}, false);
}

namespace {

struct Found {
    std::vector<SearchMatch> matches;
    bool truncated = false;
};

// Names are interned: match the (few) strings first, then the slices by name id. Stops early
// (returning what it has) when `cancel` is cancelled, which also interrupts the reader.
Found findMatches(const tracedb::TraceReader& reader, const QString& text, CancelToken& cancel) {
    const auto watch = cancel.watch(reader);
    Found found;
    const QString needle = text.trimmed();
    if (needle.isEmpty()) return found;
    std::string list;
    std::unordered_map<std::int64_t, QString> names;
    for (const auto& [id, name] : reader.strings()) {
        const QString qname = QString::fromStdString(name);
        if (!qname.contains(needle, Qt::CaseInsensitive)) continue;
        list += fmt::format("{}{}", list.empty() ? "" : ",", id);
        names.emplace(id, qname);
    }
    if (list.empty()) return found;
    reader.query(fmt::format("SELECT id, ts, dur, track_id, name_id FROM slice WHERE name_id "
                             "IN ({}) ORDER BY ts, id LIMIT {}",
                             list, TimelineSearchModel::kMaxMatches + 1),
                 [&](auto, auto row) {
                     auto v = [&](int i) { return std::get<std::int64_t>(row[std::size_t(i)]); };
                     if (found.matches.size() == std::size_t(TimelineSearchModel::kMaxMatches)) {
                         found.truncated = true;
                         return false;
                     }
                     found.matches.push_back({v(0), v(1), v(2), v(3), names[v(4)]});
                     return !cancel.cancelled();
                 });
    return found;
}

} // namespace

TimelineSearchModel::~TimelineSearchModel() {
    stopWorker();
}

void TimelineSearchModel::stopWorker() {
    cancelAndWait(m_cancel);
    if (m_worker.joinable()) m_worker.join();
    ++m_generation;
    m_searching = false;
}

void TimelineSearchModel::show(const QString& text, std::vector<SearchMatch> matches,
                               bool truncated) {
    beginResetModel();
    m_text = text;
    m_matches = std::move(matches);
    m_truncated = truncated;
    m_current = -1;
    endResetModel();
    emit currentChanged(m_current);
}

int TimelineSearchModel::search(const QString& text) {
    stopWorker();
    Found found;
    CancelToken never;
    if (m_reader) found = findMatches(*m_reader, text, never);
    show(text, std::move(found.matches), found.truncated);
    return static_cast<int>(m_matches.size());
}

void TimelineSearchModel::searchInBackground(const std::filesystem::path& trace,
                                             const QString& text) {
    stopWorker();
    show(text, {}, false);
    m_searching = true;
    m_cancel = std::make_shared<CancelToken>();
    const std::uint64_t generation = m_generation;
    m_worker = std::thread([this, trace, text, generation, cancel = m_cancel] {
        const FinishGuard finish(*cancel);
        Found found;
        QString error;
        try {
            found = findMatches(tracedb::TraceReader::open(trace), text, *cancel);
        } catch (...) {
            error = currentErrorText();
        }
        if (cancel->cancelled()) return;
        // stopWorker() joins this thread before the model goes away, so `this` is alive here;
        // a queued call still pending at destruction is dropped with its context object.
        QMetaObject::invokeMethod(
            this,
            [this, generation, text, error, found = std::move(found)]() mutable {
                if (generation != m_generation) return;
                if (m_worker.joinable()) m_worker.join();
                m_searching = false;
                show(text, std::move(found.matches), found.truncated);
                emit searchFinished(static_cast<int>(m_matches.size()), error);
            },
            Qt::QueuedConnection);
    });
}

void TimelineSearchModel::setCurrent(int row) {
    m_current = row;
    emit currentChanged(row);
}

int TimelineSearchModel::next(std::int64_t afterCycle) {
    if (m_matches.empty()) return -1;
    int row = 0;
    if (afterCycle >= 0) {
        auto it = std::upper_bound(m_matches.begin(), m_matches.end(), afterCycle,
                                   [](std::int64_t t, const SearchMatch& m) { return t < m.ts; });
        row = it == m_matches.end() ? 0 : static_cast<int>(it - m_matches.begin());
    } else if (m_current >= 0) {
        row = (m_current + 1) % static_cast<int>(m_matches.size());
    }
    setCurrent(row);
    return row;
}

int TimelineSearchModel::previous(std::int64_t beforeCycle) {
    if (m_matches.empty()) return -1;
    const int last = static_cast<int>(m_matches.size()) - 1;
    int row = last;
    if (beforeCycle >= 0) {
        auto it = std::lower_bound(m_matches.begin(), m_matches.end(), beforeCycle,
                                   [](const SearchMatch& m, std::int64_t t) { return m.ts < t; });
        row = it == m_matches.begin() ? last : static_cast<int>(it - m_matches.begin()) - 1;
    } else if (m_current >= 0) {
        row = m_current == 0 ? last : m_current - 1;
    }
    setCurrent(row);
    return row;
}

int TimelineSearchModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_matches.size());
}

QVariant TimelineSearchModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const SearchMatch& m = m_matches[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return QStringLiteral("%1 @ %2").arg(m.name).arg(m.ts);
    case SliceIdRole:
        return QVariant::fromValue<qlonglong>(m.sliceId);
    case TsRole:
        return QVariant::fromValue<qlonglong>(m.ts);
    case TrackIdRole:
        return QVariant::fromValue<qlonglong>(m.trackId);
    default:
        return {};
    }
}

} // namespace pto::gui
