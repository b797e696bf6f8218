# The tool must not link libpapi, libpfm or liblikwid: loading them cost every
# host program milliseconds of start-up; power/ loads them on first use.
#   cmake -DOBJDUMP=... -DTOOL=librubato_ompt.so -P no_eager_counter_libraries.cmake
execute_process(COMMAND ${OBJDUMP} -p ${TOOL} OUTPUT_VARIABLE headers RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${OBJDUMP} -p ${TOOL} failed (${rc})")
endif()
string(REGEX MATCHALL "NEEDED +[^\n]+" needed "${headers}")
if(NOT needed)
  message(FATAL_ERROR "no NEEDED entries read from ${TOOL}: cannot check")
endif()
foreach(entry ${needed})
  if(entry MATCHES "libpapi|libpfm|liblikwid")
    message(FATAL_ERROR "${TOOL} links a counter library at load time: ${entry}")
  endif()
endforeach()
message(STATUS "${TOOL}: ${needed}")
