// The search space of `pto tune`: parsed from a small text or JSON spec, checked, and
// enumerated into candidate configurations (docs/USER_GUIDE.md, "Tuning").
#pragma once

// A space is a list of dimensions, each a setting and the values it may take; the candidates
// are their Cartesian product, in the order the spec lists them (the last dimension varies
// fastest). Settings:
//   cube_tile        the matmuls' cube tile, global (every matmul of the entry)
//   cube_tile.%NAME  the cube tile of the matmul whose result is %NAME
//   vec_tile         the vector tile, global (one directive at the top of the entry)
//   vec_tile.%NAME   the vector tile of the op whose result is %NAME
//   tiles_per_task   --tiles-per-task (0 = spread over the cores)
//   double_buffer    true / false (--no-double-buffer)
//   arch.KEY         an arch override (`--set KEY=VALUE`)
// A tile value is `as_written` (the program's own directives), `default` (no directive: the
// compiler's default), or sizes: vec_tile one per dim, cube_tile [[mL0,mL1],[kL0,kL1],
// [nL0,nL1]] or the six numbers flat. cube_tile may also be an object of lists, expanded
// as a product: {"m": [64, 128], "k": [64], "n": [128, 256], "k_l1": [256]} (L1 sizes
// default to the L0 ones).
//
// JSON: {"cube_tile": [...], "tiles_per_task": [1, 2], "arch": {"hbm.bandwidth": ["2x"]}}.
// Text: one setting per line (or separated by ';'), values separated by '|', each value a
// JSON value or a bare word; '#' starts a comment:
//   cube_tile = [[64,64],[64,256],[128,128]] | default
//   tiles_per_task = 1 | 2 | 4
// Sizes and counts are integers (an integral float such as 2.0 is taken as one); a setting or
// a value given twice is refused (JSON keys too, which json::parse would silently overwrite).
// Candidate 0 is always the program as written (no setting changed), the baseline.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace pto {

/// A spec that cannot be used: the message says where (the setting, the value) and why.
class TuneSpaceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct TuneDimension {
    std::string setting;                // "cube_tile", "vec_tile.%e", "arch.hbm.bandwidth", …
    std::vector<nlohmann::json> values; // normalised (cube_tile: [[a,b],[c,d],[e,f]])
};

struct TuneSpace {
    std::vector<TuneDimension> dimensions;
    std::string text; ///< the spec as given (stored in the tune file)

    /// Number of candidates including candidate 0 (the program as written); the combination of
    /// every dimension's `as_written` value is that same program and not counted again.
    size_t candidateCount() const;
    /// The index among the dimensions' combinations (the last dimension fastest) where every
    /// dimension takes `as_written`, if each has that value.
    std::optional<size_t> asWrittenCombination() const;
    /// Candidate `id`'s configuration: an object of the settings it changes (empty for 0).
    nlohmann::json candidate(size_t id) const;
};

/// Hard limit on the candidates of one space.
inline constexpr size_t kMaxTuneCandidates = 100000;

/// Parses a spec (JSON when it starts with '{' or '[', else the text form); `where` names it
/// in messages ("space.json", "--space"). Throws TuneSpaceError.
TuneSpace parseTuneSpace(const std::string& text, const std::string& where);

/// Reads SPEC: a file if one exists at that path (a directory is refused as one), else inline
/// text when it holds '=' or '{' or starts with '['.
TuneSpace loadTuneSpace(const std::string& spec);

/// "cube_tile=[64,64],[64,256],[128,128] tiles_per_task=2", "as written" for {}.
std::string candidateLabel(const nlohmann::json& config);

} // namespace pto
