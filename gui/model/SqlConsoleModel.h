// Rows of the SQL console's last query as a table that shows large results lazily.
#pragma once

#include <QAbstractTableModel>

#include <memory>

namespace pto::gui {

struct SqlConsoleResult;

/// Holds one result (shared, immutable) and exposes its rows kBatch at a time through
/// canFetchMore/fetchMore, so a view of a million rows creates only what it scrolls to.
class SqlConsoleModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int kBatch = 500;

    explicit SqlConsoleModel(QObject* parent = nullptr);
    ~SqlConsoleModel() override;

    void setResult(std::shared_ptr<const SqlConsoleResult> result);
    const SqlConsoleResult* result() const { return m_result.get(); }
    /// Rows of the result (all of them, fetched or not).
    int totalRows() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;

private:
    std::shared_ptr<const SqlConsoleResult> m_result;
    int m_fetched = 0;
    bool m_notifying = false;
};

} // namespace pto::gui
