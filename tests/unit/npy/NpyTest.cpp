// Unit tests of validate/Npy.h: files from NumPy, files for NumPy, bf16 sidecar, every error.
#include "validate/Npy.h"

#include "tests/support/Process.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace pto {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPython = "/usr/bin/python3";

using test::haveNumpy;
using test::haveTorch;
using test::TempDir;

#define REQUIRE_NUMPY()                                                                            \
    PTO_SKIP_UNLESS(haveNumpy(), "needs /usr/bin/python3 with numpy (apt install python3-numpy) "  \
                                 "to write and check .npy files independently")

/// Runs tests/unit/npy/npy_reference.py with `args`; returns its exit status.
int runReference(const std::string& args) {
    const std::string cmd =
        std::string(kPython) + " '" + PTO_SOURCE_DIR + "/tests/unit/npy/npy_reference.py' " + args;
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string quoted(const fs::path& p) {
    return "'" + p.string() + "'";
}

std::vector<std::byte> readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> bytes(chars.size());
    if (!chars.empty()) std::memcpy(bytes.data(), chars.data(), chars.size());
    return bytes;
}

void writeFile(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(out.good());
}

void writeFile(const fs::path& path, const std::vector<std::byte>& bytes) {
    writeFile(path, std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

/// An .npy file by hand: magic, version, header length (2 bytes for major 1, else 4), the
/// header text as given (no padding added), then `data`.
std::string craft(const std::string& header, const std::string& data = "", int major = 1,
                  int minor = 0, std::optional<uint64_t> declaredLength = std::nullopt) {
    std::string out = "\x93NUMPY";
    out += static_cast<char>(major);
    out += static_cast<char>(minor);
    const uint64_t len = declaredLength.value_or(header.size());
    const int lengthBytes = major == 1 ? 2 : 4;
    for (int i = 0; i < lengthBytes; ++i) out += static_cast<char>((len >> (8 * i)) & 0xFF);
    return out + header + data;
}

std::string dictFor(const std::string& descr, const std::string& shape,
                    const std::string& fortran = "False") {
    return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape +
           ", }\n";
}

/// readNpy(path) must throw NpyError whose message contains `fragment` (and the path).
void expectReadError(const fs::path& path, const std::string& fragment) {
    try {
        const NpyArray a = readNpy(path);
        ADD_FAILURE() << "no error reading " << path << "; expected: " << fragment;
    } catch (const NpyError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(fragment), std::string::npos)
            << "message: " << what << "\nexpected fragment: " << fragment;
        EXPECT_NE(what.find(path.string()), std::string::npos) << "no path in: " << what;
        EXPECT_EQ(e.path(), path);
    }
}

void expectWriteError(const fs::path& path, const NpyArray& array, const std::string& fragment) {
    try {
        writeNpy(path, array);
        ADD_FAILURE() << "no error writing " << path << "; expected: " << fragment;
    } catch (const NpyError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(fragment), std::string::npos)
            << "message: " << what << "\nexpected fragment: " << fragment;
        EXPECT_NE(what.find(path.string()), std::string::npos) << "no path in: " << what;
    }
}

std::vector<std::byte> randomBytes(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::byte> out(n);
    for (auto& b : out) b = static_cast<std::byte>(rng() & 0xFF);
    return out;
}

NpyArray makeArray(const std::string& descr, std::vector<int64_t> shape, uint32_t seed = 1) {
    NpyArray a;
    a.descr = descr;
    a.shape = std::move(shape);
    a.data = randomBytes(static_cast<size_t>(a.numel() * a.itemSize()), seed);
    if (descr == "|b1") {
        for (auto& b : a.data) b = static_cast<std::byte>(std::to_integer<int>(b) & 1);
    }
    return a;
}

std::string dimsText(const std::vector<int64_t>& shape) {
    std::string out;
    for (size_t i = 0; i < shape.size(); ++i) out += (i ? " " : "") + std::to_string(shape[i]);
    return out;
}

// --- Reading what NumPy wrote -----------------------------------------------------------------

