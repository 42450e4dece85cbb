// The SQL console offscreen: results checked against Python's sqlite3, writes refused with the
// file unchanged, errors inline, history, row limit, cancel mid-statement, time limit, never
// blocking on a running query, ts/dur rows as a query track.
#include "gui/widgets/SqlConsole.h"
#include "gui/model/CancelToken.h"
#include "gui/model/SqlConsoleHistory.h"
#include "gui/model/SqlConsoleModel.h"
#include "gui/model/SqlConsoleQuery.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/support/Process.h"
#include "trace_db/TraceReader.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QColor>
#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFile>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTest>
#include <QTextCursor>
#include <QTreeWidget>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include <thread>

namespace pto::gui {
namespace {

namespace fs = std::filesystem;

/// An aggregate over an endless recursive CTE: no row ever arrives.
const QString kEndlessCount = QStringLiteral(
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c");

QByteArray sha256(const fs::path& path) {
    QFile file(QString::fromStdString(path.string()));
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256);
}

/// Rows of `sql` on `trace` as "a|b|c" lines, from Python's sqlite3 (the reference).
QStringList pythonRows(const fs::path& trace, const std::string& sql) {
    const std::string script =
        fmt::format("import sqlite3,sys\n"
                    "db=sqlite3.connect('file:'+sys.argv[1]+'?mode=ro',uri=True)\n"
                    "for r in db.execute(sys.argv[2]): print('|'.join(str(v) for v in r))\n");
    const auto result =
        test::runCommand(fmt::format("/usr/bin/python3 -c {} {} {}", test::shellQuote(script),
                                     test::shellQuote(trace.string()), test::shellQuote(sql)));
    EXPECT_EQ(result.exitCode, 0) << result.err;
    return QString::fromStdString(result.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

QStringList tableRows(SqlConsoleModel& model) {
    while (model.canFetchMore({})) model.fetchMore({});
    QStringList rows;
    for (int r = 0; r < model.rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < model.columnCount(); ++c) cells << model.index(r, c).data().toString();
        rows << cells.join(QLatin1Char('|'));
    }
    return rows;
}

class SqlConsoleTest : public ::testing::Test {
protected:
    void SetUp() override {
        QSettings().clear();
        m_context.setDocument(TraceDocument::open(m_trace));
        m_console = std::make_unique<SqlConsole>(m_context);
        m_console->resize(1000, 600);
        m_console->show();
    }
    void TearDown() override {
        m_console.reset();
        QSettings().clear();
    }
    /// Runs `sql` and waits for the result.
    void run(const QString& sql) {
        QSignalSpy finished(m_console.get(), &SqlConsole::queryFinished);
        m_console->run(sql);
        ASSERT_TRUE(finished.wait(30000)) << sql.toStdString();
    }

    fs::path m_trace = test::sampleTrace("softmax");
    StudioContext m_context;
    std::unique_ptr<SqlConsole> m_console;
};

TEST_F(SqlConsoleTest, ASelectFillsTheTableWithWhatSqliteReturns) {
    const std::string sql =
        "SELECT opcode, count(*), sum(id) FROM instr GROUP BY opcode ORDER BY opcode";
    QAbstractItemModelTester tester(&m_console->model(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    run(QString::fromStdString(sql));
    const QStringList expected = pythonRows(m_trace, sql);
    ASSERT_FALSE(expected.isEmpty());
    EXPECT_EQ(tableRows(m_console->model()), expected);
    EXPECT_EQ(m_console->model().headerData(0, Qt::Horizontal).toString(),
              QStringLiteral("opcode"));
    EXPECT_TRUE(m_console->statusText().contains(QStringLiteral("%1 rows").arg(expected.size())))
        << m_console->statusText().toStdString();
    EXPECT_FALSE(m_console->trackButton()->isEnabled()); // no ts/dur columns
    test::saveScreenshot(*m_console, "sql_console");
}

// The schema browser lists every table and view of the file with the columns Python's sqlite3
// reports, and double-clicking a name writes it into the query.
TEST_F(SqlConsoleTest, TheSchemaBrowserListsEveryTableWithItsColumns) {
    const QStringList expected = pythonRows(
        m_trace, "SELECT t || ':' || group_concat(c, ',') FROM (SELECT m.name AS t, p.name AS c "
                 "FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type IN ('table', "
                 "'view') AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name, p.cid) GROUP BY t "
                 "ORDER BY t");
    ASSERT_FALSE(expected.isEmpty());
    QTreeWidget* tree = m_console->schemaTree();
    QStringList shown;
    for (int i = 0; i < tree->topLevelItemCount(); ++i) {
        QTreeWidgetItem* table = tree->topLevelItem(i);
        QStringList columns;
        for (int c = 0; c < table->childCount(); ++c) columns << table->child(c)->text(0);
        shown << table->text(0) + ':' + columns.join(',');
    }
    shown.sort();
    EXPECT_EQ(shown, expected);
    m_console->editor()->setPlainText(QStringLiteral("SELECT count(*) FROM "));
    m_console->editor()->moveCursor(QTextCursor::End);
    const auto found = tree->findItems(QStringLiteral("slice_named"), Qt::MatchExactly);
    ASSERT_EQ(found.size(), 1);
    tree->scrollToItem(found.front());
    QApplication::processEvents();
    const QRect rect = tree->visualItemRect(found.front());
    const QPoint at(rect.left() + 8, rect.center().y()); // on the name, however wide the column
    ASSERT_TRUE(tree->viewport()->rect().contains(at)) << at.x() << "," << at.y();
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, at);
    QTest::mouseDClick(tree->viewport(), Qt::LeftButton, {}, at);
    EXPECT_EQ(m_console->editor()->toPlainText(),
              QStringLiteral("SELECT count(*) FROM slice_named"));
    // The picture of docs/USER_GUIDE.md: a slice query beside the browser, one table open.
    found.front()->setExpanded(true);
    run(QStringLiteral(
        "SELECT id, name, track_id, ts, dur FROM slice_named ORDER BY dur DESC LIMIT 12"));
    EXPECT_EQ(m_console->model().rowCount(), 12);
    EXPECT_GT(test::drawnPixels(test::saveScreenshot(*m_console, "sql_console_schema")), 1000u);
}

TEST_F(SqlConsoleTest, AnUpdateIsRefusedAndTheFileIsUnchanged) {
    const QByteArray before = sha256(m_trace);
    ASSERT_FALSE(before.isEmpty());
    run(QStringLiteral("UPDATE slice SET dur = 0"));
    EXPECT_TRUE(m_console->statusText().contains(QStringLiteral("read-only")))
        << m_console->statusText().toStdString();
    run(QStringLiteral("SELECT 1; DROP TABLE slice"));
    EXPECT_TRUE(m_console->statusText().contains(QStringLiteral("statement 2")))
        << m_console->statusText().toStdString();
    EXPECT_EQ(sha256(m_trace), before);
    EXPECT_EQ(m_console->model().rowCount(), 0);
}

TEST_F(SqlConsoleTest, ASyntaxErrorIsShownInlineWithItsPosition) {
    run(QStringLiteral("SELECT *\nFROM slice\nWHERE dur >= ORDER BY ts"));
    const QString status = m_console->statusText();
    EXPECT_TRUE(status.contains(QStringLiteral("syntax error"))) << status.toStdString();
    EXPECT_TRUE(status.contains(QStringLiteral("line 3, column 14"))) << status.toStdString();
    ASSERT_EQ(m_console->editor()->extraSelections().size(), 1);
    EXPECT_EQ(m_console->editor()->extraSelections().front().cursor.selectedText(),
              QStringLiteral("ORDER"));
    test::saveScreenshot(*m_console, "sql_console_error");
}

TEST_F(SqlConsoleTest, TsAndDurRowsBecomeAQueryTrack) {
    const std::string sql = "SELECT ts, dur, name, track_id FROM slice_named WHERE category = "
                            "'task' ORDER BY ts, name";
    run(QString::fromStdString(sql));
    ASSERT_TRUE(m_console->trackButton()->isEnabled());
    std::shared_ptr<const QueryTrack> track;
    QObject::connect(&m_context, &StudioContext::queryTrackRequested,
                     [&track](std::shared_ptr<const QueryTrack> t) { track = std::move(t); });
    QTest::mouseClick(m_console->trackButton(), Qt::LeftButton);
    ASSERT_NE(track, nullptr);
    const QStringList expected = pythonRows(m_trace, sql);
    ASSERT_EQ(track->items.size(), std::size_t(expected.size()));
    for (std::size_t i = 0; i < track->items.size(); ++i) {
        const QStringList cells = expected[qsizetype(i)].split(QLatin1Char('|'));
        EXPECT_EQ(track->items[i].ts, cells[0].toLongLong());
        EXPECT_EQ(track->items[i].dur, cells[1].toLongLong());
        EXPECT_EQ(track->items[i].name, cells[2]);
    }
    EXPECT_TRUE(std::is_sorted(track->items.begin(), track->items.end(),
                               [](const auto& a, const auto& b) { return a.ts < b.ts; }));
    EXPECT_EQ(track->trackId, -1); // task slices lie on several core tracks
    EXPECT_TRUE(track->title.startsWith(QStringLiteral("SELECT ts, dur")));
    // Overlapping rows stack in lanes: no two rows of a lane overlap, and there are as many
    // lanes as rows ever run at once (a sweep over the rows as Python read them).
    int lanes = 0;
    for (std::size_t i = 0; i < track->items.size(); ++i) {
        const auto& a = track->items[i];
        lanes = std::max(lanes, a.depth + 1);
        for (std::size_t j = i + 1; j < track->items.size(); ++j) {
            const auto& b = track->items[j];
            if (a.depth != b.depth) continue;
            EXPECT_TRUE(a.ts + std::max<std::int64_t>(a.dur, 1) <= b.ts ||
                        b.ts + std::max<std::int64_t>(b.dur, 1) <= a.ts)
                << "rows " << i << " and " << j << " overlap in lane " << a.depth;
        }
    }
    std::vector<std::pair<std::int64_t, int>> events; // (time, +1 start / -1 end), ends first
    for (const QString& row : expected) {
        const QStringList cells = row.split(QLatin1Char('|'));
        const std::int64_t ts = cells[0].toLongLong(), dur = std::max(1LL, cells[1].toLongLong());
        events.emplace_back(ts, 1);
        events.emplace_back(ts + dur, -1);
    }
    std::sort(events.begin(), events.end());
    int running = 0, most = 0;
    for (const auto& [time, step] : events) most = std::max(most, running += step);
    EXPECT_EQ(lanes, most);
    EXPECT_GT(lanes, 1);
}

TEST_F(SqlConsoleTest, ClickingARowOfSlicesSelectsThatSlice) {
    const std::string sql = "SELECT id, ts, dur, track_id, name FROM slice_named WHERE category = "
                            "'task' ORDER BY dur DESC, id LIMIT 5";
    run(QString::fromStdString(sql));
    const QStringList expected = pythonRows(m_trace, sql);
    ASSERT_GE(expected.size(), 2);
    QTableView* table = m_console->table();
    const QModelIndex second = table->model()->index(1, 4);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(second).center());
    const std::int64_t id = expected[1].split(QLatin1Char('|'))[0].toLongLong();
    EXPECT_EQ(m_context.selection().current(), EntityRef::slice(id));
    // A row naming nothing (an aggregate) selects nothing.
    m_context.selection().clear();
    run(QStringLiteral("SELECT count(*) AS n FROM slice"));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                      table->visualRect(table->model()->index(0, 0)).center());
    EXPECT_TRUE(m_context.selection().current().isNone());
}

// Id cells are links (underlined, the palette's link colour, a tooltip): a click on the
// instr_id cell selects that instruction, on the id cell that slice; other cells are plain text.
TEST_F(SqlConsoleTest, IdCellsAreLinksToWhatTheyName) {
    const std::string sql = "SELECT id, instr_id, track_id, ts, dur FROM slice_named WHERE "
                            "instr_id IS NOT NULL ORDER BY id LIMIT 3";
    run(QString::fromStdString(sql));
    const QStringList expected = pythonRows(m_trace, sql);
    ASSERT_EQ(expected.size(), 3);
    const QStringList first = expected[0].split(QLatin1Char('|'));
    QTableView* table = m_console->table();
    QAbstractItemModel* model = table->model();
    for (int c : {0, 1, 2}) {
        EXPECT_TRUE(model->index(0, c).data(Qt::FontRole).value<QFont>().underline()) << c;
        EXPECT_EQ(model->index(0, c).data(Qt::ForegroundRole).value<QColor>(),
                  QGuiApplication::palette().color(QPalette::Link));
    }
    EXPECT_FALSE(model->index(0, 3).data(Qt::FontRole).isValid()); // ts: plain
    EXPECT_TRUE(model->index(0, 1).data(Qt::ToolTipRole).toString().contains("instruction"));
    auto click = [&](int column) {
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                          table->visualRect(model->index(0, column)).center());
    };
    click(1);
    EXPECT_EQ(m_context.selection().current(), EntityRef::instr(first[1].toLongLong()));
    click(0);
    EXPECT_EQ(m_context.selection().current(), EntityRef::slice(first[0].toLongLong()));
    click(2);
    EXPECT_EQ(m_context.selection().current(), EntityRef::track(first[2].toLongLong()));
    click(3); // a plain cell of a slice row: the row's slice
    EXPECT_EQ(m_context.selection().current(), EntityRef::slice(first[0].toLongLong()));
}

TEST_F(SqlConsoleTest, UpAndDownWalkTheHistoryWhichOutlivesTheConsole) {
    run(QStringLiteral("SELECT 1"));
    run(QStringLiteral("SELECT 2"));
    QPlainTextEdit* editor = m_console->editor();
    editor->setPlainText(QStringLiteral("SELECT 3"));
    editor->setFocus();
    QTest::keyClick(editor, Qt::Key_Up);
    EXPECT_EQ(editor->toPlainText(), QStringLiteral("SELECT 2"));
    QTest::keyClick(editor, Qt::Key_Up);
    EXPECT_EQ(editor->toPlainText(), QStringLiteral("SELECT 1"));
    QTest::keyClick(editor, Qt::Key_Down);
    QTest::keyClick(editor, Qt::Key_Down);
    EXPECT_EQ(editor->toPlainText(), QStringLiteral("SELECT 3")); // back to the draft
    EXPECT_EQ(SqlConsoleHistory().entries(),
              QStringList({QStringLiteral("SELECT 1"), QStringLiteral("SELECT 2")}));
}

TEST_F(SqlConsoleTest, CtrlReturnRunsAndAnEndlessQueryStopsAtTheRowLimit) {
    QSignalSpy finished(m_console.get(), &SqlConsole::queryFinished);
    m_console->editor()->setPlainText(QStringLiteral(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n"));
    m_console->editor()->setFocus();
    QTest::keyClick(m_console->editor(), Qt::Key_Return, Qt::ControlModifier);
    ASSERT_TRUE(finished.wait(30000));
    EXPECT_EQ(m_console->model().totalRows(), int(SqlConsole::kMaxRows));
    EXPECT_EQ(m_console->model().rowCount(), SqlConsoleModel::kBatch); // fetched lazily
    EXPECT_TRUE(m_console->statusText().contains(QStringLiteral("stopped at")));
}

TEST_F(SqlConsoleTest, CancelStopsAnAggregateBeforeItsFirstRow) {
    QSignalSpy finished(m_console.get(), &SqlConsole::queryFinished);
    m_console->run(kEndlessCount);
    QTest::qWait(300);
    ASSERT_TRUE(m_console->isRunning());
    ASSERT_TRUE(m_console->cancelButton()->isEnabled());
    QTest::mouseClick(m_console->cancelButton(), Qt::LeftButton);
    ASSERT_TRUE(finished.wait(3000));
    EXPECT_FALSE(m_console->isRunning());
    EXPECT_TRUE(m_console->statusText().contains(QStringLiteral("cancelled")))
        << m_console->statusText().toStdString();
    run(QStringLiteral("SELECT 7")); // the console is usable again
    EXPECT_EQ(tableRows(m_console->model()), QStringList{QStringLiteral("7")});
}

TEST_F(SqlConsoleTest, TheTimeLimitStopsARunawayQuery) {
    EXPECT_EQ(m_console->timeLimitBox()->value(), SqlConsole::kDefaultTimeLimitSeconds);
    m_console->timeLimitBox()->setValue(1);
    QElapsedTimer timer;
    timer.start();
    run(kEndlessCount);
    EXPECT_LT(timer.elapsed(), 5000);
    EXPECT_TRUE(m_console->statusText().contains(QStringLiteral("time limit of 1 s")))
        << m_console->statusText().toStdString();
    // The limit is a setting: the next console starts with it.
    EXPECT_EQ(SqlConsole(m_context).timeLimitBox()->value(), 1);
}

TEST_F(SqlConsoleTest, RunningAnotherQueryOrClosingNeverWaitsForTheRunningOne) {
    m_console->run(kEndlessCount);
    QTest::qWait(200);
    QSignalSpy finished(m_console.get(), &SqlConsole::queryFinished);
    QElapsedTimer timer;
    timer.start();
    m_console->run(QStringLiteral("SELECT 42"));
    EXPECT_LT(timer.elapsed(), 500);
    ASSERT_TRUE(finished.wait(5000));
    EXPECT_EQ(tableRows(m_console->model()), QStringList{QStringLiteral("42")});
    m_console->run(kEndlessCount);
    QTest::qWait(200);
    timer.restart();
    m_console.reset(); // closing the console
    EXPECT_LT(timer.elapsed(), 1000);
}

TEST(SqlConsoleQueryTest, ACancelledQueryStopsAndSaysSo) {
    const auto reader = tracedb::TraceReader::open(test::sampleTrace("softmax"));
    CancelToken cancelled;
    cancelled.cancel();
    const SqlConsoleResult result =
        runConsoleQuery(reader, QStringLiteral("SELECT * FROM slice"), cancelled, 1000);
    EXPECT_TRUE(result.cancelled);
    EXPECT_TRUE(result.rows.empty());
    CancelToken running;
    const SqlConsoleResult limited =
        runConsoleQuery(reader, QStringLiteral("SELECT * FROM slice"), running, 10);
    EXPECT_TRUE(limited.truncated);
    EXPECT_EQ(limited.rows.size(), 10u);
}

TEST(SqlConsoleQueryTest, CancelFromAnotherThreadInterruptsAnAggregate) {
    const auto reader = tracedb::TraceReader::open(test::sampleTrace("softmax"));
    auto token = std::make_shared<CancelToken>();
    SqlConsoleResult result;
    std::thread worker([&] {
        const FinishGuard finish(*token);
        result = runConsoleQuery(reader, kEndlessCount, *token, 1000);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    QElapsedTimer timer;
    timer.start();
    cancelAndWait(token);
    worker.join();
    EXPECT_LT(timer.elapsed(), 2000);
    EXPECT_TRUE(result.cancelled);
    EXPECT_TRUE(result.ok()) << result.error.toStdString(); // cancelled is not an error
}

TEST(SqlConsoleQueryTest, ErrorOffsetsPointAtSqlitesToken) {
    int length = 0;
    EXPECT_EQ(sqlErrorOffset(QStringLiteral("SELECT * FORM x"),
                             QStringLiteral("... near \"FORM\": syntax error"), &length),
              9);
    EXPECT_EQ(length, 4);
    EXPECT_EQ(sqlErrorOffset(QStringLiteral("SELECT"), QStringLiteral("no such table: x")), -1);
    // a whole word: "in" inside "instr" is not the token
    EXPECT_EQ(sqlErrorOffset(QStringLiteral("SELECT * FROM instr in"),
                             QStringLiteral("near \"in\": syntax error")),
              20);
}

TEST(SqlConsoleModelTest, PassesTheModelTesterThroughLazyFetchesAndResets) {
    SqlConsoleModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    auto result = std::make_shared<SqlConsoleResult>();
    result->columns = {QStringLiteral("i"), QStringLiteral("x"), QStringLiteral("s"),
                       QStringLiteral("b")};
    for (int i = 0; i < 1234; ++i)
        result->rows.push_back({std::int64_t(i), i * 0.5, std::string("row"), std::monostate{}});
    model.setResult(result);
    EXPECT_EQ(model.rowCount(), SqlConsoleModel::kBatch);
    while (model.canFetchMore({})) model.fetchMore({});
    EXPECT_EQ(model.rowCount(), 1234);
    EXPECT_EQ(model.index(1233, 1).data().toString(), QStringLiteral("616.5"));
    EXPECT_EQ(model.index(3, 3).data().toString(), QStringLiteral("NULL"));
    model.setResult(nullptr);
    EXPECT_EQ(model.rowCount(), 0);
    EXPECT_EQ(model.columnCount(), 0);
}

} // namespace
} // namespace pto::gui
