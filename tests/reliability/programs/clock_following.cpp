// An OpenMP program whose speed follows the fake clocks of a fake sysfs tree
// (programs/fake_machine.cpp): the stand-in, on a fake node, for a program
// whose tasks are core-bound, memory-bound or both. Each task of reference
// work w (its CPU time at the fastest clocks) takes
//     w · [b_c · f_max / f + b_u · h(f_u) + (1 − b_c − b_u)]
// of CPU time, f the scaling_cur_freq of the cpufreq policy of the CPU it
// runs on (sched_getcpu), f_max that policy's cpuinfo_max_freq, f_u the
// uncore domain's current_freq_khz and h the uncore law of --uncore-law,
// normalised to h(f_u,max) = 1.
//
// The law h is deliberately NOT rubato's knee form (time_model.hpp: g = 1
// above the knee, f_k / f_u below it): `power` is a knee whose exponent is
// not 1 (h = max(1, (f_k / f_u)^γ)), `table` any measured-looking curve,
// linear between its points. A calibration that recovers the knee of such a
// law within a tolerance measured it; one that assumed rubato's form, or a
// profile's, could not also recover a second law the test chooses.
//
// Time is spent on the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID), not the
// steady clock: work is CPU time, so with more threads than cores (4 threads
// on 2 CPUs) the program takes twice as long as with 2, as real work would,
// where a wall-clock spin would finish a preempted task while it was not
// running. The fake machine's power follows the same CPU time, so the energy
// of a task is what its duration at the fake clocks says. Progress is
// integrated chunk by chunk at the clocks then in force, so a clock that
// changes within a task, or a migration to another CPU, counts from then on.
// The clocks are read at most every millisecond per thread (cached), never
// per task.
//
// Each kind of task is created at a #pragma omp task site of its own
// (compute, memory, probe; a mixed phase interleaves compute and memory tasks
// in one region, from their own sites), so an OMPT tool sees one codeptr_ra
// per kind. The checksum printed depends on the tasks run, never on timing.
//
//   clock_following [--root DIR] [--uncore-law LAW] (--phase SPEC | --probe)...
//   SPEC: KIND[:tasks=N][:work=DURATION][:bc=X][:bu=X][:bc2=X][:bu2=X]
//     KIND compute (defaults bc 0.9, bu 0), memory (0.1, 0.7), probe (0.02,
//     0.98: wholly uncore-bound, what `rubato calibrate --uncore-probe` times),
//     mixed (compute tasks with bc/bu, memory tasks with bc2/bu2, alternating);
//     tasks default 1000 (probe 40), work default 1ms (probe 5ms): us, ms or s.
//   LAW: power:knee=FREQ:gamma=G (default power:knee=2GHz:gamma=1.5)
//        | table:FREQ=H,FREQ=H,... | none;  FREQ with GHz, MHz or kHz.
//   --root: the fake tree (default RUBATO_SYSFS_ROOT, else /sys).
// Prints "checksum <hex>" on stdout, the CPU and wall time on stderr; exit 0,
// or 2 with one line naming the option when the command line is wrong.
#include <dirent.h>
#include <omp.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

// ---- the command line ---------------------------------------------------------------------

struct BadOption {
  std::string line;
};

[[noreturn]] void bad(const std::string& line) { throw BadOption{line}; }

double parse_real(const std::string& what, const std::string& text, double lo, double hi) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= lo && v <= hi)) {
    char range[64];
    std::snprintf(range, sizeof range, "%g..%g", lo, hi);
    bad(what + " '" + text + "': expected a number in " + range);
  }
  return v;
}

// "2GHz", "1500MHz", "1200000kHz" -> kHz.
double parse_khz(const std::string& what, const std::string& text) {
  for (const auto& [unit, khz] : {std::pair{"GHz", 1e6}, std::pair{"MHz", 1e3}, std::pair{"kHz", 1.0}}) {
    const std::string u = unit;
    if (text.size() > u.size() && text.compare(text.size() - u.size(), u.size(), u) == 0)
      return parse_real(what, text.substr(0, text.size() - u.size()), 1e-6, 1e9) * khz;
  }
  bad(what + " '" + text + "': expected a frequency with GHz, MHz or kHz (e.g. 2GHz)");
}

