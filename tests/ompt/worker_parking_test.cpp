// The OpenMP actuator of efs (frontends/ompt/src/worker_parking.hpp): a worker
// asked to park sleeps until the controller lets it go, the bound runs out or
// everything is released — and waits each request out once.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "worker_parking.hpp"

using namespace rubato;
using namespace rubato::ompt;

namespace {

// Worker `w` parks on its own thread; `done` is set when it runs again.
struct ParkedWorker {
  ParkedWorker(WorkerParking& p, WorkerId w)
      : thread([&p, w, this] {
          p.park(w);
          done = true;
        }) {}
  ~ParkedWorker() { thread.join(); }
  bool runs_within(std::chrono::milliseconds limit) const {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (!done && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return done;
  }
  std::atomic<bool> done{false};
  std::thread thread;
};

// Waits (bounded) until worker `w` has entered its wait: park() counts the
// wait once it read its start time, so what it then measures runs from before
// this returns. (The thread may start late on a loaded machine.)
bool parked(const WorkerParking& p, WorkerId w) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (p.waits(w).value_or(0) == 0 && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return p.waits(w).value_or(0) > 0;
}

}  // namespace

TEST_CASE("Ompt.Parking.WithdrawnRequestWakesTheWorker", "[ompt][parking]") {
  SteadyClock clock;
  WorkerParking parking(2, clock);
  CHECK_FALSE(parking.requested(1));
  const std::uint8_t park1[] = {0, 1};
  parking.apply(park1, 30.0);
  CHECK_FALSE(parking.requested(0));
  REQUIRE(parking.requested(1));
  {
    ParkedWorker w(parking, 1);
    REQUIRE(parked(parking, 1));
    CHECK_FALSE(w.runs_within(std::chrono::milliseconds(50)));  // parked
    const std::uint8_t none[] = {0, 0};
    parking.apply(none, 30.0);
    CHECK(w.runs_within(std::chrono::seconds(5)));
  }
  CHECK(*parking.waits(1) == 1);
  CHECK(*parking.waited_s(1) >= 0.04);
  CHECK(*parking.waits(0) == 0);
  CHECK_FALSE(parking.waits(2));
}

TEST_CASE("Ompt.Parking.BoundEndsTheWaitOnce", "[ompt][parking]") {
  SteadyClock clock;
  WorkerParking parking(1, clock);
  const std::uint8_t park[] = {1};
  parking.apply(park, 0.05);  // the controller then says nothing more
  {
    ParkedWorker w(parking, 0);
    CHECK(w.runs_within(std::chrono::seconds(5)));
  }
  CHECK(*parking.waited_s(0) >= 0.05);
  // The same request is not waited out twice; a new one (after a resume) is.
  CHECK_FALSE(parking.requested(0));
  parking.apply(park, 0.05);
  CHECK_FALSE(parking.requested(0));
  const std::uint8_t run[] = {0};
  parking.apply(run, 0.05);
  parking.apply(park, 0.05);
  CHECK(parking.requested(0));
}

TEST_CASE("Ompt.Parking.ReleaseAllWakesAndIgnoresLaterRequests", "[ompt][parking]") {
  SteadyClock clock;
  WorkerParking parking(1, clock);
  const std::uint8_t park[] = {1};
  parking.apply(park, 30.0);
  {
    ParkedWorker w(parking, 0);
    REQUIRE(parked(parking, 0));
    CHECK_FALSE(w.runs_within(std::chrono::milliseconds(20)));
    parking.release_all();
    CHECK(w.runs_within(std::chrono::seconds(5)));
  }
  parking.apply(park, 30.0);
  CHECK_FALSE(parking.requested(0));
}
