// What a candidate of `pto tune` changes in the program and its options: the tiling
// directives written into the program text, --tiles-per-task, double buffering, arch overrides.
#pragma once

#include "compiler/CompileState.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace pto {

/// The program text of a candidate: `source` with per-op tiles (`vec_tile.%e`, `cube_tile.%c`)
/// set as the ops' attributes and global tiles (`vec_tile`, `cube_tile`) as one directive of
/// the entry in place of the program's own directives of that kind (`default` removes them).
/// The source is edited in place, so comments, layout and line numbers stay as written: an
/// attribute is edited in the op's `{…}` (or a `{…}` appended to the op's line), the directive
/// replaces the entry's first one of its kind when that leads the entry, else it is put on the
/// line of the entry's `{`, and the other directives of its kind are blanked (their lines stay,
/// empty). The edited text is checked by parsing it against the module edited in memory; a form
/// the edits do not understand gives that module printed canonically instead (comments lost).
/// A config without tile settings gives `source` unchanged. Throws CompileError for a source
/// that does not parse and TuneSpaceError for a per-op setting naming no op of the entry.
std::string applyTileSettings(const std::string& source, const std::string& file,
                              const std::string& entry, const nlohmann::json& config);

/// Sets --tiles-per-task and double buffering from `config` and appends its arch overrides
/// ("key=value") to `archOverrides`.
void applyRunSettings(const nlohmann::json& config, CompileOptions& compile,
                      std::vector<std::string>& archOverrides);

/// Checks that every per-op setting of the space's candidates names an op result of the
/// entry of `source` (a `cube_tile.%c` a matmul), and that a global `cube_tile` has a matmul
/// (or a call) in the entry to apply to: TuneSpaceError naming the setting otherwise.
void checkOpSettings(const std::string& source, const std::string& file, const std::string& entry,
                     const std::vector<std::string>& settings);

} // namespace pto
