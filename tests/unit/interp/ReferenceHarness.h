// Test harness: one-op Tensor functions evaluated by our interpreter and by reference.py
// (NumPy/PyTorch), and comparison within a tolerance.
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/ir/TensorData.h"

#include <string>
#include <vector>

namespace pto::test {

// |got − want| ≤ atol + rtol·|want| (torch.testing.assert_close); NaN must meet NaN and an
// infinity the same infinity. Integer and i1 outputs are always compared bit for bit.
struct Tolerance {
    double rtol = 0.0;
    double atol = 0.0;
};

// torch.testing defaults per dtype (REFERENCE.md §6); exact for integers.
Tolerance defaultTolerance(DType dtype);

struct OpCase {
    std::string name; // unique within a run; names the files
    OpKind kind = OpKind::Add;
    Attrs attrs;
    std::vector<TensorData> inputs;
    DType resultDType = DType::F32;
    Shape resultShape;
    Tolerance tol; // set from the result dtype by addCase unless given
};

// The one-op function: args %in0.., op, result %out.
Function makeOpFunction(const OpCase& c);

// Runs reference.py once over all cases; returns each case's reference output. Throws
// std::runtime_error with the script's stderr if it fails.
std::vector<TensorData> runReference(const std::vector<OpCase>& cases);

// Empty when `got` matches `want` within `tol`; otherwise a description of the mismatches
// (count, first index, values).
std::string compareTensors(const TensorData& got, const TensorData& want, Tolerance tol);

// Evaluates every case with evaluateTensor and reference.py and reports mismatches through
// GoogleTest (one failure per case, naming it).
void checkAgainstReference(const std::vector<OpCase>& cases);

} // namespace pto::test
