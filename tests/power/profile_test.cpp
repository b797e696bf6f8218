#include <catch2/catch.hpp>

#include "rubato/power/energy/power_model.hpp"
#include "rubato/power/machine/profile.hpp"

using namespace rubato;

namespace {
const std::vector<std::string> kDirs = {RUBATO_TEST_PROFILES_DIR};

MachineProfile load(const std::string& name) {
  std::string error;
  auto p = load_profile(name, kDirs, error);
  INFO(error);
  REQUIRE(p);
  return *p;
}
}  // namespace

TEST_CASE("Power.Profile.ShippedProfilesLoad") {
  const auto names = list_profiles(kDirs);
  for (const char* required : {"opteron-6378", "fx-8150", "i5-2500", "generic"})
    CHECK(std::find(names.begin(), names.end(), required) != names.end());
  for (const auto& name : names) {
    const MachineProfile p = load(name);
    CHECK(p.name == name);
    CHECK(!p.core_power.empty());
    CHECK(std::is_sorted(p.frequencies_hz.rbegin(), p.frequencies_hz.rend()));
  }
}

TEST_CASE("Power.Profile.HermesSystemsAsInThePaper") {
  const MachineProfile a = load("opteron-6378");
  CHECK(a.cores == 32);
  CHECK(a.cores_per_domain == 2);
  CHECK(a.frequencies_hz == std::vector<double>{2.4e9, 2.2e9, 1.9e9, 1.6e9, 1.4e9});
  const MachineProfile b = load("fx-8150");
  CHECK(b.cores == 8);
  CHECK(b.cores_per_domain == 2);
  CHECK(b.frequencies_hz == std::vector<double>{3.6e9, 3.3e9, 2.7e9, 2.1e9, 1.4e9});
}

TEST_CASE("Power.Profile.EfsSystemCarriesEq25AndMu") {
  const MachineProfile p = load("i5-2500");
  CHECK(p.cores == 4);
  CHECK(p.active_cores_power_w == std::vector<double>{26.6, 22.6, 12.0, 12.3, 12.3});
  CHECK(p.memory_accesses_per_s == Approx(150e6));
  CHECK(p.sources.at("active_cores_power_w").find("Eq. 25") != std::string::npos);
}

TEST_CASE("Power.Profile.EveryNumberNeedsASource") {
  const std::string good = R"({"name":"x","cores":1,"cores_per_domain":1,"frequencies_hz":[1e9],
    "core_power":[{"hz":1e9,"busy_w":1,"idle_w":0.5}],"uncore_w":1,"beta":1,"transition_latency_s":0,
    "sources":{"cores":"a","cores_per_domain":"a","frequencies_hz":"a","core_power.busy_w":"a",
               "core_power.idle_w":"a","uncore_w":"a","beta":"a","transition_latency_s":"a"}})";
  std::string error;
  CHECK(parse_profile(good, "good", error));
  std::string missing = good;
  missing.replace(missing.find("\"uncore_w\":\"a\","), 15, "");
  CHECK_FALSE(parse_profile(missing, "missing", error));
  CHECK(error.find("uncore_w") != std::string::npos);
  std::string with_mu = good;
  with_mu.replace(with_mu.find("\"beta\":1,"), 9, "\"beta\":1,\"memory_accesses_per_s\":5,");
  CHECK_FALSE(parse_profile(with_mu, "mu", error));  // a number without its source
}

TEST_CASE("Power.Profile.NotMeasuredNamesEachFieldAndWhy") {
  const std::string base = R"({"name":"x","cores":1,"cores_per_domain":1,"frequencies_hz":[1e9],
    "core_power":[{"hz":1e9,"busy_w":1,"idle_w":0.5}],"uncore_w":1,"beta":1,"transition_latency_s":0,NM
    "sources":{"cores":"a","cores_per_domain":"a","frequencies_hz":"a","core_power.busy_w":"a",
               "core_power.idle_w":"a","uncore_w":"a","beta":"a","transition_latency_s":"a"}})";
  auto with = [&](const std::string& nm) {
    std::string text = base;
    text.replace(text.find("NM"), 2, nm);
    return text;
  };
  std::string error;
  const auto p =
      parse_profile(with(R"("not_measured":{"uncore_power":"no intel_uncore_frequency domain"},)"), "nm", error);
  INFO(error);
  REQUIRE(p);
  CHECK(p->not_measured.at("uncore_power") == "no intel_uncore_frequency domain");
  CHECK(parse_profile(with(""), "none", error)->not_measured.empty());
  CHECK_FALSE(parse_profile(with(R"("not_measured":["uncore_power"],)"), "list", error));
  CHECK(error.find("not_measured") != std::string::npos);
  CHECK_FALSE(parse_profile(with(R"("not_measured":{"uncore_power":""},)"), "empty", error));
  CHECK(error.find("not_measured.uncore_power") != std::string::npos);
}

