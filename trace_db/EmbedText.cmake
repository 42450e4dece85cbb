# Build-time script: turns trace_db/schema.sql into a header holding it as a string constant.
# Usage: cmake -DINPUT=schema.sql -DOUTPUT=SchemaSql.h -P EmbedText.cmake
file(READ "${INPUT}" text)
set(delimiter "pto_schema")
string(FIND "${text}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter ')${delimiter}\"'")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from trace_db/schema.sql by trace_db/EmbedText.cmake; do not edit.\n"
  "#pragma once\n\n"
  "#include <string_view>\n\n"
  "namespace pto::tracedb::generated {\n\n"
  "inline constexpr std::string_view kSchemaSql = R\"${delimiter}(${text})${delimiter}\";\n\n"
  "} // namespace pto::tracedb::generated\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
