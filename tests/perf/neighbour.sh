#!/usr/bin/env bash
# A scripted neighbour: what a shared CI runner's other jobs do to a
# campaign, a gate or the test suite, made repeatable (issue 54). Two
# processes, each bounded in time and ended by its PID:
#   - a memory streamer: copies a 256 MiB buffer over and over (the
#     bandwidth a neighbour's build or data job takes), pinned to the last
#     core when taskset is there;
#   - a CPU-bound loop (a compile job's share of a core), not pinned.
# On this 2-core VM that is both cores' worth of work beside ours.
#
# usage: neighbour.sh start SECONDS   prints the two PIDs, returns at once
#        neighbour.sh stop PID...     ends them (and waits)
#        neighbour.sh run SECONDS CMD...  CMD beside the neighbour, which
#                                     is ended when CMD returns; CMD's status
# The other perf scripts take NOISY=1 to run each measurement so.
set -u

start() {
  local secs=$1 last=$(($(nproc) - 1)) pin=()
  command -v taskset >/dev/null && pin=(taskset -c "$last")
  # The streamer: python's bytearray copy is a memcpy of 256 MiB a turn.
  timeout "$secs" "${pin[@]}" python3 -c '
import time
src = bytearray(256 << 20); dst = bytearray(256 << 20)
while True:
    dst[:] = src
' >/dev/null 2>&1 &
  local streamer=$!
  timeout "$secs" bash -c 'while :; do :; done' >/dev/null 2>&1 &
  echo "$streamer $!"
}

stop() { # not our children when started by another call: poll them
  local pid
  for pid in "$@"; do kill "$pid" 2>/dev/null; done
  for _ in $(seq 50); do
    for pid in "$@"; do
      kill -0 "$pid" 2>/dev/null && sleep 0.1 && continue 2
    done
    return 0
  done
  echo "neighbour: $* still running after 5 s" >&2
  return 1
}

case "${1:-}" in
start) start "${2:?seconds}" ;;
stop)
  shift
  stop "$@"
  ;;
run)
  secs=${2:?seconds}
  shift 2
  read -r -a pids <<<"$(start "$secs")"
  # Ended early (a measurement stopped by hand), the neighbours go too:
  # left alone they would stream and spin for the rest of SECONDS. CMD
  # runs in the background so that the trap is not held until it ends.
  trap 'kill "$cmd" 2>/dev/null; stop "${pids[@]}"; exit 143' TERM INT HUP
  "$@" &
  cmd=$!
  wait "$cmd"
  rc=$?
  stop "${pids[@]}"
  exit $rc
  ;;
*)
  sed -n '2,17p' "$0" >&2
  exit 2
  ;;
esac
