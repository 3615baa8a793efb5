#!/usr/bin/env python3
"""The kernels allocate their scratch memory through the core's counted
allocator (core/src/alloc.c: sl__malloc, sl__calloc, sl__free), so that a
campaign's allocation faults reach every allocation and its leak check
sees every free (harness/engine/alloc_faults.h). Exit 1 naming each direct call
of malloc, calloc, realloc or free in core/src outside alloc.c (the CUDA
sources are exempt: their host memory is not the kernels' scratch).
usage: core_alloc.py SRC
"""
import os
import re
import sys

CALL = re.compile(r"(?<![\w.>])(malloc|calloc|realloc|free|aligned_alloc|"
                  r"posix_memalign)\s*\(")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def main(src):
    top = os.path.join(src, "core", "src")
    bad, scanned = [], 0
    for root, _, names in os.walk(top):
        if os.path.basename(root) == "cuda":
            continue
        for name in sorted(names):
            if not name.endswith((".c", ".h")) or name == "alloc.c":
                continue
            path = os.path.join(root, name)
            scanned += 1
            text = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()),
                               open(path, encoding="utf-8").read())
            for n, line in enumerate(text.split("\n"), 1):
                for m in CALL.finditer(line):
                    bad.append(f"{os.path.relpath(path, src)}:{n}: "
                               f"{m.group(1)}() (expected sl__{m.group(1)}"
                               f"(), core/src/alloc.c)")
    for b in bad:
        print(b)
    print(f"core_alloc: {scanned} files, {len(bad)} direct allocation calls")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: core_alloc.py SRC")
    sys.exit(main(sys.argv[1]))
