// A stand-in for an instrumented program in `rubato run` tests: it does what
// the OMPT tool would (reads RUBATO_POLICY / RUBATO_REPORT / OMP_NUM_THREADS,
// writes one report per "rank") and misbehaves on request.
//   --log FILE            append "policy workers OMP_TOOL_LIBRARIES argv..." per run
//   --fail-policy P       exit 3 under policy P (after writing the report)
//   --silent-policy P     write no report under policy P
//   --ranks N             write N reports, as N MPI ranks would
//   --sleep-ms N          work for N ms (default 5)
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "rubato/core/io/report.hpp"

namespace {
std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}
}  // namespace

int main(int argc, char** argv) {
  std::string log, fail_policy, silent_policy;
  int ranks = 1, sleep_ms = 5;
  for (int i = 1; i + 1 < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--log") log = argv[++i];
    else if (a == "--fail-policy") fail_policy = argv[++i];
    else if (a == "--silent-policy") silent_policy = argv[++i];
    else if (a == "--ranks") ranks = std::atoi(argv[++i]);
    else if (a == "--sleep-ms") sleep_ms = std::atoi(argv[++i]);
  }
  const std::string policy = env_or("RUBATO_POLICY", "baseline");
  const int workers = std::atoi(env_or("OMP_NUM_THREADS", "1").c_str());
  const auto t0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!log.empty()) {
    std::ofstream out(log, std::ios::app);
    out << policy << ' ' << workers << ' ' << env_or("OMP_TOOL_LIBRARIES", "-");
    for (int i = 1; i < argc; ++i) out << ' ' << argv[i];
    out << '\n';
  }
  std::printf("fake program output\n");
  if (policy == silent_policy) return 0;
  for (int r = 0; r < ranks; ++r) {
    rubato::Report rep;
    rep.tool_version = "fake";
    rep.host = "fakehost";
    if (ranks > 1) rep.rank = r;
    rep.pid = getpid();
    rep.policy = policy;
    rep.backend = env_or("RUBATO_BACKEND", "dry-run");
    rep.profile = env_or("RUBATO_PROFILE", "fake");
    rep.workers_requested = workers;
    rep.wall_s = wall;
    // A stand-in figure: what matters to these tests is the plumbing, not its value.
    rep.energy = {true, wall * 10.0 * workers, "modeled:fake", ""};
    for (int w = 0; w < workers; ++w) {
      rubato::WorkerReport wr;
      wr.id = static_cast<rubato::WorkerId>(w);
      wr.busy_s_at_level = {wall, 0.0};
      rep.workers.push_back(wr);
    }
    const std::string path =
        rubato::expand_path_pattern(env_or("RUBATO_REPORT", "fake-%p.json"), rep.pid, rep.host, rep.rank);
    std::ofstream(path) << rubato::to_json(rep);
  }
  return policy == fail_policy ? 3 : 0;
}
