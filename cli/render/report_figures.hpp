// The figures of `rubato report`, after [HERMES] §4.2: per policy energy
// saving and time loss against the baseline (Figs. 6-7), normalised EDP
// (Figs. 8-9), workpath and workload alone relative to hermes (Figs. 10-13),
// and a per-worker tempo timeline from a task trace.
#pragma once

#include <string>
#include <vector>

#include "analysis/comparison.hpp"
#include "rubato/core/io/trace.hpp"

namespace rubato::cli {

struct Figure {
  std::string stem;     // file name without extension, e.g. "fig6-hermes-energy-time"
  std::string caption;  // one sentence: what it shows and how to read it
  std::string svg;
};

// "knn_omp -n 5 · 2w": a workload x workers group as a chart category.
std::string category_label(const WorkloadResult& w);

std::vector<Figure> comparison_figures(const Comparison& c);

// `name`: shown in the title (e.g. the trace's file name).
Figure timeline_figure(const Trace& trace, const std::string& name, const std::string& stem);

}  // namespace rubato::cli