TEST(NpyReadTest, ReadsEverythingNumpyWrites) {
    REQUIRE_NUMPY();
    TempDir dir;
    ASSERT_EQ(runReference("make " + quoted(dir.path())), 0);
    std::ifstream manifest(dir / "manifest.txt");
    std::string line;
    int files = 0;
    while (std::getline(manifest, line)) {
        if (line.empty()) continue;
        std::istringstream fields(line);
        std::string name, descr, dims;
        std::getline(fields, name, ';');
        std::getline(fields, descr, ';');
        std::getline(fields, dims);
        std::vector<int64_t> shape;
        std::istringstream dimStream(dims);
        for (int64_t d; dimStream >> d;) shape.push_back(d);
        SCOPED_TRACE(name);
        NpyArray a;
        ASSERT_NO_THROW(a = readNpy(dir / (name + ".npy")));
        EXPECT_EQ(a.descr, descr);
        EXPECT_EQ(a.shape, shape);
        EXPECT_TRUE(a.trueDType.empty());
        EXPECT_EQ(a.numel() * a.itemSize(), static_cast<int64_t>(a.data.size()));
        EXPECT_TRUE(a.data == readFile(dir / (name + ".raw"))) << "element bytes differ";
        ++files;
    }
    EXPECT_GE(files, 60) << "the reference script wrote fewer files than expected";
}

TEST(NpyReadTest, AcceptsHeaderVariantsNumpyAccepts) {
    TempDir dir;
    const std::string data("\x01\x00\x02\x00\x03\x00\x04\x00\x05\x00\x06\x00", 12);
    const std::vector<std::pair<std::string, std::string>> headers = {
        {"double quotes, no trailing comma",
         "{\"descr\": \"<i2\", \"fortran_order\": False, \"shape\": (2, 3)}"},
        {"other key order", "{'shape': (2, 3), 'fortran_order': False, 'descr': '<i2'}   \n"},
        {"python 2 longs", "{'descr': '<i2', 'fortran_order': False, 'shape': (2L, 3L), }\n"},
        {"no byte order", "{'descr': 'i2', 'fortran_order': False, 'shape': (2,3,), }"},
        {"native byte order", "{'descr': '=i2', 'fortran_order': False, 'shape': (2, 3), }"},
    };
    for (const auto& [what, header] : headers) {
        SCOPED_TRACE(what);
        writeFile(dir / "h.npy", craft(header, data));
        NpyArray a;
        ASSERT_NO_THROW(a = readNpy(dir / "h.npy"));
        EXPECT_EQ(a.descr, "<i2");
        EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
        EXPECT_EQ(a.data.size(), 12u);
        EXPECT_EQ(std::to_integer<int>(a.data[10]), 6);
    }
}

TEST(NpyReadTest, FortranOrderAndBigEndianAreConvertedByHand) {
    // 2x3 int16 in Fortran order, big-endian: columns (1,4) (2,5) (3,6).
    TempDir dir;
    const std::string data("\x00\x01\x00\x04\x00\x02\x00\x05\x00\x03\x00\x06", 12);
    writeFile(dir / "f.npy", craft(dictFor(">i2", "(2, 3)", "True"), data));
    const NpyArray a = readNpy(dir / "f.npy");
    ASSERT_EQ(a.data.size(), 12u);
    for (int i = 0; i < 6; ++i) {
        EXPECT_EQ(std::to_integer<int>(a.data[2 * i]), i + 1) << i;
        EXPECT_EQ(std::to_integer<int>(a.data[2 * i + 1]), 0) << i;
    }
}

// --- Writing for NumPy ------------------------------------------------------------------------

