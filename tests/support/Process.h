// Runs a command for a test and captures its exit code, stdout and stderr.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace pto::test {

struct ProcessResult {
    int exitCode = -1;
    std::string out;
    std::string err;
};

// Runs `command` through /bin/sh; stdout and stderr are captured through temp files.
ProcessResult runCommand(const std::string& command);

// True when /usr/bin/python3 can import every module named (space-separated).
bool pythonHas(const std::string& modules);
// pythonHas("numpy") and pythonHas("numpy torch"), asked once per process.
bool haveNumpy();
bool haveTorch();

// A fresh empty directory under the system temp dir, removed by the destructor.
class TempDir {
public:
    explicit TempDir(const std::string& prefix = "pto-test");
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return m_path; }
    std::filesystem::path operator/(const std::string& name) const { return m_path / name; }
    std::filesystem::path file(const std::string& name) const { return m_path / name; }
    // How many entries the directory holds (to check that no temp file was left behind).
    std::size_t entryCount() const;

private:
    std::filesystem::path m_path;
};

// Shell-quotes one argument.
std::string shellQuote(const std::string& arg);

#ifdef PTO_CLI
// The shell command `pto <args>` with the pto binary built with the tests (the test target's
// PTO_CLI definition).
inline std::string pto(const std::string& args) {
    return std::string(PTO_CLI) + " " + args;
}
#endif

} // namespace pto::test

// Skips the running GoogleTest test unless `have` holds; `why` names what is missing and for what.
#define PTO_SKIP_UNLESS(have, why)                                                                 \
    do {                                                                                           \
        if (!(have)) GTEST_SKIP() << why;                                                          \
    } while (false)
