#!/usr/bin/env python3
"""PyTorch's CUDA timings of scatterlab cases, on the very same inputs.

usage: torch_cuda_bench.py BUNDLES_DIR [--csv FILE] [--reps N]

BUNDLES_DIR holds one folder per case, as `scatterlab run 'CASE' --save DIR`
writes it: case.txt (the case line) and <arg>.npy for the inputs. For each
case the op runs on the GPU through PyTorch (index_reduce: out.copy_(x) then
out.index_reduce_(...), the copy being part of the op as in scatterlab's
variants; scatter_reduce: torch.scatter_reduce, out of place), timed with
CUDA events: 10 warm-up calls, then N (default 100) timed calls, one pair of
events around each; the median and the interquartile range are printed and
written to the CSV. scripts/gpu-run.sh runs it on the contention suite, the
cases that `scatterlab-gpubench --suite contention` times for the cuda.*
variants, so the two tables compare row by row.
"""
import argparse
import csv
import os
import statistics
import sys

import numpy as np
import torch


def parse_case(line):
    words = line.split()
    params = {}
    for w in words[1:]:
        if "=" in w:
            k, v = w.split("=", 1)
            params[k] = v
    return words[0], params


def load(folder, name):
    path = os.path.join(folder, name + ".npy")
    return torch.from_numpy(np.load(path)).cuda() if os.path.exists(path) else None


def runner(op, p, folder):
    dim = int(p.get("dim", "0"))
    reduce = p.get("reduce", "sum")
    self_ = p.get("self", "1") == "1"
    x = load(folder, "x")
    index = load(folder, "index")
    if op == "index_reduce":
        upd = load(folder, "updates")
        out = torch.empty_like(x)
        if reduce == "sum":
            # index_reduce has no sum; index_add (after zeroing the targeted
            # slices when include_self is false) is LibTorch's own sum.
            def fn():
                out.copy_(x)
                if not self_:
                    out.index_fill_(dim, index, 0)
                out.index_add_(dim, index, upd)
        elif reduce == "assign":
            def fn():
                out.copy_(x)
                out.index_copy_(dim, index, upd)
        else:
            def fn():
                out.copy_(x)
                out.index_reduce_(dim, index, upd, reduce, include_self=self_)
        return fn
    if op == "scatter_reduce":
        src = load(folder, "src")
        return lambda: torch.scatter_reduce(x, dim, index, src, reduce,
                                            include_self=self_)
    if op == "gather":
        return lambda: torch.gather(x, dim, index)
    if op == "scatter":
        src = load(folder, "src")
        return lambda: torch.scatter(x, dim, index, src)
    return None


def time_fn(fn, reps):
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    times = []
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    for _ in range(reps):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e-3)
    q = statistics.quantiles(times, n=4)
    return statistics.median(times), q[2] - q[0], min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bundles")
    ap.add_argument("--csv")
    ap.add_argument("--reps", type=int, default=100)
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("torch_cuda_bench.py: torch sees no CUDA device", file=sys.stderr)
        return 1
    print("torch %s on %s" % (torch.__version__, torch.cuda.get_device_name()))
    rows = []
    for name in sorted(os.listdir(a.bundles)):
        folder = os.path.join(a.bundles, name)
        case_file = os.path.join(folder, "case.txt")
        if not os.path.exists(case_file):
            continue
        with open(case_file) as f:
            line = f.readline().strip()
        op, p = parse_case(line)
        fn = runner(op, p, folder)
        if fn is None:
            print("%s\n  torch.cuda: op not timed here" % line)
            continue
        med, iqr, best = time_fn(fn, a.reps)
        print("%s\n  torch.cuda %11.4f ms  IQR %5.1f%%" %
              (line, med * 1e3, 100.0 * iqr / med if med else 0.0))
        rows.append((line, "torch.cuda", med, iqr, best, a.reps))
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["case", "variant", "median_s", "iqr_s", "min_s", "reps"])
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
