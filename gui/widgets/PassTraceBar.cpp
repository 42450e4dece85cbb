// The IR view's pass trace bar: trace the selected node, then step through its passes.
#include "gui/widgets/PassTraceBar.h"

#include "gui/model/WorkerPool.h"
#include "gui/model/WorkerResult.h"

#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QtConcurrent/QtConcurrentRun>

namespace pto::gui {

PassTraceBar::PassTraceBar(QWidget* parent)
    : QWidget(parent), m_watcher(new QFutureWatcher<Result>(this)) {
    m_trace = new QPushButton(tr("Trace through passes"), this);
    m_trace->setToolTip(tr("List the passes that changed the selected node and step through "
                           "the stages they produced (passes that left it alone are skipped)"));
    m_previous = new QPushButton(tr("◀ pass"), this);
    m_next = new QPushButton(tr("pass ▶"), this);
    m_label = new QLabel(this);
    m_label->setTextFormat(Qt::PlainText); // pass and node names from the trace
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_trace);
    layout->addWidget(m_previous);
    layout->addWidget(m_next);
    layout->addWidget(m_label, 1);
    connect(m_trace, &QPushButton::clicked, this, &PassTraceBar::traceSelection);
    connect(m_previous, &QPushButton::clicked, this, [this] { step(-1); });
    connect(m_next, &QPushButton::clicked, this, [this] { step(+1); });
    connect(m_watcher, &QFutureWatcher<Result>::finished, this,
            [this] { showLoaded(m_watcher->result()); }); // never throws: runGuarded
    refresh();
}

PassTraceBar::~PassTraceBar() = default;

void PassTraceBar::setTracePath(const std::filesystem::path& path) {
    ++m_generation;
    m_tokens.cancel();
    m_path = path;
    m_node = {};
    m_steps.clear();
    m_current = -1;
    m_busy = false;
    m_label->clear();
    refresh();
}

void PassTraceBar::setSelection(const EntityRef& ref) {
    m_node = ref.kind == EntityRef::Kind::Node ? ref : EntityRef{};
    refresh();
}

void PassTraceBar::traceSelection() {
    if (m_path.empty() || m_node.isNone()) return;
    ++m_generation;
    m_tokens.cancel();
    m_busy = true;
    m_label->setText(tr("Tracing node %1 of stage %2…").arg(m_node.id).arg(m_node.stageId));
    refresh();
    m_watcher->setFuture(
        QtConcurrent::run(&workerPool(), [path = m_path, node = m_node, generation = m_generation,
                                          token = m_tokens.next()] {
            return runLoaded<std::vector<PassStep>>(generation, *token, [&] {
                const auto reader = tracedb::TraceReader::open(path);
                const auto watch = token->watch(reader);
                return passTrace(reader, node.stageId, node.id);
            });
        }));
}

void PassTraceBar::showLoaded(const Result& loaded) {
    if (loaded.generation != m_generation) return;
    m_busy = false;
    m_steps = loaded.value ? std::move(*loaded.value) : std::vector<PassStep>{};
    m_current = m_steps.empty() ? -1 : 0;
    if (!loaded.value)
        m_label->setText(tr("Cannot trace the node: %1").arg(loaded.error));
    else if (m_steps.empty())
        m_label->setText(tr("No pass changed this node after it was made"));
    refresh();
    if (m_current >= 0) emit stageRequested(m_steps[0].stageId);
}

void PassTraceBar::step(int delta) {
    const int next = m_current + delta;
    if (next < 0 || next >= int(m_steps.size())) return;
    m_current = next;
    refresh();
    emit stageRequested(m_steps[std::size_t(m_current)].stageId);
}

QString PassTraceBar::text() const {
    return m_label->text();
}

void PassTraceBar::refresh() {
    m_trace->setEnabled(!m_path.empty() && !m_node.isNone() && !m_busy);
    m_previous->setEnabled(m_current > 0);
    m_next->setEnabled(m_current >= 0 && m_current + 1 < int(m_steps.size()));
    if (m_current >= 0) {
        const PassStep& s = m_steps[std::size_t(m_current)];
        m_label->setText(
            tr("pass %1 of %2 that changed it: %3 (%n node(s))", nullptr, int(s.nodes.size()))
                .arg(m_current + 1)
                .arg(m_steps.size())
                .arg(QString::fromStdString(s.pass)));
    }
}

} // namespace pto::gui
