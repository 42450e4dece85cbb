// The slice table offscreen: a pivot of slices by name checked against SQL and NumPy (count,
// total, min, max, nearest-rank p50/p95), the filter, every-slice mode, and rows clicking
// through to the slice.
#include "gui/model/SlicePivot.h"
#include "gui/widgets/SliceTableView.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/support/Process.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

namespace pto::gui {
namespace {

namespace fs = std::filesystem;

struct Stats {
    std::int64_t count = 0, total = 0, min = 0, p50 = 0, p95 = 0, max = 0;
};

/// Per slice name, from Python's sqlite3 and NumPy (percentiles by the inverted CDF, which is
/// the nearest-rank definition).
std::map<std::string, Stats> referenceByName(const fs::path& trace) {
    test::TempDir dir;
    std::ofstream(dir / "pivot.py") << fmt::format(R"PY(
import sqlite3, numpy as np
db = sqlite3.connect('file:{}?mode=ro', uri=True)
groups = {{}}
for name, dur in db.execute("select name, dur from slice_named"):
    groups.setdefault(name, []).append(dur)
for name, d in groups.items():
    a = np.array(d)
    p = lambda q: int(np.percentile(a, q, method='inverted_cdf'))
    print(name.replace(' ', '_'), len(a), int(a.sum()), int(a.min()), p(50), p(95), int(a.max()))
)PY",
                                                   trace.string());
    const auto r =
        test::runCommand("/usr/bin/python3 " + test::shellQuote((dir / "pivot.py").string()));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    std::map<std::string, Stats> out;
    std::istringstream in(r.out);
    std::string name;
    Stats s;
    while (in >> name >> s.count >> s.total >> s.min >> s.p50 >> s.p95 >> s.max) out[name] = s;
    return out;
}

class SliceTableTest : public ::testing::Test {
protected:
    void SetUp() override {
        m_trace = test::sampleTrace("attention");
        m_view = std::make_unique<SliceTableView>(m_context);
        m_view->resize(1200, 600);
        m_view->show();
        QSignalSpy shown(m_view.get(), &SliceTableView::pivotShown);
        m_context.setDocument(TraceDocument::open(m_trace));
        ASSERT_TRUE(!shown.isEmpty() || shown.wait(60000));
        ASSERT_TRUE(!m_view->isLoading() || shown.wait(60000));
    }
    void show(SliceGrouping g, const QString& filter) {
        QSignalSpy shown(m_view.get(), &SliceTableView::pivotShown);
        m_view->showPivot(g, filter);
        ASSERT_TRUE(!shown.isEmpty() || shown.wait(60000));
    }
    std::int64_t sql(const std::string& query) {
        const auto r = test::runCommand(fmt::format("sqlite3 -readonly {} {}",
                                                    test::shellQuote(m_trace.string()),
                                                    test::shellQuote(query)));
        EXPECT_EQ(r.exitCode, 0) << r.err;
        return std::stoll(r.out);
    }

