// Names of the NPU's memory spaces, pipes and core types, shared by every IR level.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pto {

// Where a tile lives. GM is off-chip global memory; the rest are per-core buffers.
enum class MemSpace : uint8_t { None, GM, L1, L0A, L0B, L0C, UB };
inline constexpr int kMemSpaceCount = 7;

// Execution pipes of a core (Ascend C naming). S is the scalar unit that also runs flags.
enum class Pipe : uint8_t { S, MTE1, MTE2, MTE3, M, V, FIX };
inline constexpr int kPipeCount = 7;

// Cube cores (AIC) run matmuls; vector cores (AIV) run elementwise work.
enum class CoreType : uint8_t { None, AIC, AIV };

inline constexpr std::string_view memSpaceName(MemSpace s) {
    constexpr std::string_view kNames[] = {"none", "GM", "L1", "L0A", "L0B", "L0C", "UB"};
    return kNames[static_cast<int>(s)];
}

inline constexpr std::string_view pipeName(Pipe p) {
    constexpr std::string_view kNames[] = {"S", "MTE1", "MTE2", "MTE3", "M", "V", "FIX"};
    return kNames[static_cast<int>(p)];
}

inline constexpr std::string_view coreTypeName(CoreType c) {
    constexpr std::string_view kNames[] = {"none", "aic", "aiv"};
    return kNames[static_cast<int>(c)];
}

// The core type as messages, tracks and the timeline name it: "AIC" / "AIV" (the listing
// syntax is coreTypeName's lower case).
inline constexpr std::string_view coreDisplayName(CoreType c) {
    constexpr std::string_view kNames[] = {"none", "AIC", "AIV"};
    return kNames[static_cast<int>(c)];
}

inline constexpr std::optional<MemSpace> parseMemSpace(std::string_view s) {
    for (int i = 0; i < kMemSpaceCount; ++i)
        if (memSpaceName(MemSpace(i)) == s) return MemSpace(i);
    return std::nullopt;
}

inline constexpr std::optional<Pipe> parsePipe(std::string_view s) {
    for (int i = 0; i < kPipeCount; ++i)
        if (pipeName(Pipe(i)) == s) return Pipe(i);
    return std::nullopt;
}

inline constexpr std::optional<CoreType> parseCoreType(std::string_view s) {
    for (int i = 0; i < 3; ++i)
        if (coreTypeName(CoreType(i)) == s) return CoreType(i);
    return std::nullopt;
}

// The pipes a core type has (910B "separated" architecture).
inline constexpr bool coreHasPipe(CoreType c, Pipe p) {
    switch (p) {
    case Pipe::S:
    case Pipe::MTE2:
    case Pipe::MTE3:
        return true;
    case Pipe::MTE1:
    case Pipe::M:
    case Pipe::FIX:
        return c == CoreType::AIC;
    case Pipe::V:
        return c == CoreType::AIV;
    }
    return false;
}

// The memory spaces a core type has (GM: every core; UB: AIV; L1 and L0A/B/C: AIC).
inline constexpr bool coreHasSpace(CoreType c, MemSpace s) {
    switch (s) {
    case MemSpace::GM:
        return true;
    case MemSpace::UB:
        return c == CoreType::AIV;
    case MemSpace::L1:
    case MemSpace::L0A:
    case MemSpace::L0B:
    case MemSpace::L0C:
        return c == CoreType::AIC;
    case MemSpace::None:
        break;
    }
    return false;
}

} // namespace pto
