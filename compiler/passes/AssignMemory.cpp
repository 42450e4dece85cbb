// assign-memory: one forward sweep deciding each tile's space from its producer and its first
// reader, then a capacity check of every tile against its buffer.
#include "compiler/passes/AssignMemory.h"

#include "compiler/ir/Printer.h"

#include <fmt/format.h>

#include <optional>

namespace pto {
namespace {

struct Use {
    OpId op = kNoId;
    uint32_t index = 0;
};

// The first reader of every value, in program order.
std::vector<Use> firstUses(const Function& f) {
    std::vector<Use> first(f.valueCount());
    for (const Op& op : f.ops())
        for (uint32_t i = 0; i < op.operands.size(); ++i) {
            Use& u = first[op.operands[i]];
            if (u.op == kNoId) u = {op.id, i};
        }
    return first;
}

// The space a matmul operand slot reads: a → L0A, b → L0B, the accumulator → L0C.
std::optional<MemSpace> matmulSlot(const Op& user, uint32_t index) {
    if (user.kind == OpKind::Matmul) return index == 0 ? MemSpace::L0A : MemSpace::L0B;
    if (user.kind == OpKind::MatmulAcc)
        return index == 0 ? MemSpace::L0C : index == 1 ? MemSpace::L0A : MemSpace::L0B;
    return std::nullopt;
}

bool isCubeReader(OpKind k) {
    return k == OpKind::TMove || k == OpKind::Matmul || k == OpKind::MatmulAcc;
}

// Where the result of `op` goes when nothing is pinned.
MemSpace chooseSpace(const Function& f, const Op& op, const Use& first) {
    const Op* reader = first.op == kNoId ? nullptr : &f.op(first.op);
    switch (op.kind) {
    case OpKind::GmTensor:
        return MemSpace::GM;
    case OpKind::TLoad:
        return reader && isCubeReader(reader->kind) ? MemSpace::L1 : MemSpace::UB;
    case OpKind::TMove: {
        std::optional<MemSpace> slot = reader ? matmulSlot(*reader, first.index) : std::nullopt;
        return slot == MemSpace::L0B ? MemSpace::L0B : MemSpace::L0A;
    }
    case OpKind::Matmul:
    case OpKind::MatmulAcc:
        return MemSpace::L0C;
    default:
        return MemSpace::UB;
    }
}

// Whether the producer may write more than one space (and so a pinned space is honoured).
bool hasChoice(OpKind kind) {
    return kind == OpKind::TLoad || kind == OpKind::TMove;
}

// The spaces a tload (UB on the vector core, L1 on the cube core) or tmove can write.
bool canWrite(OpKind kind, MemSpace s) {
    if (kind == OpKind::TLoad) return s == MemSpace::UB || s == MemSpace::L1;
    return s == MemSpace::L0A || s == MemSpace::L0B;
}

std::string_view writableSpaces(OpKind kind) {
    return kind == OpKind::TLoad ? "UB (vector core) or L1 (cube core)" : "L0A or L0B";
}

std::string kib(int64_t bytes) {
    if (bytes % 1024 == 0) return fmt::format("{} KiB", bytes / 1024);
    return bytes < 1024 ? fmt::format("{} B", bytes)
                        : fmt::format("{:.1f} KiB", double(bytes) / 1024.0);
}

class Assigner {
public:
    Assigner(Function& f, const TargetInfo& target, const std::string& file)
        : m_f(f), m_target(target), m_file(file) {}

    void run() {
        for (ValueId a : m_f.args) m_f.value(a).type.space = MemSpace::GM;
        const std::vector<Use> first = firstUses(m_f);
        for (const Op& op : m_f.ops()) {
            if (op.result == kNoId) continue;
            Type& t = m_f.value(op.result).type;
            // Ops with one possible space get it (the parser gives a vector op the space of
            // its first operand, which may be L1 or L0C); tload and tmove keep a legal pin.
            if (t.space == MemSpace::None || !hasChoice(op.kind))
                t.space = chooseSpace(m_f, op, first[op.result]);
            else if (!canWrite(op.kind, t.space))
                fail(op,
                     fmt::format("cannot place its result in {}: {} writes {}",
                                 memSpaceName(t.space), opName(op.kind), writableSpaces(op.kind)));
            if (t.isTile()) checkCapacity(op, t);
        }
    }

private:
    void checkCapacity(const Op& op, const Type& t) const {
        const int64_t bytes =
            m_target.tileFootprint(t.space, t.shape.rows(), t.shape.cols(), dtypeSize(t.dtype));
        const int64_t capacity = m_target.capacity(t.space);
        if (bytes <= capacity) return;
        fail(op, fmt::format("tile {}x{} of {} in {} needs {} but {} holds {}", t.shape.rows(),
                             t.shape.cols(), dtypeName(t.dtype), memSpaceName(t.space), kib(bytes),
                             memSpaceName(t.space), kib(capacity)));
    }

    [[noreturn]] void fail(const Op& op, const std::string& message) const {
        std::string who(opName(op.kind));
        if (op.result != kNoId) who += fmt::format(" %{}", NameTable(m_f)[op.result]);
        throw CompileError(m_file, op.loc, fmt::format("{}: {}", who, message));
    }

    Function& m_f;
    const TargetInfo& m_target;
    const std::string& m_file;
};

} // namespace

void assignMemory(Function& tile, const TargetInfo& target, const std::string& file) {
    Assigner(tile, target, file).run();
}

} // namespace pto
