// The active TBB front-end: the session the drop-ins' events go to. The
// drop-ins keep oneTBB's interfaces, so they cannot be handed a context; they
// find it here. One front-end is active per process at a time (a second
// observer stays passive and says so).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "rubato/core/tempo/engine.hpp"
#include "rubato/power/session/session.hpp"

namespace rubato::tbb::detail {

enum class EventLevel {
  tasks,         // linked observer + drop-ins: push / pop / steal / idle, a segment per task
  itt_tasks,     // preload: the same events from oneTBB's ITT notifications and interposed spawns
  threads_only,  // preload without ITT: arena entry / exit, a segment per stay in the arena
};

struct Frontend {
  Frontend(Session& s, EventLevel lvl)
      : session(s),
        engine(s.engine()),
        max_workers(s.engine().max_workers()),
        dynamic_binding(s.settings().binding == "dynamic"),
        level(lvl),
        workers_are_threads(lvl == EventLevel::itt_tasks),
        in_arena(std::make_unique<std::atomic<bool>[]>(max_workers)),
        unseen_creations(std::make_unique<OwnCount[]>(max_workers)) {}

  Session& session;
  Engine& engine;
  std::size_t max_workers;
  bool dynamic_binding;
  EventLevel level;
  // A worker is a thread (numbered in the order threads are first seen), not
  // an arena slot: the preload's task events come from every arena, where
  // slot numbers repeat. Within one arena a thread keeps its slot while it has
  // tasks queued, so steals counted either way agree.
  bool workers_are_threads;
  std::atomic<WorkerId> next_thread_worker{0};
  // Set at activation; a thread's record belongs to the front-end of its generation.
  std::uint64_t generation = 0;
  // Rare events, counted for the report's notes (never on the per-task path).
  std::atomic<std::uint64_t> discarded{0};        // spawned tasks a cancelled group dropped
  std::atomic<std::uint64_t> outside_threads{0};  // thread entries beyond RUBATO_MAX_WORKERS
  std::atomic<std::uint64_t> deep_tasks{0};       // preload: tasks nested beyond the collector's frames
  // Per worker: its thread is inside the arena (set at entry, cleared at exit).
  std::unique_ptr<std::atomic<bool>[]> in_arena;
  // Per worker, written by its own thread only (a task event may not touch a
  // shared counter): preload tasks started whose creation was not seen.
  // Owner-only increments, as the engine's own slot counters (engine_detail::bump).
  struct alignas(kCacheLine) OwnCount {
    std::atomic<std::uint64_t> n{0};
  };
  std::unique_ptr<OwnCount[]> unseen_creations;
  std::uint64_t total_unseen_creations() const noexcept {
    std::uint64_t sum = 0;
    for (std::size_t w = 0; w < max_workers; ++w) sum += engine_detail::get(unseen_creations[w].n);
    return sum;
  }
};

// The active front-end, or nullptr.
inline std::atomic<Frontend*> g_active_frontend{nullptr};

// Generation of the active front-end at EventLevel::itt_tasks; 0: none (the
// drop-ins' counterpart is g_task_generation).
inline std::atomic<std::uint64_t> g_itt_generation{0};

inline Frontend* active_frontend() noexcept { return g_active_frontend.load(std::memory_order_acquire); }

// An observer claims the front-end before it opens a session, so that a second
// one neither opens a session nor changes machine state; false: already claimed.
bool claim_frontend() noexcept;
void release_frontend() noexcept;

// Makes the claimed `fe` the active front-end, with a fresh generation.
void publish(Frontend& fe) noexcept;
// The drop-ins stop reporting to `fe` (tasks already inside a scope finish theirs).
void retract(Frontend& fe) noexcept;

}  // namespace rubato::tbb::detail
