// TensorData <-> .npy conversion.
#include "validate/TensorIo.h"

#include <fmt/format.h>

#include <cstring>

namespace pto {
namespace {

struct DescrMap {
    DType dtype;
    std::string_view descr;
};

constexpr DescrMap kDescrs[] = {{DType::F16, "<f2"},
                                {DType::F32, "<f4"},
                                {DType::I8, "|i1"},
                                {DType::I32, "<i4"},
                                {DType::Bool, "|b1"}};

} // namespace

NpyArray toNpy(const TensorData& t) {
    NpyArray a;
    if (t.dtype == DType::BF16) {
        a.descr = "<u2";
        a.trueDType = "bf16";
    } else {
        for (const DescrMap& m : kDescrs)
            if (m.dtype == t.dtype) a.descr = std::string(m.descr);
    }
    a.shape.assign(t.shape.begin(), t.shape.end());
    a.data = t.bytes;
    return a;
}

TensorData fromNpy(const NpyArray& a, const std::filesystem::path& where) {
    std::optional<DType> dtype;
    if (a.trueDType == "bf16" && a.descr == "<u2") dtype = DType::BF16;
    for (const DescrMap& m : kDescrs)
        if (a.trueDType.empty() && m.descr == a.descr) dtype = m.dtype;
    if (!dtype)
        throw NpyError(where,
                       fmt::format("dtype '{}'{} is not one PTO computes in; use f16, "
                                   "bf16 (<u2 + .dtype sidecar), f32, i8, i32 or bool",
                                   a.descr, a.trueDType.empty() ? "" : " (" + a.trueDType + ")"));
    if (a.shape.size() > size_t(Shape::kMaxRank))
        throw NpyError(where, fmt::format("rank {} exceeds the maximum of {}", a.shape.size(),
                                          Shape::kMaxRank));
    TensorData t(*dtype, Shape(std::span<const int64_t>(a.shape)));
    if (t.bytes.size() != a.data.size())
        throw NpyError(where, fmt::format("expected {} bytes of data, found {}", t.bytes.size(),
                                          a.data.size()));
    if (!a.data.empty()) std::memcpy(t.bytes.data(), a.data.data(), a.data.size());
    return t;
}

TensorData readTensor(const std::filesystem::path& path) {
    return fromNpy(readNpy(path), path);
}

void writeTensor(const std::filesystem::path& path, const TensorData& t) {
    writeNpy(path, toNpy(t));
}

} // namespace pto
