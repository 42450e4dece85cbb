// Diff rows of a trace as a table model; the bisection banner from the `bisect` row.
#include "gui/model/DiffModel.h"

#include "gui/model/PlainText.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <unordered_map>

namespace pto::gui {
namespace {

nlohmann::json parseObject(const std::string& text) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    return j.is_object() ? j : nlohmann::json::object();
}

QString textOf(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end()) return {};
    if (it->is_string()) return QString::fromStdString(it->get<std::string>());
    return QString::fromStdString(it->dump());
}

double numberOf(const nlohmann::json& j, const char* key, double fallback) {
    const auto it = j.find(key);
    if (it == j.end()) return fallback;
    if (it->is_number()) return it->get<double>();
    if (it->is_string()) { // "inf" / "-inf" as validate writes them
        const std::string s = it->get<std::string>();
        if (s == "inf") return INFINITY;
        if (s == "-inf") return -INFINITY;
    }
    return fallback;
}

std::unordered_map<std::int64_t, QString> stageNames(const tracedb::TraceReader& reader) {
    std::unordered_map<std::int64_t, QString> names;
    for (const tracedb::StageRow& s : reader.stages())
        names.emplace(s.id, QString::fromStdString(s.pass.empty() ? s.name : s.pass));
    return names;
}

QString opText(const nlohmann::json& detail, const QString& fallback) {
    const QString mnemonic = textOf(detail, "mnemonic");
    const QString value = textOf(detail, "value");
    if (mnemonic.isEmpty()) return fallback;
    return value.isEmpty() ? mnemonic : mnemonic + QLatin1Char(' ') + value;
}

} // namespace

QString BisectResult::headline() const {
    if (!found) return QStringLiteral("No bisection result in this trace");
    QString text = QStringLiteral("First divergence: stage %1, op %2").arg(stage, op);
    if (!location.isEmpty()) text += QStringLiteral(" (%1)").arg(location);
    return text;
}

BisectResult readBisect(const tracedb::TraceReader& reader) {
    BisectResult result;
    for (const tracedb::DiffRow& row : reader.diffs()) {
        if (row.kind != tracedb::DiffKind::Bisect) continue;
        const nlohmann::json detail = parseObject(row.detail);
        result.found = true;
        result.stageId = row.stageId.value_or(-1);
        result.nodeId = row.nodeId.value_or(-1);
        result.stage = textOf(detail, "stage");
        if (result.stage.isEmpty()) result.stage = stageNames(reader)[result.stageId];
        result.op = opText(detail, QString::fromStdString(row.name));
        if (detail.contains("line"))
            result.location =
                QStringLiteral("line %1:%2").arg(textOf(detail, "line"), textOf(detail, "col"));
        result.tensorOp = textOf(detail, "tensor_op");
        result.reason = textOf(detail, "reason");
        break;
    }
    return result;
}

DiffTableModel::DiffTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void DiffTableModel::load(const tracedb::TraceReader* reader) {
    beginResetModel();
    m_rows.clear();
    if (reader) {
        const auto names = stageNames(*reader);
        for (const tracedb::DiffRow& d : reader->diffs()) {
            const nlohmann::json metrics = parseObject(d.metrics);
            const nlohmann::json detail = parseObject(d.detail);
            Row row;
            row.kind = QString::fromUtf8(tracedb::enumName(d.kind).data(),
                                         static_cast<qsizetype>(tracedb::enumName(d.kind).size()));
            row.name = QString::fromStdString(d.name);
            row.stageId = d.stageId.value_or(-1);
            row.nodeId = d.nodeId.value_or(-1);
            row.stage = textOf(detail, "stage");
            if (row.stage.isEmpty() && d.stageId)
                row.stage =
                    names.count(*d.stageId) ? names.at(*d.stageId) : QString::number(*d.stageId);
            row.op = opText(detail, QString());
            row.verdict = QString::fromStdString(d.verdict);
            row.maxAbs = numberOf(metrics, "max_abs", 0);
            row.maxRel = numberOf(metrics, "max_rel", 0);
            row.cosine = numberOf(metrics, "cosine", 1);
            row.mismatches = static_cast<std::int64_t>(numberOf(metrics, "mismatch_count", 0));
            m_rows.push_back(std::move(row));
        }
    }
    endResetModel();
}

EntityRef DiffTableModel::nodeAt(int row) const {
    if (row < 0 || row >= rowCount()) return {};
    const Row& r = m_rows[static_cast<std::size_t>(row)];
    if (r.stageId < 0 || r.nodeId == -1) return {};
    return EntityRef::node(r.stageId, r.nodeId);
}

int DiffTableModel::rowOf(const EntityRef& node) const {
    for (int i = 0; i < rowCount(); ++i)
        if (nodeAt(i) == node) return i;
    return -1;
}

int DiffTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int DiffTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : kColumns;
}

QVariant DiffTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const Row& r = m_rows[static_cast<std::size_t>(index.row())];
    if (role == Qt::UserRole) {
        const EntityRef node = nodeAt(index.row());
        if (node.isNone()) return QVariantList{};
        return QVariantList{QVariant::fromValue<qlonglong>(node.stageId),
                            QVariant::fromValue<qlonglong>(node.id)};
    }
    if (role == Qt::TextAlignmentRole && index.column() >= MaxAbs)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) { // names and reasons from the trace: never rich text
        const QVariant text = data(index, Qt::DisplayRole);
        return text.typeId() == QMetaType::QString ? plainToolTip(text.toString()) : text;
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case Kind:
        return r.kind;
    case Name:
        return r.name;
    case Stage:
        return r.stage;
    case Op:
        return r.op;
    case Verdict:
        return r.verdict;
    case MaxAbs:
        return QString::number(r.maxAbs, 'g', 4);
    case MaxRel:
        return QString::number(r.maxRel, 'g', 4);
    case Mismatches:
        return QString::number(r.mismatches);
    case Cosine:
        return QString::number(r.cosine, 'f', 5);
    default:
        return {};
    }
}

QVariant DiffTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= kColumns) return {};
    static const char* const kNames[kColumns] = {
        "kind", "name", "stage", "op", "verdict", "max_abs", "max_rel", "mismatches", "cosine"};
    static const char* const kTips[kColumns] = {
        "What was compared: tensor (an output), tile, op, or bisect (the first divergence)",
        "The value compared",
        "The pass (or the simulator) after which it was compared",
        "The op that produced it",
        "PASS or FAIL against the tolerance, and the rule that decided",
        "Largest |actual − expected|",
        "Largest |actual − expected| ÷ |expected|",
        "Elements outside the tolerance",
        "Cosine similarity of actual and expected (1 = same direction)"};
    if (role == Qt::DisplayRole) return QString::fromLatin1(kNames[section]);
    if (role == Qt::ToolTipRole) return QString::fromUtf8(kTips[section]);
    return {};
}

} // namespace pto::gui
