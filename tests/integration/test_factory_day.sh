# The factory-day model's own consistency (tests/tools/factory-day.py
# --check): with zero work times the time between launches is the
# schedule's gaps (40 min for disinto-c on the 10-minute crontab, 20 min
# for the bash scripts' loops, 1 min with today's wakes under a 1-minute
# timer (the clean-up after a merge waits for it), 0 with the event
# table's wakes); on random draws every
# issue merges once, no wait is negative and every model does the same
# work.  Simulated time only: nothing here measures a clock.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
python3 "$TOP/tests/tools/factory-day.py" --check
