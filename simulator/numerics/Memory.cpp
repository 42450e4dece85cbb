// GM image with its tensor table, per-core on-chip buffers and the initialised-byte bitmaps.
#include "simulator/numerics/Memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

namespace pto {

// --- InitMap ------------------------------------------------------------------------------------

namespace {

constexpr int64_t kWordBits = 64;

// The bits [lo, hi) of a word, 0 <= lo < hi <= 64.
uint64_t bitRange(int64_t lo, int64_t hi) {
    const uint64_t upper = hi == kWordBits ? ~uint64_t{0} : (uint64_t{1} << hi) - 1;
    return upper & ~((uint64_t{1} << lo) - 1);
}

} // namespace

InitMap::InitMap(int64_t bytes) : m_words(size_t((bytes + kWordBits - 1) / kWordBits), 0) {}

void InitMap::mark(int64_t begin, int64_t end) {
    while (begin < end) {
        const int64_t word = begin / kWordBits;
        const int64_t lo = begin % kWordBits;
        const int64_t hi = std::min<int64_t>(kWordBits, lo + (end - begin));
        m_words[size_t(word)] |= bitRange(lo, hi);
        begin += hi - lo;
    }
}

int64_t InitMap::firstUnmarked(int64_t begin, int64_t end) const {
    while (begin < end) {
        const int64_t word = begin / kWordBits;
        const int64_t lo = begin % kWordBits;
        const int64_t hi = std::min<int64_t>(kWordBits, lo + (end - begin));
        const uint64_t missing = ~m_words[size_t(word)] & bitRange(lo, hi);
        if (missing) return word * kWordBits + std::countr_zero(missing);
        begin += hi - lo;
    }
    return -1;
}

void InitMap::clear() {
    std::fill(m_words.begin(), m_words.end(), 0);
}

// --- GlobalMemory -------------------------------------------------------------------------------

GlobalMemory::GlobalMemory(const PtoProgram& program)
    : m_tensors(program.gm), m_bytes(size_t(std::max<int64_t>(0, program.gmBytes()))) {
    for (size_t i = 0; i < m_tensors.size(); ++i) {
        const GmTensor& t = m_tensors[i];
        if (t.addr < 0)
            throw std::invalid_argument(
                fmt::format("GM tensor '{}' has a negative address {}", t.name, t.addr));
        if (t.bytes() > 0) m_byAddr.push_back(i);
    }
    std::stable_sort(m_byAddr.begin(), m_byAddr.end(),
                     [&](size_t a, size_t b) { return m_tensors[a].addr < m_tensors[b].addr; });
}

GlobalMemory::GlobalMemory(const PtoProgram& program, std::span<const TensorData> inputs)
    : GlobalMemory(program) {
    size_t next = 0;
    for (size_t i = 0; i < m_tensors.size(); ++i) {
        if (!startsAsInput(m_tensors[i].role)) continue;
        if (next >= inputs.size())
            throw std::invalid_argument(fmt::format(
                "program '{}' has more GM inputs than the {} tensors given (no data for '{}')",
                program.name, inputs.size(), m_tensors[i].name));
        setTensor(i, inputs[next++]);
    }
    if (next != inputs.size())
        throw std::invalid_argument(fmt::format("program '{}' has {} GM inputs but {} were given",
                                                program.name, next, inputs.size()));
}

size_t GlobalMemory::tensorIndex(std::string_view name) const {
    for (size_t i = 0; i < m_tensors.size(); ++i)
        if (m_tensors[i].name == name) return i;
    throw std::invalid_argument(fmt::format("no GM tensor named '{}'", name));
}

void GlobalMemory::setTensor(size_t index, const TensorData& data) {
    const GmTensor& t = m_tensors.at(index);
    if (data.dtype != t.dtype || data.numel() != t.shape.numel())
        throw std::invalid_argument(fmt::format("GM tensor '{}' is {} but the data given is {}",
                                                t.name, typeString(t.dtype, t.shape),
                                                typeString(data)));
    if (data.bytes.size() != size_t(t.bytes()))
        throw std::invalid_argument(fmt::format("data for GM tensor '{}' holds {} bytes, not {}",
                                                t.name, data.bytes.size(), t.bytes()));
    if (t.bytes() > 0) std::memcpy(m_bytes.data() + t.addr, data.data(), size_t(t.bytes()));
}

TensorData GlobalMemory::tensor(size_t index) const {
    const GmTensor& t = m_tensors.at(index);
    TensorData out(t.dtype, t.shape);
    if (t.bytes() > 0) std::memcpy(out.data(), m_bytes.data() + t.addr, size_t(t.bytes()));
    return out;
}

std::vector<std::pair<std::string, TensorData>> GlobalMemory::outputs() const {
    std::vector<std::pair<std::string, TensorData>> out;
    for (size_t i = 0; i < m_tensors.size(); ++i)
        if (endsAsOutput(m_tensors[i].role)) out.emplace_back(m_tensors[i].name, tensor(i));
    return out;
}

std::optional<size_t> GlobalMemory::tensorAt(int64_t addr, int64_t end) const {
    std::optional<size_t> found;
    // Tensors starting at or before addr; aliases make several candidates possible.
    auto last = std::upper_bound(m_byAddr.begin(), m_byAddr.end(), addr,
                                 [&](int64_t a, size_t i) { return a < m_tensors[i].addr; });
    for (auto it = m_byAddr.begin(); it != last; ++it) {
        const GmTensor& t = m_tensors[*it];
        if (addr >= t.addr + t.bytes()) continue;
        if (end <= t.addr + t.bytes()) return *it;
        if (!found) found = *it;
    }
    return found;
}

namespace {

std::string tensorText(const GmTensor& t) {
    return fmt::format("tensor '{}' [{}, {})", t.name, t.addr, t.addr + t.bytes());
}

} // namespace

std::string GlobalMemory::regionProblem(int64_t begin, int64_t end) const {
    if (begin < 0 || end > size())
        return fmt::format("[{}, {}) exceeds the GM image [0, {})", begin, end, size());
    const std::optional<size_t> home = tensorAt(begin, end);
    if (!home) return fmt::format("[{}, {}) starts outside every GM tensor", begin, end);
    const GmTensor& t = m_tensors[*home];
    if (end <= t.addr + t.bytes()) return {};
    if (std::optional<size_t> other = tensorAt(end - 1, end))
        return fmt::format("[{}, {}) crosses from {} into {}", begin, end, tensorText(t),
                           tensorText(m_tensors[*other]));
    return fmt::format("[{}, {}) runs {} bytes past the end of {}", begin, end,
                       end - (t.addr + t.bytes()), tensorText(t));
}

// --- CoreMemory ---------------------------------------------------------------------------------

std::span<const MemSpace> coreSpaces(CoreType type) {
    static constexpr MemSpace kCube[] = {MemSpace::L1, MemSpace::L0A, MemSpace::L0B, MemSpace::L0C};
    static constexpr MemSpace kVector[] = {MemSpace::UB};
    switch (type) {
    case CoreType::AIC:
        return kCube;
    case CoreType::AIV:
        return kVector;
    default:
        return {};
    }
}

CoreMemory::CoreMemory(CoreType type, const TargetInfo& target, bool trackInit) : m_type(type) {
    for (MemSpace space : coreSpaces(type)) {
        const int64_t bytes = target.capacity(space);
        if (bytes <= 0 || bytes > (int64_t{1} << 32))
            throw std::invalid_argument(fmt::format("target '{}': {} size {} is not in (0, 4 GiB]",
                                                    target.name, memSpaceName(space), bytes));
        Space& s = m_spaces[static_cast<int>(space)];
        s.bytes.assign(size_t(bytes), std::byte{0});
        if (trackInit) s.init.emplace(bytes);
    }
}

} // namespace pto
