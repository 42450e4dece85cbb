// Checks of an ImportModel before it is written: duplicates, far-off times, invalid UTF-8.
#include "importer/ModelChecks.h"

#include "importer/Text.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

namespace pto::importer {
namespace {

using tracedb::StatSeverity;

std::string fileOf(const ImportModel& model, const Source& source) {
    if (source.file < 0 || std::size_t(source.file) >= model.sourceFiles.size()) return "input";
    return model.sourceFiles[std::size_t(source.file)].name;
}

std::string micros(std::int64_t ns) {
    const char* sign = ns < 0 ? "-" : "";
    const std::uint64_t abs = ns < 0 ? 0 - std::uint64_t(ns) : std::uint64_t(ns);
    return fmt::format("{}{}.{:03d}", sign, abs / 1000, abs % 1000);
}

std::int64_t medianStart(const ImportModel& model) {
    std::vector<std::int64_t> starts;
    starts.reserve(model.kernels.size() + model.spans.size() + model.counters.size());
    for (const Kernel& k : model.kernels) starts.push_back(k.startNs);
    for (const Span& s : model.spans) starts.push_back(s.startNs);
    for (const CounterSample& c : model.counters) starts.push_back(c.ns);
    auto mid = starts.begin() + std::ptrdiff_t(starts.size() / 2);
    std::nth_element(starts.begin(), mid, starts.end());
    return *mid;
}

// Removes the items `far` marks, counting each by its file.
template <typename T>
void dropFar(std::vector<T>& items, ImportModel& model, std::int64_t median,
             const std::function<std::pair<std::int64_t, std::int64_t>(const T&)>& time) {
    const auto far = [&](const T& item) {
        const auto [start, dur] = time(item);
        const bool out =
            start < median - kMaxNanosFromMedian || start + dur > median + kMaxNanosFromMedian;
        if (out)
            model.count("import_row_skipped", StatSeverity::DataLoss,
                        fmt::format("{}: a row or event more than a day from the median start of "
                                    "the input (a time in another unit, or not a time)",
                                    fileOf(model, item.source)),
                        1,
                        fmt::format("{}: start {} us, duration {} us; the median start is {} us",
                                    model.where(item.source), micros(start), micros(dur),
                                    micros(median)));
        return out;
    };
    items.erase(std::remove_if(items.begin(), items.end(), far), items.end());
}

// Replaces invalid UTF-8 in one text; true when something was replaced.
bool fix(std::string& text) {
    if (isUtf8(text)) return false;
    std::int64_t replaced = 0;
    text = validUtf8(text, replaced);
    return true;
}

bool fixArgs(Args& args) {
    bool changed = false;
    for (auto& [key, value] : args) {
        changed |= fix(key);
        if (auto* text = std::get_if<std::string>(&value)) changed |= fix(*text);
    }
    return changed;
}

void countUtf8(ImportModel& model, const std::string& file, const std::string& first) {
    model.count("import_invalid_utf8", StatSeverity::DataLoss,
                fmt::format("{}: a name or text holding bytes that are not UTF-8 (each replaced "
                            "by U+FFFD)",
                            file),
                1, first);
}

} // namespace

DuplicateRows::DuplicateRows(std::string file, std::string unit, std::string row)
    : m_file(std::move(file)), m_unit(std::move(unit)), m_row(std::move(row)) {}

bool DuplicateRows::seen(const std::vector<std::string>& cells, std::int64_t at) {
    std::string joined;
    for (const std::string& cell : cells) (joined += cell) += '\x1f';
    return seen(joined, at);
}

bool DuplicateRows::seen(std::string_view text, std::int64_t at) {
    auto [it, fresh] = m_firstAt.emplace(std::hash<std::string_view>{}(text), at);
    if (fresh) return false;
    if (m_repeats++ == 0)
        m_first = fmt::format("{} {}, the same as {} {}", m_unit, at, m_unit, it->second);
    return true;
}

void DuplicateRows::countIn(ImportModel& model) const {
    if (m_repeats == 0) return;
    model.count("import_duplicate_dropped", StatSeverity::DataLoss,
                fmt::format("{}: {} identical to an earlier one (dropped, not counted twice)",
                            m_file, m_row),
                m_repeats, m_first);
}

void dropTimesOutsideTheRun(ImportModel& model) {
    if (model.kernels.empty() && model.spans.empty() && model.counters.empty()) return;
    const std::int64_t median = medianStart(model);
    dropFar<Kernel>(model.kernels, model, median,
                    [](const Kernel& k) { return std::pair(k.startNs, k.durNs); });
    dropFar<Span>(model.spans, model, median,
                  [](const Span& s) { return std::pair(s.startNs, s.durNs); });
    dropFar<CounterSample>(model.counters, model, median,
                           [](const CounterSample& c) { return std::pair(c.ns, std::int64_t(0)); });
}

void replaceInvalidUtf8(ImportModel& model) {
    for (Kernel& k : model.kernels)
        if (fix(k.name) | fix(k.opType) | fix(k.coreType) | fixArgs(k.args))
            countUtf8(model, fileOf(model, k.source),
                      fmt::format("{}: '{}'", model.where(k.source), k.name));
    for (Span& s : model.spans)
        if (fix(s.name) | fixArgs(s.args))
            countUtf8(model, fileOf(model, s.source),
                      fmt::format("{}: '{}'", model.where(s.source), s.name));
    for (CounterSample& c : model.counters)
        if (fix(c.track)) countUtf8(model, fileOf(model, c.source), model.where(c.source));
    for (Lane& lane : model.lanes)
        if (fix(lane.group) | fix(lane.name))
            countUtf8(model, "input", fmt::format("lane '{} · {}'", lane.group, lane.name));
    for (auto& [key, value] : model.meta)
        fix(value); // a path that is not UTF-8: shown with U+FFFD, not counted as data
}

} // namespace pto::importer
