// The compiler's entry points: load a .pto file and lower it through every pass.
#pragma once

#include "compiler/CompileState.h"
#include "compiler/PassManager.h"

#include <string>

namespace pto {

// Reads and parses a .pto file and selects its entry function (@main, else the last one).
// Throws CompileError (with file:line:col) for unreadable files and malformed programs.
CompileState loadProgram(const std::string& path, const std::string& entry = {});
// The same from text already in memory.
CompileState loadProgramText(const std::string& text, const std::string& file,
                             const std::string& entry = {});

// Selects the entry function of a module already built (e.g. by the C++ builder API).
CompileState loadModule(Module module, const std::string& entry = {});

// Runs the whole lowering, Tensor level to PTO instructions, in order. Returns false if the
// pass manager's stop-after point ended it early.
bool lowerToPto(PassManager& pm);

} // namespace pto
