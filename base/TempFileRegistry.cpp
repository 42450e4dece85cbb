// The temp files and scratch directories a process is writing, removed by a signal handler when
// SIGINT, SIGTERM or SIGHUP ends the process (AtomicFile's and ScratchDir's cleanup where no
// destructor runs).
#include "base/TempFileRegistry.h"

#include <array>
#include <atomic>
#include <climits>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/syscall.h>
#include <system_error>
#include <unistd.h>

namespace pto {
namespace {

/// Only lock-free atomics and async-signal-safe calls (unlink, open, getdents64, unlinkat,
/// rmdir) are used by the handler.
struct Slot {
    enum State : int { Free, Claimed, Armed };
    std::atomic<int> state{Free};
    bool isDir = false; ///< written before `state` becomes Armed
    char path[PATH_MAX] = {};
};
static_assert(std::atomic<int>::is_always_lock_free);

constexpr std::size_t kSlots = 64;
std::array<Slot, kSlots> g_slots;
constexpr std::array kSignals{SIGINT, SIGTERM, SIGHUP};

/// The kernel's directory entry as getdents64 returns it (opendir/readdir may allocate).
struct LinuxDirent64 {
    ino64_t d_ino;
    off64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[1];
};

bool isDotOrDotDot(const char* name) {
    return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

/// Removes what one pass over the open directory `fd` finds; returns whether it removed any.
bool removeEntries(int fd) {
    alignas(LinuxDirent64) char buffer[4096];
    bool removed = false;
    for (;;) {
        const long n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
        if (n <= 0) return removed;
        for (long at = 0; at < n;) {
            const auto* entry = reinterpret_cast<const LinuxDirent64*>(buffer + at);
            at += entry->d_reclen;
            if (isDotOrDotDot(entry->d_name)) continue;
            if (::unlinkat(fd, entry->d_name, 0) == 0 ||
                ::unlinkat(fd, entry->d_name, AT_REMOVEDIR) == 0)
                removed = true;
        }
    }
}

/// The directory and its files, in the handler. Removing entries while reading the directory
/// may skip some, so it is read again (from the start) while a pass removes anything.
void removeDirInHandler(const char* path) {
    const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        for (int pass = 0; pass < 8 && removeEntries(fd); ++pass) ::lseek(fd, 0, SEEK_SET);
        ::close(fd);
    }
    ::rmdir(path);
}

/// Set by the first handler to run. A second signal can reach another thread while the first
/// handler is still removing files (`timeout` sends its signal to the process and then to its
/// group): with the default action restored at entry it ended the process mid-cleanup, leaving
/// the files; now that thread waits for the first handler, which ends the process.
std::atomic<bool> g_cleaning{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void removeArmedTempFiles(int signal) {
    if (g_cleaning.exchange(true))
        for (;;) ::pause();
    int savedErrno = errno;
    for (Slot& slot : g_slots)
        if (slot.state.load(std::memory_order_acquire) == Slot::Armed && !slot.isDir)
            ::unlink(slot.path);
    for (Slot& slot : g_slots)
        if (slot.state.load(std::memory_order_acquire) == Slot::Armed && slot.isDir)
            removeDirInHandler(slot.path);
    errno = savedErrno;
    // End the process as the signal says: the default action, delivered when the handler
    // returns (the signal is blocked while it runs).
    struct sigaction byDefault {};
    byDefault.sa_handler = SIG_DFL;
    sigemptyset(&byDefault.sa_mask);
    ::sigaction(signal, &byDefault, nullptr);
    ::raise(signal);
}

void installHandlers() {
    for (int signal : kSignals) {
        struct sigaction current {};
        if (::sigaction(signal, nullptr, &current) != 0) continue;
        bool isDefault = (current.sa_flags & SA_SIGINFO) == 0 && current.sa_handler == SIG_DFL;
        if (!isDefault) continue;
        struct sigaction action {};
        action.sa_handler = removeArmedTempFiles;
        sigemptyset(&action.sa_mask);
        for (int other : kSignals) sigaddset(&action.sa_mask, other); // one at a time per thread
        ::sigaction(signal, &action, nullptr);
    }
}

int arm(const std::filesystem::path& temp, bool isDir) {
    static std::once_flag installed;
    std::call_once(installed, installHandlers);
    std::error_code error;
    const std::string path = std::filesystem::absolute(temp, error).string();
    if (error || path.size() >= PATH_MAX) return -1;
    for (std::size_t i = 0; i < kSlots; ++i) {
        int expected = Slot::Free;
        if (!g_slots[i].state.compare_exchange_strong(expected, Slot::Claimed)) continue;
        std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
        g_slots[i].isDir = isDir;
        g_slots[i].state.store(Slot::Armed, std::memory_order_release);
        return static_cast<int>(i);
    }
    return -1;
}

} // namespace

int armTempFile(const std::filesystem::path& temp) {
    return arm(temp, false);
}

int armTempDir(const std::filesystem::path& dir) {
    return arm(dir, true);
}

void disarmTempFile(int slot) {
    if (slot < 0 || static_cast<std::size_t>(slot) >= kSlots) return;
    g_slots[static_cast<std::size_t>(slot)].state.store(Slot::Free, std::memory_order_release);
}

} // namespace pto
