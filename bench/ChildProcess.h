// Runs the `pto` binary in a child process for the CLI benchmarks: its wall time is the
// benchmark's, and wait4 gives its peak RSS and CPU time.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

namespace pto::bench {

struct ChildUsage {
    double peakRssMib = -1; // -1: the command failed
    double cpuSeconds = 0;  // user + system
};

/// Runs PTO_CLI with `args` (stdout to /dev/null); its usage, or peakRssMib -1 when it did not
/// exit with 0.
// `worstExit`: the highest exit status that counts as success (`pto report` exits 1 when it
// has a warning).
inline ChildUsage runPto(const std::vector<std::string>& args, int worstExit = 0) {
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(PTO_CLI));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        if (FILE* null = std::freopen("/dev/null", "w", stdout); null == nullptr) _exit(126);
        execv(PTO_CLI, argv.data());
        _exit(127);
    }
    int status = 0;
    rusage usage{};
    if (pid < 0 || wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) > worstExit)
        return {};
    auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
    return {double(usage.ru_maxrss) / 1024.0, seconds(usage.ru_utime) + seconds(usage.ru_stime)};
}

} // namespace pto::bench
