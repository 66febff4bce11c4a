#!/usr/bin/env python3
"""gpu-results.py - writes docs/results-gpu.md from a GPU run's files.

    tools/gpu-results.py [RUN_DIR...] [--out FILE]   ($AXLE: the binary for the calibration)

Each RUN_DIR (default: every folder under docs/gpu-run) is what gpu/bench/run-all.sh wrote on
a GPU machine: env.txt, tables.md, kernels.jsonl, sanitize.txt, ncu.txt, with the measured
graphs in SET/NAME.mug. Every figure in the page comes from those files (and from
tools/calibrate-cost.py run over them, and `axle cost` of the graphs and programs: the
physical limits and the modelled times of the "fraction of the physical limit" table);
nothing in it is typed by hand. Exit status: 0 written, 2 a file is missing or malformed.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMES = ["rmsnorm_linear", "gated_mlp", "lora", "gqa", "qknorm", "ntrans"]
AXLE = os.environ.get("AXLE") or os.path.join(SRC, "build", "axle")
# The runs made before the pre-defined operators became a cuBLAS matmul and row kernels
# (docs/gpu.md, "Pre-defined operators"): their naive graphs ran a dot product per matmul
# output element and an rms_norm that recomputed its row per element.
OLD_PREDEFINED_RUNS = {"sets", "blocks", "search", "unseen", "modules"}
TARGET = "h200"   # the GPU of every run so far (env.txt): the limit and the modelled times


def axle_json(*args):
    """`axle ARGS --target TARGET --format json`, parsed; ValueError when axle fails."""
    p = subprocess.run([AXLE, *args, "--target", TARGET, "--format", "json"], capture_output=True, text=True)
    if p.returncode != 0:
        raise ValueError(f"axle {' '.join(args)}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def frac(limit, t):
    """A time and the limit's fraction of it, in per cent to two figures: "89.0 (7.9%)"."""
    if t is None:
        return "—"
    f = limit / t * 100
    return f"{t:.1f} ({f:.0f}%)" if f >= 10 else f"{t:.1f} ({f:.1f}%)" if f >= 1 else f"{t:.1f} ({f:.2f}%)"


