#!/usr/bin/env python3
"""Planted bugs (issues 27 and 51): each bug below is planted, one at a
time, and the default fuzz campaign runs against it for SECONDS (60)
without the committed corpus (so what is measured is the generator's
reach, not a past failure's replay). Two kinds:

- core bugs, planted in a copy of core/src built without CUDA, found by the
  default campaign over every variant;
- provider bugs (tests/planted/planted_variants.c, libsl_planted.so): a
  kernel author's own variant with a defect at a size boundary or in a NaN
  / -0.0 rule, the campaign restricted to that variant and its op.

Per bug: found or not, the defects and failure groups it made (one bug
should make one defect; a group per op it shows in), the smallest repro,
and two checks of each group's minimal repro, made with `scatterlab run
--batch`:
- at the boundary: every smaller value of each extent of each tensor (up
  to 64 values an extent, the largest first) no longer fails the way it
  did (same variant, same verdict), the order the shrinker follows;
- its own message: the group's message is what the repro says run alone
  (or, for a failure that passed alone, says that it does not recur).
A benchmark run by hand, never a test; its table goes to
docs/coverage-figures.md (the latest) and docs/notes/coverage-2026.md (dated).

usage: tests/perf/planted_bugs.py [--seconds N] [--only NAME,...]
                                  [--build DIR] [--jobs N] [--keep]
                                  [--groups]
--groups prints each group under its bug (defect, signature, variant,
verdict, minimal repro, message): why a bug's groups stay apart.
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
    ("f16_ties_up", "wrong rounding", "sl_internal.h",
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
    ("nd_split_edge", "skipped check", "ops/scatter_nd/scatter_nd_split.c",
     "      bad |= i0 >= b0;",
     "      bad |= i0 > b0;",
     "scatter_nd's split path lets a first index equal to the extent through"),
    ("amax_nan_dropped", "NaN rule", "reduce_ops.h",
     "return b != b ? b : (a < b ? b : a);",
     "return a < b ? b : a;",
     "amax keeps the number when the new value is NaN"),
    ("mask_lane_overflow", "size boundary", "ops/masked_scatter/masked_scatter_mask.c",
     "if (words > 255) words = 255;",
     "if (words > 256) words = 256;",
     "the mask count's byte lanes overflow past 2048 contiguous true bytes"),
    ("mask_tail", "off-by-one", "ops/masked_scatter/masked_scatter_mask.c",
     "for (; j < n; ++j) count += p[j] != 0;",
     "for (; j + 1 < n; ++j) count += p[j] != 0;",
     "the mask count skips the last byte after the 8-byte words"),
]

# Provider bugs: name, class, variant of tests/planted/planted_variants.c,
# its op, what the bug does.
PROVIDER_BUGS = [
    ("past_64", "size boundary", "cpu.past_64", "scatter_reduce",
     "sum skips the last update when there are more than 64"),
    ("max_by_gt", "NaN rule", "cpu.max_by_gt", "scatter_reduce",
     "amax as src > acc ? src : acc drops a NaN met after a number"),
    ("rank_above_3", "rank boundary", "cpu.rank_above_3", "gather",
     "at rank 4 and above the last element of out is never written"),
    ("negzero_lost", "-0.0 rule", "cpu.negzero_lost", "gather",
     "a copy through v + 0.0 turns -0.0 into +0.0"),
    ("last_row_lost", "last row", "cpu.last_row_lost", "scatter",
     "with more than one index row the last one is not scattered"),
    ("past_32_rows", "size boundary", "cpu.past_32_rows", "index_reduce",
     "prod loses the last entry of an index longer than 32"),
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


def smaller_lines(line):
    """line with one extent of one tensor smaller: every value from one
    below it down to 1 (64 at most, the largest first)."""
    out = []
    for m in SHAPE.finditer(line):
        if m.group(1) in NOT_TENSORS or m.group(2) == "scalar":
            continue
        dims = m.group(2).split("x")
        for k, e in enumerate(dims):
            for v in range(int(e) - 1, max(0, int(e) - 65), -1):
                shape = "x".join(dims[:k] + [str(v)] + dims[k + 1:])
                out.append(line[:m.start(2)] + shape + line[m.end(2):])
    return out


def run_lines(cli, extra, variant, lines, timeout):
    """Each line's results from `run --batch`, [] when it gave none."""
    batch = cli + ".batch"
    open(batch, "w").write("\n".join(lines) + "\n")
    r = sh([cli, "run", "--batch", batch, "--variants", variant, "--no-db",
            "--format", "json", "--timeout", str(timeout), *extra])
    os.remove(batch)
    try:
        return json.loads(r.stdout)["results"]
    except (ValueError, KeyError):
        print(f"    run --batch gave no results (exit {r.returncode}): "
              f"{r.stderr.strip()[-300:]!r}", flush=True)
        return []


