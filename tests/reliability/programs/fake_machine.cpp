// A fake machine for `rubato calibrate`'s tests: keeps a fake
// cpufreq + powercap tree alive under ROOT (what RUBATO_SYSFS_ROOT points
// at), as the kernel would for an acpi-cpufreq machine with RAPL:
//  - a cpufreq policy per real online CPU (userspace governor available,
//    scaling_available_frequencies, scaling_setspeed); every period a written
//    scaling_setspeed (governor userspace) becomes scaling_cur_freq, any other
//    governor shows scaling_max_freq;
//  - class/powercap/intel-rapl:0 (package-0) and its dram subzone
//    intel-rapl:0:0, whose energy_uj advance by a power law of each real
//    CPU's busy time and its fake frequency:
//        P_package = U + Σ_cpu busy_share_cpu · C · (f_cpu / f_max)^A
//        P_dram    = D + DB · Σ_cpu busy_share_cpu
// The law's constants are arguments: they live in the test, never in rubato.
//
// Busy time, per real CPU: from /proc/stat (everything that ran there), or
// with --busy-from comm:NAME only the threads of processes called NAME (their
// /proc/PID/task/TID/stat times, on the CPU each last ran on): on a shared
// machine other programs' load would otherwise enter the fake power.
//
//   fake_machine ROOT --freqs-khz K,K,... --uncore-w U --core-w C --exponent A
//                [--dram-w D] [--dram-busy-w DB] [--busy-from proc-stat|comm:NAME] [--period-ms 5]
// Writes ROOT/fake-machine.ready once the tree exists; ends at SIGTERM/SIGINT.
#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

std::string root;

void put(const std::string& rel, const std::string& text) {
  const std::filesystem::path p = root + "/" + rel;
  std::filesystem::create_directories(p.parent_path());
  const std::string tmp = p.string() + ".new";
  { std::ofstream(tmp, std::ios::binary) << text; }
  std::filesystem::rename(tmp, p);  // readers never see half a value
}

// A file's first word (sysfs takes "userspace" and "userspace\n" alike).
std::string get(const std::string& rel) {
  std::ifstream in(root + "/" + rel, std::ios::binary);
  std::string word;
  in >> word;
  return word;
}

std::vector<int> online_cpus() {
  std::ifstream in("/sys/devices/system/cpu/online");
  std::string text;
  std::getline(in, text);
  std::vector<int> cpus;
  std::stringstream s(text);
  std::string part;
  while (std::getline(s, part, ',')) {
    const auto dash = part.find('-');
    const int lo = std::stoi(part.substr(0, dash));
    const int hi = dash == std::string::npos ? lo : std::stoi(part.substr(dash + 1));
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

std::string cpu_list_text(const std::vector<int>& cpus) {
  std::string out;
  for (int c : cpus) out += (out.empty() ? "" : ",") + std::to_string(c);
  return out;
}

double tick_s() { return 1.0 / static_cast<double>(::sysconf(_SC_CLK_TCK)); }

// Busy seconds per CPU from /proc/stat.
std::map<int, double> proc_stat_busy() {
  std::map<int, double> out;
  std::ifstream in("/proc/stat");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || !std::isdigit(static_cast<unsigned char>(line[3]))) continue;
    std::istringstream s(line.substr(3));
    int cpu = -1;
    unsigned long long v[8] = {};
    s >> cpu;
    for (auto& x : v) s >> x;  // user nice system idle iowait irq softirq steal
    out[cpu] = static_cast<double>(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) * tick_s();
  }
  return out;
}

