// An IrTextView of a trace file, shown at a fixed size and loaded: the start of the IR view tests.
#pragma once

#include "gui/model/TraceDocument.h"
#include "gui/widgets/IrTextView.h"
#include "gui/widgets/StudioContext.h"

#include <QTest>

#include <filesystem>

namespace pto::test {

struct OpenIrView {
    gui::StudioContext context;
    gui::IrTextView view{context};

    explicit OpenIrView(const std::filesystem::path& trace) {
        context.setDocument(gui::TraceDocument::open(trace));
        view.resize(900, 700);
        view.show();
    }
    /// Waits (up to a minute) for the view's reads to finish; false on a timeout.
    bool loaded() {
        return QTest::qWaitFor([this] { return !view.loading(); }, 60000);
    }
};

} // namespace pto::test
