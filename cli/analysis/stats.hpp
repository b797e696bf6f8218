// Statistics for `rubato compare`: mean and 95% confidence interval over
// trials (Student t), and ratios of means normalised to a baseline ([HERMES]
// §4.1: N trials, the first ones dropped, figures normalised to the control).
#pragma once

#include <cstddef>
#include <span>

namespace rubato::cli {

// Regularised incomplete beta function I_x(a, b).
double incomplete_beta(double a, double b, double x);
// Cumulative distribution of Student's t with `df` degrees of freedom.
double student_t_cdf(double t, double df);
// The t with P(T <= t) = p (0.5 < p < 1), e.g. p = 0.975 for a two-sided 95% interval.
double student_t_quantile(double p, double df);

struct Summary {
  std::size_t n = 0;
  double mean = 0;
  double sd = 0;    // sample standard deviation (n - 1); 0 when n < 2
  double ci95 = 0;  // half-width of the 95% interval of the mean; NaN when n < 2
};

Summary summarize(std::span<const double> values);

// a / b for two independent means, with a 95% interval by the delta method:
// relative standard error sqrt((se_a/a)^2 + (se_b/b)^2), t quantile with the
// smaller sample's degrees of freedom (conservative).
struct Ratio {
  double value = 0;
  double ci95 = 0;  // NaN when either side has fewer than 2 values
};

Ratio ratio_of_means(const Summary& a, const Summary& b);

}  // namespace rubato::cli