TEST(NpyWriteTest, NumpyLoadsWhatWeWrite) {
    REQUIRE_NUMPY();
    TempDir dir;
    const std::vector<std::string> descrs = {"<f2", "<f4", "<f8", "|i1", "<i2", "<i4",
                                             "<i8", "|u1", "<u2", "<u4", "<u8", "|b1"};
    const std::vector<std::vector<int64_t>> shapes = {
        {}, {0}, {5}, {2, 3, 4}, {1, 1, 1, 1, 7}, {3, 0, 2}, {0, 1000000000000}, {33, 17}};
    std::ofstream manifest(dir / "manifest.txt");
    uint32_t seed = 0;
    for (const auto& descr : descrs) {
        for (const auto& shape : shapes) {
            const std::string name = "w" + std::to_string(seed);
            const NpyArray a = makeArray(descr, shape, ++seed);
            writeNpy(dir / (name + ".npy"), a);
            writeFile(dir / (name + ".raw"), a.data);
            manifest << name << ';' << descr << ';' << dimsText(shape) << '\n';
        }
    }
    // Other spellings of a descr are written canonically.
    NpyArray a = makeArray("=f4", {4}, 999);
    writeNpy(dir / "spelled.npy", a);
    writeFile(dir / "spelled.raw", a.data);
    manifest << "spelled;<f4;4\n";
    manifest.close();
    EXPECT_EQ(runReference("check " + quoted(dir.path())), 0) << "see the script's output above";
}

TEST(NpyWriteTest, RoundTripAndCanonicalLayout) {
    TempDir dir;
    const NpyArray a = makeArray("<f4", {3, 4});
    writeNpy(dir / "a.npy", a);
    const auto bytes = readFile(dir / "a.npy");
    // 128 = 64-aligned header (v1.0) + 48 data bytes.
    ASSERT_EQ(bytes.size(), 128u + 48u);
    const std::string head(reinterpret_cast<const char*>(bytes.data()), 128);
    EXPECT_EQ(head.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }";
    EXPECT_EQ(head.substr(10, dict.size() + 21), dict + std::string(21, ' ')); // growth padding
    EXPECT_EQ(head.back(), '\n');
    const NpyArray b = readNpy(dir / "a.npy");
    EXPECT_EQ(b.descr, a.descr);
    EXPECT_EQ(b.shape, a.shape);
    EXPECT_EQ(b.data, a.data);
    // Nothing but the file itself is left in the directory (no temporary files).
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator{}), 1);
}

TEST(NpyWriteTest, HugeHeaderUsesVersion2) {
    TempDir dir;
    NpyArray a = makeArray("|u1", std::vector<int64_t>(30000, 1));
    writeNpy(dir / "v2.npy", a);
    const auto bytes = readFile(dir / "v2.npy");
    ASSERT_GT(bytes.size(), 12u);
    EXPECT_EQ(std::to_integer<int>(bytes[6]), 2);
    uint32_t headerLen = 0;
    for (int i = 3; i >= 0; --i)
        headerLen = (headerLen << 8) | std::to_integer<uint32_t>(bytes[8 + i]);
    EXPECT_EQ((12 + headerLen) % 64, 0u);
    EXPECT_GT(headerLen, 65535u);
    const NpyArray b = readNpy(dir / "v2.npy");
    EXPECT_EQ(b.shape.size(), 30000u);
    EXPECT_EQ(b.data, a.data);
}

TEST(NpyWriteTest, OverwriteReplacesAndFailedWriteKeepsTheOldFile) {
    TempDir dir;
    const NpyArray first = makeArray("<i4", {8}, 1);
    writeNpy(dir / "x.npy", first);
    const NpyArray second = makeArray("<f8", {2, 2}, 2);
    writeNpy(dir / "x.npy", second);
    EXPECT_EQ(readNpy(dir / "x.npy").data, second.data);

    NpyArray bad = second;
    bad.data.pop_back();
    EXPECT_THROW(writeNpy(dir / "x.npy", bad), NpyError);
    EXPECT_EQ(readNpy(dir / "x.npy").data, second.data);
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator{}), 1);
}

// --- bf16 -------------------------------------------------------------------------------------

