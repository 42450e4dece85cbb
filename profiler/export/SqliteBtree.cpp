// Decoding of SQLite table b-tree pages and records for full-table scans (see SqliteBtree.h).
#include "profiler/export/SqliteBtree.h"

#include "trace_db/Sqlite.h"
#include "trace_db/TraceError.h"
#include "trace_db/TraceFile.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstring>
#include <stdexcept>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace pto::prof {
namespace {

std::uint32_t be16(const unsigned char* p) {
    return std::uint32_t(p[0]) << 8 | p[1];
}
std::uint32_t be32(const unsigned char* p) {
    return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3];
}

// A SQLite varint at p: bytes used, 0 when it would run past `end`.
int getVarint(const unsigned char* p, const unsigned char* end, std::uint64_t& v) {
    v = 0;
    for (int i = 0; i < 8; ++i) {
        if (p + i >= end) return 0;
        v = v << 7 | (p[i] & 0x7fu);
        if (!(p[i] & 0x80u)) return i + 1;
    }
    if (p + 8 >= end) return 0;
    v = v << 8 | p[8];
    return 9;
}

// Bytes of a value of serial type `t` in the record body (~0 for the reserved types 10, 11).
std::size_t serialLength(std::uint64_t t) {
    static constexpr std::size_t kFixed[12] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, ~0u, ~0u};
    if (t < 12) return kFixed[t];
    return std::size_t((t - 12) / 2);
}

constexpr unsigned char kInteriorTable = 0x05, kLeafTable = 0x0d;
constexpr int kMaxDepth = 40;

// One value of a single-row query over `db` (the statement must return a row).
struct Prepared {
    Prepared(tracedb::SqliteDb& db, const char* sql) {
        if (int rc = sqlite3_prepare_v2(db.handle(), sql, -1, &stmt, nullptr); rc != SQLITE_OK)
            db.fail(rc, "reading the table schema");
    }
    ~Prepared() { sqlite3_finalize(stmt); }
    std::string text(int column) const {
        auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, column));
        return p ? std::string(p) : std::string();
    }
    sqlite3_stmt* stmt = nullptr;
};

// True when `table` is a rowid table whose columns are exactly `columns`, the first an
// INTEGER PRIMARY KEY (the rowid); sets its root page.
bool tableMatches(tracedb::SqliteDb& db, std::string_view table,
                  const std::vector<std::string>& columns, std::uint32_t& root) {
    Prepared schema(db, "SELECT rootpage, sql FROM sqlite_schema WHERE type = 'table' AND "
                        "name = ?1");
    sqlite3_bind_text(schema.stmt, 1, table.data(), int(table.size()), SQLITE_TRANSIENT);
    if (sqlite3_step(schema.stmt) != SQLITE_ROW) return false;
    root = std::uint32_t(sqlite3_column_int64(schema.stmt, 0));
    std::string sql = schema.text(1);
    std::transform(sql.begin(), sql.end(), sql.begin(),
                   [](char c) { return char(std::toupper(c)); });
    if (sql.find("WITHOUT ROWID") != std::string::npos || root == 0) return false;
    Prepared info(db, "SELECT name, upper(type), pk FROM pragma_table_info(?1) ORDER BY cid");
    sqlite3_bind_text(info.stmt, 1, table.data(), int(table.size()), SQLITE_TRANSIENT);
    std::size_t index = 0;
    while (sqlite3_step(info.stmt) == SQLITE_ROW) {
        if (index >= columns.size() || info.text(0) != columns[index]) return false;
        // Only the first column may be the key, and only as the rowid (INTEGER PRIMARY KEY).
        bool key = sqlite3_column_int(info.stmt, 2) != 0;
        if (key != (index == 0) || (key && info.text(1) != "INTEGER")) return false;
        ++index;
    }
    return index == columns.size();
}

} // namespace

