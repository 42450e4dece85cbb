// Shape, dtype and memory-space inference of Tensor- and Tile-level ops (rules in the header).
#include "compiler/ir/ShapeInference.h"

#include "compiler/ir/Printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <climits>
#include <optional>
#include <span>
#include <vector>

namespace pto {
namespace {

std::string shapeStr(const Shape& s) {
    return s.empty() ? std::string("[]") : s.str();
}

std::string listStr(std::span<const int64_t> v) {
    return fmt::format("[{}]", fmt::join(v, ", "));
}

// Inference of one op: the operand types and attributes in, the result type out.
class Inference {
public:
    Inference(Level level, OpKind kind, std::span<const Type> in, const Attrs& attrs,
              const Type* declared)
        : m_level(level), m_kind(kind), m_in(in), m_attrs(attrs), m_declared(declared) {}

    Type run();

private:
    Type dispatch();
    [[noreturn]] void fail(std::string message) const {
        throw ShapeError(m_kind, std::move(message));
    }
    std::string typeStr(const Type& t) const { return formatType(t, m_level); }
    bool isTileLevel() const { return m_level == Level::Tile; }

    // Attributes: nullopt when absent, an error when present with the wrong kind of value.
    std::optional<int64_t> intAttr(std::string_view name) const;
    std::optional<double> numberAttr(std::string_view name) const;
    std::optional<std::vector<int64_t>> listAttr(std::string_view name) const;
    // The same read in place: nullptr when absent (no copy, for attrs every tile op has).
    const std::vector<int64_t>* listAttrIn(std::string_view name) const;
    std::optional<std::string> stringAttr(std::string_view name) const;
    bool unitAttr(std::string_view name) const;
    int64_t requireInt(std::string_view name, std::string_view what) const;
    std::vector<int64_t> requireList(std::string_view name, std::string_view what) const;

    // Operand checks.
    void checkOperandCount() const;
    void checkNoGmOperands() const;
    void requireFloat(int i) const;
    void requireNotBool(int i) const;
    void requireSameDtype(int i, int j) const;
    int normalizeAxis(int64_t axis, int rank, std::string_view attr) const;
    Shape broadcastPair(const Shape& a, const Shape& b, std::string_view what) const;
    void requireBroadcastsTo(int i, const Shape& target, std::string_view what) const;
    void checkRegion(const Shape& tile, const Shape& tensor) const;
    void checkTileSizeOverrides(const Type& result) const;
    void checkPredicate() const;

    // Result construction.
    MemSpace defaultSpace() const;
    Type result(DType dtype, Shape shape) const { return Type{dtype, shape, defaultSpace()}; }
    const Type& requireDeclared() const;
    void checkDeclaredSpace(const Type& declared, bool wantGm) const;
    Type finish(const Type& inferred, bool dtypeMayDiffer = false) const;

    // Per op class.
    Type binary();
    Type compare();
    Type scalarOp();
    Type unary();
    Type cast();
    Type reduce();
    Type softmax();
    Type norm();
    Type where();
    Type quantize();
    Type dequantize();
    Type matmulShape(const Type& a, const Type& b) const;
    Type matmul();
    Type matmulAcc();
    Type reshape();
    Type transpose();
    Type view();
    Shape clippedView(const std::vector<int64_t>& sizes) const;
    Type concat();
    Type broadcastTo();
    Type fill();
    Type gmTensor();
    Type tload();
    Type tstore();
    Type tmove();
    Type gather();
    Type gatherTile();
    Type topk();
    Type scatterAdd();
    Type tscatterAdd();
    Type cumsum();
    Type directive();
    Type control();

