// Element types of PTO tensors and tiles: names, sizes and parsing.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pto {

enum class DType : uint8_t { F32, F16, BF16, I8, I32, Bool };

inline constexpr int dtypeSize(DType d) {
    switch (d) {
    case DType::F32:
    case DType::I32:
        return 4;
    case DType::F16:
    case DType::BF16:
        return 2;
    case DType::I8:
    case DType::Bool:
        return 1;
    }
    return 0;
}

inline constexpr std::string_view dtypeName(DType d) {
    switch (d) {
    case DType::F32:
        return "f32";
    case DType::F16:
        return "f16";
    case DType::BF16:
        return "bf16";
    case DType::I8:
        return "i8";
    case DType::I32:
        return "i32";
    case DType::Bool:
        return "i1";
    }
    return "?";
}

inline constexpr bool isFloatType(DType d) {
    return d == DType::F32 || d == DType::F16 || d == DType::BF16;
}

inline constexpr std::optional<DType> parseDType(std::string_view s) {
    for (DType d : {DType::F32, DType::F16, DType::BF16, DType::I8, DType::I32, DType::Bool})
        if (dtypeName(d) == s) return d;
    return std::nullopt;
}

} // namespace pto
