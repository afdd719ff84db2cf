// Configuration keys, INI files, presets and validation (platform/config_keys.h).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>

#include "platform/config_keys.h"
#include "platform/presets.h"

using namespace tlmgpu::platform;

namespace {

/// The message of the ConfigError `f` throws ("" when it throws none).
template <class F>
std::string config_error(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "tlmgpu_cfg_" + std::to_string(::getpid()) + "_" + name;
  std::ofstream(path) << text;
  return path;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

const char* const kPresetNames[] = {"gtx480", "titanx_pascal", "vortex_1sm", "gtx480_14sm", "qv100", "rtx2060", "rtx3070"};

}  // namespace

// ---------------------------------------------------------------------------
// Presets: the headline values of each paper's table.

TEST(ConfigPresets, Gtx480FromSeed000And004Tables) {
  const tlmgpu::core::GpuConfig c = preset_config("gtx480");
  EXPECT_EQ(c.preset, "gtx480");
  EXPECT_EQ(c.num_sms, 15u);
  EXPECT_EQ(c.core_clock_mhz, 700);
  EXPECT_EQ(c.sm.max_threads, 1536u);
  EXPECT_EQ(c.sm.max_warps, 48u);
  EXPECT_EQ(c.sm.max_ctas, 8u);
  EXPECT_EQ(c.sm.registers, 32768u);
  EXPECT_EQ(c.sm.shared_bytes, 48u * 1024);
  EXPECT_EQ(c.sm.num_schedulers, 2u);
  EXPECT_EQ(c.l1d.size_bytes, 16u * 1024);
  EXPECT_EQ(c.l1d.ways, 4u);
  EXPECT_FALSE(c.l1d.write_back);
  EXPECT_EQ(c.l1i.size_bytes, 2u * 1024);
  EXPECT_EQ(c.l2.size_bytes * c.l2_slices, 768u * 1024);
  EXPECT_TRUE(c.l2.write_back);
  EXPECT_EQ(c.dram.channels, 6u);
  // GPGPU-Sim's SM2_GTX480 GDDR5: 384 bits (6 x 8 bytes) at 924 MHz x 4
  // transfers = 177 GB/s; a 64-byte burst (8 transfers) takes 2 DRAM cycles.
  EXPECT_EQ(c.dram.channels * c.dram.bus_bytes, 48u);
  EXPECT_EQ(c.dram.clock_mhz, 924);
  EXPECT_EQ(c.dram.bus_bytes * c.dram.burst_length, 64u);
  EXPECT_EQ(c.dram.burst_length / c.dram.data_rate, 2u);
  EXPECT_EQ(c.dram.latency, 100u);
  EXPECT_EQ(c.dram.bank_groups, 4u);
  EXPECT_EQ(c.dram.tCCD, 2u);
  EXPECT_EQ(c.dram.tCCDL, 3u);
  EXPECT_EQ(c.dram.queue_depth, 64u);
  EXPECT_EQ(c.dram.banks, 16u);
  EXPECT_EQ(c.dram.tRCD, 12u);
  EXPECT_EQ(c.dram.tRP, 12u);
  EXPECT_EQ(c.dram.tCL, 12u);
  EXPECT_EQ(c.dram.tRAS, 28u);
  EXPECT_EQ(c.scheduler, "lrr");
}

TEST(ConfigPresets, TitanXPascalFromSeed002Table) {
  const tlmgpu::core::GpuConfig c = preset_config("titanx_pascal");
  EXPECT_EQ(c.preset, "titanx_pascal");
  EXPECT_EQ(c.num_sms, 28u);
  EXPECT_EQ(c.core_clock_mhz, 1417);
  EXPECT_EQ(c.sm.max_ctas, 32u);
  EXPECT_EQ(c.sm.max_threads, 2048u);
  EXPECT_EQ(c.sm.max_warps, 64u);
  EXPECT_EQ(c.sm.registers, 65536u);
  EXPECT_EQ(c.sm.num_schedulers, 4u);
  EXPECT_EQ(c.l1d.size_bytes, 24u * 1024);
  EXPECT_EQ(c.l1d.ways, 48u);
  EXPECT_EQ(c.l1i.size_bytes, 4u * 1024);
  EXPECT_EQ(uint64_t{c.l2.size_bytes} * c.l2_slices, 3u * 1024 * 1024);
  EXPECT_EQ(c.dram.channels, 12u);
  EXPECT_EQ(c.sm.collectors_sp, 1u);
  EXPECT_TRUE(c.sm.has_dp_unit);
}

TEST(ConfigPresets, Vortex1SmFromSeed003) {
  const tlmgpu::core::GpuConfig c = preset_config("vortex_1sm");
  EXPECT_EQ(c.preset, "vortex_1sm");
  EXPECT_EQ(c.num_sms, 1u);
  EXPECT_EQ(c.sm.max_warps, 32u);
  EXPECT_EQ(c.sm.max_threads, 32u * 32);
  EXPECT_EQ(c.sm.num_schedulers, 1u);
  EXPECT_EQ(c.l1i.hit_latency, 3u);
  EXPECT_EQ(c.sm.decode_latency, 1u);
  EXPECT_EQ(c.sm.ibuffer_depth, c.l1i.hit_latency + 1);  // t_F + 1
  EXPECT_EQ(c.sm.sp.latency, 4u);
  EXPECT_EQ(c.sm.sp.initiation_interval, 1u);
  EXPECT_EQ(c.sm.cvt.latency, 5u);
  EXPECT_EQ(c.sm.fp_div_sqrt.latency, 16u);
  EXPECT_EQ(c.sm.fp_div_sqrt.initiation_interval, 16u);  // not pipelined
}

TEST(ConfigPresets, DefaultConstructedConfigIsGtx480ExceptTheDram) {
  // DramConfig's defaults keep the single-clock DRAM the memory unit tests
  // were worked out with (DRAM clock = core clock, 32 B per cycle, no bank
  // groups, no fixed latency); the preset has GPGPU-Sim's GDDR5.
  const auto defaults = config_values(tlmgpu::core::GpuConfig{});
  const auto preset = config_values(preset_config("gtx480"));
  ASSERT_EQ(defaults.size(), preset.size());
  size_t dram_differs = 0;
  for (size_t i = 0; i < defaults.size(); ++i) {
    if (defaults[i].first.rfind("dram.", 0) == 0 && defaults[i].first != "dram.channels") {
      dram_differs += defaults[i] != preset[i];
      continue;
    }
    EXPECT_EQ(defaults[i], preset[i]);
  }
  EXPECT_GT(dram_differs, 10u);
  EXPECT_EQ(tlmgpu::core::GpuConfig{}.dram.clock_mhz, tlmgpu::core::GpuConfig{}.core_clock_mhz);
}

TEST(ConfigPresets, DescriptionsListThePresetsDefaultFirst) {
  const auto list = preset_descriptions();
  ASSERT_EQ(list.size(), 7u);
  EXPECT_EQ(list[0].name, "gtx480");
  EXPECT_EQ(list[1].name, "titanx_pascal");
  EXPECT_EQ(list[2].name, "vortex_1sm");
  EXPECT_EQ(list[3].name, "gtx480_14sm");
  EXPECT_EQ(list[3].base, "gtx480");
  EXPECT_EQ(list[4].name, "qv100");
  EXPECT_EQ(list[5].name, "rtx2060");
  EXPECT_EQ(list[6].name, "rtx3070");
  for (const auto& p : list) {
    EXPECT_FALSE(p.description.empty()) << p.name;
    EXPECT_FALSE(contains(p.description, "\n")) << p.name;
    EXPECT_EQ(preset_config(p.name).preset, p.name);
  }
  EXPECT_TRUE(contains(list[0].description, "default"));
}

TEST(ConfigPresets, EveryPresetPassesValidation) {
  for (const char* name : kPresetNames) EXPECT_NO_THROW(validate_config(preset_config(name))) << name;
}

TEST(ConfigPresets, PresetsDiffer) {
  EXPECT_NE(config_values(preset_config("gtx480")), config_values(preset_config("titanx_pascal")));
  EXPECT_NE(config_values(preset_config("gtx480")), config_values(preset_config("vortex_1sm")));
}

TEST(ConfigPresets, UnknownPresetListsThePresets) {
  const std::string e = config_error([] { preset_config("functional"); });
  EXPECT_EQ(e, "unknown preset 'functional' (presets: gtx480, titanx_pascal, vortex_1sm, gtx480_14sm, qv100, rtx2060, rtx3070)");
}

// ---------------------------------------------------------------------------
// Keys and set_config_value.

TEST(ConfigKeys, CoverEverySectionAndAreUnique) {
  const auto keys = config_keys();
  std::set<std::string> names;
  for (const auto& k : keys) {
    EXPECT_TRUE(names.insert(k.key).second) << "duplicate " << k.key;
    EXPECT_FALSE(k.description.empty()) << k.key;
    EXPECT_FALSE(k.allowed.empty()) << k.key;
  }
  for (const char* k : {"gpu.num_sms", "gpu.core_clock_mhz", "gpu.scheduler", "sm.num_schedulers", "sm.sp_latency",
                        "sm.sp_ii", "sm.cvt_latency", "sm.fp_div_sqrt_ii", "sm.has_dp_unit", "l1i.size_bytes",
                        "l1d.mshr_merges", "l2.slices", "l2.interleave_bytes", "l2.write_back", "icnt.latency",
                        "icnt.bytes_per_cycle", "dram.tRCD", "dram.tRAS", "dram.channels", "dram.interleave_bytes"})
    EXPECT_EQ(names.count(k), 1u) << k;
  EXPECT_GE(keys.size(), 70u);
}

TEST(ConfigKeys, EveryKeyChangesItsOwnField) {
  // Setting each key to another allowed value changes that key and no other,
  // so no two keys share a field and none is a no-op.
  const tlmgpu::core::GpuConfig base = preset_config("gtx480");
  const auto before = config_values(base);
  for (size_t i = 0; i < before.size(); ++i) {
    const auto& [key, value] = before[i];
    tlmgpu::core::GpuConfig c = base;
    std::string other;
    if (value == "true" || value == "false")
      other = value == "true" ? "false" : "true";
    else if (key == "gpu.scheduler")
      other = "gto";
    else if (key == "gpu.divergence")
      other = "its";
    else if (key == "sm.shared_carveouts_kb")
      other = "0,16,48";
    else if (key == "sm.fetch_policy")
      other = "gtlo";
    else if (key == "soc.memory")
      other = "soc";
    else if (key == "gpu.core_clock_mhz" || key == "dram.clock_mhz")
      other = "701.5";
    else if (key == "dram.address_mapping")
      other = "RRRR.BBBBCCCC.CCCCCCCC";
    else {
      const unsigned long v = std::stoul(value);
      const bool pow2 = contains(config_keys()[i].allowed, "power of two");
      other = std::to_string(pow2 ? (v > 32 ? v / 2 : v * 2) : (v > 1 ? v - 1 : v + 1));
    }
    ASSERT_NO_THROW(set_config_value(c, key, other)) << key << " = " << other;
    const auto after = config_values(c);
    for (size_t j = 0; j < after.size(); ++j) {
      if (j == i)
        EXPECT_EQ(after[j].second, other) << key;
      else
        EXPECT_EQ(after[j].second, before[j].second) << "setting " << key << " changed " << after[j].first;
    }
  }
}

TEST(ConfigSet, SetsValuesOfEveryType) {
  tlmgpu::core::GpuConfig c;
  set_config_value(c, "sm.num_schedulers", "4");
  set_config_value(c, "gpu.core_clock_mhz", "1417.5");
  set_config_value(c, "sm.has_dp_unit", "true");
  set_config_value(c, "l2.write_back", "off");
  set_config_value(c, "gpu.scheduler", "two_level:group=8");
  set_config_value(c, "sm.fetch_policy", "gtlrr");
  set_config_value(c, "sm.fp_div_sqrt_latency", "16");
  set_config_value(c, "sm.fp_div_sqrt_ii", " 16 ");
  set_config_value(c, "l1d.size_bytes", "32K");
  set_config_value(c, "l2.size_bytes", "1MiB");
  set_config_value(c, "dram.tRCD", "14");
  set_config_value(c, "l2.slices", "12");
  EXPECT_EQ(c.sm.num_schedulers, 4u);
  EXPECT_EQ(c.core_clock_mhz, 1417.5);
  EXPECT_TRUE(c.sm.has_dp_unit);
  EXPECT_FALSE(c.l2.write_back);
  EXPECT_EQ(c.scheduler, "two_level:group=8");
  EXPECT_EQ(c.sm.fetch_policy, "gtlrr");
  EXPECT_EQ(c.sm.fp_div_sqrt.latency, 16u);
  EXPECT_EQ(c.sm.fp_div_sqrt.initiation_interval, 16u);
  EXPECT_EQ(c.l1d.size_bytes, 32u * 1024);
  EXPECT_EQ(c.l2.size_bytes, 1024u * 1024);
  EXPECT_EQ(c.dram.tRCD, 14u);
  EXPECT_EQ(c.l2_slices, 12u);
  EXPECT_EQ(get_config_value(c, "gpu.core_clock_mhz"), "1417.5");
  EXPECT_EQ(get_config_value(c, "l1d.size_bytes"), "32768");
}

TEST(ConfigSet, UnknownKeySuggestsTheNearestKey) {
  tlmgpu::core::GpuConfig c;
  EXPECT_EQ(config_error([&] { set_config_value(c, "sm.num_schedulerz", "2"); }),
            "unknown configuration key 'sm.num_schedulerz' (did you mean 'sm.num_schedulers'?)");
  EXPECT_EQ(config_error([&] { set_config_value(c, "num_schedulers", "2"); }),
            "unknown configuration key 'num_schedulers' (did you mean 'sm.num_schedulers'?)");
  EXPECT_EQ(config_error([&] { set_config_value(c, "dram.trcd", "2"); }),
            "unknown configuration key 'dram.trcd' (did you mean 'dram.tRCD'?)");
  EXPECT_EQ(config_error([&] { set_config_value(c, "size_bytes", "2"); }),
            "unknown configuration key 'size_bytes' (did you mean 'l1i.size_bytes', 'l1d.size_bytes', "
            "'tex.size_bytes' or 'l2.size_bytes'?)");
  const std::string far = config_error([&] { set_config_value(c, "video.encoder", "1"); });
  EXPECT_TRUE(contains(far, "unknown configuration key 'video.encoder'")) << far;
  EXPECT_FALSE(contains(far, "did you mean")) << far;
  EXPECT_TRUE(contains(far, "gpu sm l1i l1d tex l2 icnt dram")) << far;
}

TEST(ConfigSet, OutOfRangeNamesKeyAndAllowedRange) {
  tlmgpu::core::GpuConfig c;
  EXPECT_EQ(config_error([&] { set_config_value(c, "sm.num_schedulers", "0"); }),
            "sm.num_schedulers = 0 is out of range (allowed: 1..8)");
  EXPECT_EQ(config_error([&] { set_config_value(c, "sm.num_schedulers", "9"); }),
            "sm.num_schedulers = 9 is out of range (allowed: 1..8)");
  EXPECT_EQ(config_error([&] { set_config_value(c, "dram.tRCD", "0"); }),
            "dram.tRCD = 0 is out of range (allowed: 1..1000 DRAM cycles)");
  EXPECT_EQ(config_error([&] { set_config_value(c, "dram.address_mapping", "RRRR.BBBB.CCCX"); }),
            "dram.address_mapping = 'RRRR.BBBB.CCCX': unexpected character 'X' (allowed: R B C S 0 . |)");
  EXPECT_EQ(config_error([&] { set_config_value(c, "dram.address_mapping", "RRRR.B0BB.CCCC"); }),
            "dram.address_mapping = 'RRRR.B0BB.CCCC': '0' (an unused bit) may only lead the pattern");
  EXPECT_EQ(config_error([&] { set_config_value(c, "gpu.core_clock_mhz", "0.5"); }),
            "gpu.core_clock_mhz = 0.5 is out of range (allowed: 1..100000 MHz)");
  EXPECT_TRUE(contains(config_error([&] { set_config_value(c, "gpu.num_sms", "99999999999"); }),
                       "gpu.num_sms = 99999999999 is out of range"));
  // The SM's limit, not a larger one it would then refuse with an exception.
  EXPECT_EQ(config_error([&] { set_config_value(c, "sm.max_warps", "65"); }),
            "sm.max_warps = 65 is out of range (allowed: 1..64)");
}

TEST(ConfigSet, PowerOfTwoKeys) {
  tlmgpu::core::GpuConfig c;
  EXPECT_EQ(config_error([&] { set_config_value(c, "l1d.line_bytes", "100"); }),
            "l1d.line_bytes = 100: must be a power of two between 32 and 1024");
  EXPECT_EQ(config_error([&] { set_config_value(c, "l1d.line_bytes", "2048"); }),
            "l1d.line_bytes = 2048: must be a power of two between 32 and 1024");
  EXPECT_NO_THROW(set_config_value(c, "l1d.line_bytes", "64"));
  EXPECT_EQ(c.l1d.line_bytes, 64u);
}

TEST(ConfigSet, WrongTypeNamesKeyAndExpectedType) {
  tlmgpu::core::GpuConfig c;
  EXPECT_EQ(config_error([&] { set_config_value(c, "sm.num_schedulers", "two"); }),
            "sm.num_schedulers = 'two': expected an unsigned integer (allowed: 1..8)");
  EXPECT_EQ(config_error([&] { set_config_value(c, "sm.num_schedulers", "-1"); }),
            "sm.num_schedulers = '-1': expected an unsigned integer (allowed: 1..8)");
  EXPECT_EQ(config_error([&] { set_config_value(c, "sm.num_schedulers", "2K"); }),
            "sm.num_schedulers = '2K': expected an unsigned integer (allowed: 1..8)");
  EXPECT_EQ(config_error([&] { set_config_value(c, "sm.num_schedulers", ""); }),
            "sm.num_schedulers = '': expected an unsigned integer (allowed: 1..8)");
  EXPECT_EQ(config_error([&] { set_config_value(c, "sm.has_dp_unit", "maybe"); }),
            "sm.has_dp_unit = 'maybe': expected true or false");
  EXPECT_EQ(config_error([&] { set_config_value(c, "gpu.core_clock_mhz", "fast"); }),
            "gpu.core_clock_mhz = 'fast': expected a number (allowed: 1..100000)");
  EXPECT_TRUE(contains(config_error([&] { set_config_value(c, "l1d.size_bytes", "16Q"); }),
                       "l1d.size_bytes = '16Q': expected an unsigned integer (optionally with K or M)"));
}

TEST(ConfigSet, BadEnumStringListsAllowedValues) {
  tlmgpu::core::GpuConfig c;
  EXPECT_EQ(config_error([&] { set_config_value(c, "sm.fetch_policy", "fifo"); }),
            "sm.fetch_policy = 'fifo' is not allowed (allowed: lrr, gtlrr, gtlo)");
  // gpu.scheduler: names and syntax from the scheduler registry.
  const std::string unknown = config_error([&] { set_config_value(c, "gpu.scheduler", "fifo"); });
  EXPECT_EQ(unknown.rfind("gpu.scheduler = 'fifo': unknown policy 'fifo' (allowed: ", 0), 0u) << unknown;
  for (const char* name : {"srr", "lrr", "gto", "gtlrr", "oldest", "two_level", "gty"})
    EXPECT_TRUE(contains(unknown, std::string(" ") + name + ",") || contains(unknown, std::string(" ") + name + ";"))
        << name << " in " << unknown;
  for (const char* bad : {"", "two level", "two_level:", "two_level:group", "two_level:=8", "Gto"})
    EXPECT_TRUE(contains(config_error([&] { set_config_value(c, "gpu.scheduler", bad); }),
                         "gpu.scheduler: scheduler spec"))
        << bad;
  EXPECT_NO_THROW(set_config_value(c, "gpu.scheduler", "lrr:probe=4"));
  EXPECT_EQ(c.scheduler, "lrr:probe=4");
}

TEST(ConfigSet, BadValueLeavesTheConfigUnchanged) {
  tlmgpu::core::GpuConfig c;
  const auto before = config_values(c);
  EXPECT_THROW(set_config_value(c, "sm.num_schedulers", "0"), ConfigError);
  EXPECT_THROW(set_config_value(c, "l1d.line_bytes", "100"), ConfigError);
  EXPECT_THROW(set_config_value(c, "sm.fetch_policy", "fifo"), ConfigError);
  EXPECT_EQ(config_values(c), before);
}

TEST(ConfigSet, AssignmentsAsGivenToSet) {
  tlmgpu::core::GpuConfig c;
  apply_config_assignment(c, "sm.num_schedulers=4");
  apply_config_assignment(c, "gpu.scheduler = two_level:group=8");
  EXPECT_EQ(c.sm.num_schedulers, 4u);
  EXPECT_EQ(c.scheduler, "two_level:group=8");
  EXPECT_EQ(config_error([&] { apply_config_assignment(c, "sm.num_schedulers"); }),
            "expected key=value (e.g. sm.num_schedulers=4), got 'sm.num_schedulers'");
}

TEST(ConfigSet, GetUnknownKeyIsAnError) {
  EXPECT_TRUE(contains(config_error([] { get_config_value(tlmgpu::core::GpuConfig{}, "sm.warps"); }),
                       "unknown configuration key 'sm.warps'"));
}

// ---------------------------------------------------------------------------
// INI files.

TEST(ConfigIni, LoadsSectionsKeysAndComments) {
  tlmgpu::core::GpuConfig c;
  load_config_text(c,
                   "# a comment\n"
                   "[gpu]\n"
                   "num_sms = 4   # trailing comment\n"
                   "scheduler = gto\n"
                   "\n"
                   "[sm]\n"
                   "num_schedulers = 4\n"
                   "sp_latency=6\n"
                   "[dram]\n"
                   "  tRCD =  14  \n",
                   "test.ini");
  EXPECT_EQ(c.num_sms, 4u);
  EXPECT_EQ(c.scheduler, "gto");
  EXPECT_EQ(c.sm.num_schedulers, 4u);
  EXPECT_EQ(c.sm.sp.latency, 6u);
  EXPECT_EQ(c.dram.tRCD, 14u);
}

TEST(ConfigIni, UnknownKeyNamesFileAndLine) {
  tlmgpu::core::GpuConfig c;
  EXPECT_EQ(config_error([&] { load_config_text(c, "[gpu]\nnum_sms = 2\n\n[sm]\nnum_schedulerz = 2\n", "a.ini"); }),
            "a.ini:5: unknown configuration key 'sm.num_schedulerz' (did you mean 'sm.num_schedulers'?)");
}

TEST(ConfigIni, BadValueNamesFileAndLine) {
  tlmgpu::core::GpuConfig c;
  EXPECT_EQ(config_error([&] { load_config_text(c, "# x\n[sm]\nnum_schedulers = 0\n", "b.ini"); }),
            "b.ini:3: sm.num_schedulers = 0 is out of range (allowed: 1..8)");
}

TEST(ConfigIni, SyntaxErrorsNameFileAndLine) {
  tlmgpu::core::GpuConfig c;
  EXPECT_EQ(config_error([&] { load_config_text(c, "[sm]\nnum_schedulers = 2\nnum_schedulers 4\n", "c.ini"); }),
            "c.ini:3: expected 'key = value' or '[section]', got 'num_schedulers 4'");
  EXPECT_EQ(config_error([&] { load_config_text(c, "\n[sm\n", "d.ini"); }),
            "d.ini:2: bad section header '[sm' (expected [name], e.g. [sm])");
  EXPECT_EQ(config_error([&] { load_config_text(c, "[sm]\n = 4\n", "e.ini"); }),
            "e.ini:2: missing key before '=' in '= 4'");
  EXPECT_EQ(config_error([&] { load_config_text(c, "[smm]\nnum_schedulers = 4\n", "f.ini"); }),
            "f.ini:1: unknown section [smm] (sections: gpu, sm, l1i, l1d, tex, l2, icnt, dram, soc, lt)");
}

TEST(ConfigIni, LoadsFilesAndReportsMissingOnes) {
  tlmgpu::core::GpuConfig c;
  const std::string path = temp_file("load.ini", "[l1d]\nsize_bytes = 32K\nways = 8\n");
  load_config_file(c, path);
  EXPECT_EQ(c.l1d.size_bytes, 32u * 1024);
  EXPECT_EQ(c.l1d.ways, 8u);
  std::remove(path.c_str());
  EXPECT_EQ(config_error([&] { load_config_file(c, path); }), "cannot read configuration file '" + path + "'");
}

TEST(ConfigIni, ShippedExampleFilesEqualThePresets) {
  for (const PresetDescription& p : preset_descriptions()) {
    // A complete file is loaded onto a different preset, so every key must
    // be in it; a derived one onto its base.
    tlmgpu::core::GpuConfig c = !p.base.empty()             ? preset_config(p.base)
                  : p.name == "vortex_1sm" ? preset_config("titanx_pascal")
                                            : preset_config("vortex_1sm");
    load_config_file(c, std::string(TLMGPU_SOURCE_DIR) + "/configs/" + p.name + ".ini");
    EXPECT_EQ(config_values(c), config_values(preset_config(p.name))) << p.name;
  }
}

// The one key seed 000's Table I changes, and nothing else.
TEST(ConfigPresets, Gtx480With14SmsDiffersFromGtx480OnlyInTheSmCount) {
  tlmgpu::core::GpuConfig pro = preset_config("gtx480_14sm");
  EXPECT_EQ(pro.num_sms, 14u);
  pro.num_sms = preset_config("gtx480").num_sms;
  EXPECT_EQ(config_values(pro), config_values(preset_config("gtx480")));
}

// ---------------------------------------------------------------------------
// dump_config.

TEST(ConfigDump, RoundTripReproducesEveryPreset) {
  for (const char* name : kPresetNames) {
    const tlmgpu::core::GpuConfig original = preset_config(name);
    const std::string text = dump_config(original);
    tlmgpu::core::GpuConfig loaded = preset_config(std::string(name) == "gtx480" ? "vortex_1sm" : "gtx480");
    load_config_text(loaded, text, "dump.ini");
    EXPECT_EQ(config_values(loaded), config_values(original)) << name;
  }
}

TEST(ConfigDump, RoundTripKeepsOverriddenValuesExactly) {
  tlmgpu::core::GpuConfig c;
  set_config_value(c, "gpu.core_clock_mhz", "1234.5678901234");
  set_config_value(c, "gpu.scheduler", "two_level:group=8");
  set_config_value(c, "sm.has_dp_unit", "true");
  tlmgpu::core::GpuConfig loaded = preset_config("titanx_pascal");
  load_config_text(loaded, dump_config(c), "dump.ini");
  EXPECT_EQ(loaded.core_clock_mhz, c.core_clock_mhz);
  EXPECT_EQ(config_values(loaded), config_values(c));
}

TEST(ConfigDump, IsIniWithSectionsAndACommentPerKey) {
  const std::string text = dump_config(preset_config("gtx480"));
  EXPECT_TRUE(contains(text, "\n[gpu]\n")) << text;
  EXPECT_TRUE(contains(text, "\n[sm]\n"));
  EXPECT_TRUE(contains(text, "\n[dram]\n"));
  EXPECT_TRUE(contains(text, "\nnum_schedulers = 2\n"));
  EXPECT_TRUE(contains(text, "# warp schedulers per SM; warp w belongs to scheduler w mod N (1..8)\n"));
  EXPECT_TRUE(contains(text, "\ntRCD = 12\n"));
  EXPECT_TRUE(contains(text, "base preset: gtx480"));
  size_t assignments = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '#' && line[0] != '[') ++assignments;
  // Every key but the host settings, which change no result.
  size_t host_keys = 0;
  for (const auto& k : config_keys()) host_keys += k.key.rfind("host.", 0) == 0;
  EXPECT_EQ(host_keys, 2u);
  EXPECT_EQ(assignments, config_keys().size() - host_keys);
}

