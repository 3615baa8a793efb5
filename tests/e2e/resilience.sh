#!/usr/bin/env bash
# The harness under faults (issue: reliability): SIGINT / SIGTERM mid-campaign,
# kill -9 and --resume, two campaigns on one store, a read-only store, a full
# disk, a corrupt store, a store from a newer scatterlab, and merging shards.
# Every check prints what it expected and what it got.
set -u
BIN=$1
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
fails=0 passes=0
ok() { echo "ok: $*"; passes=$((passes + 1)); }
bad() { echo "FAILED: $*"; fails=$((fails + 1)); }
q() { sqlite3 "$1" "$2"; }
# stop SIG PID: signals the command and waits for it; sets rc (its exit
# status) and want (130 for INT, 143 for TERM).
stop() {
  kill -"$1" "$2"
  wait "$2"
  rc=$?
  want=$([ "$1" = INT ] && echo 130 || echo 143)
}
# until_db DB SQL: waits (up to 60 s) until the query gives a number > 0.
until_db() {
  for _ in $(seq 300); do
    [ "$(q "$1" "$2" 2>/dev/null)" -gt 0 ] 2>/dev/null && return
    sleep 0.2
  done
}
FUZZ=(fuzz --no-corpus --variants cpu.serial,cpu.omp --jobs 2 --keep all)

# The case lines a campaign of N cases must hold (shrunk cases aside). N is
# about 10 s of this build's campaign: the kill below lands within a second
# of the start, on a fast machine too, and the resume runs the rest (a fixed
# N large enough for a fast machine cost a sanitized build 10 minutes).
rate_db=$tmp/rate.db
t0=$(date +%s%N)
"$BIN" "${FUZZ[@]}" --cases 2000 --db "$rate_db" >/dev/null 2>&1
ms=$((($(date +%s%N) - t0) / 1000000 + 1))
N=$((2000 * 10000 / ms))
[ "$N" -ge 5000 ] || N=5000
echo "N = $N cases (2000 took $ms ms)"
"$BIN" fuzz --print --cases $N | sort >"$tmp/want"

# 1. SIGINT and SIGTERM: finish the cases in hand, commit, exit 130 / 143.
for sig in INT TERM; do
  db=$tmp/sig-$sig.db
  "$BIN" "${FUZZ[@]}" --cases 10000000 --db "$db" >"$tmp/sig.out" 2>&1 &
  pid=$!
  until_db "$db" 'select count(*) from cases' # mid-campaign, however busy
  stop $sig $pid
  status=$(q "$db" 'select status from runs')
  n=$(q "$db" 'select count(*) from cases')
  if [ "$rc" = "$want" ] && [ "$status" = interrupted ] && [ "$n" -gt 0 ] &&
    grep -q -- "--resume 1" "$tmp/sig.out"; then
    ok "SIG$sig: exit $rc, run interrupted, $n cases committed"
  else
    bad "SIG$sig: expected exit $want, status interrupted, cases > 0; got exit $rc, status $status, $n cases"
    tail -5 "$tmp/sig.out"
  fi
done

# 1b. A benchmark suite under SIGINT / SIGTERM: the timing stops at the next
#     call, the case in hand is dropped (its samples stop short), the cases
#     before it stay with all their timings, exit 130 / 143.
for sig in INT TERM; do
  db=$tmp/bench-$sig.db
  "$BIN" bench --suite standard --budget 0.3 --min-reps 3 --db "$db" >"$tmp/b.out" 2>&1 &
  pid=$!
  until_db "$db" 'select count(*) from timings' # the first case committed
  stop $sig $pid
  status=$(q "$db" 'select status || (finished_at is not null) from runs')
  n=$(q "$db" 'select count(*) from cases')
  untimed=$(q "$db" "select count(*) from cases c where not exists (select 1 from timings t where t.case_id = c.id and t.variant = 'torch.cpu' and t.reps >= 3)")
  if [ "$rc" = "$want" ] && [ "$status" = interrupted1 ] && [ "$n" -gt 0 ] &&
    [ "$n" -lt 16 ] && [ "$untimed" = 0 ] && grep -q "cases timed and recorded" "$tmp/b.out"; then
    ok "bench SIG$sig: exit $rc, run interrupted, $n of 16 cases kept, each fully timed"
  else
    bad "bench SIG$sig: expected exit $want, status interrupted1, 0 < cases < 16 all timed; got exit $rc, status $status, $n cases, $untimed without a full torch.cpu timing"
    tail -5 "$tmp/b.out"
  fi
done

# 2. kill -9 of the whole campaign, then --resume: the store is intact and
#    the resumed campaign neither repeats nor skips a case.
db=$tmp/k9.db
setsid "$BIN" "${FUZZ[@]}" --cases $N --db "$db" >"$tmp/k9.out" 2>&1 &
pid=$!
until_db "$db" 'select count(*) from cases' # something committed
kill -9 -- -$pid 2>/dev/null || kill -9 $pid
wait $pid 2>/dev/null
sleep 0.5
integrity=$(q "$db" 'pragma integrity_check')
before=$(q "$db" 'select count(*) from cases where shrunk_from is null')
[ "$integrity" = ok ] && [ "$before" -gt 0 ] && [ "$before" -lt $N ] &&
  ok "kill -9: integrity_check ok, $before cases committed" ||
  bad "kill -9: expected integrity ok and 0 < cases < $N; got $integrity, $before"
