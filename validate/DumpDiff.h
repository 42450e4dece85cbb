// Comparing two dump trees (`pto run --dump`, or any producer of the manifest in
// docs/VALIDATE.md): value by value in program order, the first value outside tolerance with
// its op and source line, and the chain of failing values after it.
#pragma once

#include "validate/Diagnosis.h"
#include "validate/TensorCompare.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pto {

struct DumpValueDiff {
    std::string value; // "%e"
    std::string op;    // "exp", "arg"
    int line = 0, col = 0;
    std::string stage;   // of tree A
    std::string missing; // non-empty: not in tree B (the reason), not compared
    std::optional<TensorComparison> comparison;
    bool nonFinite = false; // A has NaN/Inf where B is finite
    bool failed() const { return comparison && !comparison->verdict.passed; }
};

struct DumpDiffReport {
    std::vector<DumpValueDiff> values;    // tree A's program order
    std::vector<std::string> notInActual; // values of B (the golden) that A does not have
    std::optional<size_t> firstFailing;   // the first value outside tolerance
    std::optional<size_t> firstNonFinite; // the first value with NaN/Inf B does not have
    std::optional<Diagnosis> diagnosis;   // of the first failing value
    // A golden value the actual tree lacks is a mismatch; a value of A that B lacks (an
    // intermediate the golden does not record) is only counted.
    bool passed() const { return !firstFailing && notInActual.empty(); }
    size_t compared() const;
    size_t notInGolden() const;
};

// Compares tree `a` (actual) with tree `b` (golden); class and K per value from its manifest
// entry (op, reduction_length; a reduction_length above 1 makes an elementwise or unknown op an
// accumulation). Throws std::invalid_argument for a missing or malformed manifest (naming the
// file, the entry and the field), a value name listed twice in one manifest, a shape mismatch
// (naming both files) and a comparison of nothing (no value of `a` is in `b`, or only
// arguments — op "arg" or stage "input" — were compared), and NpyError for unreadable .npy
// files. `diagnose`: whether the first failing value gets a diagnosis.
DumpDiffReport diffDumpTrees(const std::filesystem::path& a, const std::filesystem::path& b,
                             const ComparePolicy& policy, bool diagnose = true);

nlohmann::json dumpDiffJson(const DumpDiffReport& r);
std::string formatDumpDiff(const DumpDiffReport& r);

} // namespace pto
