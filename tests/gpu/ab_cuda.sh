#!/usr/bin/env bash
# `scatterlab ab` on cuda.* pairs: the kernels library against a copy of
# itself (an A/A run) times cuda.atomic on the device, turn by turn, with
# torch.cuda as the third arm: judged (not `not timed`), never slower or
# faster, exit 0, both arms and torch.cuda stored. --plant-slowdown, which
# spins the CPU, leaves such a pair untimed, says why, and with nothing
# judged the run is incomplete (exit 3). Exits 77 (CTest:
# skipped) without a CUDA device.
#
# usage: ab_cuda.sh SCATTERLAB
set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
NAME=gpu.ab
. "$(dirname "$0")/skip_without_device.sh"
. "$(dirname "$0")/../check.sh"
LIB=$(readlink -f "$(dirname "$BIN")/libscatterlab_kernels.so")
cp "$LIB" "$tmp/base.so"
S='scatter_reduce dt=f32 x=4096x8 index=65536x8 src=65536x8 dim=0 reduce=amin seed=1'
check "A/A on the device: exit 0" run 0 ab --base "$tmp/base.so" \
  --variants cuda.atomic --torch --budget 0.5 --db "$tmp/ab.db" \
  --json "$tmp/ab.json" "$S"
check "A/A: cuda.atomic judged, not slower or faster" \
  has '^  cuda\.atomic +[0-9.]+ +[0-9.]+ +[0-9.]+ \[.*\b(same|unclear|noisy)\b'
check "A/A: nothing untimed" hasnt 'not timed'
check "A/A: the torch arm is torch.cuda" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
j = [r for r in d["rows"] if r["kind"] == "judged"]
assert len(j) == 1 and j[0]["torch_s"] > 0, d["rows"]' "$tmp/ab.json"
# Python's sqlite3, not the sqlite3 program: the GPU machines have Python
# (PyTorch) and not always that program. Without --cand the candidate arm
# is this build's own variant, stored under its plain name.
check "store: both arms and torch.cuda" test "$(python3 -c '
import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute(
    "select count(*) from timings where variant in "
    "(\x27base:cuda.atomic\x27, \x27cuda.atomic\x27, \x27torch.cuda\x27)"
).fetchone()[0])' "$tmp/ab.db")" = 3
# Nothing judged: the gate is incomplete (exit 3), not a pass.
check "--plant-slowdown: exit 3" run 3 ab --base "$tmp/base.so" \
  --variants cuda.atomic --plant-slowdown 50 --budget 0.2 --no-db "$S"
check "--plant-slowdown: not timed, and why" \
  has 'cuda\.atomic +not timed: --plant-slowdown spins the CPU, not the device'
echo "$NAME: $checks checks, $fails failed"
[ "$fails" = 0 ]
