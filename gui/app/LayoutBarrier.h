// The holder of a dock's view that keeps the view's layout changes inside the dock.
#pragma once

#include <QWidget>

namespace pto::gui {

/// Every QLabel::setText, show/hide or tab switch inside a view asks each ancestor to lay out
/// again (QLayout::activate ends in updateGeometry, whether or not a size hint changed), up to
/// the QMainWindow, whose relayout repaints every dock: 100–160 ms per click on a loaded machine.
/// The barrier holds the view without a layout: the view fills it on every resize, and a
/// layout request the view sends up stops here. Its size hints are the view's, read whenever
/// the dock lays out for its own reasons (resize, dock moved or shown).
class LayoutBarrier : public QWidget {
public:
    explicit LayoutBarrier(QWidget* content, QWidget* parent = nullptr);

    QWidget* content() const { return m_content; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    bool event(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QWidget* m_content;
};

} // namespace pto::gui
