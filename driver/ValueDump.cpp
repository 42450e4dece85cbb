// The value dump of a run: the Tile interpreter on the compiled Tile function, its tiles put
// back together into the Tensor-level values they cover, written in program order.
#include "driver/ValueDump.h"

#include "base/AtomicFile.h"
#include "base/JsonText.h"
#include "compiler/interp/TileInterpreter.h"
#include "compiler/ir/Hardware.h"
#include "compiler/ir/Parser.h"
#include "compiler/ir/Printer.h"
#include "validate/ProducedTolerance.h"
#include "validate/TensorIo.h"
#include "validate/Tolerance.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <cstring>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <unordered_map>

namespace pto {
namespace {

namespace fs = std::filesystem;

std::vector<int64_t> dimsOf(const Shape& s) {
    return {s.dims().begin(), s.dims().end()};
}

/// A Tensor-level value being put together from tiles, with the elements they covered.
struct Assembly {
    TensorData data;
    std::vector<bool> covered;
    int64_t coveredCount = 0;
};

/// Copies `tile` (a region of `a`'s value at `offset`, consecutive rows) into `a`; false when
/// the tile does not fit (a broadcast or a differently typed copy).
bool place(Assembly& a, const TensorData& tile, const Shape& offset) {
    const Shape& dims = a.data.shape;
    if (tile.dtype != a.data.dtype || offset.rank() != dims.rank() || dims.rank() == 0)
        return false;
    const int64_t cols = dims[dims.rank() - 1];
    int64_t rows = 1, row = 0;
    for (int i = 0; i + 1 < dims.rank(); ++i) {
        rows *= dims[i];
        row = row * dims[i] + offset[i];
    }
    const int64_t col = offset[offset.rank() - 1];
    const int64_t tileCols = tile.shape.rank() ? tile.shape[tile.shape.rank() - 1] : 1;
    const int64_t tileRows = tileCols ? tile.numel() / tileCols : 0;
    if (col + tileCols > cols || row + tileRows > rows) return false;
    const int64_t size = a.data.elementSize();
    for (int64_t r = 0; r < tileRows; ++r) {
        const int64_t first = (row + r) * cols + col;
        std::memcpy(a.data.data() + first * size, tile.data() + r * tileCols * size,
                    size_t(tileCols * size));
        for (int64_t c = 0; c < tileCols; ++c)
            if (!a.covered[size_t(first + c)]) {
                a.covered[size_t(first + c)] = true;
                ++a.coveredCount;
            }
    }
    return true;
}

std::string fileName(size_t index, std::string_view name) {
    std::string safe;
    for (char c : name) safe += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
    return fmt::format("{:04}_{}.npy", index, safe);
}

/// An op to label a dumped value with, and the function its operands' types are read in.
struct Producer {
    const Op* op = nullptr;
    const Function* fn = nullptr;
};

/// The entry function of the run as parsed: what the user wrote, before decompose-composites
/// (the simulated function's softmax result is a `cast`). Empty when the text is not at hand.
std::optional<Function> writtenFunction(const CompileState& state) {
    try {
        Module m = parseModule(state.source, state.file);
        for (Function& f : m.functions)
            if (f.name == state.tensor.name) return std::move(f);
    } catch (const CompileError&) {
        // Not a Tensor-level text (a listing): the ops are labelled as compiled.
    }
    return std::nullopt;
}

/// The op the user wrote for each named result: a pass that rewrites an op keeps its result
/// value (and name) on the op that now defines it and the written op's `loc` on every op it
/// makes, so name and loc together find it; unnamed values (the inside of a decomposition)
/// have none.
class WrittenOps {
public:
    explicit WrittenOps(const CompileState& state) : m_fn(writtenFunction(state)) {
        if (!m_fn) return;
        for (const Op& op : m_fn->ops())
            if (op.result != kNoId && !m_fn->value(op.result).name.empty())
                m_byName.emplace(m_fn->value(op.result).name, op.id);
    }

