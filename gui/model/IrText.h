// The printed IR of one stage with a line ↔ entity mapping and the lines its pass changed.
#pragma once

#include "gui/model/LineDiff.h"
#include "gui/model/SelectionModel.h"
#include "trace_db/TraceReader.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pto::gui {

class LinkResolver;
class StageMapper;

/// Line mapping, recovered from the printed structure (docs/GUI.md, "IR text"): at the Tensor
/// and Tile levels the k-th op line of the function body is op id k (ids are dense and ops
/// print in order) and `return` is node -(args+1); Block: `block N` lines; Exec: `task N`;
/// PTO: `kernel @name` lines and the k-th instruction line is the k-th instruction of the
/// stage. Every mapped line is checked against the node's kind (the instruction's opcode);
/// one mismatch drops the whole mapping for that stage (mapped() is false), never a wrong link.
class IrText {
public:
    /// Reads stage `stageId`'s ir_text and its parent's; an unknown stage gives empty text.
    static IrText load(const tracedb::TraceReader& reader, std::int64_t stageId);

    std::int64_t stageId() const { return m_stageId; }
    std::int64_t parentStageId() const { return m_parentStageId; }
    const std::string& text() const { return m_text; }
    std::size_t lineCount() const { return m_refs.size(); }
    /// The entity printed on 0-based `line` (None for headers, braces, block items...).
    const EntityRef& entityAt(std::size_t line) const;
    bool mapped() const { return m_mapped; }
    /// Why the mapping or the text is missing, for the view's status line ("" when fine).
    const std::string& note() const { return m_note; }
    /// 0-based lines not present in the parent stage's text (the pass's changes).
    const std::vector<int>& changedLines() const { return m_changed; }
    /// Lines the parent had that this stage dropped.
    std::size_t removedCount() const { return m_removed; }
    bool diffApproximate() const { return m_approximate; }
    /// The text was diffed against the parent stage's (false for the parsed program, a stage
    /// whose text is not stored and a listing rebuilt from its instructions).
    bool diffed() const { return m_diffed; }

    /// 0-based lines showing `ref` or what it maps to in this stage, ascending: a node of
    /// another stage through `mapper` (its tiles, its Tensor op, its block...), an instruction
    /// or slice through its tile op; on the PTO stage the instructions of the mapped tile ops.
    std::vector<int> linesOf(const EntityRef& ref, LinkResolver& links, StageMapper& mapper) const;

private:
    /// Links lines to nodes / instructions; a listing maps its first `maxInstrs` (-1: all).
    void mapLines(const tracedb::TraceReader& reader, const std::string& level,
                  std::int64_t maxInstrs = -1);
    void diffWithParent(const std::string& parentText);

    std::int64_t m_stageId = -1;
    std::int64_t m_parentStageId = -1;
    std::string m_text;
    std::vector<EntityRef> m_refs;
    bool m_mapped = false;
    std::string m_note;
    std::vector<int> m_changed;
    std::size_t m_removed = 0;
    bool m_approximate = false;
    bool m_diffed = false;
};

/// The 1-based program line (node.src_line or instr.src_line) of an entity; 0 when unknown.
std::int64_t sourceLineOf(const tracedb::TraceReader& reader, const EntityRef& ref);

} // namespace pto::gui
