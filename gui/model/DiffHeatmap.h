// The error map of one output tensor: per element (when a golden is at hand) and per tile (the
// tiles the program stored into it), each tile linked to the tile op whose result it holds.
#pragma once

#include "gui/model/LinkResolver.h"
#include "trace_db/TraceReader.h"
#include "validate/Diagnosis.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pto {
struct TensorData;
}

namespace pto::gui {

/// A tile of the output: the region one `tstore` wrote, in the output's 2-D view.
struct HeatTile {
    std::int64_t row = 0, col = 0;   ///< first element (offset)
    std::int64_t rows = 0, cols = 0; ///< extent
    /// Max |actual − golden| over the tile: from the golden when given, else the largest
    /// max_abs of the diff rows naming the stored op; nullopt when neither knows.
    std::optional<double> error;
    NodeKey op;    ///< the tile op whose result was stored (in the last Tile stage)
    NodeKey store; ///< the tstore itself
};

/// Rank ≥ 2 tensors are shown as rows = product of the leading dimensions, cols = the last;
/// rank 1 as one row. Element errors are reduced (max) into at most maxCells × maxCells cells.
struct HeatmapData {
    std::string tensor;
    std::int64_t rows = 0, cols = 0;
    int gridRows = 0, gridCols = 0; ///< 0 without a golden
    std::vector<float> cells;       ///< gridRows × gridCols max errors, row-major
    float maxCell = 0;
    std::vector<HeatTile> tiles;
    std::string note; ///< what is missing, for the view
    /// The error pattern (validate/Diagnosis.h): computed from the golden with the trace's
    /// tiling when one is compared, else the one `pto diff` stored in the output's diff row.
    std::optional<Diagnosis> diagnosis;
    /// "Diagnosis: …" lines for the verdict area ("" when there is none).
    std::string diagnosisText() const;
    /// The tile with the largest known error, or -1.
    int hottestTile() const;
};

/// Names of the outputs stored in the trace (tensor rows of role output), by id.
std::vector<std::string> heatmapOutputs(const tracedb::TraceReader& reader);

/// The golden of `output` stored in the trace (role golden, same name), if any.
std::optional<TensorData> storedGolden(const tracedb::TraceReader& reader,
                                       const std::string& output);

/// Builds the map of `output`; `golden` (same element count) gives per-element errors.
HeatmapData buildHeatmap(const tracedb::TraceReader& reader, const std::string& output,
                         const TensorData* golden, int maxCells = 256);

} // namespace pto::gui
