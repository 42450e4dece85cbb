// Worst event-loop stall of pto-studio while a script clicks through every view, tab, overlay,
// table and search of the gemm_4096 full trace (issue 19: no user action may block the GUI
// thread for more than 100 ms). The trace is made once under the temp dir (or
// PTO_GUI_STALL_TRACE names one); a 1 ms heartbeat timer measures the stalls, and the
// application times every event it delivers, so a stall is also charged to the object that
// handled it (a view, or the QFutureWatcher of a view's worker).
#include "gui/app/MainWindow.h"
#include "gui/widgets/StudioView.h"
#include "gui/widgets/TimelineCanvas.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <cxxabi.h>
#include <deque>
#include <dlfcn.h>
#include <execinfo.h>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <pthread.h>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace pto::gui;
namespace fs = std::filesystem;

/// The action the script is running, for the event records.
std::string g_action = "start";

/// CPU time of the calling thread in ms: a delivery whose wall time is far above it waited
/// (for a lock, a disk read, or for a core on a loaded machine).
double threadCpuMs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

/// With PTO_GUI_STALL_STACKS=MS (200 when empty), a watchdog thread samples the GUI thread's
/// stack every MS/2 ms while one delivery (or a script action) has run longer than MS
/// (SIGPROF + backtrace), and prints each sample: the way to see what a stall waits for when
/// its CPU time is low.
class StallSampler {
public:
    explicit StallSampler(int thresholdMs) : m_gui(pthread_self()), m_threshold(thresholdMs) {
        s_self = this;
        struct sigaction action {};
        action.sa_handler = [](int) {
            StallSampler* self = s_self;
            self->m_depth = backtrace(self->m_frames, kFrames);
            self->m_taken.store(true);
        };
        sigaction(SIGPROF, &action, nullptr);
        m_thread = std::thread([this] { watch(); });
    }
    ~StallSampler() {
        m_stop = true;
        m_thread.join();
    }
    void enter() { m_since.store(now()); }
    void leave() { m_since.store(0); }

private:
    static constexpr int kFrames = 64;
    static std::int64_t now() {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }
    void watch() {
        while (!m_stop) {
            std::this_thread::sleep_for(std::chrono::milliseconds(std::max(5, m_threshold / 2)));
            const std::int64_t since = m_since.load();
            if (since == 0 || now() - since < m_threshold) continue;
            m_taken = false;
            pthread_kill(m_gui, SIGPROF);
            for (int i = 0; i < 100 && !m_taken; ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            if (m_taken) print(now() - since);
        }
    }
    void print(std::int64_t ms) const {
        std::cerr << "stack after " << ms << " ms in one delivery (" << g_action << "):\n";
        for (int i = 0; i < m_depth; ++i) {
            Dl_info info{};
            std::string name = "?";
            std::uintptr_t offset = 0;
            if (dladdr(m_frames[i], &info) != 0) {
                offset = std::uintptr_t(m_frames[i]) - std::uintptr_t(info.dli_fbase);
                name = info.dli_fname ? fs::path(info.dli_fname).filename().string() : "?";
                if (info.dli_sname) {
                    int status = 0;
                    char* d = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
                    name += std::string(" ") + (status == 0 ? d : info.dli_sname);
                    std::free(d);
                }
            }
            std::cerr << "    " << name.substr(0, 160) << " +0x" << std::hex << offset << std::dec
                      << "\n";
        }
    }

    static inline StallSampler* s_self = nullptr;
    pthread_t m_gui;
    int m_threshold;
    std::thread m_thread;
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_taken{false};
    std::atomic<std::int64_t> m_since{0};
    void* m_frames[kFrames] = {};
    int m_depth = 0;
};

const fs::path& trace() {
    static const fs::path path = [] {
        if (const char* env = std::getenv("PTO_GUI_STALL_TRACE")) return fs::path(env);
        const fs::path t = fs::temp_directory_path() / "pto-bench-gui-stall-gemm4096-full.db";
        if (!fs::exists(t)) {
            const std::string command = std::string(PTO_CLI) + " run " + PTO_SOURCE_DIR +
                                        "/samples/gemm_4096.pto --trace full -o " + t.string() +
                                        " > /dev/null";
            if (std::system(command.c_str()) != 0) return fs::path();
        }
        return t;
    }();
    return path;
}

/// Times the delivery of every event on the GUI thread; the slow ones are listed with their
/// receiver (and its parent: a QFutureWatcher's is the view whose worker finished).
class TimingApplication : public QApplication {
public:
    using QApplication::QApplication;

