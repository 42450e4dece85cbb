// The parser of the PTO listing (syntax in PtoPrinter.h): hand-written or printed kernels read
// back into a PtoProgram, so performance experts can edit PTO code and simulate it.
#pragma once

#include "compiler/ir/Pto.h"

#include <string>
#include <string_view>

namespace pto {

// Throws CompileError with file:line:col at the offending token. With `verify` (the default)
// the program is checked by verifyPtoProgram as well.
PtoProgram parsePtoProgram(std::string_view text, std::string file, bool verify = true);

} // namespace pto
