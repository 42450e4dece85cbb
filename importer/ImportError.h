// The error of a malformed input file: which file, where (line or byte offset) and what was
// expected. `pto import` prints it and exits 2.
#pragma once

#include <stdexcept>
#include <string>

namespace pto::importer {

class ImportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace pto::importer
