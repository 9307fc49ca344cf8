#!/bin/sh
# Run a command with busy-loop processes beside it: the suite with every core kept busy.
#
#   scripts/busy_load.sh make test                 # two busy loops (one per core here)
#   BUSY_LOOPS=4 scripts/busy_load.sh python -m pytest tests/project
#
# Each busy loop is a shell spinning on one core. They are started before the command
# and ended (by their process ids) when it ends, Ctrl-C included; the command's exit
# status is this script's.
n="${BUSY_LOOPS:-2}"
case "$n" in
  ''|*[!0-9]*) echo "busy_load.sh: BUSY_LOOPS must be a whole number, got '$n'" >&2; exit 2 ;;
esac
if [ "$#" -eq 0 ]; then
  echo "usage: scripts/busy_load.sh COMMAND [ARGS...]" >&2
  exit 2
fi
pids=""
i=0
while [ "$i" -lt "$n" ]; do
  sh -c 'while :; do :; done' &
  pids="$pids $!"
  i=$((i + 1))
done
stop() {
  [ -n "$pids" ] && kill $pids 2>/dev/null
  pids=""
}
trap stop EXIT
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
"$@"
