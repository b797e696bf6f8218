#include "rubato/power/session/run_identity.hpp"

#include <unistd.h>

#include <charconv>
#include <ctime>
#include <fstream>

extern char** environ;

namespace rubato {
namespace {

// /proc/self/cmdline, arguments joined by spaces.
std::string read_command_line() {
  std::string command;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  while (std::getline(in, arg, '\0')) command += (command.empty() ? "" : " ") + arg;
  return command;
}

// The command line as it was when this library was loaded: a
// program may rewrite its argv in place later (one benchmark suite overwrites
// the option letters it parsed with '*'), and /proc/self/cmdline shows the
// rewritten memory. Loaded with the program (LD_PRELOAD, a linked front-end)
// this is before main; loaded by libomp from OMP_TOOL_LIBRARIES it is the
// program's first OpenMP construct, which may come after the rewrite: there is
// no copy of the original left to read then (docs/ompt.md).
const std::string g_command_at_load = [] {
  try {
    return read_command_line();
  } catch (...) {
    return std::string();
  }
}();

}  // namespace

const std::string& command_at_load() noexcept { return g_command_at_load; }

Environment read_process_environment() {
  Environment env;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    const std::size_t eq = entry.find('=');
    if (eq != std::string_view::npos)
      env.emplace_back(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  return env;
}

std::optional<int> rank_from_environment(const Environment& env) {
  for (const char* key : {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "PMIX_RANK", "MV2_COMM_WORLD_RANK"}) {
    for (const auto& [name, value] : env) {
      if (name != key) continue;
      int rank = -1;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), rank);
      if (ec == std::errc() && end == value.data() + value.size() && rank >= 0) return rank;
    }
  }
  return std::nullopt;
}

RunIdentity current_run_identity(const Environment& env) {
  RunIdentity id;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) id.host = host;
  id.rank = rank_from_environment(env);
  id.pid = static_cast<std::int64_t>(getpid());
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  if (gmtime_r(&now, &utc)) {
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
    id.started_at = buf;
  }
  // A forked child (no exec) runs the same command: what was read at load stands.
  id.command = !g_command_at_load.empty() ? g_command_at_load : read_command_line();
  return id;
}

}  // namespace rubato
