#!/usr/bin/env bash
# A damaged store takes no new writes (issue 28, point 3): 20 pages in the
# middle of a store overwritten with random bytes, then run, fuzz and bench
# must refuse it with a message naming the file (exit 1) and leave its bytes
# as they were; `scatterlab check` lists the damage (exit 1) and calls a
# sound store sound (exit 0). On the code before the check, run exited 0
# and fuzz ended 'finished' on the damaged store, and there was no `check`.
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
db=$tmp/s.db
"$BIN" run --db "$db" --batch "$SRC/harness/batches/ops.txt" >/dev/null 2>&1
pages=$(($(stat -c %s "$db") / 4096))
check "the store has pages to damage ($pages)" [ "$pages" -gt 45 ]
"$BIN" check --db "$db" >"$tmp/ok.out" 2>&1
rc=$?
check "check on a sound store: exit 0 (got $rc)" [ $rc -eq 0 ]
check "... says sound" grep -q "s.db: sound" "$tmp/ok.out"
"$BIN" check --quick --db "$db" >/dev/null 2>&1
check "check --quick on a sound store: exit 0" [ $? -eq 0 ]

cp "$db" "$tmp/bad.db"
python3 - "$tmp/bad.db" <<'PY'
import os, random, sys
random.seed(28)
with open(sys.argv[1], "r+b") as f:
    for page in range(20, 40):
        f.seek(page * 4096)
        f.write(bytes(random.getrandbits(8) for _ in range(4096)))
PY
before=$(sha256sum <"$tmp/bad.db")
CASE='gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=1'
for cmd in run fuzz bench; do
  case $cmd in
    run) "$BIN" run --db "$tmp/bad.db" "$CASE" ;;
    fuzz) "$BIN" fuzz --cases 20 --no-corpus --db "$tmp/bad.db" ;;
    bench) "$BIN" bench --budget 0.01 --db "$tmp/bad.db" "$CASE" ;;
  esac >"$tmp/c.out" 2>&1
  rc=$?
  check "$cmd on a damaged store: exit 3, a store error (got $rc)" [ $rc -eq 3 ]
  check "... names the file and the damage" grep -q "bad.db: the store is damaged" "$tmp/c.out"
done
check "the damaged store's bytes are as they were" [ "$(sha256sum <"$tmp/bad.db")" = "$before" ]
"$BIN" check --db "$tmp/bad.db" >"$tmp/chk.out" 2>&1
rc=$?
check "check on the damaged store: exit 1 (got $rc)" [ $rc -eq 1 ]
check "... lists problems" grep -qiE "page|malformed" "$tmp/chk.out"
"$BIN" check --db "$tmp/none.db" >/dev/null 2>&1
rc=$?
check "check on a missing store: exit 2, a usage error (got $rc)" [ $rc -eq 2 ]
check "check creates no store" [ ! -e "$tmp/none.db" ]

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
