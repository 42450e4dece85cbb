// Trace files for GUI tests, made once per build by the real `pto` command, and screenshots.
#pragma once

#include <filesystem>
#include <string>

class QWidget;

namespace pto::test {

/// `fixture` exists and is newer than the `pto` binary that would write it now; an older one
/// may hold another schema or other numbers, so it is made again.
bool fixtureIsFresh(const std::filesystem::path& fixture);

/// A trace of `pto run samples/<sample>.pto <extraArgs>`, made on first use under
/// <build>/gui-fixtures and reused afterwards (written to a temp name, then renamed, so
/// concurrent tests never see half a file). Fails the calling test on error.
std::filesystem::path sampleTrace(const std::string& sample, const std::string& extraArgs = "");
/// A trace of `pto run <program text> <extraArgs>` named `name`, same caching, keyed by the
/// name, the arguments and the text (the program is written next to it as <name>.pto).
std::filesystem::path programTrace(const std::string& name, const std::string& program,
                                   const std::string& extraArgs = "");
/// The changed run of `pto whatif <run> <setArgs>` (e.g. "--set dma.gm_to_l1.rate=2x") named
/// `name`, same caching.
std::filesystem::path whatifTrace(const std::filesystem::path& run, const std::string& name,
                                  const std::string& setArgs);
/// `pto import <profilerDir>` (real profiler output) named `name`, same caching.
std::filesystem::path importedTrace(const std::filesystem::path& profilerDir,
                                    const std::string& name);
/// A compile-only trace (`pto compile`), same caching.
std::filesystem::path compiledTrace(const std::string& sample);

/// Saves `widget` as <build>/gui-artefacts/<name>.png and returns the path.
std::filesystem::path saveScreenshot(QWidget& widget, const std::string& name);

/// Number of pixels of `image` that differ from its most common colour (the background).
std::size_t drawnPixels(const std::filesystem::path& png);

} // namespace pto::test
