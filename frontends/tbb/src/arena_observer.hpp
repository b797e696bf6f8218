// The task_scheduler_observer behind rubato::tbb::observer and the preload
// library: owns the session and the front-end, turns arena entry / exit into
// worker events, and finishes the report.
#pragma once

#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_scheduler_observer.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "concurrency_actuator.hpp"
#include "frontend.hpp"
#include "rubato/core/io/report.hpp"
#include "rubato/core/config/settings.hpp"
#include "rubato/power/session/session.hpp"

namespace rubato::tbb::detail {

class ArenaObserver final : public ::tbb::task_scheduler_observer {
 public:
  // Observes the calling thread's arena (its implicit one is created if it has none) ...
  ArenaObserver(const Environment& env, EventLevel level);
  // ... or the given one.
  ArenaObserver(::tbb::task_arena& arena, const Environment& env, EventLevel level);
  ~ArenaObserver() override;

  bool active() const noexcept { return frontend_ != nullptr; }
  // A line for the report's notes (nothing when inactive).
  void note(const std::string& line) noexcept;
  // The process exits with `status` (Session::exiting_with): the report says so.
  void exiting_with(int status) noexcept {
    if (session_) session_->exiting_with(status);
  }
  const Report& finish() noexcept;
  // The session, while active (the preload opens its trace from it).
  Session* session() noexcept { return frontend_ ? session_.get() : nullptr; }
  // Run by finish() once no task event reaches the front-end, before the
  // report is written (the preload writes its trace's last records there).
  void before_report(std::function<void()> f) { before_report_ = std::move(f); }

  void on_scheduler_entry(bool is_worker) override;
  void on_scheduler_exit(bool is_worker) override;

 private:
  void start(const Environment& env, EventLevel level) noexcept;
  void add_notes() noexcept;

  std::unique_ptr<ConcurrencyActuator> throttle_;  // efs's actuator; outlives the session's controllers
  std::unique_ptr<Session> session_;
  std::unique_ptr<Frontend> frontend_;
  std::mutex finish_mutex_;
  bool finished_ = false;
  const Report* report_ = nullptr;
  std::function<void()> before_report_;
  Report empty_report_;
};

}  // namespace rubato::tbb::detail
