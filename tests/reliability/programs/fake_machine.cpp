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
//  - ROOT/../proc/stat: the machine's busy time per CPU, as rubato calibrate
//    reads it beside its sysfs root (docs/calibrate.md), made of the same
//    busy time as the power;
//  - with --uncore-khz MIN,MAX an intel_uncore_frequency domain
//    (package_00_die_00) whose current_freq_khz follows the max_freq_khz
//    written (the hardware runs at most there; rubato sets min = max);
//    with --uncore-power-w BASE,SPAN[,EXP] as well, the package's constant
//    part U becomes a law of that current frequency fu:
//        U(fu) = BASE + SPAN · ((fu − MIN) / (MAX − MIN))^EXP   (EXP 1 by default)
//    so that a calibration has an uncore power ladder to find.
// The law's constants are arguments: they live in the test, never in rubato.
//
// Busy time: only the process under test — the pid in FILE (--follow-pid-file,
// written by the test once it started the program; nothing is busy until
// then), its threads' CPU time (schedstat, ns; stat's ticks where the kernel
// has none) on the CPU each last ran on. Other processes on the machine, also
// other rubato processes of tests running beside, never enter the fake power
// or the fake /proc/stat. --neighbour CPUS@FROM-UNTIL adds a phantom
// neighbour: CPUS busy CPUs (filled in order) from FROM to UNTIL seconds
// after the followed process was first seen (UNTIL "end": until this program
// stops), in the power and in /proc/stat alike, at the fake frequencies.
// --follow-descendants adds the followed process's children, theirs, and so
// on (found by their parent pid in /proc every period): `rubato run` or
// `rubato calibrate --uncore-probe` start the program that does the work.
// --no-rapl leaves the powercap tree out (a node whose meter is not readable).
//
//   fake_machine ROOT --freqs-khz K,K,... --uncore-w U --core-w C --exponent A
//                --follow-pid-file FILE [--follow-descendants] [--no-rapl] [--neighbour CPUS@FROM-UNTIL]
//                [--dram-w D] [--dram-busy-w DB] [--uncore-khz MIN,MAX]
//                [--uncore-power-w BASE,SPAN[,EXP]] [--period-ms 5]
// (--uncore-w may be left out where --uncore-power-w gives the constant part.)
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
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

std::string root;

void put_at(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  const std::string tmp = p.string() + ".new";
  { std::ofstream(tmp, std::ios::binary) << text; }
  std::filesystem::rename(tmp, p);  // readers never see half a value
}

void put(const std::string& rel, const std::string& text) { put_at(root + "/" + rel, text); }

// A file's first word (sysfs takes "userspace" and "userspace\n" alike).
std::string first_word(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string word;
  in >> word;
  return word;
}
std::string get(const std::string& rel) { return first_word(root + "/" + rel); }

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

// One thread's CPU time so far and the CPU it last ran on; false when it is gone.
bool thread_time(const std::string& task_dir, double& seconds, int& cpu) {
  std::ifstream stat_in(task_dir + "/stat");
  std::string text;
  std::getline(stat_in, text);
  const auto close = text.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream s(text.substr(close + 2));
  std::vector<std::string> f;
  for (std::string w; s >> w;) f.push_back(w);
  if (f.size() < 37) return false;  // f[0] = field 3 (state)
  cpu = std::stoi(f[36]);           // field 39, processor
  std::ifstream sched_in(task_dir + "/schedstat");
  double ns = -1;
  if (sched_in >> ns && ns > 0) seconds = ns * 1e-9;                // time on the CPU, ns
  else seconds = (std::stod(f[11]) + std::stod(f[12])) * tick_s();  // utime + stime, ticks
  return true;
}

// Every process's parent, from /proc/<pid>/stat (field 4, after the name),
// kept across calls: only processes not seen before are read (a parent does
// not change while the test's processes live), so that the tree can be
// scanned every period. Found 50 ms late, a new descendant's CPU time so far
// came in one period: a power spike where `rubato run`'s measurements start.
class ProcessParents {
 public:
  const std::map<int, int>& update() {
    std::map<int, int> now;
    DIR* d = ::opendir("/proc");
    if (!d) return parent_;
    while (dirent* e = ::readdir(d)) {
      const int pid = std::atoi(e->d_name);
      if (pid <= 0) continue;
      if (const auto it = parent_.find(pid); it != parent_.end()) {
        now.insert(*it);
        continue;
      }
      std::ifstream in(std::string("/proc/") + e->d_name + "/stat");
      std::string text;
      std::getline(in, text);
      const auto close = text.rfind(')');
      if (close == std::string::npos) continue;
      std::istringstream s(text.substr(close + 2));
      std::string state;
      int ppid = 0;
      if (s >> state >> ppid) now[pid] = ppid;
    }
    ::closedir(d);
    parent_ = std::move(now);
    return parent_;
  }

