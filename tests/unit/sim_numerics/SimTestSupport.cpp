// Helpers of the functional-simulator tests (see SimTestSupport.h).
#include <gtest/gtest.h>

#include "tests/unit/sim_numerics/SimTestSupport.h"

#include "tests/support/Process.h"

#include <atomic>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace pto::simtest {
namespace fs = std::filesystem;

namespace {

constexpr const char* kPython = "/usr/bin/python3";

using test::TempDir;

void writeFile(const std::string& path, const TensorData& t) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(t.data()), std::streamsize(t.byteSize()));
}

nlohmann::json tensorSpec(const std::string& file, DType dtype, const Shape& shape) {
    return {{"file", file},
            {"dtype", std::string(dtypeName(dtype))},
            {"shape", std::vector<int64_t>(shape.begin(), shape.end())}};
}

bool isNan(const TensorData& t, int64_t i) {
    return std::isnan(t.get(i));
}

// An integer that grows by one per representable value (+0 and -0 equal).
int64_t orderedBits(const TensorData& t, int64_t i) {
    const std::byte* p = t.data() + i * t.elementSize();
    switch (t.dtype) {
    case DType::F32: {
        uint32_t b = 0;
        std::memcpy(&b, p, 4);
        const int64_t mag = b & 0x7FFFFFFFu;
        return (b >> 31) ? -mag : mag;
    }
    case DType::F16:
    case DType::BF16: {
        uint16_t b = 0;
        std::memcpy(&b, p, 2);
        const int64_t mag = b & 0x7FFF;
        return (b >> 15) ? -mag : mag;
    }
    default:
        return static_cast<int64_t>(t.get(i));
    }
}

::testing::AssertionResult sameLayout(const TensorData& got, const TensorData& want) {
    if (got.dtype == want.dtype && got.numel() == want.numel() &&
        got.bytes.size() == want.bytes.size())
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "got " << typeString(got) << ", want " << typeString(want);
}

} // namespace

// --- ProgramBuilder -----------------------------------------------------------------------------

ProgramBuilder::ProgramBuilder(CoreType core) {
    m_program.name = "sim_numerics_test";
    Kernel k;
    k.name = "k0";
    k.core = core;
    m_program.kernels.push_back(std::move(k));
    m_program.exec.tasks.push_back(Task{0, 0, core, "t0"});
}

size_t ProgramBuilder::addGm(const std::string& name, DType dtype, Shape shape, GmRole role) {
    GmTensor t;
    t.name = name;
    t.dtype = dtype;
    t.shape = shape;
    t.addr = m_gmEnd;
    t.role = role;
    m_gmEnd += (t.bytes() + 511) / 512 * 512;
    m_program.gm.push_back(t);
    return m_program.gm.size() - 1;
}

Operand ProgramBuilder::gmBox(size_t tensor, int64_t row0, int64_t col0, int32_t rows,
                              int32_t cols) const {
    const GmTensor& t = m_program.gm.at(tensor);
    const int64_t width = t.shape.cols();
    Operand o;
    o.space = MemSpace::GM;
    o.dtype = t.dtype;
    o.addr = t.addr + (row0 * width + col0) * dtypeSize(t.dtype);
    o.rows = rows;
    o.cols = cols;
    o.stride = width;
    return o;
}

Operand ProgramBuilder::gmAll(size_t tensor) const {
    const Shape& s = m_program.gm.at(tensor).shape;
    return gmBox(tensor, 0, 0, int32_t(s.rows()), int32_t(s.cols()));
}

Operand ProgramBuilder::alloc(MemSpace space, DType dtype, int32_t rows, int32_t cols,
                              int64_t stride) {
    Operand o;
    o.space = space;
    o.dtype = dtype;
    o.rows = rows;
    o.cols = cols;
    o.stride = stride ? stride : cols;
    int64_t& next = m_next[static_cast<int>(space)];
    o.addr = next;
    next += ((rows - 1) * o.stride + cols) * dtypeSize(dtype);
    next = (next + 31) / 32 * 32;
    return o;
}

Instr& ProgramBuilder::emit(Opcode op, Pipe pipe, std::initializer_list<Operand> operands) {
    Instr in;
    in.opcode = op;
    in.pipe = pipe;
    for (const Operand& o : operands) in.operands[in.operandCount++] = o;
    kernel().instrs.push_back(in);
    return kernel().instrs.back();
}

GlobalMemory runProgram(const PtoProgram& program, std::span<const TensorData> inputs,
                        ExecOptions options) {
    const TargetInfo target;
    GlobalMemory gm(program, inputs);
    FunctionalExecutor exec(program, target, gm, std::move(options));
    const Kernel& k = program.kernels.front();
    for (const Instr& in : k.instrs) exec.execute(0, k.core, in);
    return gm;
}

// --- Vector cases -------------------------------------------------------------------------------

