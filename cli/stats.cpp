#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace rubato::cli {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Continued fraction of the incomplete beta function (modified Lentz's method):
// I_x(a,b) = front / a * 1/(1+ d1/(1+ d2/(1+ ...))), with the even and odd
// coefficients d_2m = m(b-m)x / ((a+2m-1)(a+2m)), d_2m+1 = -(a+m)(a+b+m)x / ((a+2m)(a+2m+1)).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300;
  constexpr double eps = 1e-15;
  auto guard = [](double v) { return std::fabs(v) < tiny ? tiny : v; };
  double c = 1.0;
  double d = 1.0 / guard(1.0 - (a + b) * x / (a + 1.0));
  double h = d;
  for (int m = 1; m <= 500; ++m) {
    const double even = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
    d = 1.0 / guard(1.0 + even * d);
    c = guard(1.0 + even / c);
    h *= d * c;
    const double odd = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
    d = 1.0 / guard(1.0 + odd * d);
    c = guard(1.0 + odd / c);
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < eps) break;
  }
  return h;
}

}  // namespace

double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  // The fraction converges fast for x < (a+1)/(a+b+2); use the symmetry otherwise.
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_continued_fraction(a, b, x) / a;
  return 1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b;
}

double student_t_cdf(double t, double df) {
  const double tail = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
  return t >= 0 ? 1.0 - tail : tail;
}

double student_t_quantile(double p, double df) {
  if (!(p > 0.5 && p < 1.0) || !(df > 0)) throw std::invalid_argument("student_t_quantile: needs 0.5 < p < 1 and df > 0");
  // The CDF is monotonic: bracket, then bisect to double precision.
  double lo = 0, hi = 1;
  while (student_t_cdf(hi, df) < p) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

Summary summarize(std::span<const double> values) {
  Summary s;
  s.n = values.size();
  if (s.n == 0) {
    s.mean = s.ci95 = kNaN;
    return s;
  }
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(s.n);
  if (s.n < 2) {
    s.ci95 = kNaN;
    return s;
  }
  double ss = 0;
  for (double v : values) ss += (v - s.mean) * (v - s.mean);
  s.sd = std::sqrt(ss / static_cast<double>(s.n - 1));
  s.ci95 = student_t_quantile(0.975, static_cast<double>(s.n - 1)) * s.sd / std::sqrt(static_cast<double>(s.n));
  return s;
}

Ratio ratio_of_means(const Summary& a, const Summary& b) {
  Ratio r;
  if (a.n == 0 || b.n == 0 || b.mean == 0) {
    r.value = r.ci95 = kNaN;
    return r;
  }
  r.value = a.mean / b.mean;
  if (a.n < 2 || b.n < 2) {
    r.ci95 = kNaN;
    return r;
  }
  const double se_a = a.sd / std::sqrt(static_cast<double>(a.n));
  const double se_b = b.sd / std::sqrt(static_cast<double>(b.n));
  const double rel_a = a.mean != 0 ? se_a / a.mean : 0;
  const double rel_b = se_b / b.mean;
  const double df = static_cast<double>(std::min(a.n, b.n) - 1);
  r.ci95 = student_t_quantile(0.975, df) * std::fabs(r.value) * std::sqrt(rel_a * rel_a + rel_b * rel_b);
  return r;
}

}  // namespace rubato::cli