# The killed run's process is gone: reports call it interrupted (the
# read-only report writes nothing), and the next read-write open marks it.
shown=$("$BIN" report --db "$db" --format csv --table runs 2>&1 | awk -F, 'NR == 2 {print $5}')
stored=$(q "$db" 'select status from runs')
# (On a copy: the resume below needs the store as the kill left it.)
for f in "$db" "$db-wal"; do [ -e "$f" ] && cp "$f" "$tmp/k9copy.db${f#"$db"}"; done
"$BIN" run --db "$tmp/k9copy.db" 'gather x=4x3 index=2x3 dim=0 seed=1' >/dev/null 2>&1
marked=$(q "$tmp/k9copy.db" 'select status || coalesce(finished_at, "") from runs where id = 1')
[ "$shown" = interrupted ] && [ "$stored" = running ] && [ "$marked" = interrupted ] &&
  ok "kill -9: the run reads interrupted, and is marked so by the next writer" ||
  bad "kill -9: expected report interrupted, stored running, then interrupted without finished_at; got $shown, $stored, $marked"
# The same command again with --resume, as a CI retry runs it: repeating the
# run's own schedule options (--variants, --jobs, --cases, --keep) is taken.
"$BIN" "${FUZZ[@]}" --cases $N --resume 1 --db "$db" >"$tmp/resume.out" 2>&1
rc=$?
q "$db" 'select case_line from cases where shrunk_from is null' | sort >"$tmp/got"
if [ $rc = 0 ] && cmp -s "$tmp/got" "$tmp/want" &&
  [ "$(q "$db" 'select status from runs')" = finished ]; then
  ok "resume: the $N case lines of the campaign, each once"
else
  bad "resume: exit $rc; case lines differ from fuzz --print: $(diff "$tmp/got" "$tmp/want" | grep -c '^[<>]') lines"
  tail -5 "$tmp/resume.out"
fi
"$BIN" fuzz --resume 1 --db "$db" --jobs 3 >"$tmp/jobs3.out" 2>&1
[ $? = 2 ] && grep -q -- "--jobs 3 differs from the run's own options" "$tmp/jobs3.out" &&
  ok "resume refuses a changed --jobs, naming it" ||
  bad "resume accepted a changed --jobs, or did not name it: $(head -c 300 "$tmp/jobs3.out")"

# 2b. A campaign still running is not resumed beside itself (both would take
#     its cursors' cases).
db=$tmp/live.db
"$BIN" "${FUZZ[@]}" --cases $N --db "$db" >"$tmp/live.out" 2>&1 &
pid=$!
until_db "$db" 'select count(*) from runs'
"$BIN" fuzz --resume 1 --db "$db" >"$tmp/live2.out" 2>&1
resumed=$?
stop INT $pid
if [ $resumed = 2 ] && grep -q "still being written by pid $pid on this machine" "$tmp/live2.out"; then
  ok "resume refuses a run its process still writes"
else
  bad "resume of a live run: expected exit 2 naming pid $pid; got exit $resumed: $(head -c 300 "$tmp/live2.out")"
fi

# 3. Two campaigns writing one store at once both finish.
db=$tmp/two.db
"$BIN" "${FUZZ[@]}" --cases 6000 --seed 5 --db "$db" >"$tmp/a.out" 2>&1 &
p1=$!
"$BIN" "${FUZZ[@]}" --cases 6000 --seed 6 --db "$db" >"$tmp/b.out" 2>&1 &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
fin=$(q "$db" "select count(*) from runs where status = 'finished'")
n=$(q "$db" 'select count(*) from cases where shrunk_from is null')
[ $r1 = 0 ] && [ $r2 = 0 ] && [ "$fin" = 2 ] && [ "$n" = 12000 ] &&
  ok "two writers: both finished, 12000 cases" ||
  bad "two writers: exits $r1 $r2, $fin finished runs, $n cases (expected 0 0 2 12000)"

# 4. A read-only store: a clear message, non-zero exit, nothing changed.
mkdir -p "$tmp/ro"
"$BIN" "${FUZZ[@]}" --cases 100 --db "$tmp/ro/r.db" >/dev/null 2>&1
chmod 444 "$tmp/ro/r.db"
chmod 555 "$tmp/ro"
as_user=() ro_bin=$BIN
if [ "$(id -u)" = 0 ]; then # root writes anyway: run as nobody
  as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  # nobody must reach the binary and its kernels library too: a build under
  # a folder only root enters (/root, a mktemp -d clone) is copied out
  # first, else the check fails on the library, not on the store.
  klib=$(readlink -f "$(dirname "$BIN")/libscatterlab_kernels.so")
  if ! "${as_user[@]}" test -x "$BIN" -a -r "$klib"; then
    mkdir -p "$tmp/bin" && cp "$BIN" "$klib" "$tmp/bin/"
    ro_bin=$tmp/bin/$(basename "$BIN")
  fi
