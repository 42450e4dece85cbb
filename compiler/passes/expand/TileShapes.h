// The tile shapes of expand-tiles: directive scopes, per-op overrides, the default vec and cube
// tiles, and the checks that a tile fits the target's buffers.
#pragma once

#include "compiler/ir/Graph.h"
#include "compiler/ir/Target.h"
#include "compiler/passes/DefaultVecTiles.h"
#include "compiler/passes/expand/Messages.h"
#include "compiler/passes/expand/Rewrite.h"

#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pto::expand {

struct CubeTile {
    int64_t m0, m1, k0, k1, n0, n1;
};

class TileShapes {
public:
    TileShapes(const Function& src, const TargetInfo& target, const std::string& file)
        : m_src(src), m_target(target), m_file(file), m_defaults(planDefaultVecTiles(src, target)) {
    }

    void enterDirective(const Op& op);
    // The vec tile of `op` over its iteration space `space`, checked for every tile dtype.
    // `needsLeadingOnes(tile)`: whether the op can only use the tile with leading sizes of 1
    // (a directive is a tiling choice, so its leading sizes are then lowered to 1).
    Shape vecTile(const Op& op, const Shape& space, const std::vector<DType>& dtypes,
                  const std::function<bool(const Shape&)>& needsLeadingOnes = {}) const;
    CubeTile cubeTile(const Op& op, int64_t m, int64_t k, int64_t n, DType a, DType b) const;
    const TargetInfo& target() const { return m_target; }

    [[noreturn]] void fail(const Op& op, const std::string& message) const {
        throw CompileError(m_file, op.loc, fmt::format("{}: {}", opRef(m_src, op), message));
    }

private:
    Shape defaultVecTile(const Shape& space) const;
    Shape explicitVecTile(const Op& op, const Ints& sizes, const Shape& space) const;
    void checkVecTile(const Op& op, const Shape& tile, const Shape& space,
                      const std::vector<DType>& dtypes) const;
    void checkCubeCapacity(const Op& op, const CubeTile& c, DType a, DType b) const;

    const Function& m_src;
    const TargetInfo& m_target;
    const std::string& m_file;
    std::optional<Ints> m_vec;
    std::optional<Ints> m_cube;
    std::vector<std::optional<Shape>> m_defaults; // per Tensor op: its chain's default tile
};

} // namespace pto::expand