// Busy seconds per CPU of the threads of processes named `comm`, accumulated
// across calls (each thread's new time goes to the CPU it last ran on).
class CommBusy {
 public:
  explicit CommBusy(std::string comm) : comm_(std::move(comm)) {}
  std::map<int, double> read() {
    const auto now = std::chrono::steady_clock::now();
    if (now - scanned_ > std::chrono::milliseconds(100)) {
      scan();
      scanned_ = now;
    }
    for (int pid : pids_) {
      const std::string task = "/proc/" + std::to_string(pid) + "/task";
      DIR* d = ::opendir(task.c_str());
      if (!d) continue;
      while (dirent* e = ::readdir(d)) {
        if (e->d_name[0] == '.') continue;
        std::ifstream in(task + "/" + e->d_name + "/stat");
        std::string text;
        std::getline(in, text);
        const auto close = text.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream s(text.substr(close + 2));
        std::vector<std::string> f;
        for (std::string w; s >> w;) f.push_back(w);
        if (f.size() < 37) continue;                                        // f[0] = field 3 (state)
        const double t = (std::stod(f[11]) + std::stod(f[12])) * tick_s();  // utime + stime
        const int cpu = std::stoi(f[36]);                                   // processor
        const std::string key = std::to_string(pid) + "/" + e->d_name;
        const auto it = last_.find(key);
        if (it != last_.end() && t > it->second) busy_[cpu] += t - it->second;
        last_[key] = t;
      }
      ::closedir(d);
    }
    return busy_;
  }

 private:
  void scan() {
    pids_.clear();
    DIR* d = ::opendir("/proc");
    if (!d) return;
    while (dirent* e = ::readdir(d)) {
      if (!std::isdigit(static_cast<unsigned char>(e->d_name[0]))) continue;
      std::ifstream in(std::string("/proc/") + e->d_name + "/comm");
      std::string name;
      std::getline(in, name);
      if (name == comm_) pids_.push_back(std::atoi(e->d_name));
    }
    ::closedir(d);
  }
  std::string comm_;
  std::vector<int> pids_;
  std::map<std::string, double> last_;
  std::map<int, double> busy_;
  std::chrono::steady_clock::time_point scanned_{};
};

