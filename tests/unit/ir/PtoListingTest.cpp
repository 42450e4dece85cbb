// The PTO listing: printing and parsing back exactly (every opcode and field), diagnostics with
// line:col, and the PTO verifier's checks.
#include "compiler/ir/PtoParser.h"
#include "compiler/ir/PtoPrinter.h"
#include "compiler/ir/Verifier.h"

#include "tests/support/ReadFile.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>
#include <functional>
#include <sstream>

namespace pto {
namespace {

using test::readFile;

Operand op(MemSpace space, DType dtype, int64_t addr, int32_t rows, int32_t cols, int64_t stride) {
    return Operand{space, dtype, addr, rows, cols, stride};
}

Instr instr(Opcode opcode, Pipe pipe, std::vector<Operand> operands) {
    Instr in;
    in.opcode = opcode;
    in.pipe = pipe;
    for (const Operand& o : operands) in.operands[in.operandCount++] = o;
    return in;
}

// A valid program with one cube and one vector kernel that uses every opcode and field.
PtoProgram sampleProgram() {
    PtoProgram p;
    p.name = "sample";
    p.gm = {{"a", DType::F16, {128, 64}, 0x0, GmRole::Input, 0},
            {"b", DType::F16, {64, 128}, 0x4000, GmRole::Input, kNoId},
            {"c", DType::F32, {128, 128}, 0x8000, GmRole::Output, 3},
            {"ws", DType::F32, {128, 128}, 0x18000, GmRole::Workspace, kNoId},
            {"io", DType::F32, {16, 16}, 0x28000, GmRole::InOut, kNoId}};
    Kernel cube{0, "mm", CoreType::AIC, {}, {}};
    auto l1 = [](int64_t addr, int32_t r, int32_t c) {
        return op(MemSpace::L1, DType::F16, addr, r, c, c);
    };
    cube.instrs.push_back(instr(Opcode::TLoad, Pipe::MTE2,
                                {l1(0, 128, 64), op(MemSpace::GM, DType::F16, 0, 128, 64, 64)}));
    cube.instrs.push_back(
        instr(Opcode::TLoad, Pipe::MTE2,
              {l1(0x4000, 64, 128), op(MemSpace::GM, DType::F16, 0x4000, 64, 128, 128)}));
    Instr set = instr(Opcode::SetFlag, Pipe::MTE2, {});
    set.flagSrc = Pipe::MTE2;
    set.flagDst = Pipe::MTE1;
    set.event = 3;
    cube.instrs.push_back(set);
    Instr wait = set;
    wait.opcode = Opcode::WaitFlag;
    wait.pipe = Pipe::MTE1;
    cube.instrs.push_back(wait);
    cube.instrs.push_back(instr(Opcode::TExtract, Pipe::MTE1,
                                {op(MemSpace::L0A, DType::F16, 0, 128, 64, 64), l1(0, 128, 64)}));
    cube.instrs.push_back(
        instr(Opcode::TMov, Pipe::MTE1,
              {op(MemSpace::L0B, DType::F16, 0, 64, 128, 128), l1(0x4000, 64, 128)}));
    Instr mm = instr(Opcode::TMatmul, Pipe::M,
                     {op(MemSpace::L0C, DType::F32, 0, 128, 128, 128),
                      op(MemSpace::L0A, DType::F16, 0, 128, 64, 64),
                      op(MemSpace::L0B, DType::F16, 0, 64, 128, 128)});
    mm.transposeB = true;
    mm.tileOp = 12;
    mm.loc = {5, 8};
    cube.instrs.push_back(mm);
    Instr acc = mm;
    acc.opcode = Opcode::TMatmulAcc;
    acc.transposeA = true;
    acc.transposeB = false;
    cube.instrs.push_back(acc);
    Instr barrier = instr(Opcode::Barrier, Pipe::S, {});
    barrier.flagSrc = Pipe::M;
    cube.instrs.push_back(barrier);
    cube.instrs.push_back(instr(Opcode::TStore, Pipe::FIX,
                                {op(MemSpace::GM, DType::F32, 0x18000, 128, 128, 128),
                                 op(MemSpace::L0C, DType::F32, 0, 128, 128, 128)}));

    Kernel vec{1, "epilogue", CoreType::AIV, {}, {}};
    auto ub = [](int64_t addr, int32_t r = 16, int32_t c = 128) {
        return op(MemSpace::UB, DType::F32, addr, r, c, c);
    };
    vec.instrs.push_back(instr(Opcode::TLoad, Pipe::MTE2,
                               {ub(0), op(MemSpace::GM, DType::F32, 0x18000, 16, 128, 128)}));
    for (int o = int(Opcode::TAdd); o <= int(Opcode::TTrans); ++o) {
        Opcode code = Opcode(o);
        auto [lo, hi] = ptoOperandCountRange(code);
        std::vector<Operand> ops;
        for (int i = 0; i < lo; ++i) ops.push_back(ub(0x2000 * i));
        Instr in = instr(code, Pipe::V, ops);
        if (code == Opcode::TAdd) in.operands[2].stride = 0; // a row broadcast source
        if (code == Opcode::TCvt) in.mode = "trunc";
        if (code == Opcode::TCmp || code == Opcode::TCmpS) in.mode = "le";
        if (code >= Opcode::TAddS && code <= Opcode::TCmpS) in.scalar = -0.25;
        if (code == Opcode::TExpandS) in.scalar = 1e-06;
        in.tileOp = OpId(o);
        vec.instrs.push_back(in);
    }
    vec.instrs.push_back(instr(Opcode::TStore, Pipe::MTE3,
                               {op(MemSpace::GM, DType::F32, 0x8000, 16, 128, 128), ub(0)}));
    p.kernels = {cube, vec};
    p.exec.tasks = {{0, 0, CoreType::AIC, "mm.0"},
                    {1, 1, CoreType::AIV, ""},
                    {2, 1, CoreType::AIV, "epilogue.1"}};
    p.exec.deps = {{0, 1, DepKind::Raw, 3},
                   {0, 2, DepKind::Raw, 3},
                   {1, 2, DepKind::Waw, 2},
                   {1, 2, DepKind::War, UINT32_MAX}};
    return p;
}

void expectSameInstr(const Instr& a, const Instr& b, const std::string& where) {
    EXPECT_EQ(a.opcode, b.opcode) << where;
    EXPECT_EQ(a.pipe, b.pipe) << where;
    ASSERT_EQ(a.operandCount, b.operandCount) << where;
    for (int i = 0; i < a.operandCount; ++i) EXPECT_EQ(a.operands[i], b.operands[i]) << where;
    EXPECT_EQ(a.flagSrc, b.flagSrc) << where;
    EXPECT_EQ(a.flagDst, b.flagDst) << where;
    EXPECT_EQ(a.event, b.event) << where;
    EXPECT_EQ(a.scalar, b.scalar) << where;
    EXPECT_EQ(a.mode, b.mode) << where;
    EXPECT_EQ(a.transposeA, b.transposeA) << where;
    EXPECT_EQ(a.transposeB, b.transposeB) << where;
    EXPECT_EQ(a.tileOp, b.tileOp) << where;
    EXPECT_EQ(a.loc, b.loc) << where;
}

TEST(PtoListing, EveryFieldRoundTrips) {
    PtoProgram p = sampleProgram();
    ASSERT_NO_THROW(verifyPtoProgram(p, "sample"));
    std::string text = printPtoProgram(p);
    PtoProgram back = parsePtoProgram(text, "sample.ptoasm");
    EXPECT_EQ(printPtoProgram(back), text);
    EXPECT_EQ(back.name, p.name);
    ASSERT_EQ(back.gm.size(), p.gm.size());
    for (size_t i = 0; i < p.gm.size(); ++i) {
        EXPECT_EQ(back.gm[i].name, p.gm[i].name);
        EXPECT_EQ(back.gm[i].dtype, p.gm[i].dtype);
        EXPECT_EQ(back.gm[i].shape, p.gm[i].shape);
        EXPECT_EQ(back.gm[i].addr, p.gm[i].addr);
        EXPECT_EQ(back.gm[i].role, p.gm[i].role);
        EXPECT_EQ(back.gm[i].tensorValue, p.gm[i].tensorValue);
    }
    ASSERT_EQ(back.kernels.size(), p.kernels.size());
    for (size_t k = 0; k < p.kernels.size(); ++k) {
        EXPECT_EQ(back.kernels[k].id, p.kernels[k].id);
        EXPECT_EQ(back.kernels[k].name, p.kernels[k].name);
        EXPECT_EQ(back.kernels[k].core, p.kernels[k].core);
        ASSERT_EQ(back.kernels[k].instrs.size(), p.kernels[k].instrs.size());
        for (size_t i = 0; i < p.kernels[k].instrs.size(); ++i)
            expectSameInstr(back.kernels[k].instrs[i], p.kernels[k].instrs[i],
                            fmt::format("kernel {} instr {}", k, i));
    }
    ASSERT_EQ(back.exec.tasks.size(), p.exec.tasks.size());
    for (size_t t = 0; t < p.exec.tasks.size(); ++t) {
        EXPECT_EQ(back.exec.tasks[t].block, p.exec.tasks[t].block);
        EXPECT_EQ(back.exec.tasks[t].core, p.exec.tasks[t].core);
        EXPECT_EQ(back.exec.tasks[t].name, p.exec.tasks[t].name);
    }
    ASSERT_EQ(back.exec.deps.size(), p.exec.deps.size());
    for (size_t d = 0; d < p.exec.deps.size(); ++d) {
        EXPECT_EQ(back.exec.deps[d].from, p.exec.deps[d].from);
        EXPECT_EQ(back.exec.deps[d].to, p.exec.deps[d].to);
        EXPECT_EQ(back.exec.deps[d].kind, p.exec.deps[d].kind);
        EXPECT_EQ(back.exec.deps[d].tensor, p.exec.deps[d].tensor);
    }
}

TEST(PtoListing, PrintsReadableLines) {
    std::string text = printPtoProgram(sampleProgram());
    EXPECT_NE(text.find("pto @sample\n"), std::string::npos);
    EXPECT_NE(text.find("gm %a : f16[128x64] @0x0 input !value 0\n"), std::string::npos);
    EXPECT_NE(text.find("gm %ws : f32[128x128] @0x18000 workspace\n"), std::string::npos);
    EXPECT_NE(text.find("kernel @mm aic {\n"), std::string::npos);
    EXPECT_NE(text.find("  MTE2 SET_FLAG      MTE2->MTE1 3\n"), std::string::npos);
    EXPECT_NE(text.find("  M    TMATMUL       L0C[0x0]:f32[128x128/128], L0A[0x0]:f16[128x64/64], "
                        "L0B[0x0]:f16[64x128/128] {transpose_b} !op 12 !loc 5:8\n"),
              std::string::npos);
    EXPECT_NE(text.find("  S    BARRIER       M\n"), std::string::npos);
    EXPECT_NE(text.find("{round = trunc}"), std::string::npos);
    EXPECT_NE(text.find("{scalar = -0.25, pred = le}"), std::string::npos);
    EXPECT_NE(text.find("task 0 @mm aic \"mm.0\"\n"), std::string::npos);
    EXPECT_NE(text.find("task 2 @epilogue aiv \"epilogue.1\" after 0 raw %ws, 1 waw %c, 1 war\n"),
              std::string::npos);
}

TEST(PtoListing, HandWrittenListingParses) {
    std::string path = PTO_SOURCE_DIR "/tests/unit/ir/softmax.ptoasm";
    std::string text = readFile(path);
    PtoProgram p = parsePtoProgram(text, path);
    ASSERT_EQ(p.kernels.size(), 1u);
    const Kernel& k = p.kernels[0];
    EXPECT_EQ(k.core, CoreType::AIV);
    ASSERT_EQ(k.instrs.size(), 15u);
    EXPECT_EQ(k.instrs[0].opcode, Opcode::TLoad);
    EXPECT_EQ(k.instrs[0].operands[1], (Operand{MemSpace::GM, DType::F16, 0, 16, 1024, 1024}));
    EXPECT_EQ(k.instrs[0].loc, (SourceLoc{3, 9}));
    EXPECT_EQ(k.instrs[3].mode, "rne");
    EXPECT_EQ(k.instrs[9].scalar, 1.0);
    EXPECT_EQ(k.instrs[14].flagSrc, Pipe::MTE3);
    EXPECT_EQ(p.gm[1].tensorValue, 7u);
    // The listing is canonical: printing gives the file back without its comment line.
    EXPECT_EQ(printPtoProgram(p), text.substr(text.find('\n') + 1));
}

CompileError listingError(const std::string& text) {
    try {
        parsePtoProgram(text, "bad.ptoasm");
    } catch (const CompileError& e) {
        return e;
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return CompileError("", {}, "");
}

TEST(PtoListing, ErrorsHaveLineAndColumn) {
    const std::string head = "pto @p\ngm %x : f32[16x16] @0x0 input\nkernel @k aiv {\n";
    struct Case {
        std::string text;
        SourceLoc loc;
        std::string message;
    };
    const Case cases[] = {
        {head + "  V    TADDD UB[0x0]:f32[1x16/16]\n}\n",
         {4, 8},
         "unknown opcode 'TADDD' (did you mean 'TADD'?)"},
        {head + "  Q    TADD\n}\n", {4, 3}, "unknown pipe 'Q'"},
        {head + "  V    TEXP UB[0x0]:f32[1x16/16] UB[0x0]:f32[1x16/16]\n}\n",
         {4, 34},
         "found the operand 'UB' where an instruction should start (missing ',' between "
         "operands?)"},
        {head + "  V    TEXP UB[0x0]:f32[1x16], UB[0x0]:f32[1x16/16]\n}\n",
         {4, 29},
         "expected '/' and the row stride, found ']'"},
        {head + "  V    TEXP UB[0x0]:f64[1x16/16], UB[0x0]:f32[1x16/16]\n}\n",
         {4, 21},
         "unknown dtype 'f64'"},
        {head + "  V    TEXP UB[0x0]:f32[1 x16/16], UB[0x0]:f32[1x16/16]\n}\n",
         {4, 27},
         "expected 'x' and the number of columns (as in 16x1024), found 'x16'"},
        {head + "  MTE2 SET_FLAG MTE2 V 0\n}\n",
         {4, 22},
         "expected '->' between the source and destination pipes, found 'V'"},
        {head + "  V    TEXP UB[0x0]:f32[1x16/16], UB[0x0]:f32[1x16/16] {round = rne, speed}\n}\n",
         {4, 70},
         "unknown instruction attribute 'speed'"},
        {head + "  V    TEXP UB[0x0]:f32[1x16/16], UB[0x0]:f32[1x16/16] !when 3\n}\n",
         {4, 57},
         "unknown tag !when"},
        {head + "  V    TEXP UB[0x0]:f32[1x16/16], UB[0x0]:f32[1x16/16]\n",
         {5, 1},
         "unterminated kernel @k"},
        {head + "}\ntask 0 @nope aiv\n", {5, 8}, "unknown kernel 'nope'"},
        {head + "}\ntask 0 @k aiv after 0 rar\n", {5, 23}, "unknown dependency kind 'rar'"},
        {"gm %x : f32[16] @0x0 input\n", {1, 1}, "expected 'pto' to start a PTO listing"},
        {"pto @p\ngm %x : f32[16] @0x0 inplace\n",
         {2, 22},
         "unknown role 'inplace' (input, output, workspace or inout)"},
        {"pto @p\nkernel @k gpu {\n}\n", {2, 11}, "unknown core type 'gpu' (aic or aiv)"},
        {"pto @p\nblock @k aiv {\n}\n", {2, 1}, "expected 'gm', 'kernel', 'task' or 'dep'"},
    };
    for (const Case& c : cases) {
        CompileError e = listingError(c.text);
        EXPECT_EQ(e.loc(), c.loc) << c.message << " / got " << e.what();
        EXPECT_NE(e.message().find(c.message), std::string::npos) << e.what();
    }
}

// A listing's semantic errors are reported at the instruction's line of the listing, like its
// syntax errors; a move on a pipe its path does not run on is one (it was a fault at run time).
TEST(PtoListing, VerifierErrorsAreAtTheInstructionsLine) {
    const std::string head = "pto @p\ngm %x : f32[16x16] @0x0 input\nkernel @k aiv {\n";
    struct Case {
        std::string text;
        SourceLoc loc;
        std::string message;
    };
    const Case cases[] = {
        {head + "  MTE2 TLOAD UB[0x0]:f32[16x16/16], GM[0x0]:f32[16x16/16]\n"
                "  V    TLOAD UB[0x0]:f32[16x16/16], GM[0x0]:f32[16x16/16]\n}\ntask 0 @k aiv\n",
         {5, 3},
         "kernel @k instr 1 (TLOAD): a GM->UB move runs on pipe MTE2, not V"},
        {head + "  MTE2 TLOAD UB[0x0]:f32[16x16/16], GM[0x400]:f32[16x16/16]\n}\n"
                "task 0 @k aiv\n",
         {4, 3},
         "kernel @k instr 0 (TLOAD): operand 1 covers GM [0x400, 0x800), which is not inside a "
         "declared GM tensor"},
        // At the listing's line, not at the .pto position its `!loc` tag keeps.
        {head + "  MTE2 TLOAD UB[0x0]:f32[16x16/16], GM[0x0]:f32[16x16/16]\n"
                "  M    TADD UB[0x0]:f32[16x16/16], UB[0x0]:f32[16x16/16], "
                "UB[0x0]:f32[16x16/16] !loc 9:9\n}\ntask 0 @k aiv\n",
         {5, 3},
         "kernel @k instr 1 (TADD): pipe M does not exist on an aiv core"},
    };
    for (const Case& c : cases) {
        CompileError e = listingError(c.text);
        EXPECT_EQ(e.loc(), c.loc) << c.message << " / got " << e.what();
        EXPECT_NE(e.message().find(c.message), std::string::npos) << e.what();
    }
}

// The verifier's error for a defect applied to the sample program.
std::string verifyError(const std::function<void(PtoProgram&)>& mutate) {
    PtoProgram p = sampleProgram();
    mutate(p);
    try {
        verifyPtoProgram(p, "v.ptoasm");
    } catch (const CompileError& e) {
        return e.message();
    }
    return "no error";
}

TEST(PtoVerifier, CatchesEachDefect) {
    struct Case {
        std::function<void(PtoProgram&)> mutate;
        std::string message;
    };
    const Case cases[] = {
        {[](PtoProgram& p) { p.kernels[1].instrs[1].pipe = Pipe::M; },
         "kernel @epilogue instr 1 (TADD): pipe M does not exist on an aiv core"},
        {[](PtoProgram& p) { p.kernels[0].instrs[2].flagDst = Pipe::V; },
         "kernel @mm instr 2 (SET_FLAG): flag pipe V does not exist on an aic core"},
        {[](PtoProgram& p) { p.kernels[0].instrs[2].event = 8; },
         "event id 8 is out of range 0..7"},
        {[](PtoProgram& p) { p.kernels[1].instrs[1].operandCount = 2; },
         "kernel @epilogue instr 1 (TADD): takes 3 operands, has 2"},
        {[](PtoProgram& p) { p.kernels[0].instrs[6].operandCount = 2; },
         "(TMATMUL): takes 3 operands, has 2"},
        {[](PtoProgram& p) { p.kernels[1].instrs[1].operands[0].space = MemSpace::L1; },
         "operand 0 is in L1, which an AIV core does not have"},
        {[](PtoProgram& p) { p.kernels[1].instrs[1].operands[0].addr = 184 * 1024 - 64; },
         "operand 0 covers UB [0x2dfc0, 0x2ffc0), beyond its 188416 bytes"},
        {[](PtoProgram& p) { p.kernels[1].instrs[1].operands[0].stride = 8; },
         "operand 0 has shape 16x128 with row stride 8"},
        {[](PtoProgram& p) { p.kernels[1].instrs[1].operands[0].stride = 0; },
         "operand 0 has shape 16x128 with row stride 0"},
        {[](PtoProgram& p) { p.kernels[1].instrs[0].operands[1].addr = 0x28000; },
         "operand 1 covers GM [0x28000, 0x2a000), which is not inside a declared GM tensor"},
        {[](PtoProgram& p) { p.kernels[1].instrs[0].operands[1].rows = 200; },
         "which is not inside a declared GM tensor"},
        {[](PtoProgram& p) { p.kernels[1].id = 5; }, "kernel @epilogue has id 5"},
        {[](PtoProgram& p) { p.kernels[1].core = CoreType::None; },
         "kernel @epilogue has core type none"},
        {[](PtoProgram& p) { p.exec.tasks[2].block = 9; }, "task 2 runs kernel 9"},
        {[](PtoProgram& p) { p.exec.tasks[2].core = CoreType::AIC; },
         "task 2 is on an aic core, but kernel @epilogue is aiv"},
        {[](PtoProgram& p) { p.exec.tasks[1].id = 4; }, "task 1 has id 4"},
        {[](PtoProgram& p) {
             p.exec.deps.push_back({2, 7, DepKind::Raw, UINT32_MAX});
         },
         "dependency 2 -> 7 does not link two tasks"},
        {[](PtoProgram& p) {
             p.exec.deps.push_back({2, 2, DepKind::Raw, UINT32_MAX});
         },
         "dependency 2 -> 2 does not link two tasks"},
        {[](PtoProgram& p) {
             p.exec.deps.push_back({2, 0, DepKind::War, 1});
         },
         "the task graph has a cycle through task 0"},
        {[](PtoProgram& p) {
             p.exec.deps.push_back({0, 1, DepKind::Raw, 9});
         },
         "names GM tensor 9, but there are 5"},
    };
    for (const Case& c : cases) {
        std::string got = verifyError(c.mutate);
        EXPECT_NE(got.find(c.message), std::string::npos)
            << "want: " << c.message << "\ngot: " << got;
    }
}

TEST(PtoVerifier, ErrorsCarryTheSourceLoc) {
    PtoProgram p = sampleProgram();
    p.kernels[0].instrs[6].pipe = Pipe::V;
    try {
        verifyPtoProgram(p, "v.ptoasm");
        FAIL();
    } catch (const CompileError& e) {
        EXPECT_EQ(e.loc(), (SourceLoc{5, 8}));
        EXPECT_EQ(e.file(), "v.ptoasm");
    }
}

TEST(PtoListing, QuotedNamesAndIndexReferences) {
    PtoProgram p = sampleProgram();
    p.name = "my program";
    p.gm[2].name = "out put";
    p.kernels[1].name = "mm"; // duplicate: tasks fall back to #index
    std::string text = printPtoProgram(p);
    EXPECT_NE(text.find("pto \"my program\"\n"), std::string::npos);
    EXPECT_NE(text.find("gm \"out put\" : f32[128x128]"), std::string::npos);
    EXPECT_NE(text.find("task 1 #1 aiv after 0 raw %ws\n"), std::string::npos);
    EXPECT_NE(text.find("after 0 raw %ws, 1 waw #2, 1 war\n"), std::string::npos);
    EXPECT_EQ(printPtoProgram(parsePtoProgram(text, "q.ptoasm")), text);
}

} // namespace
} // namespace pto
