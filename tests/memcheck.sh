#!/usr/bin/env bash
# Runs a test binary under valgrind memcheck: any invalid access, use of
# uninitialised memory or definite leak fails it. Skipped (exit 77) where
# valgrind is not installed.
set -u
command -v valgrind >/dev/null || { echo "valgrind not installed: skipped"; exit 77; }
exec valgrind --quiet --error-exitcode=99 --leak-check=full \
  --errors-for-leak-kinds=definite --show-leak-kinds=definite \
  --track-origins=yes "$@"
