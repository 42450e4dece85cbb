// Roles of a program's arguments from their uses, and seeded inputs drawn per role.
#include "driver/InputRoles.h"

#include "compiler/ResourceBudget.h"
#include "compiler/passes/UnrollLoops.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>

namespace pto {
namespace {

// Ops that pass values through unchanged (up to the dtype and the layout).
bool preservesValues(OpKind k) {
    switch (k) {
    case OpKind::Cast:
    case OpKind::Reshape:
    case OpKind::Broadcast:
    case OpKind::View:
    case OpKind::Transpose:
    case OpKind::Concat:
        return true;
    default:
        return false;
    }
}

bool isVectorElementwise(OpKind k) {
    switch (opInfo(k).cls) {
    case OpClass::Binary:
    case OpClass::Scalar:
    case OpClass::Unary:
    case OpClass::Select:
        return true;
    default:
        return preservesValues(k);
    }
}

struct Use {
    const Op* op;
    size_t index;
};

class RoleFinder {
public:
    explicit RoleFinder(const Function& f) : m_f(f), m_uses(f.valueCount()) {
        for (const Op& op : f.ops())
            for (size_t i = 0; i < op.operands.size(); ++i)
                m_uses[op.operands[i]].push_back({&op, i});
    }

    InputRoleInfo roleOf(ValueId arg) const {
        InputRoleInfo info;
        if (m_f.type(arg).dtype == DType::I32) return indexRole(arg);
        if (!isFloatType(m_f.type(arg).dtype)) return info;
        for (ValueId v : forwardThroughCopies(arg))
            for (const Use& u : m_uses[v]) info = stronger(info, roleOfUse(u));
        if (info.role == InputRole::Data) info = roleFromName(m_f.value(arg).name);
        return info;
    }

private:
    // An i32 argument a gather or scatter_add indexes with (seen through value-preserving ops;
    // at Tile level the index tile of a gather or tscatter_add loaded from it): Index with the
    // extent of the indexed axis (the smallest, when it indexes several); else Data.
    InputRoleInfo indexRole(ValueId arg) const {
        InputRoleInfo info;
        for (ValueId v : forwardThroughCopies(arg, /*loads=*/true))
            for (const Use& u : m_uses[v]) {
                const std::optional<int64_t> n = indexedExtent(u);
                if (n && (info.role != InputRole::Index || *n < info.depth))
                    info = {InputRole::Index, *n};
            }
        return info;
    }

    // When `u` is the index operand of a gather or scatter: the extent it indexes.
    std::optional<int64_t> indexedExtent(const Use& u) const {
        const Op& op = *u.op;
        if (m_f.level == Level::Tile) {
            // gather %gm, %idx: rows of the matrix its leading offsets pick; tscatter_add %t,
            // %gm, %idx: rows of the tensor's rows × cols view (docs/PTO_LANGUAGE.md, Tile ops).
            if (op.kind == OpKind::Gather && u.index == 1) {
                const Shape& gm = m_f.type(op.operands[0]).shape;
                return gm.rank() >= 2 ? gm[gm.rank() - 2] : gm.rows();
            }
            if (op.kind == OpKind::TScatterAdd && u.index == 2)
                return m_f.type(op.operands[1]).shape.rows();
            return std::nullopt;
        }
        if ((op.kind != OpKind::Gather && op.kind != OpKind::ScatterAdd) || u.index != 1)
            return std::nullopt;
        const Shape& src = m_f.type(op.operands[0]).shape;
        int64_t axis = op.attrs.getInt("axis", 0);
        if (axis < 0) axis += src.rank();
        if (axis < 0 || axis >= src.rank()) return std::nullopt;
        return src[int(axis)];
    }

    // Mask before DequantScale before QuantScale before Positive before Data.
    static InputRoleInfo stronger(InputRoleInfo a, InputRoleInfo b) {
        if (a.role == InputRole::Data) return b;
        if (b.role == InputRole::Data) return a;
        return int(b.role) < int(a.role) ? b : a;
    }

