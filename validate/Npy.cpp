// .npy reader and atomic writer (NumPy format 1.0-3.0) with the bf16 dtype sidecar; see Npy.h.
#include "validate/Npy.h"

#include "base/AtomicFile.h"
#include "base/RegularFile.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <system_error>

namespace pto {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kMaxHeaderBytes = size_t{1} << 20;
constexpr size_t kAlign = 64;        // numpy.lib.format.ARRAY_ALIGN
constexpr size_t kGrowthDigits = 21; // numpy.lib.format.GROWTH_AXIS_MAX_DIGITS
constexpr size_t kMaxSidecarBytes = 4096;

// --- dtype strings ----------------------------------------------------------------------------

/// A supported element type: kind 'b' (bool), 'i', 'u' or 'f', and its size in bytes.
struct DescrInfo {
    char kind = 0;
    int size = 0;
    bool bigEndian = false;

    std::string canonical() const {
        return fmt::format("{}{}{}", size == 1 ? '|' : '<', kind, size);
    }
};

/// What NumPy calls an unsupported dtype, for the error message ("" if unknown).
std::string dtypeNameForMessage(char kind, std::string_view sizeText) {
    int size = 0;
    for (char c : sizeText) {
        if (c < '0' || c > '9' || size > 1000) break;
        size = size * 10 + (c - '0');
    }
    switch (kind) {
    case 'c':
        return size > 0 ? fmt::format("complex{}", 8 * size) : "complex";
    case 'f':
        return size > 8 ? fmt::format("float{}, long double", 8 * size) : "";
    case 'U':
        return "unicode string";
    case 'S':
    case 'a':
        return "byte string";
    case 'O':
        return "Python object, needs pickle";
    case 'V':
        return "raw bytes / structured";
    case 'M':
        return "datetime64";
    case 'm':
        return "timedelta64";
    default:
        return "";
    }
}

/// Parses a descr such as '<f4'; the error text (without path) when it is not supported.
std::optional<DescrInfo> parseDescr(std::string_view descr, std::string& why) {
    std::string_view rest = descr;
    DescrInfo info;
    if (!rest.empty() && std::string_view("<>|=").find(rest.front()) != std::string_view::npos) {
        info.bigEndian = rest.front() == '>';
        rest.remove_prefix(1);
    }
    bool ok = rest.size() >= 2;
    if (ok) {
        info.kind = rest.front();
        const std::string_view sizeText = rest.substr(1);
        ok = sizeText.size() <= 2 && std::all_of(sizeText.begin(), sizeText.end(),
                                                 [](char c) { return c >= '0' && c <= '9'; });
        if (ok) info.size = std::stoi(std::string(sizeText));
        switch (info.kind) {
        case 'b':
            ok = ok && info.size == 1;
            break;
        case 'i':
        case 'u':
            ok = ok && (info.size == 1 || info.size == 2 || info.size == 4 || info.size == 8);
            break;
        case 'f':
            ok = ok && (info.size == 2 || info.size == 4 || info.size == 8);
            break;
        default:
            ok = false;
        }
    }
    if (ok) return info;
    const std::string name =
        rest.empty() ? std::string() : dtypeNameForMessage(rest.front(), rest.substr(1));
    why = name.empty() ? fmt::format("unsupported dtype '{}'", descr)
                       : fmt::format("unsupported dtype '{}' ({})", descr, name);
    why += fmt::format("; {}", kPtoDTypesText);
    return std::nullopt;
}

// --- Header dict ------------------------------------------------------------------------------

struct Header {
    std::string descr;
    bool fortranOrder = false;
    std::vector<int64_t> shape;
};

/// A problem in the header text; converted to an NpyError with the path and the header.
struct HeaderError {
    std::string why;
    bool unsupportedDType = false;
};

/// Parses the Python dict literal of an .npy header, exactly the subset np.save writes: string
/// keys, a string descr, True/False, a tuple of non-negative decimal ints (a trailing "L" from
/// Python 2 writers allowed in versions 1.0 and 2.0, which NumPy filters for that).
class HeaderParser {
public:
    HeaderParser(std::string_view text, bool allowLongSuffix)
        : m_text(text), m_allowLong(allowLongSuffix) {}

