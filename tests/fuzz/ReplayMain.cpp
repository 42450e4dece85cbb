// A plain driver for the fuzz harnesses (any compiler, no libFuzzer): runs every file named on
// the command line, or found under a directory named there, through LLVMFuzzerTestOneInput
// once. ctest uses it to replay the seed corpus and the saved regression inputs.
#include "tests/fuzz/FuzzSupport.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

std::vector<std::filesystem::path> inputsOf(int argc, char** argv) {
    std::vector<std::filesystem::path> files;
    for (int i = 1; i < argc; ++i) {
        const std::filesystem::path arg = argv[i];
        if (!std::filesystem::is_directory(arg)) {
            files.push_back(arg);
            continue;
        }
        for (const auto& entry : std::filesystem::recursive_directory_iterator(arg))
            if (entry.is_regular_file() && entry.path().filename() != "README.md")
                files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

bool replay(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", file.c_str());
        return false;
    }
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in),
                                  std::istreambuf_iterator<char>()};
    // Named first, so that the input of a crash is the last one printed.
    std::fprintf(stderr, "replaying %s (%zu bytes)\n", file.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    return true;
}

} // namespace

int main(int argc, char** argv) {
    const std::vector<std::filesystem::path> files = inputsOf(argc, argv);
    if (files.empty()) {
        std::fprintf(stderr, "usage: %s FILE-OR-DIR...  (found no input)\n", argv[0]);
        return 2;
    }
    int unreadable = 0;
    for (const auto& file : files) unreadable += replay(file) ? 0 : 1;
    std::printf("replayed %zu input(s), %d unreadable\n", files.size() - size_t(unreadable),
                unreadable);
    return unreadable == 0 ? 0 : 1;
}
