#!/usr/bin/env python3
"""The include arrows run one way (issue 31): every quoted #include of a
source file is resolved to the folder that holds it, and a file may include
only from its own folder or from a layer below its own. The layers, lowest
first:

  core         the kernels and their public header (knows nothing above)
  cases        case lines parsed and printed, a case's tensors from its seed
  fuzz         the campaign's case generator and the shrinker
  references   the LibTorch reference
  results      the SQLite store
  reports      CSV, HTML, compare and history, read from the store
  harness      the scatterlab command, itself in layers by role:
    harness/base       command-line helpers, files, hashing, timing
    harness/engine     one case through the reference and every variant
    harness/output     JSON, failure reports, verdicts into the store
    harness/bench      bench and ab     } side by side: neither
    harness/campaign   fuzz campaigns   } includes the other
    harness/commands   one file per command
    harness            main.c

fuzz and references share a rank and may not include each other, as do
harness/bench and harness/campaign. Tests
(any tests/ folder, the parsers' libFuzzer targets in tests/parsers too) sit above
everything. Exit 1 naming each include that points up or sideways; an
include that resolves to two folders is an error too. usage: layers.py SRC
"""
import os
import re
import sys

HARNESS = [["base"], ["engine"], ["output"], ["bench", "campaign"],
           ["commands"]]
LAYERS = [["core"], ["cases"], ["fuzz", "references"], ["results"],
          ["reports"]] + [[f"harness/{d}" for d in group]
                          for group in HARNESS] + [["harness"]]
RANK = {folder: r for r, group in enumerate(LAYERS) for folder in group}
EXTS = (".c", ".h", ".cpp", ".hpp", ".cu", ".cuh", ".def")
GENERATED = {"sl_git_commit.h", "sl_ab_build.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(rel):
    """The layer folder of a path relative to SRC, or None (exempt)."""
    parts = rel.split(os.sep)
    if "tests" in parts:
        return None
    if len(parts) > 2 and os.path.join(*parts[:2]) in RANK:
        return os.path.join(*parts[:2])
    return parts[0] if parts[0] in RANK else None


def main(src):
    files = []
    for top in (r for r in RANK if os.sep not in r):
        for root, _, names in os.walk(os.path.join(src, top)):
            files += [os.path.relpath(os.path.join(root, n), src)
                      for n in names if n.endswith(EXTS)]
    by_tail = {}
    for f in files:
        parts = f.split(os.sep)
        for k in range(1, len(parts) + 1):
            by_tail.setdefault(os.path.join(*parts[-k:]), set()).add(f)
    bad, checked = [], 0
    for f in sorted(files):
        mine = layer_of(f)
        if mine is None:
            continue
        text = open(os.path.join(src, f), encoding="utf-8",
                    errors="replace").read()
        for inc in INCLUDE.findall(text):
            if os.path.basename(inc) in GENERATED:
                continue
            here = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            found = {here} if here in files else by_tail.get(inc, set())
            folders = {layer_of(g) or g.split(os.sep)[0] for g in found}
            checked += 1
            if not found:
                bad.append(f"{f}: #include \"{inc}\" found in no layer folder")
            elif len(folders) > 1:
                bad.append(f"{f}: #include \"{inc}\" is ambiguous: "
                           + ", ".join(sorted(found)))
            else:
                theirs = folders.pop()
                if theirs == mine:
                    continue
                if theirs not in RANK or RANK[theirs] >= RANK[mine]:
                    how = "up" if RANK.get(theirs, 99) > RANK[mine] else \
                        "sideways"
                    bad.append(f"{f} ({mine}) includes \"{inc}\" of "
                               f"{theirs}: an arrow {how}")
    for line in bad:
        print("FAIL:", line)
    print(f"{len(files)} files, {checked} includes checked, "
          f"{len(bad)} pointing up or sideways")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: layers.py SRC (the source tree)")
    sys.exit(main(sys.argv[1]))
