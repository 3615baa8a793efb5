#!/usr/bin/env bash
# bench --generate (issue 52, item 1): cases drawn by the fuzz generator
# within --sizes, checked and timed like a suite's, then ranked by the best
# variant's speed-up over torch.cpu, worst first. The same seed draws the
# same cases; bad sizes and a filter that selects nothing are usage errors.
# --shard K/N times cases K, K+N, ... of the same list. --stop-slower: a
# contender far slower than the fastest stops after 3 repetitions, marked
# (on by default with --generate only).
# bench --shrink (item 4): a variant that spins 20 ms a call is slower than
# LibTorch at every size, so its slowdown shrinks to the shrinker's
# smallest gather.
# --retime N: a case whose speed-up is read on scattered timings (an IQR
# above half the median) is timed again up to N times (1 by default), the
# calmest kept: a variant that spins 2 ms on every third call scatters on
# every timing.
# What is timed is not asserted (performance lives in benchmarks): only that
# every case is ranked, in order, with its best variant.
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
unset SCATTERLAB_PROVIDERS SCATTERLAB_CHECK_ARGS
GEN=(bench --generate 4 --seed 5 --sizes 64K-256K --variants cpu.serial
  --budget 0.01 --min-reps 3 --no-db --format json)

"$BIN" "${GEN[@]}" >"$tmp/first.json" 2>"$tmp/err"
check "exit 0" test $? = 0
check "the generator's cases said on stderr" grep -q "bench: 4 generated cases (seed 5, inputs of 64K-256K" "$tmp/err"
check "the ranking in the text" grep -q "^ranking: 4 cases by the best CPU variant's speed-up" "$tmp/err"
check "per op and per variant" grep -q "^  cpu.serial: geometric mean" "$tmp/err"
check "JSON: 4 ranked cases, worst first, each with its best variant" \
  python3 -c "
import json, sys
d = json.load(open('$tmp/first.json'))
r = d['ranking']
assert len(r) == 4 and d['cases'] == 4, r
assert all(x['best'] == 'cpu.serial' and x['speedup'] > 0 for x in r), r
assert [x['speedup'] for x in r] == sorted(x['speedup'] for x in r), r
"
"$BIN" "${GEN[@]}" >"$tmp/out" 2>/dev/null
check "the same seed draws the same cases" python3 -c "
import json
a = json.load(open('$tmp/first.json'))['ranking']
b = json.load(open('$tmp/out'))['ranking']
assert sorted(x['case'] for x in a) == sorted(x['case'] for x in b)
"
run 2 bench --generate 3 --sizes 64M-1M --no-db
check "--sizes MIN above MAX: named" has '--sizes: expected MIN-MAX with 0 < MIN <= MAX'
run 2 bench --generate 3 --sizes 1M --no-db
check "--sizes without a range: named" has '--sizes: expected MIN-MAX \(1M-64M\), got "1M"'
run 2 bench --generate 0 --no-db
check "--generate 0: the range named" has '--generate: expected an integer in \[1, 1000000\], got "0"'

for k in 1 2; do
  "$BIN" "${GEN[@]}" --shard $k/3 >"$tmp/shard$k.json" 2>"$tmp/err$k"
  check "--shard $k/3: exit 0" test $? = 0
done
check "--shard 1/3: said on stderr" grep -q "bench: shard 1/3: 2 of the 4 cases (from case 1, one in 3)" "$tmp/err1"
check "--shard 1/3 times cases 1 and 4 of the list, 2/3 case 2" python3 -c "
import json
cases = lambda f: [x['result']['case'] for x in json.load(open(f))['results']]
every = cases('$tmp/first.json')
assert cases('$tmp/shard1.json') == [every[0], every[3]], cases('$tmp/shard1.json')
assert cases('$tmp/shard2.json') == [every[1]], cases('$tmp/shard2.json')
"
run 2 "${GEN[@]}" --shard 4/3
check "--shard 4/3: the range named" has '--shard: expected K/N with 1 <= K <= N, got "4/3"'
run 2 "${GEN[@]}" --shard 5/5
check "--shard 5/5 of 4 cases: said" has '--shard 5/5: expected a shard with cases, got none of the 4 cases'
run 2 "${GEN[@]}" --stop-slower 1
check "--stop-slower 1: the range named" has '--stop-slower: expected a factor in \(1, 1e6\] or off, got "1"'

FIXED=$(dirname "$BIN")/tests/ab/libsltest_slowfixed.so
SLOW=(bench --provider "slow=$FIXED" --variants slow:cpu.gather,cpu.serial
  --budget 0.2 --min-reps 7 --no-db --format json
  'gather dt=f32 it=i64 x=64x48 index=32x48 dim=0 seed=3')
reps() { # reps FILE: "variant reps outpaced" per timing
  python3 -c "
import json, sys
for x in json.load(open(sys.argv[1]))['results'][0]['timings']:
    print(x['variant'], x['reps'], x['outpaced'])" "$1"
}
# 20, not 3: under ASan (check-sanitize) cpu.serial runs 4-8 times slower
# than the uninstrumented torch.cpu, and only the 20 ms variant is to stop.
"$BIN" "${SLOW[@]}" --stop-slower 20 >"$tmp/stop.json" 2>"$tmp/stop.txt"
check "--stop-slower 20: exit 0" test $? = 0
check "--stop-slower 20: the 20 ms variant stopped after 3-6 reps, marked" \
  grep -Eq '^slow:cpu.gather [3-6] True$' <(reps "$tmp/stop.json")
