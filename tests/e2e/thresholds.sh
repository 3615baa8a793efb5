#!/usr/bin/env bash
# The kernels' size thresholds (core/src/thresholds.def), the fuzzer's
# size mix and its contention stress (both sized from them): `list
# --thresholds` prints the core's table with this build's values; `fuzz
# --size-mix` is validated, stored in the run's config (a resume with
# another value is refused) and, at one case in one, sizes the campaign's
# valid cases past the thresholds (coverage cells past:<name>); `fuzz
# --stress` likewise (cells stress:contention).
# In a build configured with -DSL_SMALL_THRESHOLDS=ON (CI's sanitizer
# build), a campaign over the parallel CPU variants then runs their
# big-case paths on small cases and must find nothing.
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
unset CI_NODE_INDEX JOB_COMPLETION_INDEX GTEST_SHARD_INDEX

small=0
"$BIN" --version | grep -q "small size thresholds" && small=1
check "list --thresholds" run 0 list --thresholds
check "the table's rows" has '^  team_min_elements +[0-9]+ +16384 '
check "the table's byte rows" has '^  scatter_wide_bytes +[0-9]+ +6291456 +bytes'
if [ $small = 1 ]; then
  check "small build says so" has 'small-thresholds test build'
  check "small value in force" has '^  team_min_elements +8 +16384 '
else
  check "normal value in force" has '^  team_min_elements +16384 +16384 '
fi
check "--size-mix -1 refused" run 2 fuzz --size-mix -1 --cases 1 --no-db
check "refusal names it" has -- '--size-mix'
check "--size-mix x refused" run 2 fuzz --size-mix x --cases 1 --no-db

# Every case sized past a threshold: the cells say which.
DB=$tmp/mix.db
check "size-mix campaign" run 0 fuzz --cases 300 --jobs 2 --size-mix 1 \
  --variants cpu --no-corpus --db "$DB"
check "no failure" has ' 0 failure groups \(0 failing cases\)'
check "config has --size-mix 1" \
  sh -c "sqlite3 '$DB' 'select config from runs' | grep -q -- '--size-mix 1 '"
"$BIN" report --db "$DB" --format csv --table coverage >"$tmp/cells.csv" 2>&1
npast=$(grep -o '|past:[a-z_]*|' "$tmp/cells.csv" | sort -u | wc -l)
check "cells past at least 5 thresholds (got $npast)" test "$npast" -ge 5
check "resume with another --size-mix refused" \
  run 2 fuzz --resume 1 --size-mix 7 --db "$DB"
check "refusal names the option" has -- '--size-mix 7 differs'

# Contention stress (fuzz/stress.c): validated, stored, and at one case
# in one every valid case of a reducing op reads stress:contention.
check "--stress -1 refused" run 2 fuzz --stress -1 --cases 1 --no-db
check "refusal names it" has -- '--stress'
DB=$tmp/stress.db
check "stress campaign" run 0 fuzz --cases 24 --stress 1 --size-mix 0 \
  --ops scatter_reduce,index_reduce --variants cpu.serial,cpu.atomic \
  --no-corpus --db "$DB"
check "no failure (stress)" has ' 0 failure groups \(0 failing cases\)'
check "config has --stress 1" \
  sh -c "sqlite3 '$DB' 'select config from runs' | grep -q -- '--stress 1 '"
"$BIN" report --db "$DB" --format csv --table coverage >"$tmp/scells.csv" 2>&1
nstress=$(grep -c '|stress:contention|' "$tmp/scells.csv")
check "contention cells (got $nstress)" test "$nstress" -ge 10
check "resume with another --stress refused" \
  run 2 fuzz --resume 1 --stress 7 --db "$DB"
check "refusal names --stress" has -- '--stress 7 differs'

if [ $small = 1 ]; then
  # The parallel variants on every thread over small cases, many of them
  # past the (small) thresholds.
  check "small-thresholds campaign" run 0 fuzz --seconds 20 --jobs 2 \
    --variants cpu --no-corpus --no-db
  check "small-thresholds campaign found nothing" has ' 0 failure groups \(0 failing cases\), 0 corpus'
  echo "$checks checks, $fails failed"
  [ $fails = 0 ] || exit 1
else
  echo "$checks checks, $fails failed (the small-thresholds campaign runs in a -DSL_SMALL_THRESHOLDS=ON build)"
  [ $fails = 0 ] || exit 1
fi
