// `rubato model frequency`: the core + uncore model's what-if over a profile.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_test_support.hpp"
#include "commands/args.hpp"
#include "commands/commands.hpp"
#include "rubato/core/model/frequency_pair.hpp"
#include "rubato/power/energy/profile_frequency_model.hpp"
#include "rubato/power/machine/profile.hpp"

namespace {

// Runs `rubato model ARGS` with stdout captured; returns {exit code, stdout}.
std::pair<int, std::string> run_captured(const std::vector<std::string>& args) {
  return rubato::test::run_with_stdout_captured([&] { return rubato::cli::run_model(args); });
}

const std::vector<std::string> kHpccg = {
    "frequency", "--profile", "haswell-e5-2650v3", "--core-sensitivity", "0.07", "--uncore-sensitivity", "0.73"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::string usage_error(const std::vector<std::string>& args) {
  try {
    run_captured(args);
  } catch (const rubato::cli::UsageError& e) {
    return e.what();
  }
  return "(no usage error)";
}

}  // namespace

TEST_CASE("Cli.Model.FrequencyJsonMatchesTheChooser", "[cli][model]") {
  const auto [rc, out] = run_captured(with(kHpccg, {"--json"}));
  REQUIRE(rc == 0);
  const auto doc = nlohmann::json::parse(out);
  CHECK(doc["model"] == "frequency");
  CHECK(doc["energy_source"] == "modeled:haswell-e5-2650v3");
  CHECK(doc["memory_bandwidth_knee_hz"].get<double>() == Approx(2.195e9));
  CHECK(doc["workers"]["running"] == 20);  // the profile's cores
  CHECK(doc["pairs"].size() == 12 * 19);
  std::string error;
  const auto profile = rubato::load_profile("haswell-e5-2650v3", error);
  REQUIRE(profile);
  const auto expected = rubato::choose_frequency_pair({0.07, 0.73}, rubato::frequency_model(*profile), 20, 0, 0.05);
  const auto& chosen = doc["chosen"];
  CHECK(chosen["core_hz"].get<double>() == expected.core_hz);
  CHECK(chosen["uncore_hz"].get<double>() == expected.uncore_hz);
  CHECK(chosen["time_factor"].get<double>() == Approx(expected.time_factor));
  CHECK(chosen["energy_ratio"].get<double>() == Approx(expected.energy_ratio));
  CHECK(chosen["within_bound"] == true);
  CHECK(expected.core_hz <= 1.5e9);  // memory-bound: the core goes down
  for (const auto& pair : doc["pairs"]) {
    CHECK(pair["within_bound"] == (pair["time_factor"].get<double>() <= 1.05));
    if (pair["within_bound"] == true)
      CHECK(chosen["energy_ratio"].get<double>() <= pair["energy_ratio"].get<double>() + 1e-12);
  }
}

TEST_CASE("Cli.Model.FrequencyTextMarksTheChosenPair", "[cli][model]") {
  const auto [rc, out] = run_captured(with(kHpccg, {"--workers", "20", "--max-time-loss", "0.05"}));
  REQUIRE(rc == 0);
  CHECK(out.find("every figure is modelled: modeled:haswell-e5-2650v3") != std::string::npos);
  CHECK(out.find("chosen: core 1.4 GHz, uncore 2.2 GHz") != std::string::npos);
  CHECK(std::count(out.begin(), out.end(), '*') == 4);  // twice in the legends, once per grid
  CHECK(out.find("knee f_k 2.195 GHz") != std::string::npos);
  // Compute-bound work keeps the core and lets the uncore go.
  const auto [rc2, uts] = run_captured(
      {"frequency", "--profile", "haswell-e5-2650v3", "--core-sensitivity", "0.97", "--uncore-sensitivity", "0.02"});
  REQUIRE(rc2 == 0);
  CHECK(uts.find("chosen: core 2.3 GHz, uncore 1.2 GHz") != std::string::npos);
}

TEST_CASE("Cli.Model.FrequencyWithoutUncoreLadder", "[cli][model]") {
  const auto [rc, out] = run_captured({"frequency", "--profile", "opteron-6378", "--json"});
  REQUIRE(rc == 0);
  const auto doc = nlohmann::json::parse(out);
  CHECK(doc["sensitivity"]["core_source"] == "the profile's beta");
  CHECK(doc["uncore_hz"].empty());
  CHECK(doc["pairs"].size() == 5);  // the five core levels, the uncore not modelled
  CHECK(doc["chosen"]["uncore_hz"].is_null());
}

TEST_CASE("Cli.Model.FrequencyUsageErrors", "[cli][model]") {
  CHECK(usage_error(
            {"frequency", "--profile", "haswell-e5-2650v3", "--core-sensitivity", "0.6", "--uncore-sensitivity", "0.5"})
            .find("--core-sensitivity / --uncore-sensitivity") != std::string::npos);
  CHECK(usage_error({"frequency", "--core-sensitivity", "0.5"}).find("--profile is required") != std::string::npos);
  CHECK(usage_error(with(kHpccg, {"--solo", "0.5"})).find("--solo belongs to `rubato model efs`") != std::string::npos);
  CHECK(usage_error({"efs", "--solo", "0.5", "--uncore-sensitivity", "0.2"})
            .find("--uncore-sensitivity belongs to `rubato model frequency`") != std::string::npos);
  CHECK(usage_error(with(kHpccg, {"--max-time-loss", "-0.1"})).find("--max-time-loss") != std::string::npos);
  CHECK(usage_error({"voltage"}).find("known: efs, frequency") != std::string::npos);
}
