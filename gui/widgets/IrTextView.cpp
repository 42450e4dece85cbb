// IR text view: stage picker, IR with change gutter and selection links, .pto source tab.
#include "gui/widgets/IrTextView.h"

#include "gui/model/LinkResolver.h"
#include "gui/model/WorkerPool.h"
#include "gui/model/WorkerResult.h"
#include "gui/widgets/IrTextViewEditor.h"
#include "gui/widgets/PassTraceBar.h"

#include <QComboBox>
#include <QFutureWatcher>
#include <QLabel>
#include <QTabWidget>
#include <QTextBlock>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace pto::gui {

IrTextView::IrTextView(StudioContext& context, QWidget* parent)
    : StudioView(context, parent), m_watcher(new QFutureWatcher<Result>(this)) {
    m_picker = new QComboBox(this);
    m_picker->setModel(&m_stages);
    m_tabs = new QTabWidget(this);
    m_editor = new IrTextEditor(m_tabs);
    m_source = new IrTextEditor(m_tabs);
    m_tabs->addTab(m_editor, tr("IR"));
    m_tabs->addTab(m_source, tr("Source (.pto)"));
    m_status = new QLabel(this);
    m_status->setTextFormat(Qt::PlainText); // stage names from the trace
    m_status->setWordWrap(true);
    m_passTrace = new PassTraceBar(this);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_picker);
    layout->addWidget(m_passTrace);
    layout->addWidget(m_tabs, 1);
    layout->addWidget(m_status);
    connect(m_picker, &QComboBox::currentIndexChanged, this, &IrTextView::onStagePicked);
    connect(m_passTrace, &PassTraceBar::stageRequested, this,
            [this](qint64 stage) { setStage(stage); });
    connect(m_editor, &QPlainTextEdit::cursorPositionChanged, this, &IrTextView::onCursorMoved);
    connect(&selection(), &SelectionModel::selectionChanged, this, &IrTextView::onSelection);
    connect(m_watcher, &QFutureWatcher<Result>::finished, this,
            [this] { showLoaded(m_watcher->result()); }); // never throws: runGuarded
    initialize();
}

IrTextView::~IrTextView() = default;

QPlainTextEdit* IrTextView::irEditor() const {
    return m_editor;
}

QPlainTextEdit* IrTextView::sourceEditor() const {
    return m_source;
}

void IrTextView::documentChanged() {
    m_mapper.reset();
    m_links.reset();
    const tracedb::TraceReader* reader = document() ? &document()->reader() : nullptr;
    if (reader) {
        m_links = std::make_unique<LinkResolver>(*reader);
        m_mapper = std::make_unique<StageMapper>(*reader, *m_links);
    }
    {
        const QSignalBlocker block(m_picker);
        m_stages.load(reader);
    }
    m_source->setPlainText(
        reader ? QString::fromStdString(reader->meta("program_text").value_or("")) : QString());
    m_passTrace->setTracePath(document() ? document()->path() : std::filesystem::path());
    // Start on the first Tile stage: the first pass whose changes are worth a look.
    std::int64_t stage = m_stages.stageAt(0);
    if (reader)
        for (const tracedb::StageRow& s : reader->stages())
            if (s.level == tracedb::StageLevel::Tile) {
                stage = s.id;
                break;
            }
    setStage(stage);
}

void IrTextView::setStage(std::int64_t stageId) {
    const QSignalBlocker block(m_picker);
    m_picker->setCurrentIndex(m_stages.rowOf(stageId));
    onStagePicked(m_stages.rowOf(stageId));
}

void IrTextView::onStagePicked(int row) {
    ++m_generation;
    m_tokens.cancel();
    const std::int64_t stage = m_stages.stageAt(row);
    if (!document() || stage < 0) {
        showLoaded({m_generation, std::make_shared<IrText>(), {}});
        return;
    }
    m_loading = true;
    m_status->setText(tr("Reading stage %1…").arg(m_picker->itemText(row)));
    // A big run's listing is rebuilt from up to a million instruction rows: seconds, so never
    // on the GUI thread.
    m_watcher->setFuture(
        QtConcurrent::run(&workerPool(), [path = document()->path(), stage,
                                          generation = m_generation, token = m_tokens.next()] {
            return runLoaded<IrText>(generation, *token, [&] {
                const auto reader = tracedb::TraceReader::open(path);
                const auto watch = token->watch(reader);
                return IrText::load(reader, stage);
            });
        }));
}

void IrTextView::showLoaded(const Result& loaded) {
    if (loaded.generation != m_generation) return;
    m_loading = false;
    m_ir = loaded.value ? std::move(*loaded.value) : IrText{};
    m_moving = true;
    m_editor->setPlainText(QString::fromStdString(m_ir.text()));
    m_editor->setChangedLines(m_ir.changedLines());
    m_moving = false;
    QString status = tr("%1 line(s) changed by this pass, %2 removed")
                         .arg(m_ir.changedLines().size())
                         .arg(m_ir.removedCount());
    if (m_ir.parentStageId() < 0) status = tr("The program as parsed");
    if (m_ir.diffApproximate()) status += tr(" (too many edits to diff line by line)");
    if (!m_ir.note().empty()) status += QStringLiteral(" — ") + QString::fromStdString(m_ir.note());
    if (!loaded.value) status = tr("Cannot read the stage: %1").arg(loaded.error);
    m_status->setText(status);
    if (document() && document()->summary().measured) {
        m_editor->setPlainText(tr(kMeasuredNoIr));
        m_status->setText(tr(kMeasuredNoIr));
    }
    onSelection(selection().current(), nullptr);
}

void IrTextView::onCursorMoved() {
    if (m_moving) return;
    const int line = m_editor->textCursor().blockNumber();
    const EntityRef& ref = m_ir.entityAt(static_cast<std::size_t>(line));
    if (ref.isNone()) return;
    m_irLines = {line};
    m_moving = true;
    m_editor->setHighlightedLines(m_irLines);
    m_moving = false;
    if (document()) showSourceLine(sourceLineOf(document()->reader(), ref));
    selection().select(ref, this);
}

void IrTextView::onSelection(const EntityRef& ref, const QObject* origin) {
    m_passTrace->setSelection(ref);
    if (origin == this || !m_links) return;
    m_irLines = ref.isNone() ? std::vector<int>{} : m_ir.linesOf(ref, *m_links, *m_mapper);
    m_moving = true;
    m_editor->setHighlightedLines(m_irLines);
    m_moving = false;
    showSourceLine(ref.isNone() || !document() ? 0 : sourceLineOf(document()->reader(), ref));
}

void IrTextView::showSourceLine(std::int64_t line) {
    m_sourceLine = line;
    m_source->setHighlightedLines(line > 0 ? std::vector<int>{static_cast<int>(line - 1)}
                                           : std::vector<int>{});
}

} // namespace pto::gui
