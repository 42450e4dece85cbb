// A whole file as a string, for tests that read programs, listings and goldens.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace pto::test {

// The bytes of `path` ("" when it cannot be read: the test's own assertion then says what).
inline std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace pto::test