    static InputRoleInfo roleFromName(std::string name) {
        std::transform(name.begin(), name.end(), name.begin(),
                       [](unsigned char c) { return char(std::tolower(c)); });
        if (name.find("mask") != std::string::npos) return {InputRole::Mask, 1};
        if (name.find("scale") != std::string::npos) return {InputRole::DequantScale, 1};
        return {};
    }

    InputRoleInfo roleOfUse(const Use& u) const {
        const Op& op = *u.op;
        switch (op.kind) {
        case OpKind::Add:
            // Of two arguments added into a softmax, the second is the mask (scores + mask).
            if (reachesRowMax(op.result) &&
                (u.index == 1 || op.operands.size() != 2 || !fromArgument(op.operands[1])))
                return {InputRole::Mask, 1};
            break;
        case OpKind::Mul:
            if (op.operands.size() == 2) {
                if (auto k = integerDepth(op.operands[1 - u.index]))
                    return {InputRole::DequantScale, *k};
            }
            break;
        case OpKind::Dequantize:
            if (u.index == 1)
                return {InputRole::DequantScale, integerDepth(op.operands[0]).value_or(1)};
            break;
        case OpKind::Quantize:
            if (u.index == 1) return {InputRole::QuantScale, 1};
            break;
        case OpKind::Div:
            if (u.index == 1)
                return {castsToI8(op.result) ? InputRole::QuantScale : InputRole::Positive, 1};
            break;
        case OpKind::Log:
        case OpKind::Sqrt:
        case OpKind::Rsqrt:
        case OpKind::Reciprocal:
            return {InputRole::Positive, 1};
        default:
            break;
        }
        return {};
    }

    // Whether v is an argument seen through value-preserving ops.
    bool fromArgument(ValueId v) const {
        for (int hops = 0; hops < 16; ++hops) {
            const Op* p = m_f.producer(v);
            if (!p) return true;
            if (!preservesValues(p->kind) || p->operands.empty()) return false;
            v = p->operands[0];
        }
        return false;
    }

    // v and every value made from it by value-preserving ops; with `loads`, also the tiles a
    // Tile-level tload makes of it (only the index role looks at Tile-level uses).
    std::vector<ValueId> forwardThroughCopies(ValueId v, bool loads = false) const {
        std::vector<ValueId> out{v};
        for (size_t i = 0; i < out.size(); ++i)
            for (const Use& u : m_uses[out[i]])
                if ((preservesValues(u.op->kind) || (loads && u.op->kind == OpKind::TLoad)) &&
                    u.op->result != kNoId)
                    out.push_back(u.op->result);
        return out;
    }

    // Whether v flows through elementwise ops (a few deep) into a reduce_max: a score that
    // a softmax normalises.
    bool reachesRowMax(ValueId v, int depth = 0) const {
        if (depth > 6) return false;
        for (const Use& u : m_uses[v]) {
            if (u.op->kind == OpKind::ReduceMax || u.op->kind == OpKind::Softmax) return true;
            if (isVectorElementwise(u.op->kind) && u.op->result != kNoId &&
                reachesRowMax(u.op->result, depth + 1))
                return true;
        }
        return false;
    }

    bool castsToI8(ValueId v, int depth = 0) const {
        if (depth > 4) return false;
        for (const Use& u : m_uses[v]) {
            if (u.op->result == kNoId) continue;
            if (u.op->kind == OpKind::Cast && m_f.type(u.op->result).dtype == DType::I8)
                return true;
            if (isVectorElementwise(u.op->kind) && castsToI8(u.op->result, depth + 1)) return true;
        }
        return false;
    }

