// Lazily fetched table of SQL console results (NULL, numbers, text, blob sizes).
#include "gui/model/SqlConsoleModel.h"

#include "gui/model/SqlConsoleQuery.h"

#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include <algorithm>

namespace pto::gui {
namespace {

QVariant display(const tracedb::SqlValue& value) {
    if (const auto* i = std::get_if<std::int64_t>(&value)) return QString::number(*i);
    if (const auto* d = std::get_if<double>(&value)) return QString::number(*d, 'g', 10);
    if (const auto* s = std::get_if<std::string>(&value)) return QString::fromStdString(*s);
    if (const auto* b = std::get_if<tracedb::BlobSize>(&value))
        return QStringLiteral("<blob %1 bytes>").arg(b->bytes);
    return QStringLiteral("NULL");
}

QVariant sortValue(const tracedb::SqlValue& value) {
    if (const auto* i = std::get_if<std::int64_t>(&value)) return qint64(*i);
    if (const auto* d = std::get_if<double>(&value)) return *d;
    if (const auto* b = std::get_if<tracedb::BlobSize>(&value)) return qint64(b->bytes);
    if (std::holds_alternative<std::monostate>(value)) return {};
    return display(value);
}

} // namespace

SqlConsoleModel::SqlConsoleModel(QObject* parent) : QAbstractTableModel(parent) {}

SqlConsoleModel::~SqlConsoleModel() = default;

void SqlConsoleModel::setResult(std::shared_ptr<const SqlConsoleResult> result) {
    // Listeners of the reset / insert signals (views, QAbstractItemModelTester) must not
    // fetch more from inside them.
    m_notifying = true;
    beginResetModel();
    m_result = std::move(result);
    m_fetched = std::min(totalRows(), kBatch);
    endResetModel();
    m_notifying = false;
}

int SqlConsoleModel::totalRows() const {
    return m_result ? static_cast<int>(m_result->rows.size()) : 0;
}

int SqlConsoleModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : m_fetched;
}

int SqlConsoleModel::columnCount(const QModelIndex& parent) const {
    if (parent.isValid() || !m_result) return 0;
    return static_cast<int>(m_result->columns.size());
}

QVariant SqlConsoleModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const auto& row = m_result->rows[static_cast<std::size_t>(index.row())];
    if (static_cast<std::size_t>(index.column()) >= row.size()) return {};
    const tracedb::SqlValue& value = row[static_cast<std::size_t>(index.column())];
    switch (role) {
    case Qt::DisplayRole:
        return display(value);
    case Qt::UserRole:
        return sortValue(value);
    case Qt::TextAlignmentRole:
        return std::holds_alternative<std::string>(value)
                   ? QVariant()
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default:
        break;
    }
    // Id cells are links: drawn as such, a click selects what they name in every view.
    if (role != Qt::ForegroundRole && role != Qt::FontRole && role != Qt::ToolTipRole) return {};
    const EntityRef ref = cellEntity(*m_result, std::size_t(index.row()), index.column());
    if (ref.isNone()) return {};
    if (role == Qt::ForegroundRole) return QGuiApplication::palette().color(QPalette::Link);
    if (role == Qt::ToolTipRole) {
        static const char* const kinds[] = {"", "node", "instruction", "slice", "track"};
        return tr("Click to select %1 %2 in every view")
            .arg(QLatin1String(kinds[int(ref.kind)]), display(value).toString());
    }
    QFont font;
    font.setUnderline(true);
    return font;
}

QVariant SqlConsoleModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Vertical) return section + 1;
    if (section < 0 || section >= columnCount()) return {};
    return m_result->columns[section];
}

bool SqlConsoleModel::canFetchMore(const QModelIndex& parent) const {
    return !parent.isValid() && !m_notifying && m_fetched < totalRows();
}

void SqlConsoleModel::fetchMore(const QModelIndex& parent) {
    if (!canFetchMore(parent)) return;
    const int next = std::min(totalRows(), m_fetched + kBatch);
    m_notifying = true;
    beginInsertRows({}, m_fetched, next - 1);
    m_fetched = next;
    endInsertRows();
    m_notifying = false;
}

} // namespace pto::gui
