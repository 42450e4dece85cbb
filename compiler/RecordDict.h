// Dict ids of the text StageRecorder stores: each distinct value formatted and interned once.
#pragma once

#include "trace_db/TraceWriter.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace pto {

// A compact byte encoding of a structured value (an instruction's operands, an op's attrs),
// the lookup key of a RecordDict: appending its fields costs far less than formatting them.
class DictKey {
public:
    void clear() { m_bytes.clear(); }
    template <typename T>
    requires std::is_trivially_copyable_v<T> DictKey& add(const T& value) {
        char bytes[sizeof(T)];
        std::memcpy(bytes, &value, sizeof(T));
        m_bytes.append(bytes, sizeof(T));
        return *this;
    }
    // Length-prefixed, so that ("ab", "c") and ("a", "bc") differ.
    DictKey& addText(std::string_view text) {
        add(text.size());
        m_bytes.append(text);
        return *this;
    }
    std::string_view bytes() const { return m_bytes; }

private:
    std::string m_bytes;
};

// One kind of stored text (operand lists, attrs, shapes, names of enums) by the value it is
// made from. Used by one thread; TraceWriter::internDict, which it calls once per distinct
// value, is thread-safe, so the writer may be busy on its WriterThread meanwhile.
class RecordDict {
public:
    using Id = std::optional<int64_t>; // none: empty text, stored as NULL

    explicit RecordDict(tracedb::TraceWriter& writer) : m_writer(writer) {}

    // The dict id of the text `format()` makes of the value encoded in `key`; `format` runs
    // only the first time a key is seen.
    template <typename Format> Id idOf(const DictKey& key, Format&& format) {
        if (auto found = m_ids.find(key.bytes()); found != m_ids.end()) return found->second;
        Id id = internText(format());
        m_ids.emplace(std::string(key.bytes()), id);
        return id;
    }
    // The dict id of `text` itself (the name of an op kind, a pipe, a dtype…).
    Id idOfText(std::string_view text);

    // Hashes keys and text alike, so maps can be searched by a string_view.
    struct Hash {
        using is_transparent = void;
        size_t operator()(std::string_view bytes) const {
            return std::hash<std::string_view>{}(bytes);
        }
    };

private:
    Id internText(std::string_view text);

    tracedb::TraceWriter& m_writer;
    std::unordered_map<std::string, Id, Hash, std::equal_to<>> m_ids;
};

// The dict ids of an enum's names (op kinds, dtypes, pipes…) by the enum's value: each name is
// looked up in the RecordDict once, not hashed again for every row that stores it.
template <typename Enum> class EnumNameIds {
public:
    template <typename NameOf> RecordDict::Id get(RecordDict& dict, Enum value, NameOf&& nameOf) {
        const auto index = static_cast<size_t>(value);
        if (index >= m_ids.size()) m_ids.resize(index + 1);
        std::optional<RecordDict::Id>& id = m_ids[index];
        if (!id) id = dict.idOfText(nameOf(value));
        return *id;
    }

private:
    std::vector<std::optional<RecordDict::Id>> m_ids;
};

} // namespace pto