    Header parse() {
        Header header;
        bool seenDescr = false, seenFortran = false, seenShape = false;
        skipSpace();
        expect('{');
        skipSpace();
        while (!peek('}')) {
            const std::string key = parseString();
            skipSpace();
            expect(':');
            skipSpace();
            if (key == "descr") {
                markSeen(seenDescr, key);
                if (peek('[')) {
                    throw HeaderError{"unsupported dtype: structured (record) dtypes are not "
                                      "supported",
                                      true};
                }
                header.descr = parseString();
            } else if (key == "fortran_order") {
                markSeen(seenFortran, key);
                header.fortranOrder = parseBool();
            } else if (key == "shape") {
                markSeen(seenShape, key);
                header.shape = parseShape();
            } else {
                throw HeaderError{fmt::format("unexpected key '{}'", key)};
            }
            skipSpace();
            if (!peek('}')) {
                expect(',');
                skipSpace();
            }
        }
        expect('}');
        skipSpace();
        if (m_pos != m_text.size()) fail("unexpected text after the closing '}'");
        if (!seenDescr) fail("missing key 'descr'");
        if (!seenFortran) fail("missing key 'fortran_order'");
        if (!seenShape) fail("missing key 'shape'");
        return header;
    }

private:
    [[noreturn]] void fail(const std::string& why) const {
        throw HeaderError{fmt::format("{} (at offset {})", why, m_pos)};
    }
    void markSeen(bool& seen, const std::string& key) const {
        if (seen) fail(fmt::format("duplicate key '{}'", key));
        seen = true;
    }
    bool peek(char c) const { return m_pos < m_text.size() && m_text[m_pos] == c; }
    void expect(char c) {
        if (!peek(c)) {
            fail(m_pos < m_text.size()
                     ? fmt::format("expected '{}', found '{}'", c, m_text[m_pos])
                     : fmt::format("expected '{}', found the end of the header", c));
        }
        ++m_pos;
    }
    void skipSpace() {
        while (m_pos < m_text.size() &&
               std::string_view(" \t\n\r\f").find(m_text[m_pos]) != std::string_view::npos) {
            ++m_pos;
        }
    }
    std::string parseString() {
        if (!peek('\'') && !peek('"')) fail("expected a quoted string");
        const char quote = m_text[m_pos++];
        const size_t start = m_pos;
        while (m_pos < m_text.size() && m_text[m_pos] != quote) {
            if (m_text[m_pos] == '\\' || m_text[m_pos] == '\n') {
                fail("escape sequences and line breaks in strings are not supported");
            }
            ++m_pos;
        }
        if (m_pos == m_text.size()) fail("unterminated string");
        return std::string(m_text.substr(start, m_pos++ - start));
    }
    bool parseBool() {
        size_t end = m_pos;
        while (end < m_text.size() &&
               (std::isalnum(static_cast<unsigned char>(m_text[end])) || m_text[end] == '_'))
            ++end;
        const std::string_view word = m_text.substr(m_pos, end - m_pos);
        if (word != "True" && word != "False") fail("fortran_order must be True or False");
        m_pos = end;
        return word == "True";
    }
    std::vector<int64_t> parseShape() {
        std::vector<int64_t> shape;
        expect('(');
        skipSpace();
        bool trailingComma = false;
        while (!peek(')')) {
            shape.push_back(parseDim());
            skipSpace();
            trailingComma = false;
            if (!peek(')')) {
                expect(',');
                trailingComma = true;
                skipSpace();
            }
        }
        // "(3)" is the int 3 in Python, not a tuple; NumPy rejects it too.
        if (shape.size() == 1 && !trailingComma) fail("a 1-d shape needs a trailing comma: (n,)");
        expect(')');
        return shape;
    }
    int64_t parseDim() {
        if (peek('-')) fail("negative dimension in shape");
        if (m_pos >= m_text.size() || m_text[m_pos] < '0' || m_text[m_pos] > '9') {
            fail("expected a non-negative integer in shape");
        }
        int64_t value = 0;
        const size_t start = m_pos;
        while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9') {
            const int digit = m_text[m_pos++] - '0';
            if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
                fail("dimension does not fit in 64 bits");
            }
            value = value * 10 + digit;
        }
        // Python 3 has no octal-looking decimals: "0" and "00" are fine, "02" is a syntax error.
        if (m_text[start] == '0' && value != 0) fail("leading zeros in a dimension");
        if (m_allowLong && (peek('L') || peek('l'))) ++m_pos; // Python 2 long
        return value;
    }

    std::string_view m_text;
    bool m_allowLong = false;
    size_t m_pos = 0;
};

