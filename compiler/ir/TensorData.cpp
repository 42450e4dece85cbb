// Bulk element conversion and seeded random filling of TensorData (see TensorData.h).
#include "compiler/ir/TensorData.h"

#include <cmath>
#include <stdexcept>

namespace pto {
namespace {

// SplitMix64 (Steele, Lea, Flood 2014): a tiny generator with a fixed, portable output
// sequence, unlike the std:: distributions whose algorithms are implementation-defined.
class SplitMix64 {
public:
    explicit SplitMix64(uint64_t seed) : m_state(seed) {}
    uint64_t next() {
        uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // Uniform in [0, 1) with 53 random bits.
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }

private:
    uint64_t m_state;
};

void fillFloats(TensorData& t, SplitMix64& rng, RandomRange range) {
    const int64_t n = t.numel();
    for (int64_t i = 0; i < n; ++i) {
        const double v = range.lo + rng.uniform() * (range.hi - range.lo);
        t.set(i, static_cast<float>(v));
    }
}

void fillIntegers(TensorData& t, SplitMix64& rng, RandomRange range) {
    const auto lo = static_cast<int64_t>(std::ceil(range.lo));
    const auto hi = static_cast<int64_t>(std::floor(range.hi));
    const uint64_t span = hi >= lo ? uint64_t(hi - lo) + 1 : 1;
    const int64_t n = t.numel();
    for (int64_t i = 0; i < n; ++i) {
        const int64_t v = lo + static_cast<int64_t>(rng.next() % span);
        t.set(i, static_cast<float>(v));
    }
}

} // namespace

TensorData::TensorData(DType type, Shape dims)
    : dtype(type), shape(dims), bytes(size_t(dims.numel() * dtypeSize(type))) {}

std::vector<float> TensorData::toFloats() const {
    std::vector<float> out(static_cast<size_t>(numel()));
    loadFloats(out.data());
    return out;
}

void TensorData::loadFloats(float* out) const {
    convertRowToFloat(bytes.data(), dtype, out, numel());
}

void TensorData::storeFloats(const float* values, RoundMode mode) {
    convertRowFromFloat(values, dtype, bytes.data(), numel(), mode);
}

TensorData TensorData::fromFloats(DType type, Shape dims, std::span<const float> values,
                                  RoundMode mode) {
    TensorData t(type, dims);
    if (int64_t(values.size()) != t.numel())
        throw std::invalid_argument("TensorData::fromFloats: " + std::to_string(values.size()) +
                                    " values for a tensor of " + typeString(type, dims));
    t.storeFloats(values.data(), mode);
    return t;
}

std::string typeString(DType dtype, const Shape& shape) {
    std::string s = shape.str();
    if (!s.empty()) s += 'x';
    s += dtypeName(dtype);
    return s;
}

RandomRange defaultRandomRange(DType dtype) {
    switch (dtype) {
    case DType::I8:
        return {-128.0, 127.0};
    case DType::I32:
        return {-1000.0, 1000.0};
    case DType::Bool:
        return {0.0, 1.0};
    default:
        return {-1.0, 1.0};
    }
}

void fillRandom(TensorData& t, uint64_t seed, RandomRange range) {
    SplitMix64 rng(seed);
    switch (t.dtype) {
    case DType::F32:
    case DType::F16:
    case DType::BF16:
        fillFloats(t, rng, range);
        return;
    case DType::I8:
    case DType::I32:
        fillIntegers(t, rng, range);
        return;
    case DType::Bool:
        fillIntegers(t, rng, {0.0, 1.0});
        return;
    }
}

TensorData randomTensor(DType dtype, Shape shape, uint64_t seed) {
    return randomTensor(dtype, shape, seed, defaultRandomRange(dtype));
}

TensorData randomTensor(DType dtype, Shape shape, uint64_t seed, RandomRange range) {
    TensorData t(dtype, shape);
    fillRandom(t, seed, range);
    return t;
}

} // namespace pto
