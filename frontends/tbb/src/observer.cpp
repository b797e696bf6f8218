#include "rubato/tbb/observer.hpp"

#include "arena_observer.hpp"
#include "rubato/power/session/run_identity.hpp"

namespace rubato::tbb {

observer::observer() : observer(read_process_environment()) {}

observer::observer(const Environment& env)
    : impl_(std::make_unique<detail::ArenaObserver>(env, detail::EventLevel::tasks)) {}

observer::observer(::tbb::task_arena& arena) : observer(arena, read_process_environment()) {}

observer::observer(::tbb::task_arena& arena, const Environment& env)
    : impl_(std::make_unique<detail::ArenaObserver>(arena, env, detail::EventLevel::tasks)) {}

observer::~observer() = default;

bool observer::active() const noexcept { return impl_->active(); }

const Report& observer::finish() noexcept { return impl_->finish(); }

}  // namespace rubato::tbb
