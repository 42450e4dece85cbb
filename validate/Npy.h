// Reading and writing NumPy .npy files, with bf16 stored as uint16 bits plus a dtype sidecar.
#pragma once

// The format (https://numpy.org/devdocs/reference/generated/numpy.lib.format.html)
// --------------------------------------------------------------------------------
//   "\x93NUMPY" major minor  header-length  header  data
// header-length is a little-endian uint16 in version 1.0 and a uint32 in 2.0 and 3.0 (3.0 also
// allows a UTF-8 header, which only matters for structured dtypes). The header is a Python dict
// literal with exactly the keys 'descr' (the dtype, e.g. '<f4'), 'fortran_order' (True/False)
// and 'shape' (a tuple of ints), padded with spaces and ending in '\n' so that the data starts
// at a multiple of 64 bytes. The data is the elements in C or Fortran order.
//
// What this implementation accepts
// - Versions 1.0, 2.0 and 3.0. Anything else is an error naming the version.
// - dtypes bool ('|b1'), int8/16/32/64 ('i1' 'i2' 'i4' 'i8'), uint8/16/32/64 ('u1' 'u2' 'u4'
//   'u8') and float16/32/64 ('f2' 'f4' 'f8'), with byte order '<', '|', '=' (taken as
//   little-endian: NumPy itself only writes '<', '>' or '|') or '>' (big-endian: read and
//   byte-swapped to little-endian). Other dtypes (complex, strings, objects, datetimes,
//   structured) are errors naming the dtype.
// - Fortran-order data is transposed to C order on reading.
// - Bytes after the data are ignored, as np.load does (np.save may append several arrays to one
//   stream).
// - Hostile input never crashes or allocates absurd sizes: the header length and the data size
//   are checked against the file size before anything is allocated (headers are limited to
//   1 MiB; NumPy's own writer needs a few hundred bytes).
//
// What it writes
// - Version 1.0, or 2.0 when the header does not fit in 65535 bytes (only possible with
//   thousands of dimensions); the dict exactly as np.save writes it (keys sorted, the same
//   spacing, spaces so the shape can grow in place, 64-byte alignment); C order; little-endian.
// - Atomically: into a temporary file in the destination's directory, flushed to disk, then
//   renamed over the destination, so a reader sees the previous file or the complete new one.
//
// bf16 (and any other dtype NumPy lacks)
// - NumPy has no bf16, so a bf16 array is stored as '<u2' holding the bf16 bit patterns, and its
//   true dtype is recorded beside it in a sidecar text file named "<file>.dtype" (for "x.npy":
//   "x.npy.dtype") holding the dtype name and a newline ("bf16\n"). NumPy reads the file as the
//   raw uint16 bits; to see the values: torch.from_numpy(a.view(np.int16)).view(torch.bfloat16).
// - writeNpy writes the sidecar when NpyArray::trueDType is set and removes a stale one when it
//   is not; readNpy sets trueDType from the sidecar when there is one. A "bf16" sidecar must sit
//   beside a '<u2' array.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

/// The dtypes PTO computes in, as every refusal of an .npy dtype names them (the reader takes
/// more, e.g. '<f8', which readTensor then refuses: both messages give this one list).
inline constexpr const char* kPtoDTypesText =
    "PTO computes in f16 ('<f2'), bf16 ('<u2' + a .dtype sidecar saying bf16), f32 ('<f4'), i8 "
    "('|i1'), i32 ('<i4') and bool ('|b1')";

/// Any failure to read or write an .npy file. what() reads "<path>: <reason>".
class NpyError : public std::runtime_error {
public:
    NpyError(std::filesystem::path path, const std::string& reason);

    const std::filesystem::path& path() const { return m_path; }
    const std::string& reason() const { return m_reason; }

private:
    std::filesystem::path m_path;
    std::string m_reason;
};

