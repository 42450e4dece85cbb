// Regular files opened without blocking and read within a size limit.
#include "base/RegularFile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <optional>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace pto {
namespace {

using Kind = RegularFileError::Kind;

std::string errnoText(int err) {
    return std::generic_category().message(err);
}

std::string bytesText(uint64_t bytes) {
    if (bytes >= (uint64_t(1) << 30) && bytes % (uint64_t(1) << 30) == 0)
        return fmt::format("{} GiB", bytes >> 30);
    if (bytes >= (uint64_t(1) << 20) && bytes % (uint64_t(1) << 20) == 0)
        return fmt::format("{} MiB", bytes >> 20);
    if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes >> 10);
    return fmt::format("{} bytes", bytes);
}

} // namespace

std::string nonRegularKind(unsigned mode) {
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    return "a device";
}

RegularFile::RegularFile(const std::filesystem::path& path) {
    m_fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (m_fd < 0) {
        const int err = errno;
        if (err == ENOENT) throw RegularFileError(Kind::Missing, "no such file");
        throw RegularFileError(Kind::Io, fmt::format("cannot open: {}", errnoText(err)));
    }
    struct stat st {};
    std::optional<RegularFileError> refusal;
    if (::fstat(m_fd, &st) != 0)
        refusal.emplace(Kind::Io, fmt::format("cannot access: {}", errnoText(errno)));
    else if (S_ISDIR(st.st_mode))
        refusal.emplace(Kind::Directory, "is a directory");
    else if (!S_ISREG(st.st_mode))
        refusal.emplace(Kind::NotRegular,
                        fmt::format("not a regular file ({})", nonRegularKind(st.st_mode)));
    if (refusal) {
        ::close(m_fd);
        throw *refusal;
    }
    m_size = static_cast<uint64_t>(st.st_size);
}

RegularFile::~RegularFile() {
    ::close(m_fd);
}

size_t RegularFile::readAt(uint64_t offset, void* out, size_t size) const {
    size_t done = 0;
    while (done < size) {
        const ssize_t n = ::pread(m_fd, static_cast<char*>(out) + done, size - done,
                                  static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0)
            throw RegularFileError(Kind::Io, fmt::format("read error: {}", errnoText(errno)));
        if (n == 0) break;
        done += static_cast<size_t>(n);
    }
    return done;
}

std::string RegularFile::readAll(uint64_t maxBytes) const {
    maxBytes = std::min<uint64_t>(maxBytes, UINT64_MAX - 1);
    auto tooLarge = [&] {
        return RegularFileError(Kind::TooLarge,
                                fmt::format("larger than the limit of {}", bytesText(maxBytes)));
    };
    if (m_size > maxBytes) throw tooLarge();
    // To the end, not to fstat's size (a file may grow; /proc files report 0), and never more
    // than maxBytes + 1 bytes. The first read asks one byte more than the size to see the end.
    std::string text;
    uint64_t next = m_size + 1;
    while (true) {
        const size_t had = text.size();
        const size_t want = static_cast<size_t>(std::min<uint64_t>(next, maxBytes + 1 - had));
        text.resize(had + want);
        const size_t got = readAt(had, text.data() + had, want);
        text.resize(had + got);
        if (text.size() > maxBytes) throw tooLarge();
        if (got < want) return text;
        next = 64 * 1024;
    }
}

} // namespace pto
