// The PTO level: per kernel (block function) an ordered list of virtual instructions, each
// bound to a pipe, with resolved operands (memory space, byte address, rows × cols, row
// stride). With the GM tensor table and the task list, a PtoProgram is everything the
// simulator needs; its listing parses back so performance experts can hand-write kernels.
#pragma once

#include "compiler/ir/DType.h"
#include "compiler/ir/Diagnostics.h"
#include "compiler/ir/Exec.h"
#include "compiler/ir/Graph.h"
#include "compiler/ir/Hardware.h"
#include "compiler/ir/Shape.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace pto {

enum class Opcode : uint8_t {
#define PTO_OPCODE(name, mnemonic, pipe, flops) name,
#include "compiler/ir/Opcodes.def"
#undef PTO_OPCODE
};

// How the roofline counts an operation's FLOPs (compiler/ir/Cost.h; Opcodes.def's last column).
enum class FlopRule : uint8_t {
    None,        ///< casts, moves, broadcasts, layout, sync: nothing
    Matmul,      ///< 2·m·n·k
    Reduce,      ///< one per source element
    Elementwise, ///< one per result element
};

std::string_view opcodeName(Opcode op);
Pipe opcodeDefaultPipe(Opcode op);
FlopRule opcodeFlopRule(Opcode op);
std::optional<Opcode> parseOpcode(std::string_view mnemonic);
/// The last opcode of Opcodes.def (for range checks of untrusted values).
inline constexpr Opcode kLastOpcode = Opcode::CrossWaitFlag;
inline constexpr bool isCrossFlag(Opcode op) {
    return op == Opcode::CrossSetFlag || op == Opcode::CrossWaitFlag;
}

// A 2-D strided region of one memory space. For GM, addr is the byte address in the
// device's global memory (see PtoProgram::gm for the tensors laid out there).
struct Operand {
    MemSpace space = MemSpace::UB;
    DType dtype = DType::F32;
    int64_t addr = 0;
    int32_t rows = 1;
    int32_t cols = 1;
    int64_t stride = 1; // elements between the starts of consecutive rows
    int64_t bytes() const { return int64_t(rows) * cols * dtypeSize(dtype); }
    friend bool operator==(const Operand&, const Operand&) = default;
};

struct Instr {
    Opcode opcode = Opcode::TAdd;
    Pipe pipe = Pipe::V;
    uint8_t operandCount = 0;
    std::array<Operand, 4> operands{}; // destination first
    // set_flag / wait_flag: src→dst pipes and event id; barrier: src = the pipe.
    // CROSS_SET_FLAG / CROSS_WAIT_FLAG: event is the cross-core flag id (0..15), peer the core
    // of the cluster signalled (set) or awaited (wait).
    Pipe flagSrc = Pipe::S;
    Pipe flagDst = Pipe::S;
    uint8_t event = 0;
    ClusterRole peer = ClusterRole::Aic;
    double scalar = 0.0; // tile-scalar ops, TEXPANDS
    std::string mode;    // TCVT rounding ("rne", "trunc"…), TCMP predicate ("lt"…)
    bool transposeA = false, transposeB = false;
    OpId tileOp = kNoId; // provenance: the op of the Tile stage it was emitted for
    SourceLoc loc;       // .pto source line of the Tensor op it ultimately came from

    std::span<const Operand> ops() const { return {operands.data(), operandCount}; }
};

// Whether operand `index` of `in` has a row stride the model accepts: rows that do not
// overlap (a single row, or stride ≥ cols), or — for a source of a vector instruction —
// stride 0, every row reading the same elements (a row broadcast). The verifier, the
// simulator's static checks and its functional executor all ask this one question.
bool rowStrideValid(const Instr& in, size_t index);

// The other operand rules, asked by the same three and worded once. Each returns "" or the
// problem as a phrase that follows the operand's name ("operand 1 " + problem).

// The bytes [begin, end) an operand's region covers: from addr to one past its last element,
// ((rows - 1) · stride + cols) · dtype size; nullopt when that overflows 64 bits.
struct ByteRange {
    int64_t begin = 0, end = 0;
};
std::optional<ByteRange> operandBytes(const Operand& o);

// rows, cols >= 1 and a valid row stride (rowStrideValid).
std::string operandShapeProblem(const Instr& in, size_t index);

