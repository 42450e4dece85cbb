// .npy files for comparison: a strict fast path (mmap of the exact layout np.save writes) and
// the general reader for everything else.
#include "validate/TensorFile.h"

#include "validate/GoldenDiff.h"
#include "validate/Npy.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace pto {
namespace {

struct Header {
    DType dtype;
    Shape shape;
    size_t dataOffset;
};

std::optional<DType> dtypeOfDescr(std::string_view d) {
    if (d == "<f4") return DType::F32;
    if (d == "<f2") return DType::F16;
    if (d == "|i1") return DType::I8;
    if (d == "<i4") return DType::I32;
    if (d == "|b1") return DType::Bool;
    return std::nullopt;
}

// The quoted value after `'key': ` in the header dict.
std::optional<std::string_view> field(std::string_view h, std::string_view key) {
    std::string k(1, '\'');
    k.append(key).append("': ");
    const size_t at = h.find(k);
    if (at == std::string_view::npos) return std::nullopt;
    return h.substr(at + k.size());
}

std::optional<Shape> parseShape(std::string_view s) {
    if (s.empty() || s[0] != '(') return std::nullopt;
    Shape shape;
    size_t i = 1;
    while (i < s.size() && s[i] != ')') {
        if (s[i] == ' ' || s[i] == ',') {
            ++i;
            continue;
        }
        int64_t v = 0;
        size_t digits = 0;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9' && digits < 15)
            v = v * 10 + (s[i++] - '0'), ++digits;
        if (digits == 0 || !shape.push(v)) return std::nullopt;
    }
    if (i >= s.size()) return std::nullopt;
    return shape;
}

// The header of the exact form np.save writes for a supported dtype, or nullopt.
std::optional<Header> parseHeader(const std::byte* p, size_t size) {
    if (size < 12 || std::memcmp(p, "\x93NUMPY", 6) != 0) return std::nullopt;
    const int major = int(p[6]), minor = int(p[7]);
    if ((major != 1 && major != 2) || minor != 0) return std::nullopt;
    const auto u8 = [&](size_t i) { return size_t(std::to_integer<unsigned char>(p[i])); };
    size_t len = u8(8) | u8(9) << 8;
    size_t start = 10;
    if (major == 2) len |= u8(10) << 16 | u8(11) << 24, start = 12;
    if (len > size - start || len > 4096) return std::nullopt;
    const std::string_view h(reinterpret_cast<const char*>(p + start), len);
    auto descr = field(h, "descr");
    auto fortran = field(h, "fortran_order");
    auto shapeText = field(h, "shape");
    if (!descr || !fortran || !shapeText || descr->size() < 5 || !fortran->starts_with("False"))
        return std::nullopt;
    auto dtype = dtypeOfDescr(descr->substr(1, 3));
    auto shape = parseShape(*shapeText);
    if (!dtype || !shape || (*descr)[0] != '\'' || (*descr)[4] != '\'') return std::nullopt;
    return Header{*dtype, *shape, start + len};
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
    std::error_code ec;
    if (std::filesystem::exists(npyDTypeSidecarPath(path), ec)) return false;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 12) {
        ::close(fd);
        return false;
    }
    const size_t size = size_t(st.st_size);
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED) return false;
    const auto* bytes = static_cast<const std::byte*>(map);
    std::optional<Header> h = parseHeader(bytes, size);
    int64_t bytesWanted = h ? dtypeSize(h->dtype) : 0;
    bool overflow = false;
    for (int64_t d : h ? h->shape.dims() : std::span<const int64_t>{})
        overflow |= __builtin_mul_overflow(bytesWanted, d, &bytesWanted);
    if (!h || overflow || h->dataOffset + size_t(bytesWanted) != size) {
        ::munmap(map, size);
        return false;
    }
    m_map = map;
    m_mapBytes = size;
    m_view = TensorView(h->dtype, h->shape, bytes + h->dataOffset);
    return true;
}

} // namespace pto
