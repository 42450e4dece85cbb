// The checks of one instruction before it executes: operand count, spaces, dtypes and shapes
// (BadInstruction), bounds (OutOfBounds), uninitialised on-chip reads (optional), and the
// resolution of its operands to tile views; after it executes, the marking of written bytes.
#pragma once

#include "compiler/ir/Pto.h"
#include "simulator/numerics/Memory.h"
#include "simulator/numerics/SimFault.h"
#include "simulator/numerics/TileView.h"

#include <array>
#include <initializer_list>
#include <string>

namespace pto::numerics {

/// What a fault message needs beyond the instruction itself; the FaultSite is built from it
/// only when a fault is thrown (finding the instruction's index costs a search).
struct SiteInfo {
    const PtoProgram* program = nullptr; ///< where to look up the instruction's kernel/index
    const std::string* file = nullptr;   ///< the .pto file name, if known
    CoreType coreType = CoreType::None;
    int core = -1;
    /// The program's instruction the executed one was made from (a task's rebased copy);
    /// null = the executed one itself.
    const Instr* located = nullptr;
};

/// The fault site of `instr`: core, pipe, opcode, provenance, and its kernel and index when it
/// is an element of one of the program's kernels.
FaultSite instrSite(const SiteInfo& info, const Instr& instr);

class InstrContext {
public:
    InstrContext(const Instr& instr, const SiteInfo& site, GlobalMemory& gm, CoreMemory& core,
                 bool checkInit);

    const Instr& instr() const { return m_instr; }
    const Operand& operand(int i) const { return m_instr.operands[size_t(i)]; }
    int count() const { return m_instr.operandCount; }

    /// `indexElement`: a gather's or scatter's faulting element of its index tile (FaultSite).
    [[noreturn]] void fail(FaultKind kind, const std::string& detail,
                           int64_t indexElement = -1) const;
    [[noreturn]] void bad(const std::string& detail) const {
        fail(FaultKind::BadInstruction, detail);
    }

    // Structural checks; each throws a BadInstruction fault naming the operand.
    void expectCount(int lo, int hi) const;
    void expectSpace(int i, std::initializer_list<MemSpace> spaces) const;
    void expectDType(int i, std::initializer_list<DType> dtypes) const;
    void expectSameDType(int i, int j) const;
    void expectShape(int i, int64_t rows, int64_t cols) const;
    /// Operand i broadcasts to rows × cols (its rows are 1 or rows, its cols 1 or cols).
    void expectBroadcastable(int i, int64_t rows, int64_t cols) const;
    void expectPipe(Pipe pipe) const;
    /// "operand 1 = UB f16 [16x32] @256 stride 32".
    std::string describe(int i) const;

    /// Operand i checked for bounds (and, if enabled, initialisation) as a source.
    TileView read(int i);
    /// Operand i checked for bounds as a destination; its bytes are marked written by commit().
    TileView write(int i);
    /// Marks the destinations as initialised (call after the kernel ran).
    void commit();

    // Element traffic of the operands resolved so far.
    int64_t bytesRead() const { return m_bytesRead; }
    int64_t bytesWritten() const { return m_bytesWritten; }
    int64_t elementsWritten() const { return m_elementsWritten; }

private:
    TileView resolve(int i, bool isWrite) const;
    void checkInitialised(int i, const TileView& view) const;

    const Instr& m_instr;
    const SiteInfo& m_site;
    GlobalMemory& m_gm;
    CoreMemory& m_core;
    bool m_checkInit;
    std::array<int, 4> m_written{};
    int m_writtenCount = 0;
    int64_t m_bytesRead = 0;
    int64_t m_bytesWritten = 0;
    int64_t m_elementsWritten = 0;
};

} // namespace pto::numerics
