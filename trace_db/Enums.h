// The enumerated columns of the trace schema, each listed once with the text stored in the file.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace pto::tracedb {

// Each enum's names must match the CHECK constraint of its column in schema.sql; the
// round-trip test writes every value, so a mismatch fails there.

enum class StageLevel { Tensor, Tile, Block, Exec, Pto };
enum class TrackKind { Chip, Core, Pipe, Task, Counter };
enum class SliceCategory { Instr, Task, Stall, Wait };
enum class FlowKind { Flag, Dep };
enum class TensorRole { Input, Output, Golden, Intermediate };
enum class DiffKind { Tensor, Bisect, Op, Tile };
enum class StatSeverity { Info, DataLoss, Error };

/// kWhat names the column in error messages; kNames[i] is the stored text of value i.
template <typename E> struct EnumTraits;

template <> struct EnumTraits<StageLevel> {
    static constexpr std::string_view kWhat = "stage level";
    static constexpr std::array<std::string_view, 5> kNames{"tensor", "tile", "block", "exec",
                                                            "pto"};
};
template <> struct EnumTraits<TrackKind> {
    static constexpr std::string_view kWhat = "track kind";
    static constexpr std::array<std::string_view, 5> kNames{"chip", "core", "pipe", "task",
                                                            "counter"};
};
template <> struct EnumTraits<SliceCategory> {
    static constexpr std::string_view kWhat = "slice category";
    static constexpr std::array<std::string_view, 4> kNames{"instr", "task", "stall", "wait"};
};
template <> struct EnumTraits<FlowKind> {
    static constexpr std::string_view kWhat = "flow kind";
    static constexpr std::array<std::string_view, 2> kNames{"flag", "dep"};
};
template <> struct EnumTraits<TensorRole> {
    static constexpr std::string_view kWhat = "tensor role";
    static constexpr std::array<std::string_view, 4> kNames{"input", "output", "golden",
                                                            "intermediate"};
};
template <> struct EnumTraits<DiffKind> {
    static constexpr std::string_view kWhat = "diff kind";
    static constexpr std::array<std::string_view, 4> kNames{"tensor", "bisect", "op", "tile"};
};
template <> struct EnumTraits<StatSeverity> {
    static constexpr std::string_view kWhat = "stat severity";
    static constexpr std::array<std::string_view, 3> kNames{"info", "data_loss", "error"};
};

template <typename E>
concept TraceEnum = requires {
    EnumTraits<E>::kNames;
};

template <TraceEnum E> constexpr std::string_view enumName(E value) {
    return EnumTraits<E>::kNames[static_cast<std::size_t>(value)];
}

template <TraceEnum E> constexpr std::optional<E> parseEnum(std::string_view text) {
    const auto& names = EnumTraits<E>::kNames;
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == text) return static_cast<E>(i);
    return std::nullopt;
}

/// Every value of E, in declaration order (for tests and UI lists).
template <TraceEnum E> constexpr auto allEnumValues() {
    std::array<E, EnumTraits<E>::kNames.size()> values{};
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<E>(i);
    return values;
}

} // namespace pto::tracedb
