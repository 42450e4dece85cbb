// Estimates of what a compile and a run will allocate, checked against the resource budget.
#include "compiler/ResourceBudget.h"

#include "compiler/ir/Printer.h"
#include "compiler/ir/PtoLoops.h"
#include "compiler/passes/DefaultVecTiles.h"
#include "compiler/passes/UnrollLoops.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <vector>

namespace pto {
namespace {

using Ints = std::vector<int64_t>;

// Host bytes a compile holds per tile op across all stages, trace file included (measured on
// gemm_4096 and on element-wise programs with tiny tiles: 2.6-2.7 KiB; docs/PERFORMANCE.md).
constexpr int64_t kHostBytesPerTileOp = 2560;

double ceilDiv(double a, double b) {
    return std::ceil(a / std::max(b, 1.0));
}

// Tiles of the grid `tile` over `shape`.
double gridSize(const Shape& shape, const Shape& tile) {
    double n = 1;
    for (int d = 0; d < shape.rank(); ++d) n *= ceilDiv(double(shape[d]), double(tile[d]));
    return n;
}

// Sizes align with the trailing dims; missing leading sizes are 1 (as expand-tiles reads them).
Shape explicitVecTile(const Ints& sizes, const Shape& space) {
    Shape tile = space;
    for (int d = 0; d < space.rank(); ++d) {
        const int i = int(sizes.size()) - space.rank() + d;
        tile[d] = std::clamp<int64_t>(i >= 0 ? sizes[size_t(i)] : 1, 1, space[d]);
    }
    return tile;
}

std::string gridText(const Shape& shape, const Shape& tile) {
    return fmt::format("{} in {} tiles", shape.str(), tile.str());
}

struct OpCount {
    double count = 0;
    std::string detail;
};

// Walks the function in order, keeping the directive scopes as expand-tiles does.
class Estimator {
public:
    Estimator(const Function& f, const TargetInfo& target) : m_f(f), m_target(target) {}

    OpCount count(const Op& op) {
        if (op.kind == OpKind::VecTile) m_vec = op.attrs.getInts("sizes");
        if (op.kind == OpKind::CubeTile) m_cube = op.attrs.getInts("sizes");
        if (isDirective(op.kind) || op.result == kNoId) return {};
        switch (opInfo(op.kind).cls) {
        case OpClass::Matmul:
            return matmul(op);
        case OpClass::Reduce:
            return vector(op, m_f.type(op.operands.at(0)).shape, 2);
        case OpClass::Layout:
            return layout(op);
        default:
            // One tile op per result tile, a tile per operand (loaded or produced) and a store.
            return vector(op, m_f.type(op.result).shape, 2 + double(op.operands.size()));
        }
    }

private:
    OpCount vector(const Op& op, const Shape& space, double perTile) {
        std::optional<Ints> sizes = op.attrs.getInts("vec_tile");
        if (!sizes) sizes = m_vec;
        const Shape tile =
            sizes ? explicitVecTile(*sizes, space) : defaultOpVecTile(space, m_target);
        return {gridSize(space, tile) * perTile, gridText(space, tile)};
    }

    // A load and a store per copy tile of `t`.
    static OpCount copy(const Type& t, bool rowsOnly = false) {
        Shape tile = defaultCopyTile(t.shape, t.dtype);
        if (rowsOnly && t.shape.rank() >= 2) tile[t.shape.rank() - 2] = 1;
        return {gridSize(t.shape, tile) * 2, gridText(t.shape, tile)};
    }

    OpCount layout(const Op& op) {
        const Type& y = m_f.type(op.result);
        switch (op.kind) {
        case OpKind::Broadcast:
        case OpKind::Fill:
            return vector(op, y.shape, 2);
        case OpKind::View: // an offset into the operand's home: no tile op
            return {};
        case OpKind::Reshape:
            return reshape(m_f.type(op.operands.at(0)), y);
        case OpKind::Concat: {
            OpCount c;
            for (ValueId x : op.operands) c.count += copy(m_f.type(x)).count;
            c.detail = fmt::format("{} operands copied in tiles", op.operands.size());
            return c;
        }
        case OpKind::Transpose:
            return transpose(op, y);
        default:
            return copy(y);
        }
    }

