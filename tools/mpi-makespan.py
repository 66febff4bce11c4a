#!/usr/bin/env python3
"""mpi-makespan.py — how far `mpirun -n P axle verify --mpi` scales, modelled from measured
per-rule times (Python 3, no packages).

    tools/mpi-makespan.py [--ranks 8,16,...] [--jobs J] [--coordinator-ms C,...]
                          [--task-overhead-ms O] [--measured SCALING.tsv] VERIFY.jsonl

VERIFY.jsonl: `axle verify --no-cache --jobs 1 --format json` output, one result a line;
its `time_ms` are the tasks (one rule at one element type). Prints a Markdown section on
standard output: for each P, the makespan that verify --mpi's schedule gives and the ideal.

The model is the coordinator of run/mpi.c: rank 0 verifies nothing and hands tasks out, in
one fixed order, to the P - 1 other ranks, each running J tasks at a time (--jobs, default
1; a rank asks for a batch of J and asks again when the batch is done — modelled per slot,
which is what a rank with J workers approaches). Rank 0 serves one message at a time: each
task costs it C ms (receiving the result, the cache and the report; --coordinator-ms, a
list: one column each) — so it can hand out at most 1000 / C tasks a second, whatever P is.
Each task costs its worker O ms more than its measured time (a worker process per task;
--task-overhead-ms, default 0.4: the measured wall time of the single-process run beyond
the sum of its tasks, when --wall is given it is computed from it).

Orders: "longest first" sorts by the measured time (a perfect predictor; the coordinator
sorts by run/plan.c's size estimate, which is between this and no prediction), "as listed"
takes the tasks in file order (no prediction). Ideal: max(sum / workers, longest task),
where workers = (P - 1) * J. "Stops scaling" is the least P at which the longest-first
makespan is within 10 % of its floor, max(longest task + O, n * C): past it more ranks
buy nothing. --measured TSV (ranks, wall seconds, one line each; "#" comments) adds the
measured wall times of a run on this machine as a table before the model.
"""
import argparse
import heapq
import json
import sys


def schedule(times, workers, coord_s, over_s):
    """Makespan of list scheduling of times (in the given order) on `workers` slots, the
    coordinator serving one request at a time at coord_s seconds each."""
    slots = [0.0] * workers   # when each slot next asks
    heapq.heapify(slots)
    coord_free = 0.0          # when rank 0 can serve the next request
    end = 0.0
    for t in times:
        ask = heapq.heappop(slots)
        start = max(ask, coord_free) + coord_s   # served in turn, the task sent
        coord_free = start
        done = start + t + over_s
        end = max(end, done)
        heapq.heappush(slots, done)
    return end


def fmt_s(x):
    return f"{x:.2f}" if x < 100 else f"{x:.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results")
    ap.add_argument("--ranks", default="2,4,8,16,32,64,128,256")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--coordinator-ms", default="0.1,1")
    ap.add_argument("--task-overhead-ms", type=float, default=None)
    ap.add_argument("--wall", type=float, default=None,
                    help="wall seconds of the single-process run of RESULTS (gives O)")
    ap.add_argument("--measured", default=None)
    a = ap.parse_args()

    times = []
    with open(a.results) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            if r.get("cached"):
                sys.exit("mpi-makespan: %s: a cached result has no measured time" % a.results)
            times.append(r["time_ms"] / 1000.0)
    if not times:
        sys.exit("mpi-makespan: %s: no results" % a.results)
    n, total, longest = len(times), sum(times), max(times)
    if a.task_overhead_ms is not None:
        over = a.task_overhead_ms / 1000.0
    elif a.wall is not None:
        over = max(0.0, (a.wall - total) / n)
    else:
        over = 0.0004
    coords = [float(c) / 1000.0 for c in a.coordinator_ms.split(",")]
    ranks = [int(p) for p in a.ranks.split(",")]
    lpt = sorted(times, reverse=True)

    out = []
    if a.measured:
        rows = []
        with open(a.measured) as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                p, wall = line.split("\t")[:2]
                rows.append((int(p), float(wall)))
        base = rows[0][1]
        out.append("| ranks | worker ranks | wall s | speed-up over one process |")
        out.append("|---:|---:|---:|---:|")
        for p, wall in rows:
            out.append(f"| {p} | {max(p - 1, 1) if p > 1 else '— (one process)'} | {wall:.1f} | "
                       f"{base / wall:.2f}x |")
        out.append("")

    out.append(f"Modelled from {n} measured tasks (sum {total:.1f} s, longest {longest:.2f} s, "
               f"{over * 1000:.2f} ms overhead a task), --jobs {a.jobs} a rank:")
    out.append("")
    head = "| ranks | ideal s | " + " | ".join(
        f"longest first, C = {c * 1000:g} ms | as listed, C = {c * 1000:g} ms" for c in coords) + " |"
    out.append(head)
    out.append("|---:|---:|" + "---:|---:|" * len(coords))
    stops = {}
    for p in ranks:
        w = max(p - 1, 1) * a.jobs
        ideal = max(total / w, longest)
        cells = []
        for c in coords:
            m = schedule(lpt, w, c, over)
            m2 = schedule(times, w, c, over)
            eff = total / (w * m)
            cells.append(f"{fmt_s(m)} ({eff:.0%})")
            cells.append(fmt_s(m2))
            floor = max(longest + over, n * c)
            if c not in stops and m <= 1.1 * floor:
                stops[c] = (p, floor, "the longest task" if longest + over >= n * c else "the coordinator")
        out.append(f"| {p} | {fmt_s(ideal)} | " + " | ".join(cells) + " |")
    out.append("")
    out.append("(percent: efficiency, the sum of the tasks over workers x makespan.)")
    out.append("")
    for c in coords:
        if c in stops:
            p, floor, why = stops[c]
            out.append(f"* C = {c * 1000:g} ms: stops scaling at about {p} ranks — the makespan is "
                       f"within 10 % of {fmt_s(floor)} s, set by {why}.")
        else:
            out.append(f"* C = {c * 1000:g} ms: still scaling at {ranks[-1]} ranks.")
    print("\n".join(out))


if __name__ == "__main__":
    main()
