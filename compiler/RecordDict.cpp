// Dict ids of the text StageRecorder stores: each distinct value formatted and interned once.
#include "compiler/RecordDict.h"

namespace pto {

RecordDict::Id RecordDict::idOfText(std::string_view text) {
    if (auto found = m_ids.find(text); found != m_ids.end()) return found->second;
    Id id = internText(text);
    m_ids.emplace(std::string(text), id);
    return id;
}

RecordDict::Id RecordDict::internText(std::string_view text) {
    if (text.empty()) return std::nullopt;
    return m_writer.internDict(text);
}

} // namespace pto
