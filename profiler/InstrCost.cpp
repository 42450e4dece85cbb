// An instruction's recorded work and the compute unit's rate for its operand dtype.
#include "profiler/InstrCost.h"

namespace pto::prof {

InstrCost instrCost(std::string_view opcode, std::optional<double> flops,
                    std::optional<std::int64_t> gmBytes, std::string_view srcDtype) {
    InstrCost cost;
    cost.flops = flops.value_or(0);
    cost.gmBytes = gmBytes.value_or(0);
    cost.gmWrite = opcode.starts_with("TSTORE") || opcode.starts_with("MSCATTER");
    cost.sync = opcode == "SET_FLAG" || opcode == "WAIT_FLAG" || opcode == "BARRIER" ||
                opcode == "CROSS_SET_FLAG" || opcode == "CROSS_WAIT_FLAG";
    if (opcode.starts_with("TMATMUL")) {
        if (srcDtype == "i8") cost.rateScale = 2;
        if (srcDtype == "f32" || srcDtype == "i32") cost.rateScale = 0.25;
    }
    return cost;
}

} // namespace pto::prof
