// insert-copies: for every operand in a space its reader cannot read, a copy in the right
// space, made once per (value, space) just before the first reader that needs it.
#include "compiler/passes/InsertCopies.h"

#include "compiler/ir/Printer.h"
#include "compiler/passes/expand/Rewrite.h"

#include <fmt/format.h>

#include <unordered_map>

namespace pto {
namespace {

using SpaceSet = uint8_t;
constexpr SpaceSet bit(MemSpace s) {
    return SpaceSet(1u << unsigned(s));
}

// The spaces operand `index` of `op` may be read from.
SpaceSet readable(const Op& op, size_t index) {
    switch (op.kind) {
    case OpKind::TLoad:
        return bit(MemSpace::GM);
    case OpKind::TStore:
        return index == 0 ? SpaceSet(bit(MemSpace::UB) | bit(MemSpace::L0C)) : bit(MemSpace::GM);
    case OpKind::TMove:
        return bit(MemSpace::L1);
    case OpKind::Gather:
        return index == 0 ? bit(MemSpace::GM) : bit(MemSpace::UB);
    case OpKind::TScatterAdd:
        return index == 1 ? bit(MemSpace::GM) : bit(MemSpace::UB);
    case OpKind::Matmul:
        return index == 0 ? bit(MemSpace::L0A) : bit(MemSpace::L0B);
    case OpKind::MatmulAcc:
        return index == 0   ? bit(MemSpace::L0C)
               : index == 1 ? bit(MemSpace::L0A)
                            : bit(MemSpace::L0B);
    default:
        return bit(MemSpace::UB);
    }
}

// The space a copy should land in: the only readable one (UB for tstore's source).
MemSpace target(SpaceSet s) {
    for (MemSpace m :
         {MemSpace::UB, MemSpace::GM, MemSpace::L1, MemSpace::L0A, MemSpace::L0B, MemSpace::L0C})
        if (s & bit(m)) return m;
    return MemSpace::None;
}

using expand::makeOp;
using expand::offsetAttr;
using expand::Provenance;
using expand::zeros;

class CopyInserter {
public:
    CopyInserter(Function& f, const std::string& file) : m_f(f), m_file(file) {}

    // Whether any operand sits in a space its reader cannot read (or is unplaced).
    bool needsWork() const {
        for (const Op& op : m_f.ops())
            for (size_t i = 0; i < op.operands.size(); ++i) {
                const MemSpace s = m_f.type(op.operands[i]).space;
                if (s == MemSpace::None || !(readable(op, i) & bit(s))) return true;
            }
        return false;
    }

    void run() {
        m_out.reserve(m_f.ops().size() + 16);
        for (size_t k = 0; k < m_f.ops().size(); ++k) {
            Op op = m_f.ops()[k];
            for (size_t i = 0; i < op.operands.size(); ++i) {
                const SpaceSet ok = readable(op, i);
                const ValueId v = op.operands[i];
                checkPlaced(op, v);
                if (!(ok & bit(m_f.type(v).space))) op.operands[i] = copyOf(v, target(ok), op);
            }
            m_out.push_back(std::move(op));
        }
        for (size_t k = 0; k < m_out.size(); ++k) {
            m_out[k].id = OpId(k);
            if (m_out[k].result != kNoId) m_f.value(m_out[k].result).def = OpId(k);
        }
        m_f.ops() = std::move(m_out);
        m_f.renumber();
    }

private:
    // The copy of v in `want`, made before `reader` unless an earlier reader made it.
    ValueId copyOf(ValueId v, MemSpace want, const Op& reader) {
        const uint64_t key = (uint64_t(v) << 8) | uint64_t(want);
        if (auto it = m_copies.find(key); it != m_copies.end()) return it->second;
        const ValueId copy = makeCopy(v, want, reader);
        m_copies.emplace(key, copy);
        return copy;
    }

