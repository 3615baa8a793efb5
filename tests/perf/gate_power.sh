#!/usr/bin/env bash
# The power of the regression gate, measured (issue 26): a benchmark run by
# hand (figures in docs/performance-figures.md, "The regression gate's
# proof"), never a test.
#
#   A/A       RUNS `scatterlab ab` runs with the same build on both sides
#             (--base the build's own kernels library): how many benchmarks
#             were judged slower or faster, out of how many judgements;
#   planted   RUNS runs each with --plant-slowdown 10, 5 and 2 (the
#             candidate's calls spin for that share of their time) over
#             one variant's benchmarks (PLANTED, default cpu.serial: all
#             16 cases of the standard suite): in how many runs the gate
#             failed (some benchmark judged slower), and how many of the
#             judgements said slower;
#   compare   the same A/A by the old method: RUNS pairs of `bench` runs of
#             the suite, judged by cross-run `compare`: how many benchmarks
#             it called slower or faster;
#   wall time one ab run against one bench run of the suite.
#
# usage: gate_power.sh SCATTERLAB SUITE|FILE [RUNS [BUDGET [VARIANTS [PLANTED]]]]
#   defaults: RUNS 20, BUDGET 2 (ab, per benchmark), VARIANTS cpu.*,
#   PLANTED cpu.serial. PHASES (environment) picks the parts, default
#   "aa planted compare", so that the hours it takes can be split;
#   PLANT_PCTS the planted slowdowns (default "10 5 2");
#   FIRST the first run's number, its order seed (default 1: a split
#   measurement goes on with new seeds);
#   COMPARE_RUNS the pairs of bench runs (default RUNS); LOGDIR, when set,
#   keeps every ab run's output there (LABEL-RUN.txt).
#   bench runs use --budget 0.3 --min-reps 5, as in issue 26's measurement.
#   NOISY=1: every ab and bench run beside the scripted neighbour
#   (neighbour.sh: a memory streamer and a CPU-bound loop, ended with the
#   run), the busy runner of issue 54.
set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SUITE=$2 RUNS=${3:-20} BUDGET=${4:-2} VARIANTS=${5:-cpu.*}
PLANTED=${6:-cpu.serial} PHASES=${PHASES:-aa planted compare}
COMPARE_RUNS=${COMPARE_RUNS:-$RUNS} LOGDIR=${LOGDIR:-} FIRST=${FIRST:-1}
beside=()
[ "${NOISY:-0}" = 1 ] && beside=("$(dirname "$0")/neighbour.sh" run 7200)
has() { case " $PHASES " in *" $1 "*) return 0 ;; esac; return 1; }
LIB=$(readlink -f "$(dirname "$BIN")/libscatterlab_kernels.so") # the .so.N of this ABI
[ -f "$LIB" ] || { echo "gate_power: no $LIB beside $BIN" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$LIB" "$tmp/base.so" # a second file: loaded as a second library

ab() { # ab SEED VARIANTS [options]: "same faster slower unclear" of a run
  "${beside[@]}" "$BIN" ab --base "$tmp/base.so" --suite "$SUITE" --no-db \
    --seed "$1" --budget "$BUDGET" --variants "$2" "${@:3}" >"$tmp/ab.out" 2>&1
  echo "$?" >"$tmp/ab.rc"
  sed -n 's/^\([0-9]*\) benchmarks judged: \([0-9]*\) same \([0-9]*\) faster \([0-9]*\) slower \([0-9]*\) unclear \([0-9]*\) noisy.*/\2 \3 \4 \5 \6/p' "$tmp/ab.out"
}
tally() { # tally LABEL VARIANTS [options]: RUNS ab runs, summed
  local s=0 f=0 w=0 u=0 z=0 hits=0 exit1=0 line
  for ((i = FIRST; i < FIRST + RUNS; ++i)); do
    line=$(ab "$i" "${@:2}")
    local rc
    rc=$(cat "$tmp/ab.rc")
    [ -z "$LOGDIR" ] || cp "$tmp/ab.out" "$LOGDIR/${1//[^A-Za-z0-9]/_}-$i.txt"
    [ -n "$line" ] || { echo "$1 run $i: no summary (exit $rc)"; tail -5 "$tmp/ab.out"; continue; }
    read -r a b c d e <<<"$line"
    s=$((s + a)) f=$((f + b)) w=$((w + c)) u=$((u + d)) z=$((z + e))
    [ "$c" -gt 0 ] && hits=$((hits + 1))
    [ "$rc" = 1 ] && exit1=$((exit1 + 1))
    echo "  $1 run $i: same $a faster $b slower $c unclear $d noisy $e (exit $rc)"
  done
  local n=$((s + f + w + u + z))
  echo "$1: $n judgements over $RUNS runs: same $s, faster $f, slower $w, unclear $u, noisy $z; runs with any slower: $hits/$RUNS; runs exiting 1: $exit1/$RUNS"
}

t0=0 t1=0
if has aa; then
  echo "== A/A (ab, budget $BUDGET s per benchmark, variants $VARIANTS)"
  t0=$(date +%s.%N)
  tally "A/A" "$VARIANTS"
  t1=$(date +%s.%N)
fi
if has planted; then
  for pct in ${PLANT_PCTS:-10 5 2}; do
    echo "== planted $pct% in $PLANTED"
    tally "planted $pct%" "$PLANTED" --plant-slowdown "$pct"
  done
fi
has compare || exit 0

echo "== A/A by cross-run compare (bench --budget 0.3 --min-reps 5, twice)"
slower=0 faster=0 total=0
bench_s=0
for ((i = 1; i <= COMPARE_RUNS; ++i)); do
  rm -f "$tmp/a.db" "$tmp/b.db"
  b0=$(date +%s.%N)
  "${beside[@]}" "$BIN" bench --suite "$SUITE" --db "$tmp/a.db" --budget 0.3 --min-reps 5 \
    --variants "$VARIANTS" >/dev/null 2>&1
  b1=$(date +%s.%N)
  "${beside[@]}" "$BIN" bench --suite "$SUITE" --db "$tmp/b.db" --budget 0.3 --min-reps 5 \
    --variants "$VARIANTS" >/dev/null 2>&1
  bench_s=$(echo "$bench_s + $b1 - $b0" | bc)
  "$BIN" compare "$tmp/a.db" "$tmp/b.db" --format csv -o "$tmp/c.csv" >/dev/null 2>&1
  [ -z "$LOGDIR" ] || cp "$tmp/c.csv" "$LOGDIR/compare-$i.csv"
  read -r w f n < <(python3 - "$tmp/c.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
v = [r.get("verdict", "") for r in rows]
print(v.count("slower"), v.count("faster"), len(v))
PY
)
  slower=$((slower + w)) faster=$((faster + f)) total=$((total + n))
  echo "  compare run $i: $n benchmarks, slower $w, faster $f"
done
echo "compare A/A: $total judgements over $COMPARE_RUNS pairs of runs: slower $slower, faster $faster"
has aa || exit 0
ab_s=$(echo "($t1 - $t0) / $RUNS" | bc -l)
one_bench=$(echo "$bench_s / $COMPARE_RUNS" | bc -l)
printf "wall time: one ab run %.1f s, one bench run %.1f s (ratio %.2f)\n" \
  "$ab_s" "$one_bench" "$(echo "$ab_s / $one_bench" | bc -l)"
