// Helpers for the pass tests (see PassTestUtil.h).
#include "tests/unit/passes/PassTestUtil.h"

#include "compiler/ir/Parser.h"
#include "compiler/ir/Verifier.h"
#include "compiler/passes/AssignMemory.h"
#include "compiler/passes/DecomposeComposites.h"
#include "compiler/passes/EliminateDeadCode.h"
#include "compiler/passes/ExpandTiles.h"
#include "compiler/passes/FoldConstants.h"
#include "compiler/passes/InsertCopies.h"

#include <fmt/format.h>

#include <cmath>

namespace pto::test {

Function parse(std::string_view text) {
    return parseFunctionText(text, kFile);
}

void runPass(Function& f, const std::function<void(Function&)>& pass) {
    f.linkToPreviousStage();
    pass(f);
    f.renumber();
}

Function runTensorPasses(Function f) {
    for (auto pass : {decomposeComposites, foldConstants, eliminateDeadCode}) {
        runPass(f, pass);
        verifyFunction(f, kFile);
    }
    return f;
}

Function lowerToTile(const Function& tensor, TileStage stop, const TargetInfo& target,
                     bool verify) {
    Function t = runTensorPasses(tensor);
    t.linkToPreviousStage();
    Function tile = expandTiles(t, target, kFile);
    tile.renumber();
    if (verify) verifyFunction(tile, kFile);
    if (stop == TileStage::Expanded) return tile;
    runPass(tile, [&](Function& f) { assignMemory(f, target, kFile); });
    if (verify) verifyFunction(tile, kFile);
    if (stop == TileStage::Assigned) return tile;
    runPass(tile, [&](Function& f) { insertCopies(f, target, kFile); });
    runPass(tile, eliminateDeadCode);
    if (verify) verifyFunction(tile, kFile);
    return tile;
}

int countOps(const Function& f, OpKind kind) {
    int n = 0;
    for (const Op& op : f.ops()) n += op.kind == kind;
    return n;
}

int countTiles(const Function& f, MemSpace space) {
    int n = 0;
    for (const Op& op : f.ops())
        if (op.result != kNoId) n += f.type(op.result).space == space;
    return n;
}

std::vector<TensorData> randomInputs(const Function& f, uint64_t seed, double lo, double hi) {
    std::vector<TensorData> inputs;
    for (ValueId a : f.args) {
        const Type& t = f.type(a);
        TensorData d(t.dtype, t.shape);
        RandomRange range =
            isFloatType(t.dtype) ? RandomRange{lo, hi} : defaultRandomRange(t.dtype);
        fillRandom(d, seed++, range);
        inputs.push_back(std::move(d));
    }
    return inputs;
}

std::string compare(const TensorData& got, const TensorData& want, double rtol, double atol) {
    if (got.dtype != want.dtype || !(got.shape == want.shape))
        return fmt::format("type {} vs {}", typeString(got), typeString(want));
    std::string out;
    int bad = 0;
    for (int64_t i = 0; i < got.numel(); ++i) {
        const double g = got.get(i), w = want.get(i);
        const bool ok = (std::isnan(g) && std::isnan(w)) || g == w ||
                        std::fabs(g - w) <= atol + rtol * std::fabs(w);
        if (ok) continue;
        if (++bad <= 5) out += fmt::format("[{}] got {} want {}; ", i, g, w);
    }
    if (bad) out += fmt::format("{} of {} elements differ", bad, got.numel());
    return out;
}

OpId rootOf(OpId op, const std::vector<const Function*>& stagesNewestFirst) {
    for (const Function* f : stagesNewestFirst) {
        if (op == kNoId || op >= f->ops().size()) return kNoId;
        op = f->op(op).parent;
    }
    return op;
}

} // namespace pto::test
