// The temp files and scratch directories a process is writing, removed by a signal handler when
// SIGINT, SIGTERM or SIGHUP ends the process (AtomicFile's and ScratchDir's cleanup where no
// destructor runs).
#pragma once

#include <filesystem>

namespace pto {

/// Records `temp` (made absolute) for removal on SIGINT/SIGTERM/SIGHUP and, on first use,
/// installs the handler for each of these signals whose action is still the default (a
/// program's own handler, or an ignored signal, is left alone). The handler unlinks every
/// armed file, restores the default action and re-raises the signal, so the process still
/// ends as the signal says. Returns the slot, or -1 when the fixed-size list is full or the
/// path too long (the file is then only removed by its AtomicFile or the stale-file sweep).
/// Arm a path before creating it: a signal between the two then leaves nothing behind.
int armTempFile(const std::filesystem::path& temp);

/// As armTempFile for a directory: the handler removes the files in it (and its empty
/// subdirectories), after the armed files, then the directory itself.
int armTempDir(const std::filesystem::path& dir);

/// Forgets the file or directory of `slot` (no-op for -1). Call after it was renamed or removed.
void disarmTempFile(int slot);

} // namespace pto
