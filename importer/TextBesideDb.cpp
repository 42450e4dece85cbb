// Whether the text files beside a profiler .db hold the same run as the .db.
#include "importer/TextBesideDb.h"

#include "importer/ImportError.h"
#include "importer/KernelCsv.h"
#include "importer/TraceViewJson.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <unordered_map>

namespace pto::importer {
namespace {

namespace fs = std::filesystem;

// Text files give microseconds with three decimals; a start within this of the .db's is the same.
constexpr std::int64_t kSameStartNs = 1000;

bool isKernelCsv(const fs::path& file) {
    const std::string name = file.filename().string();
    return name == "kernel_details.csv" ||
           (name.starts_with("op_summary") && file.extension() == ".csv");
}

// How many of `kernels` have a kernel of the same name in `other` starting within kSameStartNs.
std::size_t sharedKernels(const std::vector<Kernel>& kernels, const std::vector<Kernel>& other) {
    std::unordered_map<std::string, std::vector<std::int64_t>> startsOf;
    for (const Kernel& k : other) startsOf[k.name].push_back(k.startNs);
    for (auto& [name, starts] : startsOf) std::sort(starts.begin(), starts.end());
    std::size_t shared = 0;
    for (const Kernel& k : kernels) {
        auto it = startsOf.find(k.name);
        if (it == startsOf.end()) continue;
        auto at = std::lower_bound(it->second.begin(), it->second.end(), k.startNs - kSameStartNs);
        shared += at != it->second.end() && *at <= k.startNs + kSameStartNs;
    }
    return shared;
}

// "2023-10-25 08:00:11 UTC" for nanoseconds since the epoch.
std::string utcTime(std::int64_t ns) {
    using namespace std::chrono;
    const auto seconds = floor<std::chrono::seconds>(sys_time<nanoseconds>(nanoseconds(ns)));
    const auto day = floor<days>(seconds);
    const year_month_day date(day);
    const hh_mm_ss time(seconds - day);
    return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC", int(date.year()),
                       unsigned(date.month()), unsigned(date.day()), time.hours().count(),
                       time.minutes().count(), time.seconds().count());
}

// "msprof_0.db: 11 kernels from 2023-10-25 08:00:11 UTC".
std::string runOf(const fs::path& file, const std::vector<Kernel>& kernels) {
    if (kernels.empty()) return fmt::format("{}: no kernels", file.filename().string());
    std::int64_t first = kernels.front().startNs;
    for (const Kernel& k : kernels) first = std::min(first, k.startNs);
    return fmt::format("{}: {} kernels from {}", file.filename().string(), kernels.size(),
                       utcTime(first));
}

class Comparison {
public:
    Comparison(const fs::path& db, ImportModel& model) : m_db(db), m_model(model) {}

    /// Compares one kernel file with the .db; true when it holds the same run.
    bool compare(const fs::path& file) {
        ImportModel text;
        try {
            if (isKernelCsv(file))
                readKernelCsv(file, text);
            else
                readTraceViewJson(file, text);
        } catch (const ImportError& e) {
            note(file,
                 fmt::format("{} is read instead (the file could not be compared with it: {})",
                             dbName(), e.what()));
            return false;
        }
        if (text.kernels.empty()) {
            note(file, fmt::format("{} is read instead (the file holds no kernel)", dbName()));
            return false;
        }
        const std::size_t shared = sharedKernels(text.kernels, m_model.kernels);
        const std::size_t fewer = std::min(text.kernels.size(), m_model.kernels.size());
        if (shared == 0 || 2 * shared < fewer) differentRuns(file, text.kernels, shared);
        note(file, fmt::format("{} holds the same run ({} of the file's {} kernels are there, by "
                               "name and start time) and is preferred",
                               dbName(), shared, text.kernels.size()));
        return true;
    }

    void note(const fs::path& file, const std::string& why) {
        m_model.count("import_file_not_read", tracedb::StatSeverity::Info,
                      fmt::format("{}: not read; {}", file.filename().string(), why));
    }

    std::string dbName() const { return m_db.filename().string(); }

private:
    [[noreturn]] void differentRuns(const fs::path& file, const std::vector<Kernel>& kernels,
                                    std::size_t shared) const {
        throw ImportError(fmt::format(
            "{}: {} and {} hold different runs ({}; {}; {} kernels in both by name and start "
            "time), and a trace holds one run; import each on its own: pto import {} -o run1.db, "
            "and pto import {} -o run2.db",
            m_db.parent_path().string(), dbName(), file.filename().string(),
            runOf(m_db, m_model.kernels), runOf(file, kernels), shared, m_db.string(),
            file.string()));
    }

    const fs::path& m_db;
    ImportModel& m_model;
};

} // namespace

void checkTextBesideDb(const fs::path& db, const std::vector<fs::path>& textFiles,
                       ImportModel& model) {
    Comparison comparison(db, model);
    bool sameRun = false;
    for (const fs::path& file : textFiles)
        if (isKernelCsv(file)) sameRun |= comparison.compare(file);
    for (const fs::path& file : textFiles) {
        if (isKernelCsv(file) || file.filename() != "trace_view.json") continue;
        if (!sameRun)
            sameRun = comparison.compare(file);
        else
            comparison.note(
                file, fmt::format("{} holds the same run and is preferred", comparison.dbName()));
    }
    for (const fs::path& file : textFiles) {
        if (isKernelCsv(file) || file.filename() == "trace_view.json") continue;
        comparison.note(
            file, sameRun
                      ? fmt::format("{} holds the same run and is preferred", comparison.dbName())
                      : fmt::format("{} is read instead (the file has no kernel times to tell "
                                    "whether it is the same run; pto import {} reads it alone)",
                                    comparison.dbName(), file.string()));
    }
}

} // namespace pto::importer
