#!/usr/bin/env bash
# The scatterlab command as a user meets it: exit statuses, messages that
# name the argument, the store and the CSV export.
set -u
BIN=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 checks=0
check() { # check DESCRIPTION COMMAND...
  local what=$1; shift
  checks=$((checks + 1))
  if ! "$@"; then echo "FAIL: $what"; fails=$((fails + 1)); fi
}
run() { # run EXPECTED_STATUS ARGS... ; output in $tmp/out
  local want=$1; shift
  "$BIN" "$@" >"$tmp/out" 2>&1
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "exit status $got, expected $want: scatterlab $*"; cat "$tmp/out"; return 1
  fi
}
has() { grep -qF -- "$1" "$tmp/out" || { echo "missing: $1"; cat "$tmp/out"; return 1; }; }

check "--version" run 0 --version
check "version text" has "scatterlab "
# The reference, with its origin; list says the same, and a run records it.
ref=$(sed -n 's/.*(reference: \(LibTorch [0-9.]* ([^)]*)\);.*/\1/p' "$tmp/out")
check "version names the reference" test -n "$ref"
check "list" run 0 list
check "list names the reference" has "reference: $ref"
check "a run into a store" run 0 run --db "$tmp/ref.db" 'gather x=4x3 index=2x3 dim=0'
check "runs csv" run 0 report --db "$tmp/ref.db" --format csv --table runs
check "the run recorded its reference" has ",$ref"
check "text runs table" run 0 report --db "$tmp/ref.db"
check "text runs table names the reference" has "${ref%% (*}"
check "--help" run 0 --help
check "run --help" run 0 run --help
check "list --help" run 0 list --help
check "report --help" run 0 report --help
check "unknown command" run 2 frobnicate
check "unknown option" run 2 run --frob 'gather x=4 index=4'

# Invalid cases: kernel and LibTorch both reject -> both_rejected, a pass.
check "dim out of range" run 0 run --no-db 'gather x=4x3 index=2x3 dim=5'
check "dim verdict" has "both_rejected"
check "dim message" has "dim: expected a value in [-2,1] for a rank-2 tensor, got 5"
check "rank mismatch" run 0 run --no-db 'gather x=4x3 index=6 dim=0'
check "rank message" has "index: expected rank 2"
check "bad index dtype" run 0 run --no-db 'gather it=f32 x=4x3 index=2x3 dim=0'
check "dtype message" has "index: expected dtype i32 or i64, got f32"
check "out of range index" run 0 run --no-db 'scatter x=4x3 index=2x3 src=2x3 dim=0 ip=oob seed=3'
check "oob message" has "out of range [0,4) for dim 0 of x [4,3]"

# Malformed case lines are usage errors (2) that name the offending word.
check "missing shape" run 2 run --no-db 'gather x=4x3'
check "missing shape message" has "index: expected its shape"
check "bad dtype name" run 2 run --no-db 'gather dt=f128 x=4 index=4'
check "bad dtype message" has "dt: expected a dtype"
check "unknown op" run 2 run --no-db 'gatherr x=4 index=4'
check "no variant" run 2 run --no-db --variants cuda.nothing 'gather x=4 index=4'
check "absurd shape" run 2 run --no-db 'gather x=1000000x1000000x1000 index=1x1x1'
check "absurd message" has "x: shape [1000000,1000000,1000] needs more than"

# Option values out of range are usage errors (2) naming the option, the
# range and the value, in every command that takes them.
G='gather x=4 index=4'
# --threads: at most four per CPU, at least 64 (issue 48: 4096 passed and
# showed as a timeout of the reference), in run, bench and ab alike.
max_threads=$(($(getconf _NPROCESSORS_ONLN) * 4))
[ "$max_threads" -lt 64 ] && max_threads=64
for cmd in run bench ab; do
  check "$cmd: threads 4096 refused" run 2 $cmd --no-db --threads 4096 "$G"
  check "$cmd: threads message names the bound" \
    has "--threads: expected an integer in [0, $max_threads], got \"4096\""
