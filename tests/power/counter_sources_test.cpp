// Counter sources (power/counter_source.hpp): the ones that count here (proc
// CPU times, perf's software task-clock, a replayed recording) measured against
// a thread whose CPU time is known, and the ones that cannot count on a VM
// (PAPI, likwid) checked for saying so, metric by metric, with a reason.
#include <catch2/catch.hpp>

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "rubato/power/counters/counter_source.hpp"

using namespace rubato;
using counters::Metric;

namespace {

int this_tid() { return static_cast<int>(syscall(SYS_gettid)); }

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// CPU time the kernel ran but charged to no thread's CPU clock, summed over
// all CPUs: hypervisor steal, hard and soft interrupts (/proc/stat fields 6-8).
// perf's task-clock is the time the event was scheduled in, which includes
// these; CLOCK_THREAD_CPUTIME_ID excludes them (rq_clock_task). On a VM the
// two differ by the steal, which once reached 20 ms in a 30 ms burn in CI.
double host_time_uncharged_s() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  return (irq + softirq + steal) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// How far task-clock may exceed the thread's own CPU clock over an interval in
// which `uncharged_s` of steal/interrupt time passed: that, plus one tick of
// /proc/stat resolution on each end, plus `slack_s`.
double task_clock_margin(double uncharged_s, double slack_s) {
  return slack_s + uncharged_s + 2.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// A thread that sleeps until asked to burn a given amount of its own CPU time
// (as the kernel accounts it: independent of how loaded the machine is).
class BusyThread {
 public:
  BusyThread() : thread_([this] { run(); }) {
    while (tid_.load() == 0) std::this_thread::yield();
  }
  ~BusyThread() {
    done_ = true;
    thread_.join();
  }
  int tid() const { return tid_.load(); }
  // Returns once the thread has used `cpu_s` of CPU time; the CPU time it used.
  double burn(double cpu_s) {
    burned_ = -1;
    want_ = cpu_s;
    while (burned_.load() < 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return burned_.load();
  }

 private:
  void run() {
    tid_ = this_tid();
    volatile std::uint64_t x = 1;
    while (!done_) {
      const double want = want_.exchange(0);
      if (want <= 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      const double start = thread_cpu_s();
      while (thread_cpu_s() - start < want)
        for (int k = 0; k < 1000; ++k) x = x * 6364136223846793005ULL + 1;
      burned_ = thread_cpu_s() - start;
    }
  }
  std::atomic<int> tid_{0};
  std::atomic<double> want_{0}, burned_{0};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

double wall_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Burned {
  counters::CounterSample sample;
  double cpu_s;        // what the busy thread used, by its own clock
  double uncharged_s;  // host_time_uncharged_s() over the interval
};

// Tracks `busy` (id 0) and `idle` (id 1), lets `busy` burn 30 ms of CPU, samples.
Burned burn_and_sample(CounterSource& source, BusyThread& busy, BusyThread& idle) {
  source.track({0, getpid(), busy.tid(), -1});
  source.track({1, getpid(), idle.tid(), -1});
  const auto t0 = std::chrono::steady_clock::now();
  const double uncharged0 = host_time_uncharged_s();
  const double cpu_s = busy.burn(0.03);
  counters::CounterSample s = source.sample(wall_since(t0));
  return {std::move(s), cpu_s, host_time_uncharged_s() - uncharged0};
}

std::unique_ptr<CounterSource> make(std::string_view name, std::vector<Metric> want = {}) {
  CounterSourceOptions o;
  o.want = std::move(want);
  std::string why;
  auto s = make_counter_source(name, o, why);
  INFO(name << ": " << why);
  return s;
}

// Every metric a source does not give says why, prefixed with the source.
void check_every_missing_metric_says_why(const CounterSource& s) {
  for (Metric m : counters::kAllMetrics) {
    const counters::MetricStatus& st = s.availability()[m];
    INFO(s.name() << " " << counters::to_string(m) << ": " << st.note);
    if (st.available) {
      CHECK(st.source == s.name());
    } else {
      CHECK(st.note.rfind(std::string(s.name()) + ":", 0) == 0);
    }
  }
}

std::string temp_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / (name + "." + std::to_string(getpid()));
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("Power.Counters.ProcMeasuresThreadCpuTime", "[power][counters]") {
  auto proc = make("proc");
  REQUIRE(proc);
  CHECK(proc->name() == "proc");
  REQUIRE(proc->availability().has(Metric::busy_s));
  for (Metric m : counters::kAllMetrics)
    if (m != Metric::busy_s) CHECK_FALSE(proc->availability().has(m));
  check_every_missing_metric_says_why(*proc);

  BusyThread busy, idle;
  const auto [s, cpu_s, uncharged_s] = burn_and_sample(*proc, busy, idle);
  const auto* b = s.thread(0);
  const auto* i = s.thread(1);
  REQUIRE(b);
  REQUIRE(i);
  REQUIRE(b->busy_s);
  REQUIRE(i->busy_s);
  // What the thread used by its own clock (schedstat: ns; stat: 10 ms ticks),
  // never more than the wall time; the sleeping one hardly ran.
  CHECK(*b->busy_s == Approx(cpu_s).margin(0.011));
  CHECK(*b->busy_s <= s.elapsed_s + 0.011);
  CHECK(*i->busy_s < *b->busy_s / 2);
  CHECK_FALSE(b->mem_reads);

  // Deltas: a second interval without spinning counts (almost) nothing more.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const counters::CounterSample again = proc->sample(0.03);
  REQUIRE(again.thread(0));
  CHECK(again.thread(0)->busy_s.value_or(1) < 0.015);
}

TEST_CASE("Power.Counters.ProcCountsAWholeProcess", "[power][counters]") {
  // tid 0: every thread of the process, including one that starts later.
  auto proc = make("proc");
  REQUIRE(proc);
  proc->track({7, getpid(), 0, -1});
  BusyThread late;
  proc->sample(0.01);  // the new thread joins the target at this sample
  const double cpu_s = late.burn(0.03);
  const counters::CounterSample s = proc->sample(0.05);
  REQUIRE(s.thread(7));
  // At least the late thread's CPU time (the test's own threads add a little).
  CHECK(s.thread(7)->busy_s.value_or(0) >= cpu_s - 0.011);
  proc->untrack(7);
  CHECK_FALSE(proc->sample(0.01).thread(7));
}

TEST_CASE("Power.Counters.GoneThreadIsDropped", "[power][counters]") {
  auto proc = make("proc");
  REQUIRE(proc);
  int tid = 0;
  std::thread([&] { tid = this_tid(); }).join();
  proc->track({3, getpid(), tid, -1});  // ended before it was tracked: nothing to read
  const counters::CounterSample s = proc->sample(0.01);
  REQUIRE(s.thread(3));  // the target is there, without figures
  CHECK_FALSE(s.thread(3)->busy_s);
}

TEST_CASE("Power.Counters.PerfSoftwareTaskClock", "[power][counters]") {
  auto perf =
      make("perf", {Metric::busy_s, Metric::cycles, Metric::instructions, Metric::llc_misses, Metric::mem_reads});
  REQUIRE(perf);
  check_every_missing_metric_says_why(*perf);
  const counters::MetricStatus& busy = perf->availability()[Metric::busy_s];
  std::ifstream paranoid_file("/proc/sys/kernel/perf_event_paranoid");
  int paranoid = 3;
  paranoid_file >> paranoid;
  INFO("perf_event_paranoid " << paranoid << "; task-clock: " << busy.note);
  if (!busy.available) {
    // Refused (paranoid > 2, a seccomp filter, no perf_event_open at all): it says so.
    CHECK(busy.note.find("software task-clock") != std::string::npos);
    return;
  }
  BusyThread b, i;
  const auto [s, cpu_s, uncharged_s] = burn_and_sample(*perf, b, i);
  REQUIRE(s.thread(0));
  REQUIRE(s.thread(0)->busy_s);
  INFO("steal and interrupt time over the burn: " << uncharged_s << " s");
  CHECK(*s.thread(0)->busy_s >= cpu_s - 0.003);
  CHECK(*s.thread(0)->busy_s <= cpu_s + task_clock_margin(uncharged_s, 0.003));
  CHECK(*s.thread(0)->busy_s <= s.elapsed_s + 0.002);
  CHECK(s.thread(1)->busy_s.value_or(0) < *s.thread(0)->busy_s / 2);
  // Hardware events: counted where a PMU exists, else each says why (a VM: none).
  for (Metric m : {Metric::cycles, Metric::instructions}) {
    if (!perf->availability().has(m)) continue;
    REQUIRE(s.thread(0)->field(m)->has_value());
    CHECK(**s.thread(0)->field(m) > 0);
  }
  // Metrics the policies did not ask for are not set up.
  CHECK(perf->availability()[Metric::fp_ops].note.rfind("perf:", 0) == 0);
}

TEST_CASE("Power.Counters.ReplayPlaysTheRecordingOnce", "[power][counters]") {
  const std::string path = temp_file("rubato_replay_test.csv",
                                     "rubato-counters 1\n"
                                     "interval,scope,elapsed_s,mem_accesses,mem_reads\n"
                                     "0,chip,0.02,1000,\n0,0,,,400\n0,1,,,600\n"
                                     "1,chip,,50,\n1,0,,,50\n");
  CounterSourceOptions o;
  o.replay_path = path;
  std::string why;
  auto replay = make_counter_source("replay", o, why);
  REQUIRE(replay);
  CHECK(replay->availability().has(Metric::mem_accesses));
  CHECK(replay->availability().has(Metric::mem_reads));
  CHECK_FALSE(replay->availability().has(Metric::busy_s));
  check_every_missing_metric_says_why(*replay);
  // Playing starts once both targets the recording names are tracked.
  replay->track({0, getpid(), this_tid(), -1});
  const counters::CounterSample waiting = replay->sample(0.01);
  CHECK(waiting.threads.empty());
  CHECK_FALSE(waiting.chip.mem_accesses);
  replay->track({1, getpid(), this_tid(), -1});
  CHECK_FALSE(replay->exhausted());
  const counters::CounterSample first = replay->sample(0.01);
  CHECK(first.elapsed_s == Approx(0.02));  // the recording's own length
  CHECK(*first.chip.mem_accesses == Approx(1000));
  CHECK(*first.thread(1)->mem_reads == Approx(600));
  const counters::CounterSample second = replay->sample(0.01);
  CHECK(second.elapsed_s == Approx(0.01));  // none recorded: the controller's
  CHECK_FALSE(second.thread(1));
  CHECK(replay->exhausted());
  CHECK(replay->sample(0.01).threads.empty());
  std::filesystem::remove(path);
}

TEST_CASE("Power.Counters.ReplayRefusesABadRecording", "[power][counters]") {
  const std::string path = temp_file("rubato_replay_bad.csv", "rubato-counters 1\ninterval,scope,mem_reads\n0,0,-5\n");
  CounterSourceOptions o;
  o.replay_path = path;
  std::string why;
  CHECK_FALSE(make_counter_source("replay", o, why));
  CHECK(why.rfind(path + ":3:", 0) == 0);
  o.replay_path = path + ".missing";
  CHECK_FALSE(make_counter_source("replay", o, why));
  CHECK(why.find("cannot be read") != std::string::npos);
  std::filesystem::remove(path);
}

TEST_CASE("Power.Counters.PapiSaysWhatItCannotCount", "[power][counters]") {
  auto papi = make("papi", {Metric::busy_s, Metric::cycles, Metric::instructions, Metric::llc_misses, Metric::fp_ops,
                            Metric::mem_reads, Metric::mem_accesses});
  if (!papi) {
    std::string why;
    CHECK_FALSE(make_counter_source("papi", {}, why));
    CHECK(why.find("without PAPI") != std::string::npos);
    return;
  }
  check_every_missing_metric_says_why(*papi);
  // Whatever it offers, it really counts on a thread of ours.
  BusyThread b, i;
  const auto [s, cpu_s, uncharged_s] = burn_and_sample(*papi, b, i);
  CHECK(cpu_s > 0);
  for (Metric m : counters::kAllMetrics) {
    if (!papi->availability().has(m) || counters::is_chip_metric(m)) continue;
    INFO(counters::to_string(m));
    REQUIRE(s.thread(0));
    CHECK(s.thread(0)->field(m)->has_value());
  }
}

TEST_CASE("Power.Counters.LikwidIsProbedInAChildAndSaysWhy", "[power][counters]") {
  // likwid's access-daemon mode exit()s the calling process after a timeout:
  // the source asks in a forked child, in direct mode only. That this test
  // process is still here after making it is the first check.
  const auto t0 = std::chrono::steady_clock::now();
  auto likwid = make("likwid", {Metric::mem_accesses, Metric::mem_writes, Metric::instructions, Metric::cycles});
  CHECK(wall_since(t0) < 5.0);  // the child is killed after 3 s at most
  if (!likwid) {
    std::string why;
    CHECK_FALSE(make_counter_source("likwid", {}, why));
    CHECK(why.find("without likwid") != std::string::npos);
    return;
  }
  check_every_missing_metric_says_why(*likwid);
  // Asked again, the answer is remembered (no second child).
  const auto t1 = std::chrono::steady_clock::now();
  auto again = make("likwid", {Metric::mem_accesses});
  REQUIRE(again);
  CHECK(wall_since(t1) < 1.0);
  CHECK(again->availability()[Metric::mem_accesses].available ==
        likwid->availability()[Metric::mem_accesses].available);
}

TEST_CASE("Power.Counters.SetTakesEachMetricFromTheFirstSourceThatHasIt", "[power][counters]") {
  CounterSourceOptions o;
  o.want = {Metric::busy_s, Metric::mem_reads, Metric::mem_accesses};
  CounterSet set("auto", o);
  // CPU time is counted here whatever else is missing (perf or proc).
  REQUIRE(set.availability().has(Metric::busy_s));
  const std::string source = set.availability()[Metric::busy_s].source;
  CHECK((source == "perf" || source == "proc" || source == "papi"));
  CHECK(set.names().find(source) != std::string::npos);
  // Not wanted: not set up, and said so.
  CHECK_FALSE(set.availability().has(Metric::fp_ops));
  CHECK(set.availability()[Metric::fp_ops].note == "not needed by the policies in force");
  // Wanted and missing: every source's reason.
  for (Metric m : {Metric::mem_reads, Metric::mem_accesses})
    if (!set.availability().has(m)) CHECK(set.availability()[m].note.find("proc:") != std::string::npos);
  BusyThread b;
  set.track({0, getpid(), b.tid(), -1});
  const double uncharged0 = host_time_uncharged_s();
  const double cpu_s = b.burn(0.03);
  const counters::CounterSample s = set.sample(0.04);
  const double uncharged_s = host_time_uncharged_s() - uncharged0;
  REQUIRE(s.thread(0));
  // proc's stat counts 10 ms ticks (0.011); perf and PAPI count task-clock,
  // which includes steal and interrupt time the thread's own clock does not.
  INFO("source " << source << ", steal and interrupt time over the burn: " << uncharged_s << " s");
  const double busy_s = s.thread(0)->busy_s.value_or(0);
  CHECK(busy_s >= cpu_s - 0.011);
  CHECK(busy_s <= cpu_s + (source == "proc" ? 0.011 : task_clock_margin(uncharged_s, 0.003)));
}

TEST_CASE("Power.Counters.SetNamesWhatIsMissing", "[power][counters]") {
  CounterSourceOptions o;
  o.want = {Metric::busy_s, Metric::mem_accesses};
  CounterSet none("none", o);
  CHECK(none.names() == "none");
  CHECK(none.availability()[Metric::busy_s].note == "RUBATO_COUNTERS=none");

  CounterSet unknown("pmu9000", o);
  CHECK(unknown.names() == "none");
  CHECK(unknown.availability()[Metric::busy_s].note.find("unknown counter source 'pmu9000'") != std::string::npos);

  CounterSet proc("proc", o);
  CHECK(proc.names() == "proc");
  CHECK(proc.availability().has(Metric::busy_s));
  CHECK(proc.availability()[Metric::mem_accesses].note == "proc: /proc has CPU times only");

  CounterSet bad("replay:/nonexistent/rubato.csv", o);
  CHECK(bad.names() == "none");
  CHECK(bad.availability()[Metric::mem_accesses].note.find("cannot be read") != std::string::npos);
}