TEST(NpyBf16Test, SidecarRoundTrip) {
    TempDir dir;
    // bf16 bit patterns and their exact values: 1, -2.5, 3.140625, 0.15625, 65280, 2^-133, -0,
    // inf.
    const std::vector<uint16_t> bits = {0x3F80, 0xC020, 0x4049, 0x3E20,
                                        0x477F, 0x0001, 0x8000, 0x7F80};
    NpyArray a;
    a.descr = "<u2";
    a.shape = {2, 4};
    a.trueDType = "bf16";
    for (uint16_t b : bits) {
        a.data.push_back(static_cast<std::byte>(b & 0xFF));
        a.data.push_back(static_cast<std::byte>(b >> 8));
    }
    const fs::path file = dir / "act.npy";
    writeNpy(file, a);
    EXPECT_EQ(npyDTypeSidecarPath(file), dir / "act.npy.dtype");
    std::ifstream sidecar(npyDTypeSidecarPath(file));
    std::string text((std::istreambuf_iterator<char>(sidecar)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, "bf16\n");

    const NpyArray b = readNpy(file);
    EXPECT_EQ(b.descr, "<u2");
    EXPECT_EQ(b.trueDType, "bf16");
    EXPECT_EQ(b.data, a.data);

    if (haveTorch()) {
        std::vector<float> values;
        for (uint16_t v : bits) {
            const uint32_t f = uint32_t{v} << 16;
            float x;
            std::memcpy(&x, &f, 4);
            values.push_back(x);
        }
        std::ofstream out(dir / "expected.raw", std::ios::binary);
        out.write(reinterpret_cast<const char*>(values.data()),
                  static_cast<std::streamsize>(values.size() * 4));
        out.close();
        EXPECT_EQ(runReference("bf16 " + quoted(file) + " " + quoted(dir / "expected.raw")), 0);
    }

    // Rewriting without a true dtype removes the stale sidecar.
    a.trueDType.clear();
    writeNpy(file, a);
    EXPECT_FALSE(fs::exists(npyDTypeSidecarPath(file)));
    EXPECT_TRUE(readNpy(file).trueDType.empty());
}

TEST(NpyBf16Test, SidecarErrors) {
    TempDir dir;
    NpyArray a = makeArray("<f4", {2});
    a.trueDType = "bf16";
    expectWriteError(dir / "a.npy", a, "bf16 must be stored as '<u2'");
    a.descr = "<u4";
    a.trueDType = "bf 16";
    expectWriteError(dir / "a.npy", a, "not a dtype name");

    a.trueDType.clear();
    writeNpy(dir / "a.npy", a);
    writeFile(dir / "a.npy.dtype", std::string("bf16\n"));
    expectReadError(dir / "a.npy", "bf16 must be stored as '<u2'");
    writeFile(dir / "a.npy.dtype", std::string("what\nis this"));
    expectReadError(dir / "a.npy", "dtype sidecar");
    writeFile(dir / "a.npy.dtype", std::string("  f8e4m3 \n"));
    EXPECT_EQ(readNpy(dir / "a.npy").trueDType, "f8e4m3"); // other names pass through
}

// --- Errors -----------------------------------------------------------------------------------

TEST(NpyErrorTest, FileProblems) {
    TempDir dir;
    expectReadError(dir / "missing.npy", "no such file");
    expectReadError(dir.path(), "is a directory");
    writeFile(dir / "empty.npy", std::string());
    expectReadError(dir / "empty.npy", "empty file");
    writeFile(dir / "zip.npy", std::string("PK\x03\x04", 4) + " this is a zip, not an npy");
    expectReadError(dir / "zip.npy", "not an .npy file (bad magic");
    writeFile(dir / "short.npy", std::string("\x93NUM", 4));
    expectReadError(dir / "short.npy", "truncated header");
}

TEST(NpyErrorTest, TruncatedHeaderAndData) {
    TempDir dir;
    const std::string full = craft(dictFor("<f4", "(1024,)"), std::string(100, '\0'));
    writeFile(dir / "data.npy", full);
    expectReadError(dir / "data.npy", "truncated data: expected 4096 bytes of data, found 100");
    writeFile(dir / "header.npy", full.substr(0, 30));
    expectReadError(dir / "header.npy", "truncated header");
    writeFile(dir / "len.npy", full.substr(0, 9));
    expectReadError(dir / "len.npy", "truncated header");
    // A v2 header claiming 4 GiB in a tiny file: an error, not a 4 GiB allocation.
    writeFile(dir / "huge.npy", craft(dictFor("<f4", "(1,)"), "", 2, 0, 0xFFFFFFF0u));
    expectReadError(dir / "huge.npy", "truncated header");
    // 2^40 floats declared, 4 bytes present: an error, not a 4 TiB allocation.
    writeFile(dir / "bigdata.npy", craft(dictFor("<f4", "(1099511627776,)"), "abcd"));
    expectReadError(dir / "bigdata.npy", "expected 4398046511104 bytes of data, found 4");
}

TEST(NpyErrorTest, UnsupportedDTypes) {
    TempDir dir;
    if (haveNumpy()) {
        ASSERT_EQ(runReference("make " + quoted(dir.path())), 0);
        expectReadError(dir / "complex64.npy", "unsupported dtype '<c8' (complex64)");
    }
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"<c16", "(complex128)"},
        {"|O", "(Python object"},
        {"<U3", "(unicode string)"},
        {"|S4", "(byte string)"},
        {"<M8[ns]", "(datetime64)"},
        {"<f16", "long double"},
        {"<i3", "unsupported dtype '<i3'"},
        {"|b2", "unsupported dtype '|b2'"},
        {"float32", "unsupported dtype 'float32'"}};
    for (const auto& [descr, fragment] : cases) {
        SCOPED_TRACE(descr);
        writeFile(dir / "t.npy", craft(dictFor(descr, "(1,)"), std::string(16, '\0')));
        expectReadError(dir / "t.npy", fragment);
    }
    writeFile(dir / "rec.npy",
              craft("{'descr': [('a', '<i4'), ('b', '<f4')], 'fortran_order': False, "
                    "'shape': (1,), }\n",
                    std::string(8, '\0')));
    expectReadError(dir / "rec.npy", "structured");
}

