// Golden tests of the Tensor-level passes and the Tensor → Tile lowering: every *.pto case in
// this folder. A RUN spec is a comma-separated list of passes, run in order on every function
// of the chunk the way the pass manager runs them; the output is the printed result.
#include "tests/golden/GoldenRunner.h"

#include "compiler/ir/Printer.h"
#include "compiler/ir/Target.h"
#include "compiler/passes/AssignMemory.h"
#include "compiler/passes/DecomposeComposites.h"
#include "compiler/passes/EliminateDeadCode.h"
#include "compiler/passes/ExpandTiles.h"
#include "compiler/passes/FoldConstants.h"
#include "compiler/passes/InlineCalls.h"
#include "compiler/passes/InsertCopies.h"
#include "compiler/passes/UnrollLoops.h"

#include <sstream>
#include <stdexcept>

namespace {

void runPass(const std::string& name, pto::Function& f, const pto::Module& m) {
    const pto::TargetInfo target;
    const std::string& file = m.file;
    f.linkToPreviousStage();
    if (name == "inline-calls") {
        const std::vector<pto::Function> functions = m.functions; // f changes in place
        pto::inlineCalls(f, functions, file);
    } else if (name == "unroll-loops") {
        pto::unrollLoops(f, file);
    } else if (name == "decompose-composites") {
        pto::decomposeComposites(f);
    } else if (name == "fold-constants") {
        pto::foldConstants(f);
    } else if (name == "dead-code") {
        pto::eliminateDeadCode(f);
    } else if (name == "expand-tiles") {
        f = pto::expandTiles(f, target, file);
    } else if (name == "assign-memory") {
        pto::assignMemory(f, target, file);
    } else if (name == "insert-copies") {
        pto::insertCopies(f, target, file);
    } else {
        throw std::invalid_argument("unknown pass '" + name + "' in RUN spec");
    }
    f.renumber();
}

std::string runPipeline(const std::string& spec, pto::Module& m) {
    std::string out;
    for (pto::Function& f : m.functions) {
        std::istringstream passes(spec);
        for (std::string name; std::getline(passes, name, ',');) {
            name.erase(0, name.find_first_not_of(' '));
            name.erase(name.find_last_not_of(' ') + 1);
            runPass(name, f, m);
        }
        out += pto::printFunction(f) + "\n";
    }
    return out;
}

} // namespace

PTO_GOLDEN_SUITE(PassesGolden, PTO_SOURCE_DIR "/tests/golden/passes", runPipeline);
