// IR text: the line diff against difflib and an LCS computed in Python, the line ↔ node
// mapping checked against the node table, and the view linked to the selection both ways.
#include "gui/model/IrText.h"
#include "gui/model/GraphStage.h"
#include "gui/model/LinkResolver.h"
#include "gui/model/PtoListing.h"
#include "gui/widgets/IrTextView.h"
#include "gui/widgets/IrTextViewEditor.h"
#include "tests/gui/DiffFixtures.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/gui/support/OpenIrView.h"
#include "tests/support/Process.h"

#include <QTabWidget>
#include <QTest>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>

namespace pto::gui {
namespace {

const char* const kDifflib = R"PY(
import difflib, sys
a = open(sys.argv[1]).read().split('\n')
b = open(sys.argv[2]).read().split('\n')
if a and a[-1] == '': a.pop()
if b and b[-1] == '': b.pop()
added = []
for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
    if tag in ('insert', 'replace'): added += range(j1, j2)
prev = [0] * (len(b) + 1)
for x in a:
    cur = [0] * (len(b) + 1)
    for j, y in enumerate(b):
        cur[j + 1] = prev[j] + 1 if x == y else max(prev[j + 1], cur[j])
    prev = cur
print(prev[len(b)])
print(' '.join(map(str, added)))
)PY";

struct PyDiff {
    std::size_t lcs = 0;
    std::vector<int> added;
};

PyDiff pythonDiff(const std::string& before, const std::string& after) {
    test::TempDir dir;
    std::ofstream(dir / "a.txt") << before;
    std::ofstream(dir / "b.txt") << after;
    std::ofstream(dir / "diff.py") << kDifflib;
    const auto result = test::runCommand(fmt::format(
        "/usr/bin/python3 {} {} {}", test::shellQuote((dir / "diff.py").string()),
        test::shellQuote((dir / "a.txt").string()), test::shellQuote((dir / "b.txt").string())));
    EXPECT_EQ(result.exitCode, 0) << result.err;
    std::istringstream in(result.out);
    PyDiff out;
    in >> out.lcs;
    for (int line; in >> line;) out.added.push_back(line);
    return out;
}

/// The unmarked lines of both sides must be the same sequence (a common subsequence).
void expectUnmarkedLinesAgree(const std::vector<std::string_view>& a,
                              const std::vector<std::string_view>& b, const LineDiff& diff) {
    std::vector<std::string_view> keptA, keptB;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!diff.removed[i]) keptA.push_back(a[i]);
    for (std::size_t i = 0; i < b.size(); ++i)
        if (!diff.added[i]) keptB.push_back(b[i]);
    EXPECT_EQ(keptA, keptB);
}

std::string stageText(const tracedb::TraceReader& reader, std::int64_t stage) {
    for (const auto& s : reader.stages())
        if (s.id == stage) return s.irText;
    return {};
}

tracedb::StageLevel levelOf(const tracedb::TraceReader& reader, std::int64_t stage) {
    for (const auto& s : reader.stages())
        if (s.id == stage) return s.level;
    return tracedb::StageLevel::Tensor;
}

TEST(GuiIrText, LineDiffIsMinimalOnRandomTexts) {
    std::mt19937 rng(7);
    for (int round = 0; round < 20; ++round) {
        std::string a, b;
        for (int i = 0; i < 60; ++i) {
            a += fmt::format("l{}\n", rng() % 8);
            b += fmt::format("l{}\n", rng() % 8);
        }
        const auto la = splitLines(a), lb = splitLines(b);
        const LineDiff diff = diffLines(la, lb);
        const PyDiff py = pythonDiff(a, b);
        EXPECT_EQ(diff.addedCount(), lb.size() - py.lcs);
        EXPECT_EQ(diff.removedCount(), la.size() - py.lcs);
        expectUnmarkedLinesAgree(la, lb, diff);
    }
    // Beyond the edit bound the middle is marked whole, prefix and suffix stay unmarked.
    const LineDiff rough =
        diffLines(splitLines("x\na\nb\nc\ny\n"), splitLines("x\nd\ne\nf\ny\n"), 2);
    EXPECT_TRUE(rough.approximate);
    EXPECT_EQ(rough.added, (std::vector<bool>{false, true, true, true, false}));
}

