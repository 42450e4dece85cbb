// Helpers of the functional-simulator tests: tiny hand-built PTO programs, running them on the
// FunctionalExecutor, the NumPy reference script, and bit-exact / ULP comparisons.
#pragma once

#include "compiler/ir/Pto.h"
#include "compiler/ir/Target.h"
#include "compiler/ir/TensorData.h"
#include "simulator/numerics/Executor.h"
#include "tests/support/Process.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

namespace pto::simtest {

#define REQUIRE_NUMPY()                                                                            \
    PTO_SKIP_UNLESS(::pto::test::haveNumpy(),                                                      \
                    "needs /usr/bin/python3 with numpy as the independent reference")

#define REQUIRE_TORCH()                                                                            \
    PTO_SKIP_UNLESS(::pto::test::haveTorch(),                                                      \
                    "needs /usr/bin/python3 with numpy and torch (bf16 reference)")

/// A one-kernel PtoProgram under construction: GM tensors at 512-byte aligned addresses, on-chip
/// tiles bump-allocated at 32-byte alignment, instructions appended in program order.
class ProgramBuilder {
public:
    explicit ProgramBuilder(CoreType core);

    /// Adds a GM tensor; returns its index.
    size_t addGm(const std::string& name, DType dtype, Shape shape, GmRole role);
    /// The [rows × cols] box at (row0, col0) of GM tensor `tensor` viewed as rows × cols of its
    /// shape (leading dims folded).
    Operand gmBox(size_t tensor, int64_t row0, int64_t col0, int32_t rows, int32_t cols) const;
    /// The whole GM tensor as one box.
    Operand gmAll(size_t tensor) const;
    /// A fresh on-chip tile (stride 0 means dense: stride = cols).
    Operand alloc(MemSpace space, DType dtype, int32_t rows, int32_t cols, int64_t stride = 0);
    Instr& emit(Opcode op, Pipe pipe, std::initializer_list<Operand> operands);

    PtoProgram& program() { return m_program; }
    Kernel& kernel() { return m_program.kernels.front(); }

private:
    PtoProgram m_program;
    int64_t m_gmEnd = 0;
    int64_t m_next[kMemSpaceCount] = {};
};

/// Runs every instruction of kernel 0 in order on core 0 of its type; returns the GM image.
GlobalMemory runProgram(const PtoProgram& program, std::span<const TensorData> inputs,
                        ExecOptions options = {});

/// One vector-instruction case: inputs are TLOADed to UB, the op runs, the result is TSTOREd.
struct VecCase {
    Opcode op = Opcode::TAdd;
    std::vector<TensorData> inputs; // 2-D: [rows × cols] each
    DType outDType = DType::F32;
    int32_t rows = 1;
    int32_t cols = 1;
    double scalar = 0.0;
    std::string mode;
    /// Pass each [1 x c] input to the instruction as [rows x c] with row stride 0 (the
    /// codegen's broadcast form) instead of as [1 x c].
    bool strideZeroBroadcast = false;
};
TensorData runVectorCase(const VecCase& c);

/// One computation for the NumPy reference (sim_numerics_reference.py): `op` is an opcode
/// mnemonic or MATMUL / COPY / BOXCOPY; `extra` adds spec fields (scalar, mode, transpose_a...).
struct RefRequest {
    std::string op;
    std::vector<TensorData> inputs;
    DType outDType = DType::F32;
    Shape outShape;
    nlohmann::json extra = nlohmann::json::object();
};
/// The reference results of several requests, computed by one Python process.
std::vector<TensorData> references(const std::vector<RefRequest>& requests);
TensorData reference(const std::string& op, const std::vector<TensorData>& inputs, DType outDType,
                     Shape outShape, const nlohmann::json& extra = nlohmann::json::object());
RefRequest request(const VecCase& c);
TensorData reference(const VecCase& c);

/// Bytes equal element by element (any NaN equals any NaN); gtest failure naming the first
/// differences otherwise.
::testing::AssertionResult bitExact(const TensorData& got, const TensorData& want);
/// Every element within `ulps` units in the last place of the dtype (NaN equals NaN).
::testing::AssertionResult withinUlps(const TensorData& got, const TensorData& want, int64_t ulps);

} // namespace pto::simtest
