-- Synthetic benchmark data for the report tests (tests/e2e/reports.sh and
-- report_chromium.sh): cases, verdicts, timings and samples with known
-- values, added to a store whose runs 1-4 already exist (the tests make
-- them with `scatterlab run`, so the runs table is always the current
-- schema's).
--
-- Benchmark "gather ... x=4096x64": cpu.omp 1 ms in run 1, 1.1 ms in run 2
-- (10% slower, 1% noise), 1 ms with 2% noise in another order in run 3,
-- 3 samples only in run 4; torch.cpu 2 ms throughout. Run 4 also holds a
-- contention sweep: index_reduce amin, N = 4096, M = 1, 64, 4096 rows of
-- width C = 1, 8, for torch.cpu, cpu.atomic and cpu.sorted.
--
-- Samples: median * (1 + noise * (((rep * step) % 20) - 9.5) / 9.5), whose
-- median over 20 reps is exactly the timing's median.

INSERT INTO cases (run_id, op, case_line, seed)
SELECT id, 'gather', 'gather dt=f32 it=i64 x=4096x64 index=4096x64 dim=0 seed=1', 1
FROM runs WHERE id BETWEEN 1 AND 4;

INSERT INTO cases (run_id, op, case_line, seed)
WITH m(v) AS (VALUES (1), (64), (4096)), c(w) AS (VALUES (1), (8))
SELECT 4, 'index_reduce',
       printf('index_reduce dt=f32 it=i64 x=%dx%d index=4096 updates=4096x%d dim=0 reduce=amin self=0 seed=%d',
              m.v, c.w, c.w, c.w), c.w
FROM m, c;

-- A failing case whose message needs escaping everywhere.
INSERT INTO cases (run_id, op, case_line, seed)
VALUES (1, 'scatter', 'scatter dt=f32 it=i64 x=4x3 index=2x3 src=2x3 dim=0 seed=5', 5);
INSERT INTO results (case_id, variant, verdict, message, diff1, diff2, diff3)
SELECT id, 'cpu.omp', 'failed', '<b>"quoted", comma</b> & more', 0.5, 0.5, 2
FROM cases WHERE case_line LIKE 'scatter dt=f32 it=i64 x=4x3 %';

INSERT INTO results (case_id, variant, verdict, seconds)
SELECT c.id, v.variant, 'passed', 1e-3
FROM cases c, (SELECT 'cpu.omp' AS variant UNION ALL SELECT 'cpu.serial') v
WHERE c.op = 'gather' AND c.case_line LIKE '%x=4096x64%';
INSERT INTO results (case_id, variant, verdict, seconds)
SELECT c.id, v.variant, 'passed', 1e-3
FROM cases c, (SELECT 'cpu.atomic' AS variant UNION ALL SELECT 'cpu.sorted') v
WHERE c.op = 'index_reduce';

-- Timings: (run, variant, median, noise, reps, step) for the gather
-- benchmark; the contention sweep's medians follow from M and C.
CREATE TEMP TABLE spec (case_id INTEGER, variant TEXT, median REAL,
                        noise REAL, reps INTEGER, step INTEGER);
INSERT INTO spec
WITH s(run, variant, median, noise, reps, step) AS (VALUES
  (1, 'torch.cpu', 2e-3, 0.01, 20, 7), (1, 'cpu.omp', 1.0e-3, 0.01, 20, 7),
  (2, 'torch.cpu', 2e-3, 0.01, 20, 7), (2, 'cpu.omp', 1.1e-3, 0.01, 20, 7),
  (3, 'torch.cpu', 2e-3, 0.01, 20, 3), (3, 'cpu.omp', 1.0e-3, 0.02, 20, 3),
  (4, 'torch.cpu', 2e-3, 0.01, 3, 7),  (4, 'cpu.omp', 1.0e-3, 0.01, 3, 7))
SELECT c.id, s.variant, s.median, s.noise, s.reps, s.step
FROM s JOIN cases c ON c.run_id = s.run AND c.case_line LIKE 'gather dt=f32 it=i64 x=4096x64 %';
INSERT INTO spec
WITH v(variant, base) AS (VALUES ('torch.cpu', 50e-6), ('cpu.atomic', 0), ('cpu.sorted', 30e-6))
SELECT c.id, v.variant,
       (CASE WHEN c.seed = 8 THEN 4 ELSE 1 END) *
       (CASE WHEN v.variant <> 'cpu.atomic' THEN v.base
             WHEN c.case_line LIKE '%x=1x%' THEN 100e-6
             WHEN c.case_line LIKE '%x=64x%' THEN 12e-6
             ELSE 10e-6 END),
       0.01, 20, 7
FROM cases c, v WHERE c.op = 'index_reduce';

INSERT INTO timings (case_id, variant, threads, reps, median_s, iqr_s, min_s,
                     bytes, gbs, pct_peak, cold)
SELECT case_id, variant, 2, reps, median, median * noise, median * (1 - noise),
       100000, 100000 / median / 1e9, 100000 / median / 1e9 * 10, 0
FROM spec;

INSERT INTO samples (timing_id, rep, seconds)
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 19)
SELECT t.id, k.i, s.median * (1 + s.noise * (((k.i * s.step) % 20) - 9.5) / 9.5)
FROM spec s JOIN timings t ON t.case_id = s.case_id AND t.variant = s.variant
JOIN k ON k.i < s.reps;

-- Fuzz coverage cells in the fuzzer's form (fuzz/casegen.h); the failing
-- one has a field that needs escaping.
INSERT INTO coverage (run_id, cell, cases, failures)
VALUES (1, 'gather|f32|-|-|i64|c|rank2|rand|rand|valid', 10, 0),
       (1, 'scatter|f32|-|-|i64|t|rank2|<odd>|rand|valid', 4, 1);