TEST(ConfigDump, HostThreadsAreASettingNotPartOfTheConfiguration) {
  tlmgpu::core::GpuConfig c = preset_config("gtx480");
  apply_config_assignment(c, "host.threads=4");
  EXPECT_EQ(c.host_threads, 4u);
  // The dump (and with it the configuration hash runs resume by) is that of one thread.
  EXPECT_EQ(dump_config(c), dump_config(preset_config("gtx480")));
  EXPECT_FALSE(contains(dump_config(c), "[host]"));
  EXPECT_TRUE(contains(config_error([&] { apply_config_assignment(c, "host.threads=0"); }), "host.threads"));
}

// ---------------------------------------------------------------------------
// validate_config: cross-key consistency.

namespace {
std::string validation_error(const std::vector<std::string>& assignments) {
  tlmgpu::core::GpuConfig c = preset_config("gtx480");
  for (const auto& a : assignments) apply_config_assignment(c, a);
  return config_error([&] { validate_config(c); });
}
}  // namespace

TEST(ConfigValidate, CacheSizeMustHoldWholeSets) {
  EXPECT_EQ(validation_error({"l1d.size_bytes=16000"}),
            "invalid configuration:\n  l1d.size_bytes = 16000 is not a multiple of l1d.ways x l1d.line_bytes = "
            "4 x 128 = 512 (every set holds `ways` lines)");
  EXPECT_TRUE(contains(validation_error({"l2.ways=7"}), "l2.size_bytes = 65536 is not a multiple of l2.ways"));
  EXPECT_EQ(validation_error({"l1d.size_bytes=24K", "l1d.ways=48"}), "");
}

