// `pto compile … --trace-value %x`: the passes that changed the ops derived from one value (its
// producer and everything made from it, followed through `Op::parent`), with the IR of those
// ops before and after each; passes that left them as they were are hidden.
#pragma once

#include "compiler/PassManager.h"

#include <string>
#include <vector>

namespace pto::cli {

struct PassChange {
    int ordinal = 0;
    std::string pass;
    std::string level; // "tensor" or "tile"
    std::string before, after;
};

class ValueTracer : public StageObserver {
public:
    explicit ValueTracer(std::string value); // "%x" or "x"
    void onStage(const StageEvent& event) override;

    const std::vector<PassChange>& changes() const { return m_changes; }
    int unchanged() const { return m_unchanged; }
    /// The report: the value, its op and line, then each changing pass with before/after.
    std::string report(const std::string& program) const;

private:
    std::string m_value;
    std::string m_origin;            // "reduce_max, line 5:8"
    std::vector<OpId> m_derived;     // ops of the last Tensor/Tile stage seen
    std::string m_text, m_canonical; // their IR, and with numbered names canonicalised
    std::vector<PassChange> m_changes;
    int m_unchanged = 0;
    bool m_started = false, m_stopped = false;
};

} // namespace pto::cli
