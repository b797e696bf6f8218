# Runs one of oneTBB's examples plain and under librubato_tbb_preload.so:
# the output must be the same (times aside), and the report must hold task
# events that balance: every task created was completed, each start a pop or
# a steal, no worker busy longer than it was alive.
#   cmake -DEXE=... -DARGS="a;b" -DPRELOAD=... -DREPORT=... -P run_under_preload.cmake
function(run_example out_var)
  execute_process(COMMAND ${ARGN} ${EXE} ${ARGS} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 240)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${EXE} ${ARGS} failed (${rc}): ${out}${err}")
  endif()
  # Elapsed times differ from run to run.
  string(REGEX REPLACE "[0-9]+(\\.[0-9]+)?(e-?[0-9]+)? ?(seconds|sec|s)" "<time>" out "${out}")
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# REPORT names a file in the build tree: a random part makes it this run's
# own, so that two test runs at once in one tree never read each other's report.
string(RANDOM LENGTH 12 run_id)
set(REPORT "${REPORT}.${run_id}.json")
run_example(plain)
run_example(preloaded ${CMAKE_COMMAND} -E env LD_PRELOAD=${PRELOAD} RUBATO_REPORT=${REPORT} RUBATO_BACKEND=dry-run
            RUBATO_LOG=error)
if(NOT plain STREQUAL preloaded)
  message(FATAL_ERROR "output differs under the preload:\n--- plain\n${plain}\n--- preload\n${preloaded}")
endif()

file(READ ${REPORT} json)
file(REMOVE ${REPORT})
string(JSON frontend GET "${json}" frontend)
string(JSON observed GET "${json}" steals_observed)
if(NOT frontend STREQUAL "tbb-preload" OR NOT observed)
  message(FATAL_ERROR "expected task events from the preload, got frontend ${frontend}, steals_observed ${observed}")
endif()
string(JSON n LENGTH "${json}" workers)
set(total_pushes 0)
set(total_starts 0)
set(total_completed 0)
set(total_steals 0)
set(total_stolen_from 0)
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  foreach(key pushes pops steals stolen_from tasks_completed busy_s alive_s)
    string(JSON w_${key} GET "${json}" workers ${i} ${key})
  endforeach()
  if(w_busy_s GREATER w_alive_s)
    message(FATAL_ERROR "worker ${i}: busy ${w_busy_s} s > alive ${w_alive_s} s")
  endif()
  math(EXPR total_pushes "${total_pushes} + ${w_pushes}")
  math(EXPR total_starts "${total_starts} + ${w_pops} + ${w_steals}")
  math(EXPR total_completed "${total_completed} + ${w_tasks_completed}")
  math(EXPR total_steals "${total_steals} + ${w_steals}")
  math(EXPR total_stolen_from "${total_stolen_from} + ${w_stolen_from}")
endforeach()
message("${n} workers: ${total_pushes} tasks created, ${total_starts} started, ${total_completed} completed, "
        "${total_steals} steals")
if(total_pushes EQUAL 0 OR NOT total_starts EQUAL total_pushes OR NOT total_completed EQUAL total_pushes
   OR NOT total_stolen_from EQUAL total_steals)
  message(FATAL_ERROR "task events do not balance")
endif()
