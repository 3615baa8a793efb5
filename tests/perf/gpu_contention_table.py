#!/usr/bin/env python3
"""The contention suite's levels on the GPU: for every line of
harness/batches/bench-contention.txt, the newest store among those given
(later arguments count as newer) that timed it with torch.cuda and some
cuda.* variant, the winner and its ratio to torch.cuda; lines no store
timed are listed as never run.

usage: gpu_contention_table.py STORE.db[.gz] ...   (e.g. docs/gpu/*.db.gz)
"""
import gzip
import os
import re
import sqlite3
import sys
import tempfile

SUITE = os.path.join(os.path.dirname(__file__), "..", "..", "harness",
                     "batches", "bench-contention.txt")


def level_key(line):
    """A case line without what the store adds or the suite varies freely."""
    return re.sub(r" (self|seed)=\d+", "", line.strip())


def store_rows(path, query):
    """The rows of query over a store, gunzipped to a temporary file first
    when it ends in .gz (SQLite reads files, not streams)."""
    if not path.endswith(".gz"):
        return sqlite3.connect(path).execute(query).fetchall()
    with tempfile.NamedTemporaryFile(suffix=".db") as tmp:
        with gzip.open(path) as src:
            tmp.write(src.read())
        tmp.flush()
        con = sqlite3.connect(tmp.name)
        rows = con.execute(query).fetchall()
        con.close()
    return rows


def timings_of(path, wanted):
    """{level: {variant: median seconds}} of one store's levels in wanted."""
    rows = store_rows(
        path, "select c.case_line, t.variant, t.median_s from cases c "
        "join timings t on t.case_id = c.id where t.cold = 0")
    per = {}
    for line, variant, median in rows:
        k = level_key(line)
        if k in wanted:
            per.setdefault(k, {})[variant] = median
    return {k: d for k, d in per.items()
            if "torch.cuda" in d and any(v.startswith("cuda.") for v in d)}


def describe(k):
    op = k.split()[0]
    m, c = re.search(r" x=(\d+)x(\d+) ", k).groups()
    return f"{op:15s} C={c:<4s} M={m:<8s} {'zipf' if 'ip=zipf' in k else 'rand'}"


def main(stores):
    lines = [l for l in open(SUITE) if l.strip() and not l.startswith("#")]
    wanted = [level_key(l) for l in lines]
    newest = {}
    for path in stores:
        for k, d in timings_of(path, set(wanted)).items():
            newest[k] = (os.path.basename(path), d)
    slower = 0
    for k in wanted:
        if k not in newest:
            print(f"{describe(k)}  never run")
            continue
        store, d = newest[k]
        torch = d["torch.cuda"]
        best_s, best = min((s, v) for v, s in d.items() if v.startswith("cuda."))
        slower += best_s > torch
        print(f"{describe(k)}  torch.cuda {torch * 1e3:8.4f} ms  "
              f"{best:11s} {best_s * 1e3:8.4f} ms  {torch / best_s:5.2f}x  "
              f"[{store}]")
    print(f"{len(newest)} of {len(wanted)} levels timed, {slower} with no "
          f"cuda.* variant as fast as torch.cuda")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
