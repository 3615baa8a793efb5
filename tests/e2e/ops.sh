#!/usr/bin/env bash
# Every op on the fixed batch harness/batches/ops.txt (a few hundred cases,
# valid and invalid) and the failure corpus: every verdict must be a pass.
set -u
BIN=$1 SRC=$2
"$BIN" run --no-db --quiet --batch "$SRC/harness/batches/ops.txt" || exit 1
for f in "$SRC"/fuzz/corpus/*.txt; do
  "$BIN" run --no-db --quiet --batch "$f" || { echo "corpus case failed: $f"; exit 1; }
done
echo "1 passed, 0 failed"
