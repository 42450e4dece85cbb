// A file written under a temporary name beside its target and renamed over it only on commit.
#include "base/AtomicFile.h"

#include "base/TempFileRegistry.h"
#include "base/Utf8.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <system_error>
#include <unistd.h>
#include <utility>

namespace pto {
namespace {

namespace fs = std::filesystem;

/// Temp names created without a collision in this process have distinct numbers.
std::atomic<unsigned> g_nextTempNumber{0};
constexpr int kNameAttempts = 1000;

[[noreturn]] void failWrite(std::string_view what, const fs::path& target,
                            std::string_view reason) {
    throw FileWriteError(what, target, std::string(reason));
}

/// fsync, so that after the rename a crash cannot leave a file whose pages never reached disk.
void syncFile(const fs::path& file, std::string_view what, const fs::path& target) {
    int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) failWrite(what, target, std::strerror(errno));
    int rc = ::fsync(fd);
    int savedErrno = errno;
    ::close(fd);
    if (rc != 0) failWrite(what, target, std::strerror(savedErrno));
}

fs::path directoryOf(const fs::path& target) {
    return target.parent_path().empty() ? fs::path(".") : target.parent_path();
}

/// The longest ".tmp-<pid>-<n>": a pid and a number of up to 10 digits each.
constexpr std::size_t kTempSuffixBytes = 5 + 10 + 1 + 10;

/// The longest file name the directory takes (NAME_MAX: 255 on most file systems).
std::size_t maxNameBytes(const fs::path& dir) {
    const long bytes = ::pathconf(dir.c_str(), _PC_NAME_MAX);
    return bytes > 0 ? std::size_t(bytes) : 255;
}

/// FNV-1a: the same 32 bits for a name in every process and build.
std::uint32_t nameHash(std::string_view name) {
    std::uint32_t hash = 2166136261u;
    for (unsigned char c : name) hash = (hash ^ c) * 16777619u;
    return hash;
}

/// What a temp name starts with before ".tmp-<pid>-<n>": the target's file name, or, when the
/// suffix would take the name past the directory's NAME_MAX, its first bytes (whole UTF-8
/// characters) and "~<hash of the whole name>". Every name the file system takes as a target
/// then has a temp name (a 250-byte name failed with "File name too long").
std::string tempStem(const fs::path& target) {
    const std::string name = target.filename().string();
    const std::size_t maxBytes = maxNameBytes(directoryOf(target));
    if (name.size() + kTempSuffixBytes <= maxBytes) return name;
    const std::string hash = fmt::format("~{:08x}", nameHash(name));
    const std::size_t room = maxBytes - std::min(maxBytes, kTempSuffixBytes + hash.size());
    return name.substr(0, utf8Prefix(name, room)) + hash;
}

/// The pid of a temp name's suffix "<pid>" or "<pid>-<n>"; nullopt when it is not one.
std::optional<pid_t> pidOfSuffix(std::string_view suffix) {
    std::size_t dash = suffix.find('-');
    std::string_view pidText = suffix.substr(0, dash);
    if (dash != std::string_view::npos) {
        std::string_view number = suffix.substr(dash + 1);
        if (number.empty() || number.find_first_not_of("0123456789") != std::string_view::npos)
            return std::nullopt;
    }
    pid_t pid = 0;
    auto [end, error] = std::from_chars(pidText.data(), pidText.data() + pidText.size(), pid);
    if (error != std::errc() || end != pidText.data() + pidText.size() || pid <= 0)
        return std::nullopt;
    return pid;
}

bool processExists(pid_t pid) {
    return ::kill(pid, 0) == 0 || errno == EPERM;
}

struct ArmedTemp {
    fs::path path;
    int slot = -1;
};

/// Creates a new, empty "<stem>.tmp-<pid>-<n>" beside the target with O_EXCL, armed for removal on
/// a signal before it exists (so no signal leaves it behind); returns it with its slot.
ArmedTemp createUniqueTemp(const fs::path& target, std::string_view what) {
    const fs::path stem = target.parent_path() / tempStem(target);
    for (int attempt = 0; attempt < kNameAttempts; ++attempt) {
        fs::path temp = stem;
        temp += fmt::format(".tmp-{}-{}", ::getpid(), g_nextTempNumber.fetch_add(1));
        const int slot = armTempFile(temp);
        int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            ::close(fd);
            return {temp, slot};
        }
        const int savedErrno = errno;
        disarmTempFile(slot);
        if (savedErrno != EEXIST) failWrite(what, target, std::strerror(savedErrno));
    }
    failWrite(what, target, "no free temporary file name beside it");
}

} // namespace

FileWriteError::FileWriteError(std::string_view what, const fs::path& target, std::string reason)
    : std::runtime_error(fmt::format("cannot write {} '{}': {}", what, target.string(), reason)),
      m_target(target), m_reason(std::move(reason)) {}

int removeStaleTempFiles(const fs::path& target) {
    const std::string prefix = tempStem(target) + ".tmp-";
    int removed = 0;
    std::error_code error;
    for (fs::directory_iterator it(directoryOf(target), error), end; !error && it != end;
         it.increment(error)) {
        const std::string name = it->path().filename().string();
        if (!name.starts_with(prefix)) continue;
        const std::optional<pid_t> pid = pidOfSuffix(std::string_view(name).substr(prefix.size()));
        std::error_code ignored;
        if (!pid || processExists(*pid) || !it->is_regular_file(ignored)) continue;
        if (fs::remove(it->path(), ignored)) ++removed;
    }
    return removed;
}

AtomicFile::AtomicFile(fs::path target, fs::path temp, std::string what, int slot)
    : m_target(std::move(target)), m_temp(std::move(temp)), m_what(std::move(what)), m_slot(slot) {}

AtomicFile AtomicFile::createEmpty(const fs::path& target, std::string_view what) {
    removeStaleTempFiles(target);
    ArmedTemp temp = createUniqueTemp(target, what);
    return AtomicFile(target, std::move(temp.path), std::string(what), temp.slot);
}

AtomicFile AtomicFile::copyOf(const fs::path& target, std::string_view what) {
    AtomicFile file = createEmpty(target, what);
    std::error_code error;
    fs::copy_file(target, file.m_temp, fs::copy_options::overwrite_existing, error);
    if (error) failWrite(what, target, error.message());
    return file;
}

AtomicFile::~AtomicFile() {
    if (!m_active) return;
    std::error_code ignored;
    fs::remove(m_temp, ignored);
    disarmTempFile(m_slot);
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : m_target(std::move(other.m_target)), m_temp(std::move(other.m_temp)),
      m_what(std::move(other.m_what)), m_slot(std::exchange(other.m_slot, -1)),
      m_active(std::exchange(other.m_active, false)) {}

void AtomicFile::commit() {
    syncFile(m_temp, m_what, m_target);
    std::error_code error;
    fs::rename(m_temp, m_target, error);
    if (error) failWrite(m_what, m_target, error.message());
    m_active = false;
    disarmTempFile(m_slot);
    // Make the rename itself durable; a failure here leaves a complete file, so it is ignored.
    if (int fd = ::open(directoryOf(m_target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

} // namespace pto