int usage() {
  std::fprintf(stderr,
               "usage: fake_machine ROOT --freqs-khz K,K,... --uncore-w U --core-w C --exponent A [--dram-w D] "
               "[--dram-busy-w DB] [--busy-from proc-stat|comm:NAME] [--period-ms 5]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  root = argv[1];
  std::vector<long> khz;
  double U = -1, C = -1, A = -1, D = 0, DB = 0;
  std::string busy_from = "proc-stat";
  int period_ms = 5;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--freqs-khz") {
      std::stringstream s(v);
      for (std::string part; std::getline(s, part, ',');) khz.push_back(std::stol(part));
    } else if (k == "--uncore-w") U = std::stod(v);
    else if (k == "--core-w") C = std::stod(v);
    else if (k == "--exponent") A = std::stod(v);
    else if (k == "--dram-w") D = std::stod(v);
    else if (k == "--dram-busy-w") DB = std::stod(v);
    else if (k == "--busy-from") busy_from = v;
    else if (k == "--period-ms") period_ms = std::max(1, std::atoi(v.c_str()));
    else return usage();
  }
  if (khz.empty() || U < 0 || C < 0 || A < 0) return usage();
  std::sort(khz.begin(), khz.end(), std::greater<>());
  const long fmax = khz.front(), fmin = khz.back();

  const std::vector<int> cpus = online_cpus();
  put("devices/system/cpu/online", cpu_list_text(cpus) + "\n");
  std::string avail;
  for (long k : khz) avail += std::to_string(k) + " ";
  for (int c : cpus) {
    const std::string dir = "devices/system/cpu/cpufreq/policy" + std::to_string(c) + "/";
    put(dir + "related_cpus", std::to_string(c) + "\n");
    put(dir + "affected_cpus", std::to_string(c) + "\n");
    put(dir + "scaling_available_frequencies", avail + "\n");
    put(dir + "cpuinfo_max_freq", std::to_string(fmax) + "\n");
    put(dir + "cpuinfo_min_freq", std::to_string(fmin) + "\n");
    put(dir + "cpuinfo_transition_latency", "10000\n");
    put(dir + "scaling_max_freq", std::to_string(fmax) + "\n");
    put(dir + "scaling_min_freq", std::to_string(fmin) + "\n");
    put(dir + "scaling_governor", "ondemand\n");
    put(dir + "scaling_available_governors", "conservative ondemand userspace powersave performance schedutil\n");
    put(dir + "scaling_setspeed", "<unsupported>\n");
    put(dir + "scaling_driver", "acpi-cpufreq\n");
    put(dir + "scaling_cur_freq", std::to_string(fmax) + "\n");
  }
  const std::string pkg = "class/powercap/intel-rapl:0/", dram = "class/powercap/intel-rapl:0:0/";
  const unsigned long long range_uj = 262143328850ULL;
  put("class/powercap/intel-rapl/enabled", "1\n");
  put(pkg + "name", "package-0\n");
  put(pkg + "max_energy_range_uj", std::to_string(range_uj) + "\n");
  put(pkg + "energy_uj", "0\n");
  put(dram + "name", "dram\n");
  put(dram + "max_energy_range_uj", std::to_string(range_uj) + "\n");
  put(dram + "energy_uj", "0\n");

  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  // The fake RAPL must advance on time whatever else runs: the calibration
  // loads every CPU, and CI runs tests beside each other. Starved, this loop
  // would credit a window's energy to a later one (seen under ctest -j2 beside
  // builds: an idle point at 4.7 W instead of 20). The highest nice where
  // permitted (root): CFS then gives it the CPU it asks for, a few % at most.
  // Not real-time: its /proc scans would then starve everything else.
  (void)::setpriority(PRIO_PROCESS, 0, -20);
  CommBusy comm(busy_from.rfind("comm:", 0) == 0 ? busy_from.substr(5) : "");
  auto busy_now = [&] { return busy_from == "proc-stat" ? proc_stat_busy() : comm.read(); };
  std::map<int, double> last_busy = busy_now();
  std::map<int, long> cur;
  for (int c : cpus) cur[c] = fmax;
  double pkg_j = 0, dram_j = 0;
  auto last = std::chrono::steady_clock::now();
  put("fake-machine.ready", "1\n");
  while (!g_stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(period_ms));
    // Frequencies: what was written takes effect.
    for (int c : cpus) {
      const std::string dir = "devices/system/cpu/cpufreq/policy" + std::to_string(c) + "/";
      const std::string gov = get(dir + "scaling_governor");
      long target = std::atol(get(dir + "scaling_max_freq").c_str());
      if (gov == "userspace") {
        const long set = std::atol(get(dir + "scaling_setspeed").c_str());
        if (set > 0) target = set;
      }
      if (target > 0 && target != cur[c]) {
        cur[c] = target;
        put(dir + "scaling_cur_freq", std::to_string(target) + "\n");
      }
    }
    // Energy: the law over the interval.
    const auto now = std::chrono::steady_clock::now();
    const double dt = std::chrono::duration<double>(now - last).count();
    last = now;
    const std::map<int, double> busy = busy_now();
    double busy_s = 0;
    pkg_j += U * dt;
    for (int c : cpus) {
      const double b = std::max(0.0, (busy.count(c) ? busy.at(c) : 0) - (last_busy.count(c) ? last_busy.at(c) : 0));
      busy_s += b;
      pkg_j += b * C * std::pow(static_cast<double>(cur[c]) / static_cast<double>(fmax), A);
    }
    last_busy = busy;
    dram_j += D * dt + DB * busy_s;
    put(pkg + "energy_uj", std::to_string(static_cast<unsigned long long>(pkg_j * 1e6) % range_uj) + "\n");
    put(dram + "energy_uj", std::to_string(static_cast<unsigned long long>(dram_j * 1e6) % range_uj) + "\n");
  }
  return 0;
}
