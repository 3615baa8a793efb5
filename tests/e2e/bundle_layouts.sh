#!/usr/bin/env bash
# Bundles keep layouts (issue 29): a stride bug found on `x=4x3:t` must
# reproduce from its own --save bundle. The buggy provider's
# gather cpu.ignores_strides reads x as if contiguous: it fails on a
# transposed or stepped x and passes on a contiguous one. Saved, then loaded
# with `run --load DIR`, it must fail again with the same output bytes; the
# loaded run prints its case with the layout and a repro line that runs the
# bundle (`scatterlab run --load DIR`), and every case.txt --save writes,
# one per layout kind, loads back. Before the fix the loaded x was
# contiguous: the variant passed and the repro was a seed-generated case.
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
BUG=$(dirname "$BIN")/tests/libsl_buggy.so
[ -f "$BUG" ] || { echo "FAIL: $BUG missing"; exit 1; }
V=(--provider "buggy=$BUG" --variants buggy:cpu.ignores_strides)

for lay in t s3 o2; do
  CASE="gather dt=f32 it=i64 x=4x3:$lay index=2x3 dim=1 seed=5"
  b=$tmp/$lay
  check "$lay: the stride bug fails when generated" \
    run 1 run --no-db "${V[@]}" --save "$b" "$CASE"
  check "$lay: the bundle's case.txt keeps the layout" \
    grep -q "x=4x3:$lay " "$b/case.txt"
  check "$lay: case.txt names x's strides" \
    grep -q "^# x.npy: strides (" "$b/case.txt"
  cp "$b/buggy:cpu.ignores_strides.out.npy" "$tmp/first.npy"
  check "$lay: the stride bug fails again from the bundle" \
    run 1 run --no-db "${V[@]}" --load "$b" --save "$b"
  check "$lay: the loaded run prints the layout" has "^failed .* x=4x3:$lay "
  check "$lay: its repro runs the bundle" \
    has "repro: scatterlab run --load $b --variants buggy:cpu.ignores_strides"
  check "$lay: its repro is not a generated case" hasnt "repro: scatterlab run 'gather"
  check "$lay: the same wrong output, byte for byte" \
    cmp "$tmp/first.npy" "$b/buggy:cpu.ignores_strides.out.npy"
done

# A contiguous x: the variant passes, from the line and from the bundle.
check "contiguous: passes" run 0 run --no-db "${V[@]}" --save "$tmp/c" \
  'gather dt=f32 it=i64 x=4x3 index=2x3 dim=1 seed=5'
check "contiguous: passes from the bundle" run 0 run --no-db "${V[@]}" --load "$tmp/c"

# A case line given with --load is part of the repro.
check "a given line: fails" run 1 run --no-db "${V[@]}" --load "$tmp/t" \
  'gather dt=f32 it=i64 x=4x3:t index=2x3 dim=1 seed=5'
check "a given line: the repro carries it" \
  has "repro: scatterlab run --load $tmp/t 'gather dt=f32 it=i64 x=4x3:t "

# What --save writes parses back, for every layout kind and a backward op.
k=0
while read -r line; do
  k=$((k + 1))
  check "save $line" run 0 run --no-db --variants cpu.serial --save "$tmp/k$k" "$line"
  check "load $line" run 0 run --no-db --variants cpu.serial --load "$tmp/k$k"
  want=$(head -1 "$tmp/k$k/case.txt")
  check "load $line: the same case line" grep -qF " $want" "$tmp/out"
done <<'EOF'
gather dt=f32 it=i64 x=4x3:t index=2x3:t dim=1 seed=2
gather dt=c64 it=i64 x=7x5x3 index=7x9x3:b dim=1 seed=2
scatter_reduce dt=f32 it=i32 x=5x4:s3 index=3x4 src=3x4:t dim=0 reduce=sum seed=3
scatter dt=u8 it=i64 x=3x4x5:t index=3x4x5:b src=3x4x5:s2 dim=2 ip=one seed=9
scatter_reduce_backward dt=f32 it=i64 x=6x4:t index=3x4:s2 src=3x4:t dim=0 reduce=amax seed=7
scatter dt=f64 it=i64 x=5x6:o2 index=4x6x1:o3 src=4x6x1:o4 dim=0 seed=4
EOF

# An overlapped layout shares memory between elements: a bundle whose
# shared elements differ cannot be laid out so, and says which.
check "o<k>: save" run 0 run --no-db --variants cpu.serial --save "$tmp/ov" \
  'gather dt=f32 it=i64 x=4x3 index=2x3 dim=1 seed=5'
check "o<k>: a bundle whose shared elements differ is refused" \
  run 2 run --no-db --variants cpu.serial --load "$tmp/ov" \
  'gather dt=f32 it=i64 x=4x3:o2 index=2x3 dim=1 seed=5'
check "o<k>: the refusal names the file and the layout" \
  has "x.npy: expected the elements that share memory in the case line's layout o2 equal, got element [0-9]+ different"

echo "bundle_layouts: $((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