TEST(NpyErrorTest, MalformedHeaders) {
    TempDir dir;
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"not a dict", "['<f4', False, (1,)]"},
        {"missing key", "{'descr': '<f4', 'shape': (1,), }"},
        {"extra key", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}"},
        {"duplicate key",
         "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}"},
        {"bad bool", "{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}"},
        {"int, not tuple", "{'descr': '<f4', 'fortran_order': False, 'shape': (4)}"},
        {"negative", "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}"},
        {"float dim", "{'descr': '<f4', 'fortran_order': False, 'shape': (1.5,)}"},
        {"huge dim", "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}"},
        {"unterminated", "{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}"},
        {"garbage after", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} junk"},
        {"cut off", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,"},
        {"empty", ""},
    };
    for (const auto& [what, header] : cases) {
        SCOPED_TRACE(what);
        writeFile(dir / "m.npy", craft(header, std::string(64, '\0')));
        expectReadError(dir / "m.npy", "malformed header");
    }
}

TEST(NpyErrorTest, UnsupportedVersionsAndOverflow) {
    TempDir dir;
    writeFile(dir / "v4.npy", craft(dictFor("<f4", "(1,)"), "abcd", 4, 0));
    expectReadError(dir / "v4.npy", "unsupported .npy format version 4.0");
    writeFile(dir / "v11.npy", craft(dictFor("<f4", "(1,)"), "abcd", 1, 1));
    expectReadError(dir / "v11.npy", "unsupported .npy format version 1.1");
    writeFile(dir / "ov.npy", craft(dictFor("<f4", "(4294967296, 4294967296)"), "abcd"));
    expectReadError(dir / "ov.npy", "too many elements");
    writeFile(dir / "ov2.npy", craft(dictFor("<f8", "(2305843009213693952,)"), "abcd"));
    expectReadError(dir / "ov2.npy", "too many elements");
    // A zero dimension makes the product 0 however large the others are (as in NumPy).
    writeFile(dir / "zero.npy", craft(dictFor("<f4", "(4294967296, 4294967296, 0)"), ""));
    EXPECT_EQ(readNpy(dir / "zero.npy").numel(), 0);
}

