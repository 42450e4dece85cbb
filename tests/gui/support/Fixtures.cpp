// Trace fixtures and screenshot helpers shared by the GUI tests.
#include "tests/gui/support/Fixtures.h"

#include "tests/support/Process.h"

#include <QImage>
#include <QPixmap>
#include <QWidget>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>
#include <unordered_map>

namespace pto::test {
namespace {

std::filesystem::path makeTrace(const std::string& key, const std::string& command) {
    const std::filesystem::path dir = std::filesystem::path(PTO_BINARY_DIR) / "gui-fixtures";
    std::filesystem::create_directories(dir);
    const std::filesystem::path trace = dir / (key + ".db");
    if (fixtureIsFresh(trace)) return trace;
    const std::filesystem::path temp = dir / fmt::format("{}.{}.tmp.db", key, ::getpid());
    const ProcessResult result = runCommand(fmt::format("{} -o {}", command, shellQuote(temp)));
    if (result.exitCode != 0) {
        ADD_FAILURE() << command << " failed (" << result.exitCode << "): " << result.err;
        return trace;
    }
    std::filesystem::rename(temp, trace);
    return trace;
}

std::string sampleKey(const std::string& sample, const std::string& extraArgs) {
    std::string key = sample;
    for (char c : extraArgs) key += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return key;
}

} // namespace

bool fixtureIsFresh(const std::filesystem::path& fixture) {
    std::error_code error;
    const auto written = std::filesystem::last_write_time(fixture, error);
    return !error && written >= std::filesystem::last_write_time(PTO_CLI);
}

std::filesystem::path sampleTrace(const std::string& sample, const std::string& extraArgs) {
    const std::string source = fmt::format("{}/samples/{}.pto", PTO_SOURCE_DIR, sample);
    return makeTrace("run_" + sampleKey(sample, extraArgs),
                     fmt::format("{} run {} {}", PTO_CLI, shellQuote(source), extraArgs));
}

std::filesystem::path programTrace(const std::string& name, const std::string& program,
                                   const std::string& extraArgs) {
    const std::filesystem::path dir = std::filesystem::path(PTO_BINARY_DIR) / "gui-fixtures";
    std::filesystem::create_directories(dir);
    const std::filesystem::path source = dir / (name + ".pto");
    const std::filesystem::path temp = dir / fmt::format("{}.{}.tmp.pto", name, ::getpid());
    std::ofstream(temp) << program;
    std::filesystem::rename(temp, source); // whole, for a concurrent test reading it
    // Keyed by the text and the arguments too: a test that changes either gets a new trace.
    const std::string key = fmt::format("program_{}_{:x}", sampleKey(name, extraArgs),
                                        std::hash<std::string>{}(program));
    return makeTrace(key, fmt::format("{} run {} {}", PTO_CLI, shellQuote(source), extraArgs));
}

std::filesystem::path whatifTrace(const std::filesystem::path& run, const std::string& name,
                                  const std::string& setArgs) {
    return makeTrace("whatif_" + name,
                     fmt::format("{} whatif {} {}", PTO_CLI, shellQuote(run), setArgs));
}

std::filesystem::path importedTrace(const std::filesystem::path& profilerDir,
                                    const std::string& name) {
    return makeTrace("import_" + name,
                     fmt::format("{} import {}", PTO_CLI, shellQuote(profilerDir)));
}

std::filesystem::path compiledTrace(const std::string& sample) {
    const std::string source = fmt::format("{}/samples/{}.pto", PTO_SOURCE_DIR, sample);
    return makeTrace("compile_" + sample,
                     fmt::format("{} compile {}", PTO_CLI, shellQuote(source)));
}

std::filesystem::path saveScreenshot(QWidget& widget, const std::string& name) {
    const std::filesystem::path dir = std::filesystem::path(PTO_BINARY_DIR) / "gui-artefacts";
    std::filesystem::create_directories(dir);
    const std::filesystem::path png = dir / (name + ".png");
    EXPECT_TRUE(widget.grab().save(QString::fromStdString(png.string()), "PNG")) << png;
    return png;
}

std::size_t drawnPixels(const std::filesystem::path& png) {
    const QImage image =
        QImage(QString::fromStdString(png.string())).convertToFormat(QImage::Format_RGB32);
    std::unordered_map<QRgb, std::size_t> histogram;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) ++histogram[image.pixel(x, y)];
    std::size_t background = 0;
    for (const auto& [colour, count] : histogram) background = std::max(background, count);
    return static_cast<std::size_t>(image.width()) * image.height() - background;
}

} // namespace pto::test