std::int64_t BtreeRecord::integer(int column) const {
    if (column >= m_count) return 0;
    std::uint64_t t = m_type[column];
    const unsigned char* p = m_data[column];
    if (t >= 1 && t <= 6) {
        std::size_t len = serialLength(t);
        std::uint64_t v = p[0] & 0x80u ? ~std::uint64_t(0) : 0;
        for (std::size_t i = 0; i < len; ++i) v = v << 8 | p[i];
        return std::int64_t(v);
    }
    if (t == 7) {
        std::uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = bits << 8 | p[i];
        double d = std::bit_cast<double>(bits);
        if (!(d > -9.2e18 && d < 9.2e18)) return 0;
        return std::int64_t(d);
    }
    return t == 9 ? 1 : 0;
}

std::string_view BtreeRecord::text(int column) const {
    if (column >= m_count || m_type[column] < 12) return {};
    return {reinterpret_cast<const char*>(m_data[column]), serialLength(m_type[column])};
}

bool BtreeRecord::parse(const unsigned char* payload, std::size_t size) {
    const unsigned char* end = payload + size;
    std::uint64_t headerSize = 0;
    int n = getVarint(payload, end, headerSize);
    if (!n || headerSize > size || headerSize < std::uint64_t(n)) return false;
    const unsigned char *h = payload + n, *headerEnd = payload + headerSize, *body = headerEnd;
    m_count = 0;
    while (h < headerEnd && m_count < kMaxColumns) {
        std::uint64_t type = 0;
        int k = getVarint(h, headerEnd, type);
        if (!k) return false;
        h += k;
        std::size_t len = serialLength(type);
        if (len > std::size_t(end - body)) return false;
        m_type[m_count] = type;
        m_data[m_count] = body;
        ++m_count;
        body += len;
    }
    return true;
}