TEST(NpyErrorTest, WriteProblems) {
    TempDir dir;
    const NpyArray good = makeArray("<f4", {2, 2});
    expectWriteError(dir / "no" / "such" / "dir" / "x.npy", good, "cannot write");
    fs::create_directories(dir / "sub.npy");
    expectWriteError(dir / "sub.npy", good, "is a directory");

    NpyArray a = good;
    a.descr = "<c8";
    expectWriteError(dir / "a.npy", a, "unsupported dtype '<c8' (complex64)");
    a = good;
    a.descr = ">f4";
    expectWriteError(dir / "a.npy", a, "big-endian");
    a = good;
    a.data.resize(3);
    expectWriteError(dir / "a.npy", a, "data holds 3 bytes but shape (2, 2) of '<f4' needs 16");
    a = good;
    a.shape = {-2, -2};
    expectWriteError(dir / "a.npy", a, "negative dimension");
    a.shape = {4294967296, 4294967296};
    expectWriteError(dir / "a.npy", a, "too many elements");
    EXPECT_FALSE(fs::exists(dir / "a.npy"));
}

TEST(NpyErrorTest, CanonicalDescr) {
    EXPECT_EQ(canonicalNpyDescr("=f4"), "<f4");
    EXPECT_EQ(canonicalNpyDescr("f8"), "<f8");
    EXPECT_EQ(canonicalNpyDescr("<i1"), "|i1");
    EXPECT_EQ(canonicalNpyDescr(">u1"), "|u1");
    EXPECT_EQ(canonicalNpyDescr("|b1"), "|b1");
    EXPECT_THROW(canonicalNpyDescr(">f4"), NpyError);
    EXPECT_THROW(canonicalNpyDescr(""), NpyError);
    NpyArray a;
    a.descr = "<c8";
    EXPECT_THROW((void)a.itemSize(), NpyError);
}

// --- One strict header parser, judged against NumPy -------------------------------------------

struct HeaderVariant {
    const char* name;
    std::string header;
};

