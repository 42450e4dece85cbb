// Checks shared by TraceReader::open and TraceWriter::append: is this a trace we can read?
#include "trace_db/TraceFile.h"

#include "base/RegularFile.h"
#include "trace_db/ClockRate.h"
#include "trace_db/SchemaVersion.h"
#include "trace_db/Sqlite.h"
#include "trace_db/TraceError.h"
#include "trace_db/TraceLayout.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <fstream>
#include <string_view>
#include <system_error>

namespace pto::tracedb {
namespace {

namespace fs = std::filesystem;

std::string_view kindOf(fs::file_type type) {
    switch (type) {
    case fs::file_type::fifo:
        return "a FIFO";
    case fs::file_type::socket:
        return "a socket";
    case fs::file_type::block:
    case fs::file_type::character:
        return "a device";
    default:
        return "not a plain file";
    }
}

[[noreturn]] void failOpen(const fs::path& path, std::string_view reason) {
    throw TraceError(fmt::format("cannot open trace '{}': {}", path.string(), reason));
}

/// "too many levels of symbolic links": the system's text of an error, in lower case as the
/// other reasons are.
std::string errnoText(const std::error_code& error) {
    std::string text = error.message();
    if (!text.empty()) text[0] = char(std::tolower(static_cast<unsigned char>(text[0])));
    return text;
}

/// The first 100 bytes (the SQLite header), read through base/RegularFile: it opens without
/// blocking, so a FIFO swapped in after requireExistingFile is refused instead of waiting for a
/// writer.
std::string readHeader(const fs::path& path) {
    try {
        const RegularFile file(path);
        std::array<char, 100> header{};
        return std::string(header.data(), file.readAt(0, header.data(), header.size()));
    } catch (const RegularFileError& e) {
        failOpen(path, e.what());
    }
}

constexpr std::string_view kSqliteMagic("SQLite format 3\0", 16);

/// Header bytes 18 and 19 (file format write/read version) are 2 in WAL mode.
bool isWalMode(std::string_view header) {
    return header.size() >= 20 && header.starts_with(kSqliteMagic) &&
           (header[18] == 2 || header[19] == 2);
}

void requireNoPendingWal(const fs::path& path) {
    fs::path wal = path;
    wal += "-wal";
    std::error_code error;
    const auto size = fs::file_size(wal, error);
    if (error || size == 0) return; // no -wal file, or an empty one: the main file is complete
    throw TraceError(fmt::format(
        "trace '{}' is in SQLite WAL mode and '{}' holds {} bytes of changes not yet in the "
        "trace (PTO Studio reads without writing beside the file); fold them in with: "
        "sqlite3 '{}' 'PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE'",
        path.string(), wal.string(), size, path.string()));
}

/// Percent-encodes everything but unreserved characters and '/', as SQLite URIs expect.
std::string uriPath(const fs::path& path) {
    std::string out;
    for (unsigned char c : fs::absolute(path).lexically_normal().string()) {
        if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~')
            out += static_cast<char>(c);
        else
            out += fmt::format("%{:02X}", c);
    }
    return out;
}

// Every time in a trace is in cycles of meta clock_hz: a rate that is no number, not positive
// or beyond any chip would turn each of them into a different nonsense per tool, so the trace
// is refused like any other corrupt metadata. A trace without the key (compile only) passes.
void requireUsableClock(SqliteDb& db) {
    Statement statement(db, "SELECT value FROM meta WHERE key = 'clock_hz'");
    if (!statement.step()) return;
    std::string text, problem;
    statement.read(0, text);
    if (parseClockHz(text, &problem)) return;
    constexpr std::size_t kShown = 40;
    if (text.size() > kShown) text = text.substr(0, kShown) + "…";
    throw TraceError(fmt::format("trace '{}' has an unusable clock rate: meta clock_hz '{}' {} "
                                 "(a rate from 1 Hz to 100 GHz converts its cycles to time)",
                                 db.tracePath(), text, problem));
}

} // namespace

void requireExistingFile(const fs::path& path) {
    std::error_code error;
    auto status = fs::status(path, error);
    // A symlink loop, a name past PATH_MAX or a directory without search permission is not a
    // missing file: say what stat said.
    if (error && status.type() != fs::file_type::not_found) failOpen(path, errnoText(error));
    if (!fs::exists(status)) failOpen(path, "no such file");
    if (fs::is_directory(status)) failOpen(path, "is a directory");
    if (!fs::is_regular_file(status))
        failOpen(path, fmt::format("not a regular file ({})", kindOf(status.type())));
    // SQLite would take an empty file for an empty database.
    if (fs::file_size(path, error) == 0 && !error)
        throw TraceError(fmt::format("'{}' is not a PTO Studio trace (empty file)", path.string()));
}

bool isSqliteFile(const fs::path& path) {
    std::error_code error;
    if (!fs::is_regular_file(path, error)) return false;
    char header[16] = {};
    std::ifstream in(path, std::ios::binary);
    return in.read(header, sizeof header) && std::string_view(header, 16) == kSqliteMagic;
}

std::string readOnlyUri(const fs::path& path) {
    if (isWalMode(readHeader(path))) requireNoPendingWal(path);
    // "file://" + an absolute path: an empty authority, so a path starting "//" stays a path.
    return "file://" + uriPath(path) + "?immutable=1";
}

int checkTraceFile(SqliteDb& db) {
    // The first read of the header is where SQLite reports a file that is not a database
    // (NOTADB) or shorter than its header says (CORRUPT); SqliteDb::fail words both.
    auto version = static_cast<int>(db.queryInt("PRAGMA user_version"));
    bool isOurs = db.queryInt("PRAGMA application_id") == kApplicationId;
    bool hasMeta = db.hasTable("meta");
    const std::string& path = db.tracePath();
    if (!isOurs && !hasMeta)
        throw TraceError(fmt::format(
            "'{}' is not a PTO Studio trace (an SQLite database without a meta table)", path));
    if (version > kSchemaVersion)
        throw TraceError(fmt::format("trace '{}' was written by a newer PTO Studio (schema {}); "
                                     "this build reads up to {} — upgrade",
                                     path, version, kSchemaVersion));
    if (version < 1 || !hasMeta)
        throw TraceError(fmt::format("'{}' is not a PTO Studio trace (schema version {}{})", path,
                                     version, hasMeta ? "" : ", no meta table"));
    // The meta row says the same as the header in every trace we write; a newer number there
    // (a file edited or written by another tool) is refused like a newer header.
    const auto metaVersion = static_cast<int>(
        db.queryInt("SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'schema_version'"));
    if (metaVersion > kSchemaVersion)
        throw TraceError(fmt::format("trace '{}' says it has schema {} (meta schema_version), "
                                     "newer than this build reads (up to {}) — upgrade",
                                     path, metaVersion, kSchemaVersion));
    checkTableLayout(db, version);
    requireUsableClock(db);
    return version;
}

} // namespace pto::tracedb