    Producer of(const Function& compiled, const Op& op) const {
        const auto it = m_byName.find(compiled.value(op.result).name);
        if (it == m_byName.end() || m_fn->op(it->second).loc != op.loc) return {&op, &compiled};
        return {&m_fn->op(it->second), &*m_fn};
    }

private:
    std::optional<Function> m_fn;
    std::unordered_map<std::string, OpId> m_byName;
};

/// What a dumped value's manifest entry says about its producer.
struct Label {
    std::string op;
    SourceLoc loc;
    int64_t k = 1;
};

/// The starting contents of a kernel argument it stores into are dumped under this suffix
/// (`%z@input`): `%z` is what the kernel left in it.
constexpr char kStartSuffix[] = "@input";

class Dumper {
public:
    Dumper(const RunResult& run, const DumpOptions& o) : m_run(run), m_o(o) {}

    void dump() {
        const Function& tensor = m_run.state.tensor;
        const NameTable names(tensor);
        const WrittenOps written(m_run.state);
        std::vector<Assembly> parts = assemble(tensor, names);
        for (size_t i = 0; i < tensor.args.size() && i < m_run.inputs.size(); ++i) {
            const std::string name(names[tensor.args[i]]);
            write(kernelOutput(name) ? name + kStartSuffix : name, m_run.inputs[i], "input", {});
        }
        for (const Op& op : tensor.ops()) {
            if (op.result == kNoId) continue;
            const std::string name(names[op.result]);
            const Producer producer = written.of(tensor, op);
            if (const TensorData* out = simOutput(tensor, op.result, name)) {
                write(name, *out, "simulator", producer);
                continue;
            }
            const Assembly& a = parts[op.result];
            if (a.covered.empty() || a.coveredCount != a.data.numel()) {
                m_skipped.push_back({{"value", "%" + name},
                                     {"op", std::string(opName(producer.op->kind))},
                                     {"line", op.loc.line},
                                     {"reason", fmt::format("tiles cover {} of its {} elements",
                                                            a.coveredCount, a.data.numel())}});
                continue;
            }
            write(name, a.data, "tile", producer);
        }
        writeKernelOutputs(tensor, names);
        writeManifest();
    }

private:
    /// The Tile interpreter's tiles put back into the Tensor-level values they cover.
    std::vector<Assembly> assemble(const Function& tensor, const NameTable& tensorNames) {
        std::vector<Assembly> parts(tensor.valueCount());
        const Function& tile = m_run.state.tileLevelFunction();
        const EvalResult ev = evaluateTile(tile, m_run.inputs, true);
        const NameTable tileNames(tile);
        if (m_o.tiles) fs::create_directories(m_o.dir / "tiles");
        for (const Op& op : tile.ops()) {
            if (op.result == kNoId) continue;
            const Value& v = tile.value(op.result);
            if (!v.type.isTile() || v.origin == kNoId || v.origin >= tensor.valueCount() ||
                op.result >= ev.values.size())
                continue;
            Assembly& a = parts[v.origin];
            if (a.covered.empty()) {
                const Type& t = tensor.type(v.origin);
                a.data = TensorData(t.dtype, t.shape); // zeros
                a.covered.assign(size_t(t.shape.numel()), false);
            }
            const TensorData& got = ev.values[op.result];
            if (place(a, got, v.offset) && m_o.tiles) writeTile(tileNames, tensorNames, op, got, v);
        }
        return parts;
    }

    /// A Tile-level kernel returns nothing: what it computed is what it stored into its
    /// arguments, the run's outputs named after them.
    const TensorData* kernelOutput(const std::string& name) const {
        if (!m_run.state.tensor.results.empty()) return nullptr;
        for (const auto& [n, t] : m_run.sim.outputs)
            if (n == name) return &t;
        return nullptr;
    }