// --- Sizes ------------------------------------------------------------------------------------

std::string shapeText(const std::vector<int64_t>& shape) {
    if (shape.size() == 1) return fmt::format("({},)", shape[0]);
    return fmt::format("({})", fmt::join(shape, ", "));
}

/// Product of the dimensions, or nullopt if one is negative or on overflow (NumPy's product is
/// exact: a 0 anywhere makes it 0 however large the others are).
std::optional<int64_t> checkedNumel(const std::vector<int64_t>& shape) {
    if (std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; })) {
        return std::nullopt;
    }
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
    int64_t n = 1;
    for (int64_t d : shape) {
        if (n > std::numeric_limits<int64_t>::max() / d) return std::nullopt;
        n *= d;
    }
    return n;
}

std::optional<int64_t> checkedBytes(const std::vector<int64_t>& shape, int itemSize) {
    const auto n = checkedNumel(shape);
    if (!n || *n > std::numeric_limits<int64_t>::max() / itemSize) return std::nullopt;
    return *n * itemSize;
}

/// Printable form of raw bytes for messages: ASCII as is, the rest as \xNN, at most `limit`.
std::string printable(std::string_view bytes, size_t limit = 200) {
    std::string out;
    for (size_t i = 0; i < bytes.size() && i < limit; ++i) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (c >= 0x20 && c < 0x7F) {
            out += static_cast<char>(c);
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += fmt::format("\\x{:02x}", c);
        }
    }
    if (bytes.size() > limit) out += "...";
    return out;
}

std::string errnoText(int err) {
    return std::generic_category().message(err);
}

[[noreturn]] void throwAt(const fs::path& path, const std::string& why) {
    throw NpyError(path, why);
}

// --- Data layout ------------------------------------------------------------------------------

void byteSwapElements(std::vector<std::byte>& data, int itemSize) {
    for (size_t i = 0; i + itemSize <= data.size(); i += itemSize) {
        std::reverse(data.begin() + static_cast<ptrdiff_t>(i),
                     data.begin() + static_cast<ptrdiff_t>(i + itemSize));
    }
}

/// Fortran (column-major) element order -> C (row-major) order.
std::vector<std::byte> fortranToC(const std::vector<std::byte>& src,
                                  const std::vector<int64_t>& shape, int itemSize) {
    const size_t ndim = shape.size();
    std::vector<int64_t> fStride(ndim); // in elements
    int64_t stride = 1;
    for (size_t k = 0; k < ndim; ++k) {
        fStride[k] = stride;
        stride *= shape[k];
    }
    std::vector<std::byte> dst(src.size());
    std::vector<int64_t> index(ndim, 0);
    int64_t fOffset = 0;
    const auto elementBytes = static_cast<size_t>(itemSize);
    for (size_t c = 0; c * elementBytes < dst.size(); ++c) {
        std::memcpy(dst.data() + c * elementBytes,
                    src.data() + static_cast<size_t>(fOffset) * elementBytes, elementBytes);
        // Advance the C-order odometer (last index fastest), keeping the Fortran offset.
        for (size_t k = ndim; k-- > 0;) {
            if (++index[k] < shape[k]) {
                fOffset += fStride[k];
                break;
            }
            fOffset -= (shape[k] - 1) * fStride[k];
            index[k] = 0;
        }
    }
    return dst;
}