// "2ms", "500us", "0.01s" -> seconds.
double parse_duration(const std::string& what, const std::string& text) {
  for (const auto& [unit, s] : {std::pair{"us", 1e-6}, std::pair{"ms", 1e-3}, std::pair{"s", 1.0}}) {
    const std::string u = unit;
    if (text.size() > u.size() && text.compare(text.size() - u.size(), u.size(), u) == 0)
      return parse_real(what, text.substr(0, text.size() - u.size()), 1e-3, 1e7) * s;
  }
  bad(what + " '" + text + "': expected a duration with us, ms or s (e.g. 2ms)");
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string part; std::getline(s, part, sep);) out.push_back(part);
  return out;
}

// h(f_u), before normalisation.
struct UncoreLaw {
  enum class Form { none, power, table } form = Form::power;
  double knee_khz = 2e6, gamma = 1.5;
  std::vector<std::pair<double, double>> table;  // (kHz, h), ascending kHz

  double raw(double fu_khz) const {
    switch (form) {
      case Form::none: return 1;
      case Form::power: return std::max(1.0, std::pow(knee_khz / fu_khz, gamma));
      case Form::table: break;
    }
    if (fu_khz <= table.front().first) return table.front().second;
    if (fu_khz >= table.back().first) return table.back().second;
    for (std::size_t i = 1; i < table.size(); ++i)
      if (fu_khz <= table[i].first) {
        const auto& [f0, h0] = table[i - 1];
        const auto& [f1, h1] = table[i];
        return h0 + (h1 - h0) * (fu_khz - f0) / (f1 - f0);
      }
    return table.back().second;
  }
};

UncoreLaw parse_law(const std::string& text) {
  const std::string what = "--uncore-law";
  UncoreLaw law;
  if (text == "none") {
    law.form = UncoreLaw::Form::none;
    return law;
  }
  if (text.rfind("power:", 0) == 0) {
    for (const std::string& kv : split(text.substr(6), ':')) {
      const auto eq = kv.find('=');
      const std::string k = kv.substr(0, eq), v = eq == std::string::npos ? "" : kv.substr(eq + 1);
      if (k == "knee") law.knee_khz = parse_khz(what + " knee", v);
      else if (k == "gamma") law.gamma = parse_real(what + " gamma", v, 0.05, 10);
      else bad(what + " '" + text + "': power takes knee=FREQ and gamma=G");
    }
    return law;
  }
  if (text.rfind("table:", 0) == 0) {
    law.form = UncoreLaw::Form::table;
    for (const std::string& kv : split(text.substr(6), ',')) {
      const auto eq = kv.find('=');
      if (eq == std::string::npos) bad(what + " '" + text + "': table takes FREQ=H,FREQ=H,...");
      law.table.emplace_back(parse_khz(what, kv.substr(0, eq)), parse_real(what + " h", kv.substr(eq + 1), 0.01, 100));
    }
    std::sort(law.table.begin(), law.table.end());
    if (law.table.size() < 2) bad(what + " '" + text + "': a table needs two points or more");
    return law;
  }
  bad(what + " '" + text + "': expected power:knee=FREQ:gamma=G, table:FREQ=H,... or none");
}

enum class Kind { compute, memory, mixed, probe };

// The shares of one kind of task.
struct Shares {
  double bc = 0, bu = 0;
};

struct Phase {
  Kind kind = Kind::compute;
  std::string name;
  long tasks = 1000;
  double work_s = 1e-3;
  Shares first, second;  // second: the memory tasks of a mixed phase
};

Shares checked(const std::string& spec, Shares s) {
  if (s.bc + s.bu > 1 + 1e-9) bad("--phase '" + spec + "': bc + bu must not exceed 1");
  return s;
}

Phase parse_phase(const std::string& spec) {
  const std::vector<std::string> parts = split(spec, ':');
  Phase p;
  p.name = parts.empty() ? "" : parts[0];
  if (p.name == "compute") p = {Kind::compute, p.name, 1000, 1e-3, {0.9, 0.0}, {}};
  else if (p.name == "memory") p = {Kind::memory, p.name, 1000, 1e-3, {0.1, 0.7}, {}};
  else if (p.name == "mixed") p = {Kind::mixed, p.name, 1000, 1e-3, {0.9, 0.0}, {0.1, 0.7}};
  else if (p.name == "probe") p = {Kind::probe, p.name, 40, 5e-3, {0.02, 0.98}, {}};
  else bad("--phase '" + spec + "': unknown kind (compute | memory | mixed | probe)");
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const auto eq = parts[i].find('=');
    const std::string k = parts[i].substr(0, eq), v = eq == std::string::npos ? "" : parts[i].substr(eq + 1);
    const std::string what = "--phase " + p.name + " " + k;
    if (k == "tasks") p.tasks = static_cast<long>(parse_real(what, v, 1, 1e8));
    else if (k == "work") p.work_s = parse_duration(what, v);
    else if (k == "bc") p.first.bc = parse_real(what, v, 0, 1);
    else if (k == "bu") p.first.bu = parse_real(what, v, 0, 1);
    else if (k == "bc2" && p.kind == Kind::mixed) p.second.bc = parse_real(what, v, 0, 1);
    else if (k == "bu2" && p.kind == Kind::mixed) p.second.bu = parse_real(what, v, 0, 1);
    else bad("--phase '" + spec + "': unknown key '" + k + "' (tasks, work, bc, bu; bc2, bu2 for mixed)");
  }
  p.first = checked(spec, p.first);
  p.second = checked(spec, p.second);
  return p;
}

