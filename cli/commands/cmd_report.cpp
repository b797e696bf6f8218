// `rubato report DIR… -o OUT`: the comparison as figures (SVG, and PNG when
// rsvg-convert is installed), one self-contained HTML page, and the CSV.
#include <cstdio>
#include <filesystem>

#include "commands/args.hpp"
#include "commands/commands.hpp"
#include "render/compare_output.hpp"
#include "analysis/file_io.hpp"
#include "analysis/comparison.hpp"
#include "experiment/process.hpp"
#include "render/report_figures.hpp"
#include "render/report_page.hpp"
#include "analysis/run_records.hpp"

namespace rubato::cli {

namespace {

namespace fs = std::filesystem;

struct ReportOptions {
  std::vector<std::string> inputs;
  std::string out;
  CompareOptions compare;
  std::vector<std::string> traces;
  bool png = true;
};

}  // namespace

const CommandSpec& report_spec() {
  static const CommandSpec spec{
      "report",
      "figures (SVG, PNG) and one self-contained HTML page from results directories",
      "DIR",
      "",
      with(comparison_option_specs(),
           {
               {"trace", kWhatToRun, "also draw this RUBATO_TRACE file's timeline", "FILE", "", "a trace file", true},
               {"out", kWhereResultsGo, "the directory the page and figures go to", "OUT", "", "a directory (required)",
                false, 'o'},
               {"no-png", kOutputFormat, "SVG figures only (no rsvg-convert run)", "", "", ""},
           }),
      "PNG figures need rsvg-convert (librsvg2-bin); without it the SVGs and the page are complete.",
  };
  return spec;
}

namespace {

ReportOptions setup(const std::vector<std::string>& argv) {
  Args a(argv, report_spec());
  ReportOptions o;
  o.inputs = a.positionals();
  if (o.inputs.empty()) throw UsageError("give at least one results directory");
  const auto out = a.value("out");
  if (!out) throw UsageError("give the output directory with -o OUT");
  o.out = *out;
  o.compare.skip = static_cast<int>(parse_integer("--skip", a.value_or("skip", "2"), 0, 1000000));
  o.compare.skip_given = a.value("skip").has_value();  // else each series' own (its run index)
  o.compare.baseline = a.value_or("baseline", "baseline");
  o.traces = a.values("trace");
  o.png = !a.flag("no-png");
  return o;
}

void write_text(const fs::path& path, const std::string& text) {
  if (!write_file_atomically(path.string(), text)) throw std::runtime_error("cannot write " + path.string());
}

// rsvg-convert (librsvg2-bin) turns each SVG into a PNG; without it the SVGs
// and the page are still complete.
bool find_in_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  for (const std::string& dir : split(path ? path : "", ':')) {
    std::error_code ec;
    if (!dir.empty() && fs::is_regular_file(fs::path(dir) / program, ec)) return true;
  }
  return false;
}

}  // namespace

int run_report(const std::vector<std::string>& argv) {
  const ReportOptions o = setup(argv);
  const Comparison c = compare_runs(load_run_records(o.inputs), o.compare);
  if (!c.refused.empty()) {
    for (const auto& line : c.refused) std::fprintf(stderr, "rubato report: %s\n", line.c_str());
    return 1;
  }
  std::vector<Figure> figures = comparison_figures(c);
  for (std::size_t i = 0; i < o.traces.size(); ++i) {
    std::string error;
    const auto trace = read_trace(o.traces[i], error);
    if (!trace) throw std::runtime_error(o.traces[i] + ": " + error);
    figures.push_back(
        timeline_figure(*trace, fs::path(o.traces[i]).filename().string(),
                        "timeline" + (o.traces.size() > 1 ? "-" + std::to_string(i + 1) : std::string())));
  }
  std::error_code ec;
  fs::create_directories(o.out, ec);
  if (ec) throw std::runtime_error("cannot create " + o.out + ": " + ec.message());
  const fs::path out(o.out);
  const bool png = o.png && find_in_path("rsvg-convert");
  if (o.png && !png)
    std::fprintf(stderr,
                 "rubato report: no PNG files: rsvg-convert not found (apt-get install librsvg2-bin); "
                 "the SVG files and the HTML page are complete\n");
  for (const Figure& f : figures) {
    const fs::path svg = out / (f.stem + ".svg");
    write_text(svg, f.svg);
    std::printf("%s\n", svg.string().c_str());
    if (!png) continue;
    const fs::path png_path = out / (f.stem + ".png");
    const ChildResult r = run_child({"rsvg-convert", "-f", "png", "-o", png_path.string(), svg.string()}, {},
                                    "/dev/null", (out / ".rsvg-convert.log").string(), 60);
    if (!r.started || r.exit_status != 0)
      std::fprintf(stderr, "rubato report: rsvg-convert failed on %s (exit %d); see %s\n", svg.string().c_str(),
                   r.exit_status, (out / ".rsvg-convert.log").string().c_str());
    else std::printf("%s\n", png_path.string().c_str());
  }
  fs::remove(out / ".rsvg-convert.log", ec);
  write_text(out / "comparison.csv", comparison_csv(c));
  std::printf("%s\n", (out / "comparison.csv").string().c_str());
  write_text(out / "index.html", report_html(c, figures, o.inputs, find_trace_exports(o.inputs, o.out)));
  std::printf("%s\n", (out / "index.html").string().c_str());
  return 0;
}

}  // namespace rubato::cli
