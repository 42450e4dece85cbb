// Table dict in memory, and compact node/instr rows turned back into NodeRow/InstrRow with it.
#include "trace_db/DictText.h"

#include "trace_db/Sqlite.h"

namespace pto::tracedb {

DictText readDict(SqliteDb& db) {
    DictText dict;
    Statement select(db, "SELECT id, str FROM dict");
    while (select.step()) {
        std::int64_t id = 0;
        std::string text;
        select.readAll(id, text);
        dict.emplace(id, std::move(text));
    }
    return dict;
}

const std::string& dictText(const DictText& dict, std::optional<std::int64_t> id) {
    static const std::string kNone;
    if (!id) return kNone;
    const auto found = dict.find(*id);
    return found == dict.end() ? kNone : found->second;
}

NodeRow expandRow(const NodeDataRow& row, const DictText& dict) {
    return NodeRow{.stageId = row.stageId,
                   .id = row.id,
                   .kind = dictText(dict, row.kindDict),
                   .name = row.name,
                   .dtype = dictText(dict, row.dtypeDict),
                   .shape = dictText(dict, row.shapeDict),
                   .space = dictText(dict, row.spaceDict),
                   .core = dictText(dict, row.coreDict),
                   .pipe = dictText(dict, row.pipeDict),
                   .attrs = dictText(dict, row.attrsDict),
                   .groupId = row.groupId,
                   .parentId = row.parentId,
                   .srcLine = row.srcLine,
                   .srcCol = row.srcCol};
}

InstrRow expandRow(const InstrDataRow& row, const DictText& dict) {
    InstrRow out{.id = row.id,
                 .stageId = row.stageId,
                 .blockId = row.blockId,
                 .idx = row.idx,
                 .pipe = dictText(dict, row.pipeDict),
                 .opcode = dictText(dict, row.opcodeDict),
                 .operands = dictText(dict, row.operandsDict),
                 .flags = dictText(dict, row.flagsDict),
                 .tileOpId = row.tileOpId,
                 .tileStageId = row.tileStageId,
                 .srcLine = row.srcLine,
                 .flops = row.flops,
                 .gmBytes = row.gmBytes};
    if (row.srcDtypeDict) out.srcDtype = dictText(dict, row.srcDtypeDict);
    return out;
}

} // namespace pto::tracedb
