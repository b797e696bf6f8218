#include "render/trace_links.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <set>

#include "analysis/file_io.hpp"
#include "experiment/run_index.hpp"
#include "render/svg.hpp"

namespace rubato::cli {
namespace {

namespace fs = std::filesystem;

// A relative path as a URL path: every byte outside the unreserved set and '/' percent-encoded.
std::string url_path(const fs::path& p) {
  std::string out;
  for (unsigned char c : p.generic_string()) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

// The run indexes under the inputs, each with the input it was found under
// (an input that is a file is a report: none).
std::set<std::pair<fs::path, fs::path>> find_indexes(const std::vector<std::string>& inputs) {
  std::set<std::pair<fs::path, fs::path>> found;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (!fs::is_directory(input, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(input, fs::directory_options::skip_permission_denied, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      if (it->path().filename() == kIndexFileName)
        found.emplace(fs::weakly_canonical(it->path(), ec), fs::weakly_canonical(input, ec));
    }
  }
  return found;
}

// A trial directory's exports: each trace's OTF2 archive (its anchor file) and Trace Event JSON, by name.
std::vector<TraceExportLink> trial_exports(const fs::path& dir, const fs::path& page_dir) {
  std::vector<std::pair<std::string, TraceExportLink>> found;  // sorted by trace, OTF2 first
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const fs::path& p = e.path();
    if (p.stem().extension() != ".trace") continue;
    fs::path file;
    std::string format;
    if (p.extension() == ".otf2" && fs::is_regular_file(p / "traces.otf2", ec)) {
      file = p / "traces.otf2";
      format = "OTF2";
    } else if (p.extension() == ".json" && e.is_regular_file(ec)) {
      file = p;
      format = "Perfetto";
    } else {
      continue;
    }
    const std::string text = fs::relative(file, dir, ec).generic_string();
    found.emplace_back(p.stem().string() + (format == "OTF2" ? "0" : "1"),
                       TraceExportLink{format, text, url_path(fs::relative(file, page_dir, ec))});
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<TraceExportLink> links;
  for (auto& [key, link] : found) links.push_back(std::move(link));
  return links;
}

}  // namespace

std::vector<TrialTraceLinks> find_trace_exports(const std::vector<std::string>& inputs, const std::string& page_dir) {
  std::vector<TrialTraceLinks> trials;
  std::error_code ec;
  const fs::path page = fs::weakly_canonical(fs::absolute(page_dir, ec), ec);
  for (const auto& [index_file, input] : find_indexes(inputs)) {
    std::string error;
    const auto text = read_file(index_file.string());
    const auto index = text ? index_from_json(*text, error) : std::nullopt;
    if (!index) continue;  // the comparison has said why
    const fs::path base = index_file.parent_path();
    for (const RunEntry& run : index->runs) {
      std::vector<TraceExportLink> links = trial_exports(base / run.dir, page);
      if (!links.empty())
        trials.push_back({fs::relative(base / run.dir, input, ec).generic_string(), std::move(links)});
    }
  }
  return trials;
}

std::string trace_links_html(const std::vector<TrialTraceLinks>& trials) {
  if (trials.empty()) return "";
  std::string out =
      "<h2>Task traces</h2>\n<p class=\"meta\">Each trial's task trace (rubato run --export-traces): open a .json "
      "in Perfetto UI (<a href=\"https://ui.perfetto.dev\">ui.perfetto.dev</a>, Open trace file) or in "
      "chrome://tracing (Load), and an OTF2 archive's traces.otf2 in Vampir, or print it with otf2-print.</p>\n"
      "<ul class=\"notes\">\n";
  for (const TrialTraceLinks& t : trials) {
    out += "<li>" + xml_escape(t.trial) + ":";
    for (std::size_t i = 0; i < t.links.size(); ++i)
      out += std::string(i ? " &middot;" : "") + " <a href=\"" + xml_escape(t.links[i].href) + "\">" +
             xml_escape(t.links[i].text) + "</a> (" + t.links[i].format + ")";
    out += "</li>\n";
  }
  return out + "</ul>\n";
}

}  // namespace rubato::cli
