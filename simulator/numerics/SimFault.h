// The one error type of the simulator: a fault of a simulated program (out-of-bounds access,
// uninitialised read, deadlock, bad instruction, overlapping buffers) with where it happened.
#pragma once

// A SimFault is a problem of the *simulated program*, not of the simulator: the compiler (or a
// hand-written PTO listing) produced something the hardware would not run correctly. It carries
// everything a user needs to find the cause: the core and pipe, the instruction (its index in
// its kernel and its opcode), the simulated cycle, and the provenance of the instruction (the
// Tile op it was emitted for and the .pto source line).
//
// Whoever detects a fault fills what it knows; a caller that knows more (the timing engine knows
// the cycle) adds it with the setters and rethrows. what() is rebuilt after every setter, e.g.
//
//   out-of-bounds TLOAD on AIV 3 pipe MTE2 (kernel 0 instr 12, cycle 5120, from tile op #41,
//   samples/softmax.pto:7:3): UB write [196608, 229376) exceeds UB size 188416
//
// Unknown parts (core -1, cycle -1, no opcode...) are left out of the message.

#include "compiler/ir/Diagnostics.h"
#include "compiler/ir/Graph.h"
#include "compiler/ir/Hardware.h"
#include "compiler/ir/Pto.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pto {

enum class FaultKind : uint8_t {
    OutOfBounds,       ///< an operand region leaves its memory space or its GM tensor
    UninitializedRead, ///< an instruction reads on-chip bytes no instruction wrote (optional)
    Deadlock,          ///< a wait that can never be satisfied (the detail names the cycle)
    BadInstruction,    ///< operand count, spaces, dtypes or shapes that make no sense
    Overlap,           ///< two live buffers share bytes
};

/// "out-of-bounds", "uninitialized read", "deadlock", "bad instruction", "overlap".
std::string_view faultKindName(FaultKind kind);

/// Where a fault happened. Every field is optional (the defaults mean "unknown").
struct FaultSite {
    CoreType coreType = CoreType::None;
    int core = -1;                ///< core index within its type (AIV 3), -1 = unknown
    std::optional<Pipe> pipe;     ///< the pipe that executed the instruction
    int64_t cycle = -1;           ///< simulated cycle, set by the timing engine
    int64_t kernel = -1;          ///< PtoProgram::kernels index of the instruction
    int64_t instrIndex = -1;      ///< index of the instruction in its kernel's list
    std::optional<Opcode> opcode; ///< the faulting instruction's opcode
    OpId tileOp = kNoId;          ///< provenance: the Tile-stage op it was emitted for
    /// A gather or scatter: the element of its index tile that faulted (the driver names it in
    /// the program's index tensor), -1 otherwise.
    int64_t indexElement = -1;
    SourceLoc loc;    ///< provenance: the .pto line and column
    std::string file; ///< the .pto file name, when known
};

class SimFault : public std::runtime_error {
public:
    SimFault(FaultKind kind, FaultSite site, std::string detail);

    FaultKind kind() const { return m_kind; }
    const FaultSite& site() const { return m_site; }
    /// The message without the site prefix ("UB write [..) exceeds UB size ...").
    const std::string& detail() const { return m_detail; }

    // Setters for callers that know more than the detector; each rebuilds what().
    void setCycle(int64_t cycle);
    void setCore(CoreType type, int core);
    void setPipe(Pipe pipe);
    void setInstr(int64_t kernel, int64_t instrIndex);
    void setFile(std::string file);

    const char* what() const noexcept override { return m_message.c_str(); }

    /// The full message for a kind, site and detail (what() of such a fault).
    static std::string format(FaultKind kind, const FaultSite& site, const std::string& detail);

private:
    FaultKind m_kind;
    FaultSite m_site;
    std::string m_detail;
    std::string m_message;
};

} // namespace pto
