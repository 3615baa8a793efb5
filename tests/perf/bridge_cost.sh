#!/usr/bin/env bash
# The Python bridge's cost (issue 53), with the bridge's own pure-Python
# module (tests/python/bridge_pure.py: no numpy, no peer), against
# scatterlab's cpu.serial on the same work:
#
# 1. fuzz: cases/s of one-job campaigns over gather f32, tensors of at
#    most 16 elements (the Python loop of bridge_pure's gather is then a
#    few µs), `--variants bridge_pure:cpu.memoryview` against `--variants
#    cpu.serial`, ROUNDS rounds taken in turns (the machine's drift hits
#    both). Each case runs LibTorch's reference and the variant several
#    times (the run, the reruns and checks): the difference per case is
#    the bridge's and Python's share of a campaign.
# 2. bench: the median of one call on the smallest gather (x=1, index=1),
#    bridge_pure:cpu.memoryview against cpu.serial, one thread: the
#    difference is the per-call overhead of a Python variant (the GIL, the
#    call's namespace and tensor views, three memoryviews, one element).
#
# A benchmark, run by hand on a quiet machine, never a test; the figures
# go to docs/providers.md ("Cost").
#
# usage: bridge_cost.sh SCATTERLAB [ROUNDS [SECONDS [BUDGET]]]
set -u
bin=$1 rounds=${2:-3} secs=${3:-10} budget=${4:-0.5}
export PYTHONPATH=$(cd "$(dirname "$0")/../python" && pwd)${PYTHONPATH:+:$PYTHONPATH}
PY=bridge_pure:cpu.memoryview
rate() { # rate VARIANT [OPTION...]: cases/s of one campaign
  local v=$1
  shift
  "$bin" fuzz --seconds "$secs" --jobs 1 --ops gather --dtypes f32 \
    --max-elems 16 --size-mix 0 --no-db --no-corpus --variants "$v" "$@" 2>&1 |
    sed -n 's/.*(\([0-9]*\) cases\/s).*/\1/p' | tail -1
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
rc=() rp=()
for ((i = 0; i < rounds; ++i)); do
  if ((i % 2 == 0)); then
    c=$(rate cpu.serial)
    p=$(rate "$PY" --provider py:bridge_pure)
  else
    p=$(rate "$PY" --provider py:bridge_pure)
    c=$(rate cpu.serial)
  fi
  echo "fuzz round $i: cpu.serial ${c:-?} cases/s, $PY ${p:-?} cases/s"
  rc+=("${c:-0}") rp+=("${p:-0}")
done
mc=$(printf '%s\n' "${rc[@]}" | median)
mp=$(printf '%s\n' "${rp[@]}" | median)
awk -v c="$mc" -v p="$mp" 'BEGIN {
  printf "fuzz (median of rounds): cpu.serial %d cases/s, Python %d cases/s", c, p
  if (c > 0 && p > 0) printf ": %.0f us more a case through the bridge\n", 1e6 / p - 1e6 / c
  else printf "\n" }'

out=$("$bin" bench --no-db --threads 1 --budget "$budget" \
  --provider py:bridge_pure --variants "$PY,cpu.serial" \
  'gather dt=f32 it=i64 x=1 index=1 dim=0 seed=1' 2>&1)
ms() { echo "$out" | awk -v v="$1" '$1 == v && $3 == "ms" { print $2; exit }'; }
tc=$(ms cpu.serial) tp=$(ms "$PY") tt=$(ms torch.cpu)
echo "bench, gather x=1 index=1, median of a call: torch.cpu ${tt:-?} ms, cpu.serial ${tc:-?} ms, $PY ${tp:-?} ms"
awk -v c="${tc:-0}" -v p="${tp:-0}" 'BEGIN {
  if (c > 0 && p > 0) printf "per-call overhead of a Python variant: %.1f us\n", (p - c) * 1e3 }'
