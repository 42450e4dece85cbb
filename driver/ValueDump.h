// `pto run --dump DIR`: every Tensor-level value of a run as an .npy file plus a manifest
// (docs/VALIDATE.md, "Dump trees"), optionally every Tile-level tile too.
#pragma once

#include "driver/Session.h"

#include <filesystem>

namespace pto {

struct DumpOptions {
    std::filesystem::path dir;
    bool tiles = false; // also every tile value, under DIR/tiles/
};

// Writes DIR/manifest.json and one .npy per value: the inputs (stage "input"), each Tensor op's
// result assembled from the Tile interpreter's tiles of the compiled program (stage "tile":
// what the tiles compute, Tile-level defects included), and the results the simulator returned
// (stage "simulator"). Values no tile covers completely are listed under "skipped". Throws
// std::invalid_argument when DIR exists and is not a directory, FileWriteError on write errors.
void dumpRunValues(const RunResult& run, const DumpOptions& options);

} // namespace pto
