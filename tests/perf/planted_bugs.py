#!/usr/bin/env python3
"""Planted bugs (issue 27): each bug below is planted in a copy of core/src,
one at a time; the copy is built (no CUDA) and the default fuzz campaign runs
on it for SECONDS (60) without the committed corpus (so what is measured is
the generator's reach, not a past failure's replay). A bug is found when the
campaign reports a failure group; its size is the number of input elements
of the smallest minimal case among its groups (the repro a developer gets).
A benchmark run by hand, never a test; its table goes to
docs/coverage-figures.md (the latest) and docs/notes/coverage-2026.md (dated).

usage: tests/perf/planted_bugs.py [--seconds N] [--only NAME,...]
                                  [--build DIR] [--jobs N] [--keep]
Each snippet must occur exactly once in its file: when the code moves, the
script stops and names the bug to update.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

# name, class, file (under core/src), text, replacement, what the bug does
BUGS = [
    ("amin_swapped", "operator swap", "reduce_ops.h",
     "return b != b ? b : (b < a ? b : a);",
     "return b != b ? b : (a < b ? b : a);",
     "float amin keeps the larger value"),
    ("prod_identity_int", "wrong identity", "reduce_ops.h",
     "    case SL_REDUCE_PROD:                                                       \\\n      return 1;",
     "    case SL_REDUCE_PROD:                                                       \\\n      return 0;",
     "integer prod without include_self starts from 0"),
    ("gather_last_row", "off-by-one", "gather_walk.c",
     "for (; j < n; ++j) out[j] = x[(int64_t)index[j] * d];",
     "for (; j + 1 < n; ++j) out[j] = x[(int64_t)index[j] * d];",
     "gather along a row's own axis skips the row's last element"),
    ("index_check_edge", "skipped check", "checks.c",
     "    if (v < 0 || v >= bound) return i;\n    for (int d",
     "    if (v < 0 || v > bound) return i;\n    for (int d",
     "a strided index equal to the extent passes the bounds check"),
    ("gather_index_stride", "wrong stride", "gather_walk.c",
     "out[j * os] = x[j * xs + (int64_t)index[j * is] * d];",
     "out[j * os] = x[j * xs + (int64_t)index[j] * d];",
     "gather ignores the index's stride on strided rows"),
    ("atomic_dropped", "dropped atomic", "conflict_lines.c",
     "        sl__atomic_elem(dt, r, dst, src);\n      } else {\n        const int64_t e",
     "        sl__plain_elem(dt, r, dst, src);\n      } else {\n        const int64_t e",
     "cpu.atomic's per-line updates without the atomic"),
    ("lock_dropped", "dropped lock", "conflict_lines.c",
     "        if (lk) sl__lock(lk, e);\n        sl__plain_elem(dt, r, dst, src);",
     "        sl__plain_elem(dt, r, dst, src);",
     "cpu.lock's per-line updates without the lock (the unlock stays)"),
    ("f16_ties_up", "wrong rounding", "dtype.c",
     "if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;",
     "if (rem > 0x1000u) ++half;",
     "f32 -> f16 rounds ties down instead of to even (one ulp)"),
    ("mean_count", "off-by-one", "reduce.c",
     "double v = counts && counts[t] > 1.0 ? acc[t] / counts[t] : acc[t];",
     "double v = counts && counts[t] > 1.0 ? acc[t] / (counts[t] + 1.0) : acc[t];",
     "the row-wise mean divides by one more than the count"),
    ("include_self_ignored", "wrong identity", "reduce.c",
     "p->include_self ? sl__load_f(dt, SL__OUT(t)) : sl__reduce_identity_f(r);",
     "sl__load_f(dt, SL__OUT(t));",
     "include_self=false still starts from the output's value"),
    ("nd_split_copy", "off-by-one", "ops/scatter_nd/scatter_nd_split.c",
     "if (hi > lo) memcpy(out + lo * es, x + lo * es, (size_t)((hi - lo) * es));",
     "if (hi > lo + 1) memcpy(out + lo * es, x + lo * es, (size_t)((hi - lo - 1) * es));",
     "scatter_nd's split-by-target path leaves each range's last element uncopied"),
    ("oom_leak", "error path", "conflict.c",
     "  if ((!wide || a->wide) && a->count) return SL_STATUS_OK;\n  sl__acc_close(a);\n",
     "  if ((!wide || a->wide) && a->count) return SL_STATUS_OK;\n",
     "the accumulators' allocation failing leaks the one that succeeded"),
    ("overlap_unchecked", "skipped check", "dispatch.c",
     "      if (lo < hi && olo < hi && lo < ohi)",
     "      if (0 && lo < hi && olo < hi && lo < ohi)",
     "sl_run_variant lets an output overlap an input"),
]

# NAME=SHAPE[:LAYOUT] words of a case line (cases/case.h); the keys whose
# value is a plain number are not tensors.
SHAPE = re.compile(r"\b([a-z_]+)=([0-9]+(?:x[0-9]+)*|scalar)(?::[a-z0-9]+)?(?=\s|$)")
NOT_TENSORS = {"dim", "dims", "at", "seed", "voxels", "val", "self"}


def elements(line):
    """Input elements of a case line: the sum over its tensors' extents."""
    total = 0
    for name, shape in SHAPE.findall(line):
        if name in NOT_TENSORS:
            continue
        n = 1
        for e in ([] if shape == "scalar" else shape.split("x")):
            n *= int(e)
        total += n
    return total


