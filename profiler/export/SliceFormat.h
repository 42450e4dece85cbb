// Chrome export: one slice row → one ",\n{…}" trace event in a flat output buffer.
#pragma once

#include "profiler/InstrSource.h"
#include "profiler/export/ChromeExport.h"
#include "profiler/export/ChromeJson.h"
#include "trace_db/TraceReader.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pto::prof::chrome {

/// A growing output buffer written through a cursor: no capacity check per append, one
/// reserve() per row instead.
class RawBuffer {
public:
    void reserve(std::size_t bytes) {
        std::size_t used = size();
        if (used + bytes <= m_cap) return;
        std::size_t cap = std::max(m_cap * 2, used + bytes);
        std::unique_ptr<char[]> grown(new char[cap]); // not zero-filled
        if (used) std::memcpy(grown.get(), m_data.get(), used);
        m_data = std::move(grown);
        m_cap = cap;
        m_at = m_data.get() + used;
    }
    void clear() { m_at = m_data.get(); }
    std::size_t size() const { return std::size_t(m_at - m_data.get()); }
    const char* data() const { return m_data.get(); }
    template <std::size_t N> void put(const char (&literal)[N]) {
        std::memcpy(m_at, literal, N - 1);
        m_at += N - 1;
    }
    void put(std::string_view s) {
        std::memcpy(m_at, s.data(), s.size());
        m_at += s.size();
    }
    void putInt(std::int64_t v) { m_at = std::to_chars(m_at, m_at + 24, v).ptr; }
    /// Nanoseconds as microseconds with three decimals.
    void putUs(std::int64_t ns) {
        if (ns < 0) *m_at++ = '-', ns = -ns;
        putInt(ns / 1000);
        int frac = int(ns % 1000);
        m_at[0] = '.';
        m_at[1] = char('0' + frac / 100);
        m_at[2] = char('0' + frac / 10 % 10);
        m_at[3] = char('0' + frac % 10);
        m_at += 4;
    }

private:
    std::unique_ptr<char[]> m_data;
    std::size_t m_cap = 0;
    char* m_at = nullptr;
};

/// One row of the slice table as the export reads it.
struct SliceRecord {
    std::int64_t id = 0, ts = 0, dur = 0, track = 0, name = 0;
    std::string_view category;
    std::int64_t instr = 0, task = 0, argSet = 0;
    bool hasInstr = false, hasTask = false, hasArgSet = false;
};

/// An arg set as JSON: ,"key":value… and, when its `loop` names a round of a loop of the
/// program ("kv, iter 7"), the ,"src_loop":… that replaces the instruction's (round 0's).
struct ArgSetJson {
    std::string json;
    std::string srcLoop;
};

/// What ties an instruction to the program (InstrSource.h) as JSON, rendered once per
/// instruction: ,"src":"file.pto:22","tensor_op":…,"tile_op":… and ,"src_loop":….
struct InstrJson {
    std::string source;
    std::string loop;
};

/// What formatting needs, shared read-only by the worker threads.
struct SliceTables {
    std::vector<std::string> nameOf;                   // name id → JSON string
    std::vector<std::string> laneOf;                   // track id → "pid":P,"tid":T,"ts":
    std::unordered_map<std::int64_t, ArgSetJson> args; // arg set → its JSON
    std::vector<InstrJson> sources;                    // distinct instruction sources
    InstrSources instrs;                               // instr id → index into `sources`
    std::size_t rowBytes = 512;
    Clock clock{1e9};
    TimeWindow window; ///< the slices written: those overlapping it

    bool exported(std::int64_t track) const {
        return track > 0 && std::size_t(track) < laneOf.size() &&
               !laneOf[std::size_t(track)].empty();
    }
    const InstrJson* instr(std::int64_t id) const {
        const std::int32_t i = instrs.indexOf(id);
        return i < 0 ? nullptr : &sources[std::size_t(i)];
    }
};

/// The tables for `reader`'s tracks, names and args.
SliceTables sliceTables(const tracedb::TraceReader& reader, const Places& places,
                        const std::unordered_map<std::int64_t, std::string>& names,
                        const Clock& clock);

/// The category, one of the schema's fixed lower-case words (at most 16 bytes written); any
/// other byte (a corrupt file) becomes '?' so the JSON stays valid.
inline void putCategory(RawBuffer& out, std::string_view category) {
    category = category.substr(0, 16);
    char word[16];
    for (std::size_t i = 0; i < category.size(); ++i) {
        char c = category[i];
        word[i] = (c >= 'a' && c <= 'z') || c == '_' ? c : '?';
    }
    out.put(std::string_view(word, category.size()));
}

/// Appends ",\n{…}" for `s` (whose track must be exported): "X" with ts/dur in µs, or "i"
/// for an instant; the cycles, ids, the instruction's source (src, tensor_op, tile_op,
/// src_loop) and the arg set in args.
inline void formatSlice(RawBuffer& out, const SliceTables& t, const SliceRecord& s) {
    std::int64_t t0 = t.clock.ns(s.ts);
    out.reserve(t.rowBytes);
    if (s.dur > 0)
        out.put(",\n{\"ph\":\"X\",");
    else
        out.put(",\n{\"ph\":\"i\",\"s\":\"t\",");
    out.put(t.laneOf[std::size_t(s.track)]);
    out.putUs(t0);
    if (s.dur > 0) {
        out.put(",\"dur\":");
        out.putUs(t.clock.ns(s.ts + s.dur) - t0);
    }
    out.put(",\"name\":");
    if (s.name > 0 && std::size_t(s.name) < t.nameOf.size() &&
        !t.nameOf[std::size_t(s.name)].empty())
        out.put(t.nameOf[std::size_t(s.name)]);
    else
        out.put("\"\"");
    out.put(",\"cat\":\"");
    putCategory(out, s.category);
    out.put("\",\"args\":{\"slice_id\":");
    out.putInt(s.id);
    out.put(",\"cycle\":");
    out.putInt(s.ts);
    out.put(",\"dur_cycles\":");
    out.putInt(s.dur);
    if (s.hasInstr) {
        out.put(",\"instr_id\":");
        out.putInt(s.instr);
    }
    if (s.hasTask) {
        out.put(",\"task_id\":");
        out.putInt(s.task);
    }
    const InstrJson* source = s.hasInstr ? t.instr(s.instr) : nullptr;
    const ArgSetJson* set = nullptr;
    if (s.hasArgSet && !t.args.empty())
        if (auto a = t.args.find(s.argSet); a != t.args.end()) set = &a->second;
    if (source) out.put(source->source);
    if (set && !set->srcLoop.empty())
        out.put(set->srcLoop);
    else if (source)
        out.put(source->loop);
    if (set) out.put(set->json);
    out.put("}}");
}

} // namespace pto::prof::chrome
