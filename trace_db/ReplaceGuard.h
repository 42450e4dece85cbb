// Before a trace or tune file is written over an existing path: refuse a file that is not one
// (a .pto program given as -o, a text file), so a mistyped output never destroys a user's file.
#pragma once

#include <filesystem>
#include <string_view>

namespace pto::tracedb {

/// Throws TraceError unless `path` does not exist, is empty, or is an SQLite file holding the
/// table `ownTable` ("meta" for traces, "tune_meta" for tune files): `what` names the file kind
/// ("trace file") in the message, which says what the file is instead.
void requireReplaceable(const std::filesystem::path& path, std::string_view what,
                        std::string_view ownTable);

} // namespace pto::tracedb
