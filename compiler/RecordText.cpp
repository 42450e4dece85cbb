// The text StageRecorder stores for ops and instructions, and the byte keys it is interned by.
#include "compiler/RecordText.h"

#include <fmt/format.h>

#include <algorithm>
#include <type_traits>
#include <variant>

namespace pto {
namespace {

// Tags that keep the parts of an attrs key apart (an attr's entry from the origin's).
constexpr uint8_t kAttrTag = 1;
constexpr uint8_t kOriginTag = 2;
constexpr uint8_t kEventStepTag = 3; // a loop flag's event step follows

std::string jsonEscape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            out += fmt::format("\\u{:04x}", int(c));
        } else {
            out += c;
        }
    }
    return out;
}

std::string attrValueJson(const AttrValue& v) {
    return std::visit(
        [](const auto& x) -> std::string {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, bool>)
                return x ? "true" : "false";
            else if constexpr (std::is_same_v<T, int64_t>)
                return std::to_string(x);
            else if constexpr (std::is_same_v<T, double>)
                return fmt::format("{}", x);
            else if constexpr (std::is_same_v<T, std::string>)
                return fmt::format("\"{}\"", jsonEscape(x));
            else
                return jsonInts(x);
        },
        v);
}

void addInts(DictKey& key, std::span<const int64_t> v) {
    key.add(v.size());
    for (int64_t x : v) key.add(x);
}

void addAttrValue(DictKey& key, const AttrValue& v) {
    key.add(uint8_t(v.index()));
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string>)
                key.addText(x);
            else if constexpr (std::is_same_v<T, std::vector<int64_t>>)
                addInts(key, x);
            else
                key.add(x);
        },
        v);
}

} // namespace

std::string jsonInts(std::span<const int64_t> v) {
    return fmt::format("[{}]", fmt::join(v, ","));
}

std::string attrsJson(const Function& f, const Op& op) {
    std::string out = "{";
    auto field = [&](std::string_view key, const std::string& value) {
        if (out.size() > 1) out += ',';
        out += fmt::format("\"{}\":{}", jsonEscape(key), value);
    };
    for (const Attr& a : op.attrs.items()) field(a.name, attrValueJson(a.value));
    if (op.result != kNoId) {
        const Value& v = f.value(op.result);
        if (v.origin != kNoId) {
            field("origin", std::to_string(v.origin));
            field("origin_offset", jsonInts(v.offset.dims()));
        }
    }
    return out + "}";
}

void attrsKey(DictKey& key, const Function& f, const Op& op) {
    key.clear();
    for (const Attr& a : op.attrs.items()) {
        key.add(kAttrTag).addText(a.name);
        addAttrValue(key, a.value);
    }
    if (op.result == kNoId) return;
    const Value& v = f.value(op.result);
    if (v.origin == kNoId) return;
    key.add(kOriginTag).add(v.origin);
    addInts(key, v.offset.dims());
}

void operandsKey(DictKey& key, const Instr& in, const std::array<int64_t, 4>& steps,
                 int eventStep) {
    key.clear();
    key.add(in.opcode).add(in.flagSrc).add(in.flagDst).add(in.event).add(in.peer);
    if (eventStep != 0) key.add(kEventStepTag).add(eventStep);
    const size_t count = std::min<size_t>(in.operandCount, in.operands.size());
    key.add(count);
    for (size_t i = 0; i < count; ++i) {
        const Operand& o = in.operands[i];
        key.add(o.space).add(o.dtype).add(o.addr).add(o.rows).add(o.cols).add(o.stride);
        key.add(steps[i]);
    }
    key.add(in.scalar).addText(in.mode).add(in.transposeA).add(in.transposeB);
}

void shapeKey(DictKey& key, std::span<const int64_t> dims) {
    key.clear();
    addInts(key, dims);
}

} // namespace pto
