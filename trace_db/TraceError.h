// The one exception type trace_db throws: a message naming the trace file and what went wrong.
#pragma once

#include <stdexcept>

namespace pto::tracedb {

class TraceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace pto::tracedb
