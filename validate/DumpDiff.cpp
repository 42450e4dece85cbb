// Dump-tree comparison: manifests read and checked, each value compared with its counterpart
// under the tolerance of the op that produced it, the first failure diagnosed.
#include "validate/DumpDiff.h"

#include "compiler/ir/OpKind.h"
#include "validate/GoldenDiff.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <stdexcept>

namespace pto {
namespace {

namespace fs = std::filesystem;

struct Entry {
    std::string value, file, op, stage;
    int line = 0, col = 0;
    int64_t k = 1;
};

/// values[index] of the manifest at `path`, read field by field: a field of the wrong type or
/// out of range is an error naming the file, the entry and the field.
class ManifestEntry {
public:
    ManifestEntry(const nlohmann::json& v, const fs::path& path, size_t index)
        : m_v(v), m_path(path), m_index(index) {}

    std::string string(const char* key) const {
        const nlohmann::json* f = field(key);
        if (!f) return {};
        if (!f->is_string()) fail(key, "a string", *f);
        return f->get<std::string>();
    }

    int64_t integer(const char* key, int64_t fallback, int64_t lo, int64_t hi) const {
        const nlohmann::json* f = field(key);
        if (!f) return fallback;
        const std::string wanted = lo == INT64_MIN && hi == INT64_MAX
                                       ? std::string("an integer")
                                       : fmt::format("an integer from {} to {}", lo, hi);
        if (!f->is_number_integer() ||
            (f->is_number_unsigned() && f->get<uint64_t>() > uint64_t(INT64_MAX)))
            fail(key, wanted, *f);
        const int64_t n = f->get<int64_t>();
        if (n < lo || n > hi) fail(key, wanted, *f);
        return n;
    }

    std::string where() const { return fmt::format("{}: values[{}]", m_path.string(), m_index); }

private:
    const nlohmann::json* field(const char* key) const {
        const auto it = m_v.find(key);
        return it == m_v.end() || it->is_null() ? nullptr : &*it;
    }

    [[noreturn]] void fail(const char* key, std::string_view wanted,
                           const nlohmann::json& got) const {
        throw std::invalid_argument(
            fmt::format("{} \"{}\": must be {}, not {}", where(), key, wanted, got.dump()));
    }

