#!/usr/bin/env bash
# scatter's scalar beyond what x's dtype holds (issue 28, point 8): every
# variant refuses it as LibTorch does (both_rejected, none of them
# reject_mismatch), naming the value and the range; the largest value each
# dtype holds still passes. On the code before core/src/scalar.c the six
# cases of the issue gave reject_mismatch on every variant.
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
CASE='x=4x3 index=2x3 dim=0'
# The CPU variants: a cuda.* one is `unsupported` without a device (the
# rule is the core's infer, which every device's variants go through).
V=(--variants cpu)

# "1 cases, N verdicts: N both_rejected": every verdict, none other.
all_are() { grep -qE "([0-9]+) verdicts: \1 $1\$" "$tmp/out" || { echo "not all $1:"; cat "$tmp/out"; return 1; }; }

for dv in u8:256 f16:70000 bf16:1e39 i8:300 i16:40000 i32:-2147483649 \
          u8:-256 f16:-65505 f32:3.4028234663852889e38 c64:1e39; do
  dt=${dv%%:*} val=${dv#*:}
  line="scatter dt=$dt $CASE val=$val"
  check "$line: runs" run 0 run --no-db "${V[@]}" "$line"
  check "$line: every variant both_rejected" all_are both_rejected
  check "$line: no reject_mismatch" hasnt reject_mismatch
  check "$line: the message names value and $dt's range" \
    has "value: expected a value representable in $dt \\["
done

for dv in u8:255 u8:-255 f16:65504 bf16:3.3895313892515355e38 i8:-128 \
          i16:32767 i32:-2147483648 i64:9223372036854775807 \
          f32:-3.4028234663852886e38 f16:inf bool:2; do
  dt=${dv%%:*} val=${dv#*:}
  line="scatter dt=$dt $CASE val=$val"
  check "$line: runs" run 0 run --no-db "${V[@]}" "$line"
  check "$line: every variant passes" all_are passed
done

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
