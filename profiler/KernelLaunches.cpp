// Reads task → block function and shared-kernel launches from a trace; rebases operand text.
#include "profiler/KernelLaunches.h"

#include "profiler/SqlRows.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <unordered_set>

namespace pto::prof {
namespace {

bool isRebase(const nlohmann::json& r) {
    return r.is_array() && r.size() == 3 &&
           std::all_of(r.begin(), r.end(), [](const auto& v) { return v.is_number_integer(); });
}

std::vector<LaunchRebase> rebasesOf(const nlohmann::json& task) {
    std::vector<LaunchRebase> out;
    if (!task.contains("rebases") || !task["rebases"].is_array()) return out;
    for (const nlohmann::json& r : task["rebases"])
        if (isRebase(r))
            out.push_back(
                {r[0].get<std::int64_t>(), r[1].get<std::int64_t>(), r[2].get<std::int64_t>()});
    std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.begin < b.begin; });
    return out;
}

/// The id of the last stage of `level`, -1 when there is none.
std::int64_t lastStage(const tracedb::TraceReader& reader, tracedb::StageLevel level) {
    std::int64_t id = -1;
    for (const tracedb::StageRow& s : reader.stages())
        if (s.level == level) id = s.id;
    return id;
}

} // namespace

std::vector<SharedLaunch> sharedLaunches(std::string_view kernelAttrs) {
    std::vector<SharedLaunch> out;
    if (kernelAttrs.find("\"tasks\"") == std::string_view::npos) return out;
    const nlohmann::json a = nlohmann::json::parse(kernelAttrs, nullptr, false);
    if (!a.is_object() || !a.contains("tasks") || !a["tasks"].is_array()) return out;
    for (const nlohmann::json& t : a["tasks"])
        if (t.is_object() && t.contains("id") && t["id"].is_number_integer())
            out.push_back({t["id"].get<std::int64_t>(), rebasesOf(t)});
    return out;
}

std::int64_t rebasedAddress(std::span<const LaunchRebase> rebases, std::int64_t addr) {
    auto it = std::upper_bound(rebases.begin(), rebases.end(), addr,
                               [](std::int64_t a, const LaunchRebase& r) { return a < r.begin; });
    if (it == rebases.begin()) return addr;
    --it;
    return addr < it->end ? addr + it->delta : addr;
}

std::string rebasedOperands(std::string_view operands, std::span<const LaunchRebase> rebases) {
    constexpr std::string_view kGm = "GM[0x";
    std::string out;
    std::size_t at = 0;
    while (true) {
        const std::size_t gm = operands.find(kGm, at);
        if (gm == std::string_view::npos || rebases.empty()) break;
        const std::size_t digits = gm + kGm.size();
        std::int64_t addr = 0;
        const auto [end, ec] =
            std::from_chars(operands.data() + digits, operands.data() + operands.size(), addr, 16);
        out.append(operands.substr(at, digits - at));
        if (ec != std::errc()) { // not an address: copied as it is
            at = digits;
            continue;
        }
        at = std::size_t(end - operands.data());
        out += fmt::format("{:x}", rebasedAddress(rebases, addr));
    }
    out.append(operands.substr(at));
    return out;
}

std::string formatRebases(std::span<const LaunchRebase> rebases) {
    if (rebases.empty()) return "none";
    std::string out;
    for (const LaunchRebase& r : rebases)
        out += fmt::format("{}[0x{:x}, 0x{:x}) {:+#x}", out.empty() ? "" : ", ", r.begin, r.end,
                           r.delta);
    return out;
}

namespace {

/// Block functions of the last Block stage by name; a name two of them carry is left out.
std::unordered_map<std::string, std::int64_t> blocksByName(const tracedb::TraceReader& reader) {
    std::unordered_map<std::string, std::int64_t> byName;
    const std::int64_t block = lastStage(reader, tracedb::StageLevel::Block);
    if (block < 0) return byName;
    std::unordered_set<std::string> repeated;
    forEachRow(
        reader,
        fmt::format("SELECT id, name FROM node WHERE stage_id = {} AND kind = 'block_fn'", block),
        [&](auto row) {
            if (!byName.emplace(cellText(row[1]), cellInt(row[0])).second)
                repeated.insert(cellText(row[1]));
        });
    for (const std::string& name : repeated) byName.erase(name);
    return byName;
}

} // namespace

KernelLaunches KernelLaunches::load(const tracedb::TraceReader& reader) {
    KernelLaunches k;
    if (const std::int64_t exec = lastStage(reader, tracedb::StageLevel::Exec); exec >= 0)
        forEachRow(reader,
                   fmt::format("SELECT id, parent_id FROM node WHERE stage_id = {} AND kind = "
                               "'task' AND parent_id IS NOT NULL",
                               exec),
                   [&](auto row) { k.m_taskBlock[cellInt(row[0])] = cellInt(row[1]); });
    const auto byName = blocksByName(reader);
    if (const std::int64_t pto = lastStage(reader, tracedb::StageLevel::Pto); pto >= 0)
        forEachRow(reader,
                   fmt::format("SELECT id, parent_id, attrs, name FROM node WHERE stage_id = {} "
                               "AND kind = 'kernel' ORDER BY id",
                               pto),
                   [&](auto row) {
                       const std::int64_t kernel = cellInt(row[0]);
                       for (const SharedLaunch& l : sharedLaunches(cellText(row[2]))) {
                           k.m_sharedKernel[l.task] = kernel;
                           k.m_sharedKernels.insert(kernel);
                       }
                       const auto named = byName.find(cellText(row[3]));
                       const std::int64_t block = named != byName.end() ? named->second
                                                  : cellNull(row[1])    ? kernel
                                                                        : cellInt(row[1]);
                       k.m_kernelBlock[kernel] = block;
                       k.m_blockKernel.emplace(block, kernel);
                   });
    return k;
}

std::int64_t KernelLaunches::blockOf(std::int64_t task, std::int64_t kernel) const {
    if (auto it = m_taskBlock.find(task); it != m_taskBlock.end()) return it->second;
    if (m_sharedKernels.count(kernel)) return -1;
    return blockOfKernel(kernel);
}

std::int64_t KernelLaunches::blockOfKernel(std::int64_t kernel) const {
    const auto it = m_kernelBlock.find(kernel);
    return it == m_kernelBlock.end() ? kernel : it->second;
}

std::int64_t KernelLaunches::kernelOfBlock(std::int64_t block) const {
    if (m_kernelBlock.empty()) return block; // no PTO stage: ids are the same
    const auto it = m_blockKernel.find(block);
    return it == m_blockKernel.end() ? -1 : it->second;
}

std::int64_t KernelLaunches::sharedKernelOf(std::int64_t task) const {
    const auto it = m_sharedKernel.find(task);
    return it == m_sharedKernel.end() ? -1 : it->second;
}

} // namespace pto::prof
