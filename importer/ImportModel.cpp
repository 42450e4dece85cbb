// Lanes added once and problems counted by name and description.
#include "importer/ImportModel.h"

namespace pto::importer {

std::size_t ImportModel::laneOf(const Lane& lane) {
    auto [it, fresh] = laneIndex.emplace(std::pair(lane.group, lane.name), lanes.size());
    if (fresh) lanes.push_back(lane);
    return it->second;
}

void ImportModel::count(const std::string& name, tracedb::StatSeverity severity,
                        const std::string& description, std::int64_t n) {
    problems[{name, description}] += n;
    severities[name] = severity;
}

} // namespace pto::importer
