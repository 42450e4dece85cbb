// Reading and writing TensorData as .npy files (the exchange format with NumPy and PyTorch).
#pragma once

#include "compiler/ir/TensorData.h"
#include "validate/Npy.h"

#include <filesystem>

namespace pto {

// The .npy form of a tensor: f16 '<f2', f32 '<f4', bf16 '<u2' with true dtype "bf16",
// i8 '|i1', i32 '<i4', i1 '|b1'.
NpyArray toNpy(const TensorData& t);
// The tensor form of an .npy array; throws NpyError for dtypes PTO does not compute in
// (f64, i64, u8 … name the dtype and the ones accepted).
TensorData fromNpy(const NpyArray& a, const std::filesystem::path& where = {});

TensorData readTensor(const std::filesystem::path& path);

// The dtype and shape a tensor file holds, from its header (and sidecar) alone, with the
// checks readTensor makes: a cheap look before a large file is read.
struct TensorFileType {
    DType dtype;
    Shape shape;
};
TensorFileType readTensorType(const std::filesystem::path& path);
void writeTensor(const std::filesystem::path& path, const TensorData& t);

} // namespace pto
