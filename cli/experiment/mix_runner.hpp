// `rubato run --mix "progA; progB; …"`: [EFS]'s multi-programmed setting.
// The programs start together, each in its own process group; rubato itself
// hosts the efs and affinity controllers (rubato/power/session/controller_host.hpp,
// TargetKind::programs) over them: efs stops and continues whole programs
// (ProcessThrottle: SIGSTOP / SIGCONT), affinity binds whole programs to CPUs.
// No program is left stopped: the controller lets every program go at the
// end, and rubato's signal handlers continue them if it is interrupted or dies.
// One report per mix run (the programs are the report's "workers").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "experiment/process.hpp"
#include "rubato/core/config/policy.hpp"

namespace rubato::cli {

// "progA a1 a2; progB" -> {{progA, a1, a2}, {progB}}: programs split at ';',
// arguments at blanks (no shell quoting). Throws UsageError on an empty program.
std::vector<std::vector<std::string>> parse_mix(std::string_view text);

struct MixSetup {
  std::vector<std::vector<std::string>> programs;
  std::string mix_text;  // as the user wrote it
  PolicySpec policy;
  EnvOverrides env;         // for every program (OMP_NUM_THREADS, ...)
  std::string profile;      // "" = RUBATO_PROFILE / auto
  std::string run_dir;      // stdout.p<i>.txt, stderr.p<i>.txt and the report go here
  std::string report_path;  // the run's report
  double timeout_s = 0;     // <= 0: none
};

// Runs the programs to their end; the result's exit status is the first
// non-zero one of the programs (0 when all succeeded).
ChildResult run_mix(const MixSetup& setup);

}  // namespace rubato::cli