 private:
  std::map<int, int> parent_;
};

// `top` and every process below it.
std::vector<int> process_tree(int top, ProcessParents& parents) {
  const std::map<int, int>& parent = parents.update();
  std::vector<int> tree = {top};
  for (std::size_t i = 0; i < tree.size(); ++i)
    for (const auto& [pid, ppid] : parent)
      if (ppid == tree[i] && pid != top) tree.push_back(pid);
  return tree;
}

// Busy seconds per CPU of one process's threads (with `descendants`, also of
// every process below it), accumulated across calls (each thread's new time
// goes to the CPU it last ran on). The process is the pid in a file, re-read
// every period (its process tree too): until it holds one, nothing is busy.
class FollowedProcess {
 public:
  FollowedProcess(std::string pid_file, bool descendants) : pid_file_(std::move(pid_file)), descendants_(descendants) {}

  // Seconds since the followed process was first seen; < 0 before.
  double seen_for_s() const { return seen_ ? std::chrono::duration<double>(Clock::now() - first_seen_).count() : -1; }

  const std::map<int, double>& read() {
    // Every period: a process followed late has its time so far dropped,
    // a descendant found late brings all of it into one period.
    const int named = std::atoi(first_word(pid_file_).c_str());
    if (named > 0 && named != pid_) follow(named);
    if (pid_ > 0) pids_ = descendants_ ? process_tree(pid_, parents_) : std::vector<int>{pid_};
    for (int pid : pids_) add_new_time(pid);
    baseline_ = false;
    return busy_;
  }

 private:
  void follow(int pid) {
    pid_ = pid;
    last_.clear();
    baseline_ = true;  // its threads' time so far was spent before it was followed
    if (!seen_) first_seen_ = Clock::now();
    seen_ = true;
  }

  void add_new_time(int pid) {
    const std::string task = "/proc/" + std::to_string(pid) + "/task";
    DIR* d = ::opendir(task.c_str());
    if (!d) return;
    while (dirent* e = ::readdir(d)) {
      if (e->d_name[0] == '.') continue;
      double t = 0;
      int cpu = 0;
      if (!thread_time(task + "/" + e->d_name, t, cpu)) continue;
      const auto it = last_.find(e->d_name);
      // A thread (or a descendant process) first seen after the process was
      // followed started since the previous scan: all its time is new.
      const double before = it != last_.end() ? it->second : baseline_ ? t : 0;
      if (t > before) busy_[cpu] += t - before;
      last_[e->d_name] = t;  // thread ids are unique among live threads of every process
    }
    ::closedir(d);
  }

  std::string pid_file_;
  bool descendants_ = false;
  int pid_ = 0;
  std::vector<int> pids_;
  ProcessParents parents_;
  bool baseline_ = false, seen_ = false;
  Clock::time_point first_seen_{};
  std::map<std::string, double> last_;
  std::map<int, double> busy_;
};

// --neighbour CPUS@FROM-UNTIL: busy CPUs in a window of the followed process's time.
struct Neighbour {
  double cpus = 0, from_s = 0, until_s = 0;

  // Its busy seconds on each of `cpus` (filled in order) over the last `dt` s, at `seen_for_s`.
  std::map<int, double> busy(const std::vector<int>& online, double seen_for_s, double dt) const {
    std::map<int, double> out;
    if (seen_for_s < from_s || seen_for_s >= until_s) return out;
    double left = cpus;
    for (int c : online) {
      if (left <= 0) break;
      out[c] = std::min(1.0, left) * dt;
      left -= 1;
    }
    return out;
  }
};

bool parse_neighbour(const std::string& v, Neighbour& n) {
  const auto at = v.find('@'), dash = v.find('-', at == std::string::npos ? 0 : at);
  if (at == std::string::npos || dash == std::string::npos) return false;
  n.cpus = std::stod(v.substr(0, at));
  n.from_s = std::stod(v.substr(at + 1, dash - at - 1));
  const std::string until = v.substr(dash + 1);
  n.until_s = until == "end" ? std::numeric_limits<double>::infinity() : std::stod(until);
  return n.cpus >= 0 && n.until_s > n.from_s;
}

// The fake /proc/stat: each CPU's busy time as user time, the rest of the
// time since start idle, in clock ticks (the kernel's USER_HZ).
std::string proc_stat_text(const std::vector<int>& cpus, const std::map<int, double>& busy_s, double elapsed_s) {
  auto line = [](const std::string& name, double busy, double idle) {
    const auto ticks = [](double s) { return std::to_string(static_cast<unsigned long long>(s / tick_s())); };
    return name + " " + ticks(busy) + " 0 0 " + ticks(idle) + " 0 0 0 0 0 0\n";
  };
  double busy_all = 0, idle_all = 0;
  std::string per_cpu;
  for (int c : cpus) {
    const double b = busy_s.count(c) ? busy_s.at(c) : 0, idle = std::max(0.0, elapsed_s - b);
    busy_all += b;
    idle_all += idle;
    per_cpu += line("cpu" + std::to_string(c), b, idle);
  }
  return line("cpu ", busy_all, idle_all) + per_cpu;
}