    Level m_level;
    OpKind m_kind;
    std::span<const Type> m_in;
    const Attrs& m_attrs;
    const Type* m_declared;
};

// --- attributes ----------------------------------------------------------------------------

std::optional<int64_t> Inference::intAttr(std::string_view name) const {
    const AttrValue* v = m_attrs.find(name);
    if (!v) return std::nullopt;
    if (auto* i = std::get_if<int64_t>(v)) return *i;
    fail(fmt::format("attribute '{}' must be an integer, found {}", name, formatAttrValue(*v)));
}

std::optional<double> Inference::numberAttr(std::string_view name) const {
    const AttrValue* v = m_attrs.find(name);
    if (!v) return std::nullopt;
    if (auto* d = std::get_if<double>(v)) return *d;
    if (auto* i = std::get_if<int64_t>(v)) return double(*i);
    fail(fmt::format("attribute '{}' must be a number, found {}", name, formatAttrValue(*v)));
}

std::optional<std::vector<int64_t>> Inference::listAttr(std::string_view name) const {
    if (const std::vector<int64_t>* l = listAttrIn(name)) return *l;
    return std::nullopt;
}

const std::vector<int64_t>* Inference::listAttrIn(std::string_view name) const {
    const AttrValue* v = m_attrs.find(name);
    if (!v) return nullptr;
    if (auto* l = std::get_if<std::vector<int64_t>>(v)) return l;
    fail(fmt::format("attribute '{}' must be a list of integers, found {}", name,
                     formatAttrValue(*v)));
}

std::optional<std::string> Inference::stringAttr(std::string_view name) const {
    const AttrValue* v = m_attrs.find(name);
    if (!v) return std::nullopt;
    if (auto* s = std::get_if<std::string>(v)) return *s;
    fail(fmt::format("attribute '{}' must be a string, found {}", name, formatAttrValue(*v)));
}

bool Inference::unitAttr(std::string_view name) const {
    const AttrValue* v = m_attrs.find(name);
    if (!v) return false;
    if (auto* b = std::get_if<bool>(v)) return *b;
    fail(fmt::format("attribute '{}' is a flag (write just '{}'), found the value {}", name, name,
                     formatAttrValue(*v)));
}

int64_t Inference::requireInt(std::string_view name, std::string_view what) const {
    if (auto v = intAttr(name)) return *v;
    fail(fmt::format("missing attribute '{}' ({})", name, what));
}

std::vector<int64_t> Inference::requireList(std::string_view name, std::string_view what) const {
    if (auto v = listAttr(name)) return *v;
    fail(fmt::format("missing attribute '{}' ({})", name, what));
}

// --- operand checks ------------------------------------------------------------------------

void Inference::checkOperandCount() const {
    auto [lo, hi] = operandCountRange(m_kind);
    int n = int(m_in.size());
    if (n >= lo && n <= hi) return;
    if (lo == hi) fail(fmt::format("takes {} operand{}, got {}", lo, lo == 1 ? "" : "s", n));
    if (hi == INT_MAX)
        fail(fmt::format("takes at least {} operand{}, got {}", lo, lo == 1 ? "" : "s", n));
    fail(fmt::format("takes {} to {} operands, got {}", lo, hi, n));
}

void Inference::checkNoGmOperands() const {
    if (!isTileLevel() || opInfo(m_kind).cls == OpClass::Move) return;
    if (m_kind == OpKind::Gather) return; // its source is a GM tensor (gatherTile checks)
    for (size_t i = 0; i < m_in.size(); ++i)
        if (m_in[i].space == MemSpace::GM)
            fail(fmt::format("operand {} is a GM tensor ({}); Tile-level compute ops take tiles "
                             "(tload it first)",
                             i, typeStr(m_in[i])));
}

void Inference::requireFloat(int i) const {
    DType d = m_in[i].dtype;
    if (!isFloatType(d))
        fail(fmt::format("operand {} has dtype {}, but {} needs a float type (f16, bf16 or f32)", i,
                         dtypeName(d), opName(m_kind)));
}

void Inference::requireNotBool(int i) const {
    if (m_in[i].dtype == DType::Bool)
        fail(fmt::format("operand {} has dtype i1; {} needs a numeric type (cast it first)", i,
                         opName(m_kind)));
}

void Inference::requireSameDtype(int i, int j) const {
    if (m_in[i].dtype != m_in[j].dtype)
        fail(fmt::format("operand dtypes {} and {} differ (cast one of them first)",
                         dtypeName(m_in[i].dtype), dtypeName(m_in[j].dtype)));
}

int Inference::normalizeAxis(int64_t axis, int rank, std::string_view attr) const {
    if (rank == 0) fail(fmt::format("needs an operand of rank 1 or more, got a rank-0 tensor"));
    if (axis < -rank || axis >= rank)
        fail(fmt::format("{} {} is out of range for a rank-{} operand (valid: {}..{})", attr, axis,
                         rank, -rank, rank - 1));
    return int(axis < 0 ? axis + rank : axis);
}

Shape Inference::broadcastPair(const Shape& a, const Shape& b, std::string_view what) const {
    int rank = std::max(a.rank(), b.rank());
    Shape out;
    for (int i = 0; i < rank; ++i) {
        int ia = i - (rank - a.rank());
        int ib = i - (rank - b.rank());
        int64_t da = ia >= 0 ? a[ia] : 1;
        int64_t db = ib >= 0 ? b[ib] : 1;
        if (da != db && da != 1 && db != 1)
            fail(fmt::format("{} {} and {} do not broadcast (dim {}: {} vs {})", what, shapeStr(a),
                             shapeStr(b), i, da, db));
        out.push(da == 1 ? db : da);
    }
    return out;
}

void Inference::requireBroadcastsTo(int i, const Shape& target, std::string_view what) const {
    const Shape& s = m_in[i].shape;
    bool ok = s.rank() <= target.rank();
    for (int d = 0; ok && d < s.rank(); ++d) {
        int64_t t = target[target.rank() - s.rank() + d];
        ok = s[d] == t || s[d] == 1;
    }
    if (!ok)
        fail(fmt::format("{} shape {} does not broadcast to {}", what, shapeStr(s),
                         shapeStr(target)));
}

// The region a tile covers in a tensor: per dim when the ranks agree; otherwise in the 2-D
// view (rows = the product of the leading dims, cols = the last dim) that GM regions use, so a
// 1x4096 tile may cover a [4096] tensor.
void Inference::checkRegion(const Shape& tile, const Shape& tensor) const {
    // The offset read in place (absent: zeros): the verifier asks this of every tload and tstore.
    const std::array<int64_t, Shape::kMaxRank> zeros{};
    std::span<const int64_t> offset(zeros.data(), size_t(tensor.rank()));
    if (const std::vector<int64_t>* o = listAttrIn("offset")) {
        if (o->size() != size_t(tensor.rank()))
            fail(fmt::format("offset {} has {} entries, but the tensor {} has rank {}", listStr(*o),
                             o->size(), shapeStr(tensor), tensor.rank()));
        offset = *o;
    }
    for (size_t d = 0; d < offset.size(); ++d)
        if (offset[d] < 0) fail(fmt::format("offset {} is negative in dim {}", listStr(offset), d));
    if (tile.rank() == tensor.rank()) {
        for (int d = 0; d < tile.rank(); ++d)
            if (offset[d] > tensor[d] - tile[d])
                fail(
                    fmt::format("tile {} at offset {} exceeds the tensor {} (dim {}: {} + {} > {})",
                                shapeStr(tile), listStr(offset), shapeStr(tensor), d, offset[d],
                                tile[d], tensor[d]));
        return;
    }
    int64_t row = 0;
    bool inside = true;
    for (int d = 0; inside && d + 1 < tensor.rank(); ++d) {
        inside = offset[d] < tensor[d];
        row = row * tensor[d] + (inside ? offset[d] : 0);
    }
    int64_t col = tensor.empty() ? 0 : offset.back();
    inside = inside && col <= tensor.cols() - tile.cols() && row <= tensor.rows() - tile.rows();
    if (!inside)
        fail(fmt::format("tile {} at offset {} exceeds the tensor {} viewed as {}x{} (rows x cols)",
                         shapeStr(tile), listStr(offset), shapeStr(tensor), tensor.rows(),
                         tensor.cols()));
}

void Inference::checkTileSizeOverrides(const Type& result) const {
    if (auto sizes = listAttr("vec_tile")) {
        int rank =
            opInfo(m_kind).cls == OpClass::Reduce ? m_in[0].shape.rank() : result.shape.rank();
        if (int(sizes->size()) != rank)
            fail(fmt::format("vec_tile {} has {} sizes, but the op works on rank-{} tensors",
                             listStr(*sizes), sizes->size(), rank));
        for (int64_t s : *sizes)
            if (s <= 0)
                fail(fmt::format("vec_tile {} has a size that is not positive", listStr(*sizes)));
    }
    if (m_kind != OpKind::Matmul && m_kind != OpKind::MatmulAcc) return;
    if (auto sizes = listAttr("cube_tile")) {
        if (sizes->size() != 6)
            fail(fmt::format("cube_tile {} must have 6 sizes [mL0, mL1, kL0, kL1, nL0, nL1]",
                             listStr(*sizes)));
        for (int i = 0; i < 6; i += 2) {
            int64_t l0 = (*sizes)[i], l1 = (*sizes)[i + 1];
            char axis = "mkn"[i / 2];
            if (l0 <= 0 || l1 <= 0)
                fail(fmt::format("cube_tile {}: {} sizes must be positive", listStr(*sizes), axis));
            if (l0 > l1 || l1 % l0 != 0)
                fail(fmt::format("cube_tile {}: {} L1 size {} must be a multiple of the L0 size {}",
                                 listStr(*sizes), axis, l1, l0));
        }
    }
}

void Inference::checkPredicate() const {
    constexpr std::array<std::string_view, 6> kPreds = {"eq", "ne", "lt", "le", "gt", "ge"};
    std::optional<std::string> pred = stringAttr("pred");
    if (!pred)
        fail("missing attribute 'pred' (one of \"eq\", \"ne\", \"lt\", \"le\", \"gt\", \"ge\")");
    if (std::find(kPreds.begin(), kPreds.end(), *pred) == kPreds.end())
        fail(fmt::format("unknown predicate \"{}\" (one of eq, ne, lt, le, gt, ge)", *pred));
}

// --- results -------------------------------------------------------------------------------

MemSpace Inference::defaultSpace() const {
    if (!isTileLevel()) return MemSpace::None;
    if (m_kind == OpKind::Matmul) {
        bool placed = m_in[0].space != MemSpace::None || m_in[1].space != MemSpace::None;
        return placed ? MemSpace::L0C : MemSpace::None;
    }
    return m_in.empty() ? MemSpace::None : m_in[0].space;
}

const Type& Inference::requireDeclared() const {
    if (m_declared) return *m_declared;
    std::string_view example = isTileLevel() && m_kind != OpKind::GmTensor ? "tile" : "tensor";
    fail(fmt::format("needs a declared result type (write ': {}<...>' after the operands)",
                     example));
}

void Inference::checkDeclaredSpace(const Type& declared, bool wantGm) const {
    if (!isTileLevel()) {
        if (declared.space != MemSpace::None)
            fail(fmt::format("Tensor-level values have no memory space, found {}",
                             typeStr(declared)));
        return;
    }
    bool isGm = declared.space == MemSpace::GM;
    if (wantGm && !isGm)
        fail(fmt::format("result must be a GM tensor (tensor<...>), found {}", typeStr(declared)));
    if (!wantGm && isGm)
        fail(fmt::format("result must be an on-chip tile (tile<...>), found {} (a GM tensor)",
                         typeStr(declared)));
}

Type Inference::finish(const Type& inferred, bool dtypeMayDiffer) const {
    checkTileSizeOverrides(inferred);
    if (!m_declared) return inferred;
    const Type& d = *m_declared;
    bool match = d.shape == inferred.shape && (dtypeMayDiffer || d.dtype == inferred.dtype);
    if (!match)
        fail(fmt::format("declared type {} does not match the inferred type {}", typeStr(d),
                         typeStr(inferred)));
    checkDeclaredSpace(d, false);
    return d;
}

// --- elementwise ---------------------------------------------------------------------------

Type Inference::binary() {
    requireNotBool(0);
    requireNotBool(1);
    requireSameDtype(0, 1);
    return finish(
        result(m_in[0].dtype, broadcastPair(m_in[0].shape, m_in[1].shape, "operand shapes")));
}

Type Inference::compare() {
    requireSameDtype(0, 1);
    checkPredicate();
    return finish(
        result(DType::Bool, broadcastPair(m_in[0].shape, m_in[1].shape, "operand shapes")));
}

Type Inference::scalarOp() {
    if (!numberAttr("scalar")) fail("missing the scalar operand (attribute 'scalar')");
    if (m_kind == OpKind::CmpS) {
        checkPredicate();
        return finish(result(DType::Bool, m_in[0].shape));
    }
    requireNotBool(0);
    return finish(result(m_in[0].dtype, m_in[0].shape));
}

Type Inference::unary() {
    if (opInfo(m_kind).flags & kOpIntegers)
        requireNotBool(0);
    else
        requireFloat(0);
    return finish(result(m_in[0].dtype, m_in[0].shape));
}

Type Inference::cast() {
    const Type& d = requireDeclared();
    if (d.shape != m_in[0].shape)
        fail(fmt::format("cast changes only the dtype, but the operand is {} and the declared "
                         "type is {}",
                         typeStr(m_in[0]), typeStr(d)));
    if (auto round = stringAttr("round")) {
        constexpr std::array<std::string_view, 5> kModes = {"rne", "trunc", "floor", "ceil", "rna"};
        if (std::find(kModes.begin(), kModes.end(), *round) == kModes.end())
            fail(fmt::format("unknown rounding mode \"{}\" (one of rne, trunc, floor, ceil, rna)",
                             *round));
    }
    checkTileSizeOverrides(d);
    checkDeclaredSpace(d, false);
    return d;
}

Type Inference::reduce() {
    requireNotBool(0);
    const Shape& in = m_in[0].shape;
    int axis = normalizeAxis(requireInt("axis", "the dimension to reduce"), in.rank(), "axis");
    bool keepdim = unitAttr("keepdim");
    Shape out;
    for (int d = 0; d < in.rank(); ++d) {
        if (d != axis)
            out.push(in[d]);
        else if (keepdim)
            out.push(1);
    }
    return finish(result(m_in[0].dtype, out));
}

Type Inference::softmax() {
    requireFloat(0);
    if (auto axis = intAttr("axis"))
        normalizeAxis(*axis, m_in[0].shape.rank(), "axis");
    else if (m_in[0].shape.empty())
        fail("needs an operand of rank 1 or more, got a rank-0 tensor");
    return finish(result(m_in[0].dtype, m_in[0].shape));
}

Type Inference::norm() {
    requireFloat(0);
    if (m_in[0].shape.empty()) fail("needs an operand of rank 1 or more, got a rank-0 tensor");
    constexpr std::array<std::string_view, 3> kLayerNames = {"input", "gamma", "beta"};
    for (int i = 1; i < int(m_in.size()); ++i) {
        std::string_view what = m_kind == OpKind::RmsNorm ? "weight" : kLayerNames[i];
        if (m_in[i].dtype != m_in[0].dtype)
            fail(fmt::format("{} dtype {} differs from the input dtype {}", what,
                             dtypeName(m_in[i].dtype), dtypeName(m_in[0].dtype)));
        requireBroadcastsTo(i, m_in[0].shape, what);
    }
    if (auto eps = numberAttr("eps"); eps && !(*eps > 0))
        fail(fmt::format("eps must be positive, found {}", formatDouble(*eps)));
    return finish(result(m_in[0].dtype, m_in[0].shape));
}

Type Inference::where() {
    if (m_in[0].dtype != DType::Bool)
        fail(fmt::format("condition must have dtype i1, found {} (make it with cmp)",
                         dtypeName(m_in[0].dtype)));
    requireSameDtype(1, 2);
    Shape values = broadcastPair(m_in[1].shape, m_in[2].shape, "value shapes");
    Shape out = broadcastPair(m_in[0].shape, values, "condition and value shapes");
    return finish(result(m_in[1].dtype, out));
}

Type Inference::quantize() {
    requireFloat(0);
    requireFloat(1);
    requireBroadcastsTo(1, m_in[0].shape, "scale");
    return finish(result(DType::I8, m_in[0].shape));
}

Type Inference::dequantize() {
    DType q = m_in[0].dtype;
    if (q != DType::I8 && q != DType::I32)
        fail(fmt::format("operand 0 has dtype {}, but dequantize takes i8 or i32", dtypeName(q)));
    requireFloat(1);
    requireBroadcastsTo(1, m_in[0].shape, "scale");
    if (m_declared && !isFloatType(m_declared->dtype))
        fail(fmt::format("result dtype must be a float type, found {}",
                         dtypeName(m_declared->dtype)));
    return finish(result(DType::F16, m_in[0].shape), true);
}

// --- matmul --------------------------------------------------------------------------------

Type Inference::matmulShape(const Type& a, const Type& b) const {
    const Shape& sa = a.shape;
    const Shape& sb = b.shape;
    if (sa.rank() < 2 || sb.rank() < 2)
        fail(fmt::format("operands must have rank 2 or more, got {} and {}", shapeStr(sa),
                         shapeStr(sb)));
    if (sa.rank() != sb.rank())
        fail(fmt::format("operand ranks differ ({} vs {}); batched matmul needs equal leading dims",
                         shapeStr(sa), shapeStr(sb)));
    int r = sa.rank();
    Shape out;
    for (int d = 0; d < r - 2; ++d) {
        if (sa[d] != sb[d])
            fail(fmt::format("batch dims differ: {} vs {} (dim {}: {} vs {})", shapeStr(sa),
                             shapeStr(sb), d, sa[d], sb[d]));
        out.push(sa[d]);
    }
    bool ta = unitAttr("transpose_a");
    bool tb = unitAttr("transpose_b");
    int64_t m = ta ? sa[r - 1] : sa[r - 2];
    int64_t ka = ta ? sa[r - 2] : sa[r - 1];
    int64_t kb = tb ? sb[r - 1] : sb[r - 2];
    int64_t n = tb ? sb[r - 2] : sb[r - 1];
    if (ka != kb)
        fail(fmt::format("inner dimensions differ: {}{} @ {}{} (k = {} vs {})", shapeStr(sa),
                         ta ? "^T" : "", shapeStr(sb), tb ? "^T" : "", ka, kb));
    out.push(m);
    out.push(n);
    DType in = a.dtype;
    if (a.dtype != b.dtype)
        fail(
            fmt::format("operand dtypes {} and {} differ", dtypeName(a.dtype), dtypeName(b.dtype)));
    if (!isFloatType(in) && in != DType::I8)
        fail(
            fmt::format("operand dtype {} is not supported (f16, bf16, f32 or i8)", dtypeName(in)));
    return Type{in == DType::I8 ? DType::I32 : DType::F32, out, MemSpace::None};
}

// Whether `out` is an allowed matmul result dtype for inputs of dtype `in`.
bool matmulResultDtypeOk(DType in, DType out) {
    if (in == DType::I8) return out == DType::I32 || isFloatType(out);
    return isFloatType(out);
}

Type Inference::matmul() {
    Type t = matmulShape(m_in[0], m_in[1]);
    if (m_declared && !matmulResultDtypeOk(m_in[0].dtype, m_declared->dtype))
        fail(fmt::format("result dtype {} is not allowed for {} inputs",
                         dtypeName(m_declared->dtype), dtypeName(m_in[0].dtype)));
    return finish(result(t.dtype, t.shape), true);
}

Type Inference::matmulAcc() {
    Type t = matmulShape(m_in[1], m_in[2]);
    const Type& acc = m_in[0];
    if (acc.shape != t.shape)
        fail(fmt::format("accumulator {} does not match the product shape {}", typeStr(acc),
                         shapeStr(t.shape)));
    if (!matmulResultDtypeOk(m_in[1].dtype, acc.dtype))
        fail(fmt::format("accumulator dtype {} is not allowed for {} inputs", dtypeName(acc.dtype),
                         dtypeName(m_in[1].dtype)));
    checkTileSizeOverrides(acc);
    if (m_declared && *m_declared != acc)
        fail(fmt::format("declared type {} differs from the accumulator type {}",
                         typeStr(*m_declared), typeStr(acc)));
    return acc;
}

// --- layout --------------------------------------------------------------------------------

Type Inference::reshape() {
    const Type& d = requireDeclared();
    if (d.shape.numel() != m_in[0].shape.numel())
        fail(fmt::format("cannot reshape {} ({} elements) to {} ({} elements)",
                         shapeStr(m_in[0].shape), m_in[0].shape.numel(), shapeStr(d.shape),
                         d.shape.numel()));
    if (d.dtype != m_in[0].dtype)
        fail(fmt::format("reshape keeps the dtype: operand {} vs declared {}",
                         dtypeName(m_in[0].dtype), dtypeName(d.dtype)));
    return finish(d);
}

Type Inference::transpose() {
    std::vector<int64_t> perm = requireList("perm", "the permutation of the dims, e.g. [1, 0]");
    const Shape& in = m_in[0].shape;
    std::vector<bool> seen(size_t(in.rank()), false);
    bool ok = perm.size() == size_t(in.rank());
    for (int64_t p : perm) {
        ok = ok && p >= 0 && p < in.rank() && !seen[size_t(p)];
        if (ok) seen[size_t(p)] = true;
    }
    if (!ok)
        fail(fmt::format("perm {} is not a permutation of the {} dims of {}", listStr(perm),
                         in.rank(), shapeStr(in)));
    Shape out;
    for (int64_t p : perm) out.push(in[int(p)]);
    return finish(result(m_in[0].dtype, out));
}

Type Inference::view() {
    std::vector<int64_t> offsets = requireList("offsets", "the corner of the slice");
    std::vector<int64_t> sizes = requireList("sizes", "the extent of the slice");
    const Shape& in = m_in[0].shape;
    if (offsets.size() != size_t(in.rank()) || sizes.size() != size_t(in.rank()))
        fail(fmt::format("offsets {} and sizes {} need {} entries each (the rank of {})",
                         listStr(offsets), listStr(sizes), in.rank(), shapeStr(in)));
    // Offsets affine in induction variables (operands 1..) are checked per iteration by the
    // verifier, which knows the loop bounds; here only the sizes. With `clip` the sizes are the
    // most the view covers: it is cut at the tensor's end (a loop's partial tail tile), so only
    // its corner must lie inside; a loop body types it with the full sizes. A clip without an
    // induction variable is refused here, before its cut shape reaches a reader or the return
    // type (unroll-loops drops `clip` once it has cut the tail).
    const bool affine = m_in.size() > 1;
    if (unitAttr("clip")) {
        if (!affine)
            fail("'clip' cuts a view at the tensor's end in a loop's last iterations: it needs "
                 "offsets that use an induction variable (such as [0, %i * 256])");
        return finish(result(m_in[0].dtype, clippedView(sizes)));
    }
    Shape out;
    for (int d = 0; d < in.rank(); ++d) {
        if (sizes[d] <= 0 || sizes[d] > in[d] ||
            (!affine && (offsets[d] < 0 || offsets[d] > in[d] - sizes[d])))
            fail(fmt::format("slice offsets {} sizes {} is out of range of {} (dim {}: {} + {} "
                             "vs {})",
                             listStr(offsets), listStr(sizes), shapeStr(in), d, offsets[d],
                             sizes[d], in[d]));
        out.push(sizes[d]);
    }
    return finish(result(m_in[0].dtype, out));
}

Shape Inference::clippedView(const std::vector<int64_t>& sizes) const {
    Shape out;
    for (int d = 0; d < m_in[0].shape.rank(); ++d) {
        if (sizes[d] <= 0)
            fail(fmt::format("clipped slice sizes {} must be positive (dim {}: {})", listStr(sizes),
                             d, sizes[d]));
        out.push(sizes[d]);
    }
    return out;
}

Type Inference::concat() {
    const Shape& first = m_in[0].shape;
    int axis =
        normalizeAxis(requireInt("axis", "the dimension to join along"), first.rank(), "axis");
    Shape out = first;
    for (size_t i = 1; i < m_in.size(); ++i) {
        const Shape& s = m_in[i].shape;
        if (m_in[i].dtype != m_in[0].dtype)
            fail(fmt::format("operand {} has dtype {}, operand 0 has {}", i,
                             dtypeName(m_in[i].dtype), dtypeName(m_in[0].dtype)));
        if (s.rank() != first.rank())
            fail(fmt::format("operand {} has rank {}, operand 0 has rank {}", i, s.rank(),
                             first.rank()));
        for (int d = 0; d < s.rank(); ++d)
            if (d != axis && s[d] != first[d])
                fail(fmt::format("operand {} is {}, operand 0 is {}: dim {} differs ({} vs {}) "
                                 "and only the axis {} may",
                                 i, shapeStr(s), shapeStr(first), d, s[d], first[d], axis));
        out[axis] += s[axis];
    }
    return finish(result(m_in[0].dtype, out));
}

Type Inference::broadcastTo() {
    const Type& d = requireDeclared();
    if (d.dtype != m_in[0].dtype)
        fail(fmt::format("broadcast keeps the dtype: operand {} vs declared {}",
                         dtypeName(m_in[0].dtype), dtypeName(d.dtype)));
    requireBroadcastsTo(0, d.shape, "operand");
    return finish(d);
}

Type Inference::fill() {
    const Type& d = requireDeclared();
    if (!numberAttr("value")) fail("missing attribute 'value' (the fill value)");
    checkTileSizeOverrides(d);
    checkDeclaredSpace(d, false);
    return d;
}

// --- Tile-level data movement --------------------------------------------------------------

Type Inference::gmTensor() {
    const Type& d = requireDeclared();
    checkDeclaredSpace(d, true);
    return d;
}

Type Inference::tload() {
    if (m_in[0].space != MemSpace::GM)
        fail(fmt::format("source must be a GM tensor, found {}", typeStr(m_in[0])));
    const Type& d = requireDeclared();
    checkDeclaredSpace(d, false);
    if (d.dtype != m_in[0].dtype)
        fail(fmt::format("tload keeps the dtype: source {} vs tile {}", dtypeName(m_in[0].dtype),
                         dtypeName(d.dtype)));
    // Offsets affine in induction variables (operands 1..): the verifier checks every iteration.
    if (m_in.size() == 1) checkRegion(d.shape, m_in[0].shape);
    return d;
}

Type Inference::tstore() {
    if (m_declared) fail("has no result, so it takes no result type");
    if (m_in[0].space == MemSpace::GM)
        fail(fmt::format("operand 0 must be a tile, found {} (a GM tensor)", typeStr(m_in[0])));
    if (m_in[1].space != MemSpace::GM)
        fail(fmt::format("destination must be a GM tensor, found {}", typeStr(m_in[1])));
    // The FIX pipe converts a matmul accumulator (f32/i32 in L0C) to a float destination on
    // its way out (RNE); every other store keeps the dtype. An unplaced tile is checked again
    // once assign-memory has placed it.
    const bool accumulator = (m_in[0].space == MemSpace::L0C || m_in[0].space == MemSpace::None) &&
                             (m_in[0].dtype == DType::F32 || m_in[0].dtype == DType::I32) &&
                             isFloatType(m_in[1].dtype);
    if (m_in[0].dtype != m_in[1].dtype && !accumulator)
        fail(fmt::format("tstore keeps the dtype: tile {} vs destination {} (only an f32/i32 "
                         "accumulator in L0C converts to a float destination)",
                         dtypeName(m_in[0].dtype), dtypeName(m_in[1].dtype)));
    if (m_in.size() == 2) checkRegion(m_in[0].shape, m_in[1].shape); // else per iteration
    return Type{};
}

Type Inference::tmove() {
    if (m_in[0].space == MemSpace::GM)
        fail(fmt::format("operand must be a tile, found {} (a GM tensor; use tload)",
                         typeStr(m_in[0])));
    const Type& d = requireDeclared();
    checkDeclaredSpace(d, false);
    if (d.dtype != m_in[0].dtype)
        fail(fmt::format("tmove keeps the dtype: source {} vs result {}", dtypeName(m_in[0].dtype),
                         dtypeName(d.dtype)));
    // Offsets affine in induction variables (operands 1..): the verifier checks every iteration.
    if (m_in.size() == 1) checkRegion(d.shape, m_in[0].shape);
    return d;
}

// gather %src, %idx {axis}: numpy.take — src.shape[:axis] + idx.shape + src.shape[axis+1:].
Type Inference::gather() {
    if (isTileLevel()) return gatherTile();
    if (m_in[1].dtype != DType::I32)
        fail(fmt::format("the index operand must be i32, found {}", typeStr(m_in[1])));
    const Shape& src = m_in[0].shape;
    const int axis = normalizeAxis(intAttr("axis").value_or(0), src.rank(), "axis");
    const int rank = src.rank() - 1 + m_in[1].shape.rank();
    if (rank > Shape::kMaxRank)
        fail(fmt::format("the result would have rank {} (at most {})", rank, Shape::kMaxRank));
    Shape out;
    for (int d = 0; d < axis; ++d) out.push(src[d]);
    for (int64_t d : m_in[1].shape.dims()) out.push(d);
    for (int d = axis + 1; d < src.rank(); ++d) out.push(src[d]);
    return finish(result(m_in[0].dtype, out));
}

// Tile level: %t = gather %gm, %idx {offset = [0, c]} : tile<RxCx...> — row idx[i] of the GM
// tensor's rows × cols view, columns [c, c + C), into row i of the tile (R = idx elements).
Type Inference::gatherTile() {
    if (m_in[0].space != MemSpace::GM)
        fail(fmt::format("source must be a GM tensor, found {}", typeStr(m_in[0])));
    if (m_in[1].space == MemSpace::GM)
        fail(fmt::format("the index must be a tile, found {} (a GM tensor; tload it first)",
                         typeStr(m_in[1])));
    if (m_in[1].dtype != DType::I32)
        fail(fmt::format("the index tile must be i32, found {}", typeStr(m_in[1])));
    const Type& d = requireDeclared();
    checkDeclaredSpace(d, false);
    if (d.dtype != m_in[0].dtype)
        fail(fmt::format("gather keeps the dtype: source {} vs tile {}", dtypeName(m_in[0].dtype),
                         dtypeName(d.dtype)));
    const Shape& src = m_in[0].shape;
    if (d.shape.rows() != m_in[1].shape.numel())
        fail(fmt::format("the tile {} has {} rows but the index tile {} holds {} indices",
                         shapeStr(d.shape), d.shape.rows(), typeStr(m_in[1]),
                         m_in[1].shape.numel()));
    std::vector<int64_t> offset(size_t(src.rank()), 0);
    if (auto o = listAttr("offset")) offset = *o;
    if (offset.size() != size_t(src.rank()))
        fail(fmt::format("offset {} has {} entries, but the tensor {} has rank {}", listStr(offset),
                         offset.size(), shapeStr(src), src.rank()));
    // Leading offsets pick the matrix of a rank ≥ 3 tensor the rows come from; the row offset
    // stays 0 (the rows come from the index).
    for (size_t i = 0; i + 2 < offset.size(); ++i)
        if (offset[i] < 0 || offset[i] >= src[int(i)])
            fail(fmt::format("offset {} lies outside {} in dim {}", listStr(offset),
                             typeStr(m_in[0]), i));
    if (offset.size() >= 2 && offset[offset.size() - 2] != 0)
        fail(fmt::format("offset {} may only shift the columns (the rows come from the index)",
                         listStr(offset)));
    const int64_t col = offset.empty() ? 0 : offset.back();
    if (col < 0 || col + d.shape.cols() > src.cols())
        fail(fmt::format("columns [{}, {}) exceed the {} columns of {}", col, col + d.shape.cols(),
                         src.cols(), typeStr(m_in[0])));
    return d;
}

// topk %x {k, axis = -1, largest = true, indices}: axis's extent becomes k; the values keep the
// dtype, `indices` gives i32 positions.
Type Inference::topk() {
    requireNotBool(0);
    const Shape& in = m_in[0].shape;
    const int axis = normalizeAxis(intAttr("axis").value_or(-1), in.rank(), "axis");
    const int64_t k = requireInt("k", "how many to keep");
    if (k < 1 || k > in[axis])
        fail(
            fmt::format("k = {} is out of range 1..{} (the extent of axis {})", k, in[axis], axis));
    if (const AttrValue* v = m_attrs.find("largest"); v && !std::holds_alternative<bool>(*v))
        fail(fmt::format("attribute 'largest' must be true or false, found {}",
                         formatAttrValue(*v)));
    Shape out = in;
    out[axis] = k;
    return finish(result(unitAttr("indices") ? DType::I32 : m_in[0].dtype, out));
}

// scatter_add %base, %idx, %src {axis}: base's type; src must have the shape gather would give,
// base.shape[:axis] + idx.shape + base.shape[axis+1:], and base's dtype.
Type Inference::scatterAdd() {
    requireNotBool(0);
    if (m_in[1].dtype != DType::I32)
        fail(fmt::format("the index operand must be i32, found {}", typeStr(m_in[1])));
    requireSameDtype(0, 2);
    const Shape& base = m_in[0].shape;
    const int axis = normalizeAxis(intAttr("axis").value_or(0), base.rank(), "axis");
    Shape want;
    for (int d = 0; d < axis; ++d) want.push(base[d]);
    for (int64_t d : m_in[1].shape.dims()) want.push(d);
    for (int d = axis + 1; d < base.rank(); ++d) want.push(base[d]);
    if (want.rank() > Shape::kMaxRank || want != m_in[2].shape)
        fail(fmt::format("the source {} must have the shape {} (the base's dims with axis {} "
                         "replaced by the index's {})",
                         typeStr(m_in[2]), shapeStr(want), axis, shapeStr(m_in[1].shape)));
    return finish(result(m_in[0].dtype, base));
}

// tscatter_add %tile, %gm, %idx {offset = [0, c]}: no result; row i of the tile is added into
// row idx[i] of the GM tensor's rows × cols view, columns [c, c + cols).
Type Inference::tscatterAdd() {
    if (m_declared) fail("has no result, so it takes no result type");
    if (m_in[0].space == MemSpace::GM)
        fail(fmt::format("operand 0 must be a tile, found {} (a GM tensor)", typeStr(m_in[0])));
    if (m_in[1].space != MemSpace::GM)
        fail(fmt::format("destination must be a GM tensor, found {}", typeStr(m_in[1])));
    if (m_in[2].space == MemSpace::GM)
        fail(fmt::format("the index must be a tile, found {} (a GM tensor; tload it first)",
                         typeStr(m_in[2])));
    if (m_in[2].dtype != DType::I32)
        fail(fmt::format("the index tile must be i32, found {}", typeStr(m_in[2])));
    if (m_in[0].dtype != m_in[1].dtype)
        fail(fmt::format("tscatter_add keeps the dtype: tile {} vs destination {}",
                         dtypeName(m_in[0].dtype), dtypeName(m_in[1].dtype)));
    if (m_in[0].dtype == DType::Bool || m_in[0].dtype == DType::I8)
        fail(fmt::format("adds f16, bf16, f32 or i32 rows, found {}", dtypeName(m_in[0].dtype)));
    const Shape& tile = m_in[0].shape;
    const Shape& gm = m_in[1].shape;
    if (tile.rows() != m_in[2].shape.numel())
        fail(fmt::format("the tile {} has {} rows but the index tile {} holds {} indices",
                         shapeStr(tile), tile.rows(), typeStr(m_in[2]), m_in[2].shape.numel()));
    std::vector<int64_t> offset(size_t(gm.rank()), 0);
    if (auto o = listAttr("offset")) offset = *o;
    if (offset.size() != size_t(gm.rank()))
        fail(fmt::format("offset {} has {} entries, but the tensor {} has rank {}", listStr(offset),
                         offset.size(), shapeStr(gm), gm.rank()));
    for (size_t i = 0; i + 1 < offset.size(); ++i)
        if (offset[i] != 0)
            fail(fmt::format("offset {} may only shift the columns (the rows come from the index)",
                             listStr(offset)));
    const int64_t col = offset.empty() ? 0 : offset.back();
    if (col < 0 || col + tile.cols() > gm.cols())
        fail(fmt::format("columns [{}, {}) exceed the {} columns of {}", col, col + tile.cols(),
                         gm.cols(), typeStr(m_in[1])));
    return Type{};
}

// cumsum %x {axis = -1}: x's type (at Tile level axis 0 scans down the columns, 1 along rows).
Type Inference::cumsum() {
    requireNotBool(0);
    if (m_in[0].dtype == DType::I8)
        fail("needs f16, bf16, f32 or i32 (an i8 prefix sum would saturate; cast it first)");
    normalizeAxis(intAttr("axis").value_or(-1), m_in[0].shape.rank(), "axis");
    return finish(result(m_in[0].dtype, m_in[0].shape));
}

Type Inference::control() {
    fail("defines its results through its body or callee, not by shape inference");
}

Type Inference::directive() {
    if (m_declared) fail("is a directive: it has no result and takes no type");
    std::vector<int64_t> sizes = requireList("sizes", "the tile sizes");
    if (m_kind == OpKind::VecTile) {
        // `vec_tile []` is the tile of rank-0 ops.
        if (sizes.size() > size_t(Shape::kMaxRank))
            fail(fmt::format("needs 0 to {} sizes, got {}", Shape::kMaxRank, sizes.size()));
        for (int64_t s : sizes)
            if (s <= 0) fail(fmt::format("sizes must be positive, got {}", listStr(sizes)));
        return Type{};
    }
    if (sizes.size() != 6)
        fail(fmt::format("needs [mL0, mL1], [kL0, kL1], [nL0, nL1], got {} sizes", sizes.size()));
    for (int i = 0; i < 6; i += 2) {
        int64_t l0 = sizes[i], l1 = sizes[i + 1];
        char axis = "mkn"[i / 2];
        if (l0 <= 0 || l1 <= 0)
            fail(fmt::format("{} sizes [{}, {}] must be positive", axis, l0, l1));
        if (l0 > l1 || l1 % l0 != 0)
            fail(fmt::format("{} L1 size {} must be a multiple of (and at least) the L0 size {}",
                             axis, l1, l0));
    }
    return Type{};
}

Type Inference::run() {
    checkOperandCount();
    checkNoGmOperands();
    Type result = dispatch();
    if (!checkedElementCount(result.shape))
        fail(fmt::format("the result shape {} has a dimension that is not positive or more than "
                         "2^48 elements",
                         shapeStr(result.shape)));
    return result;
}

// Each kind's rule is a column of Ops.def.
Type Inference::dispatch() {
    // A std::array, not a built-in array: GCC 12's -fsanitize=bounds miscomputes the index of a
    // built-in array of member-function pointers and reports a false out-of-bounds.
    using Rule = Type (Inference::*)();
    static constexpr std::array kRules = {
#define PTO_OP(kind, mnemonic, levels, minArity, maxArity, cls, rule, flags, attrs, unaryFn,       \
               builder, form)                                                                      \
    Rule{&Inference::rule},
#include "compiler/ir/Ops.def"
#undef PTO_OP
    };
    return (this->*kRules.at(static_cast<size_t>(m_kind)))();
}

} // namespace