    bool notify(QObject* receiver, QEvent* event) override {
        // Nested deliveries are timed too when they paint: a window's update request paints
        // its views inside it.
        const bool nested = m_depth++ > 0;
        if (nested && event->type() != QEvent::Paint) {
            const bool handled = QApplication::notify(receiver, event);
            --m_depth;
            return handled;
        }
        QElapsedTimer timer;
        timer.start();
        const double cpu = threadCpuMs();
        const bool sampled = sampler && !nested && !inAction;
        if (sampled) sampler->enter();
        const bool handled = QApplication::notify(receiver, event);
        if (sampled) sampler->leave();
        --m_depth;
        if (const qint64 ms = timer.elapsed(); ms > (nested ? 20 : 50)) {
            std::string who = receiver->metaObject()->className();
            if (!receiver->objectName().isEmpty())
                who += " \"" + receiver->objectName().toStdString() + "\"";
            if (QObject* parent = receiver->parent())
                who += std::string(" in ") + parent->metaObject()->className();
            who += ", event " + std::to_string(int(event->type()));
            slow[who] += ms;
            if (ms > 100)
                single.push_back(
                    {g_action, (nested ? "  (inside) " : "") + who, ms, threadCpuMs() - cpu});
        }
        return handled;
    }
    /// Total ms of deliveries above 50 ms (paints inside them: above 20 ms), by receiver.
    std::map<std::string, qint64> slow;
    /// Each delivery above 100 ms: the action, the receiver, wall and CPU ms.
    struct Record {
        std::string action, who;
        qint64 wallMs;
        double cpuMs;
    };
    std::vector<Record> single;
    std::unique_ptr<StallSampler> sampler;
    bool inAction = false; ///< a script action runs: sampled as a whole

private:
    int m_depth = 0;
};

/// Ticks every millisecond on the GUI thread: a late tick is a stall of the event loop, charged
/// to the action running (or whose results were arriving) at the time.
class Heartbeat {
public:
    Heartbeat() {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(1);
        QObject::connect(&m_timer, &QTimer::timeout, [this] { tick(); });
        m_clock.start();
        m_timer.start();
    }
    void setAction(const std::string& action) {
        tick();
        m_action = action;
    }
    /// Milliseconds since the last tick that came more than 20 ms late.
    qint64 quietMs() const { return m_clock.elapsed() - m_lastStall; }
    qint64 worstMs() const { return m_worst; }
    const std::string& worstAction() const { return m_worstAction; }
    /// The worst stall of each action, for the report.
    const std::map<std::string, qint64>& perAction() const { return m_perAction; }

private:
    void tick() {
        const qint64 now = m_clock.elapsed();
        const qint64 gap = now - m_last;
        m_last = now;
        if (gap > 20) m_lastStall = now;
        qint64& worst = m_perAction[m_action];
        worst = std::max(worst, gap);
        if (gap > m_worst) {
            m_worst = gap;
            m_worstAction = m_action;
        }
    }

    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    qint64 m_lastStall = 0;
    qint64 m_worst = 0;
    std::string m_action = "start";
    std::string m_worstAction;
    std::map<std::string, qint64> m_perAction;
};

struct Action {
    std::string name;
    std::function<void()> run;
};

/// Lets the event loop run until `quiet` ms pass without a stall (at most `limit` ms).
void settle(const Heartbeat& beat, int quiet, int limit) {
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < limit && (timer.elapsed() < quiet || beat.quietMs() < quiet))
        QApplication::processEvents(QEventLoop::AllEvents, 5);
}

std::string nameOf(const QObject* o) {
    return o->objectName().isEmpty() ? o->metaObject()->className() : o->objectName().toStdString();
}

