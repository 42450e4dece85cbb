// A file written under a temporary name beside its target and renamed over it only on commit.
#pragma once

#include <filesystem>

namespace pto::tracedb {

/// Until commit() the target path is untouched: either the old file or nothing stays there.
/// Destroyed without commit, it removes the temporary file. Errors name the target:
/// "cannot write trace file '<path>': <reason>".
class AtomicFile {
public:
    /// An empty temporary file "<target>.tmp-<pid>".
    static AtomicFile createEmpty(const std::filesystem::path& target);
    /// A temporary copy of the existing target.
    static AtomicFile copyOf(const std::filesystem::path& target);

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
    AtomicFile(std::filesystem::path target, std::filesystem::path temp);

    std::filesystem::path m_target;
    std::filesystem::path m_temp;
    bool m_active = true;
};

/// "<target>.tmp-<pid>": beside the target, so the final rename stays on one file system.
std::filesystem::path tempPathFor(const std::filesystem::path& target);

} // namespace pto::tracedb