    // Keeping the last dim it is a view; otherwise row pieces of gcd(old, new last dim).
    static OpCount reshape(const Type& x, const Type& y) {
        const int64_t xc = x.shape.rank() ? x.shape.back() : 1;
        const int64_t yc = y.shape.rank() ? y.shape.back() : 1;
        if (xc == yc) return {};
        const double run = double(std::gcd(xc, yc));
        const double piece = std::min(run, double(kDefaultTileBytes / dtypeSize(y.dtype)));
        const double pieces = double(y.shape.numel()) / run * ceilDiv(run, piece);
        return {pieces * 2, fmt::format("{} row pieces of {} elements", pieces, piece)};
    }

    OpCount transpose(const Op& op, const Type& y) {
        const int n = y.shape.rank();
        Ints perm = op.attrs.getInts("perm").value_or(Ints{});
        if (perm.empty() && n == 2) perm = {1, 0};
        if (int(perm.size()) != n || n < 2) return copy(y);
        bool identity = true;
        for (int d = 0; d < n; ++d) identity = identity && perm[size_t(d)] == d;
        if (identity) return {};
        const bool swapLast = perm[size_t(n - 1)] == n - 2 && perm[size_t(n - 2)] == n - 1;
        if (swapLast) return vector(op, y.shape, 3); // load, transpose, store per tile
        return copy(y, perm[size_t(n - 2)] != n - 2);
    }

    OpCount matmul(const Op& op) {
        const Type& a = m_f.type(op.operands.at(0));
        const Type& b = m_f.type(op.operands.at(1));
        const int rank = a.shape.rank();
        if (rank < 2 || b.shape.rank() < 2) return {};
        const bool ta = op.attrs.getBool("transpose_a"), tb = op.attrs.getBool("transpose_b");
        const double m = double(a.shape[rank - (ta ? 1 : 2)]);
        const double k = double(a.shape[rank - (ta ? 2 : 1)]);
        const double n = double(b.shape[b.shape.rank() - (tb ? 2 : 1)]);
        double batch = 1;
        for (int d = 0; d + 2 < rank; ++d) batch *= double(a.shape[d]);
        std::optional<Ints> sizes = op.attrs.getInts("cube_tile");
        if (!sizes) sizes = m_cube;
        if (!sizes || sizes->size() != 6)
            sizes =
                defaultCubeTile(a.shape[rank - (ta ? 1 : 2)],
                                b.shape[b.shape.rank() - (tb ? 2 : 1)], a.dtype, b.dtype, m_target);
        const Ints& s = *sizes;
        auto l1 = [](double l, double dim) { return std::clamp(l, 1.0, dim); };
        const double m1 = l1(double(s[1]), m), k1 = l1(double(s[3]), k), n1 = l1(double(s[5]), n);
        const double m0 = std::min(l1(double(s[0]), m), m1), k0 = std::min(l1(double(s[2]), k), k1),
                     n0 = std::min(l1(double(s[4]), n), n1);
        const double blocks = batch * ceilDiv(m, m1) * ceilDiv(n, n1);
        const double accs = ceilDiv(m1, m0) * ceilDiv(n1, n0);
        // Per output block and k L1 step: 2 tloads; per accumulator and k L0 step: 2 tmoves and
        // a matmul; per accumulator a tstore.
        const double perK1 = 2 + accs * ceilDiv(k1, k0) * 3;
        return {blocks * (ceilDiv(k, k1) * perK1 + accs),
                fmt::format("{}x{} by {}x{}{} in L0 tiles of m={} k={} n={}", m, k, k, n,
                            batch > 1 ? fmt::format(" (batch {})", batch) : "", m0, k0, n0)};
    }

