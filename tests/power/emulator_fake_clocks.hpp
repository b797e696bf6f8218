// A deterministic fake of the emulator's clocks (rubato/power/emulator/
// emulator_clocks.hpp) for the emulator's tests: no test that uses it depends
// on the machine's speed or load.
#pragma once

#include <cstdint>
#include <string>

#include "rubato/power/emulator/emulator_clocks.hpp"

namespace rubato::test {

// Time moves only when something reads a clock (a wall read costs 10 ns, a
// CPU clock read — a system call — 600 ns) or when the test says the thread
// ran or was off its core. The thread's CPU time is the wall time it was on.
class FakeClocks final : public EmulatorClocks {
 public:
  static constexpr std::uint64_t kWallReadNs = 10;
  static constexpr std::uint64_t kCpuReadNs = 600;

  explicit FakeClocks(SwitchSight sight) : sight_(sight) {}

  std::uint64_t wall_ns() noexcept override {
    ++wall_reads;
    now_ += kWallReadNs;
    return now_;
  }
  std::uint64_t thread_cpu_ns() noexcept override {
    ++cpu_reads;
    now_ += kCpuReadNs;
    return now_ - off_core_;
  }
  void watch_switches() noexcept override { tripped_ = false; }
  bool switched_out() noexcept override { return sight_ != SwitchSight::none && tripped_; }
  SwitchSight switch_sight() const noexcept override { return sight_; }
  std::string describe() const override { return "fake"; }

  void run(std::uint64_t ns) { now_ += ns; }
  // Off the core for `ns`; a watch that sees it trips.
  void off_core(std::uint64_t ns, bool a_sleep) {
    now_ += ns;
    off_core_ += ns;
    if (sight_ == SwitchSight::every_switch || (sight_ == SwitchSight::preemption && !a_sleep)) tripped_ = true;
  }
  std::uint64_t now() const { return now_; }
  std::uint64_t cpu() const { return now_ - off_core_; }

  int wall_reads = 0;
  int cpu_reads = 0;

 private:
  SwitchSight sight_;
  std::uint64_t now_ = 1'000'000'000;
  std::uint64_t off_core_ = 0;
  bool tripped_ = true;
};

}  // namespace rubato::test