TEST(ConfigValidate, SectorsMustDivideLines) {
  EXPECT_TRUE(contains(validation_error({"l1d.sector_bytes=256"}),
                       "l1d.sector_bytes = 256 must divide l1d.line_bytes = 128"));
}

TEST(ConfigValidate, WarpSlotsMustHoldTheThreads) {
  EXPECT_TRUE(contains(validation_error({"sm.max_warps=40"}),
                       "sm.max_warps x 32 = 40 x 32 is less than sm.max_threads = 1536 (need sm.max_warps >= 48)"));
  EXPECT_TRUE(contains(validation_error({"sm.max_threads=1000"}), "sm.max_threads = 1000 must be a multiple of 32"));
}

TEST(ConfigValidate, OneWarpAtTheRegisterLimitMustFit) {
  EXPECT_TRUE(contains(validation_error({"sm.registers=1024", "sm.max_regs_per_thread=40"}),
                       "sm.max_regs_per_thread = 40 needs 1280 registers for one warp (x 32, rounded up to "
                       "sm.register_allocation_unit = 64), more than sm.registers = 1024"));
  EXPECT_EQ(validation_error({"sm.registers=1024", "sm.max_regs_per_thread=32"}), "");
}

TEST(ConfigValidate, SchedulersMustDivideWarps) {
  EXPECT_TRUE(contains(validation_error({"sm.num_schedulers=5"}),
                       "sm.num_schedulers = 5 must divide sm.max_warps = 48"));
  EXPECT_EQ(validation_error({"sm.num_schedulers=4"}), "");
}

