# Sim.Cli.*: `rubato simulate` end to end. -DRUBATO=<binary> -DWORK=<dir> -DCASE=<name>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(common --profile opteron-6378 --dag "fib:14,loop:2000:grain=8:jitter=0.3" --quiet)

# Runs `rubato simulate ARGN` twice; fails unless both reports are the same
# bytes and the first contains every string of the list named EXPECT_VAR.
function(same_bytes_twice expect_var)
  foreach(run a b)
    execute_process(COMMAND ${RUBATO} simulate ${ARGN} --out ${WORK}/${run}.json RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "rubato simulate ${ARGN} failed (${rc})")
    endif()
  endforeach()
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/a.json ${WORK}/b.json RESULT_VARIABLE same)
  if(NOT same EQUAL 0)
    message(FATAL_ERROR "same seed, different reports")
  endif()
  file(READ ${WORK}/a.json text)
  foreach(expected IN LISTS ${expect_var})
    string(FIND "${text}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "report lacks ${expected}")
    endif()
  endforeach()
endfunction()

if(CASE STREQUAL "SameSeedSameBytes")
  # A seed reproduces a run bit for bit; the report is the real report format.
  set(expect "\"frontend\": \"sim\"" "\"source\": \"simulated:opteron-6378\"" "\"name\": \"simulated\"")
  same_bytes_twice(expect ${common} --workers 4 --policy hermes --seed 3)
elseif(CASE STREQUAL "SweepOneReportPerCombination")
  # 2 worker counts x 2 policies x 2 trials, then `rubato compare` reads them unchanged.
  execute_process(COMMAND ${RUBATO} simulate ${common} --workers 2,4 --policy baseline --policy hermes --trials 2
                          --out ${WORK}/sweep RESULT_VARIABLE rc)
  file(GLOB reports ${WORK}/sweep/*.json)
  list(LENGTH reports n)
  if(NOT rc EQUAL 0 OR NOT n EQUAL 8)
    message(FATAL_ERROR "expected 8 reports, got ${n} (exit ${rc})")
  endif()
  execute_process(COMMAND ${RUBATO} compare --skip 0 --csv ${WORK}/sweep OUTPUT_VARIABLE csv RESULT_VARIABLE rc)
  string(REGEX MATCHALL "\n[^\n]*,hermes," rows "${csv}")
  list(LENGTH rows hermes_rows)
  if(NOT rc EQUAL 0 OR NOT hermes_rows EQUAL 2)
    message(FATAL_ERROR "rubato compare did not normalise both worker counts:\n${csv}")
  endif()
elseif(CASE STREQUAL "EfsSameSeedSameBytes")
  # Contention (solo=) and the efs controller keep a run reproducible bit for bit.
  set(expect "\"parked\": true" "Eqs. 10, 16" "\"source\": \"simulated:i5-2500\"" "sim.eq13_energy_j")
  same_bytes_twice(expect --profile i5-2500 --workers 4 --dag "fib:16:work=20us:solo=0.8,mem:4:work=30ms"
                   --policy hermes+efs --seed 5 --control-interval 1ms --quiet)
  execute_process(COMMAND ${RUBATO} simulate --profile opteron-6378 --workers 2 --dag mem:2 --policy efs
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  string(FIND "${err}" "memory_accesses_per_s" at)
  if(NOT rc EQUAL 2 OR at EQUAL -1)
    message(FATAL_ERROR "expected a usage error: efs on a profile without µ (exit ${rc}): ${err}")
  endif()
elseif(CASE STREQUAL "UncoreSameSeedSameBytes")
  # eco on the fitted profile moves the core ceiling and the uncore, reproducibly,
  # and the report says so; an uncore share the core share leaves no room for is refused.
  set(expect "\"source\": \"simulated:haswell-e5-2650v3\"" "sim.uncore_mean_hz" "sim.uncore_transitions"
             "\"frequency_pairs\"" "\"uncore_sensitivity_source\": \"counters\"")
  same_bytes_twice(expect --profile haswell-e5-2650v3 --workers 20 --dag "loop:2000:grain=1:iter=1ms:rep=2"
                   --core-sensitivity 0.07 --uncore-sensitivity 0.73 --freqs 2.3GHz,1.9GHz,1.5GHz,1.2GHz
                   --policy eco --seed 2 --min-energy-loop open --quiet)
  # The closed loop (the default) on a plant whose power law and uncore shape
  # the profile does not describe, without counters: reproducible too, and the
  # report names the plant, the sensors and what it learnt.
  set(expect "\"source\": \"simulated:i5-2500\"" "\"learning_probes\"" "\"learned_types\""
             "\"plant\": \"i5-2500\"" "\"sensor_counters\": \"none\"" "\"min_energy_loop\": \"closed\""
             # no --freqs: eco's default ladder, the profile's twelve levels thinned to eight
             "--freqs 2.3GHz,2.1GHz,2GHz,1.8GHz,1.7GHz,1.5GHz,1.4GHz,1.2GHz")
  same_bytes_twice(expect --profile haswell-e5-2650v3 --plant i5-2500 --plant-uncore-exponent 1.5 --counters none
                   --workers 4 --dag "loop:2000:grain=1:iter=1ms:beta=0.3:uncore=0.5" --policy eco --seed 2 --quiet)
  execute_process(COMMAND ${RUBATO} simulate --profile haswell-e5-2650v3 --workers 2 --dag fib:10 --policy eco
                          --uncore-sensitivity 0.5 RESULT_VARIABLE rc ERROR_VARIABLE err)
  string(FIND "${err}" "--uncore-sensitivity" at)
  if(NOT rc EQUAL 2 OR at EQUAL -1)
    message(FATAL_ERROR "expected a usage error naming --uncore-sensitivity (exit ${rc}): ${err}")
  endif()
elseif(CASE STREQUAL "BadSpecNamesToken")
  execute_process(COMMAND ${RUBATO} simulate --profile opteron-6378 --workers 2 --dag "loop:1e6:grian=4" --policy hermes
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  string(FIND "${err}" "'grian'" at)
  if(NOT rc EQUAL 2 OR at EQUAL -1)
    message(FATAL_ERROR "expected a usage error naming 'grian' (exit ${rc}): ${err}")
  endif()
else()
  message(FATAL_ERROR "unknown case ${CASE}")
endif()
