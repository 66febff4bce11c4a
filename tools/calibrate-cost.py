#!/usr/bin/env python3
"""calibrate-cost.py - the cost model against measured kernel times.

    tools/calibrate-cost.py [RUN_DIR...] [--axle BIN] [--target h200] [--stages N] [--refit]

Each RUN_DIR (default: every folder under docs/gpu-run that has one) holds kernels.jsonl from
gpu/bench/run-all.sh: one line per kernel of every benchmark set, with its median GPU time
from CUPTI, and the graphs that were measured (RUN_DIR/SET/NAME.mug: the examples and the
search's graphs may change after a run). For every graph-defined kernel of every set but
`single` (the same graph without the cp.async ring, which the model does not tell apart)
and `naive` (no graph-defined kernel), this prints, as markdown on stdout:

  * the model's body (its time less the launch term: CUPTI's kernel durations do not hold
    the launch), the measured time, and the model's error;
  * the shared-memory rate one block of the generated code reached: the kernel's
    shared-memory traffic per block (the model's count) times the blocks the busiest SM
    ran, over the measured time — what the model's constant
    (AxTarget.gen_smem_bps_per_block, superopt/cost/cost.c) is fitted from, with gen_block_s.

The model prices each kernel with the cp.async ring the measured code had: `--stages N`
(passed to `axle cost`) caps its stages, default 2 — the runs stored under docs/gpu-run were
generated with rings of at most 2 stages; give 4 for a run of code that chose up to 4.
Operator kernels (naive graphs) are listed beside eager PyTorch by the benchmark table, not
here: the model costs an operator as a library kernel, and axle's own one-thread-per-element
operator kernels are a correctness baseline, not the library the model describes.

--refit also fits the constants again (printed as the lines of the target's entry in
cost.c, never written there):

  * the generated code's three (gen_smem_bps_per_block, gen_resident_exp, gen_block_s): the
    grid point (0.5 GB/s, 0.05, 0.1 µs steps) with the least mean |log(model / measured)|
    over the same kernels, the model recomputed here from each kernel's counts in
    `axle cost --format json` (first checked to give axle's own times with axle's
    constants: a model changed in cost.c but not here stops the refit, exit 2);
  * the floor (floor_s, the physical limit's): the least median time of any kernel measured
    in the runs, operators and all sets included;
  * from a run of the microbenchmarks (set `micro`, gpu/bench/micro: gpu/bench/run-micro.sh),
    what the library and the generated code reach against the datasheet: the device-memory
    bandwidth of the largest copy (bytes once each way over PyTorch eager's and axle's GPU
    time) and the tensor-core rate of eager's largest matmul (2·m·n·k over its time) — the
    datasheet figures stay the model's (they are the limit's), these say how far from them
    a real kernel stays.
Exit status: 0 printed, 2 bad arguments, no measurements, or the model here disagrees with
axle's.
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
SMS = {"h200": 132, "h100": 132, "a100": 108}
# the refit's grid (see the docstring)
GRID_BPS = [10e9 + 0.5e9 * i for i in range(61)]        # 10 .. 40 GB/s
GRID_EXP = [0.05 * i for i in range(17)]                # 0 .. 0.8
GRID_BLOCK = [0.4e-6 + 0.1e-6 * i for i in range(23)]   # 0.4 .. 2.6 µs


def body_us(k, model, bps, exp, block_s):
    """The model's time of graph-defined kernel k less its launch (superopt/cost/cost.c
    finish()), recomputed from k's counts with the generated code's constants bps, exp and
    block_s; model is the document's "model" object (the target's other constants)."""
    sms, B = model["sms"], k["blocks"]
    rounds = math.ceil(B / sms)
    resident = min(k["blocks_per_sm"], rounds)
    rate = min(model["smem_bps_per_sm"], resident ** exp * bps)
    smem_us = rounds * (k["smem_traffic_bytes"] / B) / rate * 1e6
    block_us = math.ceil(rounds / resident) * block_s * 1e6
    return block_us + max(k["hbm_us"], smem_us, k["math_us"]) + k["sync_us"]


def errors(kernels, bps, exp, block_s):
    """|model - measured| / measured of every (kernel, model, measured)."""
    return [abs(body_us(k, m, bps, exp, block_s) - t) / t for k, m, t in kernels]


def refit(o, kernels, floor, micro):
    """Prints the refit (the docstring's three parts); returns the exit status."""
    m0 = kernels[0][1]
    now = (m0["gen_smem_bps_per_block"], m0["gen_resident_exp"], m0["gen_block_us"] * 1e-6)
    for k, m, _ in kernels:   # the model here is axle's: with axle's constants, axle's times
        mine = body_us(k, m, m["gen_smem_bps_per_block"], m["gen_resident_exp"], m["gen_block_us"] * 1e-6)
        axle = k["time_us"] - k["launch_us"]
        if abs(mine - axle) > 1e-3 + 1e-3 * axle:
            print(f"calibrate-cost: error: the refit's model gives {mine:.4f} µs for {k['name']}, "
                  f"axle cost {axle:.4f}: superopt/cost/cost.c and tools/calibrate-cost.py differ",
                  file=sys.stderr)
            return 2
    logs = [(k, m, math.log(t)) for k, m, t in kernels]
    best = None
    for bps in GRID_BPS:
        for exp in GRID_EXP:
            for blk in GRID_BLOCK:
                score = sum(abs(math.log(body_us(k, m, bps, exp, blk)) - lt) for k, m, lt in logs)
                if best is None or score < best[0] - 1e-12:
                    best = (score, bps, exp, blk)
    _, bps, exp, blk = best
    e_now, e_fit = errors(kernels, *now), errors(kernels, bps, exp, blk)
    print(f"\n### Refit ({len(kernels)} graph-defined kernels, `--target {o.target}`)\n")
    print(f"refit: gen_smem_bps_per_block {bps / 1e9:.1f} GB/s, gen_resident_exp {exp:.2f}, "
          f"gen_block_s {blk * 1e6:.1f} us: median |model error| {statistics.median(e_fit) * 100:.0f}%, "
          f"largest {max(e_fit) * 100:.0f}% (the constants now, {now[0] / 1e9:.1f} GB/s, {now[1]:.2f}, "
          f"{now[2] * 1e6:.1f} us: {statistics.median(e_now) * 100:.0f}%, {max(e_now) * 100:.0f}%).")
    t, name = floor
    print(f"refit: floor_s {t:.3f} us: the least median kernel time measured ({name}).")
    for line in micro:
        print("refit: " + line)
    print(f"\nAs the lines of the `{o.target}` entry of superopt/cost/cost.c (not written there):\n")
    print("```")
    print(f"     .floor_s = {t:.2f}e-6, .gen_smem_bps_per_block = {bps / 1e9:.1f}e9,")
    print(f"     .gen_resident_exp = {exp:.2f}, .gen_block_s = {blk * 1e6:.1f}e-6")
    print("```")
    return 0


def micro_rates(o, run, rows):
    """What a microbenchmark run (set `micro`) says of the datasheet's rates: lines of text."""
    out, copies, mms = [], [], []
    for r in rows:
        label, name = r["benchmark"].split("/", 1)
        if label != "micro":
            continue
        prog = os.path.join(run, "programs", name + ".axl")
        if not os.path.exists(prog):
            prog = os.path.join(SRC, "gpu", "bench", "micro", name + ".axl")
        p = subprocess.run([o.axle, "cost", prog, "--limit", "--target", o.target, "--format", "json"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise ValueError(f"axle cost {prog} --limit: {p.stderr.strip()}")
        lim = json.loads(p.stdout)
        (copies if name.startswith("copy_") else mms if name.startswith("mm_") else []).append((lim, r))
    if copies:
        lim, r = max(copies, key=lambda c: c[0]["bytes"])
        for who, col in (("PyTorch eager", "eager µs"), ("axle's generated copy", "axle µs")):
            t = float(r[col])
            out.append(f"device memory: {lim['program']} ({lim['bytes'] / 2**20:.0f} MiB once each way) "
                       f"in {t:.1f} us by {who}: {lim['bytes'] / t / 1e6:.2f} TB/s, "
                       f"{lim['hbm_us'] / t * 100:.0f}% of the datasheet's")
    if mms:
        lim, r = max(mms, key=lambda c: c[0]["tensor_flops"])
        t = float(r["eager µs"])
        out.append(f"tensor cores: {lim['program']} ({lim['tensor_flops'] / 1e9:.1f} GFLOP) in {t:.1f} us "
                   f"by PyTorch eager: {lim['tensor_flops'] / t / 1e6:.0f} TFLOP/s, "
                   f"{lim['tensor_us'] / t * 100:.0f}% of the datasheet's")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="*")
    ap.add_argument("--axle", default=os.environ.get("AXLE") or os.path.join(SRC, "build", "axle"))
    ap.add_argument("--target", default="h200", choices=sorted(SMS))
    ap.add_argument("--refit", action="store_true", help="fit the constants again (see above)")
    ap.add_argument("--stages", type=int, default=2, choices=[1, 2, 3, 4],
                    help="the most stages of the measured code's cp.async rings (see above)")
    o = ap.parse_args()
    runs = o.runs or sorted(os.path.dirname(p) for p in
                            glob.glob(os.path.join(SRC, "docs", "gpu-run", "*", "kernels.jsonl")))
    costs, out, rates, errs, devices = {}, [], [], [], set()
    fitted, floor, micro = [], None, []   # --refit: (kernel, model, measured µs)
    for run in runs:
        path = os.path.join(run, "kernels.jsonl")
        try:
            with open(path) as f:
                rows = [json.loads(line) for line in f if line.strip()]
        except (OSError, ValueError) as e:
            print(f"calibrate-cost: error: {path}: {e}", file=sys.stderr)
            return 2
        for r in rows:
            if floor is None or r["median_us"] < floor[0]:
                floor = (r["median_us"], f"{os.path.basename(run)}: {r['benchmark']} {r['kernel']}")
        if o.refit and os.path.exists(os.path.join(run, "tables.md")):
            try:
                micro += micro_rates(o, run, table_rows(os.path.join(run, "tables.md")))
            except (OSError, ValueError, KeyError) as e:
                print(f"calibrate-cost: error: {run}: {e}", file=sys.stderr)
                return 2
        for r in rows:
            label, name = r["benchmark"].split("/", 1)
            if label in ("single", "naive"):
                continue
            devices.add(r.get("device", "?"))
            g = os.path.join(run, label, name + ".mug")
            if g not in costs:
                p = subprocess.run([o.axle, "cost", g, "--target", o.target, "--format", "json",
                                    "--stages", str(o.stages)],
                                   capture_output=True, text=True)
                if p.returncode != 0:
                    print(f"calibrate-cost: error: axle cost {g}: {p.stderr.strip()}", file=sys.stderr)
                    return 2
                doc = json.loads(p.stdout)
                costs[g] = {k["name"]: dict(k, model=doc["model"]) for k in doc["kernels"]}
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
            fitted.append((k, k["model"], measured))
            out.append(f"| {os.path.basename(run)} | {r['benchmark']} | {r['kernel']} | {k['blocks']} × "
                       f"{k['threads']} | {k['bound']} | {body:.2f} | {measured:.2f} | {err * 100:+.0f}% | "
                       f"{rate / 1e9:.1f} |")
    if not out:
        print(f"calibrate-cost: error: no graph-defined kernel measured in {', '.join(runs) or 'docs/gpu-run'}",
              file=sys.stderr)
        return 2
    print(f"Kernels measured on {', '.join(sorted(devices))} (CUPTI medians; runs "
          f"{', '.join(os.path.relpath(r, SRC) for r in runs)}) against `axle cost --target {o.target} --stages {o.stages}` "
          f"of this binary.\n")
    print("| run | benchmark | kernel | blocks × threads | modelled bound | modelled body µs | measured µs "
          "| model error | shared GB/s per block |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(out))
    print(f"\nMedian shared-memory rate per block: {statistics.median(rates) / 1e9:.1f} GB/s "
          f"(range {min(rates) / 1e9:.1f}–{max(rates) / 1e9:.1f}); median |model error| "
          f"{statistics.median(errs) * 100:.0f}%, largest {max(errs) * 100:.0f}%.")
    return refit(o, fitted, floor, micro) if o.refit else 0


def table_rows(path):
    """The rows of bench.py's tables in a run's tables.md, as dicts by column."""
    rows, header = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("| device |"):
                header = [c.strip() for c in line.strip().strip("|").split("|")]
            elif line.startswith("| ") and header and not line.startswith("|---"):
                rows.append(dict(zip(header, [c.strip() for c in line.strip().strip("|").split("|")])))
    return rows


if __name__ == "__main__":
    sys.exit(main())
