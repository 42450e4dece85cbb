// A read-only QPlainTextEdit with a gutter of change markers and highlighted lines.
#pragma once

#include <QPlainTextEdit>

#include <vector>

namespace pto::gui {

/// Lines are 0-based block numbers. The gutter shows 1-based line numbers and a green bar on
/// changed lines; highlighted lines (the selection) get a background colour.
class IrTextEditor : public QPlainTextEdit {
public:
    explicit IrTextEditor(QWidget* parent = nullptr);

    void setChangedLines(std::vector<int> lines);
    const std::vector<int>& changedLines() const { return m_changed; }
    /// Highlights `lines` and scrolls the first into view (without moving the user's cursor
    /// signal-wise: callers guard cursorPositionChanged).
    void setHighlightedLines(const std::vector<int>& lines);
    /// The widget point (viewport coordinates) in the middle of 0-based `line`.
    QPoint pointOfLine(int line) const;
    /// Line numbers wide enough for the last line, plus the change bar.
    int gutterWidth() const;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    friend class IrGutter;
    void paintGutter(class QPaintEvent* event);
    void updateGutterWidth();

    QWidget* m_gutter = nullptr;
    std::vector<int> m_changed; ///< ascending
};

} // namespace pto::gui
