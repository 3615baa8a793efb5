#!/usr/bin/env bash
# Sharding a campaign across a CI matrix (issue 29): N shards, by --shard
# K/N (K from 1) or by each CI convention's environment variables, cover
# every case of the unsharded campaign exactly once; bad values are usage
# errors naming the variable; a sharded run stores and resumes its shard,
# and a store written before shards counted from 1 still resumes its own.
# On the code before this, --shard 3/3 and the environment were refused or
# ignored and most of these checks fail.
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
q() { sqlite3 "$1" "$2"; }
N=3
P=(fuzz --print --cases 90 --seed 7 --no-corpus --size-mix 0 --stress 0 --overlap 0)
# Not sharded by the environment this test runs in.
unset CI_NODE_INDEX CI_NODE_TOTAL JOB_COMPLETION_INDEX SCATTERLAB_SHARD_TOTAL \
  GTEST_SHARD_INDEX GTEST_TOTAL_SHARDS
"$BIN" "${P[@]}" >"$tmp/all" 2>"$tmp/all.err"
check "the unsharded campaign prints 90 distinct cases" \
  test "$(sort -u "$tmp/all" | wc -l)" = 90
check "an unsharded campaign names no shard" test ! -s "$tmp/all.err"
sort "$tmp/all" >"$tmp/all.sorted"

# covers NAME FILES...: the shards' lines are the campaign's, each once,
# and every shard has some.
covers() {
  local name=$1 f
  shift
  for f in "$@"; do
    check "$name: $(basename "$f") is not empty" test -s "$f"
  done
  cat "$@" | sort >"$tmp/union"
  check "$name: $N shards cover every case exactly once" \
    cmp -s "$tmp/union" "$tmp/all.sorted"
}

for k in 1 2 3; do
  "$BIN" "${P[@]}" --shard $k/$N >"$tmp/flag$k" 2>"$tmp/flag$k.err"
  check "--shard $k/$N exits 0" test $? = 0
  check "--shard $k/$N says its source" \
    grep -q "shard $k/$N (counted from 1) from --shard" "$tmp/flag$k.err"
done
covers "--shard K/N" "$tmp"/flag[123]

# name INDEX_VAR TOTAL_VAR BASE: shards 1..N through the environment.
env_shards() {
  local name=$1 ivar=$2 tvar=$3 base=$4 k
  for k in 1 2 3; do
    env "$ivar=$((k - 1 + base))" "$tvar=$N" "$BIN" "${P[@]}" \
      >"$tmp/$name$k" 2>"$tmp/$name$k.err"
    check "$ivar=$((k - 1 + base)) exits 0" test $? = 0
    check "$ivar=$((k - 1 + base)) is shard $k/$N, and says so" \
      grep -q "shard $k/$N (counted from 1) from $ivar=$((k - 1 + base)), $tvar=$N ($base-based)" \
      "$tmp/$name$k.err"
    check "$ivar=$((k - 1 + base)) runs the cases of --shard $k/$N" \
      cmp -s "$tmp/$name$k" "$tmp/flag$k"
  done
  covers "$ivar" "$tmp/$name"[123]
}
env_shards gitlab CI_NODE_INDEX CI_NODE_TOTAL 1
env_shards k8s JOB_COMPLETION_INDEX SCATTERLAB_SHARD_TOTAL 0
env_shards gtest GTEST_SHARD_INDEX GTEST_TOTAL_SHARDS 0

# --shard wins over the environment.
CI_NODE_INDEX=3 CI_NODE_TOTAL=3 "$BIN" "${P[@]}" --shard 1/3 >"$tmp/o" 2>"$tmp/o.err"
check "--shard overrides CI_NODE_INDEX" cmp -s "$tmp/o" "$tmp/flag1"

# Bad values: usage errors (2) naming the argument, expected and actual.
bad() { # bad MESSAGE ENV... -- ARGS...
  local msg=$1
  shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" "$BIN" "$@" >"$tmp/out" 2>&1
  local rc=$?
  check "${envs[*]} $*: exit 2 (got $rc)" test $rc = 2
  check "${envs[*]} $*: says $msg" has "$msg"
}
bad '--shard: expected K/N with 1 <= K <= N, got "0/3"' -- "${P[@]}" --shard 0/3
bad '--shard: expected K/N with 1 <= K <= N, got "4/3"' -- "${P[@]}" --shard 4/3
bad 'CI_NODE_INDEX: expected an integer in \[1, 3\], got "0"' \
  CI_NODE_INDEX=0 CI_NODE_TOTAL=3 -- "${P[@]}"
