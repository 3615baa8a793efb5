#!/usr/bin/env bash
# A store on a read-only mount (issue 28, point 9): report, merge and check
# read it (a WAL store's reader needs a -shm file it cannot create there, so
# it is opened as immutable); a writing command refuses with the file named.
# On the code before, report and merge failed with "unable to open database
# file". Needs mount(8) (root, outside a restricted container): skipped
# (exit 77) where a tmpfs cannot be mounted.
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
mnt=$tmp/ro
mkdir "$mnt"
if ! mount -t tmpfs -o size=64m scatterlab-ro "$mnt" 2>/dev/null; then
  echo "skipped: cannot mount a tmpfs here (needs root and mount rights)"
  exit 77
fi
trap 'umount "$mnt" 2>/dev/null; rm -rf "$tmp"' EXIT
"$BIN" fuzz --db "$mnt/s.db" --cases 200 --seed 3 --no-corpus >/dev/null 2>&1
want=$(sqlite3 "$mnt/s.db" 'SELECT ncases FROM runs')
mount -o remount,ro "$mnt"
check "the mount is read-only now" bash -c "! touch '$mnt/probe' 2>/dev/null"
check "report reads the store: exit 0" run 0 report --db "$mnt/s.db"
check "... listing its run" has '^ +1 +fuzz .* finished +200 '
check "report --format csv --table tallies: exit 0" \
  run 0 report --db "$mnt/s.db" --format csv --table tallies
check "check --db: exit 0" run 0 check --db "$mnt/s.db"
check "... sound" has 'sound'
check "merge it into a writable store: exit 0" run 0 merge "$mnt/s.db" -o "$tmp/m.db"
check "... carrying its $want cases" \
  [ "$(sqlite3 "$tmp/m.db" 'SELECT sum(ncases) FROM runs')" = "$want" ]
check "a run writing to it: exit other than 0" bash -c "! '$BIN' run --db '$mnt/s.db' 'gather x=4x3 index=2x3 dim=0' >'$tmp/w.out' 2>&1"
check "... naming the store" grep -q "$mnt/s.db" "$tmp/w.out"

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
