// Comparison predicate names, the string form of applyCompare, the top-k row selection, prefix
// sums and scatter-add accumulation (see Semantics.h).
#include "compiler/ir/Semantics.h"

#include "compiler/ir/Scalar.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

namespace pto {
namespace {

constexpr std::array<std::string_view, 6> kPredNames = {"eq", "ne", "lt", "le", "gt", "ge"};

} // namespace

std::string_view cmpPredName(CmpPred pred) {
    const auto index = static_cast<size_t>(pred);
    return index < kPredNames.size() ? kPredNames[index] : std::string_view("?");
}

std::optional<CmpPred> parseCmpPred(std::string_view name) {
    for (size_t i = 0; i < kPredNames.size(); ++i)
        if (kPredNames[i] == name) return static_cast<CmpPred>(i);
    return std::nullopt;
}

bool applyCompare(std::string_view pred, float a, float b) {
    const std::optional<CmpPred> parsed = parseCmpPred(pred);
    return parsed && applyCompare(*parsed, a, b);
}

double elementKey(const std::byte* p, DType dtype) {
    if (dtype == DType::I32) {
        int32_t v = 0;
        std::memcpy(&v, p, 4);
        return double(v);
    }
    return double(loadElement(p, dtype));
}

void topkRow(const double* row, int64_t n, int64_t k, bool largest, int32_t* out) {
    // A total order: NaN above everything, then the value, then the lower position first.
    auto better = [&](int32_t a, int32_t b) {
        const double x = row[a], y = row[b];
        const bool nx = std::isnan(x), ny = std::isnan(y);
        if (nx != ny) return largest ? nx : ny;
        if (!nx && x != y) return largest ? x > y : x < y;
        return a < b;
    };
    std::vector<int32_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    k = std::clamp<int64_t>(k, 0, n);
    std::partial_sort(order.begin(), order.begin() + k, order.end(), better);
    std::copy(order.begin(), order.begin() + k, out);
}

namespace {

int32_t saturateI32(int64_t v) {
    return int32_t(std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(),
                                       std::numeric_limits<int32_t>::max()));
}

} // namespace

void cumsumLine(const std::byte* src, std::byte* dst, DType dtype, int64_t n, int64_t stride) {
    const size_t step = size_t(stride) * size_t(dtypeSize(dtype));
    if (dtype == DType::I32) {
        int64_t acc = 0;
        for (int64_t j = 0; j < n; ++j) {
            int32_t v = 0;
            std::memcpy(&v, src + size_t(j) * step, 4);
            acc += v;
            const int32_t out = saturateI32(acc);
            std::memcpy(dst + size_t(j) * step, &out, 4);
        }
        return;
    }
    float acc = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
        acc += loadElement(src + size_t(j) * step, dtype);
        storeElement(dst + size_t(j) * step, dtype, acc);
    }
}

void accumulateRow(std::byte* dst, const std::byte* src, DType dtype, int64_t n) {
    const size_t elem = size_t(dtypeSize(dtype));
    for (int64_t i = 0; i < n; ++i) {
        std::byte* d = dst + size_t(i) * elem;
        const std::byte* s = src + size_t(i) * elem;
        if (dtype == DType::I32) {
            int32_t a = 0, b = 0;
            std::memcpy(&a, d, 4);
            std::memcpy(&b, s, 4);
            const int32_t out = saturateI32(int64_t(a) + b);
            std::memcpy(d, &out, 4);
        } else {
            storeElement(d, dtype, loadElement(d, dtype) + loadElement(s, dtype));
        }
    }
}

} // namespace pto
