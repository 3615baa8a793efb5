#!/usr/bin/env bash
# Fuzz throughput of two scatterlab binaries on small cases, run in turns so
# that the machine's drift hits both alike: `fuzz --seconds S --jobs 2
# --max-elems 1024 --no-db --no-corpus`, ROUNDS rounds of A then B (B then A
# every other round). Prints every sample, each side's median and range,
# and B's median over A's. A benchmark, run by hand (the latest figures in
# docs/performance-figures.md, each dated run in
# docs/notes/benchmarks-2026.md), never a test.
#
# usage: fuzz_throughput.sh SCATTERLAB_A SCATTERLAB_B [ROUNDS [SECONDS]]
#   FUZZ_ARGS: more options for both campaigns, e.g. FUZZ_ARGS="--ops
#   gather,scatter" to compare builds over the ops both have; FUZZ_ARGS_B:
#   for B's only (an option A's build predates, such as --stress 8192 to
#   give B the schedule A had). NOISY=1: every campaign runs beside the
#   scripted neighbour (neighbour.sh: a memory streamer and a CPU-bound
#   loop); NOISY_B=1: B's only, so that with A = B the ratio is the share
#   of its idle throughput a build keeps on a busy runner.
set -u
a=$1 b=$2 rounds=${3:-5} secs=${4:-10}
read -r -a extra <<< "${FUZZ_ARGS:-}"
read -r -a extra_b <<< "${FUZZ_ARGS_B:-}"
noisy_a=${NOISY:-0} noisy_b=${NOISY_B:-${NOISY:-0}}
here=$(dirname "$0")
rate() { # rate NOISY BIN [OPTION...]: cases/s of one campaign
  local beside=()
  [ "$1" = 1 ] && beside=("$here/neighbour.sh" run $((secs + 30)))
  local bin=$2
  shift 2
  "${beside[@]}" "$bin" fuzz --seconds "$secs" --jobs 2 --max-elems 1024 --no-db \
    --no-corpus "${extra[@]}" "$@" 2>&1 |
    sed -n 's/.*(\([0-9]*\) cases\/s).*/\1/p' | tail -1
}
ra=() rb=()
for ((i = 0; i < rounds; ++i)); do
  if ((i % 2 == 0)); then
    x=$(rate "$noisy_a" "$a")
    y=$(rate "$noisy_b" "$b" "${extra_b[@]}")
  else
    y=$(rate "$noisy_b" "$b" "${extra_b[@]}")
    x=$(rate "$noisy_a" "$a")
  fi
  ra+=("$x") rb+=("$y")
  echo "round $((i + 1)): A $x cases/s, B $y cases/s"
done
python3 - "${ra[*]}" "${rb[*]}" <<'PY'
import statistics, sys
a = [float(v) for v in sys.argv[1].split()]
b = [float(v) for v in sys.argv[2].split()]
ma, mb = statistics.median(a), statistics.median(b)
print(f"A median {ma:.0f} cases/s (range {min(a):.0f}-{max(a):.0f})")
print(f"B median {mb:.0f} cases/s (range {min(b):.0f}-{max(b):.0f})")
r = sorted(y / x for x, y in zip(a, b))
print(f"B/A: medians {mb / ma:.3f}; per round {statistics.median(r):.3f} "
      f"(range {r[0]:.3f}-{r[-1]:.3f})")
PY
