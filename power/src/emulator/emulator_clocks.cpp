#include "rubato/power/emulator/emulator_clocks.hpp"

#include <ctime>

#include "emulator/thread_switch_watch.hpp"
#include "rubato/core/base/clock.hpp"

namespace rubato {

std::uint64_t thread_cpu_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

namespace {

class SystemEmulatorClocks final : public EmulatorClocks {
 public:
  SystemEmulatorClocks()
      : sight_(!emulator_detail::switch_watch_available()    ? SwitchSight::none
               : emulator_detail::switch_watch_sees_sleeps() ? SwitchSight::every_switch
                                                             : SwitchSight::preemption) {}

  std::uint64_t wall_ns() noexcept override { return wall_.now(); }
  std::uint64_t thread_cpu_ns() noexcept override { return rubato::thread_cpu_ns(); }
  void watch_switches() noexcept override {
    if (sight_ != SwitchSight::none) emulator_detail::arm_switch_watch();
  }
  bool switched_out() noexcept override {
    return sight_ != SwitchSight::none && emulator_detail::switch_watch_tripped();
  }
  SwitchSight switch_sight() const noexcept override { return sight_; }

  std::string describe() const override {
    std::string line = wall_.uses_tsc() ? "wall clock TSC" : "wall clock CLOCK_MONOTONIC";
    switch (sight_) {
      case SwitchSight::every_switch: return line + "; context switches seen by rseq (preemptions and sleeps)";
      case SwitchSight::preemption: return line + "; preemptions seen by rseq (sleeps only by their length)";
      case SwitchSight::none: break;
    }
    return line + "; no rseq area (glibc < 2.35 or rseq off): switches seen only by their length";
  }

 private:
  SteadyClock wall_;
  SwitchSight sight_;
};

}  // namespace

std::unique_ptr<EmulatorClocks> make_system_emulator_clocks() { return std::make_unique<SystemEmulatorClocks>(); }

}  // namespace rubato
