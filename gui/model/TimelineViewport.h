// The visible cycle range of the timeline: pixel ↔ cycle math, zoom and pan, ruler ticks.
#pragma once

#include <QString>

#include <cstdint>
#include <vector>

namespace pto::gui {

/// One mark of the time ruler: where it is (cycles and pixels) and its label.
struct RulerTick {
    double cycle = 0;
    double x = 0;
    QString label;
};

/// Maps the cycle range [begin, end) onto `width` pixels. The range stays inside the data
/// bounds (with a margin of 5 % of their span on each side) and never gets narrower than
/// kMinSpan cycles, so zoom and pan cannot leave the trace or divide by zero. "Fit" shows the
/// fit range: the bounds, or the part of them that holds the run (a measured trace's kernels).
class TimelineViewport {
public:
    static constexpr double kMinSpan = 16;        ///< finest zoom: 16 cycles across the width
    static constexpr double kBoundsMargin = 0.05; ///< may show 5 % of empty time beyond the data

    /// Sets the bounds, makes them the fit range and shows them.
    void setBounds(std::int64_t begin, std::int64_t end);
    /// Narrows the fit range to [begin, end) (within the bounds) and shows it.
    void setFit(std::int64_t begin, std::int64_t end);
    void setWidth(int pixels);
    /// Shows [begin, end), clamped to the bounds and kMinSpan.
    void setRange(double begin, double end);
    /// Shows the fit range.
    void showAll();
    /// Shows [begin, end) with 10 % of its span as margin on each side.
    void reveal(std::int64_t begin, std::int64_t end);

    /// factor > 1 zooms in; the cycle under anchorX stays under it.
    void zoom(double factor, double anchorX);
    /// Moves the view by `dx` pixels (positive: later times come into view).
    void panPixels(double dx);

    double begin() const { return m_begin; }
    double end() const { return m_end; }
    double span() const { return m_end - m_begin; }
    int width() const { return m_width; }
    std::int64_t boundsBegin() const { return m_boundsBegin; }
    std::int64_t boundsEnd() const { return m_boundsEnd; }
    std::int64_t fitBegin() const { return m_fitBegin; }
    std::int64_t fitEnd() const { return m_fitEnd; }
    double cyclesPerPixel() const { return span() / m_width; }

    double xOf(double cycle) const { return (cycle - m_begin) / cyclesPerPixel(); }
    double cycleAt(double x) const { return m_begin + x * cyclesPerPixel(); }

    /// Ticks every 1, 2 or 5 × 10^k cycles, at least minSpacing pixels apart, labelled in
    /// cycles ("12k", "1.5M").
    std::vector<RulerTick> cycleTicks(int minSpacing = 80) const;
    /// Ticks every 1, 2 or 5 × 10^k microseconds at `clockHz`, all labelled in one unit: the
    /// largest of ns, µs, ms and s in which the latest time in view is at least 1 ("2.34 µs",
    /// "140 ms"), with the decimals the step needs. Empty when the trace has no clock
    /// (clockHz ≤ 0).
    std::vector<RulerTick> microTicks(double clockHz, int minSpacing = 80) const;

    /// The smallest 1-2-5 step ≥ `raw` (raw > 0).
    static double niceStep(double raw);
    static QString cycleLabel(double cycles);
    /// `micros` in the unit of the time ruler for times up to `largest` µs, with the decimals
    /// a tick step of `step` µs needs.
    static QString microLabel(double micros, double step, double largest);
    /// A time of the trace with its unit: "1 cycle", "12 cycles", or "12 ns" when `measured`
    /// (an imported profiler trace counts ns).
    static QString timeText(std::int64_t time, bool measured);

private:
    std::vector<RulerTick> ticks(double unitCycles, int minSpacing, bool micros) const;
    void clamp();

    std::int64_t m_boundsBegin = 0;
    std::int64_t m_boundsEnd = 1000;
    std::int64_t m_fitBegin = 0;
    std::int64_t m_fitEnd = 1000;
    double m_begin = 0;
    double m_end = 1000;
    int m_width = 1000;
};

} // namespace pto::gui
