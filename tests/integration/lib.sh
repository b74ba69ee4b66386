# Moved to lib/common.sh; this alias keeps scripts that still source the
# old name working.  Remove it once none does.
. "$(dirname "$0")/lib/common.sh"
