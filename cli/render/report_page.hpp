// The one self-contained HTML page of `rubato report`: inline SVG figures,
// the comparison tables, failed runs and notes; inline CSS, no scripts, no
// external assets, so it opens anywhere and can be mailed as one file.
#pragma once

#include <string>
#include <vector>

#include "analysis/comparison.hpp"
#include "render/report_figures.hpp"
#include "render/trace_links.hpp"

namespace rubato::cli {

// `inputs`: the directories the reports came from (shown in the page);
// `traces`: the trials' exported task traces, linked after the tables.
std::string report_html(const Comparison& c, const std::vector<Figure>& figures, const std::vector<std::string>& inputs,
                        const std::vector<TrialTraceLinks>& traces = {});

}  // namespace rubato::cli
