// The one selection of pto-studio: what the user picked, shared by every view.
#pragma once

#include <QObject>

#include <cstdint>

namespace pto::gui {

/// Something a user can select. Nodes are identified by (stageId, id) as in the trace's
/// node table (ops of Tensor/Tile stages, block functions, tasks of the Exec stage);
/// instructions, slices and tracks by their table id (stageId unused).
struct EntityRef {
    enum class Kind { None, Node, Instr, Slice, Track };
    Kind kind = Kind::None;
    std::int64_t stageId = -1;
    std::int64_t id = -1;

    static EntityRef node(std::int64_t stage, std::int64_t nodeId) {
        return {Kind::Node, stage, nodeId};
    }
    static EntityRef instr(std::int64_t instrId) { return {Kind::Instr, -1, instrId}; }
    static EntityRef slice(std::int64_t sliceId) { return {Kind::Slice, -1, sliceId}; }
    static EntityRef track(std::int64_t trackId) { return {Kind::Track, -1, trackId}; }
    bool isNone() const { return kind == Kind::None; }
    bool operator==(const EntityRef&) const = default;
};

/// Holds the current selection and tells every view when it changes. A view that selects
/// passes itself as origin so it can ignore its own echo. Views translate the selection into
/// their own terms (a slice's Tensor op, a Tensor op's tiles...) through provenance.
class SelectionModel : public QObject {
    Q_OBJECT
public:
    explicit SelectionModel(QObject* parent = nullptr);

    const EntityRef& current() const { return m_current; }
    void select(const EntityRef& ref, const QObject* origin = nullptr);
    void clear();

signals:
    void selectionChanged(const pto::gui::EntityRef& ref, const QObject* origin);

private:
    EntityRef m_current;
};

} // namespace pto::gui
