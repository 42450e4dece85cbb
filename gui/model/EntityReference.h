// Link-like references to what is selected in a trace ("run.db#slice=123"): copied from
// pto-studio, pasted into notes or chat, and opened again with `pto-studio run.db#slice=123`.
#pragma once

#include "gui/model/SelectionModel.h"

#include <QString>

#include <optional>

namespace pto::gui {

struct EntityReference {
    QString path; ///< the trace file
    EntityRef ref;
};

/// "PATH#slice=ID", "PATH#instr=ID", "PATH#track=ID" or "PATH#node=STAGE/ID"; PATH alone for
/// no selection.
QString formatReference(const QString& path, const EntityRef& ref);
/// The inverse; nullopt when the text after the last '#' is not one of the forms above.
/// A text without '#' is a path with no selection.
std::optional<EntityReference> parseReference(const QString& text);

} // namespace pto::gui
