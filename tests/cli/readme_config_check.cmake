# The README's configuration table is `rubato config --markdown`, verbatim:
# the docs cannot drift from the one table the parser uses.
execute_process(COMMAND ${RUBATO} config --markdown OUTPUT_VARIABLE table RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rubato config --markdown failed (${rc})")
endif()
file(READ ${README} readme)
string(STRIP "${table}" table)
string(FIND "${readme}" "${table}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md's configuration table differs from `rubato config --markdown`; "
                      "regenerate it (replace the table with that command's output)")
endif()
