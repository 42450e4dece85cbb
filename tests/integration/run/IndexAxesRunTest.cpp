// gather, topk and cumsum along every axis end to end (issue 16): decompose-composites rewrites
// the axes expand-tiles does not lower as written; the simulated outputs equal the Tile
// interpreter, the Tensor interpreter after the rewrite and the Tensor interpreter on the
// program as written, bit for bit; an out-of-range index of a last-axis gather is still a fault
// naming the gather's source line.
#include "compiler/interp/TensorInterpreter.h"
#include "compiler/interp/TileInterpreter.h"
#include "compiler/ir/Parser.h"
#include "driver/Session.h"
#include "tests/support/Process.h"
#include "tests/support/QuietRun.h"
#include "validate/TensorIo.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace pto {
namespace {

std::string program() {
    return test::runProgramPath("index_axes.pto");
}

RunResult run(std::vector<std::string> inputFiles = {}) {
    return test::runQuietly("index_axes.pto", 7, std::move(inputFiles));
}

int countOps(const Function& f, OpKind kind) {
    int n = 0;
    for (const Op& op : f.ops()) n += op.kind == kind;
    return n;
}

TEST(IndexAxesRun, SimulatorEqualsBothInterpretersAndTheProgramAsWritten) {
    RunResult r = run();
    ASSERT_EQ(r.faultMessage, "");
    std::ifstream in(program());
    std::stringstream text;
    text << in.rdbuf();
    const Function written = parseFunctionText(text.str(), program());
    const EvalResult asWritten = evaluateTensor(written, r.inputs);
    const EvalResult tile = evaluateTile(r.state.tileFunction(), r.inputs);
    const EvalResult tensor = evaluateTensor(r.state.tensor, r.inputs);
    ASSERT_EQ(r.sim.outputs.size(), 5u);
    for (size_t k = 0; k < 5; ++k) {
        SCOPED_TRACE(r.sim.outputs[k].first);
        EXPECT_EQ(r.sim.outputs[k].second, tile.outputs.at(k));
        EXPECT_EQ(r.sim.outputs[k].second, tensor.outputs.at(k));
        EXPECT_EQ(r.sim.outputs[k].second, asWritten.outputs.at(k));
    }
    // The rewrite: every op left is one expand-tiles lowers as written (two tile transposes
    // around the last-axis gather, two swaps around each outer topk and the cumsum).
    EXPECT_EQ(countOps(r.state.tensor, OpKind::Gather), 2);
    EXPECT_EQ(countOps(r.state.tensor, OpKind::Transpose), 8);
    // Spot checks against the definition: %last[a, b, p, q] = t[a, b, i[p, q]].
    const TensorData& last = r.sim.outputs[0].second;
    for (int64_t a = 0; a < 5; a += 2)
        for (int64_t e = 0; e < 6; ++e) {
            const auto col = int64_t(r.inputs[1].get(e));
            EXPECT_EQ(last.get((a * 7 + 3) * 6 + e), r.inputs[0].get((a * 7 + 3) * 33 + col));
        }
}

TEST(IndexAxesRun, OutOfRangeIndexOfALastAxisGatherIsAFaultAtItsLine) {
    test::TempDir dir;
    TensorData idx(DType::I32, Shape{2, 3});
    for (int64_t i = 0; i < 6; ++i) idx.set(i, float(i * 5));
    idx.set(4, 33);
    TensorData rows(DType::I32, Shape{4});
    for (int64_t i = 0; i < 4; ++i) rows.set(i, float(i));
    const std::vector<std::pair<std::string, TensorData>> files = {
        {"t.npy", randomTensor(DType::F16, Shape{5, 7, 33}, 1)},
        {"i.npy", idx},
        {"j.npy", rows},
        {"x.npy", randomTensor(DType::F32, Shape{6, 3, 2, 9}, 2)},
        {"c.npy", TensorData(DType::I32, Shape{7, 3, 10})}};
    std::vector<std::string> paths;
    for (const auto& [name, t] : files) {
        paths.push_back((dir / name).string());
        writeTensor(paths.back(), t);
    }
    RunResult r = run(paths);
    const std::string& m = r.faultMessage;
    EXPECT_NE(m.find("out-of-bounds MGATHER on AIV"), std::string::npos) << m;
    EXPECT_NE(m.find("index_axes.pto:7:"), std::string::npos) << m;
    EXPECT_NE(m.find("gather index 33 (element 4 of the index tile) is outside the 33 rows"),
              std::string::npos)
        << m;
}

} // namespace
} // namespace pto
