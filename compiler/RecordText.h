// The text StageRecorder stores for ops and instructions, and the byte keys it is interned by.
#pragma once

#include "compiler/RecordDict.h"
#include "compiler/ir/Graph.h"
#include "compiler/ir/Pto.h"

#include <array>
#include <span>
#include <string>

namespace pto {

// A JSON array of integers: "[128,64]".
std::string jsonInts(std::span<const int64_t> v);

// An op's attributes as a JSON object (node.attrs): its attrs, and at the Tile level the
// Tensor-level value its result covers ("origin", "origin_offset").
std::string attrsJson(const Function& f, const Op& op);
// Sets `key` to what attrsJson(f, op) is made from: equal keys, equal text.
void attrsKey(DictKey& key, const Function& f, const Op& op);

// Sets `key` to what printPtoOperands(in, steps, eventStep) is made from: equal keys, equal text.
void operandsKey(DictKey& key, const Instr& in, const std::array<int64_t, 4>& steps,
                 int eventStep = 0);

// Sets `key` to a shape's dims (the key of jsonInts(shape.dims())).
void shapeKey(DictKey& key, std::span<const int64_t> dims);

} // namespace pto
