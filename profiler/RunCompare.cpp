// Per-op and per-core deltas between two profiled runs.
#include "profiler/RunCompare.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace pto::prof {
namespace {

using OpKey = std::tuple<std::string, std::string, std::int64_t>;

OpKey keyOf(const TensorOpCost& op) {
    return {op.kind, op.name, op.srcLine};
}

// "matmul %qk"; "matmul %qk in kv" for an op of a loop's body; "for "kv" (total)" for a loop
// holding its body ops' total.
std::string opName(const TensorOpCost& op) {
    if (op.isLoopTotal()) return opLabel(op) + " (total)";
    std::string name = op.kind + (op.name.empty() ? "" : " " + op.name);
    return op.loop >= 0 ? name + " in " + op.loopName : name;
}

std::int64_t spanOf(const TensorOpCost& op) {
    return op.last > op.first ? op.last - op.first : 0;
}

std::string pct(const Delta& d) {
    if (d.a == 0) return d.b == 0 ? "0%" : "new";
    return fmt::format("{:+.1f}%", 100 * (d.b - d.a) / d.a);
}

// The per-core deltas of `c`: cores busy in either run, AIC before AIV, by number.
RunComparison withCores(RunComparison c, const Profile& a, const Profile& b) {
    std::map<std::string, CoreDelta> cores;
    auto addCores = [&](const Profile& p, bool second) {
        for (std::size_t i = 0; i < p.model.cores.size(); ++i) {
            const CoreBubbles& bub = p.bubbles.cores[i];
            if (bub.tasks == 0) continue;
            CoreDelta& d = cores[p.model.cores[i].name];
            d.core = p.model.cores[i].name;
            (second ? d.busy.b : d.busy.a) = double(bub.busy);
            (second ? d.tasks.b : d.tasks.a) = double(bub.tasks);
        }
    };
    addCores(a, false);
    addCores(b, true);
    for (auto& [name, d] : cores) c.cores.push_back(d);
    std::stable_sort(c.cores.begin(), c.cores.end(), [](const CoreDelta& x, const CoreDelta& y) {
        auto rank = [](const std::string& n) {
            return std::make_pair(n.substr(0, 3), std::atoi(n.c_str() + 4));
        };
        return rank(x.core) < rank(y.core);
    });
    return c;
}

} // namespace

RunComparison compareRuns(const Profile& a, const Profile& b) {
    RunComparison c;
    c.measured = a.model.measured && b.model.measured;
    c.totalCycles = {double(a.model.totalCycles), double(b.model.totalCycles)};
    auto us = [](const Profile& p) {
        return p.model.peaks.clockHz > 0 ? double(p.model.totalCycles) * 1e6 / p.model.peaks.clockHz
                                         : 0.0;
    };
    c.timeUs = {us(a), us(b)};
    c.sameClock = a.model.peaks.clockHz == b.model.peaks.clockHz;
    c.tasks = {double(a.model.tasks.size()), double(b.model.tasks.size())};
    c.gmBytes = {double(a.throughput.gmBytes), double(b.throughput.gmBytes)};
    c.boundA = a.runBound.label();
    c.boundB = b.runBound.label();
    if (!a.model.recordsInstrCycles() || !b.model.recordsInstrCycles()) {
        c.opsNotRecorded = fmt::format(
            "per-op spans need instruction slices in both runs; {} traced at --trace tasks (pto "
            "run --trace instructions)",
            !a.model.recordsInstrCycles() && !b.model.recordsInstrCycles() ? "A and B were"
            : a.model.recordsInstrCycles()                                 ? "B was"
                                                                           : "A was");
        return withCores(c, a, b);
    }
    std::map<OpKey, std::size_t> inB;
    for (std::size_t i = 0; i < b.model.tensorOps.size(); ++i)
        inB.emplace(keyOf(b.model.tensorOps[i]), i);
    std::vector<bool> matched(b.model.tensorOps.size(), false);
    for (std::size_t i : programOrder(a.model)) { // a loop's body ops follow it
        const TensorOpCost& op = a.model.tensorOps[i];
        if (op.cycles() == 0 && op.flops == 0) continue;
        OpDelta d;
        d.op = opName(op);
        d.line = op.srcLine;
        d.span.a = double(spanOf(op));
        d.cycles.a = double(op.cycles());
        d.boundA = a.bound.tensorOps[i].label();
        d.indexA = int(i);
        if (auto it = inB.find(keyOf(op)); it != inB.end()) {
            const TensorOpCost& other = b.model.tensorOps[it->second];
            matched[it->second] = true;
            d.span.b = double(spanOf(other));
            d.cycles.b = double(other.cycles());
            d.boundB = b.bound.tensorOps[it->second].label();
            d.indexB = int(it->second);
        } else {
            d.onlyInA = true;
        }
        c.ops.push_back(std::move(d));
    }
    for (std::size_t i : programOrder(b.model)) {
        const TensorOpCost& op = b.model.tensorOps[i];
        if (matched[i] || (op.cycles() == 0 && op.flops == 0)) continue;
        OpDelta d;
        d.op = opName(op);
        d.line = op.srcLine;
        d.span.b = double(spanOf(op));
        d.cycles.b = double(op.cycles());
        d.boundB = b.bound.tensorOps[i].label();
        d.indexB = int(i);
        d.onlyInB = true;
        c.ops.push_back(std::move(d));
    }
    return withCores(c, a, b);
}

