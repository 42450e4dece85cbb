// A file written under a temporary name beside its target and renamed over it only on commit:
// the one atomic-file writer of the project (trace files, .npy files, exports).
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pto {

/// A failure to write an AtomicFile: "cannot write <what> '<target>': <reason>".
class FileWriteError : public std::runtime_error {
public:
    FileWriteError(std::string_view what, const std::filesystem::path& target, std::string reason);

    const std::filesystem::path& target() const { return m_target; }
    /// Why, without the target: "No such file or directory".
    const std::string& reason() const { return m_reason; }

private:
    std::filesystem::path m_target;
    std::string m_reason;
};

/// Until commit() the target path is untouched: either the old file or nothing stays there.
/// Errors are FileWriteError and name the target: "cannot write <what> '<path>': <reason>".
///
/// The temporary file is "<target>.tmp-<pid>-<n>", created with O_EXCL (a name left by an
/// earlier process with the same pid is skipped, never reused). A target name too long for
/// that suffix within the directory's NAME_MAX keeps its first bytes and a hash of the whole
/// name instead ("<first bytes>~<hash>.tmp-<pid>-<n>"), so any name the file system takes works. It
/// is removed when the AtomicFile is destroyed without commit, and when SIGINT, SIGTERM or SIGHUP
/// ends the process (a handler installed on first use where the signal has its default action
/// unlinks every armed temp file, then re-raises the signal). A temp file whose process is gone
/// (SIGKILL, a crash) is removed by the next AtomicFile created for the same target.
class AtomicFile {
public:
    /// An empty temporary file.
    static AtomicFile createEmpty(const std::filesystem::path& target, std::string_view what);
    /// A temporary copy of the existing target.
    static AtomicFile copyOf(const std::filesystem::path& target, std::string_view what);

    ~AtomicFile();
    AtomicFile(AtomicFile&& other) noexcept;
    AtomicFile& operator=(AtomicFile&&) = delete;
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    const std::filesystem::path& target() const { return m_target; }
    const std::filesystem::path& tempPath() const { return m_temp; }

    /// Flushes the temporary file to disk and renames it over the target. The file must be
    /// closed by its writer first.
    void commit();

private:
    AtomicFile(std::filesystem::path target, std::filesystem::path temp, std::string what,
               int slot);

    std::filesystem::path m_target;
    std::filesystem::path m_temp;
    std::string m_what;
    int m_slot = -1; ///< entry in the signal handler's list of temp files, -1 when none
    bool m_active = true;
};

/// Removes the temp files of `target` ("<target>.tmp-<pid>[-<n>]", or the shortened name
/// above) whose process no longer exists. Returns how many it removed.
int removeStaleTempFiles(const std::filesystem::path& target);

} // namespace pto