TEST(GuiIrText, ChangedLinesOfEveryPassMatchDifflib) {
    const auto reader = tracedb::TraceReader::open(test::sampleTrace("softmax"));
    std::size_t passesWithChanges = 0;
    for (const tracedb::StageRow& stage : reader.stages()) {
        if (!stage.parentStageId || stage.irText.empty()) continue;
        const IrText ir = IrText::load(reader, stage.id);
        const std::string parent = stageText(reader, *stage.parentStageId);
        const PyDiff py = pythonDiff(parent, stage.irText);
        EXPECT_EQ(ir.changedLines().size(), splitLines(stage.irText).size() - py.lcs) << stage.name;
        // Unmarked lines of both sides must be one common subsequence.
        const LineDiff diff = diffLines(splitLines(parent), splitLines(stage.irText));
        expectUnmarkedLinesAgree(splitLines(parent), splitLines(stage.irText), diff);
        // Within a level the changes are local and the minimal script is unique enough for
        // difflib to find the same lines; a pass that changes level reprints everything and
        // equally short scripts may pick different lines.
        if (levelOf(reader, *stage.parentStageId) == stage.level) {
            EXPECT_EQ(ir.changedLines(), py.added) << stage.name << " (difflib)";
        }
        passesWithChanges += !ir.changedLines().empty();
    }
    EXPECT_GE(passesWithChanges, 3u);
}

TEST(GuiIrText, LinesMapToTheNodesAndInstructionsTheyPrint) {
    const auto trace = test::bisectTrace("matmul", "shift-tile-offset").trace;
    const auto reader = tracedb::TraceReader::open(trace);
    for (const tracedb::StageRow& stage : reader.stages()) {
        const IrText ir = IrText::load(reader, stage.id);
        EXPECT_TRUE(ir.mapped()) << stage.name << ": " << ir.note();
        const auto lines = splitLines(ir.text());
        std::map<std::int64_t, tracedb::NodeRow> nodes;
        for (auto& n : reader.nodes(stage.id)) nodes.emplace(n.id, n);
        std::map<std::int64_t, tracedb::InstrRow> instrs;
        for (auto& i : reader.instrs()) instrs.emplace(i.id, i);
        std::size_t linked = 0;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const EntityRef& ref = ir.entityAt(i);
            const std::string line(lines[i]);
            if (ref.kind == EntityRef::Kind::Node) {
                const auto& node = nodes.at(ref.id);
                EXPECT_NE(line.find(node.kind == "block_fn" ? "block "
                                    : node.kind == "kernel" ? "kernel @"
                                                            : node.kind),
                          std::string::npos)
                    << line;
                // Tile ops print their offset; it must be the node's (the faulted tload too).
                const auto at = node.attrs.find("\"offset\":[");
                if (at != std::string::npos && line.find("offset = [") != std::string::npos) {
                    std::string offset = node.attrs.substr(at + 10);
                    offset = offset.substr(0, offset.find(']'));
                    const std::string printed = line.substr(line.find("offset = [") + 10);
                    std::string digits;
                    for (char c : printed.substr(0, printed.find(']')))
                        if (c != ' ') digits += c;
                    EXPECT_EQ(digits, offset) << line;
                }
                ++linked;
            } else if (ref.kind == EntityRef::Kind::Instr) {
                const auto& instr = instrs.at(ref.id);
                EXPECT_NE(line.find(instr.opcode), std::string::npos) << line;
                EXPECT_NE(line.find(fmt::format("!op {} ", *instr.tileOpId)), std::string::npos)
                    << line;
                ++linked;
            }
        }
        EXPECT_GT(linked, 0u) << stage.name;
    }
}

/// `line` without the column of its `!loc line:col` (the instr table keeps the line only).
std::string withoutColumn(std::string_view line) {
    std::string out(line);
    const std::size_t loc = out.find(" !loc ");
    if (loc == std::string::npos) return out;
    const std::size_t colon = out.find(':', loc);
    return colon == std::string::npos ? out : out.substr(0, colon);
}

