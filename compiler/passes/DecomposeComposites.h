// decompose-composites: rewrites the composite Tensor ops (sigmoid, tanh, gelu, silu, softmax,
// rms_norm, layer_norm, quantize, dequantize) into primitive ops, computing in f32; and the
// transposes, gathers, topks and cumsums expand-tiles cannot lower as written into ones it can.
#pragma once

#include "compiler/ir/Graph.h"

namespace pto {

// Tensor → Tensor, in place. Every op it creates copies the composite's loc and parent; the
// last op of each expansion defines the composite's result value, so uses stay valid.
// Throws CompileError for a composite with an unsupported attribute (e.g. gelu approximate).
void decomposeComposites(Function& f);

} // namespace pto
