// The one table of passes, in pipeline order (lowerToPto runs them as listed): name, summary,
// the level it reads and the level it produces, and the function that runs it on a state.
#pragma once

#include "compiler/CompileState.h"

#include <functional>
#include <span>
#include <string_view>

namespace pto {

struct PassInfo {
    std::string_view name;
    std::string_view summary;
    StageKind from;
    StageKind to;
    void (*run)(CompileState& state, const CompileOptions& options);
};

std::span<const PassInfo> passRegistry();
const PassInfo* findPass(std::string_view name);
// True for the last pass of the registry (= pipeline) order that produces its level: the
// stage it leaves is that level's final form.
bool isLastPassOfLevel(const PassInfo& pass);

} // namespace pto
