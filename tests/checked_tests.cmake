# Tests that assert their exit status as well as their output. CTest ignores the
# exit status of a test that has PASS_REGULAR_EXPRESSION, and WILL_FAIL passes on
# any non-zero status: so a test here runs through exit_status.sh, which prints
# "exit N" last, and its pattern ends with the status it expects.
#
#   mdpvi_checked_test(NAME name EXIT status COMMAND command... [PASS regex] [FAIL regex])
#
# mdpvi_require_exit_status() fails the configure where a test of the directory
# matches output or expects failure without asserting its status this way, or a
# command-line test (cli.*) does not come from mdpvi_checked_test.
set(mdpvi_exit_status_script ${CMAKE_CURRENT_LIST_DIR}/exit_status.sh)

function(mdpvi_checked_test)
  # PARSE_ARGV keeps a pattern whole: ARGN would split it at a ";" after an unmatched "[".
  cmake_parse_arguments(PARSE_ARGV 0 T "" "NAME;EXIT;PASS;FAIL" "COMMAND")
  if(NOT T_NAME OR NOT T_COMMAND OR NOT T_EXIT MATCHES "^[0-9]+$")
    message(FATAL_ERROR "mdpvi_checked_test needs NAME, COMMAND and EXIT (a number): ${ARGN}")
  endif()
  # A ";" would split a pattern into a list of alternatives, any one of which passes.
  foreach(pattern_text IN ITEMS "${T_PASS}" "${T_FAIL}")
    string(FIND "${pattern_text}" ";" semicolon)
    if(semicolon GREATER -1)
      message(FATAL_ERROR "${T_NAME}: a pattern with ';' (match it with '.'): ${pattern_text}")
    endif()
  endforeach()
  add_test(NAME ${T_NAME} COMMAND sh ${mdpvi_exit_status_script} ${T_COMMAND})
  set(pattern "exit ${T_EXIT}\n?$")
  if(DEFINED T_PASS)
    set(pattern "(${T_PASS}).*${pattern}")
  endif()
  set_tests_properties(${T_NAME} PROPERTIES PASS_REGULAR_EXPRESSION "${pattern}" LABELS exit-status)
  if(DEFINED T_FAIL)
    set_tests_properties(${T_NAME} PROPERTIES FAIL_REGULAR_EXPRESSION "${T_FAIL}")
  endif()
endfunction()

function(mdpvi_require_exit_status)
  get_property(tests DIRECTORY PROPERTY TESTS)
  set(unchecked "")
  foreach(test IN LISTS tests)
    get_test_property(${test} PASS_REGULAR_EXPRESSION pass)
    get_test_property(${test} WILL_FAIL will_fail)
    get_test_property(${test} LABELS labels)
    if("exit-status" IN_LIST labels)
      continue()
    endif()
    if(pass OR will_fail OR test MATCHES "^cli\\.")
      list(APPEND unchecked ${test})
    endif()
  endforeach()
  if(unchecked)
    list(JOIN unchecked "\n  " text)
    message(FATAL_ERROR "tests that do not assert their exit status (use mdpvi_checked_test, "
                        "tests/checked_tests.cmake):\n  ${text}")
  endif()
endfunction()
