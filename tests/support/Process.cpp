// Command runner, Python availability and temp directories shared by the tests.
#include "tests/support/Process.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <sys/wait.h>

namespace pto::test {
namespace {

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

std::string shellQuote(const std::string& arg) {
    std::string out = "'";
    for (char c : arg) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

ProcessResult runCommand(const std::string& command) {
    TempDir dir("pto-cmd");
    auto out = dir / "out";
    auto err = dir / "err";
    std::string full = fmt::format("{} >{} 2>{} </dev/null", command, shellQuote(out.string()),
                                   shellQuote(err.string()));
    int status = std::system(full.c_str());
    ProcessResult r;
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
}

bool pythonHas(const std::string& modules) {
    std::string imports;
    std::istringstream in(modules);
    for (std::string m; in >> m;) imports += fmt::format("import {}; ", m);
    return std::system(fmt::format("/usr/bin/python3 -c {} >/dev/null 2>&1", shellQuote(imports))
                           .c_str()) == 0;
}

bool haveNumpy() {
    static const bool have = pythonHas("numpy");
    return have;
}

bool haveTorch() {
    static const bool have = haveNumpy() && pythonHas("torch");
    return have;
}

TempDir::TempDir(const std::string& prefix) {
    std::random_device rd;
    for (int attempt = 0; attempt < 100; ++attempt) {
        auto p = std::filesystem::temp_directory_path() / fmt::format("{}-{:08x}", prefix, rd());
        if (std::filesystem::create_directory(p)) {
            m_path = p;
            return;
        }
    }
    throw std::runtime_error("cannot create a temp directory");
}

TempDir::~TempDir() {
    std::error_code ec; // a test may have made the directory read-only
    std::filesystem::permissions(m_path, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(m_path, ec);
}

std::size_t TempDir::entryCount() const {
    return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(m_path),
                                                  std::filesystem::directory_iterator()));
}

} // namespace pto::test
