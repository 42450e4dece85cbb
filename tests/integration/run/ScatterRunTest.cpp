// scatter_add and cumsum end to end (issue 16): the simulated outputs equal the Tile
// interpreter and the Tensor interpreter bit for bit (duplicate indices included); an
// out-of-range scatter index is a fault naming core, instruction, tile op, source line and the
// index; the MSCATTER slices carry rows, bytes and DMA efficiency, and the profiler counts them
// apart from the gathers.
#include "compiler/interp/TensorInterpreter.h"
#include "compiler/interp/TileInterpreter.h"
#include "driver/Session.h"
#include "profiler/RunModel.h"
#include "tests/support/Process.h"
#include "tests/support/QuietRun.h"
#include "validate/TensorIo.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

namespace pto {
namespace {

std::string program() {
    return test::runProgramPath("scatter_cumsum.pto");
}

RunResult run(std::vector<std::string> inputFiles = {}) {
    return test::runQuietly("scatter_cumsum.pto", 5, std::move(inputFiles));
}

TEST(ScatterRun, SimulatorEqualsBothInterpretersBitForBit) {
    RunResult r = run();
    ASSERT_EQ(r.faultMessage, "");
    // The seeded index (role "index") stays inside the base's 16 rows, and 23 indices into 16
    // rows repeat some.
    for (int64_t i = 0; i < r.inputs[1].numel(); ++i) {
        EXPECT_GE(r.inputs[1].get(i), 0);
        EXPECT_LT(r.inputs[1].get(i), 16);
    }
    const EvalResult tile = evaluateTile(r.state.tileFunction(), r.inputs);
    const EvalResult tensor = evaluateTensor(r.state.tensor, r.inputs);
    ASSERT_EQ(r.sim.outputs.size(), 3u);
    for (size_t k = 0; k < 3; ++k) {
        SCOPED_TRACE(r.sim.outputs[k].first);
        EXPECT_EQ(r.sim.outputs[k].second, tile.outputs.at(k));
        EXPECT_EQ(r.sim.outputs[k].second, tensor.outputs.at(k));
    }
    // Column 7 of row idx[0]: the base plus every source row sent there, in index order.
    const auto row = int64_t(r.inputs[1].get(0));
    float want = r.inputs[0].get(row * 300 + 7);
    for (int64_t j = 0; j < 23; ++j)
        if (int64_t(r.inputs[1].get(j)) == row) want += r.inputs[2].get(j * 300 + 7);
    EXPECT_EQ(r.sim.outputs[0].second.get(row * 300 + 7), want);
}

// Writes the base, an index with one entry past the base and the source rows.
std::vector<std::string> badInputs(const test::TempDir& dir) {
    TensorData idx(DType::I32, Shape{23});
    for (int64_t i = 0; i < 23; ++i) idx.set(i, float(i % 16));
    idx.set(9, -1);
    const std::vector<std::pair<std::string, TensorData>> files = {
        {"base.npy", randomTensor(DType::F32, Shape{16, 300}, 1)},
        {"idx.npy", idx},
        {"src.npy", randomTensor(DType::F32, Shape{23, 300}, 2)}};
    std::vector<std::string> paths;
    for (const auto& [name, t] : files) {
        paths.push_back((dir / name).string());
        writeTensor(paths.back(), t);
    }
    return paths;
}

TEST(ScatterRun, OutOfRangeIndexIsAFaultNamingEverything) {
    test::TempDir dir;
    RunResult r = run(badInputs(dir));
    const std::string& m = r.faultMessage;
    EXPECT_NE(m.find("out-of-bounds MSCATTER on AIV"), std::string::npos) << m;
    EXPECT_NE(m.find("pipe MTE3 (kernel"), std::string::npos) << m;
    EXPECT_NE(m.find(" instr "), std::string::npos) << m;
    EXPECT_NE(m.find("from tile op #"), std::string::npos) << m;
    EXPECT_NE(m.find("scatter_cumsum.pto:5:"), std::string::npos) << m;
    EXPECT_NE(m.find("scatter index -1 (element 9 of the index tile) is outside the 16 rows"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("; it is element 9 of %idx"), std::string::npos) << m;
}

TEST(ScatterRun, CliKeepsTheTraceAndTheSlicesSayWhatMoved) {
    test::TempDir dir;
    const auto good = dir / "good.db";
    auto r = test::runCommand(fmt::format("{} run {} --seed 3 -o {}", PTO_CLI, program(),
                                          test::shellQuote(good.string())));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto q = test::runCommand(fmt::format(
        "{} query {} \"select count(*), sum(r.int_value), sum(b.int_value) from slice_named s join "
        "args "
        "r on r.arg_set_id = s.arg_set_id and r.key = 'rows' join args b on b.arg_set_id = "
        "s.arg_set_id and b.key = 'bytes' where s.name = 'MSCATTER'\" --format csv",
        PTO_CLI, test::shellQuote(good.string())));
    ASSERT_EQ(q.exitCode, 0) << q.err;
    // Every source row once per column strip: 23 rows × 300 f32 = 27 600 bytes in all.
    EXPECT_NE(q.out.find(",27600"), std::string::npos) << q.out;

    const std::vector<std::string> in = badInputs(dir);
    const auto db = dir / "run.db";
    r = test::runCommand(fmt::format("{} run {} --inputs {},{},{} -o {}", PTO_CLI, program(), in[0],
                                     in[1], in[2], test::shellQuote(db.string())));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("scatter index -1"), std::string::npos) << r.err;
    q = test::runCommand(fmt::format(
        "{} query {} \"select (select count(*) from slice) > 0, (select count(*) from meta "
        "where key = 'sim_fault' and value like '%MSCATTER%')\" --format csv",
        PTO_CLI, test::shellQuote(db.string())));
    ASSERT_EQ(q.exitCode, 0) << q.err;
    EXPECT_NE(q.out.find("1,1"), std::string::npos) << q.out;
}

// A kernel that gathers rows and scatter-adds them back: the profiler's gather figures (and so
// the gather_dma finding's share of MTE2) hold only the MGATHER slices, the scatter figures only
// the MSCATTER ones, each as the trace's own slices and args say.
TEST(ScatterRun, TheProfilerCountsScattersApartFromGathers) {
    test::TempDir dir;
    const auto prog = dir / "gs.pto", db = dir / "gs.db";
    std::ofstream(prog) << "func @gs(%t: tensor<64x32xf32>, %i: tensor<48xi32>, %j: "
                           "tensor<48xi32>) -> tensor<64x32xf32> {\n"
                           "  %rows = gather %t, %i {axis = 0}\n"
                           "  %y = scatter_add %t, %j, %rows {axis = 0}\n  return %y\n}\n";
    auto r = test::runCommand(fmt::format("{} run {} --seed 4 -o {}", PTO_CLI,
                                          test::shellQuote(prog.string()),
                                          test::shellQuote(db.string())));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto reader = tracedb::TraceReader::open(db);
    const prof::RunModel m = prof::loadRunModel(reader);
    for (const auto& [opcode, dma] : {std::pair{"MGATHER", m.gathers}, {"MSCATTER", m.scatters}}) {
        const auto q = reader.query(fmt::format(
            "SELECT count(*), sum(s.dur), sum(a.int_value) FROM slice s JOIN string n ON n.id = "
            "s.name_id JOIN args a ON a.arg_set_id = s.arg_set_id AND a.key = 'rows' WHERE "
            "n.str = '{}'",
            opcode));
        EXPECT_GT(dma.count, 0) << opcode;
        EXPECT_EQ(dma.count, std::get<std::int64_t>(q.rows.at(0).at(0))) << opcode;
        EXPECT_EQ(dma.cycles, std::get<std::int64_t>(q.rows.at(0).at(1))) << opcode;
        EXPECT_EQ(dma.rows, 48) << opcode;
        EXPECT_EQ(dma.rows, std::get<std::int64_t>(q.rows.at(0).at(2))) << opcode;
    }
}

} // namespace
} // namespace pto
