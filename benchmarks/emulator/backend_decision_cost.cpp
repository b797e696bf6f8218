// Decision cost per frequency change: what the engine's calling
// thread pays in domain_level_changed (dry-run vs sysfs: both only record),
// and what the sysfs back-end's flusher pays to apply one change
// (scaling_setspeed write on a fake sysfs tree; a real sysfs write adds the
// driver's transition on top). The tree goes to /dev/shm (tmpfs) by default:
// on ext4, truncate-and-rewrite forces a data flush at close (auto_da_alloc),
// which is a file-system cost, not sysfs's.
//   backend_decision_cost [changes (200000)] [tree base dir (/dev/shm)]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "fake_sysfs.hpp"
#include "rubato/power/frequency/dry_run_frequency.hpp"
#include "rubato/power/frequency/sysfs_frequency.hpp"

using namespace rubato;

namespace {

template <class F>
double ns_per_call(int n, F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) f(i);
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / n;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 200000;
  test::FakeSysfs fs(argc > 2 ? argv[2] : "/dev/shm");
  if (fs.root().empty()) {
    std::fprintf(stderr, "cannot create the fake tree\n");
    return 1;
  }
  test::TempDir state;
  fs.add_cpus(2, 1, {2400000, 1400000});
  const Topology topo = read_topology(fs.root());
  DomainPlan plan;
  for (const auto& d : topo.clock_domains) plan.cpus_of_domain.push_back(d.cpus);
  plan.ladder = TempoLadder({2.4e9, 1.4e9});
  plan.max_workers = 2;

  DryRunFrequency dry;
  std::string why;
  dry.save(plan, why);
  // A long dwell keeps the flusher from competing while the engine side is timed.
  SysfsFrequency sysfs(topo, 10.0, state.path() + "/s");
  if (!sysfs.save(plan, why)) {
    std::fprintf(stderr, "sysfs back-end on the fake tree: %s\n", why.c_str());
    return 1;
  }
  const double dry_ns = ns_per_call(n, [&](int i) { dry.domain_level_changed(0, i & 1, (i & 1) ? 1.4e9 : 2.4e9, 0); });
  const double record_ns =
      ns_per_call(n, [&](int i) { sysfs.domain_level_changed(0, i & 1, (i & 1) ? 1.4e9 : 2.4e9, 0); });
  const int writes = std::max(1, n / 20);
  const double write_ns = ns_per_call(writes, [&](int i) { sysfs.apply(1, (i & 1) ? 1.4e9 : 2.4e9); });
  std::printf("%-46s %10.1f ns\n", "dry-run: domain_level_changed (engine thread)", dry_ns);
  std::printf("%-46s %10.1f ns\n", "sysfs: domain_level_changed (engine thread)", record_ns);
  std::printf("%-46s %10.1f ns  (%d writes, tree in %s)\n", "sysfs: apply one change (flusher thread)", write_ns,
              writes, fs.root().c_str());
  const RestoreOutcome r = sysfs.restore();
  return r.ok() ? 0 : 1;
}