def limit_table(w, data):
    """Per benchmark of superopt/examples: its physical limit on TARGET, the modelled times
    of the naive graph and of the floor's and the search's graphs that were measured, the
    measured times (each from the latest run that has it), each with limit / time."""
    latest = {}   # (set, benchmark) -> (run, row): the last run (by date) that measured it
    for run, _, rows, *_ in data:
        for (st, b), r in rows.items():
            latest[(st, b)] = (os.path.basename(run), r, run)
        for b in {b for _, b in rows}:   # eager and compiled: the row the run's summary reads
            st = next(st for st in set_order(rows) if (st, b) in rows)
            latest[("any", b)] = (os.path.basename(run), rows[(st, b)], run)
    w("")
    w("## Fraction of the physical limit")
    w("")
    w(f"Per benchmark, the **physical limit** on an {TARGET.upper()} computed by `axle cost PROGRAM --limit "
      f"--target {TARGET}` (docs/cli.md: every input read once and every output written once at "
      "4.8 TB/s, 2·m·n·k per matmul at the dense f16 tensor rate, one FLOP per element-wise or "
      "reduced element at the f32 rate, and the least device time of one kernel; the largest of "
      "the four), then times in µs with the limit's fraction of each, *limit / time*, in "
      "brackets: 100% is the limit reached. **Modelled** columns are `axle cost --target "
      f"{TARGET}` of a graph (the naive one: the program, one library kernel per operator; the "
      "floor's and the search's: the graph files of the run their measured column comes "
      "from); **measured** columns are GPU times from docs/gpu-run, each from the latest run "
      "that has it.")
    w("")
    w("| benchmark | limit µs | naive, modelled | floor, modelled | found, modelled | found, measured "
      "| floor, measured | hand-written, measured | naive, measured | PyTorch eager, measured "
      "| torch.compile, measured |")
    w("|---" * 11 + "|")
    sources, fr, warm = {}, {"found": [], "compiled": []}, []
    for n in NAMES:
        prog = os.path.join(SRC, "superopt", "examples", n + ".axl")
        ld = axle_json("cost", prog, "--limit")
        lim = ld["limit_us"]
        if ld["fits_l2"]:
            warm.append(n)
        cells = [f"{lim:.2f}", frac(lim, axle_json("cost", prog)["time_us"])]
        measured = {}
        for st in ("greedy", "found", "hand", "naive", "any"):
            if (st, n) in latest:
                name, r, run = latest[(st, n)]
                measured[st] = (r, run)
                if st != "any":
                    sources.setdefault(st, {}).setdefault(name, []).append(n)
        for st in ("greedy", "found"):
            g = os.path.join(measured[st][1], st, n + ".mug") if st in measured else None
            cells.append(frac(lim, axle_json("cost", g)["time_us"]) if g and os.path.exists(g) else "—")
        t = {st: num(measured[st][0], "axle µs") if st in measured else None
             for st in ("found", "greedy", "hand", "naive")}
        ref = measured["any"][0]
        te, tc = num(ref, "eager µs"), num(ref, "compiled µs")
        cells += [frac(lim, t["found"]), frac(lim, t["greedy"]), frac(lim, t["hand"]), frac(lim, t["naive"]),
                  frac(lim, te), frac(lim, tc)]
        if t["found"]:
            fr["found"].append(lim / t["found"])
        if tc:
            fr["compiled"].append(lim / tc)
        w(f"| {n} | " + " | ".join(cells) + " |")
    w("")
    said = {"greedy": "floor", "found": "found", "hand": "hand-written", "naive": "naive"}
    w("Measured columns by run: " + "; ".join(
        f"{said[st]}: " + ", ".join(f"`{run}` ({', '.join(bs)})" for run, bs in sorted(sources[st].items()))
        for st in ("found", "greedy", "hand", "naive") if st in sources) +
      "; PyTorch eager and torch.compile: the latest run of each benchmark (as its summary "
      "table gives them). "
      "Measured, the search's graphs reach " +
      f"{min(fr['found']) * 100:.0f}–{max(fr['found']) * 100:.0f}% of the limit and torch.compile "
      f"{min(fr['compiled']) * 100:.0f}–{max(fr['compiled']) * 100:.0f}%. The harness keeps the "
      "inputs in place between calls, and the inputs and outputs of " + ", ".join(warm) +
      f" fit the {TARGET.upper()}'s L2: for them the HBM term bounds a cold call only (where it "
      "decides the limit, a warm call could beat it)." +
      ("" if not set(sources.get("naive", {})) & OLD_PREDEFINED_RUNS else
       " The naive graphs measured here ran the earlier pre-defined operators (a dot product per "
       "matmul output element, an rms_norm recomputing its row for each element); the modelled "
       "naive column prices the current ones (a cuBLAS matmul, row kernels: docs/gpu.md, "
       "\"Pre-defined operators\"), which no run has measured yet."))


def read(run, name):
    with open(os.path.join(run, name)) as f:
        return f.read()


def parse_tables(text):
    """{(set, benchmark): {column: value}} from bench.py's tables, and each set's caption."""
    rows, captions, header, cur = {}, {}, None, None
    for line in text.splitlines():
        if line.startswith("### "):
            cur = line[4:].strip()
        elif line.startswith("Measured ") and cur:
            captions[cur] = line
        elif line.startswith("| device |"):
            header = [c.strip() for c in line.strip("|").split("|")]
        elif line.startswith("| ") and header and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            row = dict(zip(header, cells))
            s, b = row["benchmark"].split("/", 1)
            rows[(s, b)] = row
    return rows, captions


def num(row, col):
    try:
        return float(row[col])
    except (KeyError, ValueError, TypeError):
        return None


def ratio(a, b):
    return "—" if a is None or b is None or b == 0 else f"{a / b:.2f}×"


def fmt(x):
    return "—" if x is None else f"{x:.1f}"


