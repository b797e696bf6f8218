# The task_stats tool counts fib(15)'s 1972 tasks exactly, and the program's
# stdout is the same with the tool attached.
set(ENV{OMP_TOOL_LIBRARIES} "${TOOL}")
execute_process(COMMAND ${EXE} --n 15 --threads 2 OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message("stdout: ${out}stderr: ${err}")
if(NOT rc EQUAL 0 OR NOT out STREQUAL "fib: n=15 result=610 ok\n")
  message(FATAL_ERROR "fib_omp failed under the tool (exit ${rc})")
endif()
if(NOT err MATCHES "task_stats: tasks=1972 steals=[0-9]+ ")
  message(FATAL_ERROR "task_stats did not report tasks=1972")
endif()
