# One bounded libFuzzer run (cmake -P): FUZZER for SECONDS on the kept CORPUS;
# new inputs and crash artifacts go to WORK (the build tree). Prints the
# figures (executions per second, coverage) and fails on any finding.
file(MAKE_DIRECTORY "${WORK}/new")
execute_process(
  COMMAND "${FUZZER}" -max_total_time=${SECONDS} -print_final_stats=1 -timeout=10 -rss_limit_mb=2048
          -artifact_prefix=${WORK}/ "${WORK}/new" "${CORPUS}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE log)
string(REGEX MATCHALL "#[0-9]+[ \t]+DONE[^\n]*" done "${log}")
string(REGEX MATCHALL "stat::[^\n]*" stats "${log}")
string(REGEX MATCHALL "INITED[^\n]*" inited "${log}")
message(STATUS "${inited}")
message(STATUS "${done}")
foreach(s IN LISTS stats)
  message(STATUS "${s}")
endforeach()
if(NOT rc EQUAL 0)
  string(LENGTH "${log}" n)
  math(EXPR from "${n} - 6000")
  if(from LESS 0)
    set(from 0)
  endif()
  string(SUBSTRING "${log}" ${from} -1 tail)
  message(FATAL_ERROR "the fuzzer found a problem (exit ${rc}); the input is in ${WORK}/ (crash-*, leak-*, timeout-*):\n${tail}")
endif()