ShapeError::ShapeError(OpKind kind, std::string detail)
    : std::runtime_error(fmt::format("{}: {}", opName(kind), detail)), m_kind(kind),
      m_detail(std::move(detail)) {}

Type inferResultType(Level level, OpKind kind, std::span<const Type> operands, const Attrs& attrs,
                     const Type* declared) {
    return Inference(level, kind, operands, attrs, declared).run();
}

Type inferResultType(const Function& f, OpKind kind, std::span<const ValueId> operands,
                     const Attrs& attrs, const Type* declared) {
    std::array<Type, 4> small;
    std::vector<Type> large;
    std::span<Type> types;
    if (operands.size() <= small.size()) {
        types = std::span<Type>(small.data(), operands.size());
    } else {
        large.resize(operands.size());
        types = large;
    }
    for (size_t i = 0; i < operands.size(); ++i) types[i] = f.type(operands[i]);
    return inferResultType(f.level, kind, types, attrs, declared);
}

std::optional<int64_t> checkedElementCount(const Shape& shape) {
    int64_t count = 1;
    for (int64_t d : shape.dims())
        if (d <= 0 || __builtin_mul_overflow(count, d, &count) || count > kMaxElements)
            return std::nullopt;
    return count;
}

bool needsDeclaredType(OpKind kind) {
    return opInfo(kind).flags & kOpDeclared;
}

