// Pixel ↔ cycle math of the timeline, zoom/pan clamping and ruler ticks.
#include "gui/model/TimelineViewport.h"

#include <algorithm>
#include <cmath>

namespace pto::gui {

void TimelineViewport::setBounds(std::int64_t begin, std::int64_t end) {
    m_boundsBegin = begin;
    m_boundsEnd = std::max(end, begin + static_cast<std::int64_t>(kMinSpan));
    m_fitBegin = m_boundsBegin;
    m_fitEnd = m_boundsEnd;
    showAll();
}

void TimelineViewport::setFit(std::int64_t begin, std::int64_t end) {
    m_fitBegin = std::clamp(begin, m_boundsBegin, m_boundsEnd);
    m_fitEnd = std::clamp(end, m_fitBegin, m_boundsEnd);
    showAll();
}

void TimelineViewport::setWidth(int pixels) {
    m_width = std::max(1, pixels);
}

void TimelineViewport::setRange(double begin, double end) {
    m_begin = begin;
    m_end = end;
    clamp();
}

void TimelineViewport::showAll() {
    setRange(static_cast<double>(m_fitBegin), static_cast<double>(m_fitEnd));
}

void TimelineViewport::reveal(std::int64_t begin, std::int64_t end) {
    const double span = std::max<double>(static_cast<double>(end - begin), kMinSpan);
    setRange(static_cast<double>(begin) - span * 0.1, static_cast<double>(begin) + span * 1.1);
}

void TimelineViewport::zoom(double factor, double anchorX) {
    if (!(factor > 0)) return;
    const double anchor = cycleAt(anchorX);
    const double fraction = anchorX / m_width;
    const double span = std::max(kMinSpan, this->span() / factor);
    setRange(anchor - fraction * span, anchor + (1 - fraction) * span);
}

void TimelineViewport::panPixels(double dx) {
    const double shift = dx * cyclesPerPixel();
    setRange(m_begin + shift, m_end + shift);
}

void TimelineViewport::clamp() {
    const double bounds = static_cast<double>(m_boundsEnd - m_boundsBegin);
    const double lo = static_cast<double>(m_boundsBegin) - bounds * kBoundsMargin;
    const double hi = static_cast<double>(m_boundsEnd) + bounds * kBoundsMargin;
    double span = std::clamp(m_end - m_begin, kMinSpan, hi - lo);
    if (!std::isfinite(span)) span = hi - lo;
    double begin = std::isfinite(m_begin) ? m_begin : lo;
    begin = std::clamp(begin, lo, hi - span);
    m_begin = begin;
    m_end = begin + span;
}

double TimelineViewport::niceStep(double raw) {
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    for (double mantissa : {1.0, 2.0, 5.0, 10.0})
        if (mantissa * decade >= raw * (1 - 1e-9)) return mantissa * decade;
    return 10 * decade;
}

QString TimelineViewport::cycleLabel(double cycles) {
    const double magnitude = std::abs(cycles);
    if (magnitude >= 1e9) return QString::number(cycles / 1e9, 'g', 6) + QStringLiteral("G");
    if (magnitude >= 1e6) return QString::number(cycles / 1e6, 'g', 6) + QStringLiteral("M");
    if (magnitude >= 1e4) return QString::number(cycles / 1e3, 'g', 6) + QStringLiteral("k");
    return QString::number(cycles, 'f', 0);
}

namespace {

struct TimeUnit {
    const char* name;
    double micros; ///< µs in one unit
};

/// The largest unit in which `largest` µs is at least 1 (ns below 1 µs).
TimeUnit unitFor(double largest) {
    static constexpr TimeUnit kUnits[] = {{"s", 1e6}, {"ms", 1e3}, {"µs", 1}};
    for (const TimeUnit& unit : kUnits)
        if (std::abs(largest) >= unit.micros) return unit;
    return {"ns", 1e-3};
}

} // namespace

QString TimelineViewport::microLabel(double micros, double step, double largest) {
    const TimeUnit unit = unitFor(largest);
    const double unitStep = step / unit.micros;
    const int decimals = std::clamp(int(std::ceil(-std::log10(unitStep) - 1e-9)), 0, 6);
    return QString::number(micros / unit.micros, 'f', decimals) + QLatin1Char(' ') +
           QString::fromUtf8(unit.name);
}

QString TimelineViewport::timeText(std::int64_t time, bool measured) {
    if (measured) return QStringLiteral("%1 ns").arg(time);
    return time == 1 ? QStringLiteral("1 cycle") : QStringLiteral("%1 cycles").arg(time);
}

std::vector<RulerTick> TimelineViewport::ticks(double unitCycles, int minSpacing,
                                               bool micros) const {
    std::vector<RulerTick> ticks;
    double stepUnits = niceStep(minSpacing * cyclesPerPixel() / unitCycles);
    if (!micros) stepUnits = std::max(1.0, stepUnits); // no fractions of a cycle
    const double first = std::ceil(m_begin / unitCycles / stepUnits) * stepUnits;
    const double largest = std::max(std::abs(m_begin), std::abs(m_end)) / unitCycles;
    for (double units = first; units * unitCycles < m_end; units += stepUnits) {
        const double cycle = units * unitCycles;
        const double rounded = std::round(units / stepUnits) * stepUnits;
        ticks.push_back({cycle, xOf(cycle),
                         micros ? microLabel(rounded, stepUnits, largest) : cycleLabel(rounded)});
        if (ticks.size() > 10000) break;
    }
    return ticks;
}

std::vector<RulerTick> TimelineViewport::cycleTicks(int minSpacing) const {
    return ticks(1.0, minSpacing, false);
}

std::vector<RulerTick> TimelineViewport::microTicks(double clockHz, int minSpacing) const {
    if (clockHz <= 0) return {};
    return ticks(clockHz / 1e6, minSpacing, true);
}

} // namespace pto::gui
