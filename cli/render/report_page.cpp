#include "render/report_page.hpp"

#include "render/compare_output.hpp"
#include "render/svg.hpp"

namespace rubato::cli {
namespace {

constexpr const char* kStyle =
    R"(body{font-family:"DejaVu Sans","Liberation Sans",Arial,sans-serif;margin:24px auto;max-width:960px;color:#222}
h1{font-size:22px}h2{font-size:17px;margin-top:28px}h3{font-size:14px;margin:18px 0 6px}
p.meta{color:#444;margin:2px 0}figure{margin:18px 0}figcaption{font-size:13px;color:#333;margin-top:4px}
table{border-collapse:collapse;font-size:12px;margin:6px 0}th,td{border-bottom:1px solid #ddd;padding:3px 8px;white-space:nowrap}
th{background:#f3f3f3;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
ul.notes{font-size:12px;color:#444}svg{max-width:100%;height:auto})";

std::string esc(const std::string& s) { return xml_escape(s); }

}  // namespace

std::string report_html(const Comparison& c, const std::vector<Figure>& figures, const std::vector<std::string>& inputs,
                        const std::vector<TrialTraceLinks>& traces) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>rubato report</title>\n"
      "<style>" +
      std::string(kStyle) + "</style>\n</head>\n<body>\n<h1>rubato report</h1>\n";
  std::string from;
  for (const auto& i : inputs) from += (from.empty() ? "" : ", ") + i;
  out += "<p class=\"meta\">from " + esc(from) + "</p>\n";
  for (const auto& line : comparison_header(c)) out += "<p class=\"meta\">" + esc(line) + "</p>\n";
  if (!figures.empty()) out += "<h2>Figures</h2>\n";
  for (const auto& f : figures)
    out += "<figure id=\"" + esc(f.stem) + "\">\n" + f.svg + "<figcaption>" + esc(f.caption) +
           "</figcaption>\n</figure>\n";
  out += "<h2>Tables</h2>\n";
  for (const auto& w : c.workloads) {
    const WorkloadTable t = workload_table(c, w);
    out += "<h3>" + esc(t.title) + "</h3>\n<table>\n<tr>";
    for (const auto& h : t.header) out += "<th>" + esc(h) + "</th>";
    out += "</tr>\n";
    for (const auto& row : t.rows) {
      out += "<tr>";
      for (std::size_t i = 0; i < row.size(); ++i)
        out += std::string(t.numeric[i] ? "<td class=\"num\">" : "<td>") + esc(row[i]) + "</td>";
      out += "</tr>\n";
    }
    out += "</table>\n";
    if (!t.notes.empty()) {
      out += "<ul class=\"notes\">\n";
      for (const auto& n : t.notes) out += "<li>" + esc(n) + "</li>\n";
      out += "</ul>\n";
    }
  }
  out += trace_links_html(traces);
  if (!c.failed.empty()) {
    out += "<h2>Failed runs (kept, not averaged): " + std::to_string(c.failed.size()) + "</h2>\n<ul class=\"notes\">\n";
    for (const auto& f : c.failed) out += "<li>" + esc(failed_run_line(f)) + "</li>\n";
    out += "</ul>\n";
  }
  if (!c.notes.empty()) {
    out += "<h2>Notes</h2>\n<ul class=\"notes\">\n";
    for (const auto& n : c.notes) out += "<li>" + esc(n) + "</li>\n";
    out += "</ul>\n";
  }
  return out + "</body>\n</html>\n";
}

}  // namespace rubato::cli
