// An .npy file opened for comparison: memory-mapped when it is a plain little-endian C-order
// array of a dtype PTO computes in (no copy of the data), else read through validate/Npy.h.
#pragma once

#include "compiler/ir/TensorData.h"
#include "validate/ErrorMetrics.h"

#include <cstddef>
#include <filesystem>

namespace pto {

class TensorFile {
public:
    // Throws NpyError for unreadable, malformed or unsupported files (the messages of readNpy
    // and fromNpy: anything the fast path does not recognise takes that path).
    explicit TensorFile(const std::filesystem::path& path);
    ~TensorFile();
    TensorFile(const TensorFile&) = delete;
    TensorFile& operator=(const TensorFile&) = delete;

    TensorView view() const { return m_view; }
    bool mapped() const { return m_map != nullptr; }

private:
    bool tryMap(const std::filesystem::path& path);

    void* m_map = nullptr;
    size_t m_mapBytes = 0;
    TensorData m_owned;
    TensorView m_view;
};

} // namespace pto
