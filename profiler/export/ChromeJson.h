// Chrome export internals: JSON string escaping, the output sink, cycle→µs, track pid/tid.
#pragma once

#include "base/Utf8.h"
#include "trace_db/Rows.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

namespace pto::prof::chrome {

// Appends `s` as a JSON string (quotes included).
// Bytes that are not UTF-8 (a corrupt trace's names) become U+FFFD, so the file stays JSON.
inline void appendJsonString(fmt::memory_buffer& out, std::string_view s) {
    out.push_back('"');
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (static_cast<unsigned char>(c) >= 0x80) {
            const std::size_t n = utf8SequenceLength(s, i);
            if (n == 0) {
                out.append(std::string_view("\\ufffd"));
            } else {
                out.append(s.substr(i, n));
                i += n - 1;
            }
            continue;
        }
        switch (c) {
        case '"':
            out.append(std::string_view("\\\""));
            break;
        case '\\':
            out.append(std::string_view("\\\\"));
            break;
        case '\n':
            out.append(std::string_view("\\n"));
            break;
        case '\t':
            out.append(std::string_view("\\t"));
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20)
                fmt::format_to(std::back_inserter(out), "\\u{:04x}", int(c));
            else
                out.push_back(c);
        }
    }
    out.push_back('"');
}

// Buffered writer that flushes to the file every megabyte.
class JsonSink {
public:
    explicit JsonSink(std::FILE* file) : m_file(file) {}
    fmt::memory_buffer& buf() { return m_buf; }
    // Starts a new element of the traceEvents array.
    void next() {
        if (m_count++) m_buf.push_back(',');
        m_buf.push_back('\n');
        if (m_buf.size() > (1u << 20)) flush();
    }
    void flush() {
        write(m_buf.data(), m_buf.size());
        m_buf.clear();
    }
    // Writes bytes straight to the file (after flush()); `elements` array elements among them.
    void writeRaw(const char* data, std::size_t size, std::int64_t elements) {
        write(data, size);
        m_count += elements;
    }
    bool empty() const { return m_count == 0; }
    std::int64_t bytesWritten() const { return m_bytes; }

private:
    void write(const char* data, std::size_t size) {
        if (size && std::fwrite(data, 1, size, m_file) != size)
            throw std::runtime_error("cannot write the Chrome trace (disk full?)");
        m_bytes += std::int64_t(size);
    }

    std::FILE* m_file;
    fmt::memory_buffer m_buf;
    std::int64_t m_count = 0;
    std::int64_t m_bytes = 0;
};

// Cycle → microseconds, written with nanosecond resolution from integer arithmetic; the same
// rounding for every timestamp, so ts stays monotonic and adjacent slices never overlap.
class Clock {
public:
    explicit Clock(double hz) : m_nsPerCycle(1e9 / hz) {}
    std::int64_t ns(std::int64_t cycles) const {
        double v = double(cycles) * m_nsPerCycle;
        return std::int64_t(v >= 0 ? v + 0.5 : v - 0.5);
    }
    static void appendUs(fmt::memory_buffer& out, std::int64_t ns) {
        if (ns < 0) out.push_back('-'), ns = -ns;
        fmt::format_to(std::back_inserter(out), "{}.{:03}", ns / 1000, ns % 1000);
    }

private:
    double m_nsPerCycle;
};

struct TrackPlace {
    std::int64_t pid = 0, tid = 0;
    tracedb::TrackKind kind = tracedb::TrackKind::Pipe;
    std::string name;
};

using Places = std::unordered_map<std::int64_t, TrackPlace>;

} // namespace pto::prof::chrome
