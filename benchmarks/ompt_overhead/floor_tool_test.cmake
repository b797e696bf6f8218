# The floor tool counts what rubato counts exactly: fib(15) makes 1972 deferred
# tasks, each pushed, started once (a pop or a steal) and completed; the
# program's result is unchanged.
set(ENV{OMP_TOOL_LIBRARIES} "${TOOL}")
set(ENV{OMP_NUM_THREADS} 2)
set(ENV{FLOOR_TOOL_SUMMARY} 1)
execute_process(COMMAND ${EXE} 15 OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message("stdout: ${out}stderr: ${err}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "^fib\\(15\\)=610 ")
  message(FATAL_ERROR "fib failed under the floor tool (exit ${rc})")
endif()
if(NOT err MATCHES "floor tool: 2 threads, pushes ([0-9]+), pops ([0-9]+), steals ([0-9]+), completed ([0-9]+),")
  message(FATAL_ERROR "no summary from the floor tool")
endif()
math(EXPR started "${CMAKE_MATCH_2} + ${CMAKE_MATCH_3}")
if(NOT CMAKE_MATCH_1 EQUAL 1972 OR NOT started EQUAL 1972 OR NOT CMAKE_MATCH_4 EQUAL 1972)
  message(FATAL_ERROR "expected 1972 pushes, starts and completions")
endif()
