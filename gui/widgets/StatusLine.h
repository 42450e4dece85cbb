// A one-line status text for the views that changes without relayouting the window.
#pragma once

#include <QString>
#include <QWidget>

namespace pto::gui {

/// QLabel::setText always asks its parents to lay out again, and the request climbs to the
/// QMainWindow, which then repaints every dock (1400×541 px per graph selection, measured). A
/// status line has one fixed line height, elides what does not fit (the whole text is its tooltip)
/// and only repaints itself when the text changes.
class StatusLine : public QWidget {
    Q_OBJECT
public:
    explicit StatusLine(QWidget* parent = nullptr);

    void setText(const QString& text);
    QString text() const { return m_text; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QString m_text;
};

} // namespace pto::gui