int usage() {
  std::fprintf(stderr,
               "usage: fake_machine ROOT --freqs-khz K,K,... --uncore-w U --core-w C --exponent A "
               "--follow-pid-file FILE [--follow-descendants] [--no-rapl] [--neighbour CPUS@FROM-UNTIL] [--dram-w D] "
               "[--dram-busy-w DB] [--uncore-khz MIN,MAX] [--uncore-power-w BASE,SPAN[,EXP]] [--period-ms 5]\n");
  return 2;
}

struct Law {
  std::vector<long> khz;
  double U = -1, C = -1, A = -1, D = 0, DB = 0;
  // --uncore-power-w: U(fu) = base + span · ((fu − min) / (max − min))^exp; span < 0: not given.
  double uncore_base_w = 0, uncore_span_w = -1, uncore_exp = 1;
  long uncore_min_khz = 0, uncore_max_khz = 0;

  // The package's constant part at uncore frequency `fu_khz`.
  double constant_w(long fu_khz) const {
    if (uncore_span_w < 0 || uncore_max_khz <= uncore_min_khz) return U;
    const double x = std::clamp(
        static_cast<double>(fu_khz - uncore_min_khz) / static_cast<double>(uncore_max_khz - uncore_min_khz), 0.0, 1.0);
    return uncore_base_w + uncore_span_w * std::pow(x, uncore_exp);
  }
};

// "BASE,SPAN[,EXP]", each finite, BASE and SPAN >= 0, EXP > 0.
bool parse_uncore_power(const std::string& v, Law& law) {
  double base = 0, span = 0, exp = 1;
  const int n = std::sscanf(v.c_str(), "%lf,%lf,%lf", &base, &span, &exp);
  if (n < 2 || !(base >= 0) || !(span >= 0) || !(exp > 0) || !std::isfinite(base + span + exp)) return false;
  law.uncore_base_w = base;
  law.uncore_span_w = span;
  law.uncore_exp = exp;
  return true;
}

void write_tree(const std::vector<int>& cpus, const std::vector<long>& khz, unsigned long long range_uj, bool rapl) {
  const long fmax = khz.front(), fmin = khz.back();
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
  if (!rapl) return;
  put("class/powercap/intel-rapl/enabled", "1\n");
  for (const auto& [zone, name] : {std::pair{"intel-rapl:0", "package-0"}, std::pair{"intel-rapl:0:0", "dram"}}) {
    const std::string dir = std::string("class/powercap/") + zone + "/";
    put(dir + "name", std::string(name) + "\n");
    put(dir + "max_energy_range_uj", std::to_string(range_uj) + "\n");
    put(dir + "energy_uj", "0\n");
  }
}

constexpr const char* kUncoreDir = "devices/system/cpu/intel_uncore_frequency/package_00_die_00/";

void write_uncore_tree(long min_khz, long max_khz) {
  for (const char* f : {"initial_min_freq_khz", "min_freq_khz"})
    put(std::string(kUncoreDir) + f, std::to_string(min_khz) + "\n");
  for (const char* f : {"initial_max_freq_khz", "max_freq_khz", "current_freq_khz"})
    put(std::string(kUncoreDir) + f, std::to_string(max_khz) + "\n");
}

// The uncore runs at the highest frequency its limits allow.
void apply_uncore(long& cur_khz) {
  const long max_khz = std::atol(get(std::string(kUncoreDir) + "max_freq_khz").c_str());
  if (max_khz > 0 && max_khz != cur_khz) {
    cur_khz = max_khz;
    put(std::string(kUncoreDir) + "current_freq_khz", std::to_string(max_khz) + "\n");
  }
}

