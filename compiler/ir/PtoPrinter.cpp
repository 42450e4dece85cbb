// The printer of the PTO listing (syntax in PtoPrinter.h).
#include "compiler/ir/PtoPrinter.h"

#include "compiler/ir/Printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <unordered_map>

namespace pto {
namespace {

bool isPlainName(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.'))
            return false;
    return true;
}

// "%x" / "@k0", or a quoted string when the name is not a plain identifier.
std::string symbol(char sigil, const std::string& name) {
    if (isPlainName(name)) return fmt::format("{}{}", sigil, name);
    return formatAttrValue(AttrValue(name));
}

bool isScalarOpcode(Opcode op) {
    return (op >= Opcode::TAddS && op <= Opcode::TCmpS) || op == Opcode::TExpandS;
}

std::string_view modeKey(Opcode op) {
    if (op == Opcode::TCvt) return "round";
    if (op == Opcode::TCmp || op == Opcode::TCmpS) return "pred";
    return "mode";
}

std::string formatStep(int64_t step) {
    if (step == 0) return {};
    if (step > 0) return fmt::format(" + 0x{:x}*i", step);
    return fmt::format(" - 0x{:x}*i", uint64_t(0) - uint64_t(step));
}

std::string formatOperand(const Operand& o, int64_t step = 0) {
    return fmt::format("{}[0x{:x}{}]:{}[{}x{}/{}]", memSpaceName(o.space), o.addr, formatStep(step),
                       dtypeName(o.dtype), o.rows, o.cols, o.stride);
}

std::string formatInstrAttrs(const Instr& in) {
    std::vector<std::string> items;
    if (isScalarOpcode(in.opcode) || in.scalar != 0.0)
        items.push_back("scalar = " + formatDouble(in.scalar));
    if (!in.mode.empty()) {
        bool plain = isPlainName(in.mode);
        items.push_back(fmt::format("{} = {}", modeKey(in.opcode),
                                    plain ? in.mode : formatAttrValue(AttrValue(in.mode))));
    }
    if (in.transposeA) items.emplace_back("transpose_a");
    if (in.transposeB) items.emplace_back("transpose_b");
    if (items.empty()) return {};
    return fmt::format("{{{}}}", fmt::join(items, ", "));
}

// Kernel references of task lines: @name when the name is plain and unique, else #index.
std::vector<std::string> kernelRefs(const PtoProgram& p) {
    std::unordered_map<std::string, int> count;
    for (const Kernel& k : p.kernels) ++count[k.name];
    std::vector<std::string> refs;
    for (size_t i = 0; i < p.kernels.size(); ++i) {
        const std::string& n = p.kernels[i].name;
        refs.push_back(isPlainName(n) && count[n] == 1 ? "@" + n : fmt::format("#{}", i));
    }
    return refs;
}

std::vector<std::string> tensorRefs(const PtoProgram& p) {
    std::unordered_map<std::string, int> count;
    for (const GmTensor& t : p.gm) ++count[t.name];
    std::vector<std::string> refs;
    for (size_t i = 0; i < p.gm.size(); ++i) {
        const std::string& n = p.gm[i].name;
        refs.push_back(isPlainName(n) && count[n] == 1 ? "%" + n : fmt::format("#{}", i));
    }
    return refs;
}

std::string_view depKindName(DepKind k) {
    constexpr std::string_view kNames[] = {"raw", "war", "waw"};
    return kNames[static_cast<int>(k)];
}

std::string formatDep(const TaskDep& d, const std::vector<std::string>& tensors, bool withTo) {
    std::string s = withTo ? fmt::format("{} -> {} {}", d.from, d.to, depKindName(d.kind))
                           : fmt::format("{} {}", d.from, depKindName(d.kind));
    if (d.tensor != UINT32_MAX)
        s += " " + (d.tensor < tensors.size() ? tensors[d.tensor] : fmt::format("#{}", d.tensor));
    return s;
}

void appendGm(std::string& out, const GmTensor& t) {
    fmt::format_to(std::back_inserter(out), "gm {} : {}[{}] @0x{:x} {}", symbol('%', t.name),
                   dtypeName(t.dtype), t.shape.str(), t.addr, gmRoleName(t.role));
    if (t.tensorValue != kNoId)
        fmt::format_to(std::back_inserter(out), " !value {}", t.tensorValue);
    out += '\n';
}

void appendTasks(std::string& out, const PtoProgram& p) {
    std::vector<std::string> kernels = kernelRefs(p);
    std::vector<std::string> tensors = tensorRefs(p);
    const ExecGraph& g = p.exec;
    std::vector<std::vector<const TaskDep*>> into(g.tasks.size());
    std::vector<const TaskDep*> stray;
    for (const TaskDep& d : g.deps) {
        if (d.to < g.tasks.size())
            into[d.to].push_back(&d);
        else
            stray.push_back(&d);
    }
    for (size_t i = 0; i < g.tasks.size(); ++i) {
        const Task& t = g.tasks[i];
        std::string kernel =
            t.block < kernels.size() ? kernels[t.block] : fmt::format("#{}", t.block);
        fmt::format_to(std::back_inserter(out), "task {} {} {}", t.id, kernel,
                       coreTypeName(t.core));
        if (!t.name.empty()) out.append(" ").append(formatAttrValue(AttrValue(t.name)));
        if (t.cluster != kNoCluster)
            out.append(t.core == CoreType::AIV || t.sub != 0
                           ? fmt::format(" cluster {}/{}", t.cluster, t.sub)
                           : fmt::format(" cluster {}", t.cluster));
        for (size_t j = 0; j < t.rebases.size(); ++j) {
            const GmRebase& r = t.rebases[j];
            fmt::format_to(std::back_inserter(out), "{}[0x{:x}, 0x{:x}) {:+#x}",
                           j ? ", " : " rebase ", r.begin, r.end, r.delta);
        }
        for (size_t j = 0; j < into[i].size(); ++j)
            out.append(j ? ", " : " after ").append(formatDep(*into[i][j], tensors, false));
        out += '\n';
    }
    for (const TaskDep* d : stray) out += "dep " + formatDep(*d, tensors, true) + "\n";
}

} // namespace

std::string printPtoOperands(const Instr& in) {
    return printPtoOperands(in, std::array<int64_t, 4>{});
}

std::string printPtoOperands(const Instr& in, const std::array<int64_t, 4>& steps, int eventStep) {
    std::string rest;
    if (in.opcode == Opcode::SetFlag || in.opcode == Opcode::WaitFlag)
        rest = fmt::format("{}->{} {}{}", pipeName(in.flagSrc), pipeName(in.flagDst), in.event,
                           eventStep ? fmt::format(" + {}*i", eventStep) : std::string());
    else if (in.opcode == Opcode::Barrier)
        rest = std::string(pipeName(in.flagSrc));
    else if (isCrossFlag(in.opcode))
        rest = fmt::format("{} {}", clusterRoleName(in.peer), in.event);
    size_t count = std::min<size_t>(in.operandCount, in.operands.size());
    for (size_t i = 0; i < count; ++i)
        rest += (rest.empty() ? "" : ", ") + formatOperand(in.operands[i], steps[i]);
    std::string attrs = formatInstrAttrs(in);
    if (!attrs.empty()) rest += (rest.empty() ? "" : " ") + attrs;
    return rest;
}

namespace {

std::string printInstrLine(const Instr& in, const std::array<int64_t, 4>& steps,
                           int eventStep = 0) {
    std::string rest = printPtoOperands(in, steps, eventStep);
    if (in.tileOp != kNoId) rest += fmt::format("{}!op {}", rest.empty() ? "" : " ", in.tileOp);
    if (in.loc.known())
        rest += fmt::format("{}!loc {}:{}", rest.empty() ? "" : " ", in.loc.line, in.loc.col);
    std::string line =
        fmt::format("{:<4} {:<13} {}", pipeName(in.pipe), opcodeName(in.opcode), rest);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line;
}

std::string loopHeader(const InstrLoop& loop) {
    std::string iters;
    for (int64_t i : loop.outerIters) iters += fmt::format("{}/", i);
    return fmt::format("loop {} {} iter {}{}{} {{", formatAttrValue(AttrValue(loop.name)),
                       loop.count, iters, loop.firstIter,
                       loop.iterStride == 1 ? std::string()
                                            : fmt::format(" by {}", loop.iterStride));
}

void appendKernelBody(std::string& out, const Kernel& k) {
    size_t next = 0; // the next loop of k.loops
    for (size_t i = 0; i < k.instrs.size(); ++i) {
        const InstrLoop* loop =
            next < k.loops.size() && k.loops[next].begin <= i && i < k.loops[next].end
                ? &k.loops[next]
                : nullptr;
        if (loop && i == loop->begin) out += "  " + loopHeader(*loop) + "\n";
        out += loop ? "    " + printInstrLine(k.instrs[i], loop->steps[i - loop->begin],
                                              loop->eventStep(i - loop->begin))
                    : "  " + printInstrLine(k.instrs[i], {});
        if (loop && !loop->iterOffsets.empty() && loop->iterOffsets[i - loop->begin] != 0)
            out += fmt::format(" !iter +{}", loop->iterOffsets[i - loop->begin]);
        out += '\n';
        if (loop && i + 1 == loop->end) {
            out += "  }\n";
            ++next;
        }
    }
}

} // namespace

std::string printPtoInstr(const Instr& in) {
    return printInstrLine(in, {});
}

std::string printPtoProgram(const PtoProgram& p) {
    std::string out = p.name.empty() ? std::string("pto\n") : "pto " + symbol('@', p.name) + "\n";
    for (const GmTensor& t : p.gm) appendGm(out, t);
    for (const Kernel& k : p.kernels) {
        fmt::format_to(std::back_inserter(out), "kernel {} {} {{\n", symbol('@', k.name),
                       coreTypeName(k.core));
        appendKernelBody(out, k);
        out += "}\n";
    }
    appendTasks(out, p);
    return out;
}

} // namespace pto
