// `rubato compare DIR…`: every report under the directories, grouped by
// workload x workers x policy, as mean ± 95% CI normalised to the baseline.
#include <cstdio>

#include "commands/args.hpp"
#include "commands/commands.hpp"
#include "render/compare_output.hpp"
#include "analysis/comparison.hpp"
#include "analysis/run_records.hpp"

namespace rubato::cli {

std::vector<OptionSpec> comparison_option_specs() {
  return {
      {"skip", kWhatToRun, "drop the first N trials of each series (warm-up)", "N",
       "the --skip its rubato run was given (its index), else 2", "an integer >= 0"},
      {"baseline", kWhatToRun, "the policy the others are normalised to", "POLICY", "baseline", "a policy name"},
  };
}

const CommandSpec& compare_spec() {
  static const CommandSpec spec{
      "compare",
      "table of time, energy and EDP per workload x workers x policy, normalised to baseline",
      "DIR|REPORT",
      "",
      with(comparison_option_specs(),
           {
               {"json", kOutputFormat, "the comparison as JSON", "", "", ""},
               {"csv", kOutputFormat, "one CSV row per workload x workers x policy", "", "", ""},
           }),
      "Reads every report (*.json) under the directories; a run's rubato-index.json lists its failed runs too.",
  };
  return spec;
}

namespace {
struct CompareCommandOptions {
  std::vector<std::string> paths;
  CompareOptions compare;
  bool json = false;
  bool csv = false;
};

CompareCommandOptions setup(const std::vector<std::string>& argv) {
  Args a(argv, compare_spec());
  CompareCommandOptions o;
  o.paths = a.positionals();
  if (o.paths.empty()) throw UsageError("give at least one directory (or report file)");
  o.compare.skip = static_cast<int>(parse_integer("--skip", a.value_or("skip", "2"), 0, 1000000));
  o.compare.skip_given = a.value("skip").has_value();  // else each series' own (its run index)
  o.compare.baseline = a.value_or("baseline", "baseline");
  o.json = a.flag("json");
  o.csv = a.flag("csv");
  if (o.json && o.csv) throw UsageError("--json and --csv exclude each other");
  return o;
}
}  // namespace

int run_compare(const std::vector<std::string>& argv) {
  const CompareCommandOptions o = setup(argv);
  const std::vector<RunRecord> records = load_run_records(o.paths);
  // A damaged report is listed with the failed runs and named here; the
  // status says the comparison is incomplete.
  int unreadable = 0;
  for (const RunRecord& r : records) {
    if (!r.unreadable) continue;
    std::fprintf(stderr, "rubato compare: cannot read %s\n", r.error.c_str());
    ++unreadable;
  }
  const Comparison c = compare_runs(records, o.compare);
  if (!c.refused.empty()) {
    for (const auto& line : c.refused) std::fprintf(stderr, "rubato compare: %s\n", line.c_str());
    return 1;
  }
  if (o.json) {
    std::fputs(comparison_json(c).c_str(), stdout);
  } else if (o.csv) {
    std::fputs(comparison_csv(c).c_str(), stdout);
    for (const auto& f : c.failed)
      std::fprintf(stderr, "rubato compare: failed run (not averaged): %s — %s\n", f.reason.c_str(), f.files.c_str());
  } else {
    std::fputs(comparison_text(c).c_str(), stdout);
  }
  return unreadable > 0 ? 1 : 0;
}

}  // namespace rubato::cli
