#!/usr/bin/env python3
"""No layer above the core tells ops apart by name outside its op table
(issue 31): an op's rules live in its rows (cases/case.c's specs,
fuzz/op_table.c, harness/engine/op_facts.c, references/slref.cpp and the defect
rows of references/slref_defects.def) and in the family hooks those rows
name; the code elsewhere asks the rows (a slot's role, a hook, a flag).
Exit 1 naming each comparison with an SL_OP_ constant, or `case SL_OP_`
label, found outside them. Tests are exempt. usage: op_names.py SRC
"""
import os
import re
import sys

LAYERS = ["cases", "fuzz", "references", "results", "reports", "harness"]
TABLES = {os.path.join("cases", "case.c"), os.path.join("fuzz", "op_table.c"),
          os.path.join("harness", "engine", "op_facts.c"),
          os.path.join("references", "slref.cpp"),
          os.path.join("references", "slref_defects.def")}
EXTS = (".c", ".h", ".cpp", ".hpp", ".def")
# SL_OP_COUNT is the list's length, not an op.
COMPARE = re.compile(
    r"(?:[=!]=\s*SL_OP_(?!COUNT\b)[A-Z_]+|SL_OP_(?!COUNT\b)[A-Z_]+\s*[=!]="
    r"|\bcase\s+SL_OP_[A-Z_]+)")


def main(src):
    bad, scanned = [], 0
    for top in LAYERS:
        for root, _, names in os.walk(os.path.join(src, top)):
            rel_root = os.path.relpath(root, src)
            if "tests" in rel_root.split(os.sep):
                continue
            for n in sorted(names):
                rel = os.path.join(rel_root, n)
                if not n.endswith(EXTS) or rel in TABLES:
                    continue
                scanned += 1
                text = open(os.path.join(src, rel), encoding="utf-8",
                            errors="replace").read()
                for m in COMPARE.finditer(text):
                    line = text.count("\n", 0, m.start()) + 1
                    bad.append(f"{rel}:{line}: {m.group(0)}")
    for b in bad:
        print("FAIL: op told apart by name outside the op tables:", b)
    print(f"{scanned} files scanned, {len(bad)} comparisons with an op name")
    return 1 if bad or scanned == 0 else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