TEST_CASE("Power.Profile.BadFilesNameTheProblem") {
  std::string error;
  CHECK_FALSE(parse_profile("{", "f.json", error));
  CHECK(error.find("f.json") != std::string::npos);
  CHECK_FALSE(parse_profile(R"({"name":"x","cores":-1})", "f.json", error));
  CHECK(error.find("cores") != std::string::npos);
  CHECK_FALSE(load_profile("no-such-profile", kDirs, error));
  CHECK(error.find("not found") != std::string::npos);
}

TEST_CASE("Power.Profile.AutoMatchesCpuModel") {
  CHECK(auto_profile_name("AMD Opteron(tm) Processor 6378", kDirs) == "opteron-6378");
  CHECK(auto_profile_name("Intel(R) Core(TM) i5-2500 CPU @ 3.30GHz", kDirs) == "i5-2500");
  CHECK(auto_profile_name("Intel(R) Core(TM) i5-2500K CPU @ 3.30GHz", kDirs) == "generic");
  CHECK(auto_profile_name("QEMU Virtual CPU", kDirs) == "generic");
}

TEST_CASE("Power.Profile.ResolveReturnsTheParsedProfile") {
  const ChosenProfile matched = auto_profile("AMD Opteron(tm) Processor 6378", kDirs);
  CHECK(matched.name == "opteron-6378");
  REQUIRE(matched.profile);
  CHECK(matched.profile->name == "opteron-6378");
  // No match: the generic profile, read during the scan.
  const ChosenProfile fallback = auto_profile("QEMU Virtual CPU", kDirs);
  CHECK(fallback.name == "generic");
  REQUIRE(fallback.profile);
  CHECK(fallback.profile->name == "generic");
  CHECK(auto_profile("", kDirs).name == "generic");
  std::string error;
  const ChosenProfile named = resolve_profile("i5-2500", "AMD Opteron(tm) Processor 6378", kDirs, error);
  CHECK(named.name == "i5-2500");
  REQUIRE(named.profile);
  CHECK(named.profile->name == "i5-2500");
  CHECK(resolve_profile("auto", "AMD Opteron(tm) Processor 6378", kDirs, error).profile->name == "opteron-6378");
  const ChosenProfile missing = resolve_profile("no-such-profile", "", kDirs, error);
  CHECK_FALSE(missing.profile);
  CHECK(error.find("not found") != std::string::npos);
}

TEST_CASE("Power.Model.InterpolatesAndClamps") {
  MachineProfile p;
  p.name = "t";
  p.core_power = {{2e9, 10, 4}, {1e9, 4, 2}};
  p.uncore_w = 5;
  const PowerModel m(p);
  CHECK(m.busy_w(2e9) == Approx(10));
  CHECK(m.busy_w(1.5e9) == Approx(7));
  CHECK(m.busy_w(3e9) == Approx(10));
  CHECK(m.busy_w(0.5e9) == Approx(4));
  CHECK(m.idle_w(1.5e9) == Approx(3));
  CHECK(m.source_label() == "modeled:t");
}

TEST_CASE("Power.Model.EnergyOfARun") {
  MachineProfile p;
  p.name = "t";
  p.core_power = {{2e9, 10, 4}, {1e9, 4, 2}};
  p.uncore_w = 5;
  const PowerModel m(p);
  RunActivity a;
  a.wall_s = 2;
  // 1 s busy at 2 GHz, 0.5 s busy at 1 GHz, 0.5 s idle at 2 GHz.
  a.cores.push_back({{{2e9, 1.0}, {1e9, 0.5}}, 2e9, {}});
  CHECK(m.energy_j(a) == Approx(5 * 2 + 10 * 1 + 4 * 0.5 + 4 * 0.5));
  // Slower busy time costs less power per second but lasts longer: with the
  // emulator's stretch (2x at half speed) the model sees both effects.
  RunActivity fast{1.0, {{{{2e9, 1.0}}, 2e9, {}}}, 0, {}};
  RunActivity slow{2.0, {{{{1e9, 2.0}}, 2e9, {}}}, 0, {}};
  CHECK(m.energy_j(fast) == Approx(5 + 10));
  CHECK(m.energy_j(slow) == Approx(10 + 8));
}

