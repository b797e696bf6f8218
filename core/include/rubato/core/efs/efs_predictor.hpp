// EFS solo-bandwidth predictor ([EFS] §4.1, Eq. 20), one per thread: the
// prediction B for the next scheduling interval from the solo utilisation b
// estimated (Eq. 9) over the interval that just ended, of length Δt.
//
// Reconstructed from the garbled PDF text:
//   Eq. 20  B^{k+1} = (b^k Δt^k + B^k (t0 − Δt^k)) / t0   if Δt^k < t0
//           B^{k+1} = b^k                                  if Δt^k ≥ t0
//   B^0 = 1 / number of cores (25 % on the paper's quad-core); t0 = 1 ms there.
#pragma once

namespace rubato::efs {

inline constexpr double kPaperPredictorWindowS = 1e-3;  // §4.1: t0 = 1 ms

class SoloBandwidthPredictor {
 public:
  // window_s = t0 (> 0; a non-positive window makes every interval replace the
  // prediction); initial = B^0.
  SoloBandwidthPredictor(double window_s, double initial) noexcept : window_s_(window_s), prediction_(initial) {}
  // B^0 = 1/cores (§4.1).
  static SoloBandwidthPredictor for_cores(int cores, double window_s = kPaperPredictorWindowS) noexcept {
    return {window_s, cores > 0 ? 1.0 / cores : 1.0};
  }

  double prediction() const noexcept { return prediction_; }
  double window_s() const noexcept { return window_s_; }

  // Eq. 20: folds in the interval that just ended; returns B^{k+1}. An interval
  // of non-positive length carries no information and leaves B unchanged.
  double update(double solo_estimate, double interval_s) noexcept {
    if (!(interval_s > 0)) return prediction_;
    if (interval_s >= window_s_) prediction_ = solo_estimate;
    else prediction_ = (solo_estimate * interval_s + prediction_ * (window_s_ - interval_s)) / window_s_;
    return prediction_;
  }

 private:
  double window_s_;
  double prediction_;
};

}  // namespace rubato::efs
