// File system access for pto import with errors in the project's style ("<path>: <reason>"):
// what a path is, reading a whole file, listing a folder.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace pto::importer {

enum class PathKind { Missing, File, Folder, DanglingLink, Other };

/// What `path` is (symbolic links followed); ImportError naming the path and the system's
/// reason when that cannot be told (a link loop, a folder that cannot be searched).
PathKind pathKind(const std::filesystem::path& path);

/// `path` when it is a regular file, empty when nothing has that name; ImportError naming it
/// when the name is there but is a folder, a link to nothing or another kind of file.
std::filesystem::path existingFile(const std::filesystem::path& path);

/// The whole file; ImportError "<path>: cannot read the file: <reason>".
std::string readFileText(const std::filesystem::path& path);

/// The entries of a folder, sorted; ImportError "<dir>: cannot list the folder: <reason>".
std::vector<std::filesystem::path> listFolder(const std::filesystem::path& dir);

} // namespace pto::importer
