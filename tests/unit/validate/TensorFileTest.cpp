// validate/TensorFile.h: the memory-mapped comparison path reads headers through the one
// strict parser (validate/Npy.h), so it accepts exactly what readNpy accepts, and refuses
// non-regular files without blocking. Files come from NumPy itself.
#include "validate/TensorFile.h"

#include "tests/support/Process.h"
#include "validate/Npy.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace pto {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Writes c.npy (C order), f.npy (Fortran order), be.npy (big-endian) of the same 3x5 f32 values
// with NumPy, and their C-order little-endian bytes as raw.
void writeWithNumpy(const fs::path& dir) {
    const std::string script =
        fmt::format("import numpy as np\n"
                    "a = (np.arange(15, dtype='<f4').reshape(3, 5) - 7) / 3\n"
                    "np.save('{0}/c.npy', a)\n"
                    "np.save('{0}/f.npy', np.asfortranarray(a))\n"
                    "np.save('{0}/be.npy', a.astype('>f4'))\n"
                    "a.tofile('{0}/raw')\n",
                    dir.string());
    std::ofstream(dir / "w.py") << script;
    ASSERT_EQ(
        test::runCommand("/usr/bin/python3 " + test::shellQuote((dir / "w.py").string())).exitCode,
        0);
}

TEST(TensorFileTest, MapsCOrderAndReadsOtherLayoutsToTheSameValues) {
    if (!test::pythonHas("numpy")) GTEST_SKIP() << "needs /usr/bin/python3 with numpy";
    test::TempDir dir;
    writeWithNumpy(dir.path());
    const std::string raw = slurp(dir / "raw");
    for (const char* name : {"c.npy", "f.npy", "be.npy"}) {
        SCOPED_TRACE(name);
        const TensorFile t(dir / name);
        EXPECT_EQ(t.mapped(), std::string(name) == "c.npy");
        EXPECT_EQ(t.view().dtype, DType::F32);
        EXPECT_EQ(t.view().shape, (Shape{3, 5}));
        ASSERT_EQ(raw.size(), 60u);
        EXPECT_EQ(std::memcmp(t.view().data, raw.data(), raw.size()), 0);
    }
}

TEST(TensorFileTest, RefusesHeadersTheReaderRefuses) {
    test::TempDir dir;
    // The decoy of issue 13: an extra key hiding a second 'fortran_order'. Both paths refuse it.
    std::string header = "{'note': 'fortran_order': False, 'descr': '<f4', 'fortran_order': "
                         "True, 'shape': (2, 2), }\n";
    const std::string file = std::string("\x93NUMPY\x01\x00", 8) + char(header.size()) + char(0) +
                             header + std::string(16, '\0');
    std::ofstream(dir / "decoy.npy", std::ios::binary) << file;
    EXPECT_THROW(TensorFile(dir / "decoy.npy"), NpyError);
    EXPECT_THROW(readNpy(dir / "decoy.npy"), NpyError);
    for (const char* bad : {"Falsey", "False 'x': 1,"}) {
        header = fmt::format("{{'descr': '<f4', 'fortran_order': {}, 'shape': (2, 2), }}\n", bad);
        std::ofstream(dir / "bad.npy", std::ios::binary) << std::string("\x93NUMPY\x01\x00", 8) +
                                                                char(header.size()) + char(0) +
                                                                header + std::string(16, '\0');
        EXPECT_THROW(TensorFile(dir / "bad.npy"), NpyError) << bad;
    }
}

TEST(TensorFileTest, FifoIsRefusedWithoutBlocking) {
    test::TempDir dir;
    ASSERT_EQ(::mkfifo((dir / "x.npy").c_str(), 0600), 0);
    try {
        const TensorFile t(dir / "x.npy");
        FAIL() << "a FIFO was accepted";
    } catch (const NpyError& e) {
        EXPECT_NE(std::string(e.what()).find("not a regular file (a FIFO)"), std::string::npos)
            << e.what();
    }
}

} // namespace
} // namespace pto