// An uncore power per uncore frequency, where a profile gives
// one, charged when the uncore is pinned (RUBATO_UNCORE, simulate --uncore).
TEST_CASE("Power.Profile.UncorePowerTableNeedsItsSourceAndIsSorted") {
  const std::string base = R"({"name":"x","cores":1,"cores_per_domain":1,"frequencies_hz":[1e9],
    "core_power":[{"hz":1e9,"busy_w":1,"idle_w":0.5}],"uncore_w":9,"beta":1,"transition_latency_s":0,
    "uncore_power":[{"hz":1.2e9,"w":6},{"hz":2.4e9,"w":12}],
    "sources":{"cores":"a","cores_per_domain":"a","frequencies_hz":"a","core_power.busy_w":"a",
               "core_power.idle_w":"a","uncore_w":"a","beta":"a","transition_latency_s":"a"UNCORE}})";
  std::string sourced = base, unsourced = base;
  sourced.replace(sourced.find("UNCORE"), 6, R"(,"uncore_power":"b")");
  unsourced.replace(unsourced.find("UNCORE"), 6, "");
  std::string error;
  const auto p = parse_profile(sourced, "u.json", error);
  INFO(error);
  REQUIRE(p);
  REQUIRE(p->uncore_power.size() == 2);
  CHECK(p->uncore_power.front().hz == 2.4e9);  // descending, whatever the file's order
  CHECK(p->uncore_power.back().w == 6);
  CHECK_FALSE(parse_profile(unsourced, "u.json", error));
  CHECK(error.find("uncore_power") != std::string::npos);
  std::string bad = sourced;
  bad.replace(bad.find(R"("w":6)"), 5, R"("w":-1)");
  CHECK_FALSE(parse_profile(bad, "u.json", error));
  CHECK(error.find("uncore_power[") != std::string::npos);
}

TEST_CASE("Power.Model.UncoreAtAPinnedUncoreFrequency") {
  MachineProfile p;
  p.name = "t";
  p.core_power = {{2e9, 10, 4}};
  p.uncore_w = 9;
  const PowerModel constant(p);
  CHECK(constant.uncore_w() == 9);
  CHECK(constant.uncore_w(1.8e9) == 9);  // no table: the constant, pinned or not
  p.uncore_power = {{2.4e9, 12}, {1.2e9, 6}};
  const PowerModel m(p);
  CHECK(m.uncore_w() == 9);               // not pinned: the constant
  CHECK(m.uncore_w(1.8e9) == Approx(9));  // halfway between 6 and 12
  CHECK(m.uncore_w(1.5e9) == Approx(7.5));
  CHECK(m.uncore_w(3e9) == Approx(12));  // clamped at the ends
  CHECK(m.uncore_w(0.8e9) == Approx(6));
  RunActivity a{2.0, {{{{2e9, 1.0}}, 2e9, {}}}, 1.2e9, {}};
  CHECK(m.energy_j(a) == Approx(6 * 2 + 10 * 1 + 4 * 1));
}

// The memory-bandwidth knee of the core + uncore time model
// (rubato/core/model/time_model.hpp): optional, with its source.
TEST_CASE("Power.Profile.MemoryBandwidthKnee") {
  const MachineProfile haswell = load("haswell-e5-2650v3");
  REQUIRE(haswell.memory_bandwidth_knee_hz);
  CHECK(*haswell.memory_bandwidth_knee_hz == Approx(2.195e9));  // benchmarks/cuttlefish/RESULTS.md, the fit
  CHECK(haswell.sources.at("memory_bandwidth_knee_hz").find("fit.py") != std::string::npos);
  CHECK(haswell.uncore_power.size() == 3);
  CHECK_FALSE(load("opteron-6378").memory_bandwidth_knee_hz);  // none given: plain 1/fu scaling
  const std::string base = R"({"name":"x","cores":1,"cores_per_domain":1,"frequencies_hz":[1e9],
    "core_power":[{"hz":1e9,"busy_w":1,"idle_w":0.5}],"uncore_w":9,"beta":1,"transition_latency_s":0,
    "memory_bandwidth_knee_hz":KNEE,
    "sources":{"cores":"a","cores_per_domain":"a","frequencies_hz":"a","core_power.busy_w":"a",
               "core_power.idle_w":"a","uncore_w":"a","beta":"a","transition_latency_s":"a"SOURCE}})";
  const auto profile = [&](const std::string& knee, const std::string& source) {
    std::string text = base;
    text.replace(text.find("KNEE"), 4, knee);
    text.replace(text.find("SOURCE"), 6, source);
    return text;
  };
  std::string error;
  const auto p = parse_profile(profile("2.2e9", R"(,"memory_bandwidth_knee_hz":"b")"), "k.json", error);
  INFO(error);
  REQUIRE(p);
  CHECK(*p->memory_bandwidth_knee_hz == 2.2e9);
  CHECK_FALSE(parse_profile(profile("2.2e9", ""), "k.json", error));  // a number without its source
  CHECK(error.find("memory_bandwidth_knee_hz") != std::string::npos);
  CHECK_FALSE(parse_profile(profile("-1", R"(,"memory_bandwidth_knee_hz":"b")"), "k.json", error));
  CHECK(error.find("memory_bandwidth_knee_hz") != std::string::npos);
  CHECK_FALSE(parse_profile(profile("\"fast\"", R"(,"memory_bandwidth_knee_hz":"b")"), "k.json", error));
}
