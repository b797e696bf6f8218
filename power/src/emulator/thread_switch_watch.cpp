#include "emulator/thread_switch_watch.hpp"

#include <cstdint>
#include <ctime>

#if defined(__linux__) && defined(__LP64__) && __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#endif

#if defined(RSEQ_SIG) && defined(__has_builtin)
#if __has_builtin(__builtin_thread_pointer)
#define RUBATO_SWITCH_WATCH 1
#endif
#endif

namespace rubato::emulator_detail {

#if defined(RUBATO_SWITCH_WATCH)
namespace {

// The signature the kernel expects in the 4 bytes before a section's abort
// address (glibc registers its areas with RSEQ_SIG); kernels up to 6.18 check
// it for every section they look at, inside or not.
struct AbortSite {
  std::uint32_t signature;
  std::uint32_t target;
};

// An empty section: start = abort = &target, length 0. Allocated once and
// never freed: the kernel reads it at each preemption of a watched thread for
// as long as that thread lives, even after this library is unloaded.
const rseq_cs* empty_section() noexcept {
  static const rseq_cs* const section = [] {
    auto* site = new AbortSite{RSEQ_SIG, 0};
    auto* empty = new rseq_cs{};
    const auto target = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&site->target));
    empty->version = 0;
    empty->flags = 0;
    empty->start_ip = target;
    empty->post_commit_offset = 0;
    empty->abort_ip = target;
    return empty;
  }();
  return section;
}

std::uint64_t empty_section_address() noexcept {
  return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(empty_section()));
}

struct rseq* this_thread_area() noexcept {
  return reinterpret_cast<struct rseq*>(static_cast<char*>(__builtin_thread_pointer()) + __rseq_offset);
}

// RSEQ_CPU_ID_UNINITIALIZED or RSEQ_CPU_ID_REGISTRATION_FAILED: no area on this thread.
bool registered(const struct rseq* area) noexcept {
  return static_cast<std::int32_t>(__atomic_load_n(&area->cpu_id, __ATOMIC_RELAXED)) >= 0;
}

}  // namespace

bool switch_watch_available() noexcept { return __rseq_size > 0 && registered(this_thread_area()); }

void arm_switch_watch() noexcept {
  if (__rseq_size == 0) return;
  struct rseq* area = this_thread_area();
  if (registered(area)) __atomic_store_n(&area->rseq_cs, empty_section_address(), __ATOMIC_RELAXED);
}

bool switch_watch_tripped() noexcept {
  if (__rseq_size == 0) return true;
  return __atomic_load_n(&this_thread_area()->rseq_cs, __ATOMIC_RELAXED) != empty_section_address();
}

bool switch_watch_sees_sleeps() noexcept {
  if (!switch_watch_available()) return false;
  arm_switch_watch();
  const timespec nap{0, 50'000};
  nanosleep(&nap, nullptr);
  return switch_watch_tripped();
}

#else

bool switch_watch_available() noexcept { return false; }
void arm_switch_watch() noexcept {}
bool switch_watch_tripped() noexcept { return true; }
bool switch_watch_sees_sleeps() noexcept { return false; }

#endif

}  // namespace rubato::emulator_detail
