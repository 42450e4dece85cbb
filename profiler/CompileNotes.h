// The compiler's remarks on a program (BlockProgram::notes) as `pto compile`, `pto run` and
// `pto report` print them: the same remark about many blocks once, with the count and the first
// blocks named; and how a trace stores them (meta `compile_notes`).
#pragma once

#include <string>
#include <vector>

namespace pto::prof {

// "block 'x': <text>" notes with equal <text> become one line "<text> (N blocks: x, y, z, …)";
// other notes stay as they are, in order of first appearance.
std::vector<std::string> groupedNotes(const std::vector<std::string>& notes);

// The notes as the meta value `compile_notes` holds them (a JSON array of strings), and back
// (nothing for a missing or malformed value).
std::string notesJson(const std::vector<std::string>& notes);
std::vector<std::string> notesFromJson(const std::string& json);

} // namespace pto::prof
