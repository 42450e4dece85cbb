// Runs one-op Tensor functions through evaluateTensor and reference.py and compares them.
#include "tests/unit/interp/ReferenceHarness.h"

#include "compiler/interp/TensorInterpreter.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace pto::test {
namespace {

namespace fs = std::filesystem;

nlohmann::json attrsToJson(const Attrs& attrs) {
    nlohmann::json j = nlohmann::json::object();
    for (const Attr& a : attrs.items()) std::visit([&](const auto& v) { j[a.name] = v; }, a.value);
    return j;
}

nlohmann::json tensorSpec(const fs::path& path, DType dtype, const Shape& shape) {
    return {{"path", path.string()},
            {"dtype", std::string(dtypeName(dtype))},
            {"shape", std::vector<int64_t>(shape.begin(), shape.end())}};
}

void writeBytes(const fs::path& path, const std::vector<std::byte>& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

std::vector<std::byte> readBytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> bytes(chars.size());
    std::memcpy(bytes.data(), chars.data(), chars.size());
    return bytes;
}

std::string readText(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// A fresh scratch directory per run (tests may run in parallel processes).
fs::path scratchDir() {
    static int counter = 0;
    const fs::path dir =
        fs::temp_directory_path() /
        ("pto_interp_ref_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(dir);
    return dir;
}

bool elementMatches(float got, float want, Tolerance tol) {
    if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
    if (std::isinf(want) || std::isinf(got)) return got == want;
    return std::fabs(double(got) - double(want)) <= tol.atol + tol.rtol * std::fabs(double(want));
}

} // namespace

Tolerance defaultTolerance(DType dtype) {
    switch (dtype) {
    case DType::F32:
        return {1.3e-6, 1e-5};
    case DType::F16:
        return {1e-3, 1e-5};
    case DType::BF16:
        return {1.6e-2, 1e-5};
    default:
        return {0.0, 0.0};
    }
}

Function makeOpFunction(const OpCase& c) {
    Function fn;
    fn.name = c.name;
    Op op;
    op.kind = c.kind;
    op.attrs = c.attrs;
    for (size_t i = 0; i < c.inputs.size(); ++i)
        op.operands.push_back(
            fn.addArg(Type{c.inputs[i].dtype, c.inputs[i].shape}, "in" + std::to_string(i)));
    const Type result{c.resultDType, c.resultShape};
    const OpId id = fn.addOp(op, &result, "out");
    fn.results.push_back(fn.op(id).result);
    return fn;
}

std::vector<TensorData> runReference(const std::vector<OpCase>& cases) {
    const fs::path dir = scratchDir();
    nlohmann::json list = nlohmann::json::array();
    for (size_t i = 0; i < cases.size(); ++i) {
        const OpCase& c = cases[i];
        nlohmann::json inputs = nlohmann::json::array();
        for (size_t j = 0; j < c.inputs.size(); ++j) {
            const fs::path p = dir / ("c" + std::to_string(i) + "_in" + std::to_string(j));
            writeBytes(p, c.inputs[j].bytes);
            inputs.push_back(tensorSpec(p, c.inputs[j].dtype, c.inputs[j].shape));
        }
        list.push_back({{"name", c.name},
                        {"op", std::string(opName(c.kind))},
                        {"attrs", attrsToJson(c.attrs)},
                        {"inputs", inputs},
                        {"output", tensorSpec(dir / ("c" + std::to_string(i) + "_out"),
                                              c.resultDType, c.resultShape)}});
    }
    const fs::path json = dir / "cases.json";
    std::ofstream(json) << nlohmann::json{{"cases", list}}.dump(1);
    const fs::path err = dir / "stderr.txt";
    const std::string script = std::string(PTO_SOURCE_DIR) + "/tests/unit/interp/reference.py";
    const std::string cmd =
        "/usr/bin/python3 '" + script + "' '" + json.string() + "' 2> '" + err.string() + "'";
    if (std::system(cmd.c_str()) != 0) {
        const std::string message = "reference.py failed:\n" + readText(err);
        fs::remove_all(dir);
        throw std::runtime_error(message);
    }
    std::vector<TensorData> outs;
    for (size_t i = 0; i < cases.size(); ++i) {
        TensorData t(cases[i].resultDType, cases[i].resultShape);
        t.bytes = readBytes(dir / ("c" + std::to_string(i) + "_out"));
        outs.push_back(std::move(t));
    }
    fs::remove_all(dir);
    return outs;
}

std::string compareTensors(const TensorData& got, const TensorData& want, Tolerance tol) {
    if (got.dtype != want.dtype || got.shape != want.shape)
        return "got " + typeString(got) + ", want " + typeString(want);
    if (got.bytes.size() != want.bytes.size())
        return "got " + std::to_string(got.bytes.size()) + " bytes, want " +
               std::to_string(want.bytes.size());
    const bool exactBits = !isFloatType(want.dtype);
    const auto size = size_t(want.elementSize());
    int64_t bad = 0;
    std::ostringstream first;
    for (int64_t i = 0; i < want.numel(); ++i) {
        if (exactBits ? std::memcmp(got.data() + i * want.elementSize(),
                                    want.data() + i * want.elementSize(), size) == 0
                      : elementMatches(got.get(i), want.get(i), tol))
            continue;
        if (bad++ < 5)
            first << "\n  [" << i << "] got " << got.get(i) << " want " << want.get(i)
                  << " (|diff| " << std::fabs(double(got.get(i)) - double(want.get(i))) << ")";
    }
    if (bad == 0) return {};
    std::ostringstream s;
    s.precision(9);
    s << bad << " of " << want.numel() << " elements differ";
    if (!exactBits) s << " beyond rtol " << tol.rtol << " atol " << tol.atol;
    s << ":" << first.str();
    return s.str();
}

void checkAgainstReference(const std::vector<OpCase>& cases) {
    std::vector<TensorData> refs;
    try {
        refs = runReference(cases);
    } catch (const std::exception& e) {
        FAIL() << e.what();
    }
    ASSERT_EQ(refs.size(), cases.size());
    for (size_t i = 0; i < cases.size(); ++i) {
        SCOPED_TRACE("case " + cases[i].name);
        const Function fn = makeOpFunction(cases[i]);
        EvalResult r;
        try {
            r = evaluateTensor(fn, cases[i].inputs);
        } catch (const std::exception& e) {
            ADD_FAILURE() << "evaluateTensor threw: " << e.what();
            continue;
        }
        ASSERT_EQ(r.outputs.size(), 1u);
        const std::string diff = compareTensors(r.outputs[0], refs[i], cases[i].tol);
        EXPECT_TRUE(diff.empty()) << diff;
    }
}

} // namespace pto::test