TEST(ConfigValidate, MemorySideConsistency) {
  EXPECT_TRUE(contains(validation_error({"l2.interleave_bytes=64"}),
                       "l2.interleave_bytes = 64 must be a multiple of l2.line_bytes = 128"));
  EXPECT_TRUE(contains(validation_error({"dram.interleave_bytes=64"}),
                       "dram.interleave_bytes = 64 must be a multiple of l2.line_bytes = 128"));
  EXPECT_TRUE(contains(validation_error({"l2.slices=4"}),
                       "l2.slices = 4 is less than dram.channels = 6 (a channel without a slice"));
  EXPECT_EQ(validation_error({"l2.slices=8"}), "");  // uneven sharing is allowed
  EXPECT_TRUE(contains(validation_error({"dram.burst_length=6"}),
                       "dram.burst_length = 6 must be a multiple of dram.data_rate = 4"));
  EXPECT_EQ(validation_error({"dram.bus_bytes=16", "dram.burst_length=4"}), "");
  EXPECT_TRUE(contains(validation_error({"dram.banks=8"}),
                       "dram.address_mapping has 4 B bits (16 banks) but dram.banks = 8"));
  EXPECT_TRUE(contains(validation_error({"dram.row_bytes=2048"}),
                       "dram.address_mapping has 12 C/S bits (4096-byte rows) but dram.row_bytes = 2048"));
  EXPECT_TRUE(contains(validation_error({"dram.address_mapping=RRRRRRRR.BBBBCCCC.CCCCBCCC"}),
                       "dram.address_mapping: the lowest 7 bits (an l2.line_bytes = 128 line) must be C or S"));
  EXPECT_TRUE(contains(validation_error({"dram.tCCDL=1"}), "dram.tCCDL = 1 must be at least dram.tCCD = 2"));
  EXPECT_TRUE(contains(validation_error({"dram.bank_groups=32"}), "dram.bank_groups = 32 must not exceed dram.banks"));
  EXPECT_TRUE(contains(validation_error({"dram.row_bytes=256", "l2.line_bytes=512", "l1d.line_bytes=512",
                                         "l2.interleave_bytes=512", "dram.interleave_bytes=512"}),
                       "dram.row_bytes = 256 must be at least l2.line_bytes = 512"));
  EXPECT_EQ(validation_error({"l1i.write_back=true"}),
            "invalid configuration:\n  l1i.write_back = true: the instruction cache is read-only");
}

