// `rubato run` stopped by a signal: the running trial gets the signal, the
// runs so far are kept and compared, and rubato exits as a shell reports a
// process that signal ended — 130 for SIGINT (Ctrl-C), 143 for SIGTERM (a
// batch scheduler's limit, `timeout`) — by exit(), having handled it.
#include <signal.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "cli_test_support.hpp"

using namespace rubato;

namespace {

// `rubato run` of one long trial, signalled once the trial has started.
test::ProgramResult run_interrupted_by(int sig, const test::ScratchDir& d) {
  test::write_file(d.path() / "tool.so", "");
  const std::string out = d.str() + "/r";
  std::vector<std::string> argv = {RUBATO_CLI_BINARY, "run", "--policies", "baseline", "--trials", "2", "--skip", "0"};
  argv.insert(argv.end(), {"--workers", "1", "--backend", "dry-run", "--tool", d.str() + "/tool.so", "--out", out});
  argv.insert(argv.end(), {"--", RUBATO_FAKE_PROGRAM, "--sleep-ms", "60000"});
  test::RunningProgram p(argv, {}, d.str() + "/cli");
  // The trial's output files exist once it was spawned, which rubato does
  // after it took SIGINT and SIGTERM over.
  const bool started = test::wait_until([&] { return test::path_exists(out + "/w1/baseline/trial-00/stdout.txt"); });
  if (!started) FAIL("the trial did not start; stderr:\n" << p.err_so_far());
  p.signal(sig);
  return p.wait(60);
}

}  // namespace

TEST_CASE("Cli.Run.ExitsAsTheSignalThatStoppedIt", "[cli][run]") {
  for (const auto& [sig, status] : {std::pair{SIGTERM, 143}, std::pair{SIGINT, 130}}) {
    test::ScratchDir d;
    const test::ProgramResult r = run_interrupted_by(sig, d);
    INFO("signal " << sig << ": " << r.status() << "\n" << r.err);
    CHECK(r.exited);  // handled: the trial stopped, the index written, then exit
    CHECK(r.exit_code == status);
    CHECK(r.seconds < 50);  // the trial was stopped, not waited for
    CHECK(r.err.find("interrupted after 1 of 2 runs") != std::string::npos);
    CHECK(test::path_exists(d.str() + "/r/rubato-index.json"));
    CHECK_FALSE(test::path_exists(d.str() + "/r/w1/baseline/trial-01"));  // nothing ran after it
  }
}
