#!/usr/bin/env bash
# scatterlab on the GPU machine, in one call of the device tool's `run`:
# build for sm_90, the `gpu` tests (compute-sanitizer included), a GPU fuzz
# campaign, the GPU bench suites, and PyTorch's CUDA timings of the
# contention suite. Logs, tables and the SQLite stores land under $OUT.
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
#   run(command="bash scripts/gpu-run.sh bench torch", carry=[".debs"])
#
# Steps (arguments; default: all of them, which takes longer than one call
# may): build test sanitize fuzz bench torch.
# Environment: OUT (default ./gpu-out), SL_DEBS (.debs), SL_BUILD
# (build-gpu, inside the repository so that it survives between calls on a
# warm machine), SL_FUZZ_SECONDS (240), SL_FUZZ_JOBS (4), SL_BUDGET (0.3
# seconds of timing per variant and case), SL_SUITES (seed contention
# standard large).
#
# What comes back (the tool returns at most 8 files of 16 MiB): summary.txt
# (the tables; also printed last), logs.tar.gz (every step's log, the torch
# CSV, new fuzz corpus entries), fuzz.db.gz and bench.db.gz (the stores;
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
SUITES=${SL_SUITES:-seed contention standard large}
LOGS=$OUT/logs
mkdir -p "$OUT" "$LOGS"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build test sanitize fuzz bench torch)
export PATH=/usr/local/cuda/bin:$PATH
export PYTHONUNBUFFERED=1
status=0

log() { printf '%s\n' "$*" | tee -a "$OUT/summary.txt"; }

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

ensure_build() {
  [ -x "$BUILD/scatterlab" ] && [ -x "$BUILD/scatterlab-gpubench" ] && return 0
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
  (cd "$BUILD" && ctest -L gpu -E sanitizer --output-on-failure) >"$tlog" 2>&1 || status=1
  (cd "$BUILD" && ctest -R 'list_honest|core\.' --output-on-failure -j 8) >>"$tlog" 2>&1 || status=1
  grep -E 'tests passed|Passed|Failed|\*\*\*|Skipped|Not Run|CHECK failed|repro:' "$tlog" \
    | head -60 | tee -a "$OUT/summary.txt"
}

step_sanitize() {
  ensure_build || { status=1; return; }
  local slog=$LOGS/sanitize.log
  log "== compute-sanitizer memcheck + racecheck"
  (cd "$BUILD" && ctest -R gpu.sanitizer --output-on-failure --timeout 560) >"$slog" 2>&1 || status=1
  grep -E 'tests passed|Passed|Failed|Skipped|ERROR SUMMARY|found errors' "$slog" \
    | head -40 | tee -a "$OUT/summary.txt"
}

OPS=gather,gather_nd,scatter,scatter_reduce,scatter_nd,index_reduce,select_scatter,masked_scatter,dynamic_scatter,dynamic_scatter_backward

step_fuzz() {
  ensure_build || { status=1; return; }
  local flog=$LOGS/fuzz.log
  log "== fuzz: cuda.* and cpu.serial against LibTorch, $FUZZ_SECONDS s, $FUZZ_JOBS jobs"
  "$BUILD/scatterlab" fuzz --ops "$OPS" --variants cpu.serial,cuda \
    --seconds "$FUZZ_SECONDS" --jobs "$FUZZ_JOBS" --max-elems 65536 \
    --db "$OUT/fuzz.db" >"$flog" 2>&1 || status=1
  tail -25 "$flog" | tee -a "$OUT/summary.txt"
  # Failures the shrinker added to the corpus travel back in the logs.
  git -C "$ROOT" status --porcelain fuzz/corpus >"$LOGS/new-corpus.txt" 2>/dev/null || true
}

step_bench() {
  ensure_build || { status=1; return; }
  local blog=$LOGS/bench.log
  : >"$blog"
  for suite in $SUITES; do
    log "== bench: $suite (cuda.* with CUDA events, budget $BUDGET s)"
    "$BUILD/scatterlab-gpubench" --suite "$suite" --budget "$BUDGET" \
      --db "$OUT/bench.db" >>"$blog" 2>&1 || status=1
  done
  # The tables: case lines, then one row per variant.
  grep -E '^(device|copy bandwidth)|^[a-z_]+ dt=|^  (cuda|variant|torch)' "$blog" \
    | tee -a "$OUT/summary.txt"
}

step_torch() {
  ensure_build || { status=1; return; }
  local tlog=$LOGS/torch.log bundles=/tmp/sl-bundles
  rm -rf "$bundles" && mkdir -p "$bundles"
  log "== torch.cuda on the contention suite (same inputs: scatterlab run --save)"
  local k=0
  while IFS= read -r line; do
    line=${line%%#*}
    [ -z "${line// }" ] && continue
    k=$((k + 1))
    "$BUILD/scatterlab" run "$line" --variants cpu.serial --no-db \
      --save "$bundles/$(printf '%03d' $k)" >>"$tlog" 2>&1
  done <"$ROOT/harness/batches/bench-contention.txt"
  python3 "$ROOT/scripts/torch_cuda_bench.py" "$bundles" \
    --csv "$LOGS/torch-contention.csv" >>"$tlog" 2>&1 || status=1
  grep -E '^torch |^[a-z_]+ dt=|torch.cuda' "$tlog" | tee -a "$OUT/summary.txt"
  rm -rf "$bundles"
}

: >"$OUT/summary.txt"
log "gpu-run: steps: ${steps[*]}"
for s in "${steps[@]}"; do
  case $s in
    build|test|sanitize|fuzz|bench|torch) "step_$s" ;;
    *) log "gpu-run: unknown step $s (expected build test sanitize fuzz bench torch)"; status=2 ;;
  esac
done

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
