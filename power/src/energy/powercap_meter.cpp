#include "rubato/power/energy/powercap_meter.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "os/sysfs_file.hpp"

namespace rubato {
namespace {

namespace fs = std::filesystem;

std::string read_name(const std::string& dir) {
  std::string name;
  return read_sysfs_value(dir + "/name", name) ? name : "";
}

}  // namespace

std::vector<PowercapZone> find_powercap_zones(const std::string& sysfs_root, std::vector<std::string>& problems) {
  std::vector<PowercapZone> zones;
  const std::string base = sysfs_root + "/class/powercap";
  std::error_code ec;
  std::vector<std::string> dirs;
  for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string leaf = it->path().filename().string();
    // Control types (intel-rapl, intel-rapl-mmio) have no energy counter.
    if (leaf.find(':') == std::string::npos) continue;
    if (leaf.rfind("intel-rapl-mmio", 0) == 0) continue;  // duplicates the MSR package zone
    dirs.push_back(it->path().string());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const auto& dir : dirs) {
    PowercapZone z;
    z.dir = dir;
    z.name = read_name(dir);
    std::string text;
    unsigned long long range = 0;
    if (read_sysfs_value(dir + "/max_energy_range_uj", text)) {
      const auto [end, e2] = std::from_chars(text.data(), text.data() + text.size(), range);
      if (e2 == std::errc()) z.max_range_j = static_cast<double>(range) * 1e-6;
    } else {
      problems.push_back(dir + "/max_energy_range_uj unreadable");
    }
    const std::string leaf = fs::path(dir).filename().string();
    const bool top_level = std::count(leaf.begin(), leaf.end(), ':') == 1;
    z.counted = (top_level && z.name.rfind("package", 0) == 0) || (!top_level && z.name == "dram");
    zones.push_back(std::move(z));
  }
  return zones;
}

double wrapped_delta_j(double before_j, double after_j, double max_range_j) noexcept {
  if (after_j >= before_j) return after_j - before_j;
  return max_range_j > 0 ? after_j + (max_range_j - before_j) : 0;
}

bool read_zone_energy_j(const PowercapZone& zone, double& joules, std::string& why) {
  const std::string path = zone.dir + "/energy_uj";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    why = path + ": " + std::strerror(err);
    if (err == EACCES || err == EPERM)
      why +=
          " (energy_uj is readable only by root since Linux 5.10, CVE-2020-8694; run as root or grant read "
          "access with a udev rule)";
    return false;
  }
  char buf[64];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  unsigned long long uj = 0;
  std::size_t len = n > 0 ? static_cast<std::size_t>(n) : 0;
  while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' ')) --len;
  const auto [end, ec] = std::from_chars(buf, buf + len, uj);
  if (n <= 0 || ec != std::errc() || end != buf + len) {
    why = path + ": not a counter";
    return false;
  }
  joules = static_cast<double>(uj) * 1e-6;
  return true;
}

ZoneEnergy::ZoneEnergy(std::vector<PowercapZone> zones) : zones_(std::move(zones)), last_j_(zones_.size(), 0) {}

bool ZoneEnergy::reset(std::string& why) {
  bool all = true;
  for (std::size_t i = 0; i < zones_.size(); ++i) {
    std::string w;
    last_j_[i] = 0;
    if (!read_zone_energy_j(zones_[i], last_j_[i], w) && all) {
      all = false;
      why = w;
    }
  }
  return all;
}

bool ZoneEnergy::take(double& joules, std::string& why) {
  bool all = true;
  joules = 0;
  for (std::size_t i = 0; i < zones_.size(); ++i) {
    double now = 0;
    std::string w;
    if (!read_zone_energy_j(zones_[i], now, w)) {
      if (all) why = w;
      all = false;
      continue;
    }
    joules += wrapped_delta_j(last_j_[i], now, zones_[i].max_range_j);
    last_j_[i] = now;
  }
  return all;
}

PowercapMeter::PowercapMeter(std::string sysfs_root, double poll_interval_s)
    : root_(std::move(sysfs_root)), poll_interval_s_(poll_interval_s) {}

PowercapMeter::~PowercapMeter() { poller_.stop(); }

bool PowercapMeter::usable(std::string& why) {
  std::vector<std::string> problems;
  std::vector<PowercapZone> counted;
  for (auto& z : find_powercap_zones(root_, problems))
    if (z.counted) counted.push_back(std::move(z));
  std::lock_guard<std::mutex> lock(mutex_);
  energy_ = ZoneEnergy(std::move(counted));
  if (energy_.zones().empty()) {
    why = "no RAPL package zone under " + root_ + "/class/powercap";
    return false;
  }
  return energy_.reset(why);
}

bool PowercapMeter::start(std::string& why) {
  bool have_zones = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    have_zones = !energy_.zones().empty();
  }
  if (!have_zones && !usable(why)) return false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!energy_.reset(why)) return false;
    total_j_ = 0;
  }
  poller_.start(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(poll_interval_s_)),
                [this] { poll(); });
  return true;
}

void PowercapMeter::poll() {
  std::lock_guard<std::mutex> lock(mutex_);
  double joules = 0;
  std::string why;
  if (energy_.take(joules, why)) total_j_ += joules;
  else if (failure_.empty()) failure_ = why;
}

std::optional<double> PowercapMeter::read_j() noexcept {
  try {
    std::lock_guard<std::mutex> lock(mutex_);
    double joules = 0;
    std::string why;
    if (!energy_.take(joules, why)) {
      if (failure_.empty()) failure_ = why;
      return std::nullopt;
    }
    total_j_ += joules;
    return total_j_;
  } catch (...) {
    return std::nullopt;
  }
}

EnergyFigure PowercapMeter::stop() noexcept {
  EnergyFigure e;
  try {
    poller_.stop();
    double joules = 0;
    std::string why;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!energy_.take(joules, why)) {
      e.why_not = why;
      return e;
    }
    total_j_ += joules;
    if (!failure_.empty()) {
      e.why_not = "a reading failed during the run: " + failure_;
      return e;
    }
    e.available = true;
    e.joules = total_j_;
    e.source = "measured:rapl";
  } catch (...) {
    e.available = false;
    e.why_not = "rapl: reading failed";
  }
  return e;
}

}  // namespace rubato
