// The golden-file runner: case files parsed into RUN specs, chunks, CHECK lines and expected
// errors, then run through a suite's pipeline callback and compared.
#include "tests/golden/GoldenRunner.h"

#include "compiler/ir/Parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace pto::golden {
namespace {

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    std::string line;
    std::istringstream in(text);
    while (std::getline(in, line)) lines.push_back(line);
    return lines;
}

std::string trim(std::string_view s) {
    size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) return {};
    size_t e = s.find_last_not_of(" \t\r");
    return std::string(s.substr(b, e - b + 1));
}

bool isSplitLine(const std::string& line) {
    return trim(line).starts_with("// -----");
}

// The text after "// <directive>" in a line, if the line has that comment.
std::optional<std::string> directiveText(const std::string& line, std::string_view directive) {
    size_t c = line.find("//");
    while (c != std::string::npos) {
        std::string_view rest = std::string_view(line).substr(c + 2);
        size_t start = rest.find_first_not_of(' ');
        if (start != std::string_view::npos && rest.substr(start).starts_with(directive))
            return std::string(rest.substr(start + directive.size()));
        c = line.find("//", c + 2);
    }
    return std::nullopt;
}

struct CheckPrefix {
    std::string_view prefix;
    CheckKind kind;
};

constexpr CheckPrefix kCheckPrefixes[] = {
    {"CHECK-NEXT:", CheckKind::Next},   {"CHECK-SAME:", CheckKind::Same},
    {"CHECK-NOT:", CheckKind::Not},     {"CHECK-EMPTY:", CheckKind::Empty},
    {"CHECK-LABEL:", CheckKind::Check}, {"CHECK:", CheckKind::Check},
};

// Parses "@+1:5 {{message}}" (the part after "expected-error").
std::optional<ExpectedError> parseExpectedError(std::string_view rest, int lineNo,
                                                std::string& problem) {
    ExpectedError e;
    e.directiveLine = lineNo;
    e.line = lineNo;
    if (rest.starts_with("@")) {
        rest.remove_prefix(1);
        size_t end = rest.find_first_of(" {");
        std::string spec(rest.substr(0, end));
        rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
        size_t colon = spec.find(':');
        std::string lineSpec = spec.substr(0, colon);
        try {
            int n = std::stoi(lineSpec);
            e.line = lineSpec[0] == '+' || lineSpec[0] == '-' ? lineNo + n : n;
            if (colon != std::string::npos) e.col = std::stoi(spec.substr(colon + 1));
        } catch (const std::exception&) {
            problem = fmt::format("line {}: bad expected-error location '@{}'", lineNo, spec);
            return std::nullopt;
        }
    }
    size_t open = rest.find("{{");
    size_t close = rest.rfind("}}");
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
        problem = fmt::format("line {}: expected-error needs {{{{message}}}}", lineNo);
        return std::nullopt;
    }
    e.message = std::string(rest.substr(open + 2, close - open - 2));
    return e;
}

void scanLine(GoldenFile& file, Chunk& chunk, const std::string& line, int lineNo) {
    if (auto run = directiveText(line, "RUN:")) {
        file.runSpecs.push_back(trim(*run));
        return;
    }
    for (const CheckPrefix& p : kCheckPrefixes)
        if (auto text = directiveText(line, p.prefix)) {
            chunk.checks.push_back({p.kind, trim(*text), lineNo});
            return;
        }
    if (auto rest = directiveText(line, "expected-error")) {
        std::string problem;
        if (auto e = parseExpectedError(*rest, lineNo, problem))
            chunk.errors.push_back(*e);
        else
            file.problems.push_back(problem);
    }
}

std::vector<std::string> runChunk(const GoldenFile& file, const Chunk& chunk,
                                  const std::string& spec, const PipelineFn& pipeline) {
    std::vector<std::string> failures;
    std::string output;
    std::optional<CompileError> error;
    try {
        Module m = parseModule(chunk.text, file.path);
        output = pipeline(spec, m);
    } catch (const CompileError& e) {
        error = e;
    } catch (const std::exception& e) {
        return {fmt::format("RUN {}: unexpected exception: {}", spec, e.what())};
    }
    if (chunk.errors.empty()) {
        if (error) return {fmt::format("RUN {}: unexpected error: {}", spec, error->what())};
        for (std::string& f : matchChecks(output, chunk.checks))
            failures.push_back(fmt::format("RUN {}: {}\n--- output ---\n{}", spec, f, output));
        return failures;
    }
    const ExpectedError& want = chunk.errors.front();
    if (chunk.errors.size() > 1)
        failures.push_back(fmt::format("line {}: one expected-error per chunk (split with "
                                       "// -----)",
                                       chunk.errors[1].directiveLine));
    if (!error) {
        failures.push_back(fmt::format("RUN {}: expected error '{}' at line {} was not "
                                       "produced\n--- output ---\n{}",
                                       spec, want.message, want.line, output));
        return failures;
    }
    bool lineOk = int(error->loc().line) == want.line;
    bool colOk = !want.col || int(error->loc().col) == *want.col;
    bool textOk = error->message().find(want.message) != std::string::npos;
    if (!lineOk || !colOk || !textOk)
        failures.push_back(fmt::format("RUN {}: expected error at line {}{} containing '{}', got: "
                                       "{}",
                                       spec, want.line,
                                       want.col ? fmt::format(":{}", *want.col) : "", want.message,
                                       error->what()));
    return failures;
}