/// What a user does with a view's widgets: every tab, every entry of every combo box (with the
/// arrow keys, as a user picks one), each check box on and off, the first columns of every
/// table sorted and its first rows clicked (each click an action of its own), the harmless
/// buttons pressed.
void addWidgetActions(const std::string& view, QWidget* root, std::deque<Action>& out) {
    for (QTabWidget* tabs : root->findChildren<QTabWidget*>())
        for (int i = 0; i < tabs->count(); ++i)
            out.push_back({view + " tab " + tabs->tabText(i).toStdString(),
                           [tabs, i] { tabs->setCurrentIndex(i); }});
    for (QComboBox* combo : root->findChildren<QComboBox*>()) {
        if (combo->isEditable() || combo->count() < 2) continue;
        out.push_back({view + " " + nameOf(combo) + " first entry", [combo] {
                           combo->setFocus();
                           QTest::keyClick(combo, Qt::Key_Home);
                       }});
        for (int i = 1; i < combo->count(); ++i)
            out.push_back(
                {view + " " + nameOf(combo) + " → " + combo->itemText(i).toStdString(), [combo] {
                     combo->setFocus();
                     QTest::keyClick(combo, Qt::Key_Down);
                 }});
        out.push_back({view + " " + nameOf(combo) + " back to the first", [combo] {
                           combo->setFocus();
                           QTest::keyClick(combo, Qt::Key_Home);
                       }});
    }
    for (QCheckBox* box : root->findChildren<QCheckBox*>())
        for (int twice = 0; twice < 2; ++twice)
            out.push_back({view + " check " + box->text().toStdString(), [box] { box->click(); }});
    // One action per click (a user cannot click twice within a millisecond): the first six
    // column headers, then the first three rows.
    for (QAbstractItemView* table : root->findChildren<QAbstractItemView*>()) {
        const std::string name = view + " " + nameOf(table);
        for (int c = 0; c < 6; ++c)
            out.push_back({name + " sort by column " + std::to_string(c + 1), [table, c] {
                               if (!table->model() || !table->isVisible()) return;
                               auto* header = table->findChild<QHeaderView*>();
                               if (!header || header->orientation() != Qt::Horizontal ||
                                   c >= header->count())
                                   return;
                               QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                                                 {header->sectionViewportPosition(c) + 4, 4});
                           }});
        for (int r = 0; r < 3; ++r)
            out.push_back(
                {name + " click row " + std::to_string(r + 1), [table, r] {
                     if (!table->model() || !table->isVisible() || r >= table->model()->rowCount())
                         return;
                     const QRect cell = table->visualRect(table->model()->index(r, 0));
                     if (cell.isValid())
                         QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
                 }});
    }
    for (QPushButton* button : root->findChildren<QPushButton*>()) {
        const QString text = button->text();
        if (text == QStringLiteral("Fit") || text == QStringLiteral("▶") ||
            text == QStringLiteral("◀"))
            out.push_back({view + " press " + text.toStdString(), [button] { button->click(); }});
    }
}

/// The timeline's own keys and a search.
void addTimelineActions(QWidget* root, std::deque<Action>& out) {
    auto* canvas = root->findChild<TimelineCanvas*>();
    if (!canvas) return;
    for (const auto& [name, key] :
         std::vector<std::pair<std::string, Qt::Key>>{{"zoom in", Qt::Key_W},
                                                      {"zoom in", Qt::Key_W},
                                                      {"pan right", Qt::Key_D},
                                                      {"scroll down", Qt::Key_Down},
                                                      {"zoom out", Qt::Key_S},
                                                      {"pan left", Qt::Key_A}})
        out.push_back({"timeline " + name, [canvas, key] {
                           canvas->setFocus();
                           QTest::keyClick(canvas, key);
                       }});
    out.push_back({"timeline click a slice", [canvas] {
                       QTest::mouseClick(canvas, Qt::LeftButton, {},
                                         {canvas->width() / 2, TimelineCanvas::kRulerHeight + 30});
                   }});
    if (auto* search = root->findChild<QLineEdit*>())
        out.push_back({"timeline search TMATMUL", [search] {
                           search->setFocus();
                           search->setText(QStringLiteral("TMATMUL"));
                           QTest::keyClick(search, Qt::Key_Return);
                       }});
}

void addSqlActions(QWidget* root, std::deque<Action>& out) {
    auto* editor = root->findChild<QPlainTextEdit*>();
    if (!editor) return;
    for (QPushButton* button : root->findChildren<QPushButton*>())
        if (button->text() == QStringLiteral("Run"))
            out.push_back({"sql run a 10 000-row query", [editor, button] {
                               editor->setPlainText(QStringLiteral(
                                   "SELECT id, ts, dur, name FROM slice ORDER BY dur DESC "
                                   "LIMIT 10000"));
                               button->click();
                           }});
}

