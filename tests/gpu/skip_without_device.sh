# Sourced by the GPU test scripts after `set -u`, with BIN (the CLI) and
# NAME set: exits 77 (CTest: skipped) when the CLI sees no CUDA device.
devices=$("$BIN" list 2>/dev/null | sed -n 's/.*devices: \([0-9]*\).*/\1/p')
if [ "${devices:-0}" = 0 ]; then
  echo "$NAME: no CUDA device: skipped"
  exit 77
fi
