// Dump-tree comparison: manifests read and checked, each value compared with its counterpart
// under the tolerance of the op that produced it, the first failure diagnosed.
#include "validate/DumpDiff.h"

#include "compiler/ir/OpKind.h"
#include "validate/GoldenDiff.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
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
    for (size_t i = 0; i < j["values"].size(); ++i) {
        const nlohmann::json& v = j["values"][i];
        if (!v.is_object() || !v.contains("value") || !v["value"].is_string() ||
            !v.contains("file") || !v["file"].is_string())
            throw std::invalid_argument(fmt::format(
                "{}: values[{}] needs the strings \"value\" and \"file\"", path.string(), i));
        Entry e;
        e.value = v["value"];
        e.file = v["file"];
        e.op = v.value("op", "");
        e.stage = v.value("stage", "");
        e.line = v.value("line", 0);
        e.col = v.value("col", 0);
        e.k = std::max<int64_t>(1, v.value("reduction_length", int64_t{1}));
        if (e.file.find("..") != std::string::npos || fs::path(e.file).is_absolute())
            throw std::invalid_argument(
                fmt::format("{}: values[{}] file '{}' must be a path inside the tree",
                            path.string(), i, e.file));
        out.push_back(e);
    }
    return out;
}

bool hasNewNonFinite(const DiffMetrics& m) {
    return m.actual.nan + m.actual.posInf + m.actual.negInf >
           m.golden.nan + m.golden.posInf + m.golden.negInf;
}

std::string where(const DumpValueDiff& v) {
    return v.line > 0 ? fmt::format("{} = {} (line {}:{})", v.value, v.op, v.line, v.col)
                      : fmt::format("{} ({})", v.value, v.op.empty() ? "?" : v.op);
}

} // namespace

DumpDiffReport diffDumpTrees(const fs::path& a, const fs::path& b, const ComparePolicy& policy) {
    const std::vector<Entry> left = readManifest(a);
    std::map<std::string, Entry> right;
    for (Entry& e : readManifest(b)) right[e.value] = e;
    DumpDiffReport r;
    for (const Entry& e : left) {
        DumpValueDiff v{e.value, e.op, e.line, e.col, e.stage, {}, std::nullopt, false};
        const auto it = right.find(e.value);
        if (it == right.end()) {
            v.missing = fmt::format("not in {}", b.string());
            r.values.push_back(v);
            continue;
        }
        ComparePolicy p = policy;
        if (const auto kind = parseOpKind(e.op)) {
            p.cls = toleranceClassOf(*kind);
            p.k = e.k;
        }
        const TensorData actual = loadTensorFile(a / e.file);
        const TensorData golden = loadTensorFile(b / it->second.file);
        v.comparison = compareTensors(e.value, actual, golden, p);
        v.nonFinite = hasNewNonFinite(v.comparison->metrics);
        if (v.nonFinite && !r.firstNonFinite) r.firstNonFinite = r.values.size();
        if (v.failed() && !r.firstFailing) {
            r.firstFailing = r.values.size();
            r.diagnosis = diagnoseComparison(*v.comparison, actual, golden, p, nullptr);
        }
        r.values.push_back(std::move(v));
    }
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
    nlohmann::json j = {{"passed", r.passed()}, {"values", values}};
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
    if (!r.firstFailing) return s + "PASS: every value within tolerance\n";
    const DumpValueDiff& f = r.values[*r.firstFailing];
    s += fmt::format("first value outside tolerance: {}\n", where(f));
    std::string chain;
    for (size_t i = *r.firstFailing + 1; i < r.values.size(); ++i)
        if (r.values[i].failed()) chain += (chain.empty() ? "" : " → ") + r.values[i].value;
    if (!chain.empty()) s += fmt::format("  then failing: {}\n", chain);
    if (r.firstNonFinite)
        s += fmt::format("first NaN/Inf: {}\n", where(r.values[*r.firstNonFinite]));
    if (r.diagnosis) s += formatDiagnosis(*r.diagnosis);
    return s;
}

} // namespace pto
