// .npy files for comparison: the header through the one strict parser, then a fast path (mmap
// of C-order little-endian data) or the general reader for everything else.
#include "validate/TensorFile.h"

#include "validate/GoldenDiff.h"
#include "validate/Npy.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <span>
#include <string_view>

namespace pto {
namespace {

// The dtypes the fast path maps (their stored form is the in-memory form).
std::optional<DType> mappableDType(const NpyHeader& h) {
    if (h.bigEndian || !h.trueDType.empty()) return std::nullopt;
    if (h.fortranOrder && h.shape.size() > 1) return std::nullopt;
    if (h.shape.size() > size_t(Shape::kMaxRank)) return std::nullopt;
    if (h.descr == "<f4") return DType::F32;
    if (h.descr == "<f2") return DType::F16;
    if (h.descr == "|i1") return DType::I8;
    if (h.descr == "<i4") return DType::I32;
    if (h.descr == "|b1") return DType::Bool;
    return std::nullopt;
}

} // namespace

TensorFile::TensorFile(const std::filesystem::path& path) {
    if (tryMap(path)) return;
    m_owned = loadTensorFile(path);
    m_view = TensorView(m_owned);
}

TensorFile::~TensorFile() {
    if (m_map) ::munmap(m_map, m_mapBytes);
}

bool TensorFile::tryMap(const std::filesystem::path& path) {
    // The header goes through the one strict parser (validate/Npy.h), which also refuses
    // anything but a regular file without blocking; only the data is mapped.
    NpyHeader h = readNpyHeader(path);
    const std::optional<DType> dtype = mappableDType(h);
    if (!dtype) return false;
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        uint64_t(st.st_size) < h.dataOffset + h.dataBytes || st.st_size == 0) {
        ::close(fd);
        return false; // changed since the header was read: the general reader reports it
    }
    const size_t size = size_t(st.st_size);
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED) return false;
    const auto* bytes = static_cast<const std::byte*>(map);
    // The mapped bytes must still carry the header that was checked.
    try {
        const std::string_view prefix(reinterpret_cast<const char*>(bytes),
                                      size_t(std::min<uint64_t>(size, h.dataOffset)));
        NpyHeader again = parseNpyHeader(prefix, size, path);
        if (again.descr != h.descr || again.shape != h.shape || again.dataOffset != h.dataOffset ||
            again.fortranOrder != h.fortranOrder || again.bigEndian != h.bigEndian) {
            ::munmap(map, size);
            return false;
        }
    } catch (const NpyError&) {
        ::munmap(map, size);
        throw;
    }
    m_map = map;
    m_mapBytes = size;
    m_view = TensorView(*dtype, Shape(std::span<const int64_t>(h.shape)), bytes + h.dataOffset);
    return true;
}

} // namespace pto