    /// The final contents of a kernel's written arguments (stage "simulator"), labelled with
    /// the loosest tolerance of what is stored into them (validate/ProducedTolerance.h).
    void writeKernelOutputs(const Function& kernel, const NameTable& names) {
        for (ValueId arg : kernel.args) {
            const std::string name(names[arg]);
            const TensorData* out = kernelOutput(name);
            if (!out) continue;
            const ProducedTolerance t = storedTolerance(kernel, arg);
            writeLabelled(name, *out, "simulator",
                          Label{t.op.empty() ? "tstore" : t.op, t.loc, t.k});
        }
    }

    const TensorData* simOutput(const Function& tensor, ValueId v, const std::string& name) {
        bool result = false;
        for (ValueId r : tensor.results) result |= r == v;
        if (!result) return nullptr;
        for (const auto& [n, t] : m_run.sim.outputs)
            if (n == name) return &t;
        return nullptr;
    }

    void write(const std::string& name, const TensorData& data, const char* stage,
               const Producer& producer) {
        if (const Op* op = producer.op)
            writeLabelled(name, data, stage,
                          Label{std::string(opName(op->kind)), op->loc,
                                accumulationLength(*producer.fn, *op)});
        else
            writeLabelled(name, data, stage, std::nullopt);
    }

    /// One value's file and manifest entry; without a label it is an argument (op "arg").
    void writeLabelled(const std::string& name, const TensorData& data, const char* stage,
                       const std::optional<Label>& label) {
        const std::string file = fileName(m_values.size(), name);
        writeTensor(m_o.dir / file, data);
        nlohmann::json e = {{"value", "%" + name},
                            {"file", file},
                            {"dtype", std::string(dtypeName(data.dtype))},
                            {"shape", dimsOf(data.shape)},
                            {"stage", stage}};
        if (label) {
            e["op"] = label->op;
            e["line"] = label->loc.line;
            e["col"] = label->loc.col;
            e["reduction_length"] = label->k;
        } else {
            e["op"] = "arg";
        }
        m_values.push_back(e);
    }

    void writeTile(const NameTable& names, const NameTable& tensorNames, const Op& op,
                   const TensorData& data, const Value& v) {
        const std::string name(names[op.result]);
        const std::string file = "tiles/" + fileName(m_tiles.size(), name);
        writeTensor(m_o.dir / file, data);
        m_tiles.push_back({{"value", "%" + name},
                           {"file", file},
                           {"op", std::string(opName(op.kind))},
                           {"line", op.loc.line},
                           {"col", op.loc.col},
                           {"dtype", std::string(dtypeName(data.dtype))},
                           {"shape", dimsOf(data.shape)},
                           {"space", std::string(memSpaceName(v.type.space))},
                           {"tile_of", "%" + std::string(tensorNames[v.origin])},
                           {"offset", dimsOf(v.offset)},
                           {"stage", "tile"}});
    }

    void writeManifest() {
        nlohmann::json m = {{"format", "pto-dump"},
                            {"version", 1},
                            {"program", m_run.state.file},
                            {"entry", m_run.state.tensor.name},
                            {"values", m_values}};
        if (!m_skipped.empty()) m["skipped"] = m_skipped;
        if (m_o.tiles) m["tiles"] = m_tiles;
        const fs::path target = m_o.dir / "manifest.json";
        AtomicFile file = AtomicFile::createEmpty(target, "dump manifest");
        {
            std::ofstream out(file.tempPath());
            out << jsonText(m, 2) << "\n";
            if (!out) throw FileWriteError("dump manifest", target, "cannot write");
        }
        file.commit();
    }

    const RunResult& m_run;
    const DumpOptions& m_o;
    nlohmann::json m_values = nlohmann::json::array();
    nlohmann::json m_skipped = nlohmann::json::array();
    nlohmann::json m_tiles = nlohmann::json::array();
};

} // namespace

void dumpRunValues(const RunResult& run, const DumpOptions& options) {
    createOutputDirectory("--dump", options.dir);
    Dumper(run, options).dump();
}

} // namespace pto
