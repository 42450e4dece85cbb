// Re-executing `pto` with glibc's malloc asking for transparent huge pages.
#include "cli/HugePages.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include <unistd.h>

namespace pto::cli {
namespace {

// "always [madvise] never": the mode in brackets is the one in force.
bool thpOnlyWhenAdvised() {
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string modes;
    std::getline(in, modes);
    return modes.find("[madvise]") != std::string::npos;
}

} // namespace

void reexecWithHugePages(char** argv) {
    if (std::getenv("GLIBC_TUNABLES")) return; // the user's choice (or we already re-executed)
    if (const char* off = std::getenv("PTO_HUGE_PAGES"); off && std::strcmp(off, "0") == 0) return;
    if (!thpOnlyWhenAdvised()) return;
    // top_pad: the heap grows 64 MiB at a time, in pieces the kernel can back with huge pages
    // (with the default 128 KiB steps most of a big compile's heap faulted in 4 KiB at a time).
    if (setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864", 1) != 0)
        return;
    execv("/proc/self/exe", argv);
    unsetenv("GLIBC_TUNABLES"); // exec failed: go on as we are, children unaffected
}

} // namespace pto::cli