// A data move: TLOAD, TSTORE, TEXTRACT, TMOV, MGATHER, MSCATTER (the simulator times them from
// its dma.* rates: simulator/arch/OpcodeClass.h).
constexpr bool isDataMove(Opcode op) {
    return op == Opcode::TLoad || op == Opcode::TStore || op == Opcode::TExtract ||
           op == Opcode::TMov || op == Opcode::MGather || op == Opcode::MScatter;
}

// The pipe a data move runs on, from its source (operand 1) and destination (operand 0)
// spaces: MTE2 into a core from GM, MTE3 out of UB/L1 to GM, FIX out of L0C, MTE1 from L1 to
// L0A/L0B, V within UB. nullopt for an instruction that moves no data, or along no path of the
// chip. The one rule of the listing verifier and the simulator's timing.
std::optional<Pipe> movePipe(const Instr& in);
// The core type has the operand's memory space (coreHasSpace).
std::string operandSpaceProblem(const Operand& o, CoreType core);
// The region lies in [0, limit) of its space: a negative address, a 64-bit overflow or an end
// past `limit` (an on-chip buffer's capacity, the GM image's size) is a problem.
std::string operandBoundsProblem(const Operand& o, int64_t limit);

// InOut: an argument the program stores into (a hand-written Tile-level kernel's output buffer):
// it starts as the given data, like an input, and its final contents are an output.
enum class GmRole : uint8_t { Input, Output, Workspace, InOut };
std::string_view gmRoleName(GmRole role);
// Whether a run is given the tensor's data (inputs, in GM-table order) and returns it.
inline bool startsAsInput(GmRole role) {
    return role == GmRole::Input || role == GmRole::InOut;
}
inline bool endsAsOutput(GmRole role) {
    return role == GmRole::Output || role == GmRole::InOut;
}

struct GmTensor {
    std::string name;
    DType dtype = DType::F32;
    Shape shape;
    int64_t addr = 0;
    GmRole role = GmRole::Input;
    ValueId tensorValue = kNoId; // the Tensor-level value it holds, when known
    int64_t bytes() const { return shape.numel() * dtypeSize(dtype); }
};

// A counted loop over the instructions [begin, end) of a kernel (issue 15 item 2; the listing's
// `loop "name" N iter F { … }`): the range runs `count` times in program order; in round k
// (0-based) operand j of instruction begin + i has the address addr + k · steps[i][j], every
// other field as written. A round may cover several iterations of the program's loop
// (`iterStride`, e.g. 2 when double buffering alternates two buffer sets): instruction i belongs
// to iteration firstIter + k · iterStride + iterOffsets[i] (iterOffsets empty = all 0).
// `firstIter` is the loop iteration of round 0 (iterations before it were emitted in full),
// `outerIters` the iterations of enclosing loops (nested loops of the program appear as
// "outer/inner" names), so each executed instruction names its iteration. A SET_FLAG or
// WAIT_FLAG may rotate its event id: (event + k · eventSteps[i]) mod kFlagEventIds in round k
// (eventSteps empty = none rotates; insert-sync hands out a pipe pair's ids round-robin, so a
// pair used once per round of a matmul's output blocks takes the next id each round).
inline constexpr int kFlagEventIds = 8;

struct InstrLoop {
    uint32_t begin = 0, end = 0;
    int64_t count = 1;
    int64_t firstIter = 0;
    int64_t iterStride = 1;
    std::vector<int64_t> iterOffsets;
    std::vector<int64_t> outerIters;
    std::string name;
    std::vector<std::array<int64_t, 4>> steps; // one per instruction of the range
    std::vector<uint8_t> eventSteps;           // empty, or one per instruction of the range
    int eventStep(size_t offset) const {
        return offset < eventSteps.size() ? eventSteps[offset] : 0;
    }
    friend bool operator==(const InstrLoop&, const InstrLoop&) = default;
};

struct Kernel {
    uint32_t id = 0;
    std::string name;
    CoreType core = CoreType::AIV;
    std::vector<Instr> instrs;
    std::vector<InstrLoop> loops; // disjoint, in program order (compiler/ir/PtoLoops.h)
};

struct PtoProgram {
    std::string name;
    std::vector<GmTensor> gm;
    std::vector<Kernel> kernels;
    ExecGraph exec; // tasks reference kernels by Task::block
    int64_t gmBytes() const;
};

} // namespace pto