TEST(ConfigValidate, SchedulerParametersAreCheckedByBuildingThePolicy) {
  EXPECT_EQ(validation_error({"gpu.scheduler=two_level:group=8"}), "");
  const std::string e = validation_error({"gpu.scheduler=two_level:size=8"});
  EXPECT_TRUE(contains(e, "gpu.scheduler = 'two_level:size=8': scheduler policy 'two_level' has no parameter 'size'"))
      << e;
}

TEST(ConfigValidate, ReportsEveryProblemAndRechecksRanges) {
  tlmgpu::core::GpuConfig c = preset_config("gtx480");
  c.sm.num_schedulers = 0;  // set in code, past set_config_value's checks
  c.l1d.line_bytes = 100;
  c.sm.fetch_policy = "fifo";
  const std::string e = config_error([&] { validate_config(c); });
  EXPECT_TRUE(contains(e, "sm.num_schedulers = 0 is out of range (allowed: 1..8)")) << e;
  EXPECT_TRUE(contains(e, "l1d.line_bytes = 100: must be a power of two between 32 and 1024")) << e;
  EXPECT_TRUE(contains(e, "sm.fetch_policy = 'fifo' is not allowed")) << e;
  EXPECT_TRUE(contains(e, "l1d.size_bytes = 16384 is not a multiple of")) << e;
}

