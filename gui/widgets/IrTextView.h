// The IR text view: the printed IR of a chosen stage with the lines its pass changed marked in
// a gutter, linked both ways to the shared selection, and the .pto source with the selected
// op's line highlighted.
#pragma once

#include "gui/model/CancelToken.h"
#include "gui/model/IrText.h"
#include "gui/model/LinkWorker.h"
#include "gui/model/StageCompareModel.h"
#include "gui/model/WorkerResult.h"
#include "gui/widgets/StudioView.h"

#include <memory>
#include <vector>

template <typename T> class QFutureWatcher;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QTabWidget;

namespace pto::gui {

class IrTextEditor;
class PassTraceBar;
class LinkResolver;

class IrTextView : public StudioView {
    Q_OBJECT
public:
    explicit IrTextView(StudioContext& context, QWidget* parent = nullptr);
    ~IrTextView() override;

    QString viewId() const override { return QStringLiteral("ir"); }
    QString viewTitle() const override { return tr("IR text"); }

    /// Shows a stage: its text is read (or its listing rebuilt) on a worker; irText() is the
    /// previous stage's while loading().
    void setStage(std::int64_t stageId);
    /// A stage is being read, or the selection mapped onto its lines (both on workers).
    bool loading() const { return m_loading || m_mapping; }
    const IrText& irText() const { return *m_ir; }
    /// The status line under the text (what the pass changed, or why there is no text).
    QString statusText() const;
    /// 0-based IR lines highlighted for the current selection.
    const std::vector<int>& highlightedIrLines() const { return m_irLines; }
    /// 1-based source line highlighted for the current selection (0: none).
    std::int64_t highlightedSourceLine() const { return m_sourceLine; }
    QPlainTextEdit* irEditor() const;
    QPlainTextEdit* sourceEditor() const;
    QTabWidget* tabs() const { return m_tabs; }
    /// Traces the selected node through the passes that changed it and steps through them.
    PassTraceBar* passTrace() const { return m_passTrace; }

protected:
    void documentChanged() override;

private:
    using Result = Loaded<IrText>;
    /// What the selection maps to: lines of the shown stage and the source line (0: none).
    struct SelectionLines {
        std::vector<int> irLines;
        std::int64_t sourceLine = 0;
    };
    using MappingResult = Loaded<SelectionLines>;
    void showMapping(const MappingResult& mapped);
    void onStagePicked(int row);
    void showLoaded(const Result& loaded);
    static QString statusOf(const IrText& ir);
    void onCursorMoved();
    void onSelection(const EntityRef& ref, const QObject* origin);
    void showSourceLine(std::int64_t line);

    StageListModel m_stages;
    std::shared_ptr<IrText> m_ir = std::make_shared<IrText>(); ///< shared with the mapping
    std::shared_ptr<LinkWorker> m_linkWorker;                  ///< maps the selection, on a worker
    std::vector<int> m_irLines;
    std::int64_t m_sourceLine = 0;
    bool m_moving = false; ///< the view itself moves the cursor: not a user pick
    QComboBox* m_picker = nullptr;
    QTabWidget* m_tabs = nullptr;
    IrTextEditor* m_editor = nullptr;
    IrTextEditor* m_source = nullptr;
    QLabel* m_status = nullptr;
    PassTraceBar* m_passTrace = nullptr;
    QFutureWatcher<Result>* m_watcher = nullptr;
    WorkerTokens m_tokens; ///< destroyed before m_watcher (a child): waits for the worker
    bool m_loading = false;
    int m_generation = 0;
    QFutureWatcher<MappingResult>* m_mappingWatcher = nullptr;
    WorkerTokens m_mappingTokens; ///< destroyed before m_mappingWatcher, like m_tokens
    bool m_mapping = false;
    int m_mappingGeneration = 0;
};

} // namespace pto::gui