    const nlohmann::json& m_v;
    const fs::path& m_path;
    size_t m_index;
};

Entry readEntry(const ManifestEntry& v) {
    Entry e;
    e.value = v.string("value");
    e.file = v.string("file");
    if (e.value.empty() || e.file.empty())
        throw std::invalid_argument(
            fmt::format("{} needs the strings \"value\" and \"file\"", v.where()));
    if (e.file.find("..") != std::string::npos || fs::path(e.file).is_absolute())
        throw std::invalid_argument(
            fmt::format("{} file '{}' must be a path inside the tree", v.where(), e.file));
    e.op = v.string("op");
    e.stage = v.string("stage");
    e.line = int(v.integer("line", 0, 0, INT32_MAX));
    e.col = int(v.integer("col", 0, 0, INT32_MAX));
    e.k = v.integer("reduction_length", 1, INT64_MIN, INT64_MAX);
    checkReductionLength(e.k, v.where() + " reduction_length");
    return e;
}

std::vector<Entry> readManifest(const fs::path& dir) {
    const fs::path path = dir / "manifest.json";
    std::ifstream in(path);
    if (!fs::is_directory(dir) || !in)
        throw std::invalid_argument(
            fmt::format("{}: not a dump tree (no manifest.json; make one with pto run --dump DIR)",
                        dir.string()));
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (!j.is_object() || !j.contains("values") || !j["values"].is_array())
        throw std::invalid_argument(fmt::format(
            "{}: not a dump manifest (a JSON object with a \"values\" array)", path.string()));
    std::vector<Entry> out;
    std::map<std::string, size_t> seen;
    for (size_t i = 0; i < j["values"].size(); ++i) {
        if (!j["values"][i].is_object())
            throw std::invalid_argument(
                fmt::format("{}: values[{}] must be an object", path.string(), i));
        out.push_back(readEntry(ManifestEntry(j["values"][i], path, i)));
        const auto [it, fresh] = seen.emplace(out.back().value, i);
        if (!fresh)
            throw std::invalid_argument(fmt::format(
                "{}: values[{}] and values[{}] both name {} ('{}' and '{}'); a value is listed "
                "once",
                path.string(), it->second, i, out.back().value, out[it->second].file,
                out.back().file));
    }
    return out;
}

/// An argument as it was passed in, not something the program computed.
bool isArgument(const DumpValueDiff& v) {
    return v.op == "arg" || v.stage == "input";
}

/// The policy of entry `e`: class from its op, K from reduction_length; a K above 1 makes an
/// elementwise op (a loop's result, a kernel's stored argument) or an unknown one an
/// accumulation.
ComparePolicy entryPolicy(const Entry& e, const ComparePolicy& base) {
    ComparePolicy p = base;
    if (const auto kind = parseOpKind(e.op)) {
        p.cls = toleranceClassOf(*kind);
        p.k = e.k;
    }
    if (e.k > 1 && p.cls == ToleranceClass::Elementwise) {
        p.cls = ToleranceClass::Accumulation;
        p.k = e.k;
    }
    return p;
}

bool hasNewNonFinite(const DiffMetrics& m) {
    return m.actual.nan + m.actual.posInf + m.actual.negInf >
           m.golden.nan + m.golden.posInf + m.golden.negInf;
}

struct TreeFile {
    fs::path path;
    const TensorData& data;
};

/// compareTensors, its input errors (a shape mismatch) naming both files.
TensorComparison compareInTrees(const std::string& value, const TreeFile& actual,
                                const TreeFile& golden, const ComparePolicy& p) {
    try {
        return compareTensors(value, actual.data, golden.data, p);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(
            fmt::format("{} vs {}: {}", actual.path.string(), golden.path.string(), e.what()));
    }
}

/// Two trees that share no value are not a pass: nothing was checked; nor are two that share
/// only the arguments (what a Tile-level kernel's tree held before it held its outputs).
void checkSomethingCompared(const DumpDiffReport& r, const fs::path& a, const fs::path& b) {
    bool any = false, computed = false;
    for (const DumpValueDiff& v : r.values) {
        any |= v.comparison.has_value();
        computed |= v.comparison && !isArgument(v);
    }
    if (computed) return;
    if (r.values.empty())
        throw std::invalid_argument(
            fmt::format("{}: the manifest lists no values; nothing to compare",
                        (a / "manifest.json").string()));
    if (any)
        throw std::invalid_argument(fmt::format(
            "{} vs {}: only arguments compared (op \"arg\" or stage \"input\"): nothing the "
            "program computed is in both trees, so the comparison checks nothing",
            a.string(), b.string()));
    throw std::invalid_argument(fmt::format(
        "{} vs {}: no value compared: none of the {} values of {} (e.g. {}) is in {} (values are "
        "matched by their \"value\" name)",
        a.string(), b.string(), r.values.size(), a.string(), r.values.front().value, b.string()));
}

/// "PASS: 3 values compared, every one within tolerance; 1 value of A not in the golden
/// (not compared)", or FAIL with what failed and what the golden has that A lacks.
std::string verdictLine(const DumpDiffReport& r) {
    const size_t failing = size_t(std::count_if(r.values.begin(), r.values.end(),
                                                [](const DumpValueDiff& v) { return v.failed(); }));
    std::string s = r.passed() ? "PASS: " : "FAIL: ";
    s += failing ? fmt::format("{} of {} values compared outside tolerance", failing, r.compared())
                 : fmt::format("{} values compared, every one within tolerance", r.compared());
    if (!r.notInActual.empty())
        s += fmt::format("; {} value(s) of the golden missing from A", r.notInActual.size());
    if (r.notInGolden())
        s += fmt::format("; {} value(s) of A not in the golden (not compared)", r.notInGolden());
    return s + "\n";
}

std::string where(const DumpValueDiff& v) {
    return v.line > 0 ? fmt::format("{} = {} (line {}:{})", v.value, v.op, v.line, v.col)
                      : fmt::format("{} ({})", v.value, v.op.empty() ? "?" : v.op);
}

} // namespace

size_t DumpDiffReport::compared() const {
    size_t n = 0;
    for (const DumpValueDiff& v : values) n += v.comparison.has_value();
    return n;
}

size_t DumpDiffReport::notInGolden() const {
    return values.size() - compared();
}

DumpDiffReport diffDumpTrees(const fs::path& a, const fs::path& b, const ComparePolicy& policy,
                             bool diagnose) {
    const std::vector<Entry> left = readManifest(a);
    const std::vector<Entry> goldenEntries = readManifest(b);
    std::map<std::string, Entry> right;
    for (const Entry& e : goldenEntries) right[e.value] = e;
    DumpDiffReport r;
    std::map<std::string, bool> inLeft;
    for (const Entry& e : left) inLeft[e.value] = true;
    for (const Entry& e : goldenEntries)
        if (!inLeft.count(e.value)) r.notInActual.push_back(e.value);
    for (const Entry& e : left) {
        DumpValueDiff v{e.value, e.op, e.line, e.col, e.stage, {}, std::nullopt, false};
        const auto it = right.find(e.value);
        if (it == right.end()) {
            v.missing = fmt::format("not in {}", b.string());
            r.values.push_back(v);
            continue;
        }
        const ComparePolicy p = entryPolicy(e, policy);
        const TensorData actual = loadTensorFile(a / e.file);
        const TensorData golden = loadTensorFile(b / it->second.file);
        v.comparison =
            compareInTrees(e.value, {a / e.file, actual}, {b / it->second.file, golden}, p);
        v.nonFinite = hasNewNonFinite(v.comparison->metrics);
        if (v.nonFinite && !r.firstNonFinite) r.firstNonFinite = r.values.size();
        if (v.failed() && !r.firstFailing) {
            r.firstFailing = r.values.size();
            if (diagnose)
                r.diagnosis = diagnoseComparison(*v.comparison, actual, golden, p, nullptr);
        }
        r.values.push_back(std::move(v));
    }
    checkSomethingCompared(r, a, b);
    return r;
}

nlohmann::json dumpDiffJson(const DumpDiffReport& r) {
    nlohmann::json values = nlohmann::json::array();
    for (const DumpValueDiff& v : r.values) {
        nlohmann::json j = {{"value", v.value}, {"op", v.op},       {"line", v.line},
                            {"col", v.col},     {"stage", v.stage}, {"non_finite", v.nonFinite}};
        if (!v.missing.empty()) j["missing"] = v.missing;
        if (v.comparison) {
            j["passed"] = v.comparison->verdict.passed;
            j["summary"] = v.comparison->verdict.summary();
            j["max_abs"] = v.comparison->metrics.maxAbs;
        }
        values.push_back(j);
    }
    nlohmann::json j = {{"passed", r.passed()},
                        {"values", values},
                        {"compared", r.compared()},
                        {"not_in_golden", r.notInGolden()},
                        {"not_in_actual", r.notInActual}};
    if (r.firstFailing) {
        const DumpValueDiff& f = r.values[*r.firstFailing];
        nlohmann::json chain = nlohmann::json::array();
        for (size_t i = *r.firstFailing + 1; i < r.values.size(); ++i)
            if (r.values[i].failed()) chain.push_back(r.values[i].value);
        j["first_failing"] = {{"value", f.value},
                              {"op", f.op},
                              {"line", f.line},
                              {"col", f.col},
                              {"summary", f.comparison->verdict.summary()}};
        j["chain"] = chain;
    }
    if (r.firstNonFinite) {
        const DumpValueDiff& f = r.values[*r.firstNonFinite];
        j["first_non_finite"] = {{"value", f.value}, {"op", f.op}, {"line", f.line}};
    }
    if (r.diagnosis) j["diagnosis"] = diagnosisJson(*r.diagnosis);
    return j;
}

std::string formatDumpDiff(const DumpDiffReport& r) {
    std::string s;
    for (const DumpValueDiff& v : r.values)
        s +=
            fmt::format("  {:<6} {:<40} {}\n",
                        !v.missing.empty() ? "skip"
                        : v.failed()       ? "FAIL"
                                           : "ok",
                        where(v), !v.missing.empty() ? v.missing : v.comparison->verdict.summary());
    for (const std::string& name : r.notInActual)
        s += fmt::format("  {:<6} {:<40} {}\n", "MISS", name, "in the golden, not in A");
    if (!r.firstFailing) return s + verdictLine(r);
    const DumpValueDiff& f = r.values[*r.firstFailing];
    s += fmt::format("first value outside tolerance: {}\n", where(f));
    std::string chain;
    for (size_t i = *r.firstFailing + 1; i < r.values.size(); ++i)
        if (r.values[i].failed()) chain += (chain.empty() ? "" : " → ") + r.values[i].value;
    if (!chain.empty()) s += fmt::format("  then failing: {}\n", chain);
    if (r.firstNonFinite)
        s += fmt::format("first NaN/Inf: {}\n", where(r.values[*r.firstNonFinite]));
    if (r.diagnosis) s += formatDiagnosis(*r.diagnosis);
    return s + verdictLine(r);
}

} // namespace pto