fi
"${as_user[@]}" "$ro_bin" "${FUZZ[@]}" --cases 100 --db "$tmp/ro/r.db" >"$tmp/ro.out" 2>&1
rc=$?
runs=$(q "$tmp/ro/r.db" 'select count(*) from runs')
if [ $rc != 0 ] && grep -qi "read.only\|readonly" "$tmp/ro.out" && [ "$runs" = 1 ]; then
  ok "read-only store: exit $rc, $(head -1 "$tmp/ro.out")"
else
  bad "read-only store: expected non-zero exit, a read-only message, 1 run; got $rc, $runs runs"
  cat "$tmp/ro.out"
fi
chmod 755 "$tmp/ro"

# 5. A full disk (a file size limit): the campaign stops with an error and
#    the run is not marked finished.
db=$tmp/full.db
"$BIN" "${FUZZ[@]}" --cases 10 --db "$db" >/dev/null 2>&1
(
  trap '' XFSZ
  ulimit -f 256 # KiB
  exec "$BIN" "${FUZZ[@]}" --cases 200000 --db "$db"
) >"$tmp/full.out" 2>&1
rc=$?
status=$(q "$db" 'select status from runs where id = 2')
if [ $rc != 0 ] && [ "$status" != finished ] &&
  grep -qi "full\|too large\|disk I/O\|INCOMPLETE" "$tmp/full.out"; then
  ok "full disk: exit $rc, run $status, $(grep -i -m1 'full\|disk\|large' "$tmp/full.out")"
else
  bad "full disk: expected non-zero exit, run not finished, a message; got $rc, $status"
  tail -5 "$tmp/full.out"
fi
[ "$(q "$db" 'pragma integrity_check')" = ok ] && ok "full disk: integrity ok" ||
  bad "full disk: integrity_check failed"

# 6. A corrupt store, a text file, and a store of a newer schema.
cp "$tmp/two.db" "$tmp/corrupt.db"
printf 'garbage garbage garbage garbage garbage garbage!' |
  dd of="$tmp/corrupt.db" bs=1 seek=0 conv=notrunc 2>/dev/null
echo "just some notes" >"$tmp/notes.db"
cp "$tmp/two.db" "$tmp/newer.db"
q "$tmp/newer.db" 'pragma user_version = 99'
for f in corrupt notes newer; do
  for cmd in "fuzz --cases 10 --no-corpus" "report" "merge $tmp/$f.db -o $tmp/m-$f.db"; do
    if [ "${cmd%% *}" = merge ]; then
      "$BIN" $cmd >"$tmp/e.out" 2>&1
    else
      "$BIN" $cmd --db "$tmp/$f.db" >"$tmp/e.out" 2>&1
    fi
    rc=$?
    if [ $rc != 0 ] && grep -q "$f.db: \(not a SQLite database\|schema version 99 is newer\|file is not a database\)" "$tmp/e.out"; then
      ok "$f store, ${cmd%% *}: exit $rc, $(grep -m1 "$f.db" "$tmp/e.out")"
    else
      bad "$f store, ${cmd%% *}: expected non-zero exit and a message naming the file; got $rc: $(head -2 "$tmp/e.out")"
    fi
  done
done

# 7. Merging the stores of two CI shards: every case once, idempotent.
"$BIN" "${FUZZ[@]}" --cases 3000 --shard 1/2 --db "$tmp/s0.db" >/dev/null 2>&1
"$BIN" "${FUZZ[@]}" --cases 3000 --shard 2/2 --db "$tmp/s1.db" >/dev/null 2>&1
"$BIN" merge "$tmp/s0.db" "$tmp/s1.db" -o "$tmp/all.db" >"$tmp/m.out" 2>&1
r1=$?
"$BIN" merge "$tmp/s0.db" "$tmp/s1.db" -o "$tmp/all.db" >>"$tmp/m.out" 2>&1
r2=$?
"$BIN" fuzz --print --cases 3000 | sort >"$tmp/want3k"
q "$tmp/all.db" 'select case_line from cases where shrunk_from is null' | sort >"$tmp/got3k"
runs=$(q "$tmp/all.db" 'select count(*) from runs')
if [ $r1 = 0 ] && [ $r2 = 0 ] && [ "$runs" = 2 ] && cmp -s "$tmp/got3k" "$tmp/want3k" &&
  [ "$(q "$tmp/all.db" 'pragma foreign_key_check' | wc -l)" = 0 ]; then
  ok "merge: 2 shards -> 3000 cases once each, merging again adds nothing"
else
  bad "merge: exits $r1 $r2, $runs runs (expected 2), case lines equal: $(cmp -s "$tmp/got3k" "$tmp/want3k" && echo yes || echo no)"
  cat "$tmp/m.out"
fi

echo "$passes passed, $fails failed"
[ $fails = 0 ]
