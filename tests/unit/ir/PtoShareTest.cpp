// Tests of kernels shared by isomorphic tasks: finding them, rebasing and writing them out again
// (compiler/ir/PtoShare.h).
#include "compiler/ir/PtoShare.h"
#include "compiler/ir/PtoParser.h"
#include "compiler/ir/PtoPrinter.h"
#include "compiler/ir/Verifier.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

namespace pto::test {
namespace {

constexpr int64_t kRowBytes = 64 * 4; // one f32 row of 64

// `clusters` copies of one AIV kernel: load row c of `x` and of its own workspace `ws<c>`, add
// them, store row c of `y`. x, y: clusters × 64 f32; each workspace one row, after y.
PtoProgram rowsProgram(int clusters, int64_t wsGap = kRowBytes) {
    PtoProgram p;
    p.name = "rows";
    const int64_t tensorBytes = clusters * kRowBytes;
    p.gm.push_back({"x", DType::F32, Shape{clusters, 64}, 0, GmRole::Input});
    p.gm.push_back({"y", DType::F32, Shape{clusters, 64}, tensorBytes, GmRole::Output});
    for (int c = 0; c < clusters; ++c)
        p.gm.push_back({fmt::format("ws{}", c), DType::F32, Shape{1, 64},
                        2 * tensorBytes + c * wsGap, GmRole::Workspace});
    for (int c = 0; c < clusters; ++c) {
        Kernel k;
        k.id = uint32_t(c);
        k.name = fmt::format("rows_aiv_{}", c);
        auto move = [&](Opcode op, Pipe pipe, Operand dst, Operand src) {
            Instr in;
            in.opcode = op;
            in.pipe = pipe;
            in.operandCount = 2;
            in.operands[0] = dst;
            in.operands[1] = src;
            in.tileOp = OpId(100 * c + int(k.instrs.size()));
            in.loc = {uint32_t(3 + k.instrs.size()), 1};
            k.instrs.push_back(in);
        };
        const int64_t ws = p.gm[size_t(2 + c)].addr;
        move(Opcode::TLoad, Pipe::MTE2, {MemSpace::UB, DType::F32, 0, 1, 64, 64},
             {MemSpace::GM, DType::F32, c * kRowBytes, 1, 64, 64});
        move(Opcode::TLoad, Pipe::MTE2, {MemSpace::UB, DType::F32, 0x400, 1, 64, 64},
             {MemSpace::GM, DType::F32, ws, 1, 64, 64});
        move(Opcode::TStore, Pipe::MTE3,
             {MemSpace::GM, DType::F32, tensorBytes + c * kRowBytes, 1, 64, 64},
             {MemSpace::UB, DType::F32, 0, 1, 64, 64});
        p.kernels.push_back(k);
        p.exec.tasks.push_back({uint32_t(c), uint32_t(c), CoreType::AIV, k.name});
    }
    return p;
}

TEST(ShareIsomorphicKernels, KernelsEqualButForGmAddressesBecomeOneWithRebases) {
    PtoProgram p = rowsProgram(4);
    const PtoProgram original = p;
    const ShareStats stats = shareIsomorphicKernels(p);
    EXPECT_EQ(stats.kernelsBefore, 4u);
    EXPECT_EQ(stats.kernelsAfter, 1u);
    EXPECT_EQ(stats.merged(), 3u);
    ASSERT_EQ(p.kernels.size(), 1u);
    EXPECT_EQ(p.kernels[0].name, "rows_aiv_0");
    EXPECT_EQ(p.kernels[0].instrs[0].tileOp, 0u); // the representative's provenance
    const int64_t t = 4 * kRowBytes;
    for (uint32_t c = 0; c < 4; ++c) {
        const Task& task = p.exec.tasks[c];
        EXPECT_EQ(task.block, 0u);
        if (c == 0) {
            EXPECT_TRUE(task.rebases.empty());
            continue;
        }
        // x, y and the workspace (ws0 to ws<c>) all move by c rows: adjacent tensors with
        // one distance share one rebase.
        const std::vector<GmRebase> want{{0, 2 * t + kRowBytes, int64_t(c) * kRowBytes}};
        EXPECT_EQ(task.rebases, want) << c;
    }
    // Written out again, each task's kernel has its original addresses.
    const PtoProgram expanded = expandSharedKernels(p);
    for (uint32_t c = 1; c < 4; ++c) {
        const Kernel& k = expanded.kernels[expanded.exec.tasks[c].block];
        for (size_t i = 0; i < k.instrs.size(); ++i)
            for (size_t j = 0; j < 2; ++j)
                EXPECT_EQ(k.instrs[i].operands[j], original.kernels[c].instrs[i].operands[j]);
    }
}

TEST(ShareIsomorphicKernels, TensorsWithDifferentDistancesGetTheirOwnRebases) {
    // Workspaces 0x1000 apart while rows move by 256 B: x/y one rebase, the workspace another.
    PtoProgram p = rowsProgram(3, 0x1000);
    shareIsomorphicKernels(p);
    ASSERT_EQ(p.kernels.size(), 1u);
    const int64_t t = 3 * kRowBytes;
    const std::vector<GmRebase> want{{0, 2 * t, 2 * kRowBytes},
                                     {2 * t, 2 * t + kRowBytes, 2 * 0x1000}};
    EXPECT_EQ(p.exec.tasks[2].rebases, want);
}

TEST(ShareIsomorphicKernels, DistancesThatAreNotConstantPerTensorAreNotMerged) {
    PtoProgram p = rowsProgram(3);
    // Kernel 2 loads row 2 of x but stores row 1 of y: x moves by 2 rows, y by 1 — fine — but a
    // second load of x row 0 (moving by 0) breaks x's single distance.
    Instr extra = p.kernels[0].instrs[0];
    for (Kernel& k : p.kernels) k.instrs.push_back(extra);
    shareIsomorphicKernels(p);
    // Kernel 1 and 2 load x at rows 1/2 and row 0: two distances in x — each stays its own.
    EXPECT_EQ(p.kernels.size(), 3u);
    for (const Task& t : p.exec.tasks) EXPECT_TRUE(t.rebases.empty());
    for (uint32_t k = 0; k < 3; ++k) EXPECT_EQ(p.kernels[k].id, k);
}

TEST(ShareIsomorphicKernels, KernelsDifferingOnChipOrInSourceLineAreNotMerged) {
    PtoProgram p = rowsProgram(3);
    p.kernels[1].instrs[1].operands[0].addr = 0x800; // another UB buffer
    p.kernels[2].instrs[2].loc.line = 99;
    shareIsomorphicKernels(p);
    EXPECT_EQ(p.kernels.size(), 3u);
}

TEST(ShareIsomorphicKernels, CountedLoopRoundsStayInOneRebase) {
    // One kernel per cluster whose load walks 2 rows of x in a counted loop.
    PtoProgram p = rowsProgram(4);
    for (Kernel& k : p.kernels) {
        k.instrs.resize(1);
        k.loops.push_back(InstrLoop{0, 1, 2, 0, 1, {}, {}, "i", {{0, kRowBytes, 0, 0}}, {}});
    }
    // Rows c and c + 1 for c = 0, 2 share (x moves by 2 rows); 1 and 3 are another class but
    // equal in structure: kernel 1 moves kernel 0 by one row, which is fine as well.
    shareIsomorphicKernels(p);
    EXPECT_EQ(p.kernels.size(), 1u);
    EXPECT_EQ(p.exec.tasks[3].rebases, (std::vector<GmRebase>{{0, 4 * kRowBytes, 3 * kRowBytes}}));
    // A loop that would walk past x's end in the last cluster keeps that kernel apart: its
    // representative's rounds leave the tensor the rebase covers.
    PtoProgram q = rowsProgram(4);
    for (Kernel& k : q.kernels) {
        k.instrs.resize(1);
        k.loops.push_back(InstrLoop{0, 1, 5, 0, 1, {}, {}, "i", {{0, kRowBytes, 0, 0}}, {}});
    }
    shareIsomorphicKernels(q); // rounds of kernel 0 cover x rows 0..4: past x, into y
    EXPECT_EQ(q.kernels.size(), 4u);
}

TEST(ShareIsomorphicKernels, TasksThatAlreadyMoveTheirKernelAreLeftAlone) {
    PtoProgram p = rowsProgram(3);
    p.exec.tasks[1].rebases = {{0, 10, 0x10}};
    shareIsomorphicKernels(p);
    ASSERT_EQ(p.kernels.size(), 2u); // kernel 2 merges into 0; kernel 1 is kept as it was
    EXPECT_EQ(p.exec.tasks[1].block, 1u);
    EXPECT_EQ(p.exec.tasks[1].rebases, (std::vector<GmRebase>{{0, 10, 0x10}}));
    EXPECT_EQ(p.exec.tasks[2].block, 0u);
}

TEST(RebasedAddress, MovesOnlyAddressesInsideARebase) {
    const std::vector<GmRebase> r{{0x100, 0x200, 0x1000}, {0x200, 0x300, -0x80}};
    EXPECT_EQ(rebasedAddress(r, 0xff), 0xff);
    EXPECT_EQ(rebasedAddress(r, 0x100), 0x1100);
    EXPECT_EQ(rebasedAddress(r, 0x1ff), 0x11ff);
    EXPECT_EQ(rebasedAddress(r, 0x200), 0x180);
    EXPECT_EQ(rebasedAddress(r, 0x300), 0x300);
}

// A listing of one kernel loading 16 rows of x (64 x 64 f32) and storing them to y, its tasks
// given by `tasks`; `loop` puts the load in a counted loop of that many rounds (0 = none).
std::string sharedListing(const std::string& tasks, int loop = 0) {
    const std::string load = loop ? "MTE2 TLOAD UB[0x0]:f32[16x64/64], "
                                    "GM[0x0 + 0x100*i]:f32[16x64/64]\n"
                                  : "MTE2 TLOAD UB[0x0]:f32[16x64/64], GM[0x0]:f32[16x64/64]\n";
    return "pto @s\n"
           "gm %x : f32[64x64] @0x0 input\n"
           "gm %y : f32[64x64] @0x4000 output\n"
           "kernel @k aiv {\n" +
           (loop ? fmt::format("loop \"r\" {} iter 0 {{\n", loop) + load + "}\n" : load) +
           "MTE3 TSTORE GM[0x4000]:f32[16x64/64], UB[0x0]:f32[16x64/64]\n"
           "}\n" +
           tasks;
}

std::string verifierError(const std::string& listing) {
    try {
        verifyPtoProgram(parsePtoProgram(listing, "s.ptoasm"), "s.ptoasm");
        return "no error";
    } catch (const CompileError& e) {
        return e.what();
    }
}

TEST(SharedKernelListing, TasksPrintAndParseTheirRebases) {
    const std::string text = sharedListing("task 0 @k aiv\n"
                                           "task 1 @k aiv rebase [0x0, 0x8000) +0x1000\n"
                                           "task 2 @k aiv rebase [0x0, 0x4000) +0x2000, "
                                           "[0x4000, 0x8000) +0x2000 after 1 raw\n"
                                           "task 3 @k aiv rebase [0x1000, 0x8000) -0x1000\n");
    const PtoProgram p = parsePtoProgram(text, "s.ptoasm");
    verifyPtoProgram(p, "s.ptoasm");
    EXPECT_EQ(p.exec.tasks[1].rebases, (std::vector<GmRebase>{{0, 0x8000, 0x1000}}));
    EXPECT_EQ(p.exec.tasks[2].rebases,
              (std::vector<GmRebase>{{0, 0x4000, 0x2000}, {0x4000, 0x8000, 0x2000}}));
    EXPECT_EQ(p.exec.tasks[3].rebases, (std::vector<GmRebase>{{0x1000, 0x8000, -0x1000}}));
    const std::string printed = printPtoProgram(p);
    EXPECT_NE(printed.find("task 2 @k aiv rebase [0x0, 0x4000) +0x2000, [0x4000, 0x8000) "
                           "+0x2000 after 1 raw\n"),
              std::string::npos)
        << printed;
    EXPECT_NE(printed.find("task 3 @k aiv rebase [0x1000, 0x8000) -0x1000\n"), std::string::npos)
        << printed;
    const PtoProgram back = parsePtoProgram(printed, "back.ptoasm");
    EXPECT_EQ(printPtoProgram(back), printed);
    for (size_t t = 0; t < 4; ++t) EXPECT_EQ(back.exec.tasks[t].rebases, p.exec.tasks[t].rebases);
}

TEST(SharedKernelListing, TheVerifierNamesTheTaskAndTheInstruction) {
    const std::string prefix = "s.ptoasm: error: pto @s: ";
    EXPECT_EQ(verifierError(sharedListing("task 0 @k aiv rebase [0x4000, 0x4000) +0x10\n")),
              prefix + "task 0: rebase [0x4000, 0x4000) is empty");
    EXPECT_EQ(verifierError(sharedListing(
                  "task 0 @k aiv rebase [0x4000, 0x8000) +0x10, [0x0, 0x4000) +0x10\n")),
              prefix + "task 0: rebase [0x0, 0x4000) does not start after [0x4000, 0x8000) "
                       "(rebases are sorted by address and disjoint)");
    EXPECT_EQ(verifierError(sharedListing(
                  "task 0 @k aiv rebase [0x0, 0x2000) +0x10, [0x1000, 0x4000) +0x10\n")),
              prefix + "task 0: rebase [0x1000, 0x4000) does not start after [0x0, 0x2000) "
                       "(rebases are sorted by address and disjoint)");
    // Moved by 49 rows, the 16-row load ends past x (64 rows) inside y: no tensor holds it.
    EXPECT_EQ(verifierError(sharedListing("task 0 @k aiv\ntask 1 @k aiv rebase [0x0, 0x4000) "
                                          "+0x3100\n")),
              "s.ptoasm:5:1: error: kernel @k instr 0 (TLOAD): as task 1 runs it, operand 1 "
              "covers GM [0x3100, 0x4100), which is not inside a declared GM tensor");
    // A rebase ending inside the load's rows.
    EXPECT_EQ(verifierError(sharedListing("task 0 @k aiv rebase [0x0, 0x800) +0x100\n")),
              "s.ptoasm:5:1: error: kernel @k instr 0 (TLOAD): operand 1 covers GM [0x0, 0x1000), "
              "which straddles the boundary of task 0's rebase [0x0, 0x800)");
    EXPECT_EQ(verifierError(sharedListing("task 0 @k aiv rebase [0x800, 0x4000) +0x100\n")),
              "s.ptoasm:5:1: error: kernel @k instr 0 (TLOAD): operand 1 covers GM [0x0, 0x1000), "
              "which straddles the boundary of task 0's rebase [0x800, 0x4000)");
    // Moved below address 0.
    EXPECT_EQ(verifierError(sharedListing("task 0 @k aiv rebase [0x4000, 0x8000) -0x5000\n")),
              "s.ptoasm:6:1: error: kernel @k instr 1 (TSTORE): as task 0 runs it, operand 0 "
              "moves by -0x5000 outside the GM address range");
    EXPECT_EQ(
        verifierError(sharedListing("task 0 @k aiv rebase [0x4000, 0x8000) +0x7fffffffffffffff\n")),
        "s.ptoasm:6:1: error: kernel @k instr 1 (TSTORE): as task 0 runs it, operand 0 moves "
        "by +0x7fffffffffffffff outside the GM address range");
}

TEST(SharedKernelListing, ALoopsRoundsStayInOneRebase) {
    // Rounds 0..3 read GM [0x0, 0x1000) … [0x300, 0x1300): a rebase ending at 0x1000 holds
    // round 0 but cuts round 3.
    EXPECT_EQ(verifierError(sharedListing("task 0 @k aiv rebase [0x0, 0x4000) +0x1000\n", 4)),
              "no error");
    EXPECT_EQ(verifierError(sharedListing("task 0 @k aiv rebase [0x0, 0x1000) +0x10\n", 4)),
              "s.ptoasm:6:1: error: kernel @k instr 0 (TLOAD), loop \"r\" at i = 3 (its last "
              "round): operand 1 covers GM [0x300, 0x1300), which straddles the boundary of task "
              "0's rebase [0x0, 0x1000)");
    // Moved by 48 rows, the last round ends past x.
    EXPECT_EQ(verifierError(sharedListing("task 0 @k aiv rebase [0x0, 0x4000) +0x3000\n", 4)),
              "s.ptoasm:6:1: error: kernel @k instr 0 (TLOAD), loop \"r\" at i = 3 (its last "
              "round): as task 0 runs it, operand 1 covers GM [0x3300, 0x4300), which is not "
              "inside a declared GM tensor");
}

TEST(SharedKernelListing, MalformedRebasesAreParseErrors) {
    auto parseError = [](const std::string& tasks) {
        try {
            parsePtoProgram(sharedListing(tasks), "s.ptoasm");
            return std::string("no error");
        } catch (const CompileError& e) {
            return std::string(e.what());
        }
    };
    EXPECT_NE(parseError("task 0 @k aiv rebase 0x0\n")
                  .find("expected '[' to start a rebase range [begin, end)"),
              std::string::npos);
    EXPECT_NE(parseError("task 0 @k aiv rebase [0x0, 0x10] +1\n")
                  .find("expected ')' to close the rebase range [begin, end)"),
              std::string::npos);
    EXPECT_NE(
        parseError("task 0 @k aiv rebase [-1, 0x10) +1\n").find("rebase begin -1 is out of range"),
        std::string::npos);
    EXPECT_NE(parseError("task 0 @k aiv rebase [0x0, 0x10)\n").find("rebase distance"),
              std::string::npos);
}

} // namespace
} // namespace pto::test
