#include "experiment/run_index.hpp"

#include "rubato/core/io/json_error.hpp"

#include <nlohmann/json.hpp>

namespace rubato::cli {

using json = nlohmann::json;

std::string index_to_json(const RunIndex& index) {
  json runs = json::array();
  for (const RunEntry& e : index.runs)
    runs.push_back({{"trial", e.trial},
                    {"policy", e.policy},
                    {"workers", e.workers},
                    {"dir", e.dir},
                    {"reports", e.reports},
                    {"exit_status", e.exit_status},
                    {"elapsed_s", e.elapsed_s},
                    {"error", e.error}});
  const json j{{"rubato_index", 1},
               {"workload", index.workload},
               {"command", index.command},
               {"started_at", index.started_at},
               {"policies", index.policies},
               {"workers", index.workers},
               {"trials", index.trials},
               {"skip", index.skip},
               {"backend", index.backend},
               {"profile", index.profile},
               {"likwid_group", index.likwid_group},
               {"tool", index.tool},
               {"launcher", index.launcher},
               {"launcher_kind", index.launcher_kind},
               {"launcher_ranks", index.launcher_ranks},
               {"runs", std::move(runs)}};
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

std::optional<RunIndex> index_from_json(std::string_view text, std::string& error) {
  error.clear();
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {  // a syntax error, or a number too large for a double
    error = json_syntax_error(text, e);
    return std::nullopt;
  }
  if (!j.is_object() || !j.contains("rubato_index")) {
    error = "offset 0: not a rubato run index (no 'rubato_index' key)";
    return std::nullopt;
  }
  std::string field;
  try {
    RunIndex index;
    auto take = [&](const json& from, const char* key, auto& out, const std::string& path) {
      field = path + key;
      if (const auto it = from.find(key); it != from.end()) it->get_to(out);
    };
    take(j, "workload", index.workload, "");
    take(j, "command", index.command, "");
    take(j, "started_at", index.started_at, "");
    take(j, "policies", index.policies, "");
    take(j, "workers", index.workers, "");
    take(j, "trials", index.trials, "");
    take(j, "skip", index.skip, "");
    take(j, "backend", index.backend, "");
    take(j, "profile", index.profile, "");
    take(j, "likwid_group", index.likwid_group, "");
    take(j, "tool", index.tool, "");
    take(j, "launcher", index.launcher, "");
    take(j, "launcher_kind", index.launcher_kind, "");
    take(j, "launcher_ranks", index.launcher_ranks, "");
    field = "runs";
    const json runs = j.value("runs", json::array());
    if (!runs.is_array()) throw json::type_error::create(302, "runs is not an array", nullptr);
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const std::string path = "runs[" + std::to_string(i) + "].";
      RunEntry e;
      take(runs[i], "trial", e.trial, path);
      take(runs[i], "policy", e.policy, path);
      take(runs[i], "workers", e.workers, path);
      take(runs[i], "dir", e.dir, path);
      take(runs[i], "reports", e.reports, path);
      take(runs[i], "exit_status", e.exit_status, path);
      take(runs[i], "elapsed_s", e.elapsed_s, path);
      take(runs[i], "error", e.error, path);
      index.runs.push_back(std::move(e));
    }
    return index;
  } catch (const json::exception& e) {
    error = "field '" + field + "': " + e.what();
    return std::nullopt;
  }
}

}  // namespace rubato::cli
