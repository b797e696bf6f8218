#include "rubato/power/likwid/likwid_power_meter.hpp"

#include <chrono>

#include "rubato/power/likwid/likwid_probe.hpp"

#ifdef RUBATO_HAVE_LIKWID
#include <likwid.h>
#endif

namespace rubato {

LikwidPowerMeter::LikwidPowerMeter(double window_s) : window_s_(window_s) {}

LikwidPowerMeter::~LikwidPowerMeter() { poller_.stop(); }

bool LikwidPowerMeter::usable(std::string& why) {
  if (!likwid_msr_access(why)) return false;  // before forking a probe that cannot succeed
  const LikwidProbe probe = probe_likwid();
  if (!probe.power_ok) why = probe.power_why;
  return probe.power_ok;
}

#ifdef RUBATO_HAVE_LIKWID
namespace {
PowerData* as_data(std::vector<char>& bytes, std::size_t i) { return reinterpret_cast<PowerData*>(bytes.data()) + i; }
}  // namespace

bool LikwidPowerMeter::start(std::string& why) {
  if (topology_init() != 0) {
    why = "likwid topology_init failed";
    return false;
  }
  HPMmode(ACCESSMODE_DIRECT);
  if (HPMinit() != 0) {
    why = "likwid HPMinit failed (direct mode)";
    return false;
  }
  const CpuTopology_t topo = get_cpuTopology();
  std::vector<bool> seen(topo->numSockets, false);
  for (unsigned i = 0; i < topo->numHWThreads; ++i) {
    const HWThread& t = topo->threadPool[i];
    if (!t.inCpuSet || t.packageId >= seen.size() || seen[t.packageId]) continue;
    seen[t.packageId] = true;
    package_cpus_.push_back(static_cast<int>(t.apicId));
  }
  for (int cpu : package_cpus_) {
    if (HPMaddThread(cpu) != 0 || power_init(cpu) == 0) {
      why = "likwid power_init failed on cpu " + std::to_string(cpu);
      return false;
    }
  }
  data_.assign(package_cpus_.size() * sizeof(PowerData), 0);
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t i = 0; i < package_cpus_.size(); ++i) power_start(as_data(data_, i), package_cpus_[i], PKG);
  running_ = true;
  poller_.start(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(window_s_)), [this] {
    std::lock_guard<std::mutex> guard(mutex_);
    if (running_) roll_window(true);
  });
  return true;
}

void LikwidPowerMeter::roll_window(bool restart) {
  for (std::size_t i = 0; i < package_cpus_.size(); ++i) {
    power_stop(as_data(data_, i), package_cpus_[i], PKG);
    total_j_ += power_printEnergy(as_data(data_, i));
    if (restart) power_start(as_data(data_, i), package_cpus_[i], PKG);
  }
}

EnergyFigure LikwidPowerMeter::stop() noexcept {
  EnergyFigure e;
  poller_.stop();
  std::lock_guard<std::mutex> lock(mutex_);
  if (!running_) {
    e.why_not = "likwid power measurement was not started";
    return e;
  }
  roll_window(false);
  running_ = false;
  power_finalize();
  e.available = true;
  e.joules = total_j_;
  e.source = "measured:likwid";
  return e;
}
#else
bool LikwidPowerMeter::start(std::string& why) {
  why = "rubato was built without likwid";
  return false;
}
void LikwidPowerMeter::roll_window(bool) {}
EnergyFigure LikwidPowerMeter::stop() noexcept {
  EnergyFigure e;
  e.why_not = "rubato was built without likwid";
  return e;
}
#endif

}  // namespace rubato
