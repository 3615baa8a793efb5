#!/usr/bin/env bash
# scatterlab on the GPU machine, in one call of the device tool's `run`:
# build for sm_90, the `gpu` tests (compute-sanitizer included), a GPU fuzz
# campaign, and the GPU bench suites with PyTorch's CUDA op timed beside
# every case (torch.cuda, same inputs, same CUDA events). Logs, tables and
# the SQLite stores land under $OUT.
#
# The GPU machine has no package registry. LibTorch comes from the PyTorch
# installed there (CUDA-enabled: `python3 -c 'import torch;
# print(torch.utils.cmake_prefix_path)'`); SQLite and libcsv travel as
# Debian packages, fetched once on this (Debian) machine into a folder that
# git ignores and the call carries:
#
#   echo /.debs/ >> .git/info/exclude
#   mkdir -p .debs && (cd .debs && apt-get download libsqlite3-dev \
#       libsqlite3-0 libcsv-dev libcsv3)
#
# then, through the device tool (10 minutes per call at most, so two calls
# back to back; the second finds the build while the machine is warm and
# rebuilds it otherwise):
#
#   run(command="bash scripts/gpu-run.sh build test", carry=[".debs"])
#   run(command="bash scripts/gpu-run.sh sanitize fuzz", carry=[".debs"])
#   run(command="bash scripts/gpu-run.sh bench", carry=[".debs"])
#
# Steps (arguments; default: all of them, which takes longer than one call
# may): prebuilt build test sanitize fuzz bench, and sanitize_ops (see it). Steps joined by '+'
# (sanitize+fuzz) run at the same time (correctness checks only: never
# join a timing step).
#
# prebuilt: device time is short and the CUDA build takes minutes, so the
# build can be made here instead, exactly as check-gpu-shim.sh makes it
# (same wheel, sm_90), and carried: `scripts/gpu-prebuild.sh` fills
# .prebuilt/ (git-ignored) with the executables, libraries and CTest files,
# and the paths compiled into them (the source tree, the build tree,
# LibTorch's folder in the RUNPATH) are made to hold on the GPU machine by
# symbolic links. Should the carried build not start there, the step falls
# back to `build`.
#
#   run(command="SL_DEADLINE=560 bash scripts/gpu-run.sh prebuilt test \\
#       sanitize+fuzz bench", carry=[".debs", ".prebuilt"])
# Environment: OUT (default ./gpu-out), SL_DEBS (.debs), SL_BUILD
# (build-gpu, inside the repository so that it survives between calls on a
# warm machine), SL_FUZZ_SECONDS (240), SL_FUZZ_JOBS (4), SL_BUDGET (0.3
# seconds of timing per variant and case), SL_MIN_REPS (3), SL_FUZZ_OPS
# (every op), SL_SANITIZE_OPS (the segment ops), SL_SUITES (seed
# contention standard large), SL_BENCH_MATCH_<suite> or SL_BENCH_MATCH (a
# regex: only the suite's lines it matches), SL_BENCH_ARGS (more options of
# bench, e.g. --timeout 30), SL_DEADLINE (seconds from the start by which every step
# must have ended, so that the results are packed before the device tool's
# limit; each step's commands are cut with SIGINT, then SIGKILL, at it),
# SL_LIMITS ("step=SECONDS ...": a limit per step, within the deadline).
#
# What comes back (the tool returns at most 8 files of 16 MiB): summary.txt
# (the tables; also printed last), logs.tar.gz (every step's log, new fuzz
# corpus entries), fuzz.db.gz and bench.db.gz (the stores;
# gunzip, then `scatterlab report --db ...`).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
OUT=${OUT:-$ROOT/gpu-out}
DEBS=${SL_DEBS:-$ROOT/.debs}
BUILD=${SL_BUILD:-$ROOT/build-gpu}
FUZZ_SECONDS=${SL_FUZZ_SECONDS:-240}
FUZZ_JOBS=${SL_FUZZ_JOBS:-4}
BUDGET=${SL_BUDGET:-0.3}
MIN_REPS=${SL_MIN_REPS:-3}
SUITES=${SL_SUITES:-seed contention standard large}
LOGS=$OUT/logs
mkdir -p "$OUT" "$LOGS"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build test sanitize fuzz bench)
export PATH=/usr/local/cuda/bin:$PATH
export PYTHONUNBUFFERED=1
status=0

