#include "rubato/power/state/cpufreq_restore.hpp"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "os/sysfs_file.hpp"  // read_small, write_exact: async-signal-safe

namespace rubato {
namespace {

constexpr int kGovernor = 0, kMin = 1, kMax = 2, kSetspeed = 3;  // kCpufreqControlFiles
constexpr int kUncoreMin = 0, kUncoreMax = 1;                    // kUncoreControlFiles
constexpr std::size_t kBuf = 512;

}  // namespace

CpufreqRestorePlan::CpufreqRestorePlan(const MachineState& state, std::string state_file)
    : state_file_(std::move(state_file)) {
  for (const auto& p : state.policies) {
    dirs_.push_back(p.dir);
    uncore_.push_back(p.kind == SavedKind::uncore);
    std::vector<std::string> paths;
    for (const char* f : control_files(p.kind)) paths.push_back(p.dir + "/" + f);
    paths_.push_back(std::move(paths));
    saved_.push_back(p.content);
  }
  failed_.assign(dirs_.size(), 0);
}

bool CpufreqRestorePlan::restore_policy(std::size_t i) noexcept {
  const auto& path = paths_[i];
  const auto& saved = saved_[i];
  char current[kBuf];
  bool ok = true;
  // Writes file f unless it already holds the saved bytes.
  auto put_back = [&](int f) {
    const std::string& want = saved[static_cast<std::size_t>(f)];
    const long n = read_small(path[static_cast<std::size_t>(f)].c_str(), current, sizeof current);
    if (n == static_cast<long>(want.size()) && std::memcmp(current, want.data(), want.size()) == 0) return;
    if (!write_exact(path[static_cast<std::size_t>(f)].c_str(), want.data(), want.size())) ok = false;
  };
  // min <= max must hold after every write: when the saved min is above the
  // current max, raise max first.
  const int min_f = uncore_[i] ? kUncoreMin : kMin, max_f = uncore_[i] ? kUncoreMax : kMax;
  const long long saved_min = leading_integer(saved[static_cast<std::size_t>(min_f)].c_str());
  long long current_max = -1;
  if (read_small(path[static_cast<std::size_t>(max_f)].c_str(), current, sizeof current) >= 0)
    current_max = leading_integer(current);
  if (saved_min >= 0 && current_max >= 0 && saved_min > current_max) {
    put_back(max_f);
    put_back(min_f);
  } else {
    put_back(min_f);
    put_back(max_f);
  }
  if (uncore_[i]) return ok;  // an uncore domain has only its two limits
  put_back(kGovernor);
  // setspeed reads "<unsupported>" again once the governor is not userspace;
  // only a saved userspace speed (or a fake tree) still differs here.
  put_back(kSetspeed);
  return ok;
}

bool CpufreqRestorePlan::begin_write() noexcept {
  writer_tid_.store(static_cast<long>(::gettid()), std::memory_order_relaxed);
  writers_.fetch_add(1, std::memory_order_seq_cst);
  if (!started_.load(std::memory_order_seq_cst)) return true;
  writers_.fetch_sub(1, std::memory_order_seq_cst);
  return false;
}

void CpufreqRestorePlan::end_write() noexcept { writers_.fetch_sub(1, std::memory_order_seq_cst); }

int CpufreqRestorePlan::restore_now() noexcept {
  if (started_.exchange(true, std::memory_order_seq_cst)) return 0;
  // A write in flight on another thread finishes first (a write takes
  // microseconds; 200 ms bounds it). When the signal interrupted the writer
  // itself, waiting would never end: its write is abandoned or lands before
  // ours, as the handler runs to completion before the thread resumes.
  const long self = static_cast<long>(::gettid());
  const timespec pause{0, 100000};
  for (int i = 0;
       i < 2000 && writers_.load(std::memory_order_seq_cst) > 0 && writer_tid_.load(std::memory_order_relaxed) != self;
       ++i)
    ::nanosleep(&pause, nullptr);
  int failures = 0;
  for (std::size_t i = 0; i < dirs_.size(); ++i) {
    failed_[i] = restore_policy(i) ? 0 : 1;
    failures += failed_[i];
  }
  if (failures == 0 && !state_file_.empty()) ::unlink(state_file_.c_str());
  done_.store(true, std::memory_order_release);
  return failures;
}

RestoreOutcome CpufreqRestorePlan::outcome() const {
  RestoreOutcome o;
  for (std::size_t i = 0; i < dirs_.size(); ++i) {
    std::string line = dirs_[i] + (uncore_[i] ? " (uncore limits " + saved_[i][kUncoreMin] + "-" + saved_[i][kUncoreMax]
                                              : " (governor " + saved_[i][kGovernor]);
    std::erase(line, '\n');
    line += uncore_[i] ? " kHz)" : ")";
    (failed_[i] ? o.failed : o.restored).push_back(line);
  }
  return o;
}

}  // namespace rubato