std::unique_ptr<BtreeTable> BtreeTable::open(const std::filesystem::path& path,
                                             std::string_view table,
                                             const std::vector<std::string>& columns) {
    std::unique_ptr<BtreeTable> t(new BtreeTable);
    t->m_path = path.string();
    // The reader's immutable URI: no -wal/-shm/-journal file appears beside the trace.
    t->m_db = std::make_unique<tracedb::SqliteDb>(
        tracedb::readOnlyUri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI,
        path.string());
    // The schema read below takes the shared lock; BEGIN keeps it until the destructor.
    t->m_db->exec("BEGIN");
    std::uint32_t root = 0;
    if (!tableMatches(*t->m_db, table, columns, root)) return nullptr;
    int fd = ::open(t->m_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return nullptr;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size < 512) {
        ::close(fd);
        return nullptr;
    }
    void* map = ::mmap(nullptr, std::size_t(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED) return nullptr;
    t->m_map = static_cast<const unsigned char*>(map);
    t->m_mapSize = std::size_t(st.st_size);
    const unsigned char* h = t->m_map;
    // Header (file format §1.3): WAL mode (versions 2) or a non-UTF-8 text encoding → SQL.
    if (std::memcmp(h, "SQLite format 3", 16) != 0 || h[18] != 1 || h[19] != 1 || be32(h + 56) != 1)
        return nullptr;
    t->m_pageSize = be16(h + 16) == 1 ? 65536u : be16(h + 16);
    if (t->m_pageSize < 512 || (t->m_pageSize & (t->m_pageSize - 1)) != 0 || h[20] > 64)
        return nullptr;
    t->m_usable = t->m_pageSize - h[20];
    std::uint32_t inFile = std::uint32_t(t->m_mapSize / t->m_pageSize);
    bool countValid = be32(h + 24) == be32(h + 92) && be32(h + 28) != 0;
    t->m_pageCount = countValid ? std::min(be32(h + 28), inFile) : inFile;
    t->collectLeaves(root);
    return t;
}

BtreeTable::~BtreeTable() {
    if (m_map) ::munmap(const_cast<unsigned char*>(m_map), m_mapSize);
    if (m_db) sqlite3_exec(m_db->handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

const unsigned char* BtreeTable::pageAt(std::uint32_t page) const {
    if (page == 0 || page > m_pageCount) malformed(page, "a page number is out of range");
    return m_map + std::size_t(page - 1) * m_pageSize;
}

void BtreeTable::malformed(std::uint32_t page, std::string_view why) const {
    throw tracedb::TraceError(fmt::format("trace '{}' is corrupt: b-tree page {} of {}: {}", m_path,
                                          page, m_pageCount, why));
}

// Depth-first over the interior pages, children in key order: the leaves in rowid order.
void BtreeTable::collectLeaves(std::uint32_t root) {
    std::vector<std::pair<std::uint32_t, int>> stack{{root, 0}};
    std::size_t visited = 0;
    while (!stack.empty()) {
        auto [page, depth] = stack.back();
        stack.pop_back();
        if (++visited > m_pageCount || depth > kMaxDepth) malformed(page, "the tree has a cycle");
        const unsigned char* base = pageAt(page);
        std::size_t hdr = page == 1 ? 100 : 0;
        if (base[hdr] == kLeafTable) {
            m_leaves.push_back(page);
            continue;
        }
        if (base[hdr] != kInteriorTable) malformed(page, "not a table b-tree page");
        std::uint32_t cells = be16(base + hdr + 3);
        if (hdr + 12 + 2 * std::size_t(cells) > m_usable) malformed(page, "too many cells");
        stack.emplace_back(be32(base + hdr + 8), depth + 1); // right-most child: visited last
        for (std::uint32_t c = cells; c-- > 0;) {
            std::size_t off = be16(base + hdr + 12 + 2 * c);
            if (off + 4 > m_usable) malformed(page, "a cell pointer is past the page end");
            stack.emplace_back(be32(base + off), depth + 1);
        }
    }
}

int BtreeTable::cellCount(std::uint32_t page) const {
    const unsigned char* base = pageAt(page);
    std::size_t hdr = page == 1 ? 100 : 0;
    std::uint32_t cells = be16(base + hdr + 3);
    if (base[hdr] != kLeafTable || hdr + 8 + 2 * std::size_t(cells) > m_usable)
        malformed(page, "not a table leaf page");
    return int(cells);
}

void BtreeTable::readCell(std::uint32_t page, int cell, std::vector<unsigned char>& scratch,
                          std::int64_t& rowid, const unsigned char*& payload,
                          std::size_t& size) const {
    const unsigned char* base = pageAt(page);
    std::size_t hdr = page == 1 ? 100 : 0;
    std::size_t off = be16(base + hdr + 8 + 2 * std::size_t(cell));
    if (off < hdr + 8 || off >= m_usable) malformed(page, "a cell pointer is past the page end");
    const unsigned char *p = base + off, *end = base + m_usable;
    std::uint64_t total = 0, key = 0;
    int n = getVarint(p, end, total);
    int k = n ? getVarint(p + n, end, key) : 0;
    if (!k) malformed(page, "a cell header runs past the page end");
    p += n + k;
    rowid = std::int64_t(key);
    std::size_t maxLocal = m_usable - 35;
    if (total <= maxLocal) {
        if (total > std::size_t(end - p)) malformed(page, "a cell runs past the page end");
        payload = p;
        size = std::size_t(total);
        return;
    }
    if (total > (std::uint64_t(1) << 30)) malformed(page, "a row is larger than 1 GiB");
    // Spilled row (file format §1.6): the local part, then a chain of overflow pages.
    std::size_t minLocal = (m_usable - 12) * 32 / 255 - 23;
    std::size_t local = minLocal + std::size_t(total - minLocal) % (m_usable - 4);
    if (local > maxLocal) local = minLocal;
    if (local + 4 > std::size_t(end - p)) malformed(page, "a cell runs past the page end");
    scratch.assign(p, p + local);
    std::uint32_t next = be32(p + local);
    std::size_t remaining = std::size_t(total) - local;
    for (std::size_t hops = 0; remaining > 0; ++hops) {
        if (hops > m_pageCount) malformed(page, "an overflow chain has a cycle");
        const unsigned char* o = pageAt(next);
        std::size_t take = std::min<std::size_t>(remaining, m_usable - 4);
        scratch.insert(scratch.end(), o + 4, o + 4 + take);
        remaining -= take;
        next = be32(o);
    }
    payload = scratch.data();
    size = scratch.size();
}

} // namespace pto::prof
