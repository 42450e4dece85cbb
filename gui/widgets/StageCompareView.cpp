// Stage comparison view: two stage pickers over two node lists linked by provenance.
#include "gui/widgets/StageCompareView.h"

#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QListView>

namespace pto::gui {

StageCompareView::StageCompareView(StudioContext& context, QWidget* parent)
    : StudioView(context, parent) {
    auto* layout = new QGridLayout(this);
    const bool sides[] = {true, false};
    for (bool left : sides) {
        auto* picker = new QComboBox(this);
        picker->setModel(&m_stages);
        auto* list = new QListView(this);
        list->setModel(left ? &m_left : &m_right);
        list->setUniformItemSizes(true); // big stages: no per-row size queries
        list->setSelectionMode(QAbstractItemView::SingleSelection);
        const int column = left ? 0 : 1;
        layout->addWidget(picker, 0, column);
        layout->addWidget(list, 1, column);
        connect(picker, &QComboBox::currentIndexChanged, this,
                [this, left](int row) { onStagePicked(left, row); });
        connect(list, &QListView::clicked, this,
                [this, left](const QModelIndex& index) { onNodeClicked(left, index); });
        (left ? m_leftPicker : m_rightPicker) = picker;
        (left ? m_leftList : m_rightList) = list;
    }
    layout->addWidget(new QLabel(tr("Nodes the selection maps to are highlighted on both "
                                    "sides."),
                                 this),
                      2, 0, 1, 2);
    connect(&selection(), &SelectionModel::selectionChanged, this, &StageCompareView::onSelection);
    initialize();
}

StageCompareView::~StageCompareView() = default;

void StageCompareView::documentChanged() {
    m_mapper.reset();
    m_links.reset();
    const tracedb::TraceReader* reader = document() ? &document()->reader() : nullptr;
    if (reader) {
        m_links = std::make_unique<LinkResolver>(*reader);
        m_mapper = std::make_unique<StageMapper>(*reader, *m_links);
    }
    {
        const QSignalBlocker a(m_leftPicker), b(m_rightPicker);
        m_stages.load(reader);
    }
    // Default: the parsed program against the last Tile stage (where tiles appear).
    std::int64_t right = -1;
    if (reader)
        for (const tracedb::StageRow& s : reader->stages())
            if (s.level == tracedb::StageLevel::Tile) right = s.id;
    if (right < 0) right = m_stages.stageAt(m_stages.rowCount() - 1);
    setStages(m_stages.stageAt(0), right);
}

void StageCompareView::setStages(std::int64_t left, std::int64_t right) {
    const int leftRow = m_stages.rowOf(left), rightRow = m_stages.rowOf(right);
    // setCurrentIndex only signals on a change; load explicitly to also cover a reload.
    {
        const QSignalBlocker a(m_leftPicker), b(m_rightPicker);
        m_leftPicker->setCurrentIndex(leftRow);
        m_rightPicker->setCurrentIndex(rightRow);
    }
    onStagePicked(true, leftRow);
    onStagePicked(false, rightRow);
}

void StageCompareView::onStagePicked(bool left, int row) {
    const tracedb::TraceReader* reader = document() ? &document()->reader() : nullptr;
    (left ? m_left : m_right).load(reader, m_stages.stageAt(row));
    onSelection(selection().current(), nullptr);
}

void StageCompareView::onNodeClicked(bool left, const QModelIndex& index) {
    const StageNodeListModel& model = left ? m_left : m_right;
    const NodeKey node{model.stageId(), model.nodeAt(index.row())};
    highlight(node);
    selection().select(EntityRef::node(node.stageId, node.id), this);
}

void StageCompareView::onSelection(const EntityRef& ref, const QObject* origin) {
    if (origin == this || !m_links) return;
    NodeKey source;
    if (ref.kind == EntityRef::Kind::Node) {
        source = {ref.stageId, ref.id};
    } else if (ref.kind == EntityRef::Kind::Instr || ref.kind == EntityRef::Kind::Slice) {
        const std::int64_t instr =
            ref.kind == EntityRef::Kind::Instr ? ref.id : m_links->instrOfSlice(ref.id);
        if (instr >= 0) source = m_links->tileOpOfInstr(instr);
    }
    highlight(source);
}

void StageCompareView::highlight(NodeKey source) {
    for (StageNodeListModel* model : {&m_left, &m_right}) {
        std::vector<std::int64_t> ids;
        if (source.stageId >= 0 && m_mapper && model->stageId() >= 0)
            ids = m_mapper->map(source.stageId, source.id, model->stageId());
        model->setHighlighted(ids);
        QListView* list = model == &m_left ? m_leftList : m_rightList;
        if (!ids.empty()) list->scrollTo(model->index(model->rowOf(ids.front())));
    }
}

} // namespace pto::gui
