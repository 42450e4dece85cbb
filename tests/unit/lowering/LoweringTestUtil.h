// Test helpers for the lowering: Tile-function builder, sample programs, brute-force checkers.
#pragma once

#include "compiler/ir/Block.h"
#include "compiler/ir/Exec.h"
#include "compiler/ir/Graph.h"
#include "compiler/ir/Pto.h"
#include "compiler/ir/Target.h"
#include "compiler/passes/PartitionBlocks.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace pto::test {

// Appends Tile-level ops to a function; every op gets a distinct source line (= op id + 1).
class TileBuilder {
public:
    explicit TileBuilder(std::string name);

    ValueId arg(const std::string& name, DType dtype, Shape shape);
    // role "output" also makes it a function result.
    ValueId gmTensor(const std::string& name, DType dtype, Shape shape, const std::string& role);
    ValueId tload(ValueId gm, std::vector<int64_t> offset, Shape tile, MemSpace space);
    void tstore(ValueId tile, ValueId gm, std::vector<int64_t> offset);
    ValueId tmove(ValueId src, std::vector<int64_t> offset, Shape tile, MemSpace space);
    ValueId matmul(ValueId a, ValueId b);
    ValueId matmulAcc(ValueId c, ValueId a, ValueId b);
    ValueId unary(OpKind kind, ValueId x);
    ValueId scalar(OpKind kind, ValueId x, double s);
    ValueId binary(OpKind kind, ValueId a, ValueId b, Shape result);
    ValueId reduce(OpKind kind, ValueId x, int axis);
    ValueId op(OpKind kind, std::vector<ValueId> operands, const Type& result, Attrs attrs = {});

    Function take() { return std::move(m_f); }
    Function& function() { return m_f; }

private:
    Function m_f;
};

// Elementwise y = exp(x) + 1 over `tiles` row tiles of rows × cols f32.
Function elementwiseProgram(int tiles, int64_t rows = 16, int64_t cols = 256);
// Row softmax over `tiles` row tiles of rows × cols f32: max, sub, exp, sum, div.
Function softmaxProgram(int tiles, int64_t rows, int64_t cols);
// C[M×N] f32 = A[M×K] f16 · B[K×N] f16 with L1 tiles m×kL1 / kL1×n and L0 tiles m×kL0 / kL0×n.
Function matmulProgram(int64_t m, int64_t n, int64_t k, int64_t tm = 128, int64_t tn = 128,
                       int64_t kL1 = 256, int64_t kL0 = 64);
// matmul into a GM workspace, then relu of the workspace by row tiles on AIV into the output.
Function matmulReluProgram();

// The whole chain: partition, order, allocate, sync, exec graph, emit.
struct Lowered {
    BlockProgram block;
    ExecGraph exec;
    PtoProgram pto;
};
Lowered lowerAll(Function f, const PartitionOptions& opts = {}, bool doubleBuffer = true,
                 const TargetInfo& target = {});

// Pipe of a tile op (test's own rule, independent of the compiler's Placement).
Pipe testPipeOf(const Function& tile, const Op& op);

// Brute-force checks; each returns a list of problems (empty = fine).
std::vector<std::string> checkBuffers(const BlockProgram& p, const TargetInfo& target);
std::vector<std::string> checkSync(const BlockProgram& p);
// Expected exec edges: every (from, to) task pair with an overlapping conflicting access.
std::set<std::pair<uint32_t, uint32_t>> bruteForceDeps(const BlockProgram& p);

} // namespace pto::test
