// The command line (CLI11 under cli/commands/args.cpp): every subcommand's --help lists
// each option of its table with its description, default and accepted values
// under its section; parsing keeps rubato's syntax (--name value, --name=value,
// -o, repeated options, "--"); errors name the option.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "commands/args.hpp"
#include "commands/commands.hpp"

using namespace rubato::cli;

TEST_CASE("Cli.Args.EveryHelpListsEveryOptionWithItsDefaultAndValues", "[cli][args]") {
  for (const Command& c : commands()) {
    const CommandSpec& spec = c.spec();
    const std::string help = help_text(spec);
    INFO(spec.name << "\n" << help);
    CHECK(help.find(spec.summary) != std::string::npos);
    for (const OptionSpec& o : spec.options) {
      INFO("--" << o.name);
      CHECK(!o.help.empty());
      // Its own line in the listing ("  -o,--out DIR   ..."), not a mention elsewhere.
      const std::string listed = std::string("\n  ") + (o.short_name ? std::string("-") + o.short_name + "," : "") +
                                 "--" + o.name + (o.value_name.empty() ? "" : " " + o.value_name);
      const auto at = help.find(listed);
      REQUIRE(at != std::string::npos);
      // Listed under its own section: the nearest section title above it is its group.
      std::string nearest;
      std::size_t best = 0;
      for (const char* g : {kWhatToRun, kHowToMeasure, kWhereResultsGo, kOutputFormat}) {
        const auto s = help.rfind(std::string(g) + ":", at);
        if (s != std::string::npos && s >= best) {
          best = s;
          nearest = g;
        }
      }
      CHECK(nearest == o.group);
      CHECK(help.find(o.help, at) != std::string::npos);
      if (!o.default_text.empty()) CHECK(help.find("default: " + o.default_text, at) != std::string::npos);
      if (!o.accepted.empty()) CHECK(help.find("accepted: " + o.accepted, at) != std::string::npos);
      if (o.value_name.empty()) CHECK(o.accepted.empty());  // a flag takes no value
    }
  }
}

TEST_CASE("Cli.Args.RubatosSyntaxParses", "[cli][args]") {
  const Args a({"dir1", "--skip=1", "--trace", "a.trace", "-o", "out", "--trace", "b.trace", "--no-png", "dir2"},
               report_spec());
  CHECK(a.positionals() == std::vector<std::string>{"dir1", "dir2"});
  CHECK(a.value("skip") == "1");
  CHECK(a.value("out") == "out");
  CHECK(a.values("trace") == std::vector<std::string>{"a.trace", "b.trace"});
  CHECK(a.flag("no-png"));
  CHECK_FALSE(a.flag("help"));
  const Args s({"--workers", "1,2", "--workers", "4", "--policy", "baseline"}, simulate_spec());
  CHECK(s.list_values("workers") == std::vector<std::string>{"1", "2", "4"});
  const Args r({"--trials", "3", "--", "./app", "--skip", "9", "-o", "x"}, run_spec());
  CHECK(r.value("trials") == "3");
  // After "--" everything is the program's, options of rubato's own included.
  CHECK(r.after_dashdash() == std::vector<std::string>{"./app", "--skip", "9", "-o", "x"});
  CHECK_FALSE(r.value("skip"));
}

TEST_CASE("Cli.Args.ErrorsNameTheOption", "[cli][args]") {
  auto message = [](const std::vector<std::string>& argv, const CommandSpec& spec) {
    try {
      Args a(argv, spec);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(message({"--bogus"}, compare_spec()) == "unknown option --bogus");
  CHECK(message({"--skip", "1", "--skip", "2"}, compare_spec()) == "--skip given more than once");
  CHECK(message({"--skip"}, compare_spec()).find("--skip") != std::string::npos);
  CHECK(message({"stray"}, run_spec()) == "unexpected argument 'stray' (the program goes after --)");
  CHECK(message({"stray"}, info_spec()) == "unexpected argument 'stray'");
  CHECK(message({"--json", "--csv"}, compare_spec()) == "accepted");  // excluded by the command, not the parser
}

TEST_CASE("Cli.Args.BashCompletionListsTheOptions", "[cli][args]") {
  for (const Command& c : commands())
    for (const std::string& o : option_names(c.spec())) CHECK(o.rfind("--", 0) == 0);
  const auto names = option_names(simulate_spec());
  CHECK(std::find(names.begin(), names.end(), "--slack-dwell") != names.end());
}
