// Lanes added once, problems counted by name and description, and where rows came from.
#include "importer/ImportModel.h"

#include <fmt/format.h>

namespace pto::importer {

std::size_t ImportModel::laneOf(const Lane& lane) {
    auto [it, fresh] = laneIndex.emplace(std::pair(lane.group, lane.name), lanes.size());
    if (fresh) lanes.push_back(lane);
    return it->second;
}

void ImportModel::count(const std::string& name, tracedb::StatSeverity severity,
                        const std::string& description, std::int64_t n, const std::string& first) {
    Counted& c = problems[{name, description}];
    if (c.n == 0) c.first = first;
    c.n += n;
    severities[name] = severity;
}

void ImportModel::countAll(const ImportModel& other) {
    for (const auto& [key, c] : other.problems)
        count(key.first, other.severities.at(key.first), key.second, c.n, c.first);
}

std::int32_t ImportModel::addSourceFile(const std::string& name, const std::string& unit) {
    sourceFiles.push_back(SourceFile{name, unit});
    return std::int32_t(sourceFiles.size()) - 1;
}

std::string ImportModel::where(const Source& source) const {
    if (source.file < 0 || std::size_t(source.file) >= sourceFiles.size()) return {};
    const SourceFile& f = sourceFiles[std::size_t(source.file)];
    if (f.unit == "line") return fmt::format("{}:{}", f.name, source.at);
    return fmt::format("{}: {} {}", f.name, f.unit, source.at);
}

} // namespace pto::importer
