#include "experiment/run_harvest.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "analysis/file_io.hpp"
#include "experiment/likwid_csv.hpp"
#include "rubato/core/io/report.hpp"

namespace rubato::cli {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& path) { return read_file(path.string()).value_or(""); }

}  // namespace

std::string report_pattern(const std::string& run_dir, bool launched) {
  return (fs::path(run_dir) / (launched ? "report.r%r.%h.json" : "report.r%r.json")).string();
}

namespace {

// The run directory's report*.json, in name order.
std::vector<fs::path> report_files(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file(ec) && name.rfind("report", 0) == 0 && e.path().extension() == ".json")
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The figures of the trial's likwid-perfctr output, if it has one; what is
// wrong with it goes to the warnings.
std::map<std::string, double> likwid_of(const RunLabel& label, std::vector<std::string>& warnings) {
  std::map<std::string, double> likwid;
  if (label.likwid_csv.empty()) return likwid;
  std::string error;
  const std::string text = read_all(label.likwid_csv);
  if (text.empty()) {
    warnings.push_back("likwid-perfctr wrote no output to " + label.likwid_csv);
  } else if (const auto parsed = parse_likwid_csv(text, error)) {
    likwid = likwid_figures(*parsed);
    if (likwid.empty()) warnings.push_back(label.likwid_csv + ": no energy, power or bandwidth metric in it");
  } else {
    warnings.push_back(label.likwid_csv + ": " + error);
  }
  return likwid;
}

// Launched ranks: every one must have written its own report.
std::string missing_ranks_error(const RunLabel& label, const std::set<int>& ranks, std::size_t read) {
  auto missing = [&](int n) {
    std::string list;
    for (int r = 0; r < n; ++r)
      if (!ranks.count(r)) list += (list.empty() ? "" : ", ") + std::to_string(r);
    return list;
  };
  const int want = label.expected_ranks;
  const int have = static_cast<int>(ranks.size());
  if (read != ranks.size())
    return std::to_string(read) + " reports from " + std::to_string(ranks.size()) +
           " distinct ranks (do the ranks see OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID?)";
  if (want > 0 && (have != want || *ranks.rbegin() != want - 1))
    return "reports from " + std::to_string(have) + " of " + std::to_string(want) + " ranks" +
           (missing(want).empty() ? "" : " (none from rank " + missing(want) + ")");
  if (want == 0 && *ranks.rbegin() + 1 != have) return "no report from rank " + missing(*ranks.rbegin() + 1);
  return "";
}

}  // namespace

Harvest harvest_run(const std::string& base, const std::string& run_dir, const RunLabel& label) {
  Harvest h;
  const std::vector<fs::path> files = report_files(fs::path(base) / run_dir);
  if (files.empty()) {
    h.error = "no report written" + std::string(label.exit_status ? "" : " (is the rubato tool attached?)");
    return h;
  }
  const std::map<std::string, double> likwid = likwid_of(label, h.warnings);

  std::set<int> ranks;
  std::set<std::string> hosts;
  std::size_t read = 0;
  std::error_code ec;
  for (const fs::path& f : files) {
    h.reports.push_back(fs::relative(f, base, ec).string());
    std::string error;
    auto report = report_from_json(read_all(f), error);
    if (!report) {
      if (h.error.empty()) h.error = f.string() + ": " + error;
      continue;
    }
    ++read;
    ranks.insert(report->rank.value_or(0));
    hosts.insert(report->host);
    report->exit_status = label.exit_status;
    report->trial = label.run.trial;
    report->workload = label.workload;
    if (report->command.empty()) report->command = label.command;
    if (report->workers_requested == 0) report->workers_requested = label.run.workers;
    // One likwid-perfctr measured the whole trial: its figures go to the first
    // report only, so merging the ranks does not count them twice.
    if (&f == &files.front())
      for (const auto& [k, v] : likwid) report->external[k] = v;
    for (const auto& w : h.warnings) report->notes.push_back(w);
    for (const auto& n : label.notes) report->notes.push_back(n);
    h.wall_s = std::max(h.wall_s, report->wall_s);
    if (!write_file_atomically(f.string(), to_json(*report)) && h.error.empty())
      h.error = f.string() + ": cannot rewrite the report";
  }
  h.ranks = static_cast<int>(ranks.size());
  h.hosts = static_cast<int>(hosts.size());
  if (label.launched && h.error.empty()) h.error = missing_ranks_error(label, ranks, read);
  return h;
}

}  // namespace rubato::cli
