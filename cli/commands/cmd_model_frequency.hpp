// `rubato model frequency`: the core + uncore model's what-if
// (rubato/core/model/frequency_pair.hpp), a sibling of `rubato model efs`;
// both share `rubato model`'s option table and --help.
#pragma once

#include <string>
#include <vector>

#include "commands/args.hpp"

namespace rubato::cli {

// The options only `rubato model frequency` takes (--profile and --json are shared).
std::vector<OptionSpec> model_frequency_option_specs();
// Throws UsageError when `a` holds any of `options`, which belong to `rubato model <owner>`.
void reject_options_of(const Args& a, const std::vector<OptionSpec>& options, const std::string& owner);
// `a`: parsed with model_spec(), its first positional "frequency".
int run_model_frequency(const Args& a, const std::vector<OptionSpec>& efs_options);

}  // namespace rubato::cli
