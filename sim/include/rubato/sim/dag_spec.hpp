// The synthetic DAG spec language of `rubato simulate --dag`:
//
//   spec   := group (',' group)*          groups run one after another (a join between them)
//   group  := phase ('+' phase)*          phases joined by '+' run at the same time: spawned
//                                         together, one join (their tasks co-run on the workers)
//   phase  := kind (':' item)*
//   item   := key '=' value | value       a bare value is the kind's main argument
//
//   fib:N        [work= node= leaf=]                     Cilk fib: both calls spawned, then sync
//   loop:N       [grain= iter= split=binary|linear]      parallel for over N iterations
//   dc           [depth= fanout= leaf= pre= post=]       balanced divide and conquer
//   split:N      [grain= item= part= skew= filter=serial|par]  uneven recursive split (quicksort, quickhull)
//   chain:N      [work=]                                 N tasks one after another (spawn, sync, spawn, ...)
//   serial:T                                             one task of T
//   mem:N        [tasks= work= solo=]                    N independent tasks of `work` each (default 1s),
//                                                        spawned together: [EFS]'s instances of a
//                                                        memory-bound program; solo= defaults to 1
//                                                        (the whole bus, clamped by the EFS model)
//   pbbs:NAME    knn | ray | sort | compare | hull       PBBS-shaped mixes (pbbs_presets.cpp)
//   keys every kind accepts: jitter= (work x U[1-j, 1+j]), beta= (b_c, the share of the
//   work's time that scales with the core clock; default: the profile's), uncore= (b_u,
//   the share that moves data at the memory system's bandwidth and so slows with the
//   uncore clock below the profile's knee; default 0, or --uncore-sensitivity; beta +
//   uncore <= 1; rubato/core/model/time_model.hpp), bus= or solo= (solo memory-bus utilisation in
//   [0, 1], [EFS] b_i; default 0 except mem; contention between tasks that use the
//   bus follows the EFS model, efs_contention.hpp),
//   seed= (the DAG's own randomness), rep= (run the phase K times)
// A phase written the same way twice is the same task construct (one task type for the
// engine's durations, as a program's code is), e.g. "loop:1000:beta=0.9,loop:1000:uncore=0.7,loop:1000:beta=0.9".
//
// Amounts of work are times at the profile's fastest frequency ("10us", "50ns",
// "1.5ms") or compute cycles ("3000cyc", "2kcyc", "1.5Mcyc"); counts accept
// "1e6". Parse errors name the phase, the token and what was expected.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rubato::sim {

// An amount of work: time at the reference (fastest) frequency plus cycles.
struct WorkAmount {
  double ns = 0;
  double cycles = 0;
  double ns_at(double reference_hz) const noexcept { return ns + cycles / reference_hz * 1e9; }
};

enum class PhaseKind { fib, loop, dc, split, chain, serial, mem };

struct PhaseSpec {
  PhaseKind kind = PhaseKind::serial;
  std::string text;  // the phase as written (for messages and reports)
  // Counts and shape parameters (only those of `kind` are read).
  std::int64_t n = 0;            // fib N, loop N, split N, chain N, mem N
  std::int64_t grain = 1;        // loop / split leaf size
  int depth = 10;                // dc
  int fanout = 2;                // dc
  bool linear = false;           // loop split=linear
  bool parallel_filter = false;  // split filter=par
  double skew = 0;               // split: child size ratio 0.5 +- skew/2
  WorkAmount work;               // fib/chain/mem per task, serial total, dc leaf, loop/split per item
  WorkAmount node;               // fib internal node, dc pre-spawn, split per-item partition
  WorkAmount post;               // dc post-sync
  // Common.
  double jitter = 0;
  std::optional<double> beta;    // b_c; unset: the default (the profile's)
  std::optional<double> uncore;  // b_u; unset: the default (0)
  double bus = 0;
  std::uint64_t seed = 0;
  int rep = 1;
  bool with_previous = false;  // joined to the phase before by '+': they run at the same time
};

struct DagSpec {
  std::string text;
  std::vector<PhaseSpec> phases;
};

// Parses `text`; on failure returns nullopt and sets `error` to one line naming
// the phase, the offending token and what was expected.
std::optional<DagSpec> parse_dag_spec(std::string_view text, std::string& error);

// "knn" -> its spec text; nullopt for an unknown name.
std::optional<std::string> pbbs_preset(std::string_view name);
const std::vector<std::string>& pbbs_preset_names();

}  // namespace rubato::sim
