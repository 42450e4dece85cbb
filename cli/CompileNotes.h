// The compiler's remarks on a program (BlockProgram::notes) as `pto compile` and `pto run` print
// them: the same remark about many blocks once, with the count and the first blocks named.
#pragma once

#include <string>
#include <vector>

namespace pto {

// "block 'x': <text>" notes with equal <text> become one line "<text> (N blocks: x, y, z, …)";
// other notes stay as they are, in order of first appearance.
std::vector<std::string> groupedNotes(const std::vector<std::string>& notes);

} // namespace pto