def sync(fresh, dest):
    """Makes dest hold fresh's files, rewriting only those that differ."""
    keep = set()
    for root, _, names in os.walk(fresh):
        for n in names:
            f = os.path.join(root, n)
            rel = os.path.relpath(f, fresh)
            keep.add(rel)
            d = os.path.join(dest, rel)
            data = open(f, "rb").read()
            if os.path.exists(d) and open(d, "rb").read() == data:
                continue
            os.makedirs(os.path.dirname(d), exist_ok=True)
            shutil.copyfile(f, d)  # a new time: the build sees the change
            shutil.copymode(f, d)
    for root, _, names in os.walk(dest):
        for n in names:
            f = os.path.join(root, n)
            if os.path.relpath(f, dest) not in keep:
                os.remove(f)


def sh(cmd, **kw):
    return subprocess.run(cmd, text=True, capture_output=True, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--only", default="")
    ap.add_argument("--build", default="build-planted")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--keep", action="store_true",
                    help="keep each campaign's store and log in the build dir")
    a = ap.parse_args()
    repo = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    build = os.path.abspath(os.path.join(repo, a.build))
    src = os.path.join(build, "src")
    only = set(filter(None, a.only.split(",")))
    unknown = only - {b[0] for b in BUGS}
    if unknown:
        sys.exit(f"planted_bugs: --only: unknown bug {sorted(unknown)}; "
                 f"expected some of {[b[0] for b in BUGS]}")
    # A clean copy of the committed tree; files whose bytes did not change
    # since the last run keep their times, so a rerun rebuilds only what
    # changed, and each bug rebuilds what its file touches.
    fresh = src + ".new"
    shutil.rmtree(fresh, ignore_errors=True)
    os.makedirs(fresh)
    arch = subprocess.run(["git", "-C", repo, "archive", "HEAD"],
                          capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", fresh], input=arch, check=True)
    sync(fresh, src)
    shutil.rmtree(fresh)
    obj = os.path.join(build, "obj")
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    r = sh(["cmake", "-S", src, "-B", obj, *gen, "-DSL_WITH_CUDA=OFF",
            "-DCMAKE_BUILD_TYPE=RelWithDebInfo"])
    if r.returncode:
        sys.exit("planted_bugs: cmake failed:\n" + r.stdout[-2000:] + r.stderr[-2000:])
    rows = []
    for name, klass, rel, old, new, what in BUGS:
        if only and name not in only:
            continue
        path = os.path.join(src, "core", "src", rel)
        text = open(path).read()
        if text.count(old) != 1:
            sys.exit(f"planted_bugs: {name}: the text to replace occurs "
                     f"{text.count(old)} times in core/src/{rel} (expected 1): "
                     "the code moved; update the table")
        open(path, "w").write(text.replace(old, new))
        try:
            b = sh(["cmake", "--build", obj, "-j", str(a.jobs), "--target",
                    "scatterlab", "scatterlab_kernels"])
            if b.returncode:
                rows.append((name, klass, what, "build failed", "", "", ""))
                print(f"{name}: build failed\n{b.stdout[-1500:]}", flush=True)
                continue
            db = os.path.join(build, f"{name}.db")
            for f in (db, db + "-wal", db + "-shm"):
                if os.path.exists(f):
                    os.remove(f)
            t0 = time.time()
            f = sh([os.path.join(obj, "scatterlab"), "fuzz", "--seconds",
                    str(a.seconds), "--no-corpus", "--db", db, "--format",
                    "json"])
            wall = time.time() - t0
            try:
                d = json.loads(f.stdout)
            except ValueError:
                rows.append((name, klass, what, f"no JSON (exit {f.returncode})",
                             "", "", ""))
                print(f"{name}: no JSON; stderr tail:\n{f.stderr[-1500:]}",
                      flush=True)
                continue
            first = re.search(r"first failure found after ([0-9.]+) s",
                              f.stderr)
            groups = d.get("groups", [])
            if groups:
                best = min(groups, key=lambda g: elements(g["minimal"]))
                rows.append((name, klass, what, "found",
                             first.group(1) if first else "?",
                             str(elements(best["minimal"])), best["minimal"]))
            else:
                rows.append((name, klass, what, "missed", "", "", ""))
            print(f"{name}: {rows[-1][3]} ({d.get('cases')} cases, "
                  f"{len(groups)} groups, {wall:.0f} s; smallest "
                  f"{rows[-1][5] or '-'} elements)", flush=True)
            if not a.keep:
                for p in (db, db + "-wal", db + "-shm"):
                    if os.path.exists(p):
                        os.remove(p)
        finally:
            open(path, "w").write(text)
    found = [r for r in rows if r[3] == "found"]
    small = [r for r in found if r[5].isdigit() and int(r[5]) <= 8]
    print("\n| bug | class | found | first failure (s) | smallest repro "
          "(elements) | repro |\n| --- | --- | --- | ---: | ---: | --- |")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[3]} | {r[4]} | {r[5]} | "
              f"`{r[6]}` |" if r[6] else f"| {r[0]} | {r[1]} | {r[3]} | | | |")
    print(f"\n{len(found)} of {len(rows)} found in {a.seconds} s each; "
          f"{len(small)} of {len(found)} found shrunk to 8 elements or fewer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
