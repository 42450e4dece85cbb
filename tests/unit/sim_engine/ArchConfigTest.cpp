// Tests of the arch config: defaults, the file format and its errors (with line numbers),
// dump/load round trip, what-if overrides and the TargetInfo for the compiler.
#include "simulator/arch/ArchConfig.h"
#include "simulator/arch/OpcodeClass.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace pto::sim {
namespace {

// The ArchError thrown by parsing `text`, or a failure.
ArchError parseError(const std::string& text) {
    try {
        parseArch(text, "chip.arch");
    } catch (const ArchError& e) {
        return e;
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return ArchError("", 0, "");
}

TEST(ArchConfig, DefaultIs910BLike) {
    const ArchConfig arch;
    EXPECT_EQ(arch.name(), "910B-like");
    EXPECT_EQ(arch.count(Param::AicCount), 24);
    EXPECT_EQ(arch.count(Param::AivCount), 48);
    EXPECT_DOUBLE_EQ(arch.clockHz(), 1.8e9);
    EXPECT_EQ(arch.bytes(Param::L1Size), 512 * 1024);
    EXPECT_EQ(arch.bytes(Param::UbSize), 192 * 1024);
    EXPECT_EQ(arch.bytes(Param::L2Size), 192LL * 1024 * 1024);
    // 1.6 TB/s at 1.8 GHz.
    EXPECT_NEAR(arch.bytesPerCycle(Param::HbmBandwidth), 1.6e12 / 1.8e9, 1e-9);
    EXPECT_DOUBLE_EQ(arch.cycles(Param::SchedDispatchCost), 1800.0); // 1 us
    EXPECT_DOUBLE_EQ(arch.cost(Opcode::TMatmul, CostPart::Startup), 6);
    EXPECT_DOUBLE_EQ(arch.cost(Opcode::TAdd, CostPart::Slope), 2);
    EXPECT_NO_THROW(validateArch(arch));
}

TEST(ArchConfig, EveryParameterHasHelpAndSource) {
    for (const ParamSpec& spec : ParamTable::get().specs()) {
        EXPECT_FALSE(spec.help.empty()) << spec.key;
        EXPECT_FALSE(spec.source.empty()) << spec.key;
        EXPECT_TRUE(ParamTable::get().find(spec.key).has_value()) << spec.key;
    }
}

TEST(ArchConfig, EveryComputeAndSyncOpcodeHasCosts) {
    const ParamTable& table = ParamTable::get();
    for (int i = 0; i < kOpcodeCount; ++i) {
        const auto op = static_cast<Opcode>(i);
        const OpcodeClass cls = opcodeClass(op);
        EXPECT_EQ(table.costIndex(op, CostPart::Startup).has_value(), cls != OpcodeClass::Dma)
            << opcodeName(op);
        EXPECT_EQ(table.costIndex(op, CostPart::Slope).has_value(),
                  cls == OpcodeClass::Cube || cls == OpcodeClass::Vector)
            << opcodeName(op);
    }
    EXPECT_TRUE(table.find("cost.tmatmul.slope").has_value());
    EXPECT_TRUE(table.find("cost.set_flag.startup").has_value());
    EXPECT_FALSE(table.find("cost.tload.startup").has_value());
}

TEST(ArchConfig, ParsesValuesUnitsAndComments) {
    const ArchConfig arch = parseArch("# a chip\n"
                                      "name = fast\n"
                                      "hbm.bandwidth = 3.2 TB/s   # doubled\n"
                                      "clock.freq=1000 MHz\n"
                                      "\n"
                                      "mem.ub.size = 256 KiB\n"
                                      "dma.gm_to_ub.rate = 64 B/cycle\n"
                                      "hbm.latency = 100 ns\n"
                                      "core.aiv_count = 8\n",
                                      "chip.arch");
    EXPECT_EQ(arch.name(), "fast");
    EXPECT_DOUBLE_EQ(arch.clockHz(), 1e9);
    EXPECT_DOUBLE_EQ(arch.bytesPerCycle(Param::HbmBandwidth), 3200.0); // 3.2e12 / 1e9
    EXPECT_EQ(arch.bytes(Param::UbSize), 256 * 1024);
    EXPECT_DOUBLE_EQ(arch.bytesPerCycle(Param::DmaGmToUb), 64.0);
    EXPECT_DOUBLE_EQ(arch.cycles(Param::HbmLatency), 100.0); // 100 ns at 1 GHz
    EXPECT_EQ(arch.count(Param::AivCount), 8);
    EXPECT_EQ(arch.value(Param::HbmBandwidth), (Quantity{3.2, Unit::TBps}));
}

TEST(ArchConfig, UnknownKeySuggestsTheNearest) {
    const ArchError e = parseError("clock.freq = 1.8 GHz\nhbm.bandwith = 2 TB/s\n");
    EXPECT_EQ(e.file(), "chip.arch");
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(e.message().find("unknown key 'hbm.bandwith'"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("did you mean 'hbm.bandwidth'?"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("chip.arch:2: ", 0), 0u) << e.what();
}

TEST(ArchConfig, UnitErrors) {
    ArchError e = parseError("\n\nhbm.bandwidth = 1.6\n");
    EXPECT_EQ(e.line(), 3);
    EXPECT_NE(e.message().find("needs a rate unit (B/cycle, MB/s, GB/s, TB/s)"), std::string::npos)
        << e.what();

    e = parseError("mem.l1.size = 512 GHz\n");
    EXPECT_EQ(e.line(), 1);
    EXPECT_NE(e.message().find("takes a bytes (B, KiB, MiB, GiB), not 'GHz' (a frequency)"),
              std::string::npos)
        << e.what();

    e = parseError("hbm.bandwidth = 2 TiB/s\n");
    EXPECT_NE(e.message().find("unknown unit 'TiB/s'"), std::string::npos) << e.what();

    e = parseError("core.aic_count = 24 cores\n");
    EXPECT_NE(e.message().find("unknown unit 'cores'"), std::string::npos) << e.what();

    e = parseError("core.aic_count = 24 KiB\n");
    EXPECT_NE(e.message().find("takes no unit"), std::string::npos) << e.what();

    e = parseError("hbm.bandwidth = fast\n");
    EXPECT_NE(e.message().find("expected a number"), std::string::npos) << e.what();
}

TEST(ArchConfig, ImpossibleValues) {
    ArchError e = parseError("core.aic_count = 0\n");
    EXPECT_EQ(e.line(), 1);
    EXPECT_NE(e.message().find("must be > 0"), std::string::npos) << e.what();

    e = parseError("core.aiv_count = 2.5\n");
    EXPECT_NE(e.message().find("whole number"), std::string::npos) << e.what();

    e = parseError("dma.misaligned_efficiency = 1.5\n");
    EXPECT_NE(e.message().find("in (0, 1]"), std::string::npos) << e.what();

    e = parseError("hbm.latency = -3 cycles\n");
    EXPECT_NE(e.message().find(">= 0"), std::string::npos) << e.what();

    e = parseError("# L0A cannot be larger than L1\nmem.l0a.size = 1 MiB\n");
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(e.message().find("mem.l0a.size = 1 MiB is larger than mem.l1.size = 512 KiB"),
              std::string::npos)
        << e.what();

    e = parseError("mem.l1.size = 2048 MiB\nmem.ub.size = 2 GiB\n");
    EXPECT_EQ(e.line(), 1);
    EXPECT_NE(e.message().find("impossible for an on-chip buffer (max 1 GiB)"), std::string::npos)
        << e.what();

    // 2^63 bytes and more wrapped to a negative size in the simulator ("exceeds hbm.size
    // -9223372036854775808 bytes").
    e = parseError("hbm.size = 9000000000 GiB\n");
    EXPECT_EQ(e.line(), 1);
    EXPECT_NE(e.message().find("hbm.size = 9000000000 GiB is above 1 PiB (1048576 GiB)"),
              std::string::npos)
        << e.what();

    e = parseError("mem.ub.reserved = 192 KiB\n");
    EXPECT_NE(e.message().find("leaves nothing of mem.ub.size"), std::string::npos) << e.what();

    e = parseError("mem.gm_align = 500 B\n");
    EXPECT_NE(e.message().find("power of two"), std::string::npos) << e.what();
}

TEST(ArchConfig, DuplicateKeysAndBadLines) {
    ArchError e = parseError("clock.freq = 1.8 GHz\n\nclock.freq = 1.85 GHz\n");
    EXPECT_EQ(e.line(), 3);
    EXPECT_NE(e.message().find("duplicate key 'clock.freq' (first set on line 1)"),
              std::string::npos)
        << e.what();

    e = parseError("clock.freq 1.8 GHz\n");
    EXPECT_NE(e.message().find("expected 'key = value [unit]'"), std::string::npos) << e.what();
}

TEST(ArchConfig, DumpLoadsBackIdentically) {
    ArchConfig arch = parseArch("name = what-if\nhbm.bandwidth = 3.2 TB/s\nclock.freq = 1850 MHz\n"
                                "hbm.latency = 0.3 us\ncost.tadd.slope = 2.5 cycles\n");
    const std::string text = dumpArch(arch);
    EXPECT_NE(text.find("hbm.bandwidth = 3.2 TB/s"), std::string::npos);
    EXPECT_NE(text.find("# HBM bandwidth shared by all GM transfers"), std::string::npos);
    EXPECT_NE(text.find("(assumption)"), std::string::npos);
    const ArchConfig back = parseArch(text, "dump");
    EXPECT_EQ(back, arch);
    EXPECT_EQ(dumpArch(back), text);
    // And the default.
    EXPECT_EQ(parseArch(dumpArch(ArchConfig())), ArchConfig());
}

TEST(ArchConfig, LoadFileNamesTheConfigAfterItsStem) {
    const auto path = std::filesystem::temp_directory_path() / "pto_sim_test_mychip.arch";
    {
        std::ofstream out(path);
        out << "hbm.bandwidth = 2 TB/s\n";
    }
    const ArchConfig arch = loadArch(path);
    EXPECT_EQ(arch.name(), "pto_sim_test_mychip");
    EXPECT_DOUBLE_EQ(arch.value(Param::HbmBandwidth).value, 2.0);
    std::filesystem::remove(path);
    EXPECT_THROW(loadArch(path), ArchError);
}

TEST(ArchConfig, Overrides) {
    ArchConfig arch;
    applyOverride(arch, "hbm.bandwidth=2x");
    EXPECT_EQ(arch.value(Param::HbmBandwidth), (Quantity{3.2, Unit::TBps}));
    applyOverride(arch, "hbm.bandwidth = 1000 GB/s");
    EXPECT_EQ(arch.value(Param::HbmBandwidth), (Quantity{1000, Unit::GBps}));
    applyOverride(arch, "core.aiv_count=0.5x");
    EXPECT_EQ(arch.count(Param::AivCount), 24);
    EXPECT_THROW(applyOverride(arch, "core.aiv_count=0.3x"), ArchError); // 7.2 cores
    EXPECT_THROW(applyOverride(arch, "hbm.bandwith=2x"), ArchError);
    EXPECT_THROW(applyOverride(arch, "mem.l0a.size=16x"), ArchError); // 1 MiB > L1
    EXPECT_EQ(arch.bytes(Param::L0aSize), 64 * 1024);                 // unchanged on error
}

// A factor applied in binary leaves noise in the last digit (1.6 TB/s × 1.1 is
// 1.7600000000000002 in doubles): what `pto arch --set`, whatif and calibrate's arch files
// print is the decimal product.
TEST(ArchConfig, FactorOverridesPrintTheDecimalProduct) {
    ArchConfig arch;
    applyOverride(arch, "hbm.bandwidth=1.1x");
    EXPECT_EQ(arch.value(Param::HbmBandwidth), (Quantity{1.76, Unit::TBps}));
    EXPECT_NE(dumpArch(arch).find("hbm.bandwidth = 1.76 TB/s\n"), std::string::npos);
}

TEST(ArchConfig, TargetInfoForTheCompiler) {
    const TargetInfo t = toTargetInfo(parseArch("mem.ub.size = 256 KiB\ncore.aic_count = 20\n"));
    EXPECT_EQ(t.aicCores, 20);
    EXPECT_EQ(t.aivCores, 48);
    EXPECT_EQ(t.ubBytes, 256 * 1024 - 8 * 1024);
    EXPECT_EQ(t.l0cBytes, 128 * 1024);
    EXPECT_EQ(t.gmAlign, 512);
    EXPECT_EQ(toTargetInfo(ArchConfig()).ubBytes, TargetInfo().ubBytes);
}

} // namespace
} // namespace pto::sim
