# ctest driver of one kernel program (cmake -P; see ../CMakeLists.txt).
#   MODE=SelfCheck:     run ARGS with --threads 1 and --threads 2; both must exit 0
#                       with the same stdout, a single line ending in " ok". With
#                       REFERENCE (the uninstrumented build of the same kernel),
#                       its stdout must be the same too.
#   MODE=FaultDetected: run ARGS --inject-fault; must exit 1 with stdout ending
#                       in " FAILED" (the self-check catches a corrupted result).
separate_arguments(args UNIX_COMMAND "${ARGS}")

function(run_program exe out_var rc_var)
  execute_process(COMMAND ${exe} ${args} ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  message("${exe} ${ARGS} ${ARGN}\n  exit ${rc}\n  stdout: ${out}  stderr: ${err}")
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
endfunction()

if(MODE STREQUAL "SelfCheck")
  run_program(${EXE} out1 rc1 --threads 1)
  run_program(${EXE} out2 rc2 --threads 2)
  if(NOT rc1 EQUAL 0 OR NOT rc2 EQUAL 0)
    message(FATAL_ERROR "self-check failed (exit ${rc1} with 1 thread, ${rc2} with 2)")
  endif()
  if(NOT out1 MATCHES "^[^\n]* ok\n$")
    message(FATAL_ERROR "stdout is not one result line ending in ' ok': '${out1}'")
  endif()
  if(NOT out1 STREQUAL out2)
    message(FATAL_ERROR "stdout differs between 1 and 2 threads:\n  ${out1}  ${out2}")
  endif()
  if(REFERENCE)
    run_program(${REFERENCE} out_ref rc_ref --threads 2)
    if(NOT rc_ref EQUAL 0 OR NOT out_ref STREQUAL out1)
      message(FATAL_ERROR "stdout differs from the uninstrumented build (exit ${rc_ref}):\n  ${out_ref}  ${out1}")
    endif()
  endif()
elseif(MODE STREQUAL "FaultDetected")
  run_program(${EXE} out rc --threads 2 --inject-fault)
  if(NOT rc EQUAL 1)
    message(FATAL_ERROR "a corrupted result was not reported by exit status 1 (got ${rc})")
  endif()
  if(NOT out MATCHES " FAILED\n$")
    message(FATAL_ERROR "stdout does not end in ' FAILED': '${out}'")
  endif()
else()
  message(FATAL_ERROR "MODE must be SelfCheck or FaultDetected, not '${MODE}'")
endif()
