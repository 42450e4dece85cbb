// Message building of SimFault: every known part of the fault site, in a fixed order.
#include "simulator/numerics/SimFault.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

namespace pto {
namespace {

std::string coreText(const FaultSite& site) {
    std::string text;
    if (site.coreType != CoreType::None) {
        text = std::string(coreDisplayName(site.coreType));
        if (site.core >= 0) text += fmt::format(" {}", site.core);
    } else if (site.core >= 0) {
        text = fmt::format("core {}", site.core);
    }
    return text;
}

std::string locText(const FaultSite& site) {
    if (!site.loc.known()) return site.file;
    const std::string pos = site.loc.col ? fmt::format("{}:{}", site.loc.line, site.loc.col)
                                         : fmt::format("{}", site.loc.line);
    return site.file.empty() ? "line " + pos : site.file + ":" + pos;
}

// "(kernel 0 instr 12, cycle 5120, from tile op #41, file:7:3)" or "" when nothing is known.
std::string contextText(const FaultSite& site) {
    std::vector<std::string> parts;
    std::string instr;
    if (site.kernel >= 0) instr = fmt::format("kernel {}", site.kernel);
    if (site.instrIndex >= 0)
        instr += fmt::format("{}instr {}", instr.empty() ? "" : " ", site.instrIndex);
    if (!instr.empty()) parts.push_back(std::move(instr));
    if (site.cycle >= 0) parts.push_back(fmt::format("cycle {}", site.cycle));
    if (site.tileOp != kNoId) parts.push_back(fmt::format("from tile op #{}", site.tileOp));
    if (std::string loc = locText(site); !loc.empty()) parts.push_back(std::move(loc));
    if (parts.empty()) return {};
    std::string text = "(";
    for (size_t i = 0; i < parts.size(); ++i) text += (i ? ", " : "") + parts[i];
    return text + ")";
}

} // namespace

std::string_view faultKindName(FaultKind kind) {
    constexpr std::string_view kNames[] = {"out-of-bounds", "uninitialized read", "deadlock",
                                           "bad instruction", "overlap"};
    return kNames[static_cast<int>(kind)];
}

std::string SimFault::format(FaultKind kind, const FaultSite& site, const std::string& detail) {
    std::string text(faultKindName(kind));
    if (site.opcode) text += fmt::format(" {}", opcodeName(*site.opcode));
    if (std::string core = coreText(site); !core.empty()) text += " on " + core;
    if (site.pipe) text += fmt::format(" pipe {}", pipeName(*site.pipe));
    if (std::string context = contextText(site); !context.empty()) text += " " + context;
    return text + ": " + detail;
}

SimFault::SimFault(FaultKind kind, FaultSite site, std::string detail)
    : std::runtime_error(format(kind, site, detail)), m_kind(kind), m_site(std::move(site)),
      m_detail(std::move(detail)), m_message(std::runtime_error::what()) {}

void SimFault::setCycle(int64_t cycle) {
    m_site.cycle = cycle;
    m_message = format(m_kind, m_site, m_detail);
}

void SimFault::setCore(CoreType type, int core) {
    m_site.coreType = type;
    m_site.core = core;
    m_message = format(m_kind, m_site, m_detail);
}

void SimFault::setPipe(Pipe pipe) {
    m_site.pipe = pipe;
    m_message = format(m_kind, m_site, m_detail);
}

void SimFault::setInstr(int64_t kernel, int64_t instrIndex) {
    m_site.kernel = kernel;
    m_site.instrIndex = instrIndex;
    m_message = format(m_kind, m_site, m_detail);
}

void SimFault::setFile(std::string file) {
    m_site.file = std::move(file);
    m_message = format(m_kind, m_site, m_detail);
}

} // namespace pto