    fs::path m_trace;
    StudioContext m_context;
    std::unique_ptr<SliceTableView> m_view;
};

TEST_F(SliceTableTest, APivotByNameMatchesSqlAndNumPy) {
    RowTableModel& rows = m_view->rows();
    QAbstractItemModelTester tester(&rows, QAbstractItemModelTester::FailureReportingMode::Fatal);
    const auto ref = referenceByName(m_trace);
    ASSERT_EQ(std::size_t(rows.rowCount()), ref.size());
    for (int r = 0; r < rows.rowCount(); ++r) {
        const std::string name = rows.text(r, 0).replace(' ', '_').toStdString();
        ASSERT_TRUE(ref.count(name)) << name;
        const Stats& s = ref.at(name);
        EXPECT_EQ(rows.text(r, 1).toLongLong(), s.count) << name;
        EXPECT_EQ(rows.text(r, 2).toLongLong(), s.total) << name;
        EXPECT_EQ(rows.text(r, 4).toLongLong(), s.min) << name;
        EXPECT_EQ(rows.text(r, 5).toLongLong(), s.p50) << name;
        EXPECT_EQ(rows.text(r, 6).toLongLong(), s.p95) << name;
        EXPECT_EQ(rows.text(r, 7).toLongLong(), s.max) << name;
    }
    EXPECT_TRUE(m_view->statusText().contains(QString::number(sql("SELECT count(*) FROM slice"))))
        << m_view->statusText().toStdString();
}

// Clicking a group selects its longest slice; the filter keeps matching names only.
TEST_F(SliceTableTest, AGroupRowSelectsItsLongestSliceAndTheFilterNarrows) {
    show(SliceGrouping::Name, QStringLiteral("tload"));
    RowTableModel& rows = m_view->rows();
    ASSERT_EQ(rows.rowCount(), 1);
    EXPECT_EQ(rows.text(0, 0), QStringLiteral("TLOAD"));
    EXPECT_EQ(rows.text(0, 1).toLongLong(),
              sql("SELECT count(*) FROM slice_named WHERE name = 'TLOAD'"));
    QTableView* table = m_view->table();
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                      table->visualRect(table->model()->index(0, 0)).center());
    const EntityRef selected = m_context.selection().current();
    ASSERT_EQ(selected.kind, EntityRef::Kind::Slice);
    EXPECT_EQ(sql(fmt::format("SELECT dur FROM slice WHERE id = {}", selected.id)),
              sql("SELECT max(dur) FROM slice_named WHERE name = 'TLOAD'"));
}

// Grouped by core: one row per core with its slices, as SQL counts them through the tracks.
TEST_F(SliceTableTest, APivotByCoreCountsEachCoresSlices) {
    show(SliceGrouping::Core, {});
    RowTableModel& rows = m_view->rows();
    // Each core, plus "(none)" for the chip track's run marker.
    EXPECT_EQ(rows.rowCount(),
              1 + sql("SELECT count(DISTINCT CASE WHEN t.kind = 'core' THEN t.id ELSE t.parent_id "
                      "END) FROM slice s JOIN track t ON t.id = s.track_id"));
    for (int r = 0; r < rows.rowCount(); ++r) {
        const std::string core = rows.text(r, 0).toStdString();
        const std::string where = core == "(none)" ? "IS NULL" : "= '" + core + "'";
        EXPECT_EQ(rows.text(r, 1).toLongLong(),
                  sql(fmt::format("SELECT count(*) FROM slice s JOIN track_named t ON t.id = "
                                  "s.track_id LEFT JOIN track_named p ON p.id = t.parent_id WHERE "
                                  "(CASE WHEN t.kind = 'core' THEN t.name ELSE p.name END) {}",
                                  where)))
            << core;
    }
}

// Every slice, sortable by duration as a number; a row selects that slice.
TEST_F(SliceTableTest, EverySliceModeSortsByDurationAndSelectsTheRow) {
    show(SliceGrouping::None, QStringLiteral("matmul"));
    RowTableModel& rows = m_view->rows();
    ASSERT_EQ(rows.rowCount(), sql("SELECT count(*) FROM slice_named WHERE name LIKE '%matmul%'"));
    QTableView* table = m_view->table();
    table->sortByColumn(6, Qt::DescendingOrder);
    const auto* proxy = static_cast<const QSortFilterProxyModel*>(table->model());
    EXPECT_EQ(proxy->index(0, 6).data().toLongLong(),
              sql("SELECT max(dur) FROM slice_named WHERE name LIKE '%matmul%'"));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                      table->visualRect(proxy->index(0, 0)).center());
    EXPECT_EQ(m_context.selection().current(),
              EntityRef::slice(proxy->index(0, 0).data().toLongLong()));
    test::saveScreenshot(*m_view, "slice_table");
}

} // namespace
} // namespace pto::gui
