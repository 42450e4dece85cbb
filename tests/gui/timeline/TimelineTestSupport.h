// A timeline view on a trace, shown offscreen and waited for until its summary is loaded.
#pragma once

#include "gui/model/TimelineLoader.h"
#include "gui/widgets/StudioContext.h"
#include "gui/widgets/TimelineView.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QThread>

#include <filesystem>

namespace pto::gui {

struct ShownTimeline {
    StudioContext context;
    TimelineView view{context};

    explicit ShownTimeline(const std::filesystem::path& trace, QSize size = {1400, 760}) {
        context.setDocument(TraceDocument::open(trace));
        view.resize(size);
        view.show();
        QElapsedTimer timer;
        timer.start();
        while (view.loader().busy() && timer.elapsed() < 20000) {
            QApplication::processEvents(QEventLoop::AllEvents, 50);
            QThread::msleep(5);
        }
        QApplication::processEvents();
    }
};

} // namespace pto::gui
