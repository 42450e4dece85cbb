// Fuzz harness of the .npy readers: readNpy (+ fromNpy) and TensorFile (the memory-mapped path
// of `pto diff`) either accept a file or throw NpyError, never crash; what TensorFile accepts
// the full reader accepts too, with the same dtype, shape and bytes.
#include "compiler/ir/Diagnostics.h"
#include "tests/fuzz/FuzzSupport.h"
#include "validate/Npy.h"
#include "validate/TensorFile.h"
#include "validate/TensorIo.h"

#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

namespace {

constexpr std::string_view kHarness = "fuzz_npy";

// readNpy + fromNpy, or nullopt when either rejects the file with NpyError.
std::optional<pto::TensorData> readFully(const std::filesystem::path& path) {
    try {
        pto::NpyArray array = pto::readNpy(path);
        if (static_cast<std::int64_t>(array.data.size()) != array.numel() * array.itemSize())
            pto::fuzz::fail(kHarness, "readNpy returned data of the wrong size");
        return pto::fromNpy(array, path);
    } catch (const pto::NpyError&) {
        return std::nullopt;
    } catch (const std::exception& e) {
        pto::fuzz::fail(kHarness,
                        std::string("readNpy: exception other than NpyError: ") + e.what());
    }
}

void checkSame(const pto::TensorView& mapped, const pto::TensorData& full) {
    if (mapped.dtype != full.dtype || !(mapped.shape == full.shape))
        pto::fuzz::fail(kHarness, "TensorFile and readNpy disagree on dtype or shape");
    const auto bytes = static_cast<std::size_t>(full.byteSize());
    if (bytes != 0 && std::memcmp(mapped.data, full.data(), bytes) != 0)
        pto::fuzz::fail(kHarness, "TensorFile and readNpy disagree on the data");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const pto::fuzz::TempInput input(data, size, ".npy");
    const std::optional<pto::TensorData> full = readFully(input.path());
    try {
        const pto::TensorFile file(input.path());
        if (!full) pto::fuzz::fail(kHarness, "TensorFile accepts a file readNpy/fromNpy reject");
        checkSame(file.view(), *full);
    } catch (const pto::NpyError&) {
        if (full) pto::fuzz::fail(kHarness, "TensorFile rejects a file readNpy/fromNpy accept");
    } catch (const std::exception& e) {
        pto::fuzz::fail(kHarness,
                        std::string("TensorFile: exception other than NpyError: ") + e.what());
    }
    return 0;
}
