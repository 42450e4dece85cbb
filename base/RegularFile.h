// Reading a file that must be a regular file: the one rule for .npy inputs and program sources.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace pto {

/// Why a path cannot be read as a regular file. what() is the reason without the path: "no such
/// file", "cannot open: Permission denied", "is a directory", "not a regular file (a FIFO)",
/// "larger than the limit of 256 MiB", "read error: …"; the caller names the path.
class RegularFileError : public std::runtime_error {
public:
    enum class Kind { Missing, Directory, NotRegular, TooLarge, Io };
    RegularFileError(Kind kind, const std::string& reason)
        : std::runtime_error(reason), m_kind(kind) {}
    Kind kind() const { return m_kind; }

private:
    Kind m_kind;
};

/// A regular file opened for reading. Opening never blocks: O_NONBLOCK keeps a FIFO from waiting
/// for a writer, and anything but a regular file (a directory, FIFO, socket or device such as
/// /dev/zero) is refused before a byte is read. Throws RegularFileError.
class RegularFile {
public:
    explicit RegularFile(const std::filesystem::path& path);
    ~RegularFile();
    RegularFile(const RegularFile&) = delete;
    RegularFile& operator=(const RegularFile&) = delete;

    /// The size fstat reported when the file was opened.
    uint64_t size() const { return m_size; }
    /// Reads up to `size` bytes at `offset`; returns how many there were.
    size_t readAt(uint64_t offset, void* out, size_t size) const;
    /// The whole file, read to its end (not only fstat's size: a file may grow, and some report
    /// 0), refused with Kind::TooLarge once it passes `maxBytes`.
    std::string readAll(uint64_t maxBytes) const;

private:
    int m_fd = -1;
    uint64_t m_size = 0;
};

/// "a FIFO", "a socket" or "a device": what a path that is not a regular file is.
std::string nonRegularKind(unsigned mode);

} // namespace pto
