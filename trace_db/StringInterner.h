// Thread-safe string → id map backing the `string` table; new strings are written in batches.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace pto::tracedb {

/// Ids are handed out in memory at once (any thread may intern, e.g. while an AsyncSliceSink
/// owns the connection); the thread that owns the connection writes the new strings later
/// with takePending(). Ids start at 1.
class StringInterner {
public:
    using Entry = std::pair<std::int64_t, std::string>;

    /// Registers a string already in the file (when appending); not reported as pending.
    void preload(std::int64_t id, std::string text);
    std::int64_t intern(std::string_view text);
    /// The strings interned since the last call, to be inserted into the file.
    std::vector<Entry> takePending();

private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view text) const {
            return std::hash<std::string_view>{}(text);
        }
    };

    std::mutex m_mutex;
    std::unordered_map<std::string, std::int64_t, Hash, std::equal_to<>> m_ids;
    std::vector<Entry> m_pending;
    std::int64_t m_nextId = 1;
};

} // namespace pto::tracedb
