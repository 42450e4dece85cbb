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

#include <algorithm>

namespace pto::gui {

IrTextView::IrTextView(StudioContext& context, QWidget* parent)
    : StudioView(context, parent), m_watcher(new QFutureWatcher<Result>(this)),
      m_mappingWatcher(new QFutureWatcher<MappingResult>(this)) {
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
            [this] { showLoaded(m_watcher->result()); }); // never throws: runLoaded
    connect(m_mappingWatcher, &QFutureWatcher<MappingResult>::finished, this,
            [this] { showMapping(m_mappingWatcher->result()); });
    initialize();
}

IrTextView::~IrTextView() = default;

QPlainTextEdit* IrTextView::irEditor() const {
    return m_editor;
}

QPlainTextEdit* IrTextView::sourceEditor() const {
    return m_source;
}

namespace {

/// The stage the view opens on: the graph's (the last Tile stage) when its text is stored, else
/// the first Tile stage with text, else the first stage with text; -1 when none has any (a
/// stage above the text limit showed an empty pane and a note).
std::int64_t firstStageOf(const std::vector<tracedb::StageRow>& stages) {
    const auto hasText = [](const tracedb::StageRow& s) { return !s.irText.empty(); };
    const auto isTile = [](const tracedb::StageRow& s) {
        return s.level == tracedb::StageLevel::Tile;
    };
    const auto lastTile = std::find_if(stages.rbegin(), stages.rend(), isTile);
    if (lastTile != stages.rend() && hasText(*lastTile)) return lastTile->id;
    for (const tracedb::StageRow& s : stages)
        if (isTile(s) && hasText(s)) return s.id;
    for (const tracedb::StageRow& s : stages)
        if (hasText(s)) return s.id;
    return -1;
}

} // namespace

void IrTextView::documentChanged() {
    const tracedb::TraceReader* reader = document() ? &document()->reader() : nullptr;
    m_linkWorker = reader ? std::make_shared<LinkWorker>(document()->path()) : nullptr;
    {
        const QSignalBlocker block(m_picker);
        m_stages.load(reader);
    }
    m_source->setPlainText(
        reader ? QString::fromStdString(reader->meta("program_text").value_or("")) : QString());
    m_passTrace->setTracePath(document() ? document()->path() : std::filesystem::path());
    const std::int64_t first = reader ? firstStageOf(reader->stages()) : -1;
    setStage(first >= 0 ? first : m_stages.stageAt(0));
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
    m_ir = loaded.value ? loaded.value : std::make_shared<IrText>();
    m_moving = true;
    m_editor->setPlainText(QString::fromStdString(m_ir->text()));
    m_editor->setChangedLines(m_ir->changedLines());
    m_moving = false;
    m_status->setText(loaded.value ? statusOf(*m_ir)
                                   : tr("Cannot read the stage: %1").arg(loaded.error));
    if (document() && document()->summary().measured) {
        m_editor->setPlainText(tr(kMeasuredNoIr));
        m_status->setText(tr(kMeasuredNoIr));
    }
    onSelection(selection().current(), nullptr);
}

QString IrTextView::statusOf(const IrText& ir) {
    QString status;
    if (ir.parentStageId() < 0)
        status = tr("The program as parsed");
    else if (ir.text().empty())
        status = tr("The text of this stage is not stored");
    else if (!ir.diffed())
        status = tr("No diff with the previous stage: not both texts are stored");
    else
        status = tr("%1 line(s) changed by this pass, %2 removed")
                     .arg(ir.changedLines().size())
                     .arg(ir.removedCount());
    if (ir.diffApproximate()) status += tr(" (too many edits to diff line by line)");
    if (!ir.note().empty()) status += QStringLiteral(" — ") + QString::fromStdString(ir.note());
    return status;
}

QString IrTextView::statusText() const {
    return m_status->text();
}

void IrTextView::onCursorMoved() {
    if (m_moving) return;
    const int line = m_editor->textCursor().blockNumber();
    const EntityRef& ref = m_ir->entityAt(static_cast<std::size_t>(line));
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
    if (origin == this) return;
    ++m_mappingGeneration;
    m_mappingTokens.cancel();
    m_mapping = false;
    if (ref.isNone() || !m_linkWorker) {
        MappingResult none;
        none.generation = m_mappingGeneration;
        none.value = std::make_shared<SelectionLines>();
        return showMapping(none);
    }
    // Through the provenance of a big run: a stage's parent links or a block's instructions
    // take 0.1–0.3 s to read, so never on the GUI thread.
    m_mapping = true;
    m_mappingWatcher->setFuture(QtConcurrent::run(
        &workerPool(), [links = m_linkWorker, ir = std::shared_ptr<const IrText>(m_ir), ref,
                        generation = m_mappingGeneration, token = m_mappingTokens.next()] {
            return runLoaded<SelectionLines>(generation, *token, [&] {
                return links->run(*token, [&](WorkerLinks& l) {
                    return SelectionLines{ir->linesOf(ref, l.links, l.mapper),
                                          sourceLineOf(l.reader, ref)};
                });
            });
        }));
}

void IrTextView::showMapping(const MappingResult& mapped) {
    if (mapped.generation != m_mappingGeneration) return;
    m_mapping = false;
    if (!mapped.value) {
        m_status->setText(tr("Cannot map the selection: %1").arg(mapped.error));
        return;
    }
    m_irLines = mapped.value->irLines;
    m_moving = true;
    m_editor->setHighlightedLines(m_irLines);
    m_moving = false;
    showSourceLine(mapped.value->sourceLine);
}

void IrTextView::showSourceLine(std::int64_t line) {
    m_sourceLine = line;
    m_source->setHighlightedLines(line > 0 ? std::vector<int>{static_cast<int>(line - 1)}
                                           : std::vector<int>{});
}

} // namespace pto::gui
