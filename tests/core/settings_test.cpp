#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include "rubato/core/config/config_table.hpp"
#include "rubato/core/config/settings.hpp"
#include "temp_dir.hpp"

using namespace rubato;

TEST_CASE("Settings.Defaults.NoEnvironment", "[core][config]") {
  Diagnostics d;
  Settings s = load_settings({}, d);
  CHECK(d.empty());
  CHECK(s.policy.tempo == TempoPolicy::baseline);
  CHECK(s.backend == "auto");
  CHECK(s.thresholds == 2);
  CHECK(s.profile_window == 16);
}

TEST_CASE("Settings.Env.GoodValues", "[core][config]") {
  Diagnostics d;
  Settings s = load_settings({{"RUBATO_POLICY", "hermes+efs"},
                              {"RUBATO_FREQS", "2.4GHz,1.6GHz"},
                              {"RUBATO_THRESHOLDS", "3"},
                              {"RUBATO_PROFILE_INTERVAL", "250us"},
                              {"RUBATO_BACKEND", "dry-run"},
                              {"PATH", "/bin"}},
                             d);
  CHECK(d.empty());
  CHECK(s.policy.tempo == TempoPolicy::hermes);
  CHECK(s.policy.efs);
  CHECK(s.freqs_hz == std::vector<double>{2.4e9, 1.6e9});
  CHECK(s.thresholds == 3);
  CHECK(s.profile_interval_s == Approx(250e-6));
  CHECK(s.backend == "dry-run");
}

TEST_CASE("Settings.Env.BadValueOneLineNamingKeyValueAndAccepted", "[core][config]") {
  // Every key, several kinds of bad value: one line each, the default kept.
  const Settings defaults;
  for (const ConfigKey& key : config_keys()) {
    for (std::string bad : {std::string("\x01\x02"), std::string(5000, '9'), std::string("-1"),
                            std::string("nonsense!"), std::string("1e999")}) {
      Diagnostics d;
      Settings s = load_settings({{std::string(key.env), bad}}, d);
      if (d.empty()) continue;  // some keys take any text (paths); those are checked elsewhere
      INFO(key.env << "=" << bad);
      REQUIRE(d.lines.size() == 1);
      CHECK(d.lines[0].find(std::string(key.env)) != std::string::npos);
      CHECK(d.lines[0].find("accepted") != std::string::npos);
      CHECK(d.lines[0].find("default") != std::string::npos);
    }
  }
  Diagnostics d;
  Settings s = load_settings({{"RUBATO_THRESHOLDS", "0"}, {"RUBATO_POLICY", "fast"}, {"RUBATO_FREQS", "2400"}}, d);
  CHECK(d.lines.size() == 3);
  CHECK(s.thresholds == defaults.thresholds);
  CHECK(s.policy.tempo == defaults.policy.tempo);
  CHECK(s.freqs_hz.empty());
}

TEST_CASE("Settings.Env.EmptyValues", "[core][config]") {
  for (const ConfigKey& key : config_keys()) {
    Diagnostics d;
    load_settings({{std::string(key.env), ""}}, d);
    INFO(key.env);
    CHECK(d.lines.size() <= 1);  // accepted as "none" (paths) or one clear line
  }
}

TEST_CASE("Settings.Env.UnknownVariableNamed", "[core][config]") {
  Diagnostics d;
  load_settings({{"RUBATO_POLICI", "hermes"}}, d);
  REQUIRE(d.lines.size() == 1);
  CHECK(d.lines[0].find("RUBATO_POLICI") != std::string::npos);
}

TEST_CASE("Settings.File.KeysCommentsAndEnvironmentWins", "[core][config]") {
  const test::TempDir tmp;
  const std::string path = tmp.file("config.txt");
  {
    std::ofstream out(path);
    out << "# rubato config\npolicy = workpath\nthresholds = 4   # K\n\nbogus = 1\nno equals sign\nfreqs = 3GHz,2GHz\n";
  }
  Diagnostics d;
  Settings s = load_settings({{"RUBATO_CONFIG", path}, {"RUBATO_THRESHOLDS", "5"}}, d);
  std::remove(path.c_str());
  CHECK(s.policy.tempo == TempoPolicy::workpath);
  CHECK(s.thresholds == 5);  // environment overrides the file
  CHECK(s.freqs_hz == std::vector<double>{3e9, 2e9});
  REQUIRE(d.lines.size() == 2);
  CHECK(d.lines[0].find(":5: unknown key 'bogus'") != std::string::npos);
  CHECK(d.lines[1].find(":6: expected 'key = value'") != std::string::npos);
}

TEST_CASE("Settings.File.MissingFileOneLine", "[core][config]") {
  Diagnostics d;
  load_settings({{"RUBATO_CONFIG", "/nonexistent/rubato.conf"}}, d);
  REQUIRE(d.lines.size() == 1);
  CHECK(d.lines[0].find("RUBATO_CONFIG") != std::string::npos);
}

TEST_CASE("Settings.Policy.Parse", "[core][config]") {
  std::string err;
  auto p = parse_policy("fixed:1.9GHz", err);
  REQUIRE(p);
  CHECK(p->tempo == TempoPolicy::fixed);
  CHECK(p->fixed_hz == Approx(1.9e9));
  CHECK(p->name() == "fixed:1.9GHz");
  CHECK(parse_policy("efs", err)->name() == "efs");
  CHECK(parse_policy("hermes+affinity", err)->name() == "hermes+affinity");
  CHECK_FALSE(parse_policy("hermes+workpath", err));
  CHECK(err.find("more than one") != std::string::npos);
  CHECK_FALSE(parse_policy("fixed:", err));
  CHECK_FALSE(parse_policy("", err));
}

TEST_CASE("Settings.Table.EveryKeyDocumented", "[core][config]") {
  for (const ConfigKey& k : config_keys()) {
    INFO(k.env);
    CHECK(k.env.rfind("RUBATO_", 0) == 0);
    CHECK_FALSE(k.file_key.empty());
    CHECK_FALSE(k.accepted.empty());
    CHECK_FALSE(k.description.empty());
    CHECK(find_config_key_by_file_key(k.file_key) == &k);
  }
}
