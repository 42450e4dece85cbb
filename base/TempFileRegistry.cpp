// The temp files a process is writing, removed by a signal handler when SIGINT, SIGTERM or
// SIGHUP ends the process (AtomicFile's cleanup where no destructor runs).
#include "base/TempFileRegistry.h"

#include <array>
#include <atomic>
#include <climits>
#include <csignal>
#include <cstring>
#include <mutex>
#include <system_error>
#include <unistd.h>

namespace pto {
namespace {

/// Only lock-free atomics and unlink() are touched from the handler (async-signal-safe).
struct Slot {
    enum State : int { Free, Claimed, Armed };
    std::atomic<int> state{Free};
    char path[PATH_MAX] = {};
};
static_assert(std::atomic<int>::is_always_lock_free);

constexpr std::size_t kSlots = 64;
std::array<Slot, kSlots> g_slots;
constexpr std::array kSignals{SIGINT, SIGTERM, SIGHUP};

extern "C" void removeArmedTempFiles(int signal) {
    int savedErrno = errno;
    for (Slot& slot : g_slots)
        if (slot.state.load(std::memory_order_acquire) == Slot::Armed) ::unlink(slot.path);
    errno = savedErrno;
    // SA_RESETHAND already restored the default action; end the process as the signal says.
    std::signal(signal, SIG_DFL);
    std::raise(signal);
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
        action.sa_flags = SA_RESETHAND;
        ::sigaction(signal, &action, nullptr);
    }
}

} // namespace

int armTempFile(const std::filesystem::path& temp) {
    static std::once_flag installed;
    std::call_once(installed, installHandlers);
    std::error_code error;
    const std::string path = std::filesystem::absolute(temp, error).string();
    if (error || path.size() >= PATH_MAX) return -1;
    for (std::size_t i = 0; i < kSlots; ++i) {
        int expected = Slot::Free;
        if (!g_slots[i].state.compare_exchange_strong(expected, Slot::Claimed)) continue;
        std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
        g_slots[i].state.store(Slot::Armed, std::memory_order_release);
        return static_cast<int>(i);
    }
    return -1;
}

void disarmTempFile(int slot) {
    if (slot < 0 || static_cast<std::size_t>(slot) >= kSlots) return;
    g_slots[static_cast<std::size_t>(slot)].state.store(Slot::Free, std::memory_order_release);
}

} // namespace pto
