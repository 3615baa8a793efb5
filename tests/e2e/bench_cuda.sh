#!/usr/bin/env bash
# `scatterlab bench` is the one bench of both sides (issue 30, point 4):
# --help documents the cuda selection, --cold and --no-torch; a CPU
# selection prints what it printed before the cuda.* variants joined it
# (the form of every line, numbers aside); and where there is no CUDA
# device, cuda.* variants asked for by --variants are reported "not timed:
# ... no device", nothing else is timed for a cuda-only selection, and the
# exit status is 1. Timing on a device: tests/gpu/bench.sh (gpu.bench).
#
# usage: bench_cuda.sh SCATTERLAB [SOURCE_DIR]
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"

# --- --help ---------------------------------------------------------------
check "bench --help" run 0 bench --help
check "help: --cold" has '^  --cold '
check "help: --no-torch" has '^  --no-torch '
check "help: the cuda selection" has '--variants cuda'
check "help: the exit status without a device" has 'no device'

# --- a CPU selection: the form of before ---------------------------------
# Numbers become N and runs of spaces one space; the probes' optional
# lines (a moved probe, the round trip where threads share no cache line)
# go, and so do the marks of timings that scatter (the ~ and its count:
# a busy machine's, never asked for; --retime 0, so no timing again). The
# expected text is what the bench printed before the merge.
G='gather x=64x32 index=16x32 dim=0'
cat >"$tmp/want" <<'EOF'
threads N (OMP_PROC_BIND=B), copy bandwidth N GB/s (fastest N MiB memcpy, read+write)

gather dt=fN it=iN x=NxN index=NxN dim=N seed=N
 useful bytes N MB
 variant median IQR GB/s %peak vs torch reps
 torch.cpu N ms N% N N% Nx N
 cpu.serial N ms N% N N% Nx N

== summary (run order numbers the cases) ==

gather: speed-up over torch.cpu and % of copy bandwidth
 case torch.cpu cpu.serial best ceiling
 #N N ms Nx N% Nx serial Nx
 best CPU variant vs torch.cpu: geometric mean Nx over N case; slower than torch.cpu on N
 ceiling (useful bytes at the copy bandwidth vs torch.cpu): geometric mean Nx over N case
 #N gather dt=fN it=iN x=NxN index=NxN dim=N seed=N

copy bandwidth at the end: N GB/s (N at the start)
EOF
check "bench cpu.serial" run 0 bench --variants cpu.serial --no-db --threads 2 \
  --budget 0.05 --min-reps 3 --retime 0 "$G"
# The hardware counters: one line, and two more columns where the machine
# has them (instr/call, IPC; none on a VM without a PMU).
check "cpu header, column for column" \
  has '^  variant              median     IQR      GB/s    %peak  vs torch  reps(   instr/call    IPC)?$'
check "the counters line" has '^counters: (instructions|per call|none: .+)'
sed -E '/^core-to-core round trip/d; /moved/d; /small-thresholds test build/d;
        /^counters: /d; s/ +instr\/call +IPC$//;
        /^  ~ [0-9]+ speed-ups? read on timings that scatter/d; s/x~/x /;
        s/^(  (torch\.cpu|cpu\.serial) .*) +[0-9.e+]+ +([0-9.]+|nan)$/\1/;
        s/OMP_PROC_BIND=[^)]*/OMP_PROC_BIND=B/;
        s/[0-9][0-9.]*/N/g; s/ +/ /g' "$tmp/out" >"$tmp/got"
check "cpu output in the form of before" diff -u "$tmp/want" "$tmp/got"
check "no device line for a CPU selection" hasnt '^device |torch\.cuda|cuda\.'

# --- cuda.* asked for, no device -------------------------------------------
summary=$("$BIN" list 2>/dev/null | grep '^CUDA:')
case "$summary" in
  *"built without CUDA"* | *"devices: 0"*) device=0 ;;
  *) device=1 ;;
esac
S='scatter_reduce x=64x8 index=256x8 src=256x8 dim=0 reduce=sum'
if [ "$device" = 1 ]; then
  echo "bench_cuda.sh: a CUDA device is here ($summary): the no-device checks" \
    "are skipped (gpu.bench times the cuda.* variants)"
else
  check "cuda.atomic without a device: exit 1" run 1 bench --variants cuda.atomic \
    --no-db --budget 0.05 --min-reps 3 "$S"
  check "says not timed, no device" has 'not timed: .*no device'
  check "cuda-only: no torch.cpu, no CPU probe" hasnt '^  torch\.cpu |^threads '
  check "cuda-only: no torch.cuda row" hasnt 'torch\.cuda'
  case "$summary" in
    *"built without CUDA"*)
      check "names the build" has '^cuda\.\* variants: not timed: no device \(built without CUDA\)$'
      ;;
    *)
      check "the variant's own row" has '^  cuda\.atomic  not timed: unsupported: no device$'
      ;;
  esac
  check "cpu,cuda without a device: exit 1" run 1 bench --variants cpu.serial,cuda \
    --db "$tmp/mixed.db" --budget 0.05 --min-reps 3 "$S"
  check "mixed: CPU side timed" has '^  torch\.cpu .* 1\.00x '
  check "mixed: cpu.serial timed" has '^  cpu\.serial .*[0-9]x '
  check "mixed: the cuda side not" has 'not timed: .*no device'
  check "mixed: the run is recorded as failed" run 0 report --db "$tmp/mixed.db" \
    --format csv --table runs
  check "mixed: status failed, no device" has ',bench,.*,failed,'
  # The default selection asks for nothing it cannot have: as before.
  check "default selection without a device: exit 0" run 0 bench --no-db \
    --variants 'cpu.serial' --budget 0.05 --min-reps 3 "$S"
  if [ "${summary#*built without CUDA}" = "$summary" ]; then
    check "default selection, CUDA build: exit 0" run 0 bench --no-db \
      --budget 0.02 --min-reps 3 "$S"
    check "default selection: cuda rows untimed as before" \
      has '^  cuda\.atomic  not timed: unsupported: no device$'
    check "default selection: no failure line" hasnt '^cuda\.\* variants: not timed'
  fi
fi

echo "bench_cuda.sh: $checks checks, $fails failed"
[ "$fails" = 0 ]
