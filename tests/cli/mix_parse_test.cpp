// `rubato run --mix "progA; progB"`: how the programs are split.
#include <catch2/catch.hpp>

#include "commands/args.hpp"
#include "experiment/mix_runner.hpp"

using namespace rubato::cli;

TEST_CASE("Cli.Mix.SplitsProgramsAndArguments", "[cli][mix]") {
  const auto mix = parse_mix("  ./a --n 5;./b\t-x  ;  c ");
  REQUIRE(mix.size() == 3);
  CHECK(mix[0] == std::vector<std::string>{"./a", "--n", "5"});
  CHECK(mix[1] == std::vector<std::string>{"./b", "-x"});
  CHECK(mix[2] == std::vector<std::string>{"c"});
}

TEST_CASE("Cli.Mix.RefusesEmptyPrograms", "[cli][mix]") {
  CHECK_THROWS_AS(parse_mix("a;;b"), UsageError);
  CHECK_THROWS_AS(parse_mix("a; "), UsageError);
  CHECK_THROWS_AS(parse_mix(""), UsageError);
}