nlohmann::json comparisonJson(const RunComparison& c, const std::string& nameA,
                              const std::string& nameB) {
    auto delta = [](const Delta& d) {
        return nlohmann::json{{"a", d.a}, {"b", d.b}, {"diff", d.diff()}, {"ratio", d.ratio()}};
    };
    // "total_cycles", or "total_ns" for two measured traces: keys name the time unit.
    auto timeKey = [&](std::string_view stem) { return fmt::format("{}_{}", stem, c.timeUnit()); };
    nlohmann::json j = {{"a", nameA},
                        {"b", nameB},
                        {timeKey("total"), delta(c.totalCycles)},
                        {"time_us", delta(c.timeUs)},
                        {"speedup", c.speedup()},
                        {"tasks", delta(c.tasks)},
                        {"ops", nlohmann::json::array()},
                        {"cores", nlohmann::json::array()}};
    if (c.measured) { // no GM bytes or FLOPs in the profiler files: no roof, no run bound
        j["measured"] = true;
    } else {
        j["gm_bytes"] = delta(c.gmBytes);
        j["bound"] = {{"a", c.boundA}, {"b", c.boundB}};
    }
    if (!c.opsNotRecorded.empty()) j["ops_not_recorded"] = c.opsNotRecorded;
    if (c.noOpInCommon()) j["different_programs"] = c.differentProgramsNote();
    for (const OpDelta& d : c.ops)
        j["ops"].push_back({{"op", d.op},
                            {"line", d.line},
                            {timeKey("span"), delta(d.span)},
                            {timeKey("instr"), delta(d.cycles)},
                            {"bound_a", d.boundA},
                            {"bound_b", d.boundB},
                            {"only_in_a", d.onlyInA},
                            {"only_in_b", d.onlyInB}});
    for (const CoreDelta& d : c.cores)
        j["cores"].push_back(
            {{"core", d.core}, {timeKey("busy"), delta(d.busy)}, {"tasks", delta(d.tasks)}});
    return j;
}

// Two measured traces: run time from the first kernel start to the last end, kernels, streams.
std::string measuredComparisonText(const RunComparison& c, const std::string& nameA,
                                   const std::string& nameB) {
    std::string out = fmt::format("A = {}\nB = {}\n", nameA, nameB);
    out += fmt::format("  run time   {:.3f} -> {:.3f} us, first kernel start to last end ({}, "
                       "{:.3f}x speedup)\n",
                       c.totalCycles.a / 1000, c.totalCycles.b / 1000, pct(c.totalCycles),
                       c.speedup());
    out += fmt::format("  kernels    {:.0f} -> {:.0f}\n", c.tasks.a, c.tasks.b);
    out += "  (measured traces: no GM bytes or Tensor ops in the profiler files; each kernel's "
           "bound class is in pto report)\n";
    out += "\nper stream track (ns running kernels):\n";
    for (const CoreDelta& d : c.cores)
        out += fmt::format("  {:<18} {:>12.0f} -> {:>12.0f}  {:>8}  kernels {:.0f} -> {:.0f}\n",
                           d.core, d.busy.a, d.busy.b, pct(d.busy), d.tasks.a, d.tasks.b);
    return out;
}

