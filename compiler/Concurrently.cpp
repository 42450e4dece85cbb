// Running a few independent compiles at once (Concurrently.h).
#include "compiler/Concurrently.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace pto {

void forEachConcurrently(int64_t n, unsigned threads, const std::function<void(int64_t)>& fn) {
    std::vector<std::exception_ptr> errors(size_t(std::max<int64_t>(n, 0)));
    std::atomic<int64_t> next{0};
    auto work = [&] {
        for (int64_t i = next++; i < n; i = next++) {
            try {
                fn(i);
            } catch (...) {
                errors[size_t(i)] = std::current_exception();
            }
        }
    };
    std::vector<std::thread> helpers;
    const int64_t extra = std::min<int64_t>(int64_t(std::max(threads, 1u)), n) - 1;
    try {
        for (int64_t t = 0; t < extra; ++t) helpers.emplace_back(work);
    } catch (const std::system_error&) {
        // No more threads to be had (a process or container limit): the ones started and the
        // calling thread do the rest.
    }
    work();
    for (std::thread& h : helpers) h.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
}

unsigned probeThreads(unsigned wanted) {
    return std::clamp(std::thread::hardware_concurrency(), 1u, std::max(wanted, 1u));
}

} // namespace pto
