#!/usr/bin/env bash
# --format json (docs/json.md): stdout is one JSON document, schema
# "scatterlab/1", whose fields say what the command did: its exit status,
# counts that match the text and the store, the failures with their repro.
# On the code before it, --format was an unknown option of these commands
# (exit 2) and every check here fails.
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
BUG=$(dirname "$BIN")/tests/libsl_buggy.so
[ -f "$BUG" ] || { echo "FAIL: $BUG missing"; exit 1; }
unset CI_NODE_INDEX JOB_COMPLETION_INDEX GTEST_SHARD_INDEX
G='gather x=4x3 index=2x3 dim=0'
BUGGY=(--provider "buggy=$BUG" --variants 'buggy:cpu.off_by_one,cpu.serial')
# jrun STATUS ARGS...: scatterlab ARGS, stdout to $tmp/doc.json, exits STATUS.
jrun() {
  local want=$1
  shift
  "$BIN" "$@" >"$tmp/doc.json" 2>"$tmp/err"
  local got=$?
  [ "$got" = "$want" ] && return
  echo "exit status $got, expected $want: scatterlab $*"
  cat "$tmp/err"
  return 1
}
# jtrue EXPR: the Python expression EXPR, over d (the document), is true.
jtrue() {
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$tmp/doc.json" "$1" && return
  echo "false: $1"
  head -c 3000 "$tmp/doc.json"
  echo
  return 1
}
head_is() { # head_is COMMAND STATUS: the envelope
  jtrue "d['schema'] == 'scatterlab/1' and d['command'] == '$1' and d['exit_status'] == $2"
}

# run: two cases, one with a failing variant.
check "run: exit 1" jrun 1 run --no-db --format json "${BUGGY[@]}" "$G" 'gather x=5x3 index=4x3 dim=0 seed=2'
check "run: the envelope" head_is run 1
check "run: 2 cases, 2 results" jtrue "d['cases'] == 2 and len(d['results']) == 2 and d['run_id'] is None and d['db'] is None"
check "run: the case lines" jtrue "d['results'][0]['case'].startswith('gather ') and 'x=4x3' in d['results'][0]['case']"
check "run: counts are the verdicts" jtrue "sum(d['counts'].values()) == sum(len(r['verdicts']) for r in d['results']) == 4"
check "run: failed counted" jtrue "d['counts']['failed'] == sum(v['verdict'] == 'failed' for r in d['results'] for v in r['verdicts']) > 0"
check "run: a failure has its repro" jtrue "all(v['repro'].startswith('scatterlab run ') and 'buggy:cpu.off_by_one' in v['repro'] for r in d['results'] for v in r['verdicts'] if v['verdict'] == 'failed')"
check "run: passes have none" jtrue "all('repro' not in v for r in d['results'] for v in r['verdicts'] if v['verdict'] == 'passed')"
check "run: the text went to stderr" grep -q "verdicts:" "$tmp/err"
check "run into a store: exit 0" jrun 0 run --db "$tmp/r.db" --format json --variants cpu.serial "$G"
check "run into a store: run id and db" jtrue "d['run_id'] == 1 and d['db'].endswith('r.db') and d['counts']['passed'] == 1"
check "run: a bad --format" jrun 2 run --no-db --format yaml "$G"
check "run: the bad --format named" grep -q -- '--format: expected text or json, got "yaml"' "$tmp/err"

# fuzz: a sharded campaign into a store, then one that finds failures.
check "fuzz: exit 0" jrun 0 fuzz --cases 60 --seed 5 --no-corpus --variants cpu.serial --shard 2/3 --db "$tmp/f.db" --format json
check "fuzz: the envelope" head_is fuzz 0
ncases=$(sqlite3 "$tmp/f.db" 'select ncases from runs')
check "fuzz: cases = the store's ($ncases) = 20" jtrue "d['cases'] == $ncases == 20 and d['failing'] == 0 and d['failures'] == []"
check "fuzz: run, status, seed" jtrue "d['run_id'] == 1 and d['status'] == 'finished' and d['seed'] == 5"
check "fuzz: the shard and its source" jtrue "d['shard'] == {'index': 2, 'total': 3, 'source': '--shard'}"
cells=$(sqlite3 "$tmp/f.db" 'select count(*) from coverage')
check "fuzz: cells = the store's ($cells)" jtrue "d['cells'] == $cells > 0 and d['seconds'] >= 0"
check "fuzz, failing: exit 1" jrun 1 fuzz --cases 40 --seed 5 --no-corpus --no-shrink --ops gather --no-db "${BUGGY[@]}" --format json
check "fuzz, failing: the envelope" head_is fuzz 1
check "fuzz, failing: failures listed" jtrue "d['failing'] == len(d['failures']) > 0 and d['run_id'] is None"
check "fuzz, failing: each names the variant and its repro" jtrue "all(f['variant'] == 'buggy:cpu.off_by_one' and f['verdict'] == 'failed' and f['repro'].startswith('scatterlab run ') and f['minimal'].startswith('gather ') for f in d['failures'])"
check "fuzz: --print with json is refused" jrun 2 fuzz --print --cases 3 --format json

