// Golden tests of the Block, Exec and PTO passes: every *.pto case in this folder. The RUN
// spec names the pass to stop after (e.g. "insert-sync"); the case is lowered through the
// real pass manager from the level it is written at, and the output is the printed stage.
#include "tests/golden/GoldenRunner.h"

#include "compiler/Pipeline.h"

#include <stdexcept>

namespace {

std::string runPipeline(const std::string& spec, pto::Module& m) {
    std::string stop = spec;
    stop.erase(0, stop.find_first_not_of(' '));
    stop.erase(stop.find_last_not_of(' ') + 1);
    if (!pto::findPass(stop)) throw std::invalid_argument("unknown pass '" + stop + "' in RUN");
    pto::CompileState state = pto::loadModule(m);
    pto::PassManagerOptions options;
    options.stopAfter = stop;
    pto::PassManager pm(state, pto::CompileOptions{}, options);
    pto::lowerToPto(pm);
    return pto::printStage(state);
}

} // namespace

PTO_GOLDEN_SUITE(LoweringGolden, PTO_SOURCE_DIR "/tests/golden/lowering", runPipeline);