TEST(GuiIrText, RebuiltListingMatchesThePrintedOneLineForLine) {
    const auto reader = tracedb::TraceReader::open(test::sampleTrace("matmul"));
    std::int64_t pto = -1;
    for (const auto& s : reader.stages())
        if (s.level == tracedb::StageLevel::Pto) pto = s.id;
    ASSERT_GE(pto, 0);
    std::vector<std::string> printed; // kernels and instructions of the printer's listing
    bool inKernel = false;
    const std::string text = stageText(reader, pto); // the views below point into it
    for (std::string_view line : splitLines(text)) {
        if (line.starts_with("kernel @")) inKernel = true;
        if (inKernel) printed.push_back(withoutColumn(line));
        if (line == "}") inKernel = false;
    }
    const RebuiltListing rebuilt = rebuildPtoListing(reader, pto);
    std::vector<std::string> lines;
    for (std::string_view line : splitLines(rebuilt.text)) lines.emplace_back(line);
    EXPECT_EQ(lines, printed);
    EXPECT_EQ(rebuilt.instructions, std::int64_t(reader.instrs().size()));
    EXPECT_EQ(rebuilt.total, rebuilt.instructions);
    // Capped (a big run's listing): the first instructions in id order, and how many there are.
    const RebuiltListing capped = rebuildPtoListing(reader, pto, 5);
    EXPECT_EQ(capped.instructions, 5);
    EXPECT_EQ(capped.total, rebuilt.total);
    EXPECT_TRUE(rebuilt.text.starts_with(capped.text.substr(0, capped.text.size() - 2)));
}

/// 2048×1024 add in 16×16 tiles: 32 769 tile ops, above the recorder's 20 000-op text limit.
std::filesystem::path bigRunTrace() {
    return test::programTrace("ir_text_big_flat",
                              "func @add(%a: tensor<2048x1024xf16>, %b: tensor<2048x1024xf16>) "
                              "-> tensor<2048x1024xf16> {\n  vec_tile [16, 16]\n"
                              "  %c = add %a, %b\n  return %c\n}\n",
                              // written out: over 20 000 instructions (reroll-loops would
                              // fold the tiles each kernel streams into a few loops)
                              "--timing-only --trace tasks --no-reroll");
}

TEST(GuiIrText, ABigRunShowsItsPtoListingAndSaysWhyTileStagesHaveNoText) {
    test::OpenIrView open(bigRunTrace());
    ASSERT_TRUE(open.loaded());
    auto& [context, view] = open;
    const auto& reader = context.document()->reader();
    std::int64_t tile = -1, pto = -1;
    for (const auto& s : reader.stages()) {
        if (s.pass == "expand-tiles") tile = s.id;
        if (s.level == tracedb::StageLevel::Pto) pto = s.id;
    }
    ASSERT_GE(tile, 0);
    ASSERT_GE(pto, 0);
    view.setStage(tile);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.loading(); }, 60000));
    EXPECT_TRUE(view.irText().text().empty());
    EXPECT_NE(view.irText().note().find("tile.expand-tiles would print 32769 ops"),
              std::string::npos)
        << view.irText().note();
    // The status line said "0 line(s) changed by this pass" for a stage with no text at all.
    EXPECT_TRUE(
        view.statusText().startsWith(QStringLiteral("The text of this stage is not stored")))
        << view.statusText().toStdString();
    EXPECT_FALSE(view.statusText().contains(QStringLiteral("changed by this pass")));

    view.setStage(pto);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.loading(); }, 60000));
    const auto instrs =
        reader.query(fmt::format("SELECT count(*) FROM instr WHERE stage_id = {}", pto));
    const auto count = std::get<std::int64_t>(instrs.rows.at(0).at(0));
    EXPECT_GT(count, 20000);
    EXPECT_NE(view.irText().note().find(fmt::format("rebuilt from the {} recorded", count)),
              std::string::npos)
        << view.irText().note();
    EXPECT_TRUE(view.irText().mapped()) << view.irText().note();
    EXPECT_FALSE(view.statusText().contains(QStringLiteral("changed by this pass")))
        << view.statusText().toStdString(); // rebuilt, so never diffed with the Tile stage
    EXPECT_EQ(view.irText().lineCount(), std::size_t(count + 2 * 48)); // 48 kernels: `{`, `}`
    // Clicking the first instruction line selects instruction 1.
    auto* editor = static_cast<IrTextEditor*>(view.irEditor());
    QTest::mouseClick(editor->viewport(), Qt::LeftButton, {}, editor->pointOfLine(1));
    EXPECT_EQ(context.selection().current(), EntityRef::instr(1));
}