bool contains(const std::string& line, const std::string& text) {
    return line.find(text) != std::string::npos;
}

} // namespace

GoldenFile parseGoldenFile(const std::string& path, const std::string& text) {
    GoldenFile file;
    file.path = path;
    std::vector<std::string> lines = splitLines(text);
    size_t start = 0;
    while (start <= lines.size()) {
        size_t end = start;
        while (end < lines.size() && !isSplitLine(lines[end])) ++end;
        Chunk chunk;
        for (size_t i = 0; i < start; ++i) chunk.text += '\n';
        for (size_t i = start; i < end; ++i) {
            chunk.text += lines[i] + '\n';
            scanLine(file, chunk, lines[i], int(i + 1));
        }
        file.chunks.push_back(std::move(chunk));
        start = end + 1;
    }
    return file;
}

std::vector<std::string> matchChecks(const std::string& output, const std::vector<Check>& checks) {
    std::vector<std::string> lines = splitLines(output);
    std::vector<std::string> failures;
    std::vector<const Check*> pendingNots;
    size_t cursor = 0;   // first line a CHECK may match
    long lastMatch = -1; // line of the last positive match
    auto checkNots = [&](size_t from, size_t to) {
        for (const Check* n : pendingNots)
            for (size_t i = from; i < to && i < lines.size(); ++i)
                if (contains(lines[i], n->text))
                    failures.push_back(fmt::format("line {}: CHECK-NOT: '{}' found in output line "
                                                   "{}: {}",
                                                   n->line, n->text, i + 1, lines[i]));
        pendingNots.clear();
    };
    for (const Check& c : checks) {
        switch (c.kind) {
        case CheckKind::Not:
            pendingNots.push_back(&c);
            break;
        case CheckKind::Check: {
            size_t i = cursor;
            while (i < lines.size() && !contains(lines[i], c.text)) ++i;
            if (i == lines.size()) {
                failures.push_back(fmt::format("line {}: CHECK: '{}' not found after output line "
                                               "{}",
                                               c.line, c.text, cursor));
                return failures;
            }
            checkNots(cursor, i);
            cursor = i + 1;
            lastMatch = long(i);
            break;
        }
        case CheckKind::Next:
        case CheckKind::Empty: {
            size_t i = size_t(lastMatch + 1);
            bool ok = i < lines.size() && (c.kind == CheckKind::Next ? contains(lines[i], c.text)
                                                                     : trim(lines[i]).empty());
            if (!ok) {
                failures.push_back(
                    fmt::format("line {}: {} '{}' does not match output line {}: {}", c.line,
                                c.kind == CheckKind::Next ? "CHECK-NEXT:" : "CHECK-EMPTY:", c.text,
                                i + 1, i < lines.size() ? lines[i] : "<end of output>"));
                return failures;
            }
            checkNots(cursor, i);
            cursor = i + 1;
            lastMatch = long(i);
            break;
        }
        case CheckKind::Same:
            if (lastMatch < 0 || !contains(lines[size_t(lastMatch)], c.text)) {
                failures.push_back(fmt::format("line {}: CHECK-SAME: '{}' not on the matched line",
                                               c.line, c.text));
                return failures;
            }
            break;
        }
    }
    checkNots(cursor, lines.size());
    return failures;
}

std::vector<std::string> runGoldenFile(const GoldenFile& file, const PipelineFn& pipeline) {
    std::vector<std::string> failures = file.problems;
    if (file.runSpecs.empty()) failures.push_back(file.path + ": no '// RUN:' line");
    for (const std::string& spec : file.runSpecs)
        for (const Chunk& chunk : file.chunks)
            for (std::string& f : runChunk(file, chunk, spec, pipeline))
                failures.push_back(file.path + ": " + f);
    return failures;
}

std::vector<std::string> runGoldenFile(const std::string& path, const PipelineFn& pipeline) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {path + ": cannot open"};
    std::ostringstream text;
    text << in.rdbuf();
    return runGoldenFile(parseGoldenFile(path, text.str()), pipeline);
}

std::vector<std::string> discoverCases(const std::string& directory) {
    std::vector<std::string> cases;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(directory, ec))
        if (entry.is_regular_file() && entry.path().extension() == ".pto")
            cases.push_back(entry.path().string());
    std::sort(cases.begin(), cases.end());
    return cases;
}

std::string caseName(const testing::TestParamInfo<std::string>& info) {
    std::string name = std::filesystem::path(info.param).stem().string();
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

} // namespace pto::golden
