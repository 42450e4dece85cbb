// Runs a command for a test and captures its exit code, stdout and stderr.
#pragma once

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

// A fresh empty directory under the system temp dir, removed by the destructor.
class TempDir {
public:
    explicit TempDir(const std::string& prefix = "pto-test");
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return m_path; }
    std::filesystem::path operator/(const std::string& name) const { return m_path / name; }

private:
    std::filesystem::path m_path;
};

// Shell-quotes one argument.
std::string shellQuote(const std::string& arg);

} // namespace pto::test