bool declaredTypeIsDefault(const Function& f, const Op& op) {
    if (op.result == kNoId) return true;
    if (needsDeclaredType(op.kind)) return false;
    for (ValueId v : op.operands)
        if (v >= f.valueCount()) return false;
    try {
        return inferResultType(f, op.kind, op.operands, op.attrs, nullptr) == f.type(op.result);
    } catch (const ShapeError&) {
        return false;
    }
}

bool opHasResult(OpKind kind) {
    return kind != OpKind::TStore && kind != OpKind::TScatterAdd && !isDirective(kind) &&
           !isControl(kind);
}

std::pair<int, int> operandCountRange(OpKind kind) {
    const OpInfo& info = opInfo(kind);
    return {info.minArity, info.maxArity < 0 ? INT_MAX : info.maxArity};
}

void normalizeAttrs(OpKind kind, std::span<const Type> operands, Attrs& attrs) {
    OpClass cls = opInfo(kind).cls;
    bool hasAxis = cls == OpClass::Reduce || kind == OpKind::Softmax || kind == OpKind::Concat ||
                   kind == OpKind::Gather || kind == OpKind::TopK || kind == OpKind::ScatterAdd ||
                   kind == OpKind::CumSum;
    if (hasAxis && !operands.empty()) {
        const AttrValue* v = attrs.find("axis");
        const int64_t* axis = v ? std::get_if<int64_t>(v) : nullptr;
        int64_t rank = operands[0].shape.rank();
        if (axis && *axis < 0 && *axis >= -rank) attrs.set("axis", *axis + rank);
    }
    for (std::string_view name : {"scalar", "eps", "value"}) {
        const AttrValue* v = attrs.find(name);
        if (const int64_t* i = v ? std::get_if<int64_t>(v) : nullptr) attrs.set(name, double(*i));
    }
    for (std::string_view name : {"keepdim", "transpose_a", "transpose_b", "indices"}) {
        const AttrValue* v = attrs.find(name);
        if (const bool* b = v ? std::get_if<bool>(v) : nullptr; b && !*b) attrs.erase(name);
    }
}

