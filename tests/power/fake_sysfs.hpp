// A fake sysfs tree in a temporary directory (GEOPM's CpufreqSysfsDriverTest
// style): cpus, cpufreq policies, caches and powercap zones written as plain
// files, so back-ends run against it through RUBATO_SYSFS_ROOT.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "../support/temp_dir.hpp"

namespace rubato::test {

class FakeSysfs {
 public:
  // `base`: where the tree goes (/dev/shm gives tmpfs, closer to sysfs write costs).
  explicit FakeSysfs(const std::string& base = "/tmp") : dir_(base, "rubato-fake-sysfs") {}

  const std::string& root() const { return dir_.path(); }
  std::string cpu_dir() const { return root() + "/devices/system/cpu"; }
  std::string policy_dir(int policy) const { return cpu_dir() + "/cpufreq/policy" + std::to_string(policy); }

  void write(const std::string& rel, const std::string& content) const {
    const std::filesystem::path p = root() + "/" + rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
  }
  // The same, replacing the file in one step (write a sibling, rename over):
  // for files a thread of the code under test may read meanwhile — sysfs
  // never shows a reader a half-written value, a truncate-and-write does.
  void replace(const std::string& rel, const std::string& content) const {
    const std::filesystem::path p = root() + "/" + rel;
    const std::filesystem::path tmp = p.string() + ".new";
    std::ofstream(tmp, std::ios::binary) << content;
    std::filesystem::rename(tmp, p);
  }
  std::string read(const std::string& rel) const {
    std::ifstream in(root() + "/" + rel, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // `cpus` CPUs, grouped `per_domain` to a cpufreq policy, with the given
  // available frequencies in kHz (empty: no scaling_available_frequencies).
  void add_cpus(int cpus, int per_domain, const std::vector<long>& khz, const std::string& governor = "ondemand") {
    write("devices/system/cpu/online", cpus == 1 ? "0\n" : "0-" + std::to_string(cpus - 1) + "\n");
    for (int p = 0; p * per_domain < cpus; ++p) {
      const std::string dir = "devices/system/cpu/cpufreq/policy" + std::to_string(p * per_domain) + "/";
      const int first = p * per_domain;
      const int last = std::min(cpus, first + per_domain) - 1;
      const std::string list =
          first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
      write(dir + "related_cpus", list + "\n");
      write(dir + "affected_cpus", list + "\n");
      std::string avail;
      for (long k : khz) avail += std::to_string(k) + " ";
      if (!khz.empty()) write(dir + "scaling_available_frequencies", avail + "\n");
      const long max = khz.empty() ? 3000000 : *std::max_element(khz.begin(), khz.end());
      const long min = khz.empty() ? 1000000 : *std::min_element(khz.begin(), khz.end());
      write(dir + "cpuinfo_max_freq", std::to_string(max) + "\n");
      write(dir + "cpuinfo_min_freq", std::to_string(min) + "\n");
      write(dir + "scaling_max_freq", std::to_string(max) + "\n");
      write(dir + "scaling_min_freq", std::to_string(min) + "\n");
      write(dir + "scaling_governor", governor + "\n");
      write(dir + "scaling_available_governors", "performance powersave userspace ondemand\n");
      write(dir + "scaling_setspeed", "<unsupported>\n");
      write(dir + "scaling_driver", "fake-cpufreq\n");
    }
    for (int c = 0; c < cpus; ++c) {
      const std::string cache = "devices/system/cpu/cpu" + std::to_string(c) + "/cache/";
      write(cache + "index0/level", "1\n");
      write(cache + "index0/type", "Data\n");
      write(cache + "index0/size", "32K\n");
      write(cache + "index0/shared_cpu_list", std::to_string(c) + "\n");
      write(cache + "index1/level", "3\n");
      write(cache + "index1/type", "Unified\n");
      write(cache + "index1/size", "8192K\n");
      write(cache + "index1/shared_cpu_list", "0-" + std::to_string(cpus - 1) + "\n");
    }
  }

  // Every file under the cpufreq tree with its exact bytes.
  std::map<std::string, std::string> snapshot(const std::string& rel = "devices/system/cpu/cpufreq") const {
    std::map<std::string, std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root() + "/" + rel))
      if (e.is_regular_file()) {
        std::ifstream in(e.path(), std::ios::binary);
        out[e.path().string()] = std::string(std::istreambuf_iterator<char>(in), {});
      }
    return out;
  }

 private:
  TempDir dir_;
};

}  // namespace rubato::test