/// Opens the trace and its baseline, then every view in turn with its widgets.
void script(MainWindow& window, std::deque<Action>& actions) {
    const QString path = QString::fromStdString(trace().string());
    actions.push_back({"open trace", [&window, path] { window.openFile(path, true); }});
    actions.push_back({"open baseline", [&window, path] { window.openBaseline(path, true); }});
    for (StudioView* view : window.views()) {
        const std::string id = view->viewId().toStdString();
        actions.push_back({"show " + id, [&window, view] {
                               if (QDockWidget* dock = window.dockOf(view)) dock->raise();
                           }});
        // The view's widgets are listed once it is shown (some are made on first show).
        actions.push_back({"list widgets of " + id, [view, id, &actions] {
                               std::deque<Action> more;
                               if (id == "timeline") addTimelineActions(view, more);
                               if (id == "sql") addSqlActions(view, more);
                               addWidgetActions(id, view, more);
                               actions.insert(actions.begin(), more.begin(), more.end());
                           }});
    }
}

/// Runs the action itself (outside any event delivery: a script's direct call such as
/// openFile) under the same timing and stack sampling as the deliveries.
void runTimed(const Action& action) {
    auto* app = dynamic_cast<TimingApplication*>(QApplication::instance());
    QElapsedTimer timer;
    timer.start();
    const double cpu = threadCpuMs();
    if (app && app->sampler) app->sampler->enter();
    if (app) app->inAction = true;
    action.run();
    if (app) app->inAction = false;
    if (app && app->sampler) app->sampler->leave();
    if (const qint64 ms = timer.elapsed(); app && ms > 100)
        app->single.push_back({action.name, "(the action itself)", ms, threadCpuMs() - cpu});
}

void BM_WorstStallClickingThroughEveryView(benchmark::State& state) {
    if (trace().empty()) {
        state.SkipWithError("cannot run samples/gemm_4096.pto --trace full");
        return;
    }
    for (auto _ : state) {
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        Heartbeat beat;
        settle(beat, 200, 5000);
        std::deque<Action> actions;
        script(window, actions);
        int done = 0;
        while (!actions.empty()) {
            Action action = std::move(actions.front());
            actions.pop_front();
            beat.setAction(action.name);
            g_action = action.name;
            runTimed(action);
            ++done;
            // Loading a view can take seconds on its worker; wait for it before the next click.
            const bool slow =
                action.name.rfind("open", 0) == 0 || action.name.rfind("show", 0) == 0;
            settle(beat, slow ? 1500 : 150, slow ? 120000 : 10000);
            while (QWidget* modal = QApplication::activeModalWidget()) modal->close();
        }
        beat.setAction("after the last action");
        settle(beat, 3000, 30000);
        state.counters["worst_stall_ms"] = double(beat.worstMs());
        state.counters["actions"] = done;
        std::cerr << "worst stall " << beat.worstMs() << " ms during: " << beat.worstAction()
                  << "\n";
        for (const auto& [name, worst] : beat.perAction())
            if (worst > 50) std::cerr << "  " << worst << " ms  " << name << "\n";
        if (auto* app = dynamic_cast<TimingApplication*>(QApplication::instance()))
            for (const auto& [who, ms] : app->slow)
                std::cerr << "  event " << ms << " ms in all  " << who << "\n";
        if (auto* app = dynamic_cast<TimingApplication*>(QApplication::instance()))
            for (const auto& r : app->single)
                std::cerr << "  single " << r.wallMs << " ms (cpu " << qint64(r.cpuMs) << ")  "
                          << r.action << ": " << r.who << "\n";
    }
}
BENCHMARK(BM_WorstStallClickingThroughEveryView)->Unit(benchmark::kSecond)->Iterations(1);

} // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    // Settings (recent files, the console's history) in a folder of this run's own: never the
    // user's, and no lock shared with another run of the bench on the same machine.
    QTemporaryDir settingsDir;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    TimingApplication app(argc, argv);
    if (const char* ms = std::getenv("PTO_GUI_STALL_STACKS"))
        app.sampler = std::make_unique<StallSampler>(*ms ? std::atoi(ms) : 200);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
