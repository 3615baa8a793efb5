#!/usr/bin/env bash
# Runs one libFuzzer target for a while, starting from its seed corpus (a
# copy: the seeds stay as committed). A crash fails the test and prints the
# input, base64-encoded, with the command that reproduces it.
set -u
BIN=$1 SEEDS=$2 SECONDS_=${3:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/corpus"
cp "$SEEDS"/* "$tmp/corpus/" 2>/dev/null
cd "$tmp"
"$BIN" -max_total_time="$SECONDS_" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 "$tmp/corpus" >"$tmp/log" 2>&1
rc=$?
tail -n 15 "$tmp/log"
if [ $rc -ne 0 ]; then
  for f in "$tmp"/crash-* "$tmp"/leak-* "$tmp"/timeout-* "$tmp"/oom-*; do
    [ -e "$f" ] || continue
    echo "input $(basename "$f") (base64): $(base64 -w0 "$f")"
    echo "reproduce: echo '$(base64 -w0 "$f")' | base64 -d > x && $BIN x"
  done
  exit 1
fi
echo "$(basename "$BIN"): no crash in ${SECONDS_} s, corpus $(ls "$tmp/corpus" | wc -l) inputs"
