#include "commands.hpp"

namespace rubato::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"config", "list every RUBATO_* variable and config-file key with its default",
       "rubato config [--markdown]", run_config},
      {"info", "what this machine allows: cores, clock domains, back-ends usable or not and why, profiles",
       "rubato info [--json]", run_info},
      {"restore", "put cpufreq settings back from the state a killed rubato process left",
       "rubato restore [--state FILE]  (RUBATO_STATE_DIR, RUBATO_SYSFS_ROOT apply)", run_restore},
      {"calibrate", "measure this machine's profile (RAPL + cpufreq), or with --beta a program's frequency sensitivity",
       "rubato calibrate [--out FILE (calibrated-HOST.json)] [--cpus LIST] [--seconds S (5)] [--freqs LIST] "
       "[--latency-repeats N (5)]; or rubato calibrate --beta [--out FILE] [--runs N (5)] [--freqs LIST] "
       "[--timeout S] -- PROGRAM ARGS  (RUBATO_SYSFS_ROOT, RUBATO_STATE_DIR apply; needs root)",
       run_calibrate},
      {"compare", "table of time, energy and EDP per workload x workers x policy, normalised to baseline",
       "rubato compare DIR|REPORT... [--skip N (2)] [--baseline POLICY (baseline)] [--json | --csv]", run_compare},
      {"run", "run a program under each policy, N trials each, with the tool attached; then compare",
       "rubato run [--policies baseline,workpath,workload,hermes[,fixed:F]] [--trials 20] [--skip 2] [--workers 1,2] "
       "[--backend B] [--profile P] [--likwid GROUP] [--out DIR] [--tool librubato_ompt.so] [--timeout S] "
       "[--json | --csv] -- PROGRAM ARGS ('{workers}' in ARGS becomes the worker count); or --mix \"PROG ARGS; PROG ARGS; ...\" "
       "instead of -- PROGRAM: the programs run together, stopped / continued by efs and placed by affinity "
       "(--policies baseline,efs,affinity); --launcher \"mpirun -np 4\" | \"srun -N 2 --ntasks-per-node=2\" "
       "[--launcher-kind openmpi|mpich|slurm|inherit]: each trial one launch, a report per rank, merged per node",
       run_run},
      {"report", "figures (SVG, PNG) and one self-contained HTML page from results directories",
       "rubato report DIR... -o OUT [--skip N (2)] [--baseline POLICY] [--trace FILE]... [--no-png]", run_report},
      {"simulate", "run a synthetic DAG or a task trace on a modelled machine; same report as a real run",
       "rubato simulate --profile NAME --workers N[,N...] (--dag SPEC | --trace FILE) --policy P[,P...] [--seed S (1)] "
       "[--trials T (1)] [--out FILE|DIR] [--freqs LIST]... [--model cilk|omp] [--placement spread|compact] "
       "[--steal-cost T (1us)] [--min-dwell T (0)] [--uncore FREQ] [--slack-dwell T (10 transition latencies, >= 1ms)] [--cores N] [--beta B] [--thresholds K (2)] "
       "[--profile-window M (16)] [--sample-interval T (100us)] [--contention efs|none] "
       "[--control-interval T (10ms)] [--throttle preempt|task] [--quiet]",
       run_simulate},
      {"model", "what-if: seed 001's contention model for a set of threads (utilisations, throughput, energy, admission)",
       "rubato model efs --solo B[,B...] [--identical N] [--profile NAME | --power P0,P1,...] [--candidate B] "
       "[--max-iterations N (50)] [--json]",
       run_model},
  };
  return table;
}

}  // namespace rubato::cli
