// Parses a printed PTO instruction's operands to count its FLOPs and GM bytes.
#include "profiler/InstrCost.h"

#include <array>
#include <cctype>
#include <charconv>
#include <string>

namespace pto::prof {
namespace {

struct ParsedOperand {
    std::string_view space;
    std::int64_t rows = 0, cols = 0;
    int elemBytes = 0;
    bool isFloat = true;
    std::int64_t numel() const { return rows * cols; }
};

int dtypeBytes(std::string_view d) {
    if (d == "f32" || d == "i32") return 4;
    if (d == "f16" || d == "bf16") return 2;
    if (d == "i8" || d == "i1") return 1;
    return 0;
}

std::int64_t parseInt(std::string_view s, std::size_t& pos) {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data() + pos, s.data() + s.size(), v);
    if (ec != std::errc()) return -1;
    pos = std::size_t(p - s.data());
    return v;
}

// Reads every "SPACE[0xADDR]:dtype[RxC/stride]" in order; at most four.
std::size_t parseOperands(std::string_view text, std::array<ParsedOperand, 4>& out) {
    std::size_t n = 0, pos = 0;
    while (n < out.size()) {
        std::size_t colon = text.find("]:", pos);
        if (colon == std::string_view::npos) break;
        pos = colon + 2;
        std::size_t open = text.rfind('[', colon);
        if (open == std::string_view::npos || open == 0) continue;
        std::size_t begin = open;
        while (begin > 0 && std::isalnum(static_cast<unsigned char>(text[begin - 1]))) --begin;
        std::size_t shapeOpen = text.find('[', pos);
        if (shapeOpen == std::string_view::npos) break;
        ParsedOperand op;
        op.space = text.substr(begin, open - begin);
        const std::string_view dtype = text.substr(pos, shapeOpen - pos);
        op.elemBytes = dtypeBytes(dtype);
        op.isFloat = dtype.starts_with('f') || dtype.starts_with("bf");
        std::size_t at = shapeOpen + 1;
        op.rows = parseInt(text, at);
        if (op.rows < 0 || at >= text.size() || text[at] != 'x') continue;
        ++at;
        op.cols = parseInt(text, at);
        if (op.cols < 0) continue;
        out[n++] = op;
        pos = at;
    }
    return n;
}

bool startsWith(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

// Opcodes that compute nothing the roofline counts: casts, moves, broadcasts, layout, sync.
bool computesNothing(std::string_view op) {
    return op == "TCVT" || op == "TEXPANDS" || op == "TROWEXPAND" || op == "TTRANS" ||
           op == "TMOV" || op == "TEXTRACT" || op == "SET_FLAG" || op == "WAIT_FLAG" ||
           op == "BARRIER";
}

bool isReduction(std::string_view op) {
    return op == "TROWSUM" || op == "TROWMAX" || op == "TROWMIN" || op == "TCOLSUM" ||
           op == "TCOLMAX" || op == "TCOLMIN";
}

} // namespace

InstrCost instrCost(std::string_view opcode, std::string_view operands) {
    InstrCost cost;
    if (computesNothing(opcode)) return cost;
    std::array<ParsedOperand, 4> ops{};
    std::size_t n = parseOperands(operands, ops);
    if (n == 0) return cost;
    if (opcode == "TLOAD" || opcode == "TSTORE") {
        for (std::size_t i = 0; i < n; ++i)
            if (ops[i].space == "GM") cost.gmBytes = ops[i].numel() * ops[i].elemBytes;
        return cost;
    }
    if (startsWith(opcode, "TMATMUL")) {
        cost.isCube = true;
        const ParsedOperand* a = nullptr;
        for (std::size_t i = 1; i < n; ++i)
            if (ops[i].space == "L0A") a = &ops[i];
        if (a && ops[0].rows > 0)
            cost.flops = 2.0 * double(ops[0].numel()) * double(a->numel() / ops[0].rows);
        if (a && a->elemBytes == 1 && !a->isFloat) cost.rateScale = 2;
        if (a && a->elemBytes == 4) cost.rateScale = 0.25;
        return cost;
    }
    cost.isVector = true;
    if (isReduction(opcode) && n > 1)
        cost.flops = double(ops[1].numel());
    else
        cost.flops = double(ops[0].numel());
    return cost;
}

} // namespace pto::prof
