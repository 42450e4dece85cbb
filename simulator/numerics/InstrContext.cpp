// Operand checking and resolution for one instruction, with fault messages that name the
// operand, its region and the limit it broke.
#include "simulator/numerics/InstrContext.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

namespace pto::numerics {
namespace {

std::string listText(std::initializer_list<MemSpace> spaces) {
    std::string text;
    for (MemSpace s : spaces) {
        if (!text.empty()) text += '/';
        text += memSpaceName(s);
    }
    return text;
}

std::string listText(std::initializer_list<DType> dtypes) {
    std::string text;
    for (DType d : dtypes) {
        if (!text.empty()) text += '/';
        text += dtypeName(d);
    }
    return text;
}

} // namespace

FaultSite instrSite(const SiteInfo& info, const Instr& instr) {
    FaultSite site;
    site.coreType = info.coreType;
    site.core = info.core;
    site.pipe = instr.pipe;
    site.opcode = instr.opcode;
    site.tileOp = instr.tileOp;
    site.loc = instr.loc;
    if (info.file) site.file = *info.file;
    if (!info.program) return site;
    const std::less<const Instr*> before; // a total order, also across unrelated arrays
    const Instr& in = info.located ? *info.located : instr;
    for (size_t k = 0; k < info.program->kernels.size(); ++k) {
        const std::vector<Instr>& list = info.program->kernels[k].instrs;
        if (list.empty() || before(&in, list.data()) || !before(&in, list.data() + list.size()))
            continue;
        site.kernel = int64_t(k);
        site.instrIndex = &in - list.data();
        break;
    }
    return site;
}

InstrContext::InstrContext(const Instr& instr, const SiteInfo& site, GlobalMemory& gm,
                           CoreMemory& core, bool checkInit)
    : m_instr(instr), m_site(site), m_gm(gm), m_core(core), m_checkInit(checkInit) {}

void InstrContext::fail(FaultKind kind, const std::string& detail, int64_t indexElement) const {
    FaultSite site = instrSite(m_site, m_instr);
    site.indexElement = indexElement;
    throw SimFault(kind, std::move(site), detail);
}

std::string InstrContext::describe(int i) const {
    const Operand& o = operand(i);
    return fmt::format("operand {} = {} {} [{}x{}] @{} stride {}", i, memSpaceName(o.space),
                       dtypeName(o.dtype), o.rows, o.cols, o.addr, o.stride);
}

void InstrContext::expectCount(int lo, int hi) const {
    if (count() >= lo && count() <= hi) return;
    const std::string want = lo == hi ? fmt::format("{}", lo) : fmt::format("{} to {}", lo, hi);
    bad(fmt::format("{} takes {} operands, got {}", opcodeName(m_instr.opcode), want, count()));
}

void InstrContext::expectSpace(int i, std::initializer_list<MemSpace> spaces) const {
    if (std::find(spaces.begin(), spaces.end(), operand(i).space) != spaces.end()) return;
    bad(fmt::format("{} must be in {}", describe(i), listText(spaces)));
}

void InstrContext::expectDType(int i, std::initializer_list<DType> dtypes) const {
    if (std::find(dtypes.begin(), dtypes.end(), operand(i).dtype) != dtypes.end()) return;
    bad(fmt::format("{} must be {}", describe(i), listText(dtypes)));
}

void InstrContext::expectSameDType(int i, int j) const {
    if (operand(i).dtype == operand(j).dtype) return;
    bad(fmt::format("{} and {} must have the same dtype", describe(i), describe(j)));
}

void InstrContext::expectShape(int i, int64_t rows, int64_t cols) const {
    if (operand(i).rows == rows && operand(i).cols == cols) return;
    bad(fmt::format("{} must be [{}x{}]", describe(i), rows, cols));
}

void InstrContext::expectBroadcastable(int i, int64_t rows, int64_t cols) const {
    const Operand& o = operand(i);
    if ((o.rows == rows || o.rows == 1) && (o.cols == cols || o.cols == 1)) return;
    bad(fmt::format("{} does not broadcast to [{}x{}] (rows must be 1 or {}, cols 1 or {})",
                    describe(i), rows, cols, rows, cols));
}

void InstrContext::expectPipe(Pipe pipe) const {
    if (m_instr.pipe == pipe) return;
    bad(fmt::format("{} with these operands runs on pipe {}, not {}", opcodeName(m_instr.opcode),
                    pipeName(pipe), pipeName(m_instr.pipe)));
}

TileView InstrContext::resolve(int i, bool isWrite) const {
    const Operand& o = operand(i);
    // The operand rules of every checker (compiler/ir/Pto.h), then the executor's own: row
    // stride 0 (a vector source's row broadcast) may repeat a row at most as often as the
    // destination has rows.
    if (std::string problem = operandShapeProblem(m_instr, size_t(i)); !problem.empty())
        bad(fmt::format("{} {}", describe(i), problem));
    if (o.rows > 1 && o.stride == 0 && o.rows > operand(0).rows)
        bad(fmt::format("{} repeats one row (stride 0) more often than the destination's {} rows",
                        describe(i), operand(0).rows));
    if (std::string problem = operandSpaceProblem(o, m_core.type()); !problem.empty())
        bad(fmt::format("{} {}", describe(i), problem));
    const char* access = isWrite ? "write" : "read";
    const std::optional<ByteRange> range = operandBytes(o);
    if (!range)
        fail(FaultKind::OutOfBounds, fmt::format("{} {}: {} {}", memSpaceName(o.space), access,
                                                 describe(i), operandBoundsProblem(o, 0)));
    std::byte* base = nullptr;
    if (o.space == MemSpace::GM) {
        if (std::string problem = m_gm.regionProblem(range->begin, range->end); !problem.empty())
            fail(FaultKind::OutOfBounds,
                 fmt::format("GM {} {} ({})", access, problem, describe(i)));
        base = m_gm.data();
    } else {
        if (std::string problem = operandBoundsProblem(o, m_core.size(o.space)); !problem.empty())
            fail(FaultKind::OutOfBounds,
                 fmt::format("{} {}: {} {}", memSpaceName(o.space), access, describe(i), problem));
        base = m_core.data(o.space);
    }
    return TileView{base + range->begin, o.dtype, o.rows, o.cols, o.stride * dtypeSize(o.dtype)};
}

void InstrContext::checkInitialised(int i, const TileView& view) const {
    const Operand& o = operand(i);
    InitMap* init = o.space == MemSpace::GM ? nullptr : m_core.initMap(o.space);
    if (!m_checkInit || !init) return;
    const int64_t rowLen = o.cols * dtypeSize(o.dtype);
    for (int64_t r = 0; r < view.rows; ++r) {
        const int64_t begin = o.addr + r * view.rowBytes;
        const int64_t at = init->firstUnmarked(begin, begin + rowLen);
        if (at < 0) continue;
        fail(FaultKind::UninitializedRead,
             fmt::format("{} read [{}, {}) of {} reaches byte {} (row {}), which no instruction "
                         "wrote",
                         memSpaceName(o.space), o.addr, o.addr + view.span(), describe(i), at, r));
    }
}

TileView InstrContext::read(int i) {
    TileView view = resolve(i, false);
    checkInitialised(i, view);
    m_bytesRead += view.numel() * view.elemSize();
    return view;
}

TileView InstrContext::write(int i) {
    TileView view = resolve(i, true);
    m_bytesWritten += view.numel() * view.elemSize();
    m_elementsWritten += view.numel();
    if (m_writtenCount < int(m_written.size())) m_written[size_t(m_writtenCount++)] = i;
    return view;
}

void InstrContext::commit() {
    for (int w = 0; w < m_writtenCount; ++w) {
        const Operand& o = operand(m_written[size_t(w)]);
        InitMap* init = o.space == MemSpace::GM ? nullptr : m_core.initMap(o.space);
        if (!init) continue;
        const int64_t es = dtypeSize(o.dtype);
        for (int64_t r = 0; r < o.rows; ++r) {
            const int64_t begin = o.addr + r * o.stride * es;
            init->mark(begin, begin + o.cols * es);
        }
    }
}

} // namespace pto::numerics