done
check "threads at the bound taken" run 0 run --no-db --threads "$max_threads" "$G"
check "threads not a number" run 2 bench --no-db --threads=two "$G"
check "threads= message" has "--threads: expected an integer in [0, $max_threads], got \"two\""
check "timeout zero" run 2 run --no-db --timeout 0 "$G"
check "timeout message" has '--timeout: expected a number in (0, 1e+06], got "0"'
check "budget missing" run 2 bench --no-db --budget
check "budget missing message" has "--budget: expected a value after it"
check "budget too long" run 2 bench --no-db --budget 4000 "$G"
check "budget message" has '--budget: expected a number in (0, 3600], got "4000"'
check "min-reps zero" run 2 bench --no-db --min-reps 0 "$G"
check "min-reps message" has '--min-reps: expected an integer in [1, 100], got "0"'
check "bench a case" run 0 bench --no-db --budget 0.05 --min-reps 3 "$G"
check "bench probes at both ends" has "copy bandwidth at the end: "
# A variant left untimed says why beyond its verdict ("unsupported: no
# device" without a GPU; with one every variant is timed and nothing shows).
untimed_says_why() { ! grep -E 'not timed: [a-z]+$' "$tmp/out"; }
check "an untimed variant says why" untimed_says_why
# ... and stores both probes of both kinds with the run (runs.copy_gbs_end,
# schema v4; core_rtt_ns and core_rtt_ns_end, v5). Two threads, named, so
# that there is a pair whose round trip to probe on any machine (one core:
# at the scheduler's pace, milliseconds).
check "bench into a store" run 0 bench --db "$tmp/probes.db" --threads 2 --budget 0.05 --min-reps 3 "$G"
check "round trip at both ends" has "core-to-core round trip at the end: "
check "runs csv" run 0 report --db "$tmp/probes.db" --format csv --table runs
# columns in the order of their first release: the later probes after failed
check "probe columns" has ",copy_gbs,command_line,cases,results,failed,copy_gbs_end,core_rtt_ns,core_rtt_ns_end,reference,config"
# the first probe just before the command line, the other three after the
# counts, before the reference and the config (earlier fields may hold
# commas)
check "all probes stored" grep -qE ',[0-9.]+,scatterlab bench --db ' "$tmp/out"
check "all probes stored, at the end" grep -qE ',[0-9]+,[0-9]+,[0-9]+,[0-9.]+,[0-9.]+,[0-9.]+,[^,]*,[^,]*$' "$tmp/out"
check "jobs negative" run 2 fuzz --no-db --jobs -1
check "jobs message" has '--jobs: expected an integer in [1, 256], got "-1"'
check "max-elems huge" run 2 fuzz --no-db --max-elems 999999999999
check "max-elems message" has '--max-elems: expected an integer in [1, 268435456], got "999999999999"'
check "seconds text" run 2 fuzz --no-db --seconds soon
check "seconds message" has '--seconds: expected a number in (0, 1e+09], got "soon"'
check "min-samples one" run 2 compare --min-samples 1
check "min-samples message" has '--min-samples: expected an integer in [2, 1000000], got "1"'
check "min-segment zero" run 2 history --min-segment 0
check "min-segment message" has '--min-segment: expected an integer in [1, 100000], got "0"'
check "max-failures zero" run 2 report --max-failures 0
check "max-failures message" has '--max-failures: expected an integer in [1, 1000000], got "0"'

# A valid case passes on every variant; verdict lines carry the variants.
check "valid run" run 0 run --no-db 'scatter dt=i32 it=i32 x=8x8:t index=4x8 src=4x8 dim=1 ip=dup50 seed=3'
check "serial line" has "cpu.serial"
check "omp line" has "cpu.omp"
check "scalar value" run 0 run --no-db 'scatter dt=f64 x=5x2 index=3x2 dim=0 val=-0.5 seed=9'

# The store and the CSV export: one row per (case, variant).
db=$tmp/r/x.db
check "run with db" run 0 run --db "$db" 'gather x=4x3 index=2x3 dim=0 seed=1' 'gather x=5 index=7 dim=0 seed=2'
check "db path printed" has "results: $db (run 1)"
check "report runs" run 0 report --db "$db"
check "report lists run" has "run"
check "csv export" run 0 report --db "$db" --format csv -o "$tmp/r.csv"
nvar=$("$BIN" list --op gather | grep -c '^gather ')
rows=$(($(wc -l <"$tmp/r.csv") - 1))
check "csv rows = cases x variants ($rows vs $((2 * nvar)))" test "$rows" -eq $((2 * nvar))
check "csv header" grep -q '^run_id,case_id,op,variant,verdict' "$tmp/r.csv"
check "report on a missing db: exit 2, as compare (README, Exit statuses)" run 2 report --db "$tmp/none/none.db"

# list: every op with its CPU variants.
check "list" run 0 list
check "list gather" has "gather"
check "list cuda" has "CUDA:"

# The stored command line is shell-safe: a batch file whose name holds
# "';touch PWNED;'" is quoted so that pasting the line runs the same
# command and nothing else.
mkdir -p "$tmp/x" "$tmp/paste"
evil="$tmp/x/a';touch PWNED;'x.txt"
echo 'gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=1' >"$evil"
check "run --batch with quotes in the file name" run 0 run --db "$tmp/q.db" --batch "$evil"
cmdline=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT command_line FROM runs").fetchone()[0])' "$tmp/q.db")
pasted() {
  (cd "$tmp/paste" && PATH="$(dirname "$BIN"):$PATH" sh -c "$cmdline") \
    >"$tmp/out" 2>&1 || {
    echo "pasting exited $?: $cmdline"; cat "$tmp/out"; return 1; }
}
check "the stored command line pastes and runs ($cmdline)" pasted
check "... and touches nothing" test ! -e "$tmp/paste/PWNED"
nruns=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM runs").fetchone()[0])' "$tmp/q.db")
check "... and ran the same batch into the same store (runs: $nruns)" test "$nruns" = 2

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
