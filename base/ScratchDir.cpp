// A command's scratch directory, removed when done and on SIGINT/SIGTERM/SIGHUP.
#include "base/ScratchDir.h"

#include "base/TempFileRegistry.h"

#include <fmt/format.h>

#include <atomic>
#include <system_error>
#include <unistd.h>

namespace pto {
namespace {

namespace fs = std::filesystem;

std::atomic<unsigned> g_nextNumber{0};
constexpr int kNameAttempts = 1000;

} // namespace

ScratchDir::ScratchDir(std::string_view prefix) {
    const fs::path base = fs::temp_directory_path();
    for (int attempt = 0; attempt < kNameAttempts; ++attempt) {
        fs::path dir = base / fmt::format("{}-{}-{}", prefix, ::getpid(), g_nextNumber++);
        const int slot = armTempDir(dir);
        std::error_code error;
        if (fs::create_directory(dir, error)) {
            m_path = std::move(dir);
            m_slot = slot;
            return;
        }
        disarmTempFile(slot);
        if (error) throw fs::filesystem_error("cannot create a scratch directory", dir, error);
    }
    throw fs::filesystem_error("no free scratch directory name", base,
                               std::make_error_code(std::errc::file_exists));
}

ScratchDir::~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(m_path, ignored);
    disarmTempFile(m_slot);
}

} // namespace pto
