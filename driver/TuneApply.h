// What a candidate of `pto tune` changes in the program and its options: the tiling
// directives written into the program text, --tiles-per-task, double buffering, arch overrides.
#pragma once

#include "compiler/CompileState.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace pto {

/// The program text of a candidate: `source` parsed, per-op tiles (`vec_tile.%e`,
/// `cube_tile.%c`) set as the ops' attributes, and global tiles (`vec_tile`, `cube_tile`)
/// written as one directive at the top of the entry function in place of the program's own
/// directives of that kind (`default` removes them). A config without tile settings gives
/// `source` unchanged; otherwise the module is printed canonically (comments are not kept).
/// Throws CompileError for a source that does not parse and TuneSpaceError for a per-op
/// setting naming no op of the entry.
std::string applyTileSettings(const std::string& source, const std::string& file,
                              const std::string& entry, const nlohmann::json& config);

/// Sets --tiles-per-task and double buffering from `config` and appends its arch overrides
/// ("key=value") to `archOverrides`.
void applyRunSettings(const nlohmann::json& config, CompileOptions& compile,
                      std::vector<std::string>& archOverrides);

/// Checks that every per-op setting of the space's candidates names an op result of the
/// entry of `source` (TuneSpaceError naming the setting otherwise).
void checkOpSettings(const std::string& source, const std::string& file, const std::string& entry,
                     const std::vector<std::string>& settings);

} // namespace pto