// ---------------------------------------------------------------------------
// resolve_config: what the CLI calls.

TEST(ConfigResolve, PresetThenFilesInOrderThenOverrides) {
  const std::string first = temp_file("first.ini", "[gpu]\nnum_sms = 4\nscheduler = gto\n[sm]\nnum_schedulers = 1\n");
  const std::string second = temp_file("second.ini", "[gpu]\nnum_sms = 8\n");
  const tlmgpu::core::GpuConfig c = resolve_config("titanx_pascal", {first, second}, {"gpu.scheduler=two_level:group=4"});
  EXPECT_EQ(c.preset, "titanx_pascal");
  EXPECT_EQ(c.sm.max_ctas, 32u);         // from the preset
  EXPECT_EQ(c.sm.num_schedulers, 1u);    // first file
  EXPECT_EQ(c.num_sms, 8u);              // second file wins over the first
  EXPECT_EQ(c.scheduler, "two_level:group=4");  // --set wins over the files
  std::remove(first.c_str());
  std::remove(second.c_str());
}

TEST(ConfigResolve, DefaultPresetAndErrors) {
  EXPECT_EQ(config_values(resolve_config("", {}, {})), config_values(preset_config("gtx480")));
  EXPECT_EQ(config_error([] { resolve_config("gtx480", {}, {"sm.num_schedulers=0"}); }),
            "--set: sm.num_schedulers = 0 is out of range (allowed: 1..8)");
  // Each override is fine alone; the result is not, so validation runs last.
  EXPECT_TRUE(contains(config_error([] { resolve_config("gtx480", {}, {"sm.num_schedulers=5"}); }),
                       "sm.num_schedulers = 5 must divide sm.max_warps = 48"));
  EXPECT_TRUE(contains(config_error([] { resolve_config("gpu", {}, {}); }), "unknown preset 'gpu'"));
}
