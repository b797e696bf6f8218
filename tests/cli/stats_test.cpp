#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "analysis/stats.hpp"

using namespace rubato::cli;

TEST_CASE("Cli.Stats.StudentQuantileMatchesTables", "[cli][stats]") {
  // Two-sided 95% critical values from standard t tables.
  CHECK(student_t_quantile(0.975, 1) == Approx(12.7062).epsilon(1e-5));
  CHECK(student_t_quantile(0.975, 2) == Approx(4.302653).epsilon(1e-6));
  CHECK(student_t_quantile(0.975, 4) == Approx(2.776445).epsilon(1e-6));
  CHECK(student_t_quantile(0.975, 17) == Approx(2.1098).epsilon(1e-4));
  CHECK(student_t_quantile(0.975, 30) == Approx(2.0423).epsilon(1e-4));
  CHECK(student_t_quantile(0.975, 1e6) == Approx(1.95996).epsilon(1e-4));
  CHECK(student_t_quantile(0.95, 10) == Approx(1.8125).epsilon(1e-4));
  CHECK_THROWS(student_t_quantile(0.4, 3));
}

TEST_CASE("Cli.Stats.CdfAndIncompleteBeta", "[cli][stats]") {
  CHECK(student_t_cdf(0, 5) == Approx(0.5));
  // df = 1 is the Cauchy distribution: F(1) = 3/4.
  CHECK(student_t_cdf(1, 1) == Approx(0.75));
  CHECK(student_t_cdf(-1, 1) == Approx(0.25));
  // I_x(1, 1) = x; I_x(2, 1) = x^2.
  CHECK(incomplete_beta(1, 1, 0.3) == Approx(0.3));
  CHECK(incomplete_beta(2, 1, 0.3) == Approx(0.09));
}

TEST_CASE("Cli.Stats.SummaryByHand", "[cli][stats]") {
  const std::vector<double> v{1, 2, 3, 4, 5};
  const Summary s = summarize(v);
  CHECK(s.n == 5);
  CHECK(s.mean == Approx(3.0));
  CHECK(s.sd == Approx(std::sqrt(2.5)));                                            // sum of squares 10 over n-1 = 4
  CHECK(s.ci95 == Approx(2.7764 * std::sqrt(2.5) / std::sqrt(5.0)).epsilon(1e-4));  // = 1.9632
  const std::vector<double> one{7};
  const Summary single = summarize(one);
  CHECK(single.mean == 7);
  CHECK(std::isnan(single.ci95));
  CHECK(std::isnan(summarize(std::vector<double>{}).mean));
}

TEST_CASE("Cli.Stats.RatioOfMeansDeltaMethod", "[cli][stats]") {
  const std::vector<double> a{9, 10, 11};   // mean 10, sd 1
  const std::vector<double> b{18, 20, 22};  // mean 20, sd 2
  const Ratio r = ratio_of_means(summarize(a), summarize(b));
  CHECK(r.value == Approx(0.5));
  // relative standard errors: (1/sqrt3)/10 and (2/sqrt3)/20, both 0.0577; t(0.975, 2) = 4.3027
  const double rel = std::sqrt(2.0) * (1.0 / std::sqrt(3.0)) / 10.0;
  CHECK(r.ci95 == Approx(4.3027 * 0.5 * rel).epsilon(1e-4));
  CHECK(std::isnan(ratio_of_means(summarize(a), summarize(std::vector<double>{})).value));
}
