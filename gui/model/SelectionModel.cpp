// The shared selection: stores the current entity and announces changes.
#include "gui/model/SelectionModel.h"

namespace pto::gui {

SelectionModel::SelectionModel(QObject* parent) : QObject(parent) {}

void SelectionModel::select(const EntityRef& ref, const QObject* origin) {
    if (ref == m_current) return;
    m_current = ref;
    emit selectionChanged(m_current, origin);
}

void SelectionModel::clear() {
    select(EntityRef{}, nullptr);
}

} // namespace pto::gui
