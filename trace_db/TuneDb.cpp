// The tuning database: schema, writer, reader, merge by ATTACH (trace_db/TuneDb.h).
#include "trace_db/TuneDb.h"

#include "trace_db/ReplaceGuard.h"

#include "base/AtomicFile.h"
#include "trace_db/Sqlite.h"
#include "trace_db/TraceError.h"
#include "trace_db/TraceFile.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <memory>
#include <set>

namespace pto::tracedb {
namespace {

namespace fs = std::filesystem;

// The whole schema; docs/TRACE_SCHEMA.md ("Tuning database") describes every column.
constexpr const char* kTuneSchema = R"sql(
CREATE TABLE tune_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE candidate(
  id INTEGER PRIMARY KEY,
  label TEXT NOT NULL,
  config TEXT NOT NULL,
  status TEXT NOT NULL,
  error TEXT,
  cycles INTEGER,
  lower_bound INTEGER,
  bound_class TEXT,
  tasks INTEGER,
  cores_used INTEGER,
  instructions INTEGER,
  flops REAL,
  gm_bytes INTEGER,
  onchip_bytes INTEGER,
  compile_ms REAL NOT NULL,
  sim_ms REAL NOT NULL);
CREATE TABLE candidate_pipe(
  candidate_id INTEGER NOT NULL,
  pipe TEXT NOT NULL,
  busy_cycles INTEGER NOT NULL,
  busy_fraction REAL NOT NULL,
  PRIMARY KEY(candidate_id, pipe));
)sql";

constexpr std::array kStatusNames = {"ok", "compile_error", "sim_error", "pruned"};

// The columns a reader needs, per table (a file missing one is refused by name).
const std::map<std::string, std::vector<std::string>>& requiredColumns() {
    static const std::map<std::string, std::vector<std::string>> columns = {
        {"tune_meta", {"key", "value"}},
        {"candidate",
         {"id", "label", "config", "status", "error", "cycles", "lower_bound", "bound_class",
          "tasks", "cores_used", "instructions", "flops", "gm_bytes", "onchip_bytes", "compile_ms",
          "sim_ms"}},
        {"candidate_pipe", {"candidate_id", "pipe", "busy_cycles", "busy_fraction"}}};
    return columns;
}

void failNotTune(const fs::path& path, const std::string& why) {
    throw TraceError(fmt::format("'{}' is not a PTO Studio tune file ({})", path.string(), why));
}

std::set<std::string> columnsOf(SqliteDb& db, const std::string& schema, const std::string& table) {
    Statement st(db, fmt::format("SELECT name FROM pragma_table_info('{}', '{}')", table, schema));
    std::set<std::string> names;
    while (st.step()) {
        std::string name;
        st.read(0, name);
        names.insert(name);
    }
    return names;
}

// Checks the tables of the database attached as `schema` ("main" for the opened one).
void checkTuneLayout(SqliteDb& db, const fs::path& path, const std::string& schema = "main") {
    Statement formatQuery(db, fmt::format("SELECT value FROM {}.tune_meta WHERE key = ?", schema));
    for (const auto& [table, columns] : requiredColumns()) {
        Statement kind(db, fmt::format("SELECT type FROM {}.sqlite_schema WHERE name = ?", schema));
        kind.bind(1, std::string_view(table));
        if (!kind.step()) failNotTune(path, fmt::format("no table '{}'", table));
        std::string type;
        kind.read(0, type);
        if (type != "table") failNotTune(path, fmt::format("'{}' is a {}", table, type));
        const auto present = columnsOf(db, schema, table);
        for (const std::string& c : columns)
            if (!present.count(c))
                failNotTune(path, fmt::format("table '{}' has no column '{}'", table, c));
    }
    formatQuery.bind(1, std::string_view("format"));
    std::string format;
    if (formatQuery.step()) formatQuery.read(0, format);
    if (format != kTuneFormat) failNotTune(path, fmt::format("format '{}'", format));
    formatQuery.reset();
    formatQuery.bind(1, std::string_view("tune_schema_version"));
    std::string version;
    if (formatQuery.step()) formatQuery.read(0, version);
    if (std::atoi(version.c_str()) > kTuneSchemaVersion)
        throw TraceError(fmt::format("tune file '{}' was written by a newer PTO Studio (tune "
                                     "schema {}); this build reads up to {} — upgrade",
                                     path.string(), version, kTuneSchemaVersion));
}

std::unique_ptr<SqliteDb> openReadOnly(const fs::path& path) {
    requireExistingFile(path);
    auto db = std::make_unique<SqliteDb>(readOnlyUri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
                                         path.string());
    if (!db->hasTable("tune_meta")) failNotTune(path, "no table 'tune_meta'");
    checkTuneLayout(*db, path);
    return db;
}

void insertMeta(SqliteDb& db, const std::map<std::string, std::string>& meta) {
    Statement st(db, "INSERT OR REPLACE INTO tune_meta(key, value) VALUES (?, ?)");
    for (const auto& [key, value] : meta) {
        st.bindAll(std::string_view(key), std::string_view(value));
        st.run();
    }
}

void insertCandidates(SqliteDb& db, const std::vector<TuneCandidate>& candidates) {
    Statement row(db, "INSERT INTO candidate VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    Statement pipe(db, "INSERT INTO candidate_pipe VALUES (?,?,?,?)");
    for (const TuneCandidate& c : candidates) {
        row.bindAll(c.id, std::string_view(c.label), std::string_view(c.config),
                    std::string_view(tuneStatusName(c.status)), c.error, c.cycles, c.lowerBound,
                    c.boundClass, c.tasks, c.coresUsed, c.instructions, c.flops, c.gmBytes,
                    c.onchipBytes, c.compileMs, c.simMs);
        row.run();
        for (const TunePipeBusy& p : c.pipes) {
            pipe.bindAll(c.id, std::string_view(p.pipe), p.busyCycles, p.busyFraction);
            pipe.run();
        }
    }
}

std::map<std::string, std::string> readMeta(SqliteDb& db) {
    std::map<std::string, std::string> meta;
    Statement st(db, "SELECT key, value FROM tune_meta");
    while (st.step()) {
        std::string key, value;
        st.readAll(key, value);
        meta[key] = value;
    }
    return meta;
}

std::vector<TuneCandidate> readCandidates(SqliteDb& db, const fs::path& path) {
    std::vector<TuneCandidate> out;
    Statement st(db, "SELECT id, label, config, status, error, cycles, lower_bound, bound_class, "
                     "tasks, cores_used, instructions, flops, gm_bytes, onchip_bytes, "
                     "compile_ms, sim_ms FROM candidate ORDER BY id");
    while (st.step()) {
        TuneCandidate c;
        std::string status;
        std::optional<std::string> error, boundClass;
        std::optional<double> compileMs, simMs;
        st.readAll(c.id, c.label, c.config, status, error, c.cycles, c.lowerBound, boundClass,
                   c.tasks, c.coresUsed, c.instructions, c.flops, c.gmBytes, c.onchipBytes,
                   compileMs, simMs);
        auto parsed = parseTuneStatus(status);
        if (!parsed) failNotTune(path, fmt::format("candidate {} has status '{}'", c.id, status));
        c.status = *parsed;
        c.error = error.value_or("");
        c.boundClass = boundClass.value_or("");
        c.compileMs = compileMs.value_or(0);
        c.simMs = simMs.value_or(0);
        out.push_back(std::move(c));
    }
    Statement pipes(db, "SELECT candidate_id, pipe, busy_cycles, busy_fraction FROM "
                        "candidate_pipe ORDER BY candidate_id, rowid");
    while (pipes.step()) {
        int64_t id = 0;
        TunePipeBusy p;
        pipes.readAll(id, p.pipe, p.busyCycles, p.busyFraction);
        auto it = std::lower_bound(out.begin(), out.end(), id,
                                   [](const TuneCandidate& c, int64_t v) { return c.id < v; });
        if (it != out.end() && it->id == id) it->pipes.push_back(std::move(p));
    }
    return out;
}

// Recomputes the summary keys of a sweep's meta from its candidates.
void summarize(TuneData& data) {
    int64_t pruned = 0, done = 0;
    for (const TuneCandidate& c : data.candidates) {
        pruned += c.status == TuneStatus::Pruned;
        done += c.status != TuneStatus::Pruned;
    }
    data.meta["pruned"] = std::to_string(pruned);
    data.meta["candidates_done"] = std::to_string(done);
    data.meta.erase("best_candidate");
    data.meta.erase("best_cycles");
    if (const TuneCandidate* best = data.best()) {
        data.meta["best_candidate"] = std::to_string(best->id);
        data.meta["best_cycles"] = std::to_string(*best->cycles);
    }
}

template <typename Fn> auto asTraceError(Fn&& fn) {
    try {
        return fn();
    } catch (const FileWriteError& e) {
        throw TraceError(e.what());
    }
}

} // namespace

const char* tuneStatusName(TuneStatus s) {
    return kStatusNames[static_cast<size_t>(s)];
}

std::optional<TuneStatus> parseTuneStatus(const std::string& name) {
    for (size_t i = 0; i < kStatusNames.size(); ++i)
        if (name == kStatusNames[i]) return static_cast<TuneStatus>(i);
    return std::nullopt;
}

std::string TuneData::metaOr(const std::string& key, const std::string& fallback) const {
    auto it = meta.find(key);
    return it == meta.end() ? fallback : it->second;
}

const TuneCandidate* TuneData::best() const {
    const TuneCandidate* best = nullptr;
    for (const TuneCandidate& c : candidates)
        if (c.status == TuneStatus::Ok && c.cycles &&
            (!best || *c.cycles < *best->cycles || (*c.cycles == *best->cycles && c.id < best->id)))
            best = &c;
    return best;
}

void writeTuneFile(const fs::path& path, const TuneData& data) {
    requireReplaceable(path, "tune file", "tune_meta");
    AtomicFile file = asTraceError([&] { return AtomicFile::createEmpty(path, "tune file"); });
    {
        SqliteDb db(file.tempPath(), SQLITE_OPEN_READWRITE, path.string());
        db.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;");
        db.exec(kTuneSchema);
        db.exec("BEGIN");
        TuneData summary = data;
        summarize(summary);
        auto& meta = summary.meta;
        meta["format"] = kTuneFormat;
        meta["tune_schema_version"] = std::to_string(kTuneSchemaVersion);
        insertMeta(db, meta);
        insertCandidates(db, data.candidates);
        db.exec("COMMIT");
        db.close();
    }
    asTraceError([&] {
        file.commit();
        return 0;
    });
}

TuneData readTuneFile(const fs::path& path) {
    auto db = openReadOnly(path);
    TuneData data;
    data.meta = readMeta(*db);
    data.candidates = readCandidates(*db, path);
    return data;
}

bool isTuneFile(const fs::path& path) {
    try {
        std::error_code error;
        if (!fs::is_regular_file(path, error) || fs::file_size(path, error) == 0) return false;
        SqliteDb db(readOnlyUri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, path.string());
        if (!db.hasTable("tune_meta")) return false;
        Statement st(db, "SELECT value FROM tune_meta WHERE key = 'format'");
        std::string format;
        if (st.step()) st.read(0, format);
        return format == kTuneFormat;
    } catch (const std::exception&) {
        return false;
    }
}

TuneData mergeTuneFiles(const std::vector<fs::path>& inputs, const fs::path& out,
                        const std::map<std::string, std::string>& extraMeta) {
    if (inputs.empty()) throw TraceError("no tune files to merge");
    TuneData first = readTuneFile(inputs.front()); // checks the first input fully
    requireReplaceable(out, "tune file", "tune_meta");
    AtomicFile file = asTraceError([&] { return AtomicFile::createEmpty(out, "tune file"); });
    {
        SqliteDb db(file.tempPath(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI, out.string());
        db.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;");
        db.exec(kTuneSchema);
        for (const fs::path& in : inputs) {
            requireExistingFile(in);
            Statement attach(db, "ATTACH DATABASE ? AS part");
            const std::string uri = readOnlyUri(in); // bound text must outlive the step
            attach.bind(1, std::string_view(uri));
            attach.run();
            if (columnsOf(db, "part", "tune_meta").empty()) failNotTune(in, "no table 'tune_meta'");
            checkTuneLayout(db, in, "part");
            for (const char* key : {"program_hash", "space"}) {
                Statement st(db, "SELECT value FROM part.tune_meta WHERE key = ?");
                st.bind(1, std::string_view(key));
                std::string value;
                if (st.step()) st.read(0, value);
                if (value != first.metaOr(key))
                    throw TraceError(fmt::format(
                        "cannot merge '{}': its {} differs from that of '{}' (another sweep)",
                        in.string(), key, inputs.front().string()));
            }
            if (db.queryInt("SELECT count(*) FROM part.candidate WHERE id IN (SELECT id FROM "
                            "main.candidate)") > 0)
                throw TraceError(fmt::format(
                    "cannot merge '{}': candidate {} is also in an earlier file (the same chunk "
                    "twice?)",
                    in.string(),
                    db.queryInt("SELECT min(id) FROM part.candidate WHERE id IN (SELECT id FROM "
                                "main.candidate)")));
            db.exec("INSERT INTO main.candidate SELECT id, label, config, status, error, cycles, "
                    "lower_bound, bound_class, tasks, cores_used, instructions, flops, gm_bytes, "
                    "onchip_bytes, compile_ms, sim_ms FROM part.candidate;"
                    "INSERT INTO main.candidate_pipe SELECT candidate_id, pipe, busy_cycles, "
                    "busy_fraction FROM part.candidate_pipe;"
                    "DETACH DATABASE part;");
        }
        TuneData merged;
        merged.meta = first.meta;
        merged.meta.erase("chunk");
        merged.meta.erase("best_trace");
        merged.meta.erase("best_program");
        for (const auto& [key, value] : extraMeta) merged.meta[key] = value;
        merged.candidates = readCandidates(db, out);
        summarize(merged);
        merged.meta["merged_files"] = std::to_string(inputs.size());
        merged.meta["format"] = kTuneFormat;
        merged.meta["tune_schema_version"] = std::to_string(kTuneSchemaVersion);
        db.exec("DELETE FROM tune_meta");
        insertMeta(db, merged.meta);
        db.close();
        asTraceError([&] {
            file.commit();
            return 0;
        });
        return merged;
    }
}

} // namespace pto::tracedb