// What was written takes effect: each policy's frequency into `cur`.
void apply_frequencies(const std::vector<int>& cpus, std::map<int, long>& cur) {
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
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  root = argv[1];
  Law law;
  std::string pid_file;
  Neighbour neighbour;
  int period_ms = 5;
  long uncore_min_khz = 0, uncore_max_khz = 0;
  bool descendants = false, rapl = true;
  for (int i = 2; i < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--follow-descendants" || k == "--no-rapl") {  // the options without a value
      if (k == "--no-rapl") rapl = false;
      else descendants = true;
      --i;
      continue;
    }
    if (i + 1 >= argc) return usage();
    const std::string v = argv[i + 1];
    if (k == "--freqs-khz") {
      std::stringstream s(v);
      for (std::string part; std::getline(s, part, ',');) law.khz.push_back(std::stol(part));
    } else if (k == "--uncore-w") law.U = std::stod(v);
    else if (k == "--core-w") law.C = std::stod(v);
    else if (k == "--exponent") law.A = std::stod(v);
    else if (k == "--dram-w") law.D = std::stod(v);
    else if (k == "--dram-busy-w") law.DB = std::stod(v);
    else if (k == "--follow-pid-file") pid_file = v;
    else if (k == "--neighbour") {
      if (!parse_neighbour(v, neighbour)) return usage();
    } else if (k == "--uncore-khz") {
      if (std::sscanf(v.c_str(), "%ld,%ld", &uncore_min_khz, &uncore_max_khz) != 2 ||
          !(uncore_max_khz > uncore_min_khz))
        return usage();
    } else if (k == "--uncore-power-w") {
      if (!parse_uncore_power(v, law)) return usage();
    } else if (k == "--period-ms") period_ms = std::max(1, std::atoi(v.c_str()));
    else return usage();
  }
  const bool uncore_law = law.uncore_span_w >= 0;
  if (uncore_law && uncore_max_khz == 0) return usage();  // an uncore power law needs an uncore
  if (uncore_law && law.U < 0) law.U = 0;                 // unused: the law gives the constant part
  law.uncore_min_khz = uncore_min_khz;
  law.uncore_max_khz = uncore_max_khz;
  if (law.khz.empty() || law.U < 0 || law.C < 0 || law.A < 0 || pid_file.empty()) return usage();
  std::sort(law.khz.begin(), law.khz.end(), std::greater<>());
  const long fmax = law.khz.front();

  const std::vector<int> cpus = online_cpus();
  const unsigned long long range_uj = 262143328850ULL;
  write_tree(cpus, law.khz, range_uj, rapl);
  long uncore_cur_khz = uncore_max_khz;
  if (uncore_max_khz > 0) write_uncore_tree(uncore_min_khz, uncore_max_khz);
  std::filesystem::path sysfs(root);
  if (!sysfs.has_filename()) sysfs = sysfs.parent_path();  // "ROOT/"
  const std::filesystem::path proc_stat = sysfs.parent_path() / "proc" / "stat";
  put_at(proc_stat, proc_stat_text(cpus, {}, 0));

  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  // The fake RAPL must advance on time whatever else runs: the calibration
  // loads every CPU, and CI runs tests beside each other. Starved, this loop
  // would credit a window's energy to a later one (seen under ctest -j2 beside
  // builds: an idle point at 4.7 W instead of 20). The highest nice where
  // permitted (root): CFS then gives it the CPU it asks for, a few % at most.
  // Not real-time: its /proc scans would then starve everything else.
  (void)::setpriority(PRIO_PROCESS, 0, -20);
  FollowedProcess followed(pid_file, descendants);
  std::map<int, double> last_busy = followed.read(), busy_total;  // busy_total: followed + neighbour
  std::map<int, long> cur;
  for (int c : cpus) cur[c] = fmax;
  double pkg_j = 0, dram_j = 0;
  const auto start = Clock::now();
  auto last = start;
  put("fake-machine.ready", "1\n");
  while (!g_stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(period_ms));
    apply_frequencies(cpus, cur);
    if (uncore_max_khz > 0) apply_uncore(uncore_cur_khz);
    // Energy: the law over the interval.
    const auto now = Clock::now();
    const double dt = std::chrono::duration<double>(now - last).count();
    last = now;
    const std::map<int, double> busy = followed.read();
    const std::map<int, double> phantom = neighbour.busy(cpus, followed.seen_for_s(), dt);
    double busy_s = 0;
    pkg_j += law.constant_w(uncore_cur_khz) * dt;
    for (int c : cpus) {
      const double own = std::max(0.0, (busy.count(c) ? busy.at(c) : 0) - (last_busy.count(c) ? last_busy.at(c) : 0));
      const double b = own + (phantom.count(c) ? phantom.at(c) : 0);
      busy_total[c] += b;
      busy_s += b;
      pkg_j += b * law.C * std::pow(static_cast<double>(cur[c]) / static_cast<double>(fmax), law.A);
    }
    last_busy = busy;
    dram_j += law.D * dt + law.DB * busy_s;
    if (rapl) {
      put("class/powercap/intel-rapl:0/energy_uj",
          std::to_string(static_cast<unsigned long long>(pkg_j * 1e6) % range_uj) + "\n");
      put("class/powercap/intel-rapl:0:0/energy_uj",
          std::to_string(static_cast<unsigned long long>(dram_j * 1e6) % range_uj) + "\n");
    }
    put_at(proc_stat, proc_stat_text(cpus, busy_total, std::chrono::duration<double>(now - start).count()));
  }
  return 0;
}