// --- Sidecar ----------------------------------------------------------------------------------

bool isDTypeToken(std::string_view s) {
    return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_';
    });
}

/// The problem with storing `trueDType` bits as `canonicalDescr`, or "" if none.
std::string trueDTypeProblem(const std::string& trueDType, const std::string& canonicalDescr) {
    if (!isDTypeToken(trueDType)) {
        return fmt::format("true dtype '{}' is not a dtype name (letters, digits, '_')",
                           printable(trueDType));
    }
    if (trueDType == "bf16" && canonicalDescr != "<u2") {
        return fmt::format("bf16 must be stored as '<u2' (its bit patterns), not '{}'",
                           canonicalDescr);
    }
    return {};
}

std::string readSidecar(const fs::path& npyPath, const std::string& canonicalDescr) {
    const fs::path sidecar = npyDTypeSidecarPath(npyPath);
    std::error_code ec;
    const auto status = fs::status(sidecar, ec);
    if (status.type() == fs::file_type::not_found) return {};
    const auto fail = [&](const std::string& why) {
        throw NpyError(npyPath, fmt::format("dtype sidecar '{}': {}", sidecar.string(), why));
    };
    if (ec) fail(ec.message());
    std::string text;
    try {
        text = RegularFile(sidecar).readAll(kMaxSidecarBytes);
    } catch (const RegularFileError& e) {
        using Kind = RegularFileError::Kind;
        if (e.kind() == Kind::TooLarge) fail("too large (a dtype name is expected)");
        if (e.kind() == Kind::Directory || e.kind() == Kind::NotRegular) fail("not a regular file");
        fail(e.what());
    }
    const auto first = text.find_first_not_of(" \t\r\n");
    const auto last = text.find_last_not_of(" \t\r\n");
    const std::string name = first == std::string::npos ? "" : text.substr(first, last - first + 1);
    if (const std::string problem = trueDTypeProblem(name, canonicalDescr); !problem.empty()) {
        fail(problem);
    }
    return name;
}

// --- Atomic writing ---------------------------------------------------------------------------

/// `dest` written through base's AtomicFile (a unique temporary file beside it, renamed over it
/// on commit(), removed otherwise); errors are NpyError naming `reportPath`.
class NpyFileWriter {
public:
    NpyFileWriter(const fs::path& dest, const fs::path& reportPath)
        : m_report(reportPath), m_atomic(createBeside(dest, reportPath)) {
        m_file = std::fopen(m_atomic.tempPath().c_str(), "wb");
        if (m_file == nullptr)
            fail(fmt::format("cannot open the temporary file: {}", errnoText(errno)));
    }
    NpyFileWriter(const NpyFileWriter&) = delete;
    NpyFileWriter& operator=(const NpyFileWriter&) = delete;
    ~NpyFileWriter() {
        if (m_file != nullptr) std::fclose(m_file); // m_atomic removes the temporary file
    }

    void write(const void* bytes, size_t size) {
        if (size != 0 && std::fwrite(bytes, 1, size, m_file) != size) {
            fail(fmt::format("write failed: {}", errnoText(errno)));
        }
    }

    void commit() {
        const int closed = std::fclose(m_file);
        m_file = nullptr;
        if (closed != 0) fail(fmt::format("write failed: {}", errnoText(errno)));
        try {
            m_atomic.commit();
        } catch (const FileWriteError& e) {
            fail(e.reason());
        }
    }

private:
    static AtomicFile createBeside(const fs::path& dest, const fs::path& reportPath) {
        try {
            return AtomicFile::createEmpty(dest, "array file");
        } catch (const FileWriteError& e) {
            throw NpyError(reportPath, "cannot write: " + e.reason());
        }
    }
    [[noreturn]] void fail(const std::string& why) const {
        throw NpyError(m_report, "cannot write: " + why);
    }

