# tbb_overhead's three variants compute the same results (it exits non-zero
# otherwise), and the floor counts every task exactly: each pushed, started
# once (a pop or a steal) and completed.
execute_process(COMMAND ${EXE} --runs 1 --fib 15 --tasks 8 --task-ms 0.1 --threads 2
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message("stdout: ${out}stderr: ${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tbb_overhead failed (exit ${rc})")
endif()
# fib(15): 1972 tasks; coarse: 8.
if(NOT out MATCHES "floor counts: ([0-9]+) pushes, ([0-9]+) pops, ([0-9]+) steals, ([0-9]+) completed")
  message(FATAL_ERROR "no floor counts")
endif()
math(EXPR started "${CMAKE_MATCH_2} + ${CMAKE_MATCH_3}")
if(NOT CMAKE_MATCH_1 EQUAL 1980 OR NOT started EQUAL 1980 OR NOT CMAKE_MATCH_4 EQUAL 1980)
  message(FATAL_ERROR "expected 1980 pushes, starts and completions")
endif()
