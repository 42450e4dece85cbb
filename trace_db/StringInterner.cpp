// Thread-safe string → id map backing the `string` table; new strings are written in batches.
#include "trace_db/StringInterner.h"

#include <algorithm>

namespace pto::tracedb {

void StringInterner::preload(std::int64_t id, std::string text) {
    std::lock_guard lock(m_mutex);
    m_ids.emplace(std::move(text), id);
    m_nextId = std::max(m_nextId, id + 1);
}

std::int64_t StringInterner::intern(std::string_view text) {
    std::lock_guard lock(m_mutex);
    if (auto found = m_ids.find(text); found != m_ids.end()) return found->second;
    std::int64_t id = m_nextId++;
    m_ids.emplace(std::string(text), id);
    m_pending.emplace_back(id, std::string(text));
    return id;
}

std::vector<StringInterner::Entry> StringInterner::takePending() {
    std::lock_guard lock(m_mutex);
    return std::exchange(m_pending, {});
}

} // namespace pto::tracedb
