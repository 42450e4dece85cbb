// C++ API sample: an MLP block (matmul, bias, SiLU) built in code, lowered and recorded.
#include "compiler/Pipeline.h"
#include "compiler/frontend/Builder.h"
#include "trace_db/TraceWriter.h"

#include <fmt/format.h>

#include <cstdio>
#include <exception>

namespace {

pto::Module buildMlpBlock() {
    using pto::DType;
    pto::ModuleBuilder mb(__FILE__);
    auto f = mb.function("mlp_block");
    auto x = f.arg("x", pto::tensorType({128, 512}, DType::F16));
    auto w = f.arg("w", pto::tensorType({512, 256}, DType::F16));
    auto bias = f.arg("bias", pto::tensorType({256}, DType::F32));
    f.cubeTile({64, 128}, {64, 128}, {128, 128});
    auto h = f.matmul(x, w).named("h"); // f32 accumulation
    f.vecTile({32, 256});
    auto act = f.silu(f.add(h, bias)).named("act");
    f.ret(f.cast(act, DType::F16));
    return mb.finish();
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        fmt::print(stderr, "usage: {} OUT.db\n", argv[0]);
        return 2;
    }
    try {
        pto::CompileState state = pto::loadModule(buildMlpBlock());
        pto::CompileOptions options;
        auto writer = pto::tracedb::TraceWriter::create(argv[1]);
        pto::compileProgram(state, options, &writer);
        writer.commit();
        size_t instrs = 0;
        for (const auto& k : state.pto.kernels) instrs += k.instrs.size();
        fmt::print("mlp_block: {} tile ops, {} tasks, {} PTO instructions -> {}\n",
                   state.tileFunction().ops().size(), state.exec.tasks.size(), instrs, argv[1]);
    } catch (const std::exception& e) {
        fmt::print(stderr, "{}\n", e.what());
        return 2;
    }
    return 0;
}