    ValueId makeCopy(ValueId v, MemSpace want, const Op& reader) {
        const MemSpace have = m_f.type(v).space;
        const Op* producer = m_f.producer(v);
        if (want == MemSpace::GM)
            fail(reader, v,
                 fmt::format("is in {}, but {} needs a GM tensor here", memSpaceName(have),
                             opName(reader.kind)));
        if (want == MemSpace::L0C)
            fail(reader, v,
                 fmt::format("is in {}, but {} accumulates into an L0C tile, which "
                             "only a matmul produces",
                             memSpaceName(have), opName(reader.kind)));
        if (want == MemSpace::L0A || want == MemSpace::L0B) {
            // Another L0 buffer: move the same L1 region again.
            if (producer && producer->kind == OpKind::TMove)
                return tile(OpKind::TMove, {l1Source(producer->operands[0], reader)},
                            producer->attrs, v, want, of(reader));
            const ValueId l1 = have == MemSpace::L1 ? v : copyOf(v, MemSpace::L1, reader);
            return tile(OpKind::TMove, {l1}, offsetAttr(zeros(2)), v, want, of(reader));
        }
        // want is UB or L1.
        if (have == MemSpace::GM)
            return tile(OpKind::TLoad, {v}, offsetAttr(zeros(m_f.type(v).shape.rank())), v, want,
                        of(reader), true);
        if (producer && producer->kind == OpKind::TLoad)
            return tile(OpKind::TLoad, producer->operands, producer->attrs, v, want, of(reader));
        if (have == MemSpace::UB || have == MemSpace::L0C) return viaWorkspace(v, want, reader);
        fail(reader, v,
             fmt::format("is in {}, but {} reads {} and there is no data path from {} "
                         "to {}",
                         memSpaceName(have), opName(reader.kind), memSpaceName(want),
                         memSpaceName(have), memSpaceName(want)));
    }

    ValueId l1Source(ValueId src, const Op& reader) {
        return m_f.type(src).space == MemSpace::L1 ? src : copyOf(src, MemSpace::L1, reader);
    }

    // UB or L0C → GM workspace → UB or L1: the only way between the cube and vector cores.
    ValueId viaWorkspace(ValueId v, MemSpace want, const Op& reader) {
        const Op* producer = m_f.producer(v);
        const Provenance from = producer ? of(*producer) : of(reader);
        Type ws = m_f.type(v);
        ws.space = MemSpace::GM;
        Op decl = makeOp(OpKind::GmTensor, {}, {}, from);
        decl.attrs.set("role", std::string("workspace"));
        decl.result = newValue(ws, kNoId, Shape{});
        m_out.push_back(std::move(decl));
        const ValueId gm = m_out.back().result;
        m_out.push_back(makeOp(OpKind::TStore, {v, gm}, offsetAttr(zeros(2)), from));
        return tile(OpKind::TLoad, {gm}, offsetAttr(zeros(2)), v, want, of(reader));
    }

    // A tile op whose result is a tile of v's shape and dtype in `space`, covering what v
    // covers. `wholeGm`: v is a GM tensor and the tile is all of it (rows × cols).
    ValueId tile(OpKind kind, std::vector<ValueId> operands, Attrs attrs, ValueId v, MemSpace space,
                 Provenance from, bool wholeGm = false) {
        Type t = m_f.type(v);
        t.space = space;
        if (wholeGm) t.shape = Shape{t.shape.rows(), t.shape.cols()};
        const Value& like = m_f.value(v);
        const ValueId origin = like.origin;
        const Shape offset = like.offset;
        Op op = makeOp(kind, std::move(operands), std::move(attrs), from);
        op.result = newValue(t, origin, offset);
        m_out.push_back(std::move(op));
        return m_out.back().result;
    }

    ValueId newValue(const Type& t, ValueId origin, const Shape& offset) {
        Value v;
        v.type = t;
        v.origin = origin;
        v.offset = offset;
        return m_f.addValue(std::move(v));
    }

    static Provenance of(const Op& op) { return {op.parent, op.loc}; }

    void checkPlaced(const Op& reader, ValueId v) const {
        if (m_f.type(v).space == MemSpace::None)
            fail(reader, v, "has no memory space; run assign-memory first");
    }

    [[noreturn]] void fail(const Op& reader, ValueId v, const std::string& message) const {
        NameTable names(m_f);
        std::string who(opName(reader.kind));
        if (reader.result != kNoId && reader.result < m_f.valueCount())
            who += fmt::format(" %{}", names[reader.result]);
        throw CompileError(m_file, reader.loc,
                           fmt::format("{}: operand %{} {}", who, names[v], message));
    }

    Function& m_f;
    const std::string& m_file;
    std::vector<Op> m_out;
    std::unordered_map<uint64_t, ValueId> m_copies;
};

} // namespace

void insertCopies(Function& tile, const TargetInfo& target, const std::string& file) {
    (void)target; // copies never grow a tile; assign-memory already checked the capacities
    CopyInserter inserter(tile, file);
    if (inserter.needsWork()) inserter.run();
}

} // namespace pto