// The view opens on a stage whose text is stored — the graph's (the last Tile stage) when it has
// text. It opened on the first Tile stage, expand-tiles, whose text is above the limit: an empty
// pane and a note (flash_attention_loop compiled, and this big flat run).
TEST(GuiIrText, OpensOnAStageWhoseTextIsStored) {
    for (const auto& trace : {test::compiledTrace("flash_attention_loop"), bigRunTrace()}) {
        test::OpenIrView open(trace);
        ASSERT_TRUE(open.loaded());
        const auto stages = open.context.document()->reader().stages();
        const auto shown = std::find_if(stages.begin(), stages.end(), [&](const auto& s) {
            return s.id == open.view.irText().stageId();
        });
        ASSERT_NE(shown, stages.end()) << trace;
        EXPECT_FALSE(shown->irText.empty()) << trace << ": " << shown->name;
        EXPECT_FALSE(open.view.irText().text().empty()) << trace << ": " << shown->name;
        const auto lastTile = std::find_if(stages.rbegin(), stages.rend(), [](const auto& s) {
            return s.level == tracedb::StageLevel::Tile;
        });
        ASSERT_NE(lastTile, stages.rend());
        if (!lastTile->irText.empty()) {
            EXPECT_EQ(shown->id, lastTile->id) << trace;
        }
    }
}

// `pto run --record final`: the IR view lists the five stages recorded, and every one shows
// its text mapped to its nodes, diffed against the stage recorded before it; the graph view
// reads each of them as recorded (nothing to say "not recorded" about).
TEST(GuiIrText, AFinalRecordingShowsEveryListedStage) {
    test::TempDir dir("pto-gui-record-final");
    const auto trace = dir / "final.db";
    const auto run = test::runCommand(
        fmt::format("{} run {} --seed 1 --record final -o {}", PTO_CLI,
                    test::shellQuote(std::string(PTO_SOURCE_DIR) + "/samples/softmax.pto"),
                    test::shellQuote(trace.string())));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    test::OpenIrView open(trace);
    ASSERT_TRUE(open.loaded());
    auto& [context, view] = open;
    const auto& reader = context.document()->reader();
    const auto stages = reader.stages();
    ASSERT_EQ(stages.size(), 5u);
    for (const tracedb::StageRow& s : stages) {
        view.setStage(s.id);
        ASSERT_TRUE(QTest::qWaitFor([&] { return !view.loading(); }, 60000));
        EXPECT_FALSE(view.irText().text().empty()) << s.name << ": " << view.irText().note();
        EXPECT_TRUE(view.irText().mapped()) << s.name << ": " << view.irText().note();
        if (s.parentStageId) { // a level's stage against the one before: something changed
            EXPECT_FALSE(view.irText().changedLines().empty()) << s.name;
        }
        EXPECT_TRUE(loadGraphStage(reader, s.id).recorded) << s.name;
    }
}

