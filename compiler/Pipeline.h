// The compiler's entry points: load a .pto file and lower it through every pass.
#pragma once

#include "compiler/CompileState.h"
#include "compiler/PassManager.h"

#include <string>

namespace pto {

// Reads and parses a program and selects its entry function (@main, else the last one). A
// `.pto` file at Tensor level starts the lowering at the top; one written at Tile level starts
// at the Tile passes; a `.ptoasm` PTO listing is complete already (state.kind == Pto).
// Throws CompileError (with file:line:col) for unreadable files and malformed programs.
CompileState loadProgram(const std::string& path, const std::string& entry = {});
// The same from text already in memory.
CompileState loadProgramText(const std::string& text, const std::string& file,
                             const std::string& entry = {});

// Selects the entry function of a module already built (e.g. by the C++ builder API).
CompileState loadModule(Module module, const std::string& entry = {});

// Parses a PTO listing (hand-written kernels and tasks) into a state at the PTO level.
CompileState loadPtoListing(const std::string& text, const std::string& file);
bool isPtoListingPath(const std::string& path);

// Runs the whole lowering, Tensor level to PTO instructions, in order; passes that start below
// the level the state is at are skipped. Returns false if the pass manager's stop-after point
// ended it early.
bool lowerToPto(PassManager& pm);

} // namespace pto
