#!/usr/bin/env bash
# An optional peer (examples/python/MODULE.py: onnxrt_peer, jax_peer):
# `list` shows every variant its cases file names, with capabilities; each
# case there passes for its variant; a short fixed campaign (a set number
# of cases, a set seed) ends with verdicts of the peer in a sound store.
# Skipped (77) where the bridge's Python cannot import the peer's
# packages: the peers are optional (docs/providers.md, "The peers").
# The venv scripts/setup-peers.sh makes (.venv-peers in the source tree)
# is used when no VIRTUAL_ENV is set.
#
# usage: peer.sh SCATTERLAB SOURCE_DIR MODULE [CASES]
#   cases: tests/python/MODULE.cases, lines "VARIANT CASE", # comments;
#   CASES: the campaign's case count (150; JAX compiles each new shape)
set -u
BIN=$1 SRC=$2 MOD=$3 NCASES=${4:-150}
export PYTHONPATH=$SRC/examples/python${PYTHONPATH:+:$PYTHONPATH}
[ -n "${VIRTUAL_ENV:-}" ] || [ ! -d "$SRC/.venv-peers" ] ||
  export VIRTUAL_ENV=$SRC/.venv-peers
. "$SRC/tests/check.sh"

"$BIN" list --provider "py:$MOD" >"$tmp/list" 2>&1
if grep -q "ModuleNotFoundError: No module named '\(onnx\|onnxruntime\|jax\|jaxlib\|numpy\)" "$tmp/list"; then
  echo "skipped: $(grep -o "No module named '[^']*'" "$tmp/list" | head -1)"
  echo "  (scripts/setup-peers.sh installs the peers' packages)"
  exit 77
fi
cases=$SRC/tests/python/$MOD.cases

# 1. list: every variant of the cases file, with its dtypes.
check "list loads py:$MOD" grep -q "^  $MOD: .*libscatterlab_python" "$tmp/list" ||
  cat "$tmp/list"
for v in $(grep -v '^#' "$cases" | awk 'NF { print $1 }' | sort -u); do
  check "list shows $MOD:$v with its capabilities" \
    grep -qE "^ +[a-z_]+ +$MOD:$v +dtypes [a-z0-9,]*(f32|f64)[a-z0-9,]*; index" "$tmp/list"
done

# 2. Each case passes for its variant, and nothing else fails it.
while read -r v c; do
  case $v in '' | '#'*) continue ;; esac
  check "run passes: $v $c" run 0 run --provider "py:$MOD" \
    --variants "$MOD:$v" "$c"
  check "  ...$MOD:$v passed it" has "^passed +$MOD:$v "
done <"$cases"

# 3. A short fixed campaign: it ends, its store is sound, the peer was
#    judged. What it finds is printed, not asserted (docs/findings.md).
timeout 300 "$BIN" fuzz --db "$tmp/f.db" --provider "py:$MOD" \
  --variants "$MOD:*" --cases "$NCASES" --seed 7 --timeout 20 --no-corpus \
  >"$tmp/out" 2>&1
rc=$?
check "fuzz ended with 0 or 1 (got $rc)" test $rc = 0 -o $rc = 1
grep -E '^(FAIL|[0-9]+ cases|[0-9]+ failure groups)' "$tmp/out" | head -20
check "the store is sound" "$BIN" check --db "$tmp/f.db"
n=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT coalesce(sum(count), 0) FROM tallies WHERE variant LIKE ?", (sys.argv[2] + ":%",)).fetchone()[0])' "$tmp/f.db" "$MOD" 2>&1)
check "fuzz judged $MOD variants (got $n verdicts)" test "${n:-0}" -gt 0 2>/dev/null

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" = 0 ]