std::span<const std::string_view> knownAttrNames(OpKind kind) {
    // Ops.def's attrs column, split once.
    static const std::vector<std::vector<std::string_view>> kNames = [] {
        std::vector<std::vector<std::string_view>> names(opKindCount());
        for (int k = 0; k < opKindCount(); ++k) {
            std::string_view list = opInfo(OpKind(k)).attrNames;
            while (!list.empty()) {
                const size_t end = std::min(list.find(' '), list.size());
                if (end > 0) names[k].push_back(list.substr(0, end));
                list.remove_prefix(std::min(end + 1, list.size()));
            }
        }
        return names;
    }();
    return kNames[static_cast<int>(kind)];
}

std::vector<std::string_view> tileAttrNames(OpKind kind) {
    std::vector<std::string_view> names;
    for (std::string_view name : knownAttrNames(kind))
        if (name != "cube_tile") names.push_back(name);
    return names;
}

std::span<const std::string_view> tilePassAttrNames(OpKind kind) {
    static constexpr std::string_view kGmTensor[] = {"role", "ping_pong", "retired"};
    static constexpr std::string_view kKStep[] = {"k_step"};
    switch (kind) {
    case OpKind::GmTensor:
        return kGmTensor;
    case OpKind::TLoad:
    case OpKind::TMove:
    case OpKind::Matmul:
    case OpKind::MatmulAcc:
        return kKStep;
    default:
        return {};
    }
}

} // namespace pto
