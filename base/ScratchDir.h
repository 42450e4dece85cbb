// A command's scratch directory under the system temp dir, removed with everything in it when
// the command is done, fails, or is ended by SIGINT, SIGTERM or SIGHUP.
#pragma once

#include <filesystem>
#include <string_view>

namespace pto {

/// "<temp dir>/<prefix>-<pid>-<n>", created new (a name that exists is skipped) and armed for
/// removal on a signal before it exists (base/TempFileRegistry.h); the destructor removes it.
/// Throws std::filesystem::filesystem_error when no directory can be made.
class ScratchDir {
public:
    explicit ScratchDir(std::string_view prefix);
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    const std::filesystem::path& path() const { return m_path; }

private:
    std::filesystem::path m_path;
    int m_slot = -1;
};

} // namespace pto
