-- scatterlab results store, schema version 1.
--
-- This file is migration step 1: the build embeds it in the library
-- (results/CMakeLists.txt turns it into a C string) and sl_store_open() runs
-- it, inside one transaction, on a database whose PRAGMA user_version is 0.
-- A later schema change is a new step that ends by setting user_version to
-- its own number; this file never changes once released.
--
-- Conventions: every table is STRICT (a value of the wrong type is an error,
-- not a silent conversion); enumerations are CHECKed against their list;
-- timestamps are ISO-8601 UTC text ('2024-05-01T12:00:00.000Z'); NULL means
-- "not measured / not applicable", never zero.
--
-- Foreign keys are enforced (the store opens every connection with PRAGMA
-- foreign_keys=ON). Deleting a run deletes its cases, results, timings and
-- samples; deleting a case that a shrunk case came from only clears the
-- shrunk case's link.

-- One invocation of scatterlab that wrote to the store.
CREATE TABLE runs (
  id           INTEGER PRIMARY KEY,  -- run number, shown by `scatterlab report`
  kind         TEXT NOT NULL         -- which command made the run
               CHECK (kind IN ('run', 'fuzz', 'bench', 'demo', 'import')),
  started_at   TEXT NOT NULL,        -- ISO-8601 UTC, when the run began
  finished_at  TEXT,                 -- ISO-8601 UTC; NULL while running or if the process died
  status       TEXT NOT NULL DEFAULT 'running'  -- lifecycle of the run
               CHECK (status IN ('running', 'finished', 'interrupted', 'failed')),
  git_commit   TEXT NOT NULL DEFAULT '',  -- commit the binary was built from ('' unknown)
  host         TEXT NOT NULL DEFAULT '',  -- host name of the machine
  cpu_model    TEXT NOT NULL DEFAULT '',  -- CPU model string from /proc/cpuinfo
  cores        INTEGER,                   -- online CPU cores; NULL unknown
  compiler     TEXT NOT NULL DEFAULT '',  -- compiler id and version of the build
  flags        TEXT NOT NULL DEFAULT '',  -- build type and compile flags
  command_line TEXT NOT NULL DEFAULT '',  -- the command as typed, pasteable
  threads      INTEGER,                   -- CPU threads given to parallel variants; NULL unknown
  copy_gbs     REAL,                      -- measured copy bandwidth in GB/s (benchmarks); NULL not probed
  device       TEXT,                      -- GPU name; NULL when no GPU was used
  version      TEXT NOT NULL DEFAULT ''   -- scatterlab version string
) STRICT;

-- One operator call with concrete shapes, dtypes, parameters and data.
CREATE TABLE cases (
  id          INTEGER PRIMARY KEY,  -- case number, unique across runs
  run_id      INTEGER NOT NULL      -- the run that executed the case
              REFERENCES runs (id) ON DELETE CASCADE,
  op          TEXT NOT NULL,        -- operator name, e.g. 'scatter_reduce'
  case_line   TEXT NOT NULL,        -- the case descriptor; also the repro line
  seed        INTEGER NOT NULL,     -- data seed: the uint64 stored with the same 64 bits (may read negative)
  shrunk_from INTEGER               -- the failing case this minimal case was shrunk from; NULL if not shrunk
              REFERENCES cases (id) ON DELETE SET NULL
) STRICT;

-- The verdict of one variant on one case. The CHECK lists the names of
-- results/verdicts.def; results.test_verdicts fails until the two agree.
CREATE TABLE results (
  id       INTEGER PRIMARY KEY,  -- row number
  case_id  INTEGER NOT NULL      -- the case
           REFERENCES cases (id) ON DELETE CASCADE,
  variant  TEXT NOT NULL,        -- 'device.strategy', e.g. 'cpu.atomic'; 'torch.cpu' for the reference
  verdict  TEXT NOT NULL         -- outcome of the comparison with LibTorch
           CHECK (verdict IN ('passed', 'failed', 'both_rejected',
                              'reject_mismatch', 'crashed', 'timeout',
                              'unsupported', 'mistrusted')),
  diff1    REAL,                 -- sum|a-b| / sum|b| (SPEC 5); NULL when not compared
  diff2    REAL,                 -- sqrt(sum(a-b)^2 / sum b^2); NULL when not compared
  diff3    REAL,                 -- max|a-b|; NULL when not compared
  message  TEXT NOT NULL DEFAULT '',  -- one line: why, for anything but a pass
  seconds  REAL,                 -- wall time of the kernel call; NULL not measured
  UNIQUE (case_id, variant)
) STRICT;

-- A timing summary: one variant on one case at one thread count.
CREATE TABLE timings (
  id        INTEGER PRIMARY KEY,  -- row number; samples point here
  case_id   INTEGER NOT NULL      -- the case that was timed
            REFERENCES cases (id) ON DELETE CASCADE,
  variant   TEXT NOT NULL,        -- variant timed, or 'torch.cpu'
  threads   INTEGER NOT NULL,     -- CPU threads used
  reps      INTEGER NOT NULL CHECK (reps >= 0),  -- number of timed repetitions
  median_s  REAL NOT NULL,        -- median wall time of one call, seconds
  iqr_s     REAL NOT NULL,        -- interquartile range of the samples, seconds
  min_s     REAL NOT NULL,        -- fastest sample, seconds
  bytes     INTEGER NOT NULL,     -- useful bytes moved by one call (mlu-ops efficiency numerator)
  gbs       REAL,                 -- bytes / median_s / 1e9; NULL if it cannot be computed
  pct_peak  REAL,                 -- 100 * gbs / runs.copy_gbs; NULL without a bandwidth probe
  cold      INTEGER NOT NULL      -- 1: caches flushed before every call; 0: warm
            CHECK (cold IN (0, 1)),
  UNIQUE (case_id, variant, threads, cold)
) STRICT;

-- The raw samples behind a timing row, for statistics across runs.
CREATE TABLE samples (
  timing_id INTEGER NOT NULL      -- the timing row
            REFERENCES timings (id) ON DELETE CASCADE,
  rep       INTEGER NOT NULL,     -- repetition number, 0-based, in the order run
  seconds   REAL NOT NULL,        -- wall time of that repetition
  PRIMARY KEY (timing_id, rep)
) STRICT, WITHOUT ROWID;

-- Fuzzing coverage: how many cases of each generator cell a fuzz run tried.
-- Parallel fuzz jobs add to the same row, so the counts are sums.
CREATE TABLE coverage (
  run_id   INTEGER NOT NULL       -- the fuzz run
           REFERENCES runs (id) ON DELETE CASCADE,
  cell     TEXT NOT NULL,         -- generator cell, e.g. op/dtype/index pattern
  cases    INTEGER NOT NULL CHECK (cases >= 0),     -- cases generated in the cell
  failures INTEGER NOT NULL CHECK (failures >= 0),  -- of which at least one variant failed
  PRIMARY KEY (run_id, cell)
) STRICT, WITHOUT ROWID;

-- Indexes on the foreign keys. results(case_id), timings(case_id),
-- samples(timing_id) and coverage(run_id) need none of their own: the
-- UNIQUE or PRIMARY KEY index of each table starts with that column.
CREATE INDEX cases_run_id ON cases (run_id);
CREATE INDEX cases_shrunk_from ON cases (shrunk_from);

-- 'SLAB': marks the file as a scatterlab store (see sqlite.org/fileformat).
PRAGMA application_id = 1397506370;
PRAGMA user_version = 1;