def ncu_kernels(text):
    """One dict per kernel section of ncu.txt: benchmark, kernel, launch, metrics."""
    out, bench, cur = [], None, None
    for line in text.splitlines():
        m = re.match(r"^(\S+/\S+): ncu: ", line)
        if m:
            bench = m.group(1)
            continue
        m = re.match(r"^\s+(ax_\w+)\(.*\) \((\d+), (\d+), (\d+)\)x\((\d+), (\d+), (\d+)\)", line)
        if m:
            cur = {"benchmark": bench, "kernel": m.group(1),
                   "grid": "×".join(m.group(i) for i in (2, 3, 4)),
                   "block": int(m.group(5)) * int(m.group(6)) * int(m.group(7)), "stall": ""}
            out.append(cur)
            continue
        if not cur:
            continue
        for key, pat in (("duration", r"^\s+Duration\s+us\s+([\d.,]+)"),
                         ("clock", r"^\s+SM Frequency\s+Ghz\s+([\d.]+)"),
                         ("occupancy", r"^\s+Achieved Occupancy\s+%\s+([\d.]+)"),
                         ("regs", r"^\s+Registers Per Thread\s+register/thread\s+(\d+)"),
                         ("sol_mem", r"^\s+Memory Throughput\s+%\s+([\d.]+)"),
                         ("sol_sm", r"^\s+Compute \(SM\) Throughput\s+%\s+([\d.]+)")):
            m = re.match(pat, line)
            if m and key not in cur:
                cur[key] = m.group(1).replace(",", "")
        m = re.search(r"spends ([\d.]+) cycles being stalled waiting for (a scoreboard dependency on)?", line)
        if m and not cur["stall"]:
            cur["stall"] = f"{m.group(1)} cycles/instr. on " + ("a scoreboard (shared memory)" if m.group(2)
                                                                 else "other stalls")
    return out


SET_TITLES = {"hand": "axle hand-written", "found": "axle found", "single": "axle single-buffered",
              "naive": "axle naive (one kernel per operator)", "greedy": "axle greedy floor"}


def set_order(rows):
    sets = []
    for s in ["hand", "found", "single", "naive"] + sorted({k[0] for k in rows}):
        if s not in sets and any(k[0] == s for k in rows):
            sets.append(s)
    return sets


def bench_names(rows):
    """The benchmarks of a run: the six examples in their usual order, then any other by name."""
    present = {b for _, b in rows}
    return [n for n in NAMES if n in present] + sorted(present - set(NAMES))


