// A file written under a temporary name beside its target and renamed over it only on commit.
#include "trace_db/AtomicFile.h"

#include "trace_db/TraceError.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <string_view>
#include <system_error>
#include <unistd.h>
#include <utility>

namespace pto::tracedb {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void failWrite(const fs::path& target, std::string_view reason) {
    throw TraceError(fmt::format("cannot write trace file '{}': {}", target.string(), reason));
}

std::string alreadyExists(const fs::path& temp) {
    return fmt::format("'{}' already exists (another writer of this file in this process, or "
                       "left by a crash: remove it)",
                       temp.string());
}

/// fsync, so that after the rename a crash cannot leave a file whose pages never reached disk.
void syncFile(const fs::path& file, int openFlags, const fs::path& target) {
    int fd = ::open(file.c_str(), openFlags | O_CLOEXEC);
    if (fd < 0) failWrite(target, std::strerror(errno));
    int rc = ::fsync(fd);
    int savedErrno = errno;
    ::close(fd);
    if (rc != 0) failWrite(target, std::strerror(savedErrno));
}

} // namespace

fs::path tempPathFor(const fs::path& target) {
    fs::path temp = target;
    temp += fmt::format(".tmp-{}", ::getpid());
    return temp;
}

AtomicFile::AtomicFile(fs::path target, fs::path temp)
    : m_target(std::move(target)), m_temp(std::move(temp)) {}

AtomicFile AtomicFile::createEmpty(const fs::path& target) {
    fs::path temp = tempPathFor(target);
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) failWrite(target, errno == EEXIST ? alreadyExists(temp) : std::strerror(errno));
    ::close(fd);
    return AtomicFile(target, temp);
}

AtomicFile AtomicFile::copyOf(const fs::path& target) {
    fs::path temp = tempPathFor(target);
    std::error_code error;
    if (fs::exists(temp, error)) failWrite(target, alreadyExists(temp));
    AtomicFile file(target, temp);
    fs::copy_file(target, temp, fs::copy_options::none, error);
    if (error) failWrite(target, error.message());
    return file;
}

AtomicFile::~AtomicFile() {
    if (!m_active) return;
    std::error_code ignored;
    fs::remove(m_temp, ignored);
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : m_target(std::move(other.m_target)), m_temp(std::move(other.m_temp)),
      m_active(std::exchange(other.m_active, false)) {}

void AtomicFile::commit() {
    syncFile(m_temp, O_RDONLY, m_target);
    std::error_code error;
    fs::rename(m_temp, m_target, error);
    if (error) failWrite(m_target, error.message());
    m_active = false;
    // Make the rename itself durable; a failure here leaves a complete file, so it is ignored.
    fs::path directory = m_target.parent_path().empty() ? "." : m_target.parent_path();
    if (int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

} // namespace pto::tracedb