# list: every variant of the text table, and the providers.
"$BIN" list >"$tmp/list.txt" 2>&1
rows=$(awk 'NR > 1 && NF == 0 { exit } NR > 1 { n++ } END { print n }' "$tmp/list.txt")
check "list: exit 0" jrun 0 list --format json
check "list: the envelope" head_is list 0
check "list: the text table's $rows variants" jtrue "len(d['variants']) == $rows"
check "list: gather's cpu.serial is available" jtrue "any(v['op'] == 'gather' and v['variant'] == 'cpu.serial' and v['available'] and v['why'] is None for v in d['variants'])"
check "list: the built-in provider" jtrue "d['providers'][0]['builtin'] and d['providers'][0]['variants'] > 0 and d['reference'].startswith('LibTorch')"
check "list --op gather" jrun 0 list --op gather --format json
check "list --op gather: gather only" jtrue "len(d['variants']) > 0 and all(v['op'] == 'gather' for v in d['variants'])"

# bench: into a store (the document's timings are the store's), then with
# a variant that fails its check (not timed, exit 1).
check "bench: exit 0" jrun 0 bench --budget 0.01 --min-reps 3 --variants cpu.serial --db "$tmp/b.db" --format json "$G" 'gather x=8x3 index=5x3 dim=1'
check "bench: the envelope" head_is bench 0
check "bench: run, cases, probes" jtrue "d['run_id'] == 1 and d['db'].endswith('b.db') and d['cases'] == d['timed'] == len(d['results']) == 2 and d['failing'] == 0 and d['copy_gbs'] > 0"
stored=$(sqlite3 "$tmp/b.db" "select group_concat(c.case_line || '|' || t.variant || '|' || t.median_s || '|' || t.reps, ';') from timings t join cases c on c.id = t.case_id")
check "bench: the store's timings ($stored)" jtrue "(lambda S: sum(len(r['timings']) for r in d['results']) == len(S) and all(abs(t['median_s'] - S[(r['result']['case'], t['variant'])][0]) <= 1e-8 * t['median_s'] and t['reps'] == S[(r['result']['case'], t['variant'])][1] for r in d['results'] for t in r['timings']))({(a, b): (float(c), int(e)) for a, b, c, e in (x.split('|') for x in '$stored'.split(';'))})"
check "bench: torch.cpu and cpu.serial per case" jtrue "all(sorted(t['variant'] for t in r['timings']) == ['cpu.serial', 'torch.cpu'] and r['useful_bytes'] > 0 for r in d['results'])"
check "bench, failing check: exit 1" jrun 1 bench --no-db --budget 0.01 --min-reps 3 --format json "${BUGGY[@]}" "$G"
check "bench, failing check: the envelope" head_is bench 1
check "bench, failing check: counted, with its repro, not timed" jtrue "d['failing'] == 1 and any(v['verdict'] == 'failed' and 'repro' in v for v in d['results'][0]['result']['verdicts']) and 'buggy:cpu.off_by_one' not in [t['variant'] for t in d['results'][0]['timings']]"

# history: cpu.serial's benchmark timed in two runs (--all lists it without a
# change point), its medians as the store has them.
B=(bench --budget 0.01 --min-reps 3 --variants cpu.serial --db "$tmp/h.db" "$G")
"$BIN" "${B[@]}" >/dev/null 2>&1
"$BIN" "${B[@]}" >/dev/null 2>&1
check "history: exit 0" jrun 0 history --db "$tmp/h.db" --match cpu.serial --all --format json
check "history: the envelope" head_is history 0
medians=$(sqlite3 "$tmp/h.db" "select group_concat(median_s) from (select t.median_s from timings t join cases c on c.id = t.case_id where t.variant = 'cpu.serial' order by c.run_id)")
check "history: one series, runs 1 and 2, no change point" jtrue "d['change_points'] == 0 and len(d['series']) == 1 and d['series'][0]['runs'] == [1, 2] and d['series'][0]['variant'] == 'cpu.serial'"
check "history: the store's medians ($medians)" jtrue "all(abs(a - b) <= 1e-6 * b for a, b in zip(d['series'][0]['medians_s'], [$medians]))"
check "history: one level over both runs" jtrue "[(l['from_run'], l['to_run']) for l in d['series'][0]['levels']] == [(1, 2)]"
check "history without --all: no series" jrun 0 history --db "$tmp/h.db" --match cpu.serial --format json
check "history without --all: empty" jtrue "d['series'] == [] and d['timed_in_several_runs'] == 1"

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
