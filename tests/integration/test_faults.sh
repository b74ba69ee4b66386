# A sample of the fault matrix (tests/integration/faults/, all of it with
# "make faults"): FM_SAMPLE (2) cells of each world, picked by a seed that
# changes daily and is printed (FM_SEED=... repeats a sample).  Each cell:
# one endpoint of a tool's tick answers with one fault during the tick,
# two clean ticks follow, and the forge, the sessions and the prompts
# must end as without the fault, nothing twice, with the exit status the
# README gives.
exec sh "$(dirname "$0")/faults/run" --sample "${FM_SAMPLE:-2}"