/// Header dicts as a careless or hostile writer makes them. Every one is written as a 1.0
/// file over 8 floats of data and given to np.load and to readNpy.
std::vector<HeaderVariant> headerVariants() {
    const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }";
    return {
        {"good", good + "\n"},
        {"no_newline", good},
        {"leading_space", "  " + good + "\n"},
        {"leading_newline", "\n" + good + "\n"},
        {"tab", "{'descr':\t'<f4', 'fortran_order': False, 'shape': (2, 4), }\n"},
        {"cr_ff", "{'descr': '<f4',\r\f 'fortran_order': False, 'shape': (2, 4), }\n"},
        {"fortran_true", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 4), }\n"},
        {"zero_dim", "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 00), }\n"},
        {"spaces_in_tuple", "{'descr': '<f4', 'fortran_order': False, 'shape': ( 2 , 4 , ), }"},
        {"falsey", "{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2, 4), }\n"},
        {"true_suffix", "{'descr': '<f4', 'fortran_order': True_, 'shape': (2, 4), }\n"},
        {"lowercase_bool", "{'descr': '<f4', 'fortran_order': false, 'shape': (2, 4), }\n"},
        {"missing_comma", "{'descr': '<f4' 'fortran_order': False, 'shape': (2, 4), }\n"},
        {"missing_comma_tuple", "{'descr': '<f4', 'fortran_order': False, 'shape': (2 4), }\n"},
        {"extra_key", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), 'x': 1}\n"},
        {"decoy_key", "{'note': 'fortran_order': False, 'descr': '<f4', 'fortran_order': True, "
                      "'shape': (2, 4), }\n"},
        {"empty_key", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), '': 1}\n"},
        {"key_with_space", "{'descr ': '<f4', 'fortran_order': False, 'shape': (2, 4), }\n"},
        {"mixed_quotes", "{\"descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }\n"},
        {"double_comma", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), ,}\n"},
        {"tuple_double_comma", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,, 4), }\n"},
        {"leading_zero", "{'descr': '<f4', 'fortran_order': False, 'shape': (02, 4), }\n"},
        {"bool_dim", "{'descr': '<f4', 'fortran_order': False, 'shape': (True, 4), }\n"},
        {"list_shape", "{'descr': '<f4', 'fortran_order': False, 'shape': [2, 4], }\n"},
        {"nested_shape", "{'descr': '<f4', 'fortran_order': False, 'shape': ((2, 4),), }\n"},
        {"int_shape", "{'descr': '<f4', 'fortran_order': False, 'shape': 8, }\n"},
        {"bytes_descr", "{'descr': b'<f4', 'fortran_order': False, 'shape': (2, 4), }\n"},
        {"nul_after", good + std::string("\0\n", 2)},
        {"latin1_after", good + "\xe9\n"},
        {"garbage_after", good + " x\n"},
        {"two_dicts", good + good + "\n"},
        {"not_a_dict", "('<f4', False, (2, 4))\n"},
        {"fortran_as_int", "{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 4), }\n"},
        {"python2_long", "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 4L), }\n"},
        // NumPy accepts these (Python literal syntax it evaluates); this reader refuses them on
        // purpose: see kStricterThanNumpy.
        {"duplicate_key", "{'descr': '<f4', 'fortran_order': False, 'fortran_order': True, "
                          "'shape': (2, 4), }\n"},
        {"comment", "{'descr': '<f4', 'fortran_order': False, # x\n 'shape': (2, 4), }\n"},
        {"hex_dim", "{'descr': '<f4', 'fortran_order': False, 'shape': (0x2, 4), }\n"},
        {"underscore_dim", "{'descr': '<f4', 'fortran_order': False, 'shape': (0_2, 4), }\n"},
        {"plus_dim", "{'descr': '<f4', 'fortran_order': False, 'shape': (+2, 4), }\n"},
        {"paren_bool", "{'descr': '<f4', 'fortran_order': (False), 'shape': (2, 4), }\n"},
        {"string_concat", "{'descr': '<' 'f4', 'fortran_order': False, 'shape': (2, 4), }\n"},
        {"line_continuation", "{'descr': '<f4', \\\n'fortran_order': False, 'shape': (2, 4)}\n"},
        {"dtype_name", "{'descr': 'float32', 'fortran_order': False, 'shape': (2, 4), }\n"},
    };
}

/// Variants NumPy loads that this reader refuses: a repeated key (NumPy silently keeps the last
/// one — the decoy of the issue), and Python syntax np.save never writes.
const std::vector<std::string> kStricterThanNumpy = {
    "duplicate_key", "comment",       "hex_dim",           "underscore_dim", "plus_dim",
    "paren_bool",    "string_concat", "line_continuation", "dtype_name"};

TEST(NpyStrictHeaderTest, NeverAcceptsWhatNumpyRejects) {
    REQUIRE_NUMPY();
    TempDir dir;
    const std::string data(32, '\0');
    for (const HeaderVariant& v : headerVariants())
        writeFile(dir / (std::string(v.name) + ".npy"), craft(v.header, data));
    ASSERT_EQ(runReference("verdicts " + quoted(dir.path())), 0);
    std::ifstream verdicts(dir / "verdicts.txt");
    std::string line;
    int compared = 0;
    while (std::getline(verdicts, line)) {
        std::istringstream fields(line);
        std::string name, verdict, dims;
        fields >> name >> verdict >> dims;
        SCOPED_TRACE(name + ": NumPy says " + verdict);
        std::optional<NpyArray> ours;
        std::string error;
        try {
            ours = readNpy(dir / (name + ".npy"));
        } catch (const NpyError& e) {
            error = e.what();
        }
        const bool stricter = std::find(kStricterThanNumpy.begin(), kStricterThanNumpy.end(),
                                        name) != kStricterThanNumpy.end();
        if (verdict == "reject") {
            EXPECT_FALSE(ours.has_value()) << "accepted a header NumPy rejects";
        } else if (stricter) {
            EXPECT_FALSE(ours.has_value()) << "listed as refused on purpose, but accepted";
        } else {
            ASSERT_TRUE(ours.has_value()) << error;
            std::string ourDims;
            for (size_t i = 0; i < ours->shape.size(); ++i)
                ourDims += (i ? "," : "") + std::to_string(ours->shape[i]);
            EXPECT_EQ(ourDims, dims);
        }
        ++compared;
    }
    EXPECT_EQ(compared, static_cast<int>(headerVariants().size()));
}