bool RunComparison::noOpInCommon() const {
    if (ops.empty()) return false;
    bool inA = false, inB = false;
    for (const OpDelta& d : ops) {
        if (!d.onlyInA && !d.onlyInB) return false;
        inA = inA || d.onlyInA;
        inB = inB || d.onlyInB;
    }
    return inA && inB;
}

std::string RunComparison::differentProgramsNote() const {
    if (!noOpInCommon()) return {};
    return "no op of B matches an op of A (kind, name and source line): these look like two "
           "different programs, so the per-op deltas say nothing; compare two runs of one program";
}

std::string comparisonText(const RunComparison& c, const std::string& nameA,
                           const std::string& nameB) {
    if (c.measured) return measuredComparisonText(c, nameA, nameB);
    std::string out = fmt::format("A = {}\nB = {}\n", nameA, nameB);
    if (c.sameClock)
        out += fmt::format("  run time   {:.0f} -> {:.0f} cycles ({}, {:.3f}x speedup)\n",
                           c.totalCycles.a, c.totalCycles.b, pct(c.totalCycles), c.speedup());
    else // cycles of different clocks: the speed-up is in time
        out += fmt::format("  run time   {:.0f} -> {:.0f} cycles, {:.3f} -> {:.3f} us at different "
                           "clocks ({}, {:.3f}x speedup in time)\n",
                           c.totalCycles.a, c.totalCycles.b, c.timeUs.a, c.timeUs.b, pct(c.timeUs),
                           c.speedup());
    out += fmt::format(
        "  tasks      {:.0f} -> {:.0f}\n  GM bytes   {:.0f} -> {:.0f}\n  bound      {} -> {}\n",
        c.tasks.a, c.tasks.b, c.gmBytes.a, c.gmBytes.b, c.boundA, c.boundB);
    out += "\nper Tensor op (span = first instruction start to last end):\n";
    if (const std::string note = c.differentProgramsNote(); !note.empty())
        out += "  note: " + note + "\n";
    if (!c.opsNotRecorded.empty())
        out += "  " + c.opsNotRecorded + "\n";
    else
        out += fmt::format("  {:>5}  {:<22} {:>10} {:>10} {:>8}  {}\n", "line", "op", "span A",
                           "span B", "change", "bound A -> B");
    for (const OpDelta& d : c.ops)
        out += fmt::format("  {:>5}  {:<22} {:>10.0f} {:>10.0f} {:>8}  {} -> {}\n", d.line, d.op,
                           d.span.a, d.span.b, d.onlyInA ? "gone" : pct(d.span),
                           d.boundA.empty() ? "-" : d.boundA, d.boundB.empty() ? "-" : d.boundB);
    // Busiest first by the larger of A and B: a core that only one run kept busy is listed too.
    constexpr std::size_t kShownCores = 16;
    std::vector<const CoreDelta*> cores;
    for (const CoreDelta& d : c.cores) cores.push_back(&d);
    std::stable_sort(cores.begin(), cores.end(), [](auto* x, auto* y) {
        return std::max(x->busy.a, x->busy.b) > std::max(y->busy.a, y->busy.b);
    });
    if (cores.size() > kShownCores) cores.resize(kShownCores);
    out += fmt::format("\nper core (busy cycles, the {} busiest in A or B):\n", cores.size());
    for (const CoreDelta* p : cores) {
        const CoreDelta& d = *p;
        out += fmt::format("  {:<8} {:>10.0f} -> {:>10.0f}  {:>8}  tasks {:.0f} -> {:.0f}\n",
                           d.core, d.busy.a, d.busy.b, pct(d.busy), d.tasks.a, d.tasks.b);
    }
    if (c.cores.size() > cores.size())
        out += fmt::format("  … {} more (--json lists all)\n", c.cores.size() - cores.size());
    return out;
}

} // namespace pto::prof
