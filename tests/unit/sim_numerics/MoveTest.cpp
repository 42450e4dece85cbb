// Data movement: strided 2-D TLOAD/TSTORE of sub-regions, converting stores from UB and L0C,
// TMOV UB->UB and L0C->L1, against NumPy slicing and casts.
#include <gtest/gtest.h>

#include "tests/unit/sim_numerics/SimTestSupport.h"

namespace pto::simtest {
namespace {

TEST(SimMove, StridedLoadAndStoreOfASubRegion) {
    REQUIRE_NUMPY();
    // Box (8, 16) of size 16 x 32 of a 40 x 96 tensor -> UB tile with row stride 48 (padding
    // between rows) -> box (20, 40) of a zero 40 x 96 output.
    for (DType dt : {DType::F16, DType::I8, DType::F32}) {
        ProgramBuilder b(CoreType::AIV);
        const TensorData x = randomTensor(dt, Shape{40, 96}, 50);
        const size_t gin = b.addGm("x", dt, Shape{40, 96}, GmRole::Input);
        const size_t gout = b.addGm("y", dt, Shape{40, 96}, GmRole::Output);
        const Operand tile = b.alloc(MemSpace::UB, dt, 16, 32, 48);
        b.emit(Opcode::TLoad, Pipe::MTE2, {tile, b.gmBox(gin, 8, 16, 16, 32)});
        b.emit(Opcode::TStore, Pipe::MTE3, {b.gmBox(gout, 20, 40, 16, 32), tile});
        const std::vector<TensorData> inputs{x};
        const TensorData got = runProgram(b.program(), inputs, ExecOptions{true, {}}).tensor("y");
        const nlohmann::json extra = {{"src_box", {8, 16, 16, 32}}, {"dst_corner", {20, 40}}};
        EXPECT_TRUE(bitExact(got, reference("BOXCOPY", {x}, dt, Shape{40, 96}, extra)))
            << dtypeName(dt);
    }
}

TEST(SimMove, StoreFromUbConvertsToTheGmDType) {
    REQUIRE_NUMPY();
    ProgramBuilder b(CoreType::AIV);
    const TensorData x = randomTensor(DType::F32, Shape{8, 64}, 51, {-1e5, 1e5});
    const size_t gin = b.addGm("x", DType::F32, Shape{8, 64}, GmRole::Input);
    const size_t gout = b.addGm("y", DType::F16, Shape{8, 64}, GmRole::Output);
    const Operand tile = b.alloc(MemSpace::UB, DType::F32, 8, 64);
    const Operand copy = b.alloc(MemSpace::UB, DType::F32, 8, 64);
    b.emit(Opcode::TLoad, Pipe::MTE2, {tile, b.gmAll(gin)});
    b.emit(Opcode::TMov, Pipe::V, {copy, tile});
    b.emit(Opcode::TStore, Pipe::MTE3, {b.gmAll(gout), copy});
    const std::vector<TensorData> inputs{x};
    const TensorData got = runProgram(b.program(), inputs).tensor("y");
    EXPECT_TRUE(bitExact(got, reference("COPY", {x}, DType::F16, Shape{8, 64})));
}

TEST(SimMove, L0CToL1ConvertsThenStoresFromL1) {
    REQUIRE_NUMPY();
    // matmul by the identity puts A (f32) in L0C; TMOV L0C->L1 rounds it to f16; TSTORE L1->GM.
    ProgramBuilder b(CoreType::AIC);
    const TensorData a = randomTensor(DType::F32, Shape{16, 16}, 52, {-100, 100});
    std::vector<float> eye(256, 0.0f);
    for (int i = 0; i < 16; ++i) eye[size_t(i * 17)] = 1.0f;
    const TensorData id = TensorData::fromFloats(DType::F32, Shape{16, 16}, eye);
    const size_t ga = b.addGm("a", DType::F32, Shape{16, 16}, GmRole::Input);
    const size_t gi = b.addGm("i", DType::F32, Shape{16, 16}, GmRole::Input);
    const size_t gy = b.addGm("y", DType::F16, Shape{16, 16}, GmRole::Output);
    const Operand l1a = b.alloc(MemSpace::L1, DType::F32, 16, 16);
    const Operand l1i = b.alloc(MemSpace::L1, DType::F32, 16, 16);
    const Operand l0a = b.alloc(MemSpace::L0A, DType::F32, 16, 16);
    const Operand l0b = b.alloc(MemSpace::L0B, DType::F32, 16, 16);
    const Operand l0c = b.alloc(MemSpace::L0C, DType::F32, 16, 16);
    const Operand l1y = b.alloc(MemSpace::L1, DType::F16, 16, 16);
    b.emit(Opcode::TLoad, Pipe::MTE2, {l1a, b.gmAll(ga)});
    b.emit(Opcode::TLoad, Pipe::MTE2, {l1i, b.gmAll(gi)});
    b.emit(Opcode::TMov, Pipe::MTE1, {l0a, l1a});
    b.emit(Opcode::TMov, Pipe::MTE1, {l0b, l1i});
    b.emit(Opcode::TMatmul, Pipe::M, {l0c, l0a, l0b});
    b.emit(Opcode::TMov, Pipe::FIX, {l1y, l0c});
    b.emit(Opcode::TStore, Pipe::MTE3, {b.gmAll(gy), l1y});
    const std::vector<TensorData> inputs{a, id};
    const TensorData got = runProgram(b.program(), inputs, ExecOptions{true, {}}).tensor("y");
    EXPECT_TRUE(bitExact(got, reference("COPY", {a}, DType::F16, Shape{16, 16})));
}

TEST(SimMove, GlobalMemoryRoundTripsTensorsAndChecksThem) {
    ProgramBuilder b(CoreType::AIV);
    b.addGm("x", DType::F16, Shape{4, 8}, GmRole::Input);
    b.addGm("y", DType::F32, Shape{2, 3}, GmRole::Output);
    const TensorData x = randomTensor(DType::F16, Shape{4, 8}, 53);
    const std::vector<TensorData> inputs{x};
    GlobalMemory gm(b.program(), inputs);
    EXPECT_EQ(gm.tensor("x"), x);
    EXPECT_EQ(gm.size(), 512 + 24);
    ASSERT_EQ(gm.outputs().size(), 1u);
    EXPECT_EQ(gm.outputs()[0].first, "y");
    EXPECT_EQ(gm.outputs()[0].second, TensorData(DType::F32, Shape{2, 3}));
    try {
        gm.setTensor("x", randomTensor(DType::F32, Shape{4, 8}, 1));
        FAIL() << "expected a dtype mismatch";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "GM tensor 'x' is 4x8xf16 but the data given is 4x8xf32");
    }
    EXPECT_THROW(GlobalMemory(b.program(), std::vector<TensorData>{}), std::invalid_argument);
    EXPECT_THROW(gm.tensor("nope"), std::invalid_argument);
}

} // namespace
} // namespace pto::simtest
