#!/usr/bin/env bash
# Report performance target (issue 6): the HTML and CSV reports of a store
# with 1,000,000 result rows, each in under 10 s.
#
#   tests/perf/report_1m.sh build/scatterlab [ROWS]
#
# Builds the store quickly with direct SQL in one transaction (ROWS results:
# ROWS/5 cases of 5 variants over 10 runs, 1% failures with shrunk cases,
# 2,000 timings of 30 samples over 10 runs, 500 coverage cells), then times
# every report on it. Prints one line per report: seconds and output size.
set -euo pipefail
BIN=${1:?usage: report_1m.sh SCATTERLAB [ROWS]}
ROWS=${2:-1000000}
command -v sqlite3 >/dev/null || { echo "needs sqlite3"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/big.db
# The runs come from scatterlab itself, so their rows fit the schema of
# this build whatever it is.
for i in $(seq 10); do
  "$BIN" run --db "$db" --no-isolate 'gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=1' >/dev/null
done
CASES=$((ROWS / 5))
t0=$(date +%s.%N)
sqlite3 -bail "$db" <<SQL
PRAGMA synchronous = OFF;
BEGIN;
DELETE FROM results;
DELETE FROM cases;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < $CASES - 1)
INSERT INTO cases (id, run_id, op, case_line, seed)
SELECT i + 1, 1 + i % 10,
       CASE i % 3 WHEN 0 THEN 'gather' WHEN 1 THEN 'scatter_reduce' ELSE 'index_reduce' END,
       CASE i % 3
         WHEN 0 THEN printf('gather dt=%s it=i64 x=%dx%d index=%dx%d dim=0 seed=%d',
                            CASE i % 4 WHEN 0 THEN 'f32' WHEN 1 THEN 'f64' WHEN 2 THEN 'i32' ELSE 'bf16' END,
                            8 + i % 97, 3 + i % 13, 4 + i % 31, 3 + i % 13, i)
         WHEN 1 THEN printf('scatter_reduce dt=%s it=i64 x=%dx%d index=%dx%d src=%dx%d dim=0 reduce=sum seed=%d',
                            CASE i % 4 WHEN 0 THEN 'f32' WHEN 1 THEN 'f64' WHEN 2 THEN 'i32' ELSE 'bf16' END,
                            8 + i % 97, 3 + i % 13, 4 + i % 31, 3 + i % 13, 4 + i % 31, 3 + i % 13, i)
         ELSE printf('index_reduce dt=f32 it=i64 x=%dx%d index=%d updates=%dx%d dim=0 reduce=amin self=0 ip=dup50 seed=%d',
                     8 + i % 97, 3 + i % 13, 4 + i % 31, 4 + i % 31, 3 + i % 13, i)
       END, i
FROM k;
-- Every hundredth case failed somewhere; half of those were shrunk.
INSERT INTO cases (run_id, op, case_line, seed, shrunk_from)
SELECT run_id, op, 'gather dt=f32 it=i64 x=1x1 index=1x1 dim=0 seed=' || id, id, id
FROM cases WHERE id % 200 = 0;
WITH v(variant, k) AS (VALUES ('cpu.serial', 0), ('cpu.omp', 1), ('cpu.atomic', 2),
                              ('cpu.lock', 3), ('cpu.sorted', 4))
INSERT INTO results (case_id, variant, verdict, diff1, diff2, diff3, message, seconds)
SELECT c.id, v.variant,
       CASE WHEN c.id % 100 = 0 AND v.k = 2 THEN 'failed' ELSE 'passed' END,
       CASE WHEN v.k = 0 THEN 0 ELSE 1e-7 * (c.id % 7) END, 1e-7, 0.5,
       CASE WHEN c.id % 100 = 0 AND v.k = 2 THEN 'out[3,1]=2.5, expected "2", at index ' || c.id ELSE '' END,
       1e-6 * (1 + c.id % 50)
FROM cases c, v WHERE c.shrunk_from IS NULL
LIMIT $ROWS;
INSERT INTO results (case_id, variant, verdict, message)
SELECT id, 'cpu.atomic', 'failed', 'minimal' FROM cases WHERE shrunk_from IS NOT NULL;
COMMIT;
SQL
# Timings: one case line per benchmark, repeated in each run.
sqlite3 -bail "$db" <<SQL
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE b(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM b WHERE i < 99),
     r(run) AS (SELECT 1 UNION ALL SELECT run + 1 FROM r WHERE run < 10)
INSERT INTO cases (run_id, op, case_line, seed)
SELECT r.run, 'index_reduce',
       printf('index_reduce dt=f32 it=i64 x=%dx%d index=65536 updates=65536x%d dim=0 reduce=amin self=0 seed=%d',
              1 << (2 * (b.i % 9)), 1 << (b.i / 9 % 3 * 3), 1 << (b.i / 9 % 3 * 3), b.i),
       b.i
FROM b, r;
WITH v(variant) AS (VALUES ('torch.cpu'), ('cpu.atomic'))
INSERT INTO timings (case_id, variant, threads, reps, median_s, iqr_s, min_s, bytes, gbs, cold)
SELECT c.id, v.variant, 2, 30,
       1e-4 * (1 + c.seed % 17) * (CASE WHEN c.seed % 10 = 0 AND c.run_id >= 6 AND v.variant = 'cpu.atomic' THEN 1.2 ELSE 1 END),
       1e-6, 9e-5, 1000000, 10, 0
FROM cases c, v WHERE c.case_line LIKE 'index_reduce dt=f32 it=i64 x=%index=65536 %';
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 29)
INSERT INTO samples (timing_id, rep, seconds)
SELECT t.id, k.i, t.median_s * (1 + 0.01 * (((k.i * 7) % 30) - 14.5) / 14.5)
FROM timings t, k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 499)
INSERT INTO coverage (run_id, cell, cases, failures)
SELECT 1 + i % 10, printf('op%d/dt%d/pattern%d', i % 12, i % 7, i), 100 + i, i % 3 FROM k;
COMMIT;
SQL
t1=$(date +%s.%N)
nres=$(sqlite3 "$db" 'SELECT count(*) FROM results')
ntim=$(sqlite3 "$db" 'SELECT count(*) FROM timings')
printf 'store: %s results, %s timings, %s MB, built in %.1f s\n' "$nres" "$ntim" \
  "$(($(stat -c %s "$db") / 1000000))" "$(awk "BEGIN{print $t1 - $t0}")"
measure() { # measure NAME ARGS...: wall and CPU seconds (the CPU time is
  # what to compare on a loaded machine), output size
  local name=$1; shift
  local t
  t=$( { TIMEFORMAT='%R %U %S'; time "$BIN" "$@" -o "$tmp/out" 2>/dev/null; } 2>&1 ) || true
  read -r wall user sys <<<"$t"
  printf '%-14s wall %6.2f s  cpu %6.2f s  %8d KB\n' "$name" "$wall" \
    "$(awk "BEGIN{print $user + $sys}")" "$(($(stat -c %s "$tmp/out") / 1000))"
}
measure "csv results" report --db "$db" --format csv
measure "csv timings" report --db "$db" --format csv --table timings
measure "html" report --db "$db" --format html
measure "history" history --db "$db"
measure "compare 5 6" compare --db "$db" 5 6
