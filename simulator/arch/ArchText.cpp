// The arch config file format: parsing `key = value unit` lines with file:line errors, dumping
// the effective config in the same format, and what-if overrides ("hbm.bandwidth=2x").
#include "base/RegularFile.h"
#include "simulator/arch/ArchConfig.h"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace pto::sim {
namespace {

constexpr std::string_view kNameKey = "name";

std::string_view trim(std::string_view s) {
    const size_t begin = s.find_first_not_of(" \t\r");
    if (begin == std::string_view::npos) return {};
    const size_t end = s.find_last_not_of(" \t\r");
    return s.substr(begin, end - begin + 1);
}

struct Assignment {
    std::string_view key;
    std::string_view value;
};

std::optional<Assignment> splitAssignment(std::string_view line) {
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    Assignment a{trim(line.substr(0, eq)), trim(line.substr(eq + 1))};
    if (a.key.empty() || a.value.empty()) return std::nullopt;
    return a;
}

// A value text: a number, then an optional unit, or (overrides only) "<number>x".
struct ValueText {
    double number = 0;
    std::string_view numberText; ///< the number as written
    bool outOfRange = false;     ///< beyond a double (1e400) or below its least (1e-400)
    std::string_view unit;       ///< the text after the number, trimmed
};

std::optional<ValueText> splitValue(std::string_view text) {
    ValueText v;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v.number);
    if (ec != std::errc() && ec != std::errc::result_out_of_range) return std::nullopt;
    v.outOfRange = ec == std::errc::result_out_of_range;
    v.numberText = std::string_view(text.data(), static_cast<size_t>(ptr - text.data()));
    v.unit = trim(std::string_view(ptr, static_cast<size_t>(end - ptr)));
    return v;
}

// "1e400 (out of range of a double)" for a number that is not one.
std::string outOfRange(const ValueText& v) {
    return fmt::format("{} (out of range of a double)", v.numberText);
}

// The parameter row of `key`, or an ArchError naming the nearest known key.
int lookupKey(std::string_view key, const std::string& file, int line) {
    const ParamTable& table = ParamTable::get();
    if (std::optional<int> index = table.find(key)) return *index;
    std::string message = fmt::format("unknown key '{}'", key);
    if (std::string nearest = table.nearestKey(key); !nearest.empty())
        message += fmt::format(" (did you mean '{}'?)", nearest);
    throw ArchError(file, line, message);
}

// Parses "1.6 TB/s" for parameter `index` into a checked Quantity.
Quantity parseQuantity(int index, std::string_view text, const std::string& file, int line) {
    const ParamSpec& spec = ParamTable::get().spec(index);
    const std::optional<ValueText> v = splitValue(text);
    if (!v)
        throw ArchError(file, line, fmt::format("{}: expected a number, got '{}'", spec.key, text));
    if (v->outOfRange)
        throw ArchError(file, line,
                        fmt::format("{}: expected a number, got {}", spec.key, outOfRange(*v)));
    Quantity q{v->number, Unit::None};
    if (!v->unit.empty()) {
        const std::optional<Unit> unit = parseUnit(v->unit);
        if (!unit)
            throw ArchError(file, line,
                            fmt::format("{}: unknown unit '{}' (a {} takes {})", spec.key, v->unit,
                                        unitKindName(spec.kind), unitList(spec.kind)));
        q.unit = *unit;
    }
    if (std::string problem = checkValue(index, q); !problem.empty())
        throw ArchError(file, line, fmt::format("{} = {}: {}", spec.key, text, problem));
    return q;
}

std::string commentText(const ParamSpec& spec) {
    return fmt::format("# {} [{}; {}]", spec.help, spec.source, paramBoundText(spec.bound));
}

// The section a key belongs to, for blank lines between groups in the dump.
std::string_view sectionOf(std::string_view key) {
    return key.substr(0, key.find('.'));
}

// parseArch; `named` tells whether the text set the name.
ArchConfig parseText(std::string_view text, const std::string& file, bool& named) {
    ArchConfig config;
    std::vector<int> lineOf(ParamTable::get().size(), 0);
    int nameLine = 0;
    int lineNo = 0;
    size_t pos = 0;
    while (pos <= text.size()) {
        const size_t eol = std::min(text.find('\n', pos), text.size());
        std::string_view line = text.substr(pos, eol - pos);
        pos = eol + 1;
        ++lineNo;
        line = trim(line.substr(0, line.find('#')));
        if (line.empty()) continue;
        const std::optional<Assignment> a = splitAssignment(line);
        if (!a)
            throw ArchError(file, lineNo,
                            fmt::format("expected 'key = value [unit]', got '{}'", line));
        if (a->key == kNameKey) {
            if (nameLine)
                throw ArchError(
                    file, lineNo,
                    fmt::format("duplicate key 'name' (first set on line {})", nameLine));
            nameLine = lineNo;
            config.setName(std::string(a->value));
            continue;
        }
        const int index = lookupKey(a->key, file, lineNo);
        if (lineOf[index])
            throw ArchError(
                file, lineNo,
                fmt::format("duplicate key '{}' (first set on line {})", a->key, lineOf[index]));
        lineOf[index] = lineNo;
        config.set(index, parseQuantity(index, a->value, file, lineNo));
    }
    validateArch(config, file, lineOf);
    named = nameLine != 0;
    return config;
}

} // namespace

