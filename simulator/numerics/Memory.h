// The memories the functional simulator computes on: the device's global memory (GM) image with
// its tensor table, and per core the on-chip buffers (L1/L0A/L0B/L0C on an AIC, UB on an AIV),
// each a plain byte array with an optional "initialised" shadow bitmap.
#pragma once

// Layout: GM is one little-endian byte array of PtoProgram::gmBytes() bytes; tensor `i` of the
// program's GM table occupies [gm[i].addr, gm[i].addr + gm[i].bytes()) in row-major order, as a
// TensorData holds it. On-chip spaces are byte arrays of the TargetInfo capacities, zero at
// start. Nothing here checks instructions; FunctionalExecutor does (SimFault.h).

#include "compiler/ir/Hardware.h"
#include "compiler/ir/Pto.h"
#include "compiler/ir/Target.h"
#include "compiler/ir/TensorData.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pto {

/// One bit per byte of a memory space: set once an instruction has written the byte.
class InitMap {
public:
    explicit InitMap(int64_t bytes);

    /// Marks [begin, end) as written (the range must lie within the space).
    void mark(int64_t begin, int64_t end);
    /// The first byte of [begin, end) that is not marked, or -1 when all are.
    int64_t firstUnmarked(int64_t begin, int64_t end) const;
    void clear();

private:
    std::vector<uint64_t> m_words;
};

/// The device's global memory: a byte image holding every GM tensor of a program.
class GlobalMemory {
public:
    /// A zero-filled image of program.gmBytes() bytes; keeps a copy of the tensor table.
    explicit GlobalMemory(const PtoProgram& program);
    /// As above, then writes `inputs` into the tensors of role Input or InOut, in table order
    /// (their count, dtypes and element counts must match, else std::invalid_argument).
    GlobalMemory(const PtoProgram& program, std::span<const TensorData> inputs);

    int64_t size() const { return static_cast<int64_t>(m_bytes.size()); }
    std::byte* data() { return m_bytes.data(); }
    const std::byte* data() const { return m_bytes.data(); }
    const std::vector<GmTensor>& tensors() const { return m_tensors; }

    /// Index of the tensor called `name`; std::invalid_argument when there is none.
    size_t tensorIndex(std::string_view name) const;
    /// Writes `data` into tensor `index` (same dtype and element count, else
    /// std::invalid_argument naming both).
    void setTensor(size_t index, const TensorData& data);
    void setTensor(std::string_view name, const TensorData& data) {
        setTensor(tensorIndex(name), data);
    }
    /// The current contents of tensor `index` with its dtype and shape.
    TensorData tensor(size_t index) const;
    TensorData tensor(std::string_view name) const { return tensor(tensorIndex(name)); }
    /// Every tensor of role Output or InOut, in table order, with its name.
    std::vector<std::pair<std::string, TensorData>> outputs() const;

    /// The tensor (index) that holds the byte `addr`, preferring one that holds all of
    /// [addr, end) when tensors alias; nullopt when no tensor holds `addr`.
    std::optional<size_t> tensorAt(int64_t addr, int64_t end) const;
    /// Why the byte range [begin, end) is not a valid access, or "" when it is: it must lie in
    /// the image and within one tensor ("crosses from tensor x [..) into y [..)").
    std::string regionProblem(int64_t begin, int64_t end) const;

private:
    std::vector<GmTensor> m_tensors;
    std::vector<size_t> m_byAddr; // tensor indices with bytes > 0, sorted by address
    std::vector<std::byte> m_bytes;
};

/// The on-chip buffers of one core: L1/L0A/L0B/L0C (AIC) or UB (AIV).
class CoreMemory {
public:
    CoreMemory(CoreType type, const TargetInfo& target, bool trackInit);

    CoreType type() const { return m_type; }
    bool has(MemSpace space) const { return size(space) > 0; }
    /// The size of `space` in bytes; 0 for a space this core type does not have (and for GM).
    int64_t size(MemSpace space) const {
        return static_cast<int64_t>(m_spaces[static_cast<int>(space)].bytes.size());
    }
    std::byte* data(MemSpace space) { return m_spaces[static_cast<int>(space)].bytes.data(); }
    /// The shadow bitmap of `space`, or null when uninitialised reads are not tracked.
    InitMap* initMap(MemSpace space) {
        auto& init = m_spaces[static_cast<int>(space)].init;
        return init ? &*init : nullptr;
    }

private:
    struct Space {
        std::vector<std::byte> bytes;
        std::optional<InitMap> init;
    };
    CoreType m_type;
    std::array<Space, kMemSpaceCount> m_spaces;
};

/// The on-chip spaces a core type has.
std::span<const MemSpace> coreSpaces(CoreType type);

} // namespace pto
