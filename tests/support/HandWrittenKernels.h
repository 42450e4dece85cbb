// Hand-written Tile-level kernels shared by tests of different parts (interpreter, FLOP count).
#pragma once

namespace pto::test {

// C = A·B over K = 256 in four L0 steps: the first matmul peeled, the L0C accumulator carried
// through matmul_acc by a loop "k" of three trips; whole-tile tmoves (no offset); stored into %y.
inline constexpr const char* kKLoopKernel = R"(
func @kloop(%a: tensor<32x256xf16>, %b: tensor<256x64xf16>, %y: tensor<32x64xf32>) {
  %a1 = tload %a {offset = [0, 0]} : tile<32x64xf16, L1>
  %b1 = tload %b {offset = [0, 0]} : tile<64x64xf16, L1>
  %c0 = matmul (tmove %a1 : tile<32x64xf16, L0A>), (tmove %b1 : tile<64x64xf16, L0B>)
  %r = for "k" %i = 1 to 4 step 1 iter_args(%acc = %c0) {
    %ai = tload %a {offset = [0, %i * 64]} : tile<32x64xf16, L1>
    %bi = tload %b {offset = [%i * 64, 0]} : tile<64x64xf16, L1>
    %acc1 = matmul_acc %acc, (tmove %ai : tile<32x64xf16, L0A>), (tmove %bi : tile<64x64xf16, L0B>)
    yield %acc1
  }
  tstore %r, %y {offset = [0, 0]}
  return
}
)";

} // namespace pto::test