    const Function& m_f;
    const TargetInfo& m_target;
    std::optional<Ints> m_vec;
    std::optional<Ints> m_cube;
};

std::string opRef(const Function& f, const Op& op) {
    if (op.result == kNoId) return std::string(opName(op.kind));
    return fmt::format("{} %{}", opName(op.kind), NameTable(f)[op.result]);
}

std::string count(double n) {
    if (n < 1e15) return fmt::format("{}", int64_t(n));
    return fmt::format("{:.3g}", n);
}

double clampToInt64(double v) {
    return std::min(v, 9.2e18);
}

} // namespace

std::string formatBytes(double bytes) {
    constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int unit = 0;
    while (bytes >= 1024 && unit < 6) {
        bytes /= 1024;
        ++unit;
    }
    if (unit == 0 || bytes == std::floor(bytes)) return fmt::format("{} {}", bytes, kUnits[unit]);
    return fmt::format("{:.1f} {}", bytes, kUnits[unit]);
}

TileOpEstimate estimateTileOps(const Function& tensor, const TargetInfo& target) {
    TileOpEstimate e;
    Estimator estimator(tensor, target);
    for (const Op& op : tensor.ops()) {
        OpCount c = estimator.count(op);
        e.total += c.count;
        if (c.count > e.largestCount) {
            e.largestCount = c.count;
            e.largest = &op;
            e.largestDetail = std::move(c.detail);
        }
    }
    e.total = clampToInt64(e.total);
    return e;
}

void checkTileOpBudget(const Function& tensor, const TargetInfo& target,
                       const ResourceBudget& budget, const std::string& file) {
    const TileOpEstimate e = estimateTileOps(tensor, target);
    if (!e.largest) return;
    const std::string share = e.largestCount < e.total
                                  ? fmt::format(" ({} of them for this op)", count(e.largestCount))
                                  : "";
    const std::string what = fmt::format("{}: {}", opRef(tensor, *e.largest), e.largestDetail);
    if (e.total > double(budget.maxTileOps))
        throw BudgetError(file, e.largest->loc,
                          fmt::format("{}: the lowering would create about {} tile ops{}, more "
                                      "than the budget of {}; use larger tiles (vec_tile / "
                                      "cube_tile) or raise the limit with --max-tile-ops",
                                      what, count(e.total), share, budget.maxTileOps));
    const double memory = e.total * double(kHostBytesPerTileOp);
    if (memory > double(budget.maxMemoryBytes))
        throw BudgetError(file, e.largest->loc,
                          fmt::format("{}: compiling about {} tile ops{} would take about {} of "
                                      "host memory, more than the budget of {}; raise it with "
                                      "--max-memory",
                                      what, count(e.total), share, formatBytes(memory),
                                      formatBytes(double(budget.maxMemoryBytes))));
}

void checkUnrollBudget(const Function& f, const ResourceBudget& budget, const std::string& file) {
    const UnrolledCount n = countUnrolledOps(f); // before anything is copied
    if (!n.largestLoop) return;
    const bool tile = f.level == Level::Tile;
    const std::string ops = fmt::format("{} {} ops", n.ops, tile ? "tile" : "Tensor");
    const char* each = tile ? "" : " (each becomes at least one tile op)";
    if (n.ops > budget.maxTileOps)
        throw BudgetError(file, n.largestLoop->loc,
                          fmt::format("unrolling the loops would create about {}, more than the "
                                      "budget of {}{}; use fewer iterations or raise the limit "
                                      "with --max-tile-ops",
                                      ops, budget.maxTileOps, each));
    const double memory = double(n.ops) * double(kHostBytesPerTileOp);
    if (memory > double(budget.maxMemoryBytes))
        throw BudgetError(file, n.largestLoop->loc,
                          fmt::format("unrolling the loops would create about {}{}, which would "
                                      "take about {} of host memory, more than the budget of {}; "
                                      "use fewer iterations or raise it with --max-memory",
                                      ops, each, formatBytes(memory),
                                      formatBytes(double(budget.maxMemoryBytes))));
}

void checkTileOpCount(const Function& tile, const ResourceBudget& budget, const std::string& file) {
    const int64_t n = int64_t(tile.ops().size());
    if (n > budget.maxTileOps)
        throw BudgetError(file, tile.loc,
                          fmt::format("@{} has {} tile ops, more than the budget of {}; use "
                                      "larger tiles or raise the limit with --max-tile-ops",
                                      tile.name, n, budget.maxTileOps));
}

void checkInstrBudget(const PtoProgram& program, const ResourceBudget& budget,
                      const std::string& file) {
    // Counted loops count every round: the simulator writes them out (compiler/ir/PtoLoops.h).
    int64_t n = 0, most = -1;
    const Kernel* largest = nullptr;
    // A kernel shared by several tasks (Task::rebases) runs once per task.
    std::vector<int64_t> launches(program.kernels.size(), 0);
    for (const Task& t : program.exec.tasks)
        if (t.block < launches.size()) ++launches[t.block];
    for (const Kernel& k : program.kernels) {
        const int64_t once = executedInstrCount(k);
        int64_t executed = once;
        const size_t index = size_t(&k - program.kernels.data());
        if (launches[index] > 1 && __builtin_mul_overflow(once, launches[index], &executed))
            executed = INT64_MAX;
        if (__builtin_add_overflow(n, executed, &n)) n = INT64_MAX;
        if (once > most) {
            most = once;
            largest = &k;
        }
    }
    if (n > budget.maxInstrs) {
        // Where most of them come from: the largest kernel's longest counted loop (a program
        // loop run many times), else its first instruction.
        const InstrLoop* loop = nullptr;
        for (const InstrLoop& l : largest->loops)
            if (!loop || double(l.end - l.begin) * double(l.count) >
                             double(loop->end - loop->begin) * double(loop->count))
                loop = &l;
        SourceLoc at;
        if (loop && loop->begin < largest->instrs.size())
            at = largest->instrs[loop->begin].loc;
        else if (!largest->instrs.empty())
            at = largest->instrs.front().loc;
        const std::string where =
            loop ? fmt::format(", most in its loop \"{}\" of {} rounds", loop->name, loop->count)
                 : std::string();
        throw BudgetError(file, at,
                          fmt::format("@{} has {} PTO instructions ({} in its largest kernel "
                                      "@{}{}), more than the budget of {}; use larger tiles or "
                                      "raise the limit with --max-instrs",
                                      program.name, n, most, largest->name, where,
                                      budget.maxInstrs));
    }
}

int64_t gmImageBytes(const PtoProgram& program) {
    int64_t end = 0;
    for (const GmTensor& t : program.gm) {
        int64_t tensorEnd = 0;
        if (t.addr < 0 || __builtin_add_overflow(t.addr, t.bytes(), &tensorEnd)) return INT64_MAX;
        end = std::max(end, tensorEnd);
    }
    return end;
}

void checkGmBudget(const PtoProgram& program, const ResourceBudget& budget,
                   const std::string& file) {
    const int64_t image = gmImageBytes(program);
    const GmTensor* highest = nullptr;
    double inputs = 0, outputs = 0;
    int64_t highestEnd = -1;
    for (const GmTensor& t : program.gm) {
        int64_t end = 0;
        if (t.addr < 0 || __builtin_add_overflow(t.addr, t.bytes(), &end)) end = INT64_MAX;
        if (end > highestEnd) {
            highestEnd = end;
            highest = &t;
        }
        if (startsAsInput(t.role)) inputs += double(t.bytes());
        if (endsAsOutput(t.role)) outputs += double(t.bytes());
    }
    if (!highest) return;
    const std::string where =
        fmt::format("GM tensor %{} ({}[{}] at 0x{:x})", highest->name, dtypeName(highest->dtype),
                    highest->shape.str(), highest->addr);
    if (image > budget.maxGmBytes)
        throw BudgetError(file, {},
                          fmt::format("@{}: the GM image would take {} (up to the end of {}), "
                                      "more than the budget of {}; raise it with --max-gm",
                                      program.name, formatBytes(double(image)), where,
                                      formatBytes(double(budget.maxGmBytes))));
    const double memory = inputs + double(image) + outputs;
    if (memory > double(budget.maxMemoryBytes))
        throw BudgetError(file, {},
                          fmt::format("@{}: simulating with numerics would take about {} of host "
                                      "memory (inputs, GM image and outputs), more than the "
                                      "budget of {}; raise it with --max-memory",
                                      program.name, formatBytes(memory),
                                      formatBytes(double(budget.maxMemoryBytes))));
}

void checkInputBudget(int64_t totalBytes, const std::string& largest, const ResourceBudget& budget,
                      const std::string& file) {
    if (totalBytes > budget.maxGmBytes)
        throw BudgetError(file, {},
                          fmt::format("the program's inputs take {} (the largest: {}), more than "
                                      "the GM budget of {}; raise it with --max-gm",
                                      formatBytes(double(totalBytes)), largest,
                                      formatBytes(double(budget.maxGmBytes))));
}

} // namespace pto
