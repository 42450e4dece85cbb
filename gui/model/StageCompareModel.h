// Models of the stage comparison: the list of stages, the nodes of one stage with the ones
// mapped from the other side highlighted, and the mapping itself (through provenance).
#pragma once

#include "gui/model/CancelToken.h"
#include "gui/model/LinkResolver.h"
#include "profiler/KernelLaunches.h"
#include "trace_db/TraceReader.h"

#include <QAbstractListModel>

#include <array>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace pto::gui {

/// Maps a node of one stage to the nodes of another. Along one provenance chain (an ancestor
/// or descendant stage) it follows node.parent_id exactly; into and out of Block/Exec/PTO
/// stages it goes through the instructions (tile op ↔ block function, block ↔ task); between
/// unrelated stages through the Tensor op.
class StageMapper {
public:
    StageMapper(const tracedb::TraceReader& reader, LinkResolver& links);

    std::vector<std::int64_t> map(std::int64_t fromStage, std::int64_t node, std::int64_t toStage);
    /// The Tile stage the instructions refer to (-1 without instructions).
    std::int64_t tileStage() const { return m_tileStage; }

private:
    struct StageInfo {
        std::int64_t parent = -1;
        std::string level;
    };
    bool isAncestor(std::int64_t ancestor, std::int64_t stage) const;
    /// The node of `ancestor` that (stage, node) derives from, or nullopt.
    std::optional<std::int64_t> ancestorIn(std::int64_t stage, std::int64_t node,
                                           std::int64_t ancestor);
    std::vector<std::int64_t> descendantsIn(std::int64_t stage, std::int64_t node,
                                            std::int64_t descendant);
    std::vector<std::int64_t> toTileStage(std::int64_t stage, std::int64_t node);
    std::vector<std::int64_t> fromTileStage(std::span<const std::int64_t> tileOps,
                                            std::int64_t toStage);
    const std::unordered_map<std::int64_t, std::int64_t>& parents(std::int64_t stage);
    const prof::KernelLaunches& launches(); ///< loaded on first use
    std::vector<std::int64_t> nodeIds(std::int64_t stage) const;
    bool isLowLevel(std::int64_t stage) const;

    const tracedb::TraceReader& m_reader;
    LinkResolver& m_links;
    std::unordered_map<std::int64_t, StageInfo> m_stages;
    std::int64_t m_tileStage = -1; ///< the Tile stage instructions refer to
    std::unordered_map<std::int64_t, std::unordered_map<std::int64_t, std::int64_t>> m_parents;
    std::optional<prof::KernelLaunches> m_launches;
};

/// One request of the stage comparison: both sides' stages, the sides whose node ids to read
/// (a stage just picked) and the selection to map onto both sides.
struct StageSidesRequest {
    std::array<std::int64_t, 2> stages{-1, -1};
    std::array<bool, 2> readIds{false, false};
    EntityRef selection;
};

/// Its answer: the node ids of the sides asked for (ascending) and, for each side, the nodes
/// the selection maps to (as a set: 230 k of them are not hashed on the GUI thread) and the
/// first of them to scroll to (-1: none).
struct StageSides {
    std::array<std::vector<std::int64_t>, 2> ids;
    std::array<std::unordered_set<std::int64_t>, 2> highlighted;
    std::array<std::int64_t, 2> firstHighlighted{-1, -1};
};

/// The stage comparison's work, off the GUI thread (a 230 k-node stage's ids and a mapping
/// through every instruction of a block take hundreds of ms), on a worker's own reader, links
/// and mapper (LinkWorker).
StageSides readStageSides(const StageSidesRequest& request, const tracedb::TraceReader& reader,
                          LinkResolver& links, StageMapper& mapper, CancelToken& token);

/// Stages in pipeline order; Qt::DisplayRole "5 expand-tiles (tile)", Qt::UserRole the id.
class StageListModel : public QAbstractListModel {
    Q_OBJECT
public:
    explicit StageListModel(QObject* parent = nullptr);
    void load(const tracedb::TraceReader* reader);
    std::int64_t stageAt(int row) const;
    int rowOf(std::int64_t stageId) const;
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        std::int64_t id;
        QString text;
    };
    std::vector<Row> m_rows;
};

/// The nodes of one stage by id; Qt::UserRole the node id, HighlightRole true for the nodes
/// set by setHighlighted (also drawn with a background colour). load() reads the ids only;
/// the text of a row is read with its block of kTextBlock rows when a view first asks for it,
/// so a 230 k-node Tile stage lists at once. The reader must outlive the loaded state.
class StageNodeListModel : public QAbstractListModel {
    Q_OBJECT
public:
    static constexpr int HighlightRole = Qt::UserRole + 1;

    explicit StageNodeListModel(QObject* parent = nullptr);
    /// The node ids of `stageId`, ascending (what load() lists; a worker may call it).
    static std::vector<std::int64_t> readIds(const tracedb::TraceReader& reader,
                                             std::int64_t stageId);
    void load(const tracedb::TraceReader* reader, std::int64_t stageId);
    /// Lists `ids` (read by readIds on a worker); texts are read from `reader` when shown.
    void setNodes(const tracedb::TraceReader* reader, std::int64_t stageId,
                  std::vector<std::int64_t> ids);
    std::int64_t stageId() const { return m_stageId; }
    std::int64_t nodeAt(int row) const;
    int rowOf(std::int64_t nodeId) const;
    void setHighlighted(std::unordered_set<std::int64_t> nodeIds);
    const std::unordered_set<std::int64_t>& highlighted() const { return m_highlighted; }

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    static constexpr int kTextBlock = 512;
    const QString& textAt(int row) const;

    const tracedb::TraceReader* m_reader = nullptr;
    std::int64_t m_stageId = -1;
    std::vector<std::int64_t> m_ids;                              ///< ascending
    mutable std::unordered_map<int, std::vector<QString>> m_text; ///< block → row texts
    std::unordered_set<std::int64_t> m_highlighted;
};

} // namespace pto::gui