def summary(w, rows):
    """One row per benchmark: every set's GPU time, eager, compiled, and ratios to hand."""
    sets = set_order(rows)
    bases = [s for s in ("found", "greedy") if s in sets] or [sets[0]]   # eager, compiled over these
    head = [SET_TITLES.get(s, f"axle {s}") for s in sets]
    against = "hand" if "hand" in sets else "naive" if "naive" in sets else None   # ratios to it
    ratios = [f"{against} / {s}" for s in sets if against and s != against]
    w("| benchmark | " + " | ".join(head) + " | PyTorch eager | torch.compile" +
      "".join(f" | eager / {b} | compiled / {b}" for b in bases) + "".join(f" | {r}" for r in ratios) + " |")
    w("|---" * (3 + len(head) + 2 * len(bases) + len(ratios)) + "|")
    for n in bench_names(rows):
        t = {s: num(rows.get((s, n), {}), "axle µs") for s in sets}
        ref = next(rows[(s, n)] for s in sets if (s, n) in rows)   # eager and compiled: any set's
        te, tc = num(ref, "eager µs"), num(ref, "compiled µs")
        cells = [fmt(t[s]) for s in sets] + [fmt(te), fmt(tc)]
        for b in bases:
            cells += [ratio(te, t[b]), ratio(tc, t[b])]
        cells += [ratio(t[against], t[s]) for s in sets if against and s != against]
        w(f"| {n} | " + " | ".join(cells) + " |")
    w("")
    w(f"A ratio is a time over a time: above 1× the set after the slash took less GPU time. "
      "Outputs were checked against PyTorch eager on every row (max |a − b| / max |b| within the "
      "dtype's tolerance, the same places non-finite): " +
      f"{sum(r.get('outputs', '').startswith('ok') for r in rows.values())} of {len(rows)} rows agree.")
    inf = sorted({b for (s, b), r in rows.items() if "vs eager inf" in r.get("outputs", "")})
    if inf:
        w(f"For {', '.join(inf)} the f16 output is not finite for these inputs in every implementation "
          "(the program's `exp` of unscaled normalized dot products overflows f16), so the check "
          "there compares only where the non-finite values are.")
    if "found" in sets:
        found = [n for n in bench_names(rows) if num(rows.get(("found", n), {}), "axle µs") is not None]
        beat = lambda col: [n for n in found if num(rows[("found", n)], "axle µs") < num(rows[("found", n)], col)]
        w(f"The search's graphs took less GPU time than PyTorch eager on {len(beat('eager µs'))} of "
          f"{len(found)} benchmarks ({', '.join(beat('eager µs')) or 'none'}) and less than "
          f"torch.compile on {len(beat('compiled µs'))} ({', '.join(beat('compiled µs')) or 'none'}).")
    if "greedy" in sets:
        gr = [n for n in bench_names(rows) if num(rows.get(("greedy", n), {}), "axle µs") is not None]
        gt = lambda n: num(rows[("greedy", n)], "axle µs")
        faster = [n for n in gr if "naive" in sets and (("naive", n) in rows) and gt(n) < num(rows[("naive", n)], "axle µs")]
        beat = lambda col: [n for n in gr if gt(n) < num(rows[("greedy", n)], col)]
        w(f"The greedy floor's graphs took less GPU time than axle's naive graphs on {len(faster)} of "
          f"{len(gr)} programs, less than PyTorch eager on {len(beat('eager µs'))} "
          f"({', '.join(beat('eager µs')) or 'none'}) and less than torch.compile on "
          f"{len(beat('compiled µs'))} ({', '.join(beat('compiled µs')) or 'none'}).")
    errs = sorted(abs(float(r["model error"].rstrip("%"))) for (s, b), r in rows.items()
                  if s in ("hand", "found") and r.get("model error", "—") not in ("—", ""))
    return errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="*")
    ap.add_argument("--out", default=os.path.join(SRC, "docs", "results-gpu.md"))
    o = ap.parse_args()
    runs = o.runs or sorted(os.path.dirname(p) for p in
                            glob.glob(os.path.join(SRC, "docs", "gpu-run", "*", "tables.md")))
    data = []
    try:
        for run in runs:
            env = read(run, "env.txt").splitlines()
            rows, captions = parse_tables(read(run, "tables.md"))
            if len(env) < 3 or not rows:
                raise ValueError(f"{run}: env.txt or tables.md is incomplete")
            data.append((run, env, rows, captions, read(run, "sanitize.txt"), ncu_kernels(read(run, "ncu.txt"))))
    except (OSError, KeyError, ValueError) as e:
        print(f"gpu-results: error: {e}", file=sys.stderr)
        return 2
    data.sort(key=lambda d: d[1][0])   # by the date each run began
    if not data:
        print("gpu-results: error: no run (docs/gpu-run/*/tables.md)", file=sys.stderr)
        return 2
    cal = subprocess.run([sys.executable, os.path.join(SRC, "tools", "calibrate-cost.py"), "--refit",
                          "--target", TARGET] + runs, capture_output=True, text=True)
    if cal.returncode != 0:
        print(f"gpu-results: error: calibrate-cost.py: {cal.stderr.strip()}", file=sys.stderr)
        return 2
    here = os.path.join(SRC, "docs")   # links as seen from docs/results-gpu.md, wherever written
    L = []
    w = L.append
    w("# GPU results")
    w("")
    w("Measured by `gpu/bench/run-all.sh` (docs/gpu.md, \"Benchmark on a GPU\"); generated by")
    w("`tools/gpu-results.py` from each run's files (" +
      ", ".join(f"`{os.path.relpath(r, here)}/`" for r, *_ in data) + "). Every time here was")
    w("measured; the cost model's figures beside them are marked as modelled. The generated code")
    w("was `axle cuda --target sm_90`, built with nvcc 13.0 `-O3 -DAXLE_TC -lineinfo` on the")
    w("development machine (`prepare.sh --build`): nothing was compiled on the GPU machine.")
    w("")
    w("**axle µs** is the GPU time of one call: the summed durations of its kernels, copies and")
    w("sets as CUPTI records them (50 profiled calls, median per kernel). **call µs** wraps one")
    w("call in CUDA events and so includes the host's launch work (through ctypes for axle, the")
    w("Python interpreter for eager): for kernels of a few microseconds it measures the host, not")
    w("the GPU. Inputs stay in place between calls, so the data is L2-warm where it fits. Ratios")
    w("are only ever taken within one run.")
    try:
        limit_table(w, data)
    except (OSError, KeyError, ValueError) as e:
        print(f"gpu-results: error: {e}", file=sys.stderr)
        return 2
    before = None
    for run, env, rows, captions, _, ncu in data:
        w("")
        w(f"## Run `{os.path.basename(run)}`: {', '.join(set_order(rows))}")
        w("")
        w(f"{env[0]}; {env[1]} (device, driver, max SM and memory clocks, memory); {env[2]}; "
          f"compute-sanitizer {env[3].replace('Version ', '') if len(env) > 3 else '?'}.")
        w("")
        errs = summary(w, rows)
        if before is None:
            before = (os.path.basename(run), errs)
        if ncu:
            w(f"Achieved occupancy of the generated kernels under Nsight Compute: "
              f"{min(float(k.get('occupancy', 100)) for k in ncu):.1f}–"
              f"{max(float(k.get('occupancy', 0)) for k in ncu):.1f}% (blocks of "
              f"{', '.join(sorted({str(k['block']) for k in ncu}))} threads).")
    w("")
    w("## Sanitizer")
    w("")
    runs_s = [(os.path.basename(r), ln) for r, _, _, _, san, _ in data for ln in san.splitlines()
              if re.match(r"^\S+/\S+: \w+: exit", ln)]
    fails = [f"{r}: {ln}" for r, ln in runs_s if not re.search(r": exit 0 ", ln)]
    tools = sorted({ln.split(": ")[1] for _, ln in runs_s})
    sets = sorted({ln.split("/")[0] for _, ln in runs_s})
    w(f"compute-sanitizer ran each entry once through `gpu/bench/driver.cu` (no Python in the "
      f"process): {len(runs_s)} runs ({', '.join(tools)}) over the graphs of {', '.join(sets)}; "
      f"**{len(fails)} reported an error**." +
      (" Every run: `ERROR SUMMARY: 0 errors` (memcheck also 0 bytes leaked; racecheck 0 hazards)."
       if not fails else ""))
    for ln in fails:
        w(f"* {ln}")
    run, _, _, _, _, ncu = next((d for d in data if d[5]), data[0])
    if ncu:
        w("")
        w(f"## Where the time goes (Nsight Compute, run `{os.path.basename(run)}`)")
        w("")
        w("ncu runs each kernel at its own locked clock, so its durations are longer than the tables'.")
        w("")
        w("| benchmark | kernel | grid × block | registers | achieved occupancy | SM throughput | "
          "memory throughput | ncu µs (at GHz) | top stall |")
        w("|---|---|---|---|---|---|---|---|---|")
        for k in ncu:
            w(f"| {k['benchmark']} | {k['kernel']} | {k['grid']} × {k['block']} | {k.get('regs', '?')} | "
              f"{k.get('occupancy', '?')}% | {k.get('sol_sm', '?')}% | {k.get('sol_mem', '?')}% | "
              f"{k.get('duration', '?')} ({k.get('clock', '?')}) | {k['stall'] or '—'} |")
    w("")
    w("## Cost model calibration")
    w("")
    w("The model's three constants for the generated code (`gen_smem_bps_per_block`, `gen_resident_exp`, `gen_block_s`,")
    w("superopt/cost/cost.c; docs/superopt.md §8) were fitted to these kernels; `tools/calibrate-cost.py`")
    w("prints the model of the current binary against every measured graph-defined kernel, and")
    w("`--refit` what a fit over all of them gives now (the constants are changed in cost.c by hand).")
    if before and before[1]:
        errs = sorted(before[1])
        w(f"The binary that prepared the first run, `{before[0]}`, modelled its graphs "
          f"{int(errs[len(errs) // 2])}% off in the median (up to {int(errs[-1])}%: its tables' *model "
          "error* column).")
    w("")
    L.extend(cal.stdout.rstrip("\n").splitlines())
    for run, env, rows, captions, _, _ in data:
        for s in set_order(rows):
            w("")
            w(f"## Measured table: run `{os.path.basename(run)}`, {s}")
            w("")
            if s in captions:
                w(captions[s])
                w("")
            w("| device | benchmark | axle µs | eager µs | compiled µs | eager / axle | compiled / axle "
              "| axle call µs | eager call µs | compiled call µs | cost model µs | model error | outputs |")
            w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
            for (t, b), r in rows.items():
                if t == s:
                    w("| " + " | ".join(r.values()) + " |")
    w("")
    w("The *cost model µs* and *model error* columns are those of the binary that prepared each")
    w("run; the calibration section is the current model.")
    text = "\n".join(L) + "\n"
    with open(o.out, "w") as f:
        f.write(text)
    print(f"gpu-results: wrote {o.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