TensorData runVectorCase(const VecCase& c) {
    ProgramBuilder b(CoreType::AIV);
    std::vector<Operand> tiles;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        const TensorData& t = c.inputs[i];
        const size_t g = b.addGm("in" + std::to_string(i), t.dtype, t.shape, GmRole::Input);
        const Operand tile =
            b.alloc(MemSpace::UB, t.dtype, int32_t(t.shape.rows()), int32_t(t.shape.cols()));
        b.emit(Opcode::TLoad, Pipe::MTE2, {tile, b.gmAll(g)});
        tiles.push_back(tile);
    }
    const size_t out = b.addGm("out", c.outDType, Shape{c.rows, c.cols}, GmRole::Output);
    const Operand dst = b.alloc(MemSpace::UB, c.outDType, c.rows, c.cols);
    Instr in;
    in.opcode = c.op;
    in.pipe = Pipe::V;
    in.operands[in.operandCount++] = dst;
    for (Operand t : tiles) {
        if (c.strideZeroBroadcast && t.rows == 1 && c.rows > 1) {
            t.rows = c.rows;
            t.stride = 0;
        }
        in.operands[in.operandCount++] = t;
    }
    in.scalar = c.scalar;
    in.mode = c.mode;
    b.kernel().instrs.push_back(in);
    b.emit(Opcode::TStore, Pipe::MTE3, {b.gmAll(out), dst});
    const GlobalMemory gm = runProgram(b.program(), c.inputs);
    return gm.tensor("out");
}

std::vector<TensorData> references(const std::vector<RefRequest>& requests) {
    TempDir dir;
    std::string cmd = std::string(kPython) + " " PTO_SOURCE_DIR
                                             "/tests/unit/sim_numerics/sim_numerics_reference.py";
    for (size_t r = 0; r < requests.size(); ++r) {
        const RefRequest& req = requests[r];
        const std::string prefix = "r" + std::to_string(r) + "_";
        nlohmann::json spec = req.extra.is_object() ? req.extra : nlohmann::json::object();
        spec["op"] = req.op;
        spec["inputs"] = nlohmann::json::array();
        for (size_t i = 0; i < req.inputs.size(); ++i) {
            const std::string file = dir / (prefix + "in" + std::to_string(i) + ".bin");
            writeFile(file, req.inputs[i]);
            spec["inputs"].push_back(tensorSpec(file, req.inputs[i].dtype, req.inputs[i].shape));
        }
        spec["output"] = tensorSpec(dir / (prefix + "out.bin"), req.outDType, req.outShape);
        const std::string specFile = dir / (prefix + "spec.json");
        std::ofstream(specFile) << spec.dump();
        cmd += " " + specFile;
    }
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("reference script failed: " + cmd);
    std::vector<TensorData> out;
    for (size_t r = 0; r < requests.size(); ++r) {
        const std::string file = dir / ("r" + std::to_string(r) + "_out.bin");
        TensorData want(requests[r].outDType, requests[r].outShape);
        std::ifstream in(file, std::ios::binary);
        in.read(reinterpret_cast<char*>(want.data()), std::streamsize(want.byteSize()));
        if (in.gcount() != std::streamsize(want.byteSize()))
            throw std::runtime_error("reference output " + file + " is short");
        out.push_back(std::move(want));
    }
    return out;
}

TensorData reference(const std::string& op, const std::vector<TensorData>& inputs, DType outDType,
                     Shape outShape, const nlohmann::json& extra) {
    return references({RefRequest{op, inputs, outDType, outShape, extra}}).front();
}

RefRequest request(const VecCase& c) {
    return RefRequest{std::string(opcodeName(c.op)), c.inputs, c.outDType, Shape{c.rows, c.cols},
                      nlohmann::json{{"scalar", c.scalar}, {"mode", c.mode}}};
}

TensorData reference(const VecCase& c) {
    return references({request(c)}).front();
}

// --- Comparisons --------------------------------------------------------------------------------

::testing::AssertionResult bitExact(const TensorData& got, const TensorData& want) {
    return withinUlps(got, want, 0);
}

::testing::AssertionResult withinUlps(const TensorData& got, const TensorData& want, int64_t ulps) {
    if (auto layout = sameLayout(got, want); !layout) return layout;
    const int64_t es = got.elementSize();
    int64_t bad = 0;
    std::ostringstream first;
    for (int64_t i = 0; i < got.numel(); ++i) {
        if (isNan(got, i) && isNan(want, i)) continue;
        bool ok = false;
        if (ulps == 0 || !isFloatType(got.dtype))
            ok = std::memcmp(got.data() + i * es, want.data() + i * es, size_t(es)) == 0;
        else
            ok = !isNan(got, i) && !isNan(want, i) &&
                 std::llabs(orderedBits(got, i) - orderedBits(want, i)) <= ulps;
        if (ok) continue;
        if (++bad <= 5)
            first << "\n  [" << i << "] got " << got.get(i) << " (bits " << orderedBits(got, i)
                  << "), want " << want.get(i) << " (bits " << orderedBits(want, i) << ")";
    }
    if (bad == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << bad << " of " << got.numel() << " " << typeString(got)
           << " elements differ by more than " << ulps << " ulp" << first.str();
}

} // namespace pto::simtest
