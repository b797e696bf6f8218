// `rubato model efs`: the what-if command over [EFS]'s model.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands/args.hpp"
#include "cli_test_support.hpp"
#include "commands/commands.hpp"
#include "rubato/core/efs/efs_admission.hpp"

namespace {

// Runs `rubato model ARGS` with stdout captured; returns {exit code, stdout}.
std::pair<int, std::string> run_model_captured(const std::vector<std::string>& args) {
  return rubato::test::run_with_stdout_captured([&] { return rubato::cli::run_model(args); });
}

}  // namespace

TEST_CASE("Cli.Model.EfsJsonMatchesTheModel", "[cli][efs]") {
  const auto [rc, out] = run_model_captured(
      {"efs", "--solo", "0.57,0.3", "--power", "26.6,22.6,12,12.3,12.3", "--candidate", "0.8", "--json"});
  REQUIRE(rc == 0);
  const auto doc = nlohmann::json::parse(out);
  CHECK(doc["power_source"] == "modeled:power-table");
  REQUIRE(doc["sets"].size() == 1);
  const auto& set = doc["sets"][0];
  const std::vector<double> solo{0.57, 0.3};
  const rubato::efs::PowerTable table({26.6, 22.6, 12, 12.3, 12.3});
  const auto expected = rubato::efs::predict_set(solo, table);
  CHECK(set["newton"]["status"] == "converged");
  CHECK(set["u"][0].get<double>() == Approx(expected.utilisation.u[0]));
  CHECK(set["throughput"].get<double>() == Approx(expected.throughput));
  CHECK(set["power_w"].get<double>() == Approx(26.6 + 22.6 + 12));
  CHECK(set["energy_per_work_j"].get<double>() == Approx(*expected.energy_per_work));
  const auto threshold = rubato::efs::admission_threshold(solo, table);
  CHECK(set["admission"]["status"] == "threshold_found");
  CHECK(set["admission"]["max_solo"].get<double>() == Approx(*threshold.max_solo));
  CHECK(set["candidate"]["admit"].get<bool>() == *threshold.admits(0.8));
}

TEST_CASE("Cli.Model.EfsIdenticalRowsAndProfile", "[cli][efs]") {
  const auto [rc, out] =
      run_model_captured({"efs", "--identical", "4", "--solo", "0.1,0.9", "--profile", "i5-2500", "--json"});
  REQUIRE(rc == 0);
  const auto doc = nlohmann::json::parse(out);
  CHECK(doc["power_source"] == "modeled:i5-2500");
  REQUIRE(doc["sets"].size() == 2);
  CHECK(doc["sets"][0]["solo"].size() == 4);
  CHECK(doc["sets"][0]["throughput"].get<double>() > doc["sets"][1]["throughput"].get<double>());
  CHECK(doc["sets"][0]["admission"]["status"] == "no_free_core");  // four threads on the i5's four cores
  const auto [text_rc, text] = run_model_captured({"efs", "--identical", "4", "--solo", "0.5", "--profile", "i5-2500"});
  CHECK(text_rc == 0);
  CHECK(text.find("modeled:i5-2500") != std::string::npos);
}

TEST_CASE("Cli.Model.EfsReportsNonConvergence", "[cli][efs]") {
  const auto [rc, out] = run_model_captured({"efs", "--solo", "0.9,0.7,0.5", "--max-iterations", "1"});
  CHECK(rc == 1);
  CHECK(out.find("not_converged") != std::string::npos);
}

TEST_CASE("Cli.Model.EfsUsage", "[cli][efs]") {
  using rubato::cli::UsageError;
  CHECK_THROWS_AS(run_model_captured({}), UsageError);
  CHECK_THROWS_AS(run_model_captured({"hermes"}), UsageError);
  CHECK_THROWS_AS(run_model_captured({"efs"}), UsageError);
  CHECK_THROWS_AS(run_model_captured({"efs", "--solo", "1.0"}), UsageError);
  CHECK_THROWS_AS(run_model_captured({"efs", "--solo", "0.5", "--candidate", "0.2"}), UsageError);
  CHECK_THROWS_AS(run_model_captured({"efs", "--solo", "0.5", "--power", "10"}), UsageError);
  CHECK_THROWS_AS(run_model_captured({"efs", "--solo", "0.5", "--power", "10,5", "--profile", "i5-2500"}), UsageError);
}
