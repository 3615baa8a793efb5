#!/usr/bin/env bash
# `scatterlab bench` times the cuda.* variants on the device (what
# scatterlab-gpubench did): the device and its copy bandwidth printed once,
# torch.cuda first, a speed-up over it on every cuda row, the CPU side
# beside it when the selection has one, the device name in the run's row.
# Exits 77 (CTest: skipped) without a CUDA device.
#
# usage: bench.sh SCATTERLAB
set -u
BIN=$1
NAME=gpu.bench
. "$(dirname "$0")/skip_without_device.sh"
. "$(dirname "$0")/../check.sh"
row='[0-9.]+ ms +[0-9.]+% +[0-9.]+ +[0-9.]+%'

S='scatter_reduce x=64x8 index=4096x8 src=4096x8 dim=0 reduce=sum'
check "cuda.atomic timed" run 0 bench --variants cuda.atomic --no-db \
  --budget 0.05 --min-reps 3 "$S"
check "the device, once" has '^device .'
check "its copy bandwidth" has '^copy bandwidth [0-9.]+ GB/s \(256 MiB device-to-device'
check "torch.cuda first" has "^  torch\\.cuda +$row +1\\.00x +[0-9]+\$"
check "cuda.atomic vs torch.cuda" has "^  cuda\\.atomic +$row +[0-9.]+x +[0-9]+\$"
check "no CPU side" hasnt '^  torch\.cpu |^threads '
check "--no-torch" run 0 bench --variants cuda.atomic --no-db --no-torch \
  --budget 0.05 --min-reps 3 "$S"
check "--no-torch: no torch.cuda row" hasnt 'torch\.cuda'
check "--no-torch: no speed-up" has "^  cuda\\.atomic +$row +- +[0-9]+\$"
check "cpu,cuda --cold into a store" run 0 bench --variants cpu.serial,cuda.atomic \
  --cold --db "$tmp/b.db" --budget 0.05 --min-reps 3 "$S"
for v in torch.cpu cpu.serial torch.cuda cuda.atomic; do
  check "mixed: $v row" has "^  ${v//./\\.} +$row +[0-9.]+x +[0-9]+\$"
done
check "timings stored" run 0 report --db "$tmp/b.db" --format csv --table timings
for v in torch.cpu cpu.serial torch.cuda cuda.atomic; do
  check "stored: $v" has ",$v,"
done
dev=$("$BIN" bench --variants cuda.atomic --no-db --budget 0.02 --min-reps 3 "$S" |
  sed -n 's/^device //p' | head -1)
check "runs csv" run 0 report --db "$tmp/b.db" --format csv --table runs
check "the run names the device" grep -qF -- "${dev%% *}" "$tmp/out"
echo "$NAME: $checks checks, $fails failed"
[ "$fails" = 0 ]