    fs::path m_report;
    AtomicFile m_atomic;
    std::FILE* m_file = nullptr;
};

/// The header exactly as numpy.lib.format writes it (1.24: sorted keys, growth padding,
/// 64-byte alignment), preceded by magic, version and length.
std::string buildHeader(const std::string& descr, const std::vector<int64_t>& shape) {
    std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                   descr, shapeText(shape));
    if (!shape.empty()) {
        const size_t digits = std::to_string(shape.front()).size();
        dict.append(kGrowthDigits > digits ? kGrowthDigits - digits : 0, ' ');
    }
    for (const int lengthBytes : {2, 4}) {
        const size_t preamble = kMagic.size() + 2 + static_cast<size_t>(lengthBytes);
        const size_t hlen = dict.size() + 1; // + '\n'
        const size_t padding = kAlign - (preamble + hlen) % kAlign;
        const size_t headerLen = hlen + padding;
        if (lengthBytes == 2 && headerLen > 0xFFFF) continue; // needs version 2.0
        std::string out(kMagic);
        out += static_cast<char>(lengthBytes == 2 ? 1 : 2);
        out += '\0';
        for (int i = 0; i < lengthBytes; ++i)
            out += static_cast<char>((headerLen >> (8 * i)) & 0xFF);
        out += dict;
        out.append(padding, ' ');
        out += '\n';
        return out;
    }
    return {}; // unreachable: 4-byte lengths cover any header a shape vector can produce
}

} // namespace

// --- Public API -------------------------------------------------------------------------------

NpyError::NpyError(fs::path path, const std::string& reason)
    : std::runtime_error(path.empty() ? reason : fmt::format("{}: {}", path.string(), reason)),
      m_path(std::move(path)), m_reason(reason) {}

int64_t NpyArray::numel() const {
    const auto n = checkedNumel(shape);
    if (!n) {
        throw NpyError({}, fmt::format("shape {} has a negative dimension or more elements than "
                                       "fit in 64 bits",
                                       shapeText(shape)));
    }
    return *n;
}

int64_t NpyArray::itemSize() const {
    std::string why;
    const auto info = parseDescr(descr, why);
    if (!info) throw NpyError({}, why);
    return info->size;
}

fs::path npyDTypeSidecarPath(const fs::path& npyPath) {
    fs::path sidecar = npyPath;
    sidecar += ".dtype";
    return sidecar;
}

std::string canonicalNpyDescr(std::string_view descr) {
    std::string why;
    const auto info = parseDescr(descr, why);
    if (!info) throw NpyError({}, why);
    if (info->bigEndian && info->size > 1) {
        throw NpyError({}, fmt::format("big-endian dtype '{}': NpyArray data is always "
                                       "little-endian, use '{}'",
                                       descr, info->canonical()));
    }
    return info->canonical();
}