TEST(GuiIrText, BothTabsNumberTheirLines) {
    const auto trace = test::sampleTrace("matmul");
    test::OpenIrView open(trace);
    ASSERT_TRUE(open.loaded());
    auto& [context, view] = open;
    for (QPlainTextEdit* plain : {view.irEditor(), view.sourceEditor()}) {
        auto* editor = static_cast<IrTextEditor*>(plain);
        ASSERT_GT(editor->blockCount(), 1);
        // Room for the last line's number, plus the change bar.
        const int digits = int(std::to_string(editor->blockCount()).size());
        EXPECT_GE(editor->gutterWidth(), digits * editor->fontMetrics().horizontalAdvance('9') + 6);
        const QImage image = editor->grab().toImage();
        const int width = editor->gutterWidth() - 8;
        const int y = editor->pointOfLine(0).y();
        const QColor background = image.pixelColor(1, y);
        int ink = 0; // pixels of the number "1" on the first line
        for (int x = 0; x < width; ++x)
            for (int dy = -3; dy <= 3; ++dy)
                if (image.pixelColor(x, y + dy) != background) ++ink;
        EXPECT_GT(ink, 0) << "no line number drawn on line 1";
    }
    test::saveScreenshot(view, "ir_text_line_numbers");
}

// flash_attention_loop as parsed: the loop's body (a `vec_tile` directive and the ops of one
// iteration) prints inside the `for`, but the parsed program records the loop as its `for`
// op only. The first line of the body did not match the next node, so no line of the stage was
// linked and nothing was ever highlighted (its Tile stages have no text: this is the stage the
// view shows). The body's lines now belong to the `for`, the ops after the loop keep their own
// nodes, and a copy of a body op (`#node=4/56`, `exp %p` of iteration 2) highlights the loop.
TEST(GuiIrText, ALoopsBodyBelongsToItsForOpInTheParsedProgram) {
    const auto trace = test::sampleTrace("flash_attention_loop");
    test::OpenIrView open(trace);
    ASSERT_TRUE(open.loaded());
    auto& [context, view] = open;
    const auto& reader = context.document()->reader();
    const std::int64_t root = reader.stages().front().id;
    ASSERT_EQ(view.irText().stageId(), root) << "the Tile stages have no text";
    EXPECT_TRUE(view.irText().mapped()) << view.irText().note();
    EXPECT_TRUE(view.irText().note().empty()) << view.irText().note();
    const auto lines = splitLines(view.irText().text());
    const auto lineOf = [&](std::string_view text) {
        for (std::size_t i = 0; i < lines.size(); ++i)
            if (lines[i].find(text) != std::string_view::npos) return int(i);
        return -1;
    };
    const auto nodeOf = [&](const std::string& where) {
        return std::get<std::int64_t>(
            reader.query(fmt::format("SELECT id FROM node WHERE stage_id = {} AND {}", root, where))
                .rows.at(0)
                .at(0));
    };
    const std::int64_t loop = nodeOf("kind = 'for'");
    const int exp = lineOf("%p = exp");
    const int cast = lineOf("%out = cast");
    ASSERT_GE(exp, 0);
    ASSERT_GE(cast, 0);
    EXPECT_EQ(view.irText().entityAt(std::size_t(lineOf("= for"))), EntityRef::node(root, loop));
    EXPECT_EQ(view.irText().entityAt(std::size_t(exp)), EntityRef::node(root, loop));
    EXPECT_EQ(view.irText().entityAt(std::size_t(cast)),
              EntityRef::node(root, nodeOf("kind = 'cast'")));

    const std::int64_t unrolled = reader.stages().at(3).id; // unroll-loops
    ASSERT_EQ(reader.stages().at(3).pass, "unroll-loops");
    const std::int64_t copy = std::get<std::int64_t>(
        reader
            .query(fmt::format("SELECT id FROM node WHERE stage_id = {} AND kind = 'exp' AND name "
                               "= '%p' AND attrs LIKE '%\"iter\":[2]%'",
                               unrolled))
            .rows.at(0)
            .at(0));
    context.selection().select(EntityRef::node(unrolled, copy));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.loading(); }, 60000));
    const std::vector<int>& shown = view.highlightedIrLines();
    EXPECT_NE(std::find(shown.begin(), shown.end(), exp), shown.end());
    EXPECT_EQ(std::find(shown.begin(), shown.end(), cast), shown.end());
    EXPECT_EQ(view.highlightedSourceLine(), 26); // `%p = exp (sub %s, %mj)`
}