// ---- the fake clocks ----------------------------------------------------------------------

double read_number(const std::string& path) {
  std::ifstream in(path);
  double v = 0;
  in >> v;
  return in ? v : 0;
}

// Where each CPU's clock and the uncore's are read, found once at start.
struct ClockFiles {
  std::map<int, std::string> cur_of_cpu;  // cpu -> .../policyN/scaling_cur_freq
  std::map<int, double> max_khz_of_cpu;   // cpu -> cpuinfo_max_freq
  std::string uncore_cur;                 // current_freq_khz of the first domain ("" without)
  double uncore_max_khz = 0;              // its initial_max_freq_khz
};

ClockFiles find_clock_files(const std::string& root) {
  ClockFiles c;
  const std::string cpufreq = root + "/devices/system/cpu/cpufreq";
  if (DIR* d = ::opendir(cpufreq.c_str())) {
    while (dirent* e = ::readdir(d)) {
      if (std::string(e->d_name).rfind("policy", 0) != 0) continue;
      const std::string dir = cpufreq + "/" + e->d_name + "/";
      std::ifstream in(dir + "related_cpus");
      std::string list;
      std::getline(in, list);
      for (const std::string& range : split(list, ',')) {
        std::istringstream words(range);
        for (std::string w; words >> w;) {
          const auto dash = w.find('-');
          const int lo = std::atoi(w.c_str()), hi = dash == std::string::npos ? lo : std::atoi(w.c_str() + dash + 1);
          for (int cpu = lo; cpu <= hi; ++cpu) {
            c.cur_of_cpu[cpu] = dir + "scaling_cur_freq";
            c.max_khz_of_cpu[cpu] = read_number(dir + "cpuinfo_max_freq");
          }
        }
      }
    }
    ::closedir(d);
  }
  const std::string uncore = root + "/devices/system/cpu/intel_uncore_frequency";
  if (DIR* d = ::opendir(uncore.c_str())) {
    std::vector<std::string> domains;
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') domains.push_back(e->d_name);
    ::closedir(d);
    std::sort(domains.begin(), domains.end());
    for (const std::string& name : domains) {
      const std::string dir = uncore + "/" + name + "/";
      const double max_khz = read_number(dir + "initial_max_freq_khz");
      if (max_khz > 0) {
        c.uncore_cur = dir + "current_freq_khz";
        c.uncore_max_khz = max_khz;
        break;
      }
    }
  }
  return c;
}

const ClockFiles* g_files = nullptr;
const UncoreLaw* g_law = nullptr;
double g_law_at_max = 1;  // h's raw value at the fastest uncore level

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// One thread's view of the clocks, read again at most every millisecond.
struct ClockCache {
  std::chrono::steady_clock::time_point read_at{};
  bool valid = false;
  double core_stretch = 1;    // f_max / f of the CPU the thread last ran on
  double uncore_stretch = 1;  // h(f_u)

  void refresh() {
    const auto now = std::chrono::steady_clock::now();
    if (valid && now - read_at < std::chrono::milliseconds(1)) return;
    read_at = now;
    valid = true;
    core_stretch = 1;
    const int cpu = sched_getcpu();
    if (const auto it = g_files->cur_of_cpu.find(cpu); it != g_files->cur_of_cpu.end()) {
      const double f = read_number(it->second), f_max = g_files->max_khz_of_cpu.at(cpu);
      if (f > 0 && f_max > 0) core_stretch = f_max / f;
    }
    uncore_stretch = 1;
    if (!g_files->uncore_cur.empty()) {
      const double fu = read_number(g_files->uncore_cur);
      if (fu > 0) uncore_stretch = g_law->raw(fu) / g_law_at_max;
    }
  }
};

