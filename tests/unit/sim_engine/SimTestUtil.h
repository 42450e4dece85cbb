// Builders of hand-made PtoPrograms for the simulator tests: operands, instructions, kernels
// and task graphs, without the compiler.
#pragma once

#include "compiler/ir/Pto.h"
#include "simulator/arch/ArchConfig.h"
#include "simulator/engine/SimOptions.h"

#include <initializer_list>
#include <string>
#include <utility>

namespace pto::sim::test {

inline Operand tile(MemSpace space, int64_t addr, int32_t rows, int32_t cols,
                    DType dtype = DType::F16, int64_t stride = 0) {
    Operand o;
    o.space = space;
    o.dtype = dtype;
    o.addr = addr;
    o.rows = rows;
    o.cols = cols;
    o.stride = stride ? stride : cols;
    return o;
}

inline Instr instr(Opcode op, Pipe pipe, std::initializer_list<Operand> operands) {
    Instr in;
    in.opcode = op;
    in.pipe = pipe;
    for (const Operand& o : operands) in.operands[in.operandCount++] = o;
    return in;
}

inline Instr setFlag(Pipe src, Pipe dst, int event = 0) {
    Instr in;
    in.opcode = Opcode::SetFlag;
    in.pipe = src;
    in.flagSrc = src;
    in.flagDst = dst;
    in.event = static_cast<uint8_t>(event);
    return in;
}

inline Instr waitFlag(Pipe src, Pipe dst, int event = 0) {
    Instr in = setFlag(src, dst, event);
    in.opcode = Opcode::WaitFlag;
    in.pipe = dst;
    return in;
}

inline Instr barrier(Pipe on, Pipe awaited) {
    Instr in;
    in.opcode = Opcode::Barrier;
    in.pipe = on;
    in.flagSrc = awaited;
    return in;
}

inline Instr addScalar(Operand dst, Operand src, double scalar) {
    Instr in = instr(Opcode::TAddS, Pipe::V, {dst, src});
    in.scalar = scalar;
    return in;
}

/// A program under construction: GM tensors are laid out one after another (512 B aligned).
class ProgramBuilder {
public:
    explicit ProgramBuilder(std::string name = "test") { m_program.name = std::move(name); }

    /// Adds a GM tensor; returns its byte address.
    int64_t tensor(const std::string& name, DType dtype, Shape shape, GmRole role) {
        GmTensor t;
        t.name = name;
        t.dtype = dtype;
        t.shape = shape;
        t.role = role;
        t.addr = m_next;
        m_next += (t.bytes() + 511) / 512 * 512;
        m_program.gm.push_back(t);
        return t.addr;
    }

    /// Adds a kernel; returns its index.
    uint32_t kernel(CoreType core, std::vector<Instr> instrs, const std::string& name = "") {
        Kernel k;
        k.id = static_cast<uint32_t>(m_program.kernels.size());
        k.name = name.empty() ? "k" + std::to_string(k.id) : name;
        k.core = core;
        k.instrs = std::move(instrs);
        m_program.kernels.push_back(std::move(k));
        return m_program.kernels.back().id;
    }

    /// Adds a task running `kernel`; returns its id.
    uint32_t task(uint32_t kernel, uint32_t id = UINT32_MAX) {
        Task t;
        t.id = id == UINT32_MAX ? static_cast<uint32_t>(m_program.exec.tasks.size()) : id;
        t.block = kernel;
        t.core = m_program.kernels.at(kernel).core;
        t.name = "task" + std::to_string(t.id);
        m_program.exec.tasks.push_back(t);
        return t.id;
    }

    void dep(uint32_t from, uint32_t to) { m_program.exec.deps.push_back({from, to}); }

    PtoProgram& program() { return m_program; }

private:
    PtoProgram m_program;
    int64_t m_next = 0;
};

inline constexpr int64_t kKiB = 1024;
inline constexpr int64_t kMiB = 1024 * kKiB;

/// Options of a timing-only run with no trace.
inline SimOptions timingOnly() {
    SimOptions o;
    o.timingOnly = true;
    o.traceLevel = TraceLevel::None;
    return o;
}

/// The default arch with some lines of config text applied.
inline ArchConfig archWith(const std::string& text) {
    return parseArch(text, "test.arch");
}

} // namespace pto::sim::test