NpyHeader parseNpyHeader(std::string_view prefix, uint64_t fileSize, const fs::path& path) {
    // Preamble: magic, version, header length.
    if (fileSize == 0) throwAt(path, "empty file, not an .npy file");
    const size_t got = std::min<size_t>(prefix.size(), 8);
    const std::string_view start = prefix.substr(0, std::min(got, kMagic.size()));
    if (start != kMagic.substr(0, start.size())) {
        throwAt(path, fmt::format("not an .npy file (bad magic: expected \\x93NUMPY, found '{}')",
                                  printable(start)));
    }
    if (got < 8) throwAt(path, fmt::format("truncated header: the file ends after {} bytes", got));
    NpyHeader h;
    h.major = static_cast<unsigned char>(prefix[6]);
    const int minor = static_cast<unsigned char>(prefix[7]);
    if ((h.major != 1 && h.major != 2 && h.major != 3) || minor != 0) {
        throwAt(path,
                fmt::format("unsupported .npy format version {}.{} (supported: 1.0, 2.0, 3.0)",
                            h.major, minor));
    }
    const size_t lengthBytes = h.major == 1 ? 2 : 4;
    const size_t preambleSize = 8 + lengthBytes;
    if (fileSize < preambleSize || prefix.size() < preambleSize) {
        throwAt(path, fmt::format("truncated header: the file ends after {} bytes", fileSize));
    }
    uint64_t headerLen = 0;
    for (size_t i = lengthBytes; i-- > 0;) {
        headerLen = (headerLen << 8) | static_cast<unsigned char>(prefix[8 + i]);
    }
    if (headerLen > fileSize - preambleSize) {
        throwAt(path,
                fmt::format("truncated header: it declares {} bytes but the file has {} after the "
                            "preamble",
                            headerLen, fileSize - preambleSize));
    }
    if (headerLen > kMaxHeaderBytes) {
        throwAt(path, fmt::format("header of {} bytes is larger than the {} this reader accepts",
                                  headerLen, kMaxHeaderBytes));
    }
    if (prefix.size() < preambleSize + headerLen) throwAt(path, "read error in the header");
    const std::string_view headerText = prefix.substr(preambleSize, headerLen);

    // Header dict.
    Header header;
    try {
        header = HeaderParser(headerText, h.major < 3).parse();
    } catch (const HeaderError& e) {
        if (e.unsupportedDType) throwAt(path, e.why);
        throwAt(path,
                fmt::format("malformed header: {}; header: {}", e.why, printable(headerText)));
    }
    std::string why;
    const auto info = parseDescr(header.descr, why);
    if (!info) throwAt(path, why);

    // Data size against the file, before anything is read or allocated.
    const auto dataBytes = checkedBytes(header.shape, info->size);
    if (!dataBytes) {
        throwAt(
            path,
            fmt::format("shape {} of '{}' has too many elements (the byte count overflows 64 bits)",
                        shapeText(header.shape), header.descr));
    }
    const uint64_t available = fileSize - preambleSize - headerLen;
    if (static_cast<uint64_t>(*dataBytes) > available) {
        throwAt(path, fmt::format(
                          "truncated data: expected {} bytes of data, found {} (shape {} of '{}')",
                          *dataBytes, available, shapeText(header.shape), header.descr));
    }
    h.descr = info->canonical();
    h.bigEndian = info->bigEndian && info->size > 1;
    h.fortranOrder = header.fortranOrder;
    h.shape = std::move(header.shape);
    h.itemSize = info->size;
    h.dataOffset = preambleSize + headerLen;
    h.dataBytes = static_cast<uint64_t>(*dataBytes);
    return h;
}

namespace {

/// A regular file opened for reading (base/RegularFile.h: never blocks, refuses anything but a
/// regular file before a byte is read), its errors as NpyError naming the path.
class ReadOnlyFile {
public:
    explicit ReadOnlyFile(const fs::path& path) : m_path(path), m_file(open(path)) {}

    uint64_t size() const { return m_file->size(); }

    /// Reads up to `size` bytes at `offset`; returns how many there were.
    size_t readAt(uint64_t offset, void* out, size_t size) const {
        try {
            return m_file->readAt(offset, out, size);
        } catch (const RegularFileError& e) {
            throwAt(m_path, e.what());
        }
    }

    /// The preamble and header (or the whole file if it is shorter than they claim).
    std::string headerBytes() const {
        std::string prefix(static_cast<size_t>(std::min<uint64_t>(size(), 12)), '\0');
        prefix.resize(readAt(0, prefix.data(), prefix.size()));
        if (prefix.size() < 12 || prefix.compare(0, kMagic.size(), kMagic) != 0) return prefix;
        const bool v1 = prefix[6] == 1;
        uint64_t headerLen = 0;
        for (size_t i = v1 ? 2 : 4; i-- > 0;)
            headerLen = (headerLen << 8) | static_cast<unsigned char>(prefix[8 + i]);
        const uint64_t total = std::min<uint64_t>(
            (v1 ? 10 : 12) + std::min<uint64_t>(headerLen, kMaxHeaderBytes), size());
        if (total <= prefix.size()) return prefix.substr(0, static_cast<size_t>(total));
        const size_t had = prefix.size();
        prefix.resize(static_cast<size_t>(total));
        prefix.resize(had + readAt(had, prefix.data() + had, prefix.size() - had));
        return prefix;
    }

private:
    static std::unique_ptr<RegularFile> open(const fs::path& path) {
        try {
            return std::make_unique<RegularFile>(path);
        } catch (const RegularFileError& e) {
            using Kind = RegularFileError::Kind;
            if (e.kind() == Kind::Directory) throwAt(path, "is a directory, not an .npy file");
            if (e.kind() == Kind::NotRegular)
                throwAt(path, fmt::format("{}; .npy inputs must be regular files", e.what()));
            throwAt(path, e.what());
        }
    }