bad 'CI_NODE_INDEX: expected an integer in \[1, 3\], got "two"' \
  CI_NODE_INDEX=two CI_NODE_TOTAL=3 -- "${P[@]}"
bad 'CI_NODE_TOTAL: expected an integer in \[1, 1000000\], got "0"' \
  CI_NODE_INDEX=1 CI_NODE_TOTAL=0 -- "${P[@]}"
bad 'JOB_COMPLETION_INDEX is set \("2"\): expected SCATTERLAB_SHARD_TOTAL as well' \
  JOB_COMPLETION_INDEX=2 -- "${P[@]}"
bad 'JOB_COMPLETION_INDEX: expected an integer in \[0, 2\], got "3"' \
  JOB_COMPLETION_INDEX=3 SCATTERLAB_SHARD_TOTAL=3 -- "${P[@]}"
bad 'GTEST_SHARD_INDEX: expected an integer in \[0, 1\], got "-1"' \
  GTEST_SHARD_INDEX=-1 GTEST_TOTAL_SHARDS=2 -- "${P[@]}"
bad 'GTEST_TOTAL_SHARDS: expected an integer in \[1, 1000000\], got "3 "' \
  GTEST_SHARD_INDEX=0 'GTEST_TOTAL_SHARDS=3 ' -- "${P[@]}"

# A sharded run stores its shard as given: the cases of shard 2/3, a
# summary naming the source, and a config that resumes the same shard.
R=(fuzz --cases 90 --seed 7 --no-corpus --size-mix 0 --stress 0 --overlap 0 --keep all --variants cpu.serial --timeout 120)
CI_NODE_INDEX=2 CI_NODE_TOTAL=3 "$BIN" "${R[@]}" --db "$tmp/s.db" >"$tmp/out" 2>&1
check "a run as shard 2/3 exits 0" test $? = 0
check "its summary names the shard and the source" \
  has "^shard 2/3 \(counted from 1\) from CI_NODE_INDEX=2, CI_NODE_TOTAL=3"
q "$tmp/s.db" 'select case_line from cases order by case_line' >"$tmp/stored"
sort "$tmp/flag2" >"$tmp/want2"
check "it stored the cases of --shard 2/3" cmp -s "$tmp/stored" "$tmp/want2"
check "its config says --shard 2/3" \
  grep -q -- "--shard 2/3 " <<<"$(q "$tmp/s.db" 'select config from runs')"
# resume_all DB: forget what the run did and resume it; prints its cases.
resume_all() {
  q "$1" "update runs set status = 'interrupted'; delete from results; delete from cases;
          update fuzz_cursors set next_case = 0" &&
    GTEST_SHARD_INDEX=0 GTEST_TOTAL_SHARDS=2 "$BIN" fuzz --resume 1 --db "$1" >"$tmp/out" 2>&1 &&
    q "$1" 'select case_line from cases order by case_line'
}
resume_all "$tmp/s.db" >"$tmp/resumed"
check "resumed, it runs shard 2/3 again (not the environment's)" \
  cmp -s "$tmp/resumed" "$tmp/want2"
check "the resumed summary names the shard" \
  has "^shard 2/3 \(counted from 1\) from the resumed run's config"
# A store from before: no config version (nor --size-mix, --stress or
# --overlap, which came later: such a run had none, as this one), --shard
# counted from 0.
cp "$tmp/s.db" "$tmp/old.db"
q "$tmp/old.db" "update runs set config = replace(replace(replace(replace(
  replace(config, '--config-version 5 ', ''), '--size-mix 0 ', ''),
  '--stress 0 ', ''), '--overlap 0 ', ''), '--shard 2/3', '--shard 1/3')"
check "the old-style config has no version" \
  grep -qv -- "--config-version" <<<"$(q "$tmp/old.db" 'select config from runs')"
resume_all "$tmp/old.db" >"$tmp/resumed-old"
check "an old store's run (--shard 1/3 from 0) resumes shard 2/3" \
  cmp -s "$tmp/resumed-old" "$tmp/want2"

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
