// Edits of a .pto program's text in place (for `pto tune`): where a parsed op's directive sizes
// or attribute dictionary and a function's body brace lie in the source, and byte edits applied
// to it, so the user's comments, layout and line numbers stay as written.
#pragma once

// Spans are found by lexing the source from an op's recorded position (Op::loc, the mnemonic)
// or a function's (the `func` keyword). A form this does not understand returns nullopt; the
// caller then checks the edited text by parsing it (driver/TuneApply).

#include "compiler/ir/Graph.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

/// Replace source bytes [begin, end) by `text` (begin == end: an insertion).
struct TextEdit {
    size_t begin = 0;
    size_t end = 0;
    std::string text;
};

/// `source` with `edits` applied; edits must not overlap (insertions at one offset keep their
/// order).
std::string applyTextEdits(std::string_view source, std::vector<TextEdit> edits);

/// Byte offsets of the source's lines, to turn an op's line:column into an offset.
class SourceLines {
public:
    explicit SourceLines(std::string_view source);
    std::optional<size_t> offsetOf(SourceLoc loc) const;

private:
    std::string_view m_source;
    std::vector<size_t> m_starts;
};

/// The offset just past the `{` opening the body of function `f` (its loc at `func`).
std::optional<size_t> bodyOpenEnd(std::string_view source, const SourceLines& lines,
                                  const Function& f);

/// The span of directive `op` (`vec_tile [16, 1024]`, `cube_tile [..], [..], [..]`), widened
/// to its whole line when nothing else is on it, for removing it.
std::optional<TextEdit> directiveSpan(std::string_view source, const SourceLines& lines,
                                      const Op& op, bool wholeLine);

/// The edit that sets attribute `name` of `op` to `value` (a printed value such as
/// "[1, 1024]"), or removes it when `value` is empty: in place in the op's `{…}`, appended to
/// it, or a new `{name = value}` after the operands.
std::optional<TextEdit> attributeEdit(std::string_view source, const SourceLines& lines,
                                      const Op& op, const std::string& name,
                                      const std::string& value);

} // namespace pto