    fs::path m_path;
    std::unique_ptr<RegularFile> m_file;
};

} // namespace

NpyHeader readNpyHeader(const fs::path& path) {
    const ReadOnlyFile file(path);
    NpyHeader h = parseNpyHeader(file.headerBytes(), file.size(), path);
    h.trueDType = readSidecar(path, h.descr);
    return h;
}

NpyArray readNpy(const fs::path& path) {
    const ReadOnlyFile file(path);
    const NpyHeader h = parseNpyHeader(file.headerBytes(), file.size(), path);
    NpyArray array;
    array.descr = h.descr;
    array.shape = h.shape;
    array.data.resize(static_cast<size_t>(h.dataBytes));
    if (file.readAt(h.dataOffset, array.data.data(), array.data.size()) != array.data.size()) {
        throwAt(path, "read error in the data");
    }
    if (h.bigEndian) byteSwapElements(array.data, h.itemSize);
    if (h.fortranOrder && array.shape.size() > 1) {
        array.data = fortranToC(array.data, array.shape, h.itemSize);
    }
    array.trueDType = readSidecar(path, array.descr);
    return array;
}

void writeNpy(const fs::path& path, const NpyArray& array) {
    std::string descr;
    try {
        descr = canonicalNpyDescr(array.descr);
    } catch (const NpyError& e) {
        throwAt(path, e.reason());
    }
    for (int64_t d : array.shape) {
        if (d < 0)
            throwAt(path, fmt::format("negative dimension in shape {}", shapeText(array.shape)));
    }
    const int itemSize = static_cast<int>(array.itemSize());
    const auto bytes = checkedBytes(array.shape, itemSize);
    if (!bytes)
        throwAt(path, fmt::format("shape {} has too many elements", shapeText(array.shape)));
    if (static_cast<uint64_t>(*bytes) != array.data.size()) {
        throwAt(path, fmt::format("data holds {} bytes but shape {} of '{}' needs {}",
                                  array.data.size(), shapeText(array.shape), descr, *bytes));
    }
    if (!array.trueDType.empty()) {
        if (const std::string problem = trueDTypeProblem(array.trueDType, descr);
            !problem.empty()) {
            throwAt(path, problem);
        }
    }
    std::error_code ec;
    if (fs::is_directory(path, ec)) throwAt(path, "cannot write: is a directory");

    // The .npy goes to a temporary file first; the sidecar is settled before it is renamed into
    // place, so a crash can at worst leave the old array beside the new sidecar, never a
    // half-written array.
    NpyFileWriter file(path, path);
    const std::string header = buildHeader(descr, array.shape);
    file.write(header.data(), header.size());
    file.write(array.data.data(), array.data.size());

    const fs::path sidecar = npyDTypeSidecarPath(path);
    if (!array.trueDType.empty()) {
        NpyFileWriter side(sidecar, path);
        const std::string text = array.trueDType + "\n";
        side.write(text.data(), text.size());
        side.commit();
    } else {
        fs::remove(sidecar, ec); // a stale one would give the new array a wrong dtype
        if (ec && ec != std::errc::no_such_file_or_directory) {
            throwAt(path, fmt::format("cannot remove the stale dtype sidecar '{}': {}",
                                      sidecar.string(), ec.message()));
        }
    }
    file.commit();
}

} // namespace pto
