// File system access for pto import with errors that name the path and the reason.
#include "importer/InputFiles.h"

#include "base/RegularFile.h"

#include "importer/ImportError.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace pto::importer {

namespace fs = std::filesystem;

PathKind pathKind(const fs::path& path) {
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
        throw ImportError(fmt::format("{}: {}", path.string(), ec.message()));
    if (status.type() == fs::file_type::not_found || ec) {
        std::error_code linkEc;
        return fs::is_symlink(fs::symlink_status(path, linkEc)) ? PathKind::DanglingLink
                                                                : PathKind::Missing;
    }
    if (status.type() == fs::file_type::regular) return PathKind::File;
    if (status.type() == fs::file_type::directory) return PathKind::Folder;
    return PathKind::Other;
}

fs::path existingFile(const fs::path& path) {
    switch (pathKind(path)) {
    case PathKind::Missing:
        return {};
    case PathKind::File:
        return path;
    case PathKind::Folder:
        throw ImportError(fmt::format("{}: a folder, not a file; expected the profiler's file of "
                                      "that name (or remove it to import the other files)",
                                      path.string()));
    case PathKind::DanglingLink: {
        std::error_code ec;
        throw ImportError(fmt::format("{}: a symbolic link to '{}', which does not exist",
                                      path.string(), fs::read_symlink(path, ec).string()));
    }
    default:
        throw ImportError(fmt::format("{}: not a regular file", path.string()));
    }
}

// Far above any profiler output file read whole (trace_view.json of a long run is ~1 GB).
constexpr std::uint64_t kMaxProfilerFileBytes = 8ull << 30;

std::string readFileText(const fs::path& path) {
    if (pathKind(path) == PathKind::Folder)
        throw ImportError(fmt::format("{}: a folder, not a file", path.string()));
    // A regular file only (base/RegularFile): a FIFO named like a profiler file waited for ever.
    try {
        return RegularFile(path).readAll(kMaxProfilerFileBytes);
    } catch (const RegularFileError& e) {
        throw ImportError(fmt::format("{}: cannot read the file: {}", path.string(), e.what()));
    }
}

std::vector<fs::path> listFolder(const fs::path& dir) {
    std::error_code ec;
    std::vector<fs::path> entries;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        entries.push_back(it->path());
    if (ec)
        throw ImportError(
            fmt::format("{}: cannot list the folder: {}", dir.string(), ec.message()));
    std::sort(entries.begin(), entries.end());
    return entries;
}

} // namespace pto::importer