thread_local ClockCache t_clocks;

// The CPU time spent in tasks, all threads: the work's time at the clocks in
// force, which a neighbour that preempts the program does not inflate (its
// wall time, and the process's CPU time with threads spinning at the end of a
// phase for a preempted one, it does).
std::atomic<double> g_task_cpu_s{0};

// A task's work: spin until `work_s` of reference work is done, each chunk of
// CPU time counted at the clocks then in force.
void spend(double work_s, const Shares& s) {
  const double start = thread_cpu_s();
  double done = 0, before = thread_cpu_s();
  volatile std::uint64_t sink = 0;
  std::uint64_t x = 0x9e3779b97f4a7c15ULL;
  while (done < work_s) {
    for (int i = 0; i < 8000; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    sink = x;
    const double now = thread_cpu_s();
    t_clocks.refresh();
    const double stretch = s.bc * t_clocks.core_stretch + s.bu * t_clocks.uncore_stretch + (1 - s.bc - s.bu);
    done += (now - before) / stretch;
    before = now;
  }
  (void)sink;
  g_task_cpu_s.fetch_add(before - start, std::memory_order_relaxed);
}

// ---- the tasks ----------------------------------------------------------------------------

std::atomic<std::uint64_t> g_checksum{0};

std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void run_task(const Phase* p, const Shares* s, std::uint64_t id) {
  spend(p->work_s, *s);
  g_checksum.fetch_add(mix(id), std::memory_order_relaxed);  // a sum: the same whatever the order
}

// One creation site per kind (noinline, so each is one call site: one codeptr_ra).
__attribute__((noinline)) void create_compute_task(const Phase* p, const Shares* s, std::uint64_t id) {
#pragma omp task firstprivate(p, s, id)
  run_task(p, s, id);
}

__attribute__((noinline)) void create_memory_task(const Phase* p, const Shares* s, std::uint64_t id) {
#pragma omp task firstprivate(p, s, id)
  run_task(p, s, id);
}

__attribute__((noinline)) void create_probe_task(const Phase* p, const Shares* s, std::uint64_t id) {
#pragma omp task firstprivate(p, s, id)
  run_task(p, s, id);
}

void run_phase(const Phase& p, std::uint64_t phase_index) {
#pragma omp parallel
#pragma omp single
  for (long i = 0; i < p.tasks; ++i) {
    const std::uint64_t id = (phase_index << 40) ^ static_cast<std::uint64_t>(i);
    switch (p.kind) {
      case Kind::compute: create_compute_task(&p, &p.first, id); break;
      case Kind::memory: create_memory_task(&p, &p.first, id); break;
      case Kind::probe: create_probe_task(&p, &p.first, id); break;
      case Kind::mixed:
        if (i % 2 == 0) create_compute_task(&p, &p.first, id);
        else create_memory_task(&p, &p.second, id);
        break;
    }
  }
}

double process_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Phase> phases;
  UncoreLaw law;
  const char* env_root = std::getenv("RUBATO_SYSFS_ROOT");
  std::string root = env_root && *env_root ? env_root : "/sys";
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) bad(a + " needs a value");
        return argv[++i];
      };
      if (a == "--phase") phases.push_back(parse_phase(value()));
      else if (a == "--probe") phases.push_back(parse_phase("probe"));
      else if (a == "--uncore-law") law = parse_law(value());
      else if (a == "--root") root = value();
      else bad("unknown option '" + a + "' (--phase SPEC, --probe, --uncore-law LAW, --root DIR)");
    }
    if (phases.empty()) bad("give at least one --phase KIND:... or --probe");
  } catch (const BadOption& e) {
    std::fprintf(stderr, "clock_following: %s\n", e.line.c_str());
    return 2;
  }
  const ClockFiles files = find_clock_files(root);
  g_files = &files;
  g_law = &law;
  if (files.uncore_max_khz > 0) g_law_at_max = law.raw(files.uncore_max_khz);
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = process_cpu_s();
  long tasks = 0;
  for (std::size_t i = 0; i < phases.size(); ++i) {
    run_phase(phases[i], i + 1);
    tasks += phases[i].tasks;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("checksum %016llx\n", static_cast<unsigned long long>(g_checksum.load()));
  std::fprintf(stderr, "clock_following: %ld tasks, %d threads, cpu_s %.6f, task_cpu_s %.6f, wall_s %.6f\n", tasks,
               omp_get_max_threads(), process_cpu_s() - cpu0, g_task_cpu_s.load(), wall);
  return 0;
}
