// Colours of pto-studio that stay readable on the system's light and dark palettes.
#pragma once

#include <QColor>

#include <string_view>

class QPalette;

namespace pto::gui::theme {

/// True when the palette's window colour is dark (the system runs a dark theme).
bool isDark(const QPalette& palette);

/// The `index`-th colour of a categorical set (Tensor ops, names): 12 hues, lighter on a
/// dark palette and deeper on a light one, always readable under text of textOn().
QColor categoryColor(int index, const QPalette& palette);
/// A stable colour per name (hash of the text into categoryColor).
QColor nameColor(std::string_view name, const QPalette& palette);
/// The colour of a pipe (S, MTE1, MTE2, MTE3, M, FIX, V; others grey), same on every view.
QColor pipeColor(std::string_view pipe, const QPalette& palette);
/// A heat scale for a ratio in [0, 1] (clamped): the palette's base at 0 to a saturated
/// warm colour at 1.
QColor heatColor(double ratio, const QPalette& palette);
/// Severity colours: 0 info, 1 warning, 2 critical.
QColor severityColor(int severity, const QPalette& palette);
/// Black or white, whichever reads better on `background`.
QColor textOn(const QColor& background);

} // namespace pto::gui::theme
