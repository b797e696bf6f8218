#include "rubato/power/machine/topology.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "os/sysfs_file.hpp"

namespace rubato {
namespace {

namespace fs = std::filesystem;

bool parse_int(std::string_view s, long long& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

// cpufreq files are in kHz; rubato's interfaces are in Hz.
bool read_khz_as_hz(const std::string& path, double& hz) {
  std::string text;
  long long khz = 0;
  if (!read_sysfs_value(path, text) || !parse_int(text, khz) || khz <= 0) return false;
  hz = static_cast<double>(khz) * 1e3;
  return true;
}

std::vector<std::string> split_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::uint64_t parse_cache_size(const std::string& text) {
  long long n = 0;
  std::string digits = text;
  std::uint64_t scale = 1;
  if (!digits.empty() && (digits.back() == 'K' || digits.back() == 'k')) scale = 1024, digits.pop_back();
  else if (!digits.empty() && digits.back() == 'M') scale = 1024 * 1024, digits.pop_back();
  return parse_int(digits, n) && n > 0 ? static_cast<std::uint64_t>(n) * scale : 0;
}

void read_clock_domains(Topology& t, const std::string& cpu_dir) {
  std::vector<std::string> dirs;
  std::error_code ec;
  // Modern kernels: cpufreq/policyN; older ones only cpuN/cpufreq.
  for (fs::directory_iterator it(cpu_dir + "/cpufreq", ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().rfind("policy", 0) == 0) dirs.push_back(it->path().string());
  if (dirs.empty())
    for (int cpu : t.cpus)
      if (fs::is_directory(cpu_dir + "/cpu" + std::to_string(cpu) + "/cpufreq", ec))
        dirs.push_back(cpu_dir + "/cpu" + std::to_string(cpu) + "/cpufreq");
  std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;  // policy2 before policy10
  });
  std::set<int> covered;
  for (const auto& dir : dirs) {
    ClockDomainInfo d;
    d.policy_dir = dir;
    std::string text;
    if (!read_sysfs_value(dir + "/related_cpus", text) || !parse_cpu_list(text, d.cpus) || d.cpus.empty()) {
      if (!read_sysfs_value(dir + "/affected_cpus", text) || !parse_cpu_list(text, d.cpus) || d.cpus.empty()) {
        t.problems.push_back(dir + ": no related_cpus");
        continue;
      }
    }
    if (covered.count(d.cpus.front())) continue;  // cpuN/cpufreq links of one policy
    covered.insert(d.cpus.begin(), d.cpus.end());
    read_khz_as_hz(dir + "/cpuinfo_min_freq", d.min_hz);
    read_khz_as_hz(dir + "/cpuinfo_max_freq", d.max_hz);
    if (read_sysfs_value(dir + "/scaling_available_frequencies", text)) {
      for (const auto& w : split_words(text)) {
        long long khz = 0;
        if (parse_int(w, khz) && khz > 0) d.available_hz.push_back(static_cast<double>(khz) * 1e3);
      }
      std::sort(d.available_hz.begin(), d.available_hz.end(), std::greater<>());
      d.available_hz.erase(std::unique(d.available_hz.begin(), d.available_hz.end()), d.available_hz.end());
    }
    read_sysfs_value(dir + "/scaling_governor", d.governor);
    read_sysfs_value(dir + "/scaling_driver", d.driver);
    read_khz_as_hz(dir + "/base_frequency", d.base_hz);
    read_sysfs_value(dir + "/energy_performance_preference", d.epp);
    if (read_sysfs_value(dir + "/scaling_available_governors", text)) d.governors = split_words(text);
    t.clock_domains.push_back(std::move(d));
  }
}

void read_uncore_domains(Topology& t, const std::string& cpu_dir) {
  const std::string base = cpu_dir + "/intel_uncore_frequency";
  std::vector<std::string> dirs;
  std::error_code ec;
  for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("package_", 0) == 0 || name.rfind("uncore", 0) == 0) dirs.push_back(it->path().string());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const auto& dir : dirs) {
    UncoreDomainInfo u;
    u.dir = dir;
    u.name = fs::path(dir).filename().string();
    if (!read_khz_as_hz(dir + "/initial_min_freq_khz", u.initial_min_hz) ||
        !read_khz_as_hz(dir + "/initial_max_freq_khz", u.initial_max_hz) ||
        !read_khz_as_hz(dir + "/min_freq_khz", u.min_hz) || !read_khz_as_hz(dir + "/max_freq_khz", u.max_hz)) {
      t.problems.push_back(dir + ": uncore limits unreadable");
      continue;
    }
    read_khz_as_hz(dir + "/current_freq_khz", u.current_hz);
    std::string text;
    long long id = -1;
    if (read_sysfs_value(dir + "/package_id", text) && parse_int(text, id)) u.package = static_cast<int>(id);
    else if (u.name.rfind("package_", 0) == 0 && parse_int(u.name.substr(8, 2), id)) u.package = static_cast<int>(id);
    t.uncore_domains.push_back(std::move(u));
  }
}