/// One array as stored in an .npy file.
struct NpyArray {
    /// Canonical NumPy dtype string: '<f2' '<f4' '<f8' '|i1' '<i2' '<i4' '<i8' '|u1' '<u2' '<u4'
    /// '<u8' '|b1'. writeNpy also accepts the other spellings of the same dtype (e.g. '=f4').
    std::string descr;
    /// Dimensions, outermost first; empty for a scalar (one element).
    std::vector<int64_t> shape;
    /// The elements in C order, little-endian: numel() * itemSize() bytes.
    std::vector<std::byte> data;
    /// The element type the stored bits really have when NumPy has no such dtype ("bf16" for
    /// bf16 bits stored as '<u2'), from/to the "<file>.dtype" sidecar; empty otherwise.
    std::string trueDType;

    /// Number of elements: the product of the shape (1 for a scalar, 0 if any dimension is 0).
    /// Throws NpyError (with an empty path) for a negative dimension or a product beyond int64
    /// (impossible for an array from readNpy).
    int64_t numel() const;
    /// Bytes per element of `descr`; throws NpyError (with an empty path) if unsupported.
    int64_t itemSize() const;
};

/// What an .npy file's preamble and header declare, checked against the file's size.
struct NpyHeader {
    int major = 1;              // format version 1, 2 or 3 (minor is always 0)
    std::string descr;          // canonical, as NpyArray::descr ('<f4'; '<i2' for '>i2')
    bool bigEndian = false;     // the stored elements are big-endian ('>' with itemSize > 1)
    bool fortranOrder = false;  // the stored elements are in Fortran order
    std::vector<int64_t> shape; // as NpyArray::shape
    int itemSize = 0;           // bytes per element
    uint64_t dataOffset = 0;    // bytes before the first element (preamble + header)
    uint64_t dataBytes = 0;     // numel * itemSize; the file holds at least this many after
    std::string trueDType;      // from the "<file>.dtype" sidecar (readNpyHeader only)
};

/// The one header parser every reader of .npy files uses: `prefix` holds the first bytes of a
/// file of `fileSize` bytes (at least its preamble and header, or the whole file if shorter).
/// Accepts what np.load accepts, minus deliberate strictness (docs/VALIDATE.md): the header is
/// a Python dict literal with exactly the keys 'descr', 'fortran_order' and 'shape', each once
/// (a repeated key, which NumPy resolves silently to the last one, is an error), string values
/// in single or double quotes without escapes, True or False, a tuple of decimal integers. The
/// data size the shape and dtype imply is checked against the file size before anything is
/// read or allocated. Throws NpyError naming `path`.
NpyHeader parseNpyHeader(std::string_view prefix, uint64_t fileSize,
                         const std::filesystem::path& path);

/// Reads and checks only the header of an .npy file (and its sidecar): a cheap look at dtype
/// and shape before a large file is read. `path` must be a regular file: a FIFO, device or
/// socket is an NpyError at once (opening never blocks). Throws NpyError.
NpyHeader readNpyHeader(const std::filesystem::path& path);

/// Reads an .npy file (and its "<file>.dtype" sidecar, if any): readNpyHeader's checks, then
/// the data. Throws NpyError.
NpyArray readNpy(const std::filesystem::path& path);

/// Writes `array` as an .npy file atomically (and its sidecar, see above). Throws NpyError when
/// the array is inconsistent (unsupported descr, negative dimension, data size not numel *
/// itemSize, bf16 not stored as '<u2') or the destination cannot be written.
void writeNpy(const std::filesystem::path& path, const NpyArray& array);

/// The sidecar that records the true dtype of `npyPath`: the same path with ".dtype" appended.
std::filesystem::path npyDTypeSidecarPath(const std::filesystem::path& npyPath);

/// The canonical spelling of a supported descr ("=f4" -> "<f4", "<i1" -> "|i1"); throws NpyError
/// (with an empty path) naming the dtype if it is not supported. Big-endian descrs ('>f4') are
/// rejected here: in memory, NpyArray data is always little-endian.
std::string canonicalNpyDescr(std::string_view descr);

} // namespace pto
