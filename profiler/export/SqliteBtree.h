// Read-only full scan of a SQLite rowid table straight from its b-tree pages.
// Follows the documented file format (https://sqlite.org/fileformat2.html): no VDBE, no
// per-column API calls. Rollback-journal databases only; callers fall back to SQL otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pto::tracedb {
class SqliteDb;
}

namespace pto::prof {

/// One row's record: the serial type and bytes of its first kMaxColumns columns. Columns past
/// the end of a short record (added by ALTER TABLE) read as NULL.
class BtreeRecord {
public:
    static constexpr int kMaxColumns = 16;

    bool isNull(int column) const { return column >= m_count || m_type[column] == 0; }
    /// Integer value (a REAL is truncated; NULL, text and blobs read as 0).
    std::int64_t integer(int column) const;
    /// Text or blob bytes (empty for other types).
    std::string_view text(int column) const;

    /// Decodes the header of `payload`; false when it is malformed.
    bool parse(const unsigned char* payload, std::size_t size);

private:
    int m_count = 0;
    std::uint64_t m_type[kMaxColumns] = {};
    const unsigned char* m_data[kMaxColumns] = {};
};

/// The leaf pages of one table b-tree, in rowid order, over a read-only mapping of the file.
/// A read transaction stays open on its own connection while the object lives, so the pages
/// cannot change under the scan.
class BtreeTable {
public:
    /// nullptr when the file or table is not one this reader handles (WAL mode, non-UTF-8,
    /// WITHOUT ROWID, columns other than `columns` in that order, no such table); the caller
    /// then reads through SQL. Throws tracedb::TraceError when the b-tree is malformed.
    static std::unique_ptr<BtreeTable> open(const std::filesystem::path& path,
                                            std::string_view table,
                                            const std::vector<std::string>& columns);
    ~BtreeTable();
    BtreeTable(const BtreeTable&) = delete;
    BtreeTable& operator=(const BtreeTable&) = delete;

    std::size_t leafCount() const { return m_leaves.size(); }

    /// Calls f(rowid, record) for every row of leaves [begin, end), in rowid order. `scratch`
    /// holds rows that spill to overflow pages. Throws tracedb::TraceError on a malformed page.
    template <typename F>
    void scan(std::size_t begin, std::size_t end, std::vector<unsigned char>& scratch,
              F&& f) const {
        BtreeRecord record;
        for (std::size_t leaf = begin; leaf < end && leaf < m_leaves.size(); ++leaf) {
            std::uint32_t page = m_leaves[leaf];
            int cells = cellCount(page);
            for (int cell = 0; cell < cells; ++cell) {
                std::int64_t rowid = 0;
                const unsigned char* payload = nullptr;
                std::size_t size = 0;
                readCell(page, cell, scratch, rowid, payload, size);
                if (!record.parse(payload, size)) malformed(page, "a record header is corrupt");
                f(rowid, record);
            }
        }
    }

private:
    BtreeTable() = default;
    const unsigned char* pageAt(std::uint32_t page) const;
    void collectLeaves(std::uint32_t root);
    int cellCount(std::uint32_t page) const;
    void readCell(std::uint32_t page, int cell, std::vector<unsigned char>& scratch,
                  std::int64_t& rowid, const unsigned char*& payload, std::size_t& size) const;
    [[noreturn]] void malformed(std::uint32_t page, std::string_view why) const;

    std::unique_ptr<tracedb::SqliteDb> m_db; // holds the read transaction
    std::string m_path;
    const unsigned char* m_map = nullptr;
    std::size_t m_mapSize = 0;
    std::uint32_t m_pageSize = 0, m_usable = 0, m_pageCount = 0;
    std::vector<std::uint32_t> m_leaves;
};

} // namespace pto::prof
