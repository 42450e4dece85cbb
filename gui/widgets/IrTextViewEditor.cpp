// Read-only text editor with a line-number and change-marker gutter, used by the IR text view.
#include "gui/widgets/IrTextViewEditor.h"

#include <QPainter>
#include <QTextBlock>

#include <algorithm>

namespace pto::gui {
namespace {

constexpr int kBarWidth = 6; ///< the change bar at the gutter's right edge, with its margin

} // namespace

class IrGutter : public QWidget {
public:
    explicit IrGutter(IrTextEditor* editor) : QWidget(editor), m_editor(editor) {}
    QSize sizeHint() const override { return {m_editor->gutterWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* event) override { m_editor->paintGutter(event); }

private:
    IrTextEditor* m_editor;
};

IrTextEditor::IrTextEditor(QWidget* parent) : QPlainTextEdit(parent) {
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    QFont mono(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::Monospace);
    setFont(mono);
    m_gutter = new IrGutter(this);
    updateGutterWidth();
    connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { updateGutterWidth(); });
    connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
        if (dy)
            m_gutter->scroll(0, dy);
        else
            m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
    });
}

int IrTextEditor::gutterWidth() const {
    const int digits = static_cast<int>(QString::number(std::max(1, blockCount())).size());
    return 8 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * digits + kBarWidth;
}

void IrTextEditor::updateGutterWidth() {
    setViewportMargins(gutterWidth(), 0, 0, 0);
    const QRect r = contentsRect();
    m_gutter->setGeometry(r.left(), r.top(), gutterWidth(), r.height());
}

void IrTextEditor::setChangedLines(std::vector<int> lines) {
    std::sort(lines.begin(), lines.end());
    m_changed = std::move(lines);
    m_gutter->update();
}

void IrTextEditor::setHighlightedLines(const std::vector<int>& lines) {
    QList<QTextEdit::ExtraSelection> selections;
    const QColor colour = palette().highlight().color().lighter(160);
    for (int line : lines) {
        const QTextBlock block = document()->findBlockByNumber(line);
        if (!block.isValid()) continue;
        QTextEdit::ExtraSelection s;
        s.format.setBackground(colour);
        s.format.setProperty(QTextFormat::FullWidthSelection, true);
        s.cursor = QTextCursor(block);
        selections.append(s);
    }
    setExtraSelections(selections);
    if (!lines.empty()) {
        const QTextBlock block = document()->findBlockByNumber(lines.front());
        if (block.isValid()) {
            setTextCursor(QTextCursor(block));
            centerCursor();
        }
    }
}

QPoint IrTextEditor::pointOfLine(int line) const {
    const QTextBlock block = document()->findBlockByNumber(line);
    if (!block.isValid()) return {};
    const QRectF r = blockBoundingGeometry(block).translated(contentOffset());
    return QPoint(20, int(r.center().y()));
}

void IrTextEditor::resizeEvent(QResizeEvent* event) {
    QPlainTextEdit::resizeEvent(event);
    const QRect r = contentsRect();
    m_gutter->setGeometry(r.left(), r.top(), gutterWidth(), r.height());
}

void IrTextEditor::paintGutter(QPaintEvent*) {
    QPainter painter(m_gutter);
    painter.fillRect(m_gutter->rect(), palette().window());
    painter.setFont(font());
    painter.setPen(palette().color(QPalette::PlaceholderText));
    const int width = gutterWidth();
    QTextBlock block = firstVisibleBlock();
    double top = blockBoundingGeometry(block).translated(contentOffset()).top();
    while (block.isValid() && top <= m_gutter->height()) {
        const double height = blockBoundingRect(block).height();
        painter.drawText(QRectF(0, top, width - kBarWidth - 4, height), Qt::AlignRight,
                         QString::number(block.blockNumber() + 1));
        if (std::binary_search(m_changed.begin(), m_changed.end(), block.blockNumber()))
            painter.fillRect(QRectF(width - kBarWidth + 1, top, kBarWidth - 2, height),
                             QColor(46, 160, 67));
        top += height;
        block = block.next();
    }
}

} // namespace pto::gui
