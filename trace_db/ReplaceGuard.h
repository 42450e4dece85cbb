// Before a command writes its output over an existing path: refuse a file that is not of the
// output's kind (a .pto program given as -o, a text file) and a file the command reads (the
// trace being exported), so a mistyped output never destroys a user's file.
#pragma once

#include <filesystem>
#include <string_view>

namespace pto::tracedb {

/// Throws TraceError unless `path` does not exist, is empty, or is an SQLite file holding the
/// table `ownTable` ("meta" for traces, "tune_meta" for tune files): `what` names the file kind
/// ("trace file") in the message, which says what the file is instead.
void requireReplaceable(const std::filesystem::path& path, std::string_view what,
                        std::string_view ownTable);

/// Throws TraceError when `output` names the file `input` names, by any path (./t.db, an
/// absolute path, a symlink, a hard link): writing it would destroy the input. `role` says
/// what the input is to the command: "-o 't.db' is the trace being exported ('./t.db'): it is
/// not replaced; give another output path". An empty `output` (standard output) passes. The one
/// rule of every command that writes a file beside the files it reads (export, whatif,
/// calibrate).
void requireNotInput(const std::filesystem::path& output, const std::filesystem::path& input,
                     std::string_view role);

} // namespace pto::tracedb