log() { printf '%s\n' "$*" | tee -a "$OUT/summary.txt"; }

# The seconds a command of step $1 may still run: the step's limit in
# SL_LIMITS, within SL_DEADLINE less 25 s for packing; 0 when out of time.
T0=$SECONDS
STEP_START=$SECONDS
CORE_TESTS='list_honest|core\.'
secs_left() {
  local lim=100000 kv
  for kv in ${SL_LIMITS:-}; do
    [ "${kv%%=*}" = "$1" ] && lim=$((${kv#*=} - (SECONDS - STEP_START)))
  done
  if [ -n "${SL_DEADLINE:-}" ]; then
    local d=$((SL_DEADLINE - 25 - (SECONDS - T0)))
    [ $d -lt $lim ] && lim=$d
  fi
  [ $lim -lt 0 ] && lim=0
  echo $lim
}
# limited STEP CMD...: CMD under the time left to STEP.
limited() {
  local step=$1 left
  shift
  left=$(secs_left "$step")
  if [ "$left" -le 5 ]; then
    log "gpu-run: $step: out of time, not run: $*"
    return 124
  fi
  timeout -k 15 -s INT "$left" "$@"
}

# ---------------------------------------------------------------------------
# Dependencies and build (also done implicitly when a later step finds no
# build, e.g. on a machine that went cold between two calls).
# ---------------------------------------------------------------------------
DEPS=/tmp/sl-deps
LIBDIR=$DEPS/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

unpack_debs() {
  [ -f "$LIBDIR/libsqlite3.so" ] && [ -f "$LIBDIR/libcsv.so" ] && return 0
  if ! ls "$DEBS"/*.deb >/dev/null 2>&1; then
    log "gpu-run: no .deb files in $DEBS (see the top of this script)"
    return 1
  fi
  mkdir -p "$DEPS"
  for f in "$DEBS"/*.deb; do dpkg -x "$f" "$DEPS" || return 1; done
}

do_build() {
  local blog=$LOGS/build.log
  {
    echo "== machine"; nvidia-smi || true; nvcc --version || true
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' || true
  } >"$blog" 2>&1
  unpack_debs >>"$blog" 2>&1 || return 1
  local torch_prefix
  torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)') || {
    log "gpu-run: python3 cannot import torch"; return 1; }
  local t0=$SECONDS
  # SL_WERROR=OFF: this machine's compilers may warn where CI's do not; CI
  # keeps the code warning-free.
  if [ ! -f "$BUILD/build.ninja" ]; then
    cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=OFF \
      -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" \
      -DSL_REFERENCE=torch-config \
      -DCMAKE_PREFIX_PATH="$torch_prefix;$DEPS/usr" \
      -DSQLite3_INCLUDE_DIR="$DEPS/usr/include" \
      -DSQLite3_LIBRARY="$LIBDIR/libsqlite3.so" \
      -DCSV_INCLUDE_DIR="$DEPS/usr/include" \
      -DCSV_LIBRARY="$LIBDIR/libcsv.so" >>"$blog" 2>&1 || {
      log "gpu-run: cmake failed (logs/build.log)"; tail -30 "$blog"; return 1; }
  fi
  # The core and its device test first: they need neither LibTorch nor
  # SQLite, so a failure further on still leaves them to run.
  ninja -C "$BUILD" -j "$(nproc)" test_gpu_device >>"$blog" 2>&1 || {
    log "gpu-run: building the core failed (logs/build.log)"; tail -30 "$blog"; return 1; }
  if ! ninja -C "$BUILD" -j "$(nproc)" >>"$blog" 2>&1; then
    log "gpu-run: the full build failed (logs/build.log); the core built"
    grep -m 20 -E 'error|FAILED' "$blog" | tee -a "$OUT/summary.txt"
    return 2
  fi
  log "gpu-run: built in $((SECONDS - t0)) s ($BUILD)"
}

# The build carried from the development machine (scripts/gpu-prebuild.sh).
use_prebuilt() {
  local pre=${SL_PREBUILT:-$ROOT/.prebuilt} plog=$LOGS/build.log
  {
    echo "== machine"; nvidia-smi || true; nvcc --version || true
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' || true
  } >"$plog" 2>&1
  if [ ! -f "$pre/build.tar.xz" ] || [ ! -f "$pre/PATHS" ]; then
    log "gpu-run: prebuilt: nothing carried in $pre"
    return 1
  fi
  unpack_debs >>"$plog" 2>&1 || return 1
  local src bdir full site rel
  src=$(sed -n 's/^source=//p' "$pre/PATHS")
  bdir=$(sed -n 's/^build=//p' "$pre/PATHS")
  full=$(sed -n 's/^torch=//p' "$pre/PATHS")
  rel=${bdir#"$src"/}
  if [ "$src" != "$ROOT" ]; then
    if [ -e "$src" ] && [ ! -L "$src" ]; then
      log "gpu-run: prebuilt: $src exists here and is not ours to replace"
      return 1
    fi
    mkdir -p "$(dirname "$src")" && ln -sfn "$ROOT" "$src" || return 1
  fi
  rm -rf "${ROOT:?}/$rel" && mkdir -p "$ROOT/$rel" &&
    tar -xJf "$pre/build.tar.xz" -C "$ROOT/$rel" || return 1
  site=$(python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))') || {
    log "gpu-run: prebuilt: python3 cannot import torch"; return 1; }
  if [ "$full" != "$site" ]; then
    mkdir -p "$(dirname "$full")" && ln -sfn "$site" "$full" || return 1
  fi
  export LD_LIBRARY_PATH=$site/torch/lib:$LD_LIBRARY_PATH
  BUILD=$ROOT/$rel
  if ! "$BUILD/scatterlab" --version >>"$plog" 2>&1 ||
     ! "$BUILD/scatterlab" list >>"$plog" 2>&1; then
    log "gpu-run: prebuilt: the carried scatterlab does not start here (logs/build.log)"
    tail -20 "$plog"
    return 1
  fi
  # The carried build holds no CPU-only unit test (see gpu-prebuild.sh).
  CORE_TESTS='list_honest|core\.test_cuda_iter'
  log "gpu-run: prebuilt: using the carried build ($(head -1 "$pre/PATHS"))"
  "$BUILD/scatterlab" --version | head -3 | tee -a "$OUT/summary.txt"
}

step_prebuilt() {
  use_prebuilt && return
  log "gpu-run: prebuilt: falling back to a build here"
  BUILD=${SL_BUILD:-$ROOT/build-gpu}
  do_build || status=1
}

ensure_build() {
  [ -x "$BUILD/scatterlab" ] && return 0
  do_build
}

# ---------------------------------------------------------------------------
# Steps
# ---------------------------------------------------------------------------
step_build() { do_build || status=1; }

step_test() {
  if ! [ -x "$BUILD/tests/gpu/test_gpu_device" ]; then
    do_build
    local rc=$?
    [ $rc -eq 1 ] && { status=1; return; }
  fi
  local tlog=$LOGS/test.log
  log "== gpu tests"
  (cd "$BUILD" && limited test ctest -L gpu -E sanitizer --output-on-failure) >"$tlog" 2>&1 || status=1
  (cd "$BUILD" && limited test ctest -R "$CORE_TESTS" --output-on-failure -j 8) >>"$tlog" 2>&1 || status=1
  grep -E 'tests passed|Passed|Failed|\*\*\*|Skipped|Not Run|CHECK failed|repro:' "$tlog" \
    | head -60 | tee -a "$OUT/summary.txt"
}

step_sanitize() {
  ensure_build || { status=1; return; }
  local slog=$LOGS/sanitize.log
  log "== compute-sanitizer memcheck + racecheck + synccheck"
  (cd "$BUILD" && limited sanitize ctest -R gpu.sanitizer --output-on-failure --timeout 3000) >"$slog" 2>&1 || status=1
  grep -E 'tests passed|Passed|Failed|Skipped|ERROR SUMMARY|found errors|^== |Invalid|Race|Barrier' "$slog" \
    | head -40 | tee -a "$OUT/summary.txt"
}

OPS=${SL_FUZZ_OPS:-gather,gather_nd,scatter,scatter_reduce,scatter_reduce_backward,scatter_nd,index_reduce,index_reduce_backward,select_scatter,masked_scatter,dynamic_scatter,dynamic_scatter_backward,segment_reduce,segment_reduce_backward}

# compute-sanitizer's three tools over every case of the ops batch whose op
# matches SL_SANITIZE_OPS (an extended regex), not only every 8th as
# gpu.sanitizer takes them: the ops new on the device get a full pass.
step_sanitize_ops() {
  ensure_build || { status=1; return; }
  local slog=$LOGS/sanitize-ops.log batch=/tmp/sl-sanitize-ops.txt
  grep -E "^(${SL_SANITIZE_OPS:-segment_reduce|segment_reduce_backward}) " \
    "$ROOT/harness/batches/ops.txt" >"$batch"
  log "== compute-sanitizer, every case of $(wc -l <"$batch") in ops.txt (${SL_SANITIZE_OPS:-segment_reduce|segment_reduce_backward})"
  local san=/usr/local/cuda/bin/compute-sanitizer tool
  command -v compute-sanitizer >/dev/null && san=$(command -v compute-sanitizer)
  : >"$slog"
  for tool in memcheck racecheck synccheck; do
    echo "== $tool" >>"$slog"
    limited sanitize_ops "$san" --tool "$tool" --error-exitcode 99 \
      --target-processes all "$BUILD/tests/gpu/test_gpu_variants" "$batch" \
      >>"$slog" 2>&1 || { status=1; echo "sanitize_ops: $tool failed" >>"$slog"; }
  done
  grep -E '^== |ERROR SUMMARY|sanitize_ops:|cases|FAIL' "$slog" | head -30 |
    tee -a "$OUT/summary.txt"
}

step_fuzz() {
  ensure_build || { status=1; return; }
  local flog=$LOGS/fuzz.log
  log "== fuzz: cuda.* and cpu.serial against LibTorch, $FUZZ_SECONDS s, $FUZZ_JOBS jobs"
  ls "$ROOT/fuzz/corpus" >"$LOGS/corpus-before.txt" 2>/dev/null || true
  limited fuzz "$BUILD/scatterlab" fuzz --ops "$OPS" --variants cpu.serial,cuda \
    --seconds "$FUZZ_SECONDS" --jobs "$FUZZ_JOBS" --max-elems 65536 \
    --db "$OUT/fuzz.db" >"$flog" 2>&1 || status=1
  tail -25 "$flog" | tee -a "$OUT/summary.txt"
  # Failures the shrinker added to the corpus travel back in the logs (the
  # tree here may have no .git: compare with the listing taken before).
  ls "$ROOT/fuzz/corpus" >"$LOGS/corpus-after.txt" 2>/dev/null || true
  # At most 200 entries (and their bundles) come back: a failure that
  # repeats everywhere must not fill the 16 MiB that the tool returns.
  mkdir -p "$LOGS/new-corpus"
  comm -13 "$LOGS/corpus-before.txt" "$LOGS/corpus-after.txt" >"$LOGS/new-corpus.txt"
  head -400 "$LOGS/new-corpus.txt" | while IFS= read -r f; do
    cp -rp "$ROOT/fuzz/corpus/$f" "$LOGS/new-corpus/"
  done
  log "fuzz: $(grep -c '\.txt$' "$LOGS/new-corpus.txt") new corpus entries (logs/new-corpus.txt; the first 200 in logs/new-corpus)"
}

step_bench() {
  ensure_build || { status=1; return; }
  local blog=$LOGS/bench.log
  : >"$blog"
  for suite in $SUITES; do
    local file=$ROOT/harness/batches/bench-$suite.txt sel=/tmp/sl-bench-$suite.txt
    # SL_BENCH_MATCH_<suite> (an extended regex; else SL_BENCH_MATCH) keeps
    # the suite's lines it matches: the contention suite's 90 cases of up
    # to 4 GiB do not fit one call.
    local var=SL_BENCH_MATCH_$suite
    grep -v '^[[:space:]]*#' "$file" | grep . |
      grep -E "${!var:-${SL_BENCH_MATCH:-.}}" >"$sel" || true
    log "== bench: $suite, $(wc -l <"$sel") cases (cuda.* and torch.cuda, CUDA events, budget $BUDGET s, min reps $MIN_REPS)"
    # shellcheck disable=SC2086
    limited bench "$BUILD/scatterlab" bench --variants cuda --suite "$sel" \
      --budget "$BUDGET" --min-reps "$MIN_REPS" --db "$OUT/bench.db" \
      ${SL_BENCH_ARGS:-} >>"$blog" 2>&1 || status=1
  done
  # The tables: case lines, then one row per variant.
  grep -E '^(device|copy bandwidth)|^[a-z_]+: |^  (case|#[0-9])' "$blog" \
    | tee -a "$OUT/summary.txt"
}

: >"$OUT/summary.txt"
log "gpu-run: steps: ${steps[*]}"
run_step() {
  case $1 in
    prebuilt|build|test|sanitize|sanitize_ops|fuzz|bench) "step_$1" ;;
    *) log "gpu-run: unknown step $1 (expected prebuilt build test sanitize sanitize_ops fuzz bench)"; status=2 ;;
  esac
}
for s in "${steps[@]}"; do
  STEP_START=$SECONDS
  log "gpu-run: [$((SECONDS - T0)) s] $s"
  if [[ $s == *+* ]]; then
    # Side by side; each part's status comes back through a file.
    IFS=+ read -ra parts <<<"$s"
    for p in "${parts[@]}"; do
      ( status=0; run_step "$p"; echo $status >"$OUT/.status-$p" ) &
    done
    wait
    for p in "${parts[@]}"; do
      [ "$(cat "$OUT/.status-$p" 2>/dev/null)" = 0 ] || status=1
      rm -f "$OUT/.status-$p"
    done
  else
    run_step "$s"
  fi
done
log "gpu-run: [$((SECONDS - T0)) s] steps done"


# Pack what comes back: few files, each under 16 MiB.
for db in fuzz bench; do
  if [ -f "$OUT/$db.db" ]; then
    # The store closes cleanly (no WAL left); should a WAL remain, fold it in.
    if [ -f "$OUT/$db.db-wal" ] && python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()' \
        "$OUT/$db.db"; then
      rm -f "$OUT/$db.db-wal" "$OUT/$db.db-shm"
    fi
    gzip -f "$OUT/$db.db"
    if [ "$(stat -c %s "$OUT/$db.db.gz")" -gt $((16 << 20)) ]; then
      log "gpu-run: $db.db.gz is over the 16 MiB that comes back: kept on the machine only"
      mv "$OUT/$db.db.gz" /tmp/
    fi
  fi
done
tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs 2>/dev/null && rm -rf "$LOGS"
log "gpu-run: done (status $status); files in $OUT: $(ls "$OUT" | tr '\n' ' ')"
exit $status