# A hang's words carry the time limit, the checker's and not the campaign's
HANG_LIMIT = re.compile(r"no answer within [0-9.]+ s")


def check_group(cli, extra, g):
    """(at the boundary, its own message) of group g, by `run --batch`:
    the minimal line alone first, then the smaller ones (a hang's 16 at a
    time up to the first that hangs too: each costs the limit, 5 s)."""
    hang = g["verdict"] == "timeout"
    timeout, chunk = (5, 16) if hang else (60, 1 << 30)
    # a group may name several variants failing alike: the first speaks
    first = g["variant"].split(",")[0]
    def verdict(res):
        v = [x for x in res["verdicts"] if x["variant"] == first]
        return (v[0]["verdict"], v[0]["message"]) if v else ("", "")
    results = run_lines(cli, extra, g["variant"], [g["minimal"]], timeout)
    if not results:
        return False, False
    own_verdict, own_message = verdict(results[0])
    said = HANG_LIMIT.sub("no answer within # s", g["message"])
    own = own_verdict == g["verdict"] and said.startswith(
        HANG_LIMIT.sub("no answer within # s", own_message))
    # a failure that passed alone in a fresh worker says so under its repro
    not_recurring = (f"the minimal case {own_verdict}: the failure does "
                     "not recur") in g["message"]
    if not_recurring:
        print("    does not recur alone, and its message says so", flush=True)
        own = True
    smaller = smaller_lines(g["minimal"])
    smaller_fails = []
    for k in range(0, len(smaller), chunk):
        results = run_lines(cli, extra, g["variant"], smaller[k:k + chunk],
                            timeout)
        smaller_fails = [res["case"] for res in results
                         if verdict(res)[0] == g["verdict"]]
        if smaller_fails:
            break
    if smaller_fails:
        print(f"    not at the boundary: {smaller_fails[0]} still fails",
              flush=True)
    if not own:
        print(f"    message {g['message']!r}, its repro says {own_message!r}",
              flush=True)
    return not smaller_fails, own


def campaign(cli, db, seconds, extra):
    """The campaign's JSON document, its stderr and wall time."""
    for f in (db, db + "-wal", db + "-shm"):
        if os.path.exists(f):
            os.remove(f)
    t0 = time.time()
    f = sh([cli, "fuzz", "--seconds", str(seconds), "--no-corpus", "--db",
            db, "--format", "json", *extra])
    wall = time.time() - t0
    try:
        return json.loads(f.stdout), f.stderr, wall
    except ValueError:
        return None, f"exit {f.returncode}: {f.stderr[-1500:]}", wall


def print_groups(groups):
    """Each group's defect and what keys it, defect by defect."""
    for g in sorted(groups, key=lambda g: (g.get("defect_id", ""),
                                           g.get("signature", ""))):
        print(f"  defect {g.get('defect_id', '?')}: {g.get('defect', '')}\n"
              f"    signature {g.get('signature', '')}\n"
              f"    {g.get('variant')} {g.get('verdict')} x{g.get('cases')}: "
              f"{g.get('minimal')}\n    message: {g.get('message', '')[:300]}",
              flush=True)


