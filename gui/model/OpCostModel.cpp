// Table model of per-Tensor-op cost and bound class for the bottleneck view.
#include "gui/model/OpCostModel.h"

#include "profiler/Profile.h"

namespace pto::gui {
namespace {

QString qs(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<int>(text.size()));
}

} // namespace

OpCostModel::OpCostModel(QObject* parent) : QAbstractTableModel(parent) {}

OpCostModel::~OpCostModel() = default;

void OpCostModel::setProfile(std::shared_ptr<const prof::Profile> profile) {
    beginResetModel();
    m_profile = std::move(profile);
    m_attributed = 0;
    m_rows.clear();
    if (m_profile && unavailableReason().isEmpty())
        for (std::size_t i : prof::programOrder(m_profile->model)) {
            const prof::TensorOpCost& op = m_profile->model.tensorOps[i];
            if (op.loop < 0) m_attributed += op.cycles(); // a body op's are in its loop's
            if (op.cycles() > 0 || op.first >= 0) m_rows.push_back(i);
        }
    endResetModel();
}

std::int64_t OpCostModel::opId(int row) const {
    if (row < 0 || row >= rowCount()) return -1;
    return m_profile->model.tensorOps[m_rows[static_cast<std::size_t>(row)]].id;
}

std::int64_t OpCostModel::opStage(int row) const {
    if (row < 0 || row >= rowCount()) return -1;
    return m_profile->model.tensorOps[m_rows[static_cast<std::size_t>(row)]].stageId;
}

std::int64_t OpCostModel::rootStage() const {
    return m_profile ? m_profile->model.rootStageId : -1;
}

QString OpCostModel::unavailableReason() const {
    if (!m_profile) return {};
    const prof::RunModel& run = m_profile->model;
    if (run.measured)
        return tr("A measured trace has no Tensor ops: the profiler files hold the kernels that "
                  "ran, not the program (no IR).");
    if (run.recordsInstrCycles() || !run.executed()) return {};
    return tr("Tensor op costs are not recorded at --trace %1: without instruction slices no op "
              "has cycles, a span, a roof or a bound (pto run --trace instructions records "
              "them).")
        .arg(QString::fromStdString(run.traceLevel));
}

int OpCostModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !m_profile) return 0;
    return static_cast<int>(m_rows.size());
}

int OpCostModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OpCostModel::value(int row, int column) const {
    const std::size_t i = m_rows[static_cast<std::size_t>(row)];
    const prof::TensorOpCost& op = m_profile->model.tensorOps[i];
    const prof::RooflinePoint& point = m_profile->roofline.tensorOps[i];
    switch (column) {
    case Line:
        return qint64(op.srcLine);
    case Cycles:
        return qint64(op.cycles());
    case Share:
        return m_attributed > 0 ? double(op.cycles()) / double(m_attributed) : 0.0;
    case Span:
        return qint64(op.first >= 0 ? op.last - op.first : 0);
    case Flops:
        return op.flops;
    case Bytes:
        return qint64(op.gmBytes);
    case Intensity:
        return point.intensity;
    case RoofFraction:
        return point.roofFraction;
    default:
        return text(row, column);
    }
}

QString OpCostModel::text(int row, int column) const {
    const std::size_t i = m_rows[static_cast<std::size_t>(row)];
    const prof::TensorOpCost& op = m_profile->model.tensorOps[i];
    switch (column) {
    case Op:
        if (op.isLoopTotal())
            return tr("for \"%1\": total of its %n body op(s)", nullptr, op.bodyOps)
                .arg(qs(op.loopName));
        if (op.loop >= 0)
            return qs(op.kind) + QLatin1Char(' ') + qs(op.name) + tr(" in %1").arg(qs(op.loopName));
        return qs(op.kind) + QLatin1Char(' ') + qs(op.name);
    case Share:
        return QStringLiteral("%1 %").arg(value(row, column).toDouble() * 100, 0, 'f', 1);
    case Flops:
        return QString::number(op.flops, 'g', 6);
    case Intensity:
        return QString::number(value(row, column).toDouble(), 'f', 3);
    case RoofFraction:
        return QStringLiteral("%1 %").arg(value(row, column).toDouble() * 100, 0, 'f', 0);
    case BoundClass:
        return QString::fromStdString(m_profile->bound.tensorOps[i].label());
    default:
        return value(row, column).toString();
    }
}

QVariant OpCostModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    switch (role) {
    case Qt::DisplayRole:
        return text(index.row(), index.column());
    case kSortRole:
        return value(index.row(), index.column());
    case Qt::TextAlignmentRole:
        return index.column() == Op || index.column() == BoundClass
                   ? QVariant()
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant OpCostModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    static const char* const kNames[] = {"Line",  "Op",       "Instr cycles", "Share", "Span",
                                         "FLOPs", "GM bytes", "FLOP/B",       "Roof",  "Bound"};
    static const char* const kTips[] = {
        "source line of the op",
        "op kind and result; an op of a loop's body names its loop, whose own row is the total "
        "of its body",
        "instruction cycles of every instruction generated for it, summed over pipes and cores",
        "of all attributed instruction cycles",
        "first instruction start to last instruction end, cycles",
        "floating-point operations",
        "bytes moved to and from global memory",
        "arithmetic intensity, FLOP per GM byte",
        "achieved ÷ roof at its intensity on the cores it ran on",
        "compute / memory bound (≥ 80 % of the roof) or latency bound and its cause"};
    if (role == Qt::DisplayRole) return tr(kNames[section]);
    if (role == Qt::ToolTipRole) return tr(kTips[section]);
    return {};
}

} // namespace pto::gui
