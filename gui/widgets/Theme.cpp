// Palette-aware colour sets of pto-studio (categories, pipes, heat, severity).
#include "gui/widgets/Theme.h"

#include <QPalette>

#include <algorithm>
#include <array>
#include <functional>
#include <string>

namespace pto::gui::theme {
namespace {

/// Hues spaced for distinction; saturation and value are chosen per palette.
constexpr std::array<int, 12> kHues = {210, 30, 120, 0, 270, 180, 330, 60, 240, 90, 300, 150};

QColor tone(int hue, bool dark) {
    return dark ? QColor::fromHsv(hue, 120, 220) : QColor::fromHsv(hue, 170, 200);
}

int pipeHue(std::string_view pipe) {
    if (pipe == "M") return 0;      // cube: red
    if (pipe == "V") return 210;    // vector: blue
    if (pipe == "S") return 60;     // scalar: yellow
    if (pipe == "MTE1") return 150; // L1 → L0: teal
    if (pipe == "MTE2") return 120; // GM → core: green
    if (pipe == "MTE3") return 270; // core → GM: violet
    if (pipe == "FIX") return 30;   // fixpipe: orange
    return -1;
}

} // namespace

bool isDark(const QPalette& palette) {
    return palette.color(QPalette::Window).lightnessF() < 0.5;
}

QColor categoryColor(int index, const QPalette& palette) {
    const int n = static_cast<int>(kHues.size());
    return tone(kHues[static_cast<std::size_t>(((index % n) + n) % n)], isDark(palette));
}

QColor nameColor(std::string_view name, const QPalette& palette) {
    const std::size_t hash = std::hash<std::string_view>{}(name);
    return categoryColor(static_cast<int>(hash % kHues.size()), palette);
}

QColor pipeColor(std::string_view pipe, const QPalette& palette) {
    const int hue = pipeHue(pipe);
    if (hue < 0) return isDark(palette) ? QColor(150, 150, 150) : QColor(120, 120, 120);
    return tone(hue, isDark(palette));
}

QColor heatColor(double ratio, const QPalette& palette) {
    const double t = std::clamp(ratio, 0.0, 1.0);
    const QColor base = palette.color(QPalette::Base);
    const QColor hot = isDark(palette) ? QColor(230, 90, 40) : QColor(215, 48, 31);
    auto mix = [t](int a, int b) { return static_cast<int>(a + (b - a) * t + 0.5); };
    return QColor(mix(base.red(), hot.red()), mix(base.green(), hot.green()),
                  mix(base.blue(), hot.blue()));
}

QColor severityColor(int severity, const QPalette& palette) {
    const bool dark = isDark(palette);
    switch (severity) {
    case 2:
        return dark ? QColor(255, 110, 100) : QColor(190, 30, 30);
    case 1:
        return dark ? QColor(255, 190, 80) : QColor(170, 100, 0);
    default:
        return dark ? QColor(130, 180, 255) : QColor(30, 90, 180);
    }
}

QColor textOn(const QColor& background) {
    const double luminance =
        0.299 * background.redF() + 0.587 * background.greenF() + 0.114 * background.blueF();
    return luminance > 0.55 ? QColor(Qt::black) : QColor(Qt::white);
}

} // namespace pto::gui::theme
