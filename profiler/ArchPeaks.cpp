// Reads the chip's peak rates from the arch config JSON stored in the trace.
#include "profiler/ArchPeaks.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>

namespace pto::prof {
namespace {

// Multipliers to the profiler's base units: bytes, bytes per cycle (rates per second are
// divided by the clock), cycles (times in seconds are multiplied by it), hertz.
struct UnitFactor {
    double factor;
    bool perSecond; // a rate per second: divide by the clock to get per cycle
    bool seconds;   // a time in seconds: multiply by the clock to get cycles
};

const std::map<std::string, UnitFactor, std::less<>>& units() {
    static const std::map<std::string, UnitFactor, std::less<>> kUnits = {
        {"", {1, false, false}},
        {"B", {1, false, false}},
        {"KiB", {1024.0, false, false}},
        {"MiB", {1024.0 * 1024, false, false}},
        {"GiB", {1024.0 * 1024 * 1024, false, false}},
        {"B/cycle", {1, false, false}},
        {"MB/s", {1e6, true, false}},
        {"GB/s", {1e9, true, false}},
        {"TB/s", {1e12, true, false}},
        {"cycles", {1, false, false}},
        {"cycle", {1, false, false}},
        {"ns", {1e-9, false, true}},
        {"us", {1e-6, false, true}},
        {"ms", {1e-3, false, true}},
        {"s", {1, false, true}},
        {"Hz", {1, false, false}},
        {"MHz", {1e6, false, false}},
        {"GHz", {1e9, false, false}},
    };
    return kUnits;
}

double param(const nlohmann::json& params, const char* key, double clockHz, double fallback) {
    auto it = params.find(key);
    if (it == params.end() || !it->is_string()) return fallback;
    double v = 0;
    return parseQuantity(it->get<std::string>(), clockHz, v) ? v : fallback;
}

} // namespace

bool parseQuantity(const std::string& text, double clockHz, double& out) {
    const char* begin = text.c_str();
    char* end = nullptr;
    double number = std::strtod(begin, &end);
    if (end == begin) return false;
    std::string unit(end);
    unit.erase(0, unit.find_first_not_of(' '));
    unit.erase(unit.find_last_not_of(' ') + 1);
    auto it = units().find(unit);
    if (it == units().end()) return false;
    double v = number * it->second.factor;
    if (it->second.perSecond) v /= clockHz;
    if (it->second.seconds) v *= clockHz;
    out = v;
    return true;
}

ArchPeaks parseArchPeaks(const std::string& archJson) {
    ArchPeaks p;
    nlohmann::json j = nlohmann::json::parse(archJson, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return p;
    if (auto n = j.find("name"); n != j.end() && n->is_string()) p.name = n->get<std::string>();
    auto it = j.find("params");
    if (it == j.end() || !it->is_object()) return p;
    const nlohmann::json& params = *it;
    p.clockHz = param(params, "clock.freq", 1.0, p.clockHz);
    const double hz = p.clockHz;
    p.aicCores = int(param(params, "core.aic_count", hz, p.aicCores));
    p.aivCores = int(param(params, "core.aiv_count", hz, p.aivCores));
    double m0 = param(params, "cube.m0", hz, 16), k0 = param(params, "cube.k0", hz, 16),
           n0 = param(params, "cube.n0", hz, 16);
    p.cubeFlopsPerCycle = 2 * m0 * k0 * n0;
    p.vectorFlopsPerCycle = param(params, "vector.bytes_per_repeat", hz, 256) / 2;
    double hbm = param(params, "hbm.bandwidth", hz, 1.6e12 / hz);
    double l2 = param(params, "l2.bandwidth", hz, 5e12 / hz);
    // Until the run's measured L2 traffic says otherwise (applyMeasuredTraffic), every GM byte
    // is assumed to come from HBM.
    p.gmBytesPerCycle = std::min(l2, hbm);
    p.gmToUbRate = param(params, "dma.gm_to_ub.rate", hz, p.gmToUbRate);
    p.gmToL1Rate = param(params, "dma.gm_to_l1.rate", hz, p.gmToL1Rate);
    p.ubToGmRate = param(params, "dma.ub_to_gm.rate", hz, p.ubToGmRate);
    p.l0cToGmRate = param(params, "dma.l0c_to_gm.rate", hz, p.l0cToGmRate);
    p.l1ToGmRate = param(params, "dma.l1_to_gm.rate", hz, p.l1ToGmRate);
    p.l0cBytes = param(params, "mem.l0c.size", hz, p.l0cBytes);
    p.dispatchCycles = param(params, "sched.dispatch_cost", hz, 1e-6 * hz);
    p.hbmBytesPerCycle = hbm;
    p.l2BytesPerCycle = l2;
    p.l2LatencyCycles = param(params, "l2.latency", hz, 200);
    p.hbmLatencyCycles = param(params, "hbm.latency", hz, 500);
    p.gmLatencyCycles = p.gmLatencyAt(0);
    return p;
}

std::optional<MeasuredTraffic> parseMeasuredTraffic(const std::string& json) {
    nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return std::nullopt;
    auto number = [&](const char* key) {
        auto it = j.find(key);
        return it != j.end() && it->is_number() ? std::max(it->get<double>(), 0.0) : -1.0;
    };
    MeasuredTraffic t{number("l2_hit_bytes"), number("l2_miss_bytes"), number("hbm_write_bytes")};
    if (t.l2HitBytes < 0 || t.l2MissBytes < 0 || t.writeBytes < 0) return std::nullopt;
    return t;
}

void applyMeasuredTraffic(ArchPeaks& peaks, const MeasuredTraffic& traffic) {
    const double reads = traffic.l2HitBytes + traffic.l2MissBytes;
    const double gm = reads + traffic.writeBytes;
    const double hbm = traffic.l2MissBytes + traffic.writeBytes;
    if (gm <= 0) return;
    peaks.gmBytesPerCycle = hbm > 0
                                ? std::min(peaks.l2BytesPerCycle, peaks.hbmBytesPerCycle * gm / hbm)
                                : peaks.l2BytesPerCycle;
    if (reads > 0) {
        const double hit = traffic.l2HitBytes / reads;
        peaks.gmLatencyCycles = peaks.gmLatencyAt(hit);
    }
}

} // namespace pto::prof