ArchConfig parseArch(std::string_view text, const std::string& file) {
    bool named = false;
    return parseText(text, file, named);
}

// An arch file is a few hundred lines; anything this large is not one.
constexpr std::uint64_t kMaxArchFileBytes = 16u << 20;

std::string readArchText(const std::filesystem::path& path) {
    // A regular file only (base/RegularFile): a directory read as a stream gave nothing and
    // loaded as the default arch, /dev/zero grew without bound and a FIFO waited for ever.
    try {
        return RegularFile(path).readAll(kMaxArchFileBytes);
    } catch (const RegularFileError& e) {
        const bool directory = e.kind() == RegularFileError::Kind::Directory;
        throw ArchError(path.string(), 0,
                        fmt::format("cannot open the arch config file ({})",
                                    directory ? std::string("a directory") : e.what()));
    }
}

ArchConfig loadArch(const std::filesystem::path& path) {
    return parseArchFile(readArchText(path), path);
}

ArchConfig parseArchFile(std::string_view text, const std::filesystem::path& path) {
    bool named = false;
    ArchConfig config = parseText(text, path.string(), named);
    if (!named) config.setName(path.stem().string());
    return config;
}

std::string dumpArch(const ArchConfig& config) {
    const ParamTable& table = ParamTable::get();
    std::string out = "# PTO Studio arch config. Format: key = value unit; '#' starts a comment.\n"
                      "# Each parameter: [source of the default; allowed range]. Units: bytes "
                      "B/KiB/MiB/GiB, rates\n# B/cycle MB/s GB/s TB/s, times cycles/ns/us, "
                      "frequencies Hz/MHz/GHz.\n";
    out += fmt::format("name = {}\n", config.name());
    std::string_view section;
    for (int i = 0; i < table.size(); ++i) {
        const ParamSpec& spec = table.spec(i);
        if (sectionOf(spec.key) != section) {
            section = sectionOf(spec.key);
            out += '\n';
        }
        out += commentText(spec) + '\n';
        out += fmt::format("{} = {}\n", spec.key, formatQuantity(config.value(i)));
    }
    return out;
}

std::string archJson(const ArchConfig& config) {
    std::string name;
    for (char c : config.name()) {
        if (c == '"' || c == '\\') name += '\\';
        if (static_cast<unsigned char>(c) >= 0x20) name += c;
    }
    std::string out = fmt::format(R"({{"name":"{}","params":{{)", name);
    const ParamTable& table = ParamTable::get();
    for (int i = 0; i < table.size(); ++i)
        out += fmt::format(R"({}"{}":"{}")", i ? "," : "", table.spec(i).key,
                           formatQuantity(config.value(i)));
    return out + "}}";
}

namespace {

/// `product` rounded to 15 significant digits: a factor applied in binary leaves noise in the
/// last digit (68.8664816 printed as 68.86648160000001 in `pto arch` and calibrated arch
/// files), and 15 digits are more than any rate or size is known to.
double withoutProductNoise(double product) {
    return std::strtod(fmt::format("{:.15g}", product).c_str(), nullptr);
}

} // namespace

void applyOverride(ArchConfig& config, std::string_view assignment) {
    const std::string where = "override";
    const std::optional<Assignment> a = splitAssignment(trim(assignment));
    if (!a)
        throw ArchError(
            where, 0,
            fmt::format("expected 'key=<factor>x' or 'key=value [unit]', got '{}'", assignment));
    const int index = lookupKey(a->key, where, 0);
    const std::optional<ValueText> v = splitValue(a->value);
    ArchConfig changed = config;
    if (v && v->unit == "x") {
        if (!(v->number > 0) || !std::isfinite(v->number) || v->outOfRange)
            throw ArchError(where, 0,
                            fmt::format("{}: a factor must be a positive number, not {}",
                                        assignment,
                                        v->outOfRange ? outOfRange(*v) : v->numberText));
        Quantity q = config.value(index);
        q.value = withoutProductNoise(q.value * v->number);
        if (std::string problem = checkValue(index, q); !problem.empty())
            throw ArchError(
                where, 0,
                fmt::format("{} x{} = {}: {}", a->key, v->number, formatQuantity(q), problem));
        changed.set(index, q);
    } else {
        changed.set(index, parseQuantity(index, a->value, where, 0));
    }
    // The other parameters come from the config the override changes (a file, the default or
    // earlier overrides): a problem with one of them is not called "(default)".
    std::vector<int> lineOf(ParamTable::get().size(), kLineNotKnown);
    validateArch(changed, where, lineOf);
    config = std::move(changed);
}

} // namespace pto::sim
