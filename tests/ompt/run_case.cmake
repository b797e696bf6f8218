# One end-to-end case (cmake -P): runs PROGRAM without and with the tool,
# requires identical stdout, then checks the report.
#
#   -DPROGRAM=exe -DARGS="a;b" -DTOOL=librubato_ompt.so -DWORK=dir
#   -DENV="K=V;..."        both runs (e.g. KMP_ENABLE_TASK_THROTTLING, LD_PRELOAD)
#   -DTOOL_ENV="K=V;..."   the tool run only (RUBATO_POLICY, RUBATO_BACKEND, ...)
#   -DMODE=check           CHECKER --report --truth --log [CHECK_ARGS]
#   -DMODE=no_report       the tool must step aside: no report, EXPECT_STDERR in stderr
#   -DMODE=report_only     the tool ran and wrote a report matching EXPECT_REPORT (a regex)
#   -DTRACE=ON             also record and check a trace
#   -DEXPECT_STDERR_LINES=n  the tool run's stderr has exactly n lines
foreach(v PROGRAM TOOL WORK MODE)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_case.cmake: ${v} is not set")
  endif()
endforeach()

# WORK is the case's (a later test may read its report): two runs of one case
# at once (two test runs in one build tree) take turns instead of removing
# each other's files.
get_filename_component(work_parent "${WORK}" DIRECTORY)
file(MAKE_DIRECTORY "${work_parent}")
file(LOCK "${WORK}.lock" GUARD PROCESS TIMEOUT 600)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(report "${WORK}/report.json")

execute_process(
  COMMAND ${CMAKE_COMMAND} -E env --unset=OMP_TOOL_LIBRARIES GT_FILE=${WORK}/truth-reference.txt ${ENV}
          ${PROGRAM} ${ARGS}
  OUTPUT_VARIABLE ref_out ERROR_VARIABLE ref_err RESULT_VARIABLE ref_rc)
if(NOT ref_rc EQUAL 0)
  message(FATAL_ERROR "reference run failed (${ref_rc}):\n${ref_err}")
endif()

set(tool_env OMP_TOOL_LIBRARIES=${TOOL} RUBATO_REPORT=${report} RUBATO_LOG=debug GT_FILE=${WORK}/truth.txt)
if(TRACE)
  list(APPEND tool_env RUBATO_TRACE=${WORK}/trace.bin)
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env ${tool_env} ${ENV} ${TOOL_ENV} ${PROGRAM} ${ARGS}
  OUTPUT_VARIABLE tool_out ERROR_VARIABLE tool_err RESULT_VARIABLE tool_rc)
file(WRITE "${WORK}/tool-stderr.txt" "${tool_err}")
if(NOT tool_rc EQUAL 0)
  message(FATAL_ERROR "run with the tool failed (${tool_rc}):\n${tool_err}")
endif()
if(NOT tool_out STREQUAL ref_out)
  message(FATAL_ERROR "the program's output changed with the tool attached:\nwithout:\n${ref_out}\nwith:\n${tool_out}")
endif()
message(STATUS "output identical: ${tool_out}")

if(DEFINED EXPECT_STDERR AND NOT tool_err MATCHES "${EXPECT_STDERR}")
  message(FATAL_ERROR "stderr does not match '${EXPECT_STDERR}':\n${tool_err}")
endif()

if(DEFINED EXPECT_STDERR_LINES)
  string(REGEX MATCHALL "\n" newlines "${tool_err}")
  list(LENGTH newlines lines)
  if(NOT lines EQUAL EXPECT_STDERR_LINES)
    message(FATAL_ERROR "stderr has ${lines} lines, not ${EXPECT_STDERR_LINES}:\n${tool_err}")
  endif()
endif()

if(MODE STREQUAL "no_report")
  if(EXISTS "${report}")
    message(FATAL_ERROR "the tool should have stepped aside but wrote ${report}")
  endif()
  return()
endif()
if(NOT EXISTS "${report}")
  message(FATAL_ERROR "no report at ${report}; stderr:\n${tool_err}")
endif()
if(MODE STREQUAL "report_only")
  file(READ "${report}" report_text)
  if(DEFINED EXPECT_REPORT AND NOT report_text MATCHES "${EXPECT_REPORT}")
    message(FATAL_ERROR "the report does not match '${EXPECT_REPORT}':\n${report_text}")
  endif()
  return()
endif()

set(check_cmd ${CHECKER} --report ${report} --truth ${WORK}/truth.txt --log ${WORK}/tool-stderr.txt ${CHECK_ARGS})
if(TRACE)
  list(APPEND check_cmd --trace ${WORK}/trace.bin)
endif()
execute_process(COMMAND ${check_cmd} OUTPUT_VARIABLE check_out ERROR_VARIABLE check_out RESULT_VARIABLE check_rc)
message(STATUS "${check_out}")
if(NOT check_rc EQUAL 0)
  message(FATAL_ERROR "report does not match the program's own record (see above); stderr of the run:\n${tool_err}")
endif()
