#include "experiment/likwid_runner.hpp"

#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "analysis/file_io.hpp"
#include "experiment/likwid_csv.hpp"
#include "experiment/process.hpp"

namespace rubato::cli {

namespace {

std::string read_all(const std::string& path) { return read_file(path).value_or(""); }

// The last non-empty line, whitespace-trimmed: what a tool says when it gives up.
std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line)) {
    const auto b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos) continue;
    last = line.substr(b, line.find_last_not_of(" \t\r") - b + 1);
  }
  return last;
}

}  // namespace

std::string likwid_cpu_list(int workers) { return workers <= 1 ? "0" : "0-" + std::to_string(workers - 1); }

std::vector<std::string> likwid_wrap(const std::string& perfctr, const std::string& group, int workers,
                                     const std::string& csv_path, const std::vector<std::string>& argv) {
  std::vector<std::string> out{perfctr, "-C", likwid_cpu_list(workers), "-g", group, "-O", "-o", csv_path};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

LikwidProbe probe_likwid(const std::string& perfctr, const std::string& group) {
  namespace fs = std::filesystem;
  LikwidProbe p;
  std::string dir = (fs::temp_directory_path() / "rubato-likwid-XXXXXX").string();
  if (!mkdtemp(dir.data())) {
    p.why = "cannot create a temporary directory for the likwid probe";
    return p;
  }
  const std::string csv = dir + "/probe.csv", out = dir + "/stdout", err = dir + "/stderr";
  // 20 s: likwid's access daemon gives up (and exit()s) after 10 s.
  const ChildResult r = run_child(likwid_wrap(perfctr, group, 1, csv, {"true"}), {}, out, err, 20.0);
  std::string error;
  if (!r.started) {
    p.why = perfctr + " cannot be started (" + r.error + "; apt-get install likwid)";
  } else if (r.timed_out) {
    p.why = perfctr + " did not finish within 20 s (access daemon not answering?)";
  } else if (r.exit_status != 0) {
    std::string said = last_line(read_all(err));
    if (said.empty()) said = last_line(read_all(out));
    p.why = perfctr + " -g " + group + " exits with status " + std::to_string(r.exit_status) +
            (said.empty() ? "" : ": " + said);
  } else if (!parse_likwid_csv(read_all(csv), error)) {
    p.why = perfctr + " -g " + group + " wrote no usable CSV (" + error + ")";
  } else {
    p.usable = true;
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return p;
}

}  // namespace rubato::cli