    // If v is an integer value seen through value-preserving ops: the depth K of the integer
    // matmul that made it (1 for an integer argument or any other integer op).
    std::optional<int64_t> integerDepth(ValueId v) const {
        for (int hops = 0; hops < 16; ++hops) {
            const DType dt = m_f.type(v).dtype;
            const Op* p = m_f.producer(v);
            if (dt == DType::I8 || dt == DType::I32) {
                if (p && p->kind == OpKind::Matmul) {
                    const Shape& a = m_f.type(p->operands[0]).shape;
                    if (a.rank() < 2) return 1;
                    return p->attrs.getBool("transpose_a") ? a[a.rank() - 2] : a.back();
                }
                return 1;
            }
            if (!p || !preservesValues(p->kind) || p->operands.empty()) return std::nullopt;
            v = p->operands[0];
        }
        return std::nullopt;
    }

    const Function& m_f;
    std::vector<std::vector<Use>> m_uses;
};

void fillMask(TensorData& t) {
    const int n = t.shape.rank();
    const int64_t cols = n ? t.shape[n - 1] : 1;
    const int64_t rows = n >= 2 ? t.shape[n - 2] : 1;
    const float inf = std::numeric_limits<float>::infinity();
    for (int64_t i = 0; i < t.numel(); ++i) {
        const int64_t col = i % cols, row = (i / cols) % rows;
        t.set(i, col > row ? -inf : 0.0f);
    }
}

} // namespace

std::string_view inputRoleName(InputRole role) {
    switch (role) {
    case InputRole::Mask:
        return "mask";
    case InputRole::DequantScale:
        return "dequant scale";
    case InputRole::QuantScale:
        return "quant scale";
    case InputRole::Positive:
        return "positive";
    case InputRole::Index:
        return "index";
    default:
        return "data";
    }
}

std::vector<InputRoleInfo> inferInputRoles(const Function& tensor) {
    RoleFinder finder(tensor);
    std::vector<InputRoleInfo> roles;
    for (ValueId a : tensor.args) roles.push_back(finder.roleOf(a));
    // An index a loop body gathers with is a capture of the loop: its i32 arguments are looked
    // at again in the unrolled program (the arguments stay the same). Only the index role is
    // taken from there, so no other argument's role changes.
    const bool loops = std::any_of(tensor.ops().begin(), tensor.ops().end(),
                                   [](const Op& op) { return op.kind == OpKind::For; });
    // Within the default Tensor-op budget only: a bigger program is refused by the compile's
    // budget check, which must come first (with a clear message), not an out-of-memory here.
    if (!loops || countUnrolledOps(tensor).ops > ResourceBudget::kDefaultMaxTileOps) return roles;
    Function unrolled = tensor;
    try {
        unrollLoops(unrolled);
    } catch (const std::exception&) {
        return roles; // the compile that follows reports it
    }
    RoleFinder inBody(unrolled);
    for (size_t i = 0; i < roles.size() && i < unrolled.args.size(); ++i)
        if (roles[i].role == InputRole::Data && tensor.type(tensor.args[i]).dtype == DType::I32)
            if (InputRoleInfo r = inBody.roleOf(unrolled.args[i]); r.role == InputRole::Index)
                roles[i] = r;
    return roles;
}

TensorData seededInput(DType dtype, const Shape& shape, const InputRoleInfo& role, uint64_t seed) {
    switch (role.role) {
    case InputRole::Mask: {
        TensorData t(dtype, shape);
        fillMask(t);
        return t;
    }
    case InputRole::DequantScale: {
        const double s = 1.0 / (127.0 * double(std::max<int64_t>(role.depth, 1)));
        return randomTensor(dtype, shape, seed, RandomRange{0.5 * s, s});
    }
    case InputRole::QuantScale:
        return randomTensor(dtype, shape, seed, RandomRange{1.0 / 127.0, 2.0 / 127.0});
    case InputRole::Positive:
        return randomTensor(dtype, shape, seed, RandomRange{0.5, 1.0});
    case InputRole::Index:
        return randomTensor(dtype, shape, seed,
                            RandomRange{0.0, double(std::max<int64_t>(role.depth, 1)) - 1.0});
    default:
        return randomTensor(dtype, shape, seed);
    }
}

} // namespace pto