TEST(NpyStrictHeaderTest, TheIssuesDecoyIsRefusedWithTheReason) {
    const fs::path decoy =
        fs::path(PTO_SOURCE_DIR) /
        "../shared/repro/reliability/c3_diff_accepts_invalid_header_decoy_fortran.npy";
    if (!fs::exists(decoy)) GTEST_SKIP() << "no " << decoy;
    expectReadError(decoy, "malformed header");
    EXPECT_THROW(readNpyHeader(decoy), NpyError);
}

TEST(NpyStrictHeaderTest, HeaderOnlyReadOfAHugeSparseFile) {
    // A 4 GiB array whose data is a hole in the file: the header is read and checked, the data
    // never touched.
    TempDir dir;
    const std::string header = craft(dictFor("<f4", "(32768, 32768)"));
    writeFile(dir / "big.npy", header);
    fs::resize_file(dir / "big.npy", header.size() + (uint64_t(1) << 32));
    const NpyHeader h = readNpyHeader(dir / "big.npy");
    EXPECT_EQ(h.descr, "<f4");
    EXPECT_EQ(h.shape, (std::vector<int64_t>{32768, 32768}));
    EXPECT_EQ(h.dataOffset, header.size());
    EXPECT_EQ(h.dataBytes, uint64_t(1) << 32);
    EXPECT_FALSE(h.fortranOrder);
    // One byte short: the size check fails before anything is allocated.
    fs::resize_file(dir / "big.npy", header.size() + (uint64_t(1) << 32) - 1);
    EXPECT_THROW(readNpyHeader(dir / "big.npy"), NpyError);
}

TEST(NpyStrictHeaderTest, FifoAndDevicesAreRefusedWithoutBlocking) {
    TempDir dir;
    const fs::path fifo = dir / "x.npy";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // Opening a FIFO for reading blocks until a writer comes: this must return at once.
    expectReadError(fifo, "not a regular file (a FIFO)");
    EXPECT_THROW(readNpyHeader(fifo), NpyError);
    expectReadError("/dev/null", "not a regular file (a device)");
}

// --- Robustness: hostile input gives NpyError, never a crash ---------------------------------

TEST(NpyRobustnessTest, EveryTruncationIsAnError) {
    TempDir dir;
    writeNpy(dir / "ok.npy", makeArray("<f8", {3, 5}));
    const auto full = readFile(dir / "ok.npy");
    for (size_t len = 0; len < full.size(); ++len) {
        writeFile(dir / "cut.npy", std::vector<std::byte>(full.begin(), full.begin() + len));
        EXPECT_THROW(readNpy(dir / "cut.npy"), NpyError) << "length " << len;
    }
}

TEST(NpyRobustnessTest, CorruptedHeadersNeverCrash) {
    TempDir dir;
    writeNpy(dir / "ok.npy", makeArray("<i4", {4, 4}));
    const auto full = readFile(dir / "ok.npy");
    std::mt19937 rng(5);
    int errors = 0;
    for (int i = 0; i < 3000; ++i) {
        auto bytes = full;
        const int flips = 1 + static_cast<int>(rng() % 4);
        for (int f = 0; f < flips; ++f) {
            bytes[rng() % 128] = static_cast<std::byte>(rng() & 0xFF);
        }
        writeFile(dir / "bad.npy", bytes);
        try {
            const NpyArray a = readNpy(dir / "bad.npy");
            EXPECT_EQ(static_cast<int64_t>(a.data.size()), a.numel() * a.itemSize());
        } catch (const NpyError&) {
            ++errors;
        }
    }
    EXPECT_GT(errors, 100);
}

} // namespace
} // namespace pto
