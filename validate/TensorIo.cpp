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

namespace {

// The PTO type of an .npy dtype and shape; NpyError for what PTO does not compute in.
TensorFileType ptoTypeOf(const std::string& descr, const std::string& trueDType,
                         const std::vector<int64_t>& shape, const std::filesystem::path& where) {
    std::optional<DType> dtype;
    if (trueDType == "bf16" && descr == "<u2") dtype = DType::BF16;
    for (const DescrMap& m : kDescrs)
        if (trueDType.empty() && m.descr == descr) dtype = m.dtype;
    if (!dtype && !trueDType.empty())
        throw NpyError(where, fmt::format("dtype '{}' with a .dtype sidecar saying '{}': a "
                                          "sidecar marks bf16 stored as '<u2' and nothing else; {}",
                                          descr, trueDType, kPtoDTypesText));
    if (!dtype)
        throw NpyError(
            where, fmt::format("dtype '{}' is not one PTO computes in; {}", descr, kPtoDTypesText));
    if (shape.size() > size_t(Shape::kMaxRank))
        throw NpyError(
            where, fmt::format("rank {} exceeds the maximum of {}", shape.size(), Shape::kMaxRank));
    return {*dtype, Shape(std::span<const int64_t>(shape))};
}

} // namespace

TensorData fromNpy(const NpyArray& a, const std::filesystem::path& where) {
    const TensorFileType type = ptoTypeOf(a.descr, a.trueDType, a.shape, where);
    TensorData t(type.dtype, type.shape);
    if (t.bytes.size() != a.data.size())
        throw NpyError(where, fmt::format("expected {} bytes of data, found {}", t.bytes.size(),
                                          a.data.size()));
    if (!a.data.empty()) std::memcpy(t.bytes.data(), a.data.data(), a.data.size());
    return t;
}

TensorData readTensor(const std::filesystem::path& path) {
    return fromNpy(readNpy(path), path);
}

TensorFileType readTensorType(const std::filesystem::path& path) {
    const NpyHeader h = readNpyHeader(path);
    return ptoTypeOf(h.descr, h.trueDType, h.shape, path);
}

void writeTensor(const std::filesystem::path& path, const TensorData& t) {
    writeNpy(path, toNpy(t));
}

} // namespace pto