check "--stop-slower 20: cpu.serial and torch.cpu timed to 7 reps or more" \
  test "$(reps "$tmp/stop.json" | grep -Ec '^(cpu.serial|torch.cpu) ([7-9]|[0-9]{2,}) False$')" = 2
check "--stop-slower 20: the row's reps read N*, said after the run" \
  grep -q '^1 row with reps N\* stopped short' "$tmp/stop.txt"
check "--stop-slower 20: the row marked" grep -Eq '^  slow:cpu.gather .* [3-6]\*( |$)' "$tmp/stop.txt"
"$BIN" "${SLOW[@]}" >"$tmp/all.json" 2>/dev/null
check "without --stop-slower (a suite): every contender timed to 7 reps" \
  test "$(reps "$tmp/all.json" | grep -Ec ' ([7-9]|[0-9]{2,}) False$')" = 3
SLOWGEN=(bench --provider "slow=$FIXED" --variants slow:cpu.gather --budget 0.2
  --min-reps 7 --no-db --format json --generate 1 --sizes 64K-256K)
"$BIN" "${SLOWGEN[@]}" >"$tmp/gen.json" 2>/dev/null
check "--generate: the 20 ms variant stops after 3-6 reps by default" \
  grep -Eq '^slow:cpu.gather [3-6] True$' <(reps "$tmp/gen.json")
"$BIN" "${SLOWGEN[@]}" --stop-slower off >"$tmp/off.json" 2>/dev/null
check "--generate --stop-slower off: every contender timed to 7 reps" \
  test "$(reps "$tmp/off.json" | grep -Ec ' ([7-9]|[0-9]{2,}) False$')" = 2
"$BIN" bench --provider "slow=$FIXED" --variants slow:cpu.gather --shrink \
  --budget 0.05 --min-reps 3 --no-db --format json \
  'gather dt=f32 it=i64 x=64x48 index=32x48 dim=0 seed=3' >"$tmp/s.json" 2>"$tmp/err"
check "--shrink: exit 0" test $? = 0
check "--shrink: said in the text" grep -q "^shrinking 1 slowdown (--shrink)" "$tmp/err"
check "--shrink: shrunk to the smallest gather, slower all the way" python3 -c "
import json
s = json.load(open('$tmp/s.json'))['shrunk']
assert len(s) == 1 and s[0]['variant'] == 'slow:cpu.gather', s
x = s[0]
assert x['steps'] >= 1 and x['speedup'] < 1 and x['shrunk_speedup'] < 1, x
assert sorted(x['again'])[1] < 1, x
assert ' x=scalar ' in x['shrunk'] and ' index=scalar ' in x['shrunk'], x
"
JITTER=(bench --provider "jitter=$(dirname "$BIN")/tests/ab/libsltest_jitter.so"
  --variants jitter:cpu.gather --budget 0.1 --min-reps 7 --no-db --format json
  'gather dt=f32 it=i64 x=64x48 index=32x48 dim=0 seed=3')
lacks() { ! grep -q "$1" "$2"; } # lacks TEXT FILE
retimed() { # retimed FILE: the case's "retimed" and "scattered"
  python3 -c "import json, sys
r = json.load(open(sys.argv[1]))['results'][0]
print(r['retimed'], r['scattered'])" "$1"
}
"$BIN" "${JITTER[@]}" >"$tmp/jitter.json" 2>"$tmp/jitter.txt"
check "--retime: exit 0" test $? = 0
check "--retime: a scattered timing is timed again, once by default" \
  grep -Eq '^  jitter:cpu.gather.s IQR is [0-9]+% of its median: timed again \(1 of 1\)$' "$tmp/jitter.txt"
check "--retime: still scattered after it, said" \
  grep -q "^  still scattered after 1 more timing: the calmest is kept" "$tmp/jitter.txt"
check "--retime: counted after the run" grep -q "^1 case timed again" "$tmp/jitter.txt"
check "--retime: JSON says the case was timed again once, still scattered" \
  test "$(retimed "$tmp/jitter.json")" = "1 True"
"$BIN" "${JITTER[@]}" --retime 3 >"$tmp/jitter3.json" 2>/dev/null
check "--retime 3: timed again three times" test "$(retimed "$tmp/jitter3.json")" = "3 True"
"$BIN" "${JITTER[@]}" --retime 0 >"$tmp/jitter0.json" 2>"$tmp/jitter0.txt"
check "--retime 0: never timed again, scattered all the same" \
  test "$(retimed "$tmp/jitter0.json")" = "0 True"
check "--retime 0: nothing said" lacks "timed again" "$tmp/jitter0.txt"
run 2 "${JITTER[@]}" --retime 11
check "--retime 11: the range named" has '--retime: expected an integer in \[0, 10\], got "11"'
echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
