// Fused clusters in the timeline (issue 15 item 3): a run whose program the compiler fused
// shows each AIC next to its two AIVs (AIC 0, AIV 0, AIV 1, AIC 1, …) in the view's rows, as
// the trace orders the core tracks; a run without clusters keeps AICs first. Traces made by the
// real `pto run`, fused and --no-fuse, from the fused attention test program.
#include "gui/model/TimelineLoader.h"
#include "gui/model/TimelineTrackModel.h"
#include "gui/widgets/TimelineView.h"
#include "tests/gui/support/Fixtures.h"
#include "tests/gui/timeline/TimelineTestSupport.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QThread>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace pto::gui {
namespace {

std::string fusedProgram() {
    std::ifstream in(std::string(PTO_SOURCE_DIR) +
                     "/tests/integration/run/programs/fused_attention.pto");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The names of the first `n` core rows the view shows, top to bottom.
std::vector<std::string> firstCoreRows(const std::filesystem::path& trace, size_t n,
                                       const std::string& screenshot) {
    ShownTimeline shown(trace, {1400, 900});
    TimelineView& view = shown.view;
    test::saveScreenshot(view, screenshot);
    std::vector<std::string> names;
    const TimelineTrackModel& tracks = view.tracks();
    for (const TimelineRow& row : tracks.rows()) {
        const TimelineTrack& t = tracks.track(row.track);
        if (t.kind == TimelineTrackKind::Core && names.size() < n)
            names.push_back(t.name.toStdString());
    }
    return names;
}

TEST(ClusterTimeline, AnAicSitsNextToItsTwoAivs) {
    const auto trace = test::programTrace("cluster_fused", fusedProgram(), "--trace full");
    const std::vector<std::string> want = {"AIC 0", "AIV 0", "AIV 1", "AIC 1", "AIV 2", "AIV 3"};
    EXPECT_EQ(firstCoreRows(trace, want.size(), "timeline_clusters"), want);
}

TEST(ClusterTimeline, WithoutClustersTheAicsComeFirst) {
    const auto trace =
        test::programTrace("cluster_unfused", fusedProgram(), "--trace full --no-fuse");
    const std::vector<std::string> want = {"AIC 0", "AIC 1", "AIC 2"};
    EXPECT_EQ(firstCoreRows(trace, want.size(), "timeline_no_clusters"), want);
}

} // namespace
} // namespace pto::gui