TEST(GuiIrText, ViewMarksChangesAndFollowsTheSelectionBothWays) {
    const auto trace = test::bisectTrace("matmul", "shift-tile-offset").trace;
    test::OpenIrView open(trace);
    ASSERT_TRUE(open.loaded());
    auto& [context, view] = open;
    const auto& reader = context.document()->reader();
    std::int64_t assign = -1;
    for (const auto& s : reader.stages())
        if (s.pass == "assign-memory") assign = s.id;
    ASSERT_GE(assign, 0);
    view.setStage(assign);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.loading(); }, 60000));
    auto* editor = static_cast<IrTextEditor*>(view.irEditor());
    EXPECT_EQ(editor->changedLines(), view.irText().changedLines());
    EXPECT_FALSE(editor->changedLines().empty()) << "assign-memory adds memory spaces";

    // Selecting the program's matmul highlights its tiles and its source line.
    const auto rows = reader.query("SELECT id, src_line FROM node WHERE stage_id = (SELECT id "
                                   "FROM stage WHERE parent_stage_id IS NULL) AND kind = "
                                   "'matmul'");
    ASSERT_EQ(rows.rows.size(), 1u);
    const auto matmul = std::get<std::int64_t>(rows.rows[0][0]);
    const auto srcLine = std::get<std::int64_t>(rows.rows[0][1]);
    context.selection().select(EntityRef::node(1, matmul));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.loading(); }, 60000)); // mapped on a worker
    EXPECT_EQ(view.highlightedSourceLine(), srcLine);
    LinkResolver links(reader);
    EXPECT_EQ(view.highlightedIrLines().size(), links.nodesOf(matmul, assign).size());

    // Clicking an op line selects that node of the stage.
    const auto lines = splitLines(view.irText().text());
    int tloadLine = -1;
    for (std::size_t i = 0; i < lines.size() && tloadLine < 0; ++i)
        if (lines[i].find("= tload") != std::string_view::npos) tloadLine = int(i);
    ASSERT_GE(tloadLine, 0);
    context.selection().clear();
    editor->setHighlightedLines({0});
    QTest::mouseClick(editor->viewport(), Qt::LeftButton, {}, editor->pointOfLine(tloadLine));
    EXPECT_EQ(context.selection().current(), view.irText().entityAt(std::size_t(tloadLine)));
    EXPECT_EQ(context.selection().current().kind, EntityRef::Kind::Node);
    EXPECT_EQ(view.highlightedSourceLine(), srcLine);
    // A tile op of a later stage lands on exactly its own line here (parent_id chain), and on
    // the PTO stage on the instructions generated for it.
    std::int64_t lastTile = -1, pto = -1;
    for (const auto& s : reader.stages()) {
        if (s.level == tracedb::StageLevel::Tile) lastTile = s.id;
        if (s.level == tracedb::StageLevel::Pto) pto = s.id;
    }
    const auto tileOp = reader.query(fmt::format(
        "SELECT id, parent_id FROM node WHERE stage_id = {} AND kind = 'matmul_acc' LIMIT 1",
        lastTile));
    const auto op = std::get<std::int64_t>(tileOp.rows.at(0).at(0));
    context.selection().select(EntityRef::node(lastTile, op));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.loading(); }, 60000));
    ASSERT_EQ(view.highlightedIrLines().size(), 1u);
    const EntityRef here = view.irText().entityAt(std::size_t(view.highlightedIrLines()[0]));
    EXPECT_EQ(here.stageId, assign);
    EXPECT_NE(lines[std::size_t(view.highlightedIrLines()[0])].find("matmul_acc"),
              std::string_view::npos);
    view.setStage(pto);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.loading(); }, 60000));
    EXPECT_EQ(view.highlightedIrLines().size(), links.instrsOfTileOp(lastTile, op).size());
    EXPECT_FALSE(view.highlightedIrLines().empty());
    view.setStage(assign);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.loading(); }, 60000));
    context.selection().select(EntityRef::node(1, matmul));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !view.loading(); }, 60000));
    test::saveScreenshot(view, "ir_text_view");
    view.tabs()->setCurrentIndex(1);
    test::saveScreenshot(view, "ir_text_view_source");
}

} // namespace
} // namespace pto::gui
