// Rebuilds an emit-pto stage's listing from the trace's instr and kernel-node rows.
#include "gui/model/PtoListing.h"

#include "profiler/DictCells.h"
#include "profiler/KernelLaunches.h"
#include "profiler/SqlRows.h"

#include <fmt/format.h>

#include <map>

namespace pto::gui {

using prof::cellInt;
using prof::cellNull;
using prof::cellText;

RebuiltListing rebuildPtoListing(const tracedb::TraceReader& reader, std::int64_t stageId,
                                 std::int64_t maxInstructions) {
    std::map<std::int64_t, std::string> kernels; // block id → `kernel @name core {`
    std::string tasks; // `task 3 @name core rebase …` of the kernels several tasks share
    prof::forEachRow(reader,
                     fmt::format("SELECT id, name, core, attrs FROM node WHERE stage_id = {} AND "
                                 "kind = 'kernel'",
                                 stageId),
                     [&](auto row) {
                         kernels[cellInt(row[0])] =
                             fmt::format("kernel @{} {} {{\n", cellText(row[1]), cellText(row[2]));
                         for (const prof::SharedLaunch& l : prof::sharedLaunches(cellText(row[3])))
                             tasks += fmt::format(
                                 "task {} @{} {}{}{}\n", l.task, cellText(row[1]), cellText(row[2]),
                                 l.rebases.empty() ? "" : " rebase ",
                                 l.rebases.empty() ? "" : prof::formatRebases(l.rebases));
                     });
    RebuiltListing out;
    prof::forEachRow(reader, fmt::format("SELECT count(*) FROM instr WHERE stage_id = {}", stageId),
                     [&](auto row) { out.total = cellInt(row[0]); });
    std::int64_t block = -1;
    // A file of schema 4 keeps the text in dict: read the ids and look them up in memory, not
    // through the view's lookup per row and column.
    const bool compact = prof::keepsTextInDict(reader);
    auto text = [&](const tracedb::SqlValue& cell) {
        return prof::dictCellText(reader, compact, cell);
    };
    prof::forEachRow(
        reader,
        fmt::format("SELECT block_id, {} FROM {} WHERE stage_id = {} ORDER BY id LIMIT {}",
                    compact ? "pipe_dict, opcode_dict, operands_dict, tile_op_id, src_line"
                            : "pipe, opcode, operands, tile_op_id, src_line",
                    compact ? "instr_data" : "instr", stageId, maxInstructions),
        [&](auto row) {
            if (const std::int64_t b = cellInt(row[0]); b != block) {
                if (block >= 0) out.text += "}\n";
                block = b;
                const auto it = kernels.find(b);
                out.text +=
                    it != kernels.end() ? it->second : fmt::format("kernel @block{} {{\n", b);
            }
            out.text += fmt::format("  {:<4} {:<13} {}", text(row[1]), text(row[2]), text(row[3]));
            if (!cellNull(row[4])) out.text += fmt::format(" !op {}", cellInt(row[4]));
            if (!cellNull(row[5])) out.text += fmt::format(" !loc {}", cellInt(row[5]));
            out.text += '\n';
            ++out.instructions;
        });
    if (block >= 0) out.text += "}\n";
    out.text += tasks;
    return out;
}

} // namespace pto::gui
