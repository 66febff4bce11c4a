#!/usr/bin/env python3
"""calibrate-cost.py - the cost model against measured kernel times.

    tools/calibrate-cost.py [RUN_DIR...] [--axle BIN] [--target h100]

Each RUN_DIR (default: every folder under docs/gpu-run that has one) holds kernels.jsonl from
gpu/bench/run-all.sh: one line per kernel of every benchmark set, with its median GPU time
from CUPTI, and the graphs that were measured (RUN_DIR/SET/NAME.mug: the examples and the
search's graphs may change after a run). For every graph-defined kernel of every set but
`single` (the same graph without double buffering, which the model does not tell apart)
and `naive` (no graph-defined kernel), this prints, as markdown on stdout:

  * the model's body (its time less the launch term: CUPTI's kernel durations do not hold
    the launch), the measured time, and the model's error;
  * the shared-memory rate one block of the generated code reached: the kernel's
    shared-memory traffic per block (the model's count) times the blocks the busiest SM
    ran, over the measured time — what the model's constant
    (AxTarget.gen_smem_bps_per_block, superopt/cost/cost.c) is fitted from, with gen_block_s.

Operator kernels (naive graphs) are listed beside eager PyTorch by the benchmark table, not
here: the model costs an operator as a library kernel, and axle's own one-thread-per-element
operator kernels are a correctness baseline, not the library the model describes.
Exit status: 0 printed, 2 bad arguments or no measurements.
"""
import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import sys

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMS = {"h100": 132, "a100": 108}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="*")
    ap.add_argument("--axle", default=os.environ.get("AXLE") or os.path.join(SRC, "build", "axle"))
    ap.add_argument("--target", default="h100", choices=sorted(SMS))
    o = ap.parse_args()
    runs = o.runs or sorted(os.path.dirname(p) for p in
                            glob.glob(os.path.join(SRC, "docs", "gpu-run", "*", "kernels.jsonl")))
    costs, out, rates, errs, devices = {}, [], [], [], set()
    for run in runs:
        path = os.path.join(run, "kernels.jsonl")
        try:
            with open(path) as f:
                rows = [json.loads(line) for line in f if line.strip()]
        except (OSError, ValueError) as e:
            print(f"calibrate-cost: error: {path}: {e}", file=sys.stderr)
            return 2
        for r in rows:
            label, name = r["benchmark"].split("/", 1)
            if label in ("single", "naive"):
                continue
            devices.add(r.get("device", "?"))
            g = os.path.join(run, label, name + ".mug")
            if g not in costs:
                p = subprocess.run([o.axle, "cost", g, "--target", o.target, "--format", "json"],
                                   capture_output=True, text=True)
                if p.returncode != 0:
                    print(f"calibrate-cost: error: axle cost {g}: {p.stderr.strip()}", file=sys.stderr)
                    return 2
                costs[g] = {k["name"]: k for k in json.loads(p.stdout)["kernels"]}
            k = costs[g].get(r["kernel"])
            if not k or k["kind"] != "graph-defined":
                continue
            measured = r["median_us"]
            body = k["time_us"] - k["launch_us"]
            rounds = math.ceil(k["blocks"] / SMS[o.target])
            rate = k["smem_traffic_bytes"] / k["blocks"] * rounds / (measured * 1e-6)
            rates.append(rate)
            err = (body - measured) / measured
            errs.append(abs(err))
            out.append(f"| {os.path.basename(run)} | {r['benchmark']} | {r['kernel']} | {k['blocks']} × "
                       f"{k['threads']} | {k['bound']} | {body:.2f} | {measured:.2f} | {err * 100:+.0f}% | "
                       f"{rate / 1e9:.1f} |")
    if not out:
        print(f"calibrate-cost: error: no graph-defined kernel measured in {', '.join(runs) or 'docs/gpu-run'}",
              file=sys.stderr)
        return 2
    print(f"Kernels measured on {', '.join(sorted(devices))} (CUPTI medians; runs "
          f"{', '.join(os.path.relpath(r, SRC) for r in runs)}) against `axle cost --target {o.target}` "
          f"of this binary.\n")
    print("| run | benchmark | kernel | blocks × threads | modelled bound | modelled body µs | measured µs "
          "| model error | shared GB/s per block |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(out))
    print(f"\nMedian shared-memory rate per block: {statistics.median(rates) / 1e9:.1f} GB/s "
          f"(range {min(rates) / 1e9:.1f}–{max(rates) / 1e9:.1f}); median |model error| "
          f"{statistics.median(errs) * 100:.0f}%, largest {max(errs) * 100:.0f}%.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
