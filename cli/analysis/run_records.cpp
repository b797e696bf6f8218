#include "analysis/run_records.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "analysis/file_io.hpp"
#include "experiment/run_index.hpp"

namespace rubato::cli {
namespace {

namespace fs = std::filesystem;

bool read_text(const std::string& p, std::string& out, std::string& error) {
  auto text = read_file(p);
  if (!text) {
    error = "cannot open";
    return false;
  }
  out = std::move(*text);
  return true;
}

std::string canonical_path(const fs::path& p) {
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(p, ec);
  return (ec ? p : c).string();
}

struct IndexedRun {
  std::string index_file;
  const RunIndex* index = nullptr;
  const RunEntry* entry = nullptr;
};

void apply_index(RunRecord& rec, const IndexedRun& at) {
  rec.series = at.index_file;
  rec.series_skip = at.index->skip;
  rec.workload = at.index->workload;
  rec.policy = at.entry->policy;
  rec.workers = at.entry->workers;
  rec.trial = at.entry->trial;
  if (at.entry->exit_status != 0) rec.exit_status = at.entry->exit_status;
  if (!at.entry->error.empty() && rec.error.empty()) rec.error = at.entry->error;
}

}  // namespace

std::string workload_of(const Report& r) {
  if (!r.workload.empty()) return r.workload;
  if (!r.command.empty()) return r.command;
  return "(unnamed program)";
}

int workers_of(const Report& r) {
  return r.workers_requested > 0 ? r.workers_requested : static_cast<int>(r.workers.size());
}

namespace {

struct FoundFiles {
  std::set<std::string> reports;
  std::set<std::string> indexes;
};

// A task trace exported as Trace Event JSON beside its trial's reports
// (rubato run --export-traces: tasks.r0.trace.json), not a report.
bool is_trace_export(const fs::path& p) { return p.stem().extension() == ".trace"; }

// The reports (*.json) and run indexes named by `paths` or found under them.
FoundFiles find_files(const std::vector<std::string>& paths) {
  FoundFiles found;
  auto add = [&](const fs::path& p) {
    (p.filename() == kIndexFileName ? found.indexes : found.reports).insert(canonical_path(p));
  };
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
           it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        if (!it->is_regular_file(ec) || it->path().extension() != ".json" || is_trace_export(it->path())) continue;
        add(it->path());
      }
    } else if (fs::is_regular_file(p, ec)) {
      add(p);
    } else {
      throw std::runtime_error(p + ": no such file or directory");
    }
  }
  if (found.reports.empty() && found.indexes.empty())
    throw std::runtime_error("no reports (*.json) found under " +
                             (paths.empty() ? std::string("(nothing)") : paths.front()));
  return found;
}

RunRecord unreadable_record(const std::string& file, const std::string& error) {
  RunRecord bad;
  bad.file = file;
  bad.error = file + ": " + error;
  bad.unreadable = true;
  return bad;
}

// Reads the run indexes: each run they list is tied to its reports (added to
// `reports`), or recorded as failed when it left none.
void read_indexes(const std::set<std::string>& index_files, std::map<std::string, RunIndex>& indexes,
                  std::map<std::string, IndexedRun>& by_report, std::set<std::string>& reports,
                  std::vector<RunRecord>& records) {
  for (const std::string& file : index_files) {
    std::string text, error;
    std::optional<RunIndex> index;
    if (read_text(file, text, error)) index = index_from_json(text, error);
    if (!index) {
      records.push_back(unreadable_record(file, error));
      continue;
    }
    const RunIndex& stored = indexes.emplace(file, std::move(*index)).first->second;
    const fs::path base = fs::path(file).parent_path();
    for (const RunEntry& e : stored.runs) {
      const IndexedRun at{file, &stored, &e};
      bool any_present = false;
      for (const std::string& rel : e.reports) {
        const std::string abs = canonical_path(base / rel);
        by_report[abs] = at;
        std::error_code ec;
        if (fs::exists(abs, ec)) {
          any_present = true;
          reports.insert(abs);
        }
      }
      if (any_present) continue;
      RunRecord stub;
      stub.file = file;
      apply_index(stub, at);
      if (stub.error.empty())
        stub.error = e.reports.empty()
                         ? "no report written (" + (base / e.dir).string() + ")"
                         : "report listed in the index is missing: " + (base / e.reports.front()).string();
      records.push_back(std::move(stub));
    }
  }
}

// One report file: what it says, completed by its run index when one lists it.
RunRecord read_report(const std::string& file, const std::map<std::string, IndexedRun>& by_report) {
  RunRecord rec;
  rec.file = file;
  std::string text, error;
  if (read_text(file, text, error)) rec.report = report_from_json(text, error);
  if (rec.report) {
    const Report& r = *rec.report;
    rec.workload = workload_of(r);
    rec.policy = r.policy;
    rec.workers = workers_of(r);
    rec.trial = r.trial;
    rec.rank = r.rank;
    rec.host = r.host;
    rec.started_at = r.started_at;
    rec.exit_status = r.exit_status.value_or(0);  // absent: the tool could not know; nothing says it failed
  } else {
    rec = unreadable_record(file, error);
  }
  if (const auto at = by_report.find(file); at != by_report.end()) {
    const std::string workload = rec.workload;
    apply_index(rec, at->second);
    if (rec.report && rec.report->trial) rec.trial = rec.report->trial;
    if (rec.workload.empty()) rec.workload = workload;
  }
  if (rec.report && rec.exit_status != 0 && rec.error.empty())
    rec.error = "exit status " + std::to_string(rec.exit_status);
  return rec;
}

}  // namespace

std::vector<RunRecord> load_run_records(const std::vector<std::string>& paths) {
  FoundFiles found = find_files(paths);
  std::vector<RunRecord> records;
  // Indexes first: they name the runs, including those that left no report.
  std::map<std::string, RunIndex> indexes;
  std::map<std::string, IndexedRun> by_report;
  read_indexes(found.indexes, indexes, by_report, found.reports, records);
  for (const std::string& file : found.reports) records.push_back(read_report(file, by_report));
  return records;
}

}  // namespace rubato::cli
