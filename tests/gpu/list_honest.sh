#!/usr/bin/env bash
# `scatterlab list` tells the truth about the cuda.* rows: "built without
# CUDA" in a build without it, "no device" in a build with CUDA on a machine
# without a GPU, "yes" where one is. Runs everywhere.
#
# usage: list_honest.sh SCATTERLAB
set -u
bin=$1
out=$("$bin" list) || { echo "list_honest.sh: scatterlab list failed"; exit 1; }
summary=$(printf '%s\n' "$out" | grep '^CUDA:')
case "$summary" in
  *"built without CUDA"*) want="built without CUDA" ;;
  *"devices: 0"*) want="no device" ;;
  *) want="yes" ;;
esac
rows=$(printf '%s\n' "$out" | grep -E ' cuda\.[a-z]+ ')
if [ "$want" = "built without CUDA" ]; then
  # The kernels library of such a build has no cuda rows to offer.
  if [ -n "$rows" ]; then
    echo "list_honest.sh: a build without CUDA lists cuda.* variants:"
    printf '%s\n' "$rows"
    exit 1
  fi
  echo "list_honest.sh: built without CUDA and no cuda.* rows listed"
  exit 0
fi
if [ -z "$rows" ]; then
  echo "list_honest.sh: no cuda.* rows in scatterlab list"
  exit 1
fi
bad=$(printf '%s\n' "$rows" | grep -v -- "$want\$" || true)
if [ -n "$bad" ]; then
  echo "list_honest.sh: expected every cuda.* row to say \"$want\" ($summary), got:"
  printf '%s\n' "$bad"
  exit 1
fi
cpu_bad=$(printf '%s\n' "$out" | grep -E ' cpu\.[a-z]+ ' | grep -v ' yes$' || true)
if [ -n "$cpu_bad" ]; then
  echo "list_honest.sh: cpu.* rows that are not available:"
  printf '%s\n' "$cpu_bad"
  exit 1
fi
echo "list_honest.sh: $(printf '%s\n' "$rows" | wc -l) cuda.* rows say \"$want\" ($summary)"
