# Loaded by CTest after the discovered reliability tests (TEST_INCLUDE_FILES):
# tests whose fake machine draws power from the whole machine's CPU use must
# have it to themselves (a parallel neighbour's load is in their points:
# Power.Calibrate.RecoversTheFakeMachinesLaw read 12-18 % high once beside
# the asan stage's other tests, with the tool's own warning that other
# processes kept 1.9 CPUs busy).
set_tests_properties(Power.Calibrate.RecoversTheFakeMachinesLaw Power.Calibrate.BetaOnTheFakeMachine
                     PROPERTIES RUN_SERIAL TRUE)
