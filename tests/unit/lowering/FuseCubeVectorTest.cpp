// Tests of fuse-cube-vector and insert-cross-flags on a real loop program compiled through the
// pipeline: clusters of one AIC and two AIVs, ping-pong workspaces, retired full-size ones, no
// task dependency inside a cluster, every wait matched by a set; nothing fused without a loop,
// with --no-fuse, or when the clusters would keep fewer than half the AICs busy.
#include "compiler/Pipeline.h"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <regex>
#include <string>
#include <tuple>

namespace pto::test {
namespace {

// One head, S = 2048 (16 query blocks of 128 rows), eight K/V blocks of 256 keys.
std::string onlineSoftmax(int s) {
    std::string text = R"(func @fa(%q: tensor<SxSIZE>, %k: tensor<SxSIZE>, %v: tensor<SxSIZE>)
    -> tensor<SxSIZE> {
  vec_tile [32, 128]
  %m0 = fill {value = -inf} : tensor<Sx1xf32>
  %l0 = fill {value = 0.0} : tensor<Sx1xf32>
  %o0 = fill {value = 0.0} : tensor<Sx128xf32>
  %st:3 = for "kv" %j = 0 to TRIPS step 1 iter_args(%m = %m0, %l = %l0, %o = %o0) {
    vec_tile [32, 256]
    %kj = view %k {offsets = [%j * 256, 0], sizes = [256, 128]}
    %vj = view %v {offsets = [%j * 256, 0], sizes = [256, 128]}
    %qk = matmul %q, %kj {transpose_b}
    %s = muls %qk, 0.08838834764831845
    %bm = reduce_max %s {axis = 1, keepdim}
    %mj = max %m, %bm
    %p = exp (sub %s, %mj)
    %r = reduce_sum %p {axis = 1, keepdim}
    %pv = matmul (cast %p : tensor<Sx256xf16>), %vj
    vec_tile [64, 128]
    %a = exp (sub %m, %mj)
    %lj = add (mul %l, %a), %r
    %oj = add (mul %o, %a), %pv
    yield %mj, %lj, %oj
  }
  %out = cast (div %st#2, %st#1) : tensor<SxSIZE>
  return %out
}
)";
    text = std::regex_replace(text, std::regex("SxSIZE"), std::to_string(s) + "x128xf16");
    text = std::regex_replace(text, std::regex("TRIPS"), std::to_string(s / 256));
    return std::regex_replace(text, std::regex("<Sx"), "<" + std::to_string(s) + "x");
}

CompileState compile(const std::string& text, bool fuse = true) {
    CompileState state = loadProgramText(text, "fa.pto");
    CompileOptions options;
    options.fuse = fuse;
    compileProgram(state, options);
    return state;
}

TEST(FuseCubeVector, AnOnlineSoftmaxLoopBecomesClustersOfOneAicAndTwoAivs) {
    const CompileState s = compile(onlineSoftmax(2048));
    std::map<uint32_t, std::array<int, 3>> roles;
    for (const Task& t : s.pto.exec.tasks)
        if (t.cluster != kNoCluster) ++roles[t.cluster][int(t.role())];
    ASSERT_EQ(roles.size(), 16u) << "one cluster per 128 query rows";
    for (const auto& [c, r] : roles) EXPECT_EQ(r, (std::array<int, 3>{1, 1, 1})) << c;
    for (const TaskDep& d : s.pto.exec.deps) {
        const uint32_t c = s.pto.exec.tasks[d.from].cluster;
        EXPECT_FALSE(c != kNoCluster && c == s.pto.exec.tasks[d.to].cluster)
            << "dependency " << d.from << " -> " << d.to << " inside cluster " << c;
    }
    // Ping-pong workspaces of two windows; the full-size per-iteration ones get no GM.
    int pingPong = 0;
    for (const GmTensor& g : s.pto.gm) {
        EXPECT_LT(g.shape.numel(), 2048 * 256) << g.name << " is a full-size workspace";
        pingPong += g.name.find("_pp") != std::string::npos;
    }
    EXPECT_EQ(pingPong, 16 * 8) << "per cluster: 5 two-slot hand-offs and 3 initial states";
    // Every cross-core wait has a set of the same flag on its peer (counts match per channel).
    std::map<std::tuple<uint32_t, int, int, int>, int> balance; // (cluster, to, from, id)
    for (const Task& t : s.pto.exec.tasks)
        for (const Instr& in : s.pto.kernels[t.block].instrs) {
            if (in.opcode == Opcode::CrossSetFlag)
                ++balance[{t.cluster, int(in.peer), int(t.role()), in.event}];
            if (in.opcode == Opcode::CrossWaitFlag)
                --balance[{t.cluster, int(t.role()), int(in.peer), in.event}];
        }
    ASSERT_FALSE(balance.empty());
    for (const auto& [k, n] : balance) EXPECT_EQ(n, 0) << "unbalanced cross-core flag";
}

TEST(FuseCubeVector, NoFuseLeavesTheProgramAsItWas) {
    const CompileState s = compile(onlineSoftmax(2048), false);
    for (const Task& t : s.pto.exec.tasks) EXPECT_EQ(t.cluster, kNoCluster);
}

TEST(FuseCubeVector, FewerClustersThanHalfTheAicsStayUnfused) {
    const CompileState s = compile(onlineSoftmax(1024)); // 8 query blocks, 24 AICs
    for (const Task& t : s.pto.exec.tasks) EXPECT_EQ(t.cluster, kNoCluster);
    bool noted = false;
    for (const std::string& n : s.block.notes)
        noted = noted || n.find("left unfused") != std::string::npos;
    EXPECT_TRUE(noted);
}

// Split-KV at S = 1024: two loops over the key halves (8 clusters each), then a combine
// chain outside the loops that reads both loops' final states. The combine belongs to neither
// part's clusters: it must not join one (that cluster would wait for the other part's, which
// serialised the parts).
std::string splitKv() {
    std::string text = R"(func @fa(%q: tensor<1024x128xf16>, %k: tensor<1024x128xf16>,
           %v: tensor<1024x128xf16>) -> tensor<1024x128xf16> {
)";
    for (int part = 0; part < 2; ++part) {
        const std::string p = std::to_string(part), base = std::to_string(512 * part);
        text += R"(  vec_tile [32, 128]
  %m0P = fill {value = -inf} : tensor<1024x1xf32>
  %l0P = fill {value = 0.0} : tensor<1024x1xf32>
  %o0P = fill {value = 0.0} : tensor<1024x128xf32>
  %stP:3 = for "kvP" %j = 0 to 2 step 1 iter_args(%m = %m0P, %l = %l0P, %o = %o0P) {
    vec_tile [16, 256]
    %kj = view %k {offsets = [%j * 256 + BASE, 0], sizes = [256, 128]}
    %vj = view %v {offsets = [%j * 256 + BASE, 0], sizes = [256, 128]}
    %qk = matmul %q, %kj {transpose_b}
    %s = muls %qk, 0.08838834764831845
    %mj = max %m, (reduce_max %s {axis = 1, keepdim})
    %p = exp (sub %s, %mj)
    %r = reduce_sum %p {axis = 1, keepdim}
    %pv = matmul (cast %p : tensor<1024x256xf16>), %vj
    vec_tile [64, 128]
    %a = exp (sub %m, %mj)
    yield %mj, (add (mul %l, %a), %r), (add (mul %o, %a), %pv)
  }
)";
        text = std::regex_replace(text, std::regex("P\\b"), p);
        text = std::regex_replace(text, std::regex("BASE"), base);
    }
    return text + R"(  vec_tile [32, 128]
  %mx = max %st0#0, %st1#0
  %w0 = exp (sub %st0#0, %mx)
  %w1 = exp (sub %st1#0, %mx)
  %ls = add (mul %st0#1, %w0), (mul %st1#1, %w1)
  %os = add (mul %st0#2, %w0), (mul %st1#2, %w1)
  %out = cast (div %os, %ls) : tensor<1024x128xf16>
  return %out
}
)";
}

TEST(FuseCubeVector, AChainReadingTwoLoopsClustersJoinsNeither) {
    const CompileState s = compile(splitKv());
    std::map<uint32_t, int> clusters;
    for (const Task& t : s.pto.exec.tasks)
        if (t.cluster != kNoCluster) ++clusters[t.cluster];
    EXPECT_EQ(clusters.size(), 16u) << "8 query blocks × 2 key halves";
    for (const TaskDep& d : s.pto.exec.deps) {
        const uint32_t from = s.pto.exec.tasks[d.from].cluster, to = s.pto.exec.tasks[d.to].cluster;
        EXPECT_FALSE(from != kNoCluster && to != kNoCluster)
            << "cluster " << to << " waits for cluster " << from;
    }
}

TEST(FuseCubeVector, AttentionWithoutALoopIsNotFused) {
    const CompileState s = compile(R"(func @att(%q: tensor<2048x128xf16>, %k: tensor<2048x128xf16>,
                %v: tensor<2048x128xf16>) -> tensor<2048x128xf16> {
  %s = matmul %q, %k {transpose_b}
  %p = softmax (muls %s, 0.08838834764831845)
  %o = matmul (cast %p : tensor<2048x2048xf16>), %v
  %oh = cast %o : tensor<2048x128xf16>
  return %oh
}
)");
    for (const Task& t : s.pto.exec.tasks) EXPECT_EQ(t.cluster, kNoCluster);
}

} // namespace
} // namespace pto::test
