// Whether the text files beside a profiler .db hold its run (not read) or another (refused).
#pragma once

#include "importer/ImportModel.h"

#include <filesystem>
#include <vector>

namespace pto::importer {

/// Compares the text files beside the profiler .db `db` with its kernels, already read into
/// `model`. The kernel CSVs (kernel_details.csv, op_summary_*.csv) are read and compared, and
/// trace_view.json when none of them shows the same run: a file holds the same run when at least
/// half the kernels of the side with fewer have a kernel of the same name starting within 1 µs on
/// the other side. Each text file is noted in `model` as not read (import_file_not_read, info)
/// with the reason — the same run, no kernels, or no kernel times (step_trace_time.csv).
/// ImportError for a file of another run, naming both runs and how to import each.
void checkTextBesideDb(const std::filesystem::path& db,
                       const std::vector<std::filesystem::path>& textFiles, ImportModel& model);

} // namespace pto::importer
