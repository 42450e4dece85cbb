// Helpers shared by the fuzz harnesses: the input as a temporary file, and loud failures.
#include "tests/fuzz/FuzzSupport.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <system_error>
#include <unistd.h>

namespace pto::fuzz {

TempInput::TempInput(const std::uint8_t* data, std::size_t size, std::string_view extension) {
    m_path = std::filesystem::temp_directory_path() /
             ("pto-fuzz-" + std::to_string(::getpid()) + std::string(extension));
    std::ofstream out(m_path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out.flush()) fail("TempInput", "cannot write " + m_path.string());
}

TempInput::~TempInput() {
    std::error_code ignored;
    for (const char* suffix : {"", "-journal", "-wal", "-shm", ".dtype"})
        std::filesystem::remove(m_path.string() + suffix, ignored);
}

void fail(std::string_view harness, std::string_view what) {
    std::fprintf(stderr, "%.*s: %.*s\n", int(harness.size()), harness.data(), int(what.size()),
                 what.data());
    std::abort();
}

} // namespace pto::fuzz
