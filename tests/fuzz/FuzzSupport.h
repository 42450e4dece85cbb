// Helpers shared by the fuzz harnesses: the input as a temporary file, and loud failures.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>

namespace pto::fuzz {

/// The fuzz input written to a file of its own (in $TMPDIR, named after the process so parallel
/// fuzzers never share one), for readers that take a path. The file and any SQLite sidecar
/// (-journal, -wal, -shm) or .dtype sidecar beside it are removed on destruction.
class TempInput {
public:
    TempInput(const std::uint8_t* data, std::size_t size, std::string_view extension);
    ~TempInput();
    TempInput(const TempInput&) = delete;
    TempInput& operator=(const TempInput&) = delete;

    const std::filesystem::path& path() const { return m_path; }

private:
    std::filesystem::path m_path;
};

/// Reports a broken invariant with the harness name and aborts, so the fuzzer saves the input.
[[noreturn]] void fail(std::string_view harness, std::string_view what);

} // namespace pto::fuzz

/// The libFuzzer entry point every harness defines (also driven by ReplayMain.cpp).
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