void read_caches(Topology& t, const std::string& cpu_dir) {
  std::set<std::tuple<int, std::string, std::vector<int>>> seen;
  for (int cpu : t.cpus) {
    for (int index = 0; index < 16; ++index) {
      const std::string dir = cpu_dir + "/cpu" + std::to_string(cpu) + "/cache/index" + std::to_string(index);
      std::string level, type, size, shared;
      if (!read_sysfs_value(dir + "/level", level)) break;
      read_sysfs_value(dir + "/type", type);
      read_sysfs_value(dir + "/size", size);
      CacheInfo c;
      long long lv = 0;
      if (!parse_int(level, lv)) continue;
      c.level = static_cast<int>(lv);
      c.type = type;
      c.size_bytes = parse_cache_size(size);
      if (!read_sysfs_value(dir + "/shared_cpu_list", shared) || !parse_cpu_list(shared, c.cpus)) c.cpus = {cpu};
      if (seen.insert({c.level, c.type, c.cpus}).second) t.caches.push_back(std::move(c));
    }
  }
}

}  // namespace

bool parse_cpu_list(std::string_view text, std::vector<int>& out) {
  std::vector<int> cpus;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const std::size_t dash = item.find('-');
    long long lo = 0, hi = 0;
    if (dash == std::string_view::npos) {
      if (!parse_int(item, lo)) return false;
      hi = lo;
    } else if (!parse_int(item.substr(0, dash), lo) || !parse_int(item.substr(dash + 1), hi)) {
      return false;
    }
    if (lo < 0 || hi < lo || hi > 1 << 16) return false;
    for (long long c = lo; c <= hi; ++c) cpus.push_back(static_cast<int>(c));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  out = std::move(cpus);
  return true;
}

std::string read_cpu_model(const std::string& cpuinfo_path) {
  std::ifstream in(cpuinfo_path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string v = line.substr(colon + 1);
    while (!v.empty() && v.front() == ' ') v.erase(v.begin());
    return v;
  }
  return "";
}

int Topology::clock_domain_of(int cpu) const noexcept {
  for (std::size_t i = 0; i < clock_domains.size(); ++i)
    if (std::find(clock_domains[i].cpus.begin(), clock_domains[i].cpus.end(), cpu) != clock_domains[i].cpus.end())
      return static_cast<int>(i);
  return -1;
}

std::vector<double> Topology::available_hz() const {
  std::vector<double> all;
  for (const auto& d : clock_domains) {
    if (!d.available_hz.empty()) all.insert(all.end(), d.available_hz.begin(), d.available_hz.end());
    else {
      // No list: the driver takes any frequency in [min, max]. Offering only
      // max lets TempoLadder::paper_default pick 0.6 x max itself ([HERMES]
      // §4.2); the sysfs back-end clamps what it writes into [min, max].
      if (d.max_hz > 0) all.push_back(d.max_hz);
    }
  }
  std::sort(all.begin(), all.end(), std::greater<>());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

Topology read_topology(const std::string& sysfs_root) {
  Topology t;
  t.sysfs_root = sysfs_root;
  const std::string cpu_dir = sysfs_root + "/devices/system/cpu";
  std::string online;
  if (!read_sysfs_value(cpu_dir + "/online", online) || !parse_cpu_list(online, t.cpus) || t.cpus.empty()) {
    t.problems.push_back(cpu_dir + "/online unreadable; assuming CPUs 0.." +
                         std::to_string(std::max(1u, std::thread::hardware_concurrency()) - 1));
    t.cpus.clear();
    for (unsigned c = 0; c < std::max(1u, std::thread::hardware_concurrency()); ++c)
      t.cpus.push_back(static_cast<int>(c));
  }
  read_clock_domains(t, cpu_dir);
  read_uncore_domains(t, cpu_dir);
  read_caches(t, cpu_dir);
  for (const char* driver : {"intel_pstate", "amd_pstate"})
    if (read_sysfs_value(cpu_dir + "/" + driver + "/status", t.pstate_status)) {
      t.pstate_driver = driver;
      break;
    }
  return t;
}

}  // namespace rubato
