// Text of the Block level (block functions, buffers, items) and of the Exec level (task graph).
#include "compiler/ir/BlockPrinter.h"

#include "compiler/ir/Printer.h"

#include <fmt/format.h>

#include <iterator>

namespace pto {
namespace {

std::string formatSync(const Sync& s) {
    if (s.kind == SyncKind::Barrier)
        return fmt::format("{} {}", syncKindName(s.kind), pipeName(s.src));
    if (s.kind == SyncKind::CrossSetFlag || s.kind == SyncKind::CrossWaitFlag)
        return fmt::format("{} {} {}, {}", syncKindName(s.kind), pipeName(s.src),
                           clusterRoleName(s.peer), s.event);
    return fmt::format("{} {} -> {}, {}", syncKindName(s.kind), pipeName(s.src), pipeName(s.dst),
                       s.event);
}

std::string formatItem(const BlockProgram& p, const NameTable& names, const BlockItem& item) {
    if (item.isSync()) return formatSync(item.sync);
    if (item.op >= p.tile.ops().size()) return fmt::format("<invalid tile op #{}>", item.op);
    return printOp(p.tile, p.tile.op(item.op), names);
}

void appendBuffer(std::string& out, const BlockProgram& p, const NameTable& names,
                  const Buffer& b) {
    fmt::format_to(
        std::back_inserter(out), "    buf {} {} [0x{:x}, 0x{:x}) {} B items {}..{} slot {}", b.id,
        memSpaceName(b.space), b.addr, b.addr + b.size, b.size, b.firstUse, b.lastUse, b.slot);
    if (b.value != kNoId)
        out += b.value < p.tile.valueCount() ? fmt::format(" %{}", names[b.value])
                                             : fmt::format(" <invalid value {}>", b.value);
    out += '\n';
}

void appendBlock(std::string& out, const BlockProgram& p, const NameTable& names,
                 const BlockFunction& b) {
    fmt::format_to(std::back_inserter(out), "block {} @{} {} group {}", b.id, b.name,
                   coreTypeName(b.core), b.group);
    if (b.cluster != kNoCluster)
        fmt::format_to(std::back_inserter(out), " cluster {} {}", b.cluster,
                       clusterRoleName(b.core == CoreType::AIC ? ClusterRole::Aic
                                       : b.sub == 0            ? ClusterRole::Aiv0
                                                               : ClusterRole::Aiv1));
    out += " {\n";
    out += "  buffers\n";
    for (const Buffer& buf : b.buffers) appendBuffer(out, p, names, buf);
    out += "  items\n";
    for (size_t i = 0; i < b.items.size(); ++i)
        fmt::format_to(std::back_inserter(out), "    {}: {}\n", i,
                       formatItem(p, names, b.items[i]));
    out += "}\n";
}

std::string_view depKindName(DepKind k) {
    constexpr std::string_view kNames[] = {"raw", "war", "waw"};
    return kNames[static_cast<int>(k)];
}

std::string printExec(const ExecGraph& g, const BlockProgram* program) {
    std::string out = "exec\n";
    for (const Task& t : g.tasks) {
        std::string block = fmt::format("block {}", t.block);
        if (program && t.block < program->blocks.size())
            block = "@" + program->blocks[t.block].name;
        fmt::format_to(std::back_inserter(out), "  task {} {} {}", t.id, block,
                       coreTypeName(t.core));
        if (!t.name.empty()) out.append(" ").append(formatAttrValue(AttrValue(t.name)));
        if (t.cluster != kNoCluster)
            fmt::format_to(std::back_inserter(out), " cluster {} {}", t.cluster,
                           clusterRoleName(t.role()));
        out += '\n';
    }
    for (const TaskDep& d : g.deps) {
        fmt::format_to(std::back_inserter(out), "  dep {} -> {} {}", d.from, d.to,
                       depKindName(d.kind));
        if (d.tensor != UINT32_MAX) fmt::format_to(std::back_inserter(out), " gm {}", d.tensor);
        out += '\n';
    }
    return out;
}

} // namespace

std::string printBlockProgram(const BlockProgram& p) {
    NameTable names(p.tile);
    std::string out =
        fmt::format("block_program @{}{}\n", p.tile.name, p.doubleBuffer ? " double_buffer" : "");
    for (const BlockFunction& b : p.blocks) appendBlock(out, p, names, b);
    return out;
}

std::string printExecGraph(const ExecGraph& graph, const BlockProgram& program) {
    return printExec(graph, &program);
}

std::string printExecGraph(const ExecGraph& graph) {
    return printExec(graph, nullptr);
}

} // namespace pto