def measure(name, klass, what, cli, db, seconds, fuzz_extra, run_extra,
            show_groups=False):
    """One bug's row: name, class, what, found, first failure (s), groups,
    smallest repro's elements, groups at the boundary, groups with their
    own message, the smallest repro."""
    d, err, wall = campaign(cli, db, seconds, fuzz_extra)
    if d is None:
        print(f"{name}: no JSON; {err}", flush=True)
        return (name, klass, what, "no JSON", "", "", "", "", "", "", "")
    first = re.search(r"first failure found after ([0-9.]+) s", err)
    groups = d.get("groups", [])
    if not groups:
        print(f"{name}: missed ({d.get('cases')} cases, {wall:.0f} s)",
              flush=True)
        return (name, klass, what, "missed", "", "0", "", "", "", "", "0")
    if show_groups:
        print_groups(groups)
    checks = [check_group(cli, run_extra, g) for g in groups]
    best = min(groups, key=lambda g: elements(g["minimal"]))
    # a defect: the groups of several ops with one cause (docs/fuzzing.md,
    # "Defects across ops"); what one bug should make one of
    defects = d.get("defects", len(groups))
    row = (name, klass, what, "found", first.group(1) if first else "?",
           str(defects), str(elements(best["minimal"])),
           str(sum(c[0] for c in checks)), str(sum(c[1] for c in checks)),
           best["minimal"], str(len(groups)))
    print(f"{name}: found ({d.get('cases')} cases, {defects} defects in "
          f"{len(groups)} groups, "
          f"{wall:.0f} s; smallest {row[6]} elements; at the boundary "
          f"{row[7]}/{len(groups)}, own message {row[8]}/{len(groups)})",
          flush=True)
    return row


def plant_core(a, src, obj, build, bug):
    """Plants one core bug, builds, measures, and takes the bug out."""
    name, klass, rel, old, new, what = bug
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
            print(f"{name}: build failed\n{b.stdout[-1500:]}", flush=True)
            return (name, klass, what, "build failed", "", "", "", "", "",
                    "", "")
        return measure(name, klass, what, os.path.join(obj, "scatterlab"),
                       os.path.join(build, f"{name}.db"), a.seconds, [], [],
                       a.groups)
    finally:
        open(path, "w").write(text)


def summary(rows, seconds):
    print("\n| bug | class | found | first failure (s) | defects | groups | "
          "smallest repro (elements) | groups at the boundary | own message "
          "| repro |"
          "\n| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in rows:
        repro = f"`{r[9]}`" if r[9] else ""
        print(f"| {r[0]} | {r[1]} | {r[3]} | {r[4]} | {r[5]} | {r[10]} | "
              f"{r[6]} | {r[7]} | {r[8]} | {repro} |")
    found = [r for r in rows if r[3] == "found"]
    counts = sorted(int(r[5]) for r in found)
    groups = sum(int(r[10]) for r in found)
    at = sum(int(r[7]) for r in found)
    own = sum(int(r[8]) for r in found)
    if counts:
        median = counts[len(counts) // 2] if len(counts) % 2 else \
            (counts[len(counts) // 2 - 1] + counts[len(counts) // 2]) / 2
        print(f"\n{len(found)} of {len(rows)} found in {seconds} s each; "
              f"defects per bug found: median {median}, most {counts[-1]}; "
              f"minimal repros at the boundary {at} of {groups}; "
              f"own messages {own} of {groups}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--only", default="")
    ap.add_argument("--build", default="build-planted")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--groups", action="store_true",
                    help="print each group: why a bug's groups stay apart")
    ap.add_argument("--keep", action="store_true",
                    help="keep each campaign's store in the build dir")
    a = ap.parse_args()
    repo = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    build = os.path.abspath(os.path.join(repo, a.build))
    src = os.path.join(build, "src")
    names = [b[0] for b in BUGS] + [b[0] for b in PROVIDER_BUGS]
    only = set(filter(None, a.only.split(",")))
    if only - set(names):
        sys.exit(f"planted_bugs: --only: unknown bug {sorted(only - set(names))}"
                 f"; expected some of {names}")
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
    rows = [plant_core(a, src, obj, build, b) for b in BUGS
            if not only or b[0] in only]
    provider = [b for b in PROVIDER_BUGS if not only or b[0] in only]
    if provider:
        b = sh(["cmake", "--build", obj, "-j", str(a.jobs), "--target",
                "scatterlab", "sl_planted"])
        if b.returncode:
            sys.exit(f"planted_bugs: the planted provider: build failed\n"
                     f"{b.stdout[-1500:]}")
    lib = os.path.join(obj, "tests", "libsl_planted.so")
    for name, klass, variant, op, what in provider:
        prov = ["--provider", f"planted={lib}"]
        rows.append(measure(name, klass, what, os.path.join(obj, "scatterlab"),
                            os.path.join(build, f"{name}.db"), a.seconds,
                            [*prov, "--variants", f"planted:{variant}",
                             "--ops", op], prov, a.groups))
    if not a.keep:
        for n in names:
            for suffix in ("", "-wal", "-shm"):
                p = os.path.join(build, f"{n}.db{suffix}")
                if os.path.exists(p):
                    os.remove(p)
    summary(rows, a.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
