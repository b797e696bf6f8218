#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "experiment/likwid_csv.hpp"
#include "experiment/likwid_runner.hpp"

using namespace rubato::cli;

namespace {

std::string sample(const std::string& name) {
  std::ifstream in(std::string(RUBATO_CLI_TEST_DATA) + "/" + name);
  REQUIRE(in);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// likwid's own aggregate: the "Sum" column of the "<metric> STAT" row.
double stat_sum(const LikwidOutput& out, const std::string& metric) {
  for (const auto& t : out.tables) {
    if (t.title.find("Metric STAT") == std::string::npos) continue;
    for (const auto& row : t.rows)
      if (row.at(0) == metric + " STAT") return std::stod(row.at(1));
  }
  FAIL("no STAT row for " << metric);
  return 0;
}

}  // namespace

TEST_CASE("Cli.Likwid.ParsesEnergyGroupSample", "[cli][likwid]") {
  std::string error;
  const auto out = parse_likwid_csv(sample("likwid_perfctr_ENERGY_skylakeX_2threads.csv"), error);
  REQUIRE(out);
  CHECK(error.empty());
  CHECK(out->cpu_type == "Intel Skylake SP processor");
  REQUIRE(out->tables.size() == 4);  // Raw, Raw STAT, Metric, Metric STAT
  CHECK(out->tables[0].group == "ENERGY");
  CHECK(out->tables[0].header.at(2) == "HWThread 0");
  CHECK(out->tables[2].is_metric());
  CHECK_FALSE(out->tables[3].is_metric());
  const auto fig = likwid_figures(*out);
  // Our sum over HWThreads must agree with likwid's own STAT "Sum" column.
  CHECK(fig.at("likwid.energy_j") == Approx(stat_sum(*out, "Energy [J]")));
  CHECK(fig.at("likwid.energy_dram_j") == Approx(stat_sum(*out, "Energy DRAM [J]")));
  CHECK(fig.at("likwid.power_w") == Approx(stat_sum(*out, "Power [W]")));
  // Runtime is the longest HWThread's, not a sum; power = energy / runtime (the group's formula).
  CHECK(fig.at("likwid.runtime_rdtsc_s") == Approx(stat_sum(*out, "Runtime (RDTSC) [s]") / 2));
  CHECK(fig.at("likwid.power_w") == Approx(fig.at("likwid.energy_j") / fig.at("likwid.runtime_rdtsc_s")).epsilon(1e-4));
  CHECK(fig.count("likwid.cpi") == 0);  // not an energy / bandwidth figure
  CHECK(fig.count("likwid.temperature_c") == 0);
}

TEST_CASE("Cli.Likwid.ParsesMemGroupSample", "[cli][likwid]") {
  std::string error;
  const auto out = parse_likwid_csv(sample("likwid_perfctr_MEM_skylakeX_2threads.csv"), error);
  REQUIRE(out);
  const auto fig = likwid_figures(*out);
  CHECK(fig.at("likwid.memory_bandwidth_mbytes_per_s") == Approx(stat_sum(*out, "Memory bandwidth [MBytes/s]")));
  CHECK(fig.at("likwid.memory_data_volume_gbytes") == Approx(stat_sum(*out, "Memory data volume [GBytes]")));
  // bandwidth [MB/s] = volume [GB] * 1000 / runtime
  CHECK(fig.at("likwid.memory_bandwidth_mbytes_per_s") ==
        Approx(fig.at("likwid.memory_data_volume_gbytes") * 1000 / fig.at("likwid.runtime_rdtsc_s")).epsilon(1e-4));
  CHECK(fig.count("likwid.energy_j") == 0);
}

TEST_CASE("Cli.Likwid.SingleThreadRegionsAndNoise", "[cli][likwid]") {
  // One HWThread (no STAT tables), a marker region with its info block, the
  // program's own output around the CSV, and "-" for a counter likwid could not read.
  const std::string text =
      "program says hello\n"
      "STRUCT,Info,3\nCPU name:,X,\nCPU type:,Y,\nCPU clock:,2.4 GHz,\n"
      "TABLE,Region solve,Group 1 Raw,ENERGY,2\n"
      "Region Info,HWThread 0\nRDTSC Runtime [s],1.500000\ncall count,1\n"
      "Event,Counter,HWThread 0\nPWR_PKG_ENERGY,PWR0,30.5\nPWR_DRAM_ENERGY,PWR3,-\n"
      "TABLE,Region solve,Group 1 Metric,ENERGY,3\n"
      "Metric,HWThread 0\nRuntime (RDTSC) [s],1.5000\nEnergy [J],30.5000\nEnergy DRAM [J],-\n"
      "program says bye\n";
  std::string error;
  const auto out = parse_likwid_csv(text, error);
  REQUIRE(out);
  const auto fig = likwid_figures(*out);
  CHECK(fig.at("likwid.solve.energy_j") == Approx(30.5));
  CHECK(fig.at("likwid.solve.runtime_rdtsc_s") == Approx(1.5));
  CHECK(fig.count("likwid.solve.energy_dram_j") == 0);  // no value at all: left out
}

TEST_CASE("Cli.Likwid.RejectsTruncatedAndForeignText", "[cli][likwid]") {
  std::string full = sample("likwid_perfctr_ENERGY_skylakeX_2threads.csv");
  std::string error;
  CHECK_FALSE(parse_likwid_csv(full.substr(0, full.find("Power [W],")), error));
  CHECK(error.find("declares 11 rows") != std::string::npos);
  CHECK(error.find("line ") == 0);
  CHECK_FALSE(parse_likwid_csv("a,b,c\n1,2,3\n", error));
  CHECK(error.find("no likwid tables") != std::string::npos);
  CHECK_FALSE(
      parse_likwid_csv("STRUCT,Info,3\nCPU name:,X\nCPU type:,Y\nCPU clock:,1 GHz\nTABLE,Group 1 Metric,E,x\n", error));
  CHECK(error.find("row count") != std::string::npos);
}

TEST_CASE("Cli.Likwid.KeysAndCommand", "[cli][likwid]") {
  CHECK(likwid_key("Energy [J]") == "likwid.energy_j");
  CHECK(likwid_key("Energy DRAM [J]") == "likwid.energy_dram_j");
  CHECK(likwid_key("Memory bandwidth [MBytes/s]") == "likwid.memory_bandwidth_mbytes_per_s");
  CHECK(likwid_key("Runtime (RDTSC) [s]") == "likwid.runtime_rdtsc_s");
  CHECK(likwid_cpu_list(1) == "0");
  CHECK(likwid_cpu_list(4) == "0-3");
  const auto cmd = likwid_wrap("likwid-perfctr", "MEM_DP", 2, "/r/likwid.csv", {"./knn", "-n", "5"});
  CHECK(cmd == std::vector<std::string>{"likwid-perfctr", "-C", "0-1", "-g", "MEM_DP", "-O", "-o", "/r/likwid.csv",
                                        "./knn", "-n", "5"});
}
