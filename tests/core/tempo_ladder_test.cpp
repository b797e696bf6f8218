#include <catch2/catch.hpp>

#include <vector>

#include "rubato/core/tempo/tempo_ladder.hpp"

using rubato::TempoLadder;

TEST_CASE("TempoLadder.Order.SortsDescendingAndDeduplicates", "[core][tempo]") {
  TempoLadder l({1.4e9, 2.4e9, 1.9e9, 2.4e9});
  REQUIRE(l.levels() == 3);
  CHECK(l.hz(0) == 2.4e9);
  CHECK(l.hz(1) == 1.9e9);
  CHECK(l.hz(2) == 1.4e9);
  CHECK(l.max_hz() == 2.4e9);
}

TEST_CASE("TempoLadder.Up.StopsAtFastest", "[core][tempo]") {
  TempoLadder l({2.4e9, 1.9e9, 1.4e9});
  CHECK(l.up(2) == 1);
  CHECK(l.up(1) == 0);
  CHECK(l.up(0) == 0);  // UP(w) at f1 leaves w at f1
}

TEST_CASE("TempoLadder.Down.StopsAtSlowest", "[core][tempo]") {
  TempoLadder l({2.4e9, 1.9e9, 1.4e9});
  CHECK(l.down(0) == 1);
  CHECK(l.down(1) == 2);
  CHECK(l.down(2) == 2);  // DOWN(w) at fN leaves w at fN
}

TEST_CASE("TempoLadder.DownFrom.OneBelowVictimsCurrentLevel", "[core][tempo]") {
  TempoLadder l({2.4e9, 1.9e9, 1.4e9});
  // The thief's own level does not matter, only the victim's current one.
  CHECK(l.down_from(0, 0) == 1);
  CHECK(l.down_from(2, 0) == 1);
  CHECK(l.down_from(0, 1) == 2);
  // Victim at fN: the thief stays where it is ([HERMES] §3.4).
  CHECK(l.down_from(0, 2) == 0);
  CHECK(l.down_from(1, 2) == 1);
}

TEST_CASE("TempoLadder.SingleLevel.NoMoves", "[core][tempo]") {
  TempoLadder l({2.4e9});
  CHECK(l.up(0) == 0);
  CHECK(l.down(0) == 0);
  CHECK(l.down_from(0, 0) == 0);
}

TEST_CASE("TempoLadder.PaperDefault.SnapsSixtyPercentToAvailable", "[core][tempo]") {
  // Opteron 6378: 0.6 x 2.4 = 1.44 GHz -> 1.4 GHz.
  auto a = TempoLadder::paper_default({1.4e9, 1.6e9, 1.9e9, 2.2e9, 2.4e9});
  REQUIRE(a.levels() == 2);
  CHECK(a.hz(0) == 2.4e9);
  CHECK(a.hz(1) == 1.4e9);
  // FX-8150: 0.6 x 3.6 = 2.16 GHz -> 2.1 GHz.
  auto b = TempoLadder::paper_default({1.4e9, 2.1e9, 2.7e9, 3.3e9, 3.6e9});
  CHECK(b.hz(1) == 2.1e9);
  // Only one frequency known (e.g. emulated): 0.6 x itself.
  auto c = TempoLadder::paper_default({3.0e9});
  CHECK(c.hz(1) == Approx(1.8e9));
}

TEST_CASE("TempoLadder.Spanning.EveryLevelUpToTheMostTheHotPathHolds", "[core][tempo]") {
  // Four levels, any order, one repeated: all of them, fastest first.
  const auto four = TempoLadder::spanning({1.6e9, 2.4e9, 1.2e9, 2.0e9, 2.4e9});
  CHECK(four.frequencies_hz() == std::vector<double>{2.4e9, 2.0e9, 1.6e9, 1.2e9});
  // Haswell E5-2650 v3's twelve (2.3 .. 1.2 GHz by 0.1): eight, evenly spread,
  // both ends kept.
  std::vector<double> twelve;
  for (int i = 0; i < 12; ++i) twelve.push_back((23 - i) * 1e8);
  const auto eight = TempoLadder::spanning(twelve);
  REQUIRE(eight.levels() == rubato::kMaxLevels);
  const std::vector<double> want = {2.3e9, 2.1e9, 2.0e9, 1.8e9, 1.7e9, 1.5e9, 1.4e9, 1.2e9};
  for (int l = 0; l < rubato::kMaxLevels; ++l) CHECK(eight.hz(l) == Approx(want[static_cast<std::size_t>(l)]));
  // One level known: the paper's pair (0.6 x itself), never a ladder with no step.
  CHECK(TempoLadder::spanning({3.0e9}).levels() == 2);
  // Only the searches for least energy get it; hermes keeps the paper's two.
  CHECK(TempoLadder::default_for(true, twelve).levels() == rubato::kMaxLevels);
  CHECK(TempoLadder::default_for(false, twelve).frequencies_hz() ==
        TempoLadder::paper_default(twelve).frequencies_hz());
}

TEST_CASE("TempoLadder.Invalid.Throws", "[core][tempo]") {
  CHECK_THROWS(TempoLadder(std::vector<double>{}));
  CHECK_THROWS(TempoLadder({-1.0}));
  CHECK_THROWS(TempoLadder({1e9, 2e9, 3e9, 4e9, 5e9, 6e9, 7e9, 8e9, 9e9}));
}

TEST_CASE("TempoLadder.Parse.FrequenciesNeedUnits", "[core][tempo][config]") {
  std::vector<double> f;
  std::string err;
  REQUIRE(rubato::parse_frequency_list("2.4GHz,1600MHz,1400000kHz", f, err));
  REQUIRE(f.size() == 3);
  CHECK(f[0] == Approx(2.4e9));
  CHECK(f[1] == Approx(1.6e9));
  CHECK(f[2] == Approx(1.4e9));
  CHECK_FALSE(rubato::parse_frequency_list("2400", f, err));
  CHECK(err.find("unit") != std::string::npos);
  CHECK_FALSE(rubato::parse_frequency_list("fast", f, err));
  CHECK_FALSE(rubato::parse_frequency_list("2.4GHz,", f, err));
  CHECK_FALSE(rubato::parse_frequency_list("-1GHz", f, err));
  CHECK_FALSE(rubato::parse_frequency_list("1000GHz", f, err));
}
