#!/usr/bin/env python3
"""bench.py - times axle's generated CUDA against PyTorch eager and torch.compile.

    python3 bench.py [--out FILE.md] [--iters N] [--warmup N] [--label L] [--kernels FILE]
                     [--no-compile] [--show] DIR|FILE.json ...
    python3 bench.py --sanitize TOOL[,TOOL...] [--out FILE] DIR|FILE.json ...

Each benchmark is a manifest NAME.json written by `axle cuda GRAPH.mug --output NAME.cu
--program PROGRAM.axl` (format "axle-bench-1"), with NAME.cu beside it and, optionally,
NAME.cost holding the cost model's prediction in microseconds (gpu/bench/prepare.sh writes
all three). On a machine with a GPU, nvcc and PyTorch (nothing else is needed there: axle
itself runs elsewhere and only these files travel), for every benchmark it

  1. compiles NAME.cu with nvcc for the device's architecture (tensor-core path, -DAXLE_TC)
     into a shared library linked with -lcublas (pre-defined matmuls are cuBLAS calls) and
     loads it with ctypes — or loads NAME.so beside it when `prepare.sh --build` made one
     (no compiler needed on the GPU machine then);
  2. runs axle_run_<graph> on random inputs (uniform in [-0.5, 0.5]), the same program in
     PyTorch eager (from the manifest's steps: reductions and normalizations in f32, results
     in the program's dtypes) and torch.compile of that function;
  3. checks that the outputs agree (max |a - b| / max |b| within the dtype's tolerance, the
     same places inf/nan);
  4. times each with CUDA events: warm-up, then --iters (at least 100) timed runs; median.
     The inputs stay in place between runs, so the times are L2-warm where they fit;
  5. with --kernels FILE, profiles 50 more runs of axle's entry (torch.profiler, CUPTI) and
     appends one JSON line per kernel to FILE: the benchmark, the μGraph kernel the CUDA
     kernel implements (from the generator's comments in NAME.cu), its median time in µs —
     what the cost model's constants are calibrated against (tools/calibrate-cost.py).

--sanitize runs each benchmark's entry once under compute-sanitizer with each TOOL
(memcheck, racecheck, synccheck, initcheck) through the driver prepare.sh --build made
(DIR/driver: no Python or PyTorch in the process), and writes one line per run.

and writes a markdown table (device, benchmark — prefixed with --label — axle us, eager us,
compiled us, ratios, the cost model's prediction and its error). Without PyTorch or without a GPU it says so and exits
0: a GPU time is only ever a measured one. --show prints the PyTorch program of every
manifest and exits (no PyTorch needed). Exit status: 0 measured (or nothing to measure here),
1 some output disagrees, a run failed or a sanitizer reported an error, 2 bad arguments or
manifests, nvcc missing or failing.
"""
import argparse
import ctypes
import datetime
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

TOL = {"f16": 2e-2, "bf16": 8e-2, "f32": 1e-4}
TORCH_DTYPE = {"f16": "float16", "bf16": "bfloat16", "f32": "float32"}
OPS = {"add", "sub", "mul", "div", "max", "min", "neg", "exp", "square", "sqrt", "rsqrt",
       "silu", "tanh", "logistic", "matmul", "sum", "mean", "rms_norm", "reshape", "broadcast",
       "repeat", "concat", "reduce_max", "reduce_min", "transpose", "to_f16", "to_bf16",
       "to_f32", "eq", "ne", "lt", "le", "gt", "ge", "select", "iota"}


class BadManifest(Exception):
    pass


def load_manifest(path):
    try:
        with open(path) as f:
            m = json.load(f)
    except (OSError, ValueError) as e:
        raise BadManifest(f"{path}: cannot read: {e}")
    if not isinstance(m, dict) or m.get("format") != "axle-bench-1":
        raise BadManifest(f"{path}: not an axle benchmark manifest (format axle-bench-1)")
    for key in ("graph", "entry", "inputs", "outputs", "steps"):
        if key not in m:
            raise BadManifest(f"{path}: no '{key}'")
    for s in m["steps"]:
        if s.get("op") not in OPS:
            raise BadManifest(f"{path}: step for t{s.get('t')}: unknown operator {s.get('op')!r}")
    cu = os.path.splitext(path)[0] + ".cu"
    if not os.path.exists(cu):
        raise BadManifest(f"{path}: no generated source {cu} beside it")
    m["_path"], m["_cu"] = path, cu
    so = os.path.splitext(path)[0] + ".so"
    m["_so"] = so if os.path.exists(so) and os.path.getmtime(so) >= os.path.getmtime(cu) else None
    cost = os.path.splitext(path)[0] + ".cost"
    m["_cost"] = None
    if os.path.exists(cost):
        try:
            m["_cost"] = float(open(cost).read().strip())
        except ValueError:
            raise BadManifest(f"{cost}: not a number of microseconds")
    return m


def operand(x):
    return repr(float(x["const"])) if isinstance(x, dict) else f"t{x}"


def program_source(m):
    """The manifest's program as a Python function over torch tensors (helpers below)."""
    args = ", ".join(f"t{i['t']}" for i in m["inputs"])
    lines = [f"def program({args}):  # {m['program']}: " +
             ", ".join(f"t{i['t']} = {i['name']}" for i in m["inputs"])]
    for s in m["steps"]:
        a = [operand(x) for x in s["in"]]
        op, dt = s["op"], TORCH_DTYPE[s["dtype"]]
        if op in ("add", "sub", "mul", "div"):
            sym = {"add": "+", "sub": "-", "mul": "*", "div": "/"}[op]
            e = f"({a[0]} {sym} {a[1]})"
        elif op in ("max", "min"):
            # torch.maximum/minimum propagate NaN, as axle's max and min do
            e = f"torch.{op}imum(ax_t({a[0]}, {a[1]}), ax_t({a[1]}, {a[0]}))"
        elif op in ("eq", "ne", "lt", "le", "gt", "ge"):
            # a 1.0/0.0 mask; torch's comparisons are IEEE's (NaN unordered), as axle's
            e = f"torch.{op}(ax_t({a[0]}, {a[1]}), ax_t({a[1]}, {a[0]})).float()"
        elif op == "select":
            e = f"torch.where({a[0]} != 0, {a[1]}, {a[2]})"
        elif op == "iota":
            sh, ax = s["attr_shape"], s["axis"]
            view = [n if k == ax else 1 for k, n in enumerate(sh)]
            e = (f"torch.arange({sh[ax]}, device='cuda', dtype=torch.float32)"
                 f".reshape({view}).expand({sh}).contiguous()")
        elif op == "neg":
            e = f"(-{a[0]})"
        elif op == "square":
            e = f"({a[0]} * {a[0]})"
        elif op in ("exp", "sqrt", "rsqrt", "tanh"):
            e = f"torch.{op}({a[0]})"
        elif op == "logistic":
            e = f"torch.sigmoid({a[0]})"
        elif op == "silu":
            e = f"torch.nn.functional.silu({a[0]})"
        elif op == "matmul":
            e = f"torch.matmul({a[0]}, {a[1]})"
        elif op == "sum":
            e = f"ax_sum({a[0]}, {s['axis']}, {s.get('to', 1)})"
        elif op == "mean":
            e = f"ax_mean({a[0]}, {s['axis']})"
        elif op in ("reduce_max", "reduce_min"):
            e = f"ax_{op[7:]}({a[0]}, {s['axis']}, {s.get('to', 1)})"
        elif op == "rms_norm":
            e = f"ax_rms_norm({a[0]}, {s['axis']})"
        elif op == "reshape":
            e = f"{a[0]}.reshape({s['attr_shape']})"
        elif op == "broadcast" and isinstance(s["in"][0], dict):
            # a literal broadcast (a mask's fill value): a filled tensor
            e = f"torch.full({s['attr_shape']}, {a[0]}, device='cuda')"
        elif op == "broadcast":
            e = f"{a[0]}.expand({s['attr_shape']}).contiguous()"
        elif op == "transpose":
            e = f"{a[0]}.permute({s['attr_shape']}).contiguous()"
        elif op in ("to_f16", "to_bf16", "to_f32"):
            # a round trip through the storage type, then on in f32 as the kernels do
            e = f"{a[0]}.to(torch.{TORCH_DTYPE[op[3:]]}).float()"
        elif op == "repeat":
            e = f"{a[0]}.repeat_interleave({s['times']}, dim={s['axis']})"
        else:  # concat
            e = f"torch.cat([{', '.join(a)}], dim={s['axis']})"
        lines.append(f"    t{s['t']} = {e}.to(torch.{dt})")
    outs = ", ".join(f"t{o['t']}" for o in m["outputs"])
    lines.append(f"    return ({outs},)")
    return "\n".join(lines) + "\n"


HELPERS = '''
def ax_sum(x, axis, to):
    # sum along axis to size `to`: out[i] = sum_j x[j*to + i] (f32 accumulation)
    n = x.shape[axis]
    y = x.float().unflatten(axis, (n // to, to)).sum(dim=axis)
    return y
def ax_max(x, axis, to):
    # max along axis to size `to`: out[i] = max_j x[j*to + i] (amax propagates NaN, as axle)
    n = x.shape[axis]
    return x.float().unflatten(axis, (n // to, to)).amax(dim=axis)
def ax_min(x, axis, to):
    n = x.shape[axis]
    return x.float().unflatten(axis, (n // to, to)).amin(dim=axis)
def ax_t(x, like):
    # a literal operand of max/min as a tensor (torch.maximum takes tensors only)
    if torch.is_tensor(x):
        return x
    return torch.full_like(like, x) if torch.is_tensor(like) else torch.tensor(x)
def ax_mean(x, axis):
    return x.float().mean(dim=axis, keepdim=True)
def ax_rms_norm(x, axis):
    xf = x.float()
    return xf / torch.sqrt((xf * xf).mean(dim=axis, keepdim=True))
'''


def compare(a, b, dtype):
    """max |a - b| / max |b| over finite b; inf when the non-finite places differ."""
    import torch
    a, b = a.double(), b.double()
    fb, fa = torch.isfinite(b), torch.isfinite(a)
    if not torch.equal(fb, fa):
        return float("inf")
    if not bool(fb.any()):
        return 0.0
    ref = b[fb].abs().max().item()
    err = (a[fb] - b[fb]).abs().max().item()
    return err / ref if ref > 0 else err


def time_us(fn, iters, warmup):
    import torch
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1000.0)
    return statistics.median(times)


def kernel_names(cu):
    """CUDA kernel name -> the μGraph kernel or operator it implements, read off the comments
    the generator writes before each __global__ ("// axle: kernel k1 shared memory ..." for a
    graph-defined kernel, "// 'O' = add(...) ..., pre-defined" for an operator); a
    megakernel's one __global__, ax_mk, is "megakernel"."""
    names, pending = {}, None
    with open(cu) as f:
        for line in f:
            g = re.match(r"// axle: kernel (\S+) shared memory", line)
            p = re.match(r"// '([^']+)' = .*pre-defined", line)
            if g or p:
                pending = (g or p).group(1)
            k = re.match(r"__global__ .*?\b(ax_\w+)\(", line)
            if k:
                # the persistent megakernel (axle mpk --output) runs every kernel's blocks
                names[k.group(1)] = "megakernel" if k.group(1) == "ax_mk" else pending or k.group(1)
                pending = None
    return names


def profile_kernels(fn, runs):
    """The GPU time of fn through CUPTI (torch.profiler's chrome trace, whose "kernel",
    "gpu_memcpy" and "gpu_memset" events have a stable format): (median µs of every kernel
    by name with its launch count, the summed device time of one call in µs)."""
    import torch
    from torch.profiler import profile, ProfilerActivity
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA], acc_events=True) as prof:
        for _ in range(runs):
            fn()
        torch.cuda.synchronize()
    fd, trace = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(trace)
        with open(trace) as f:
            events = json.load(f)
    finally:
        os.unlink(trace)
    if isinstance(events, dict):
        events = events.get("traceEvents", [])
    times, total = {}, 0.0
    for e in events:
        if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and "dur" in e:
            total += float(e["dur"])
            if e.get("cat") == "kernel":
                name = re.sub(r"\(.*", "", e["name"]).split()[-1]
                times.setdefault(name, []).append(float(e["dur"]))
    if not times:
        raise RuntimeError("the profiler saw no kernel")
    return {k: (statistics.median(v), len(v)) for k, v in times.items()}, total / runs


def sanitize(ms, tools, driver, out, label, per_run):
    """Each entry once under compute-sanitizer per tool, a line per run written as it ends
    (to out, appended, or stdout); returns the number of failed runs, -1 without the tool.
    A run that outlasts per_run seconds is reported as not completed, and counts as failed."""
    cs = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    if not os.path.exists(cs):
        print("bench: error: compute-sanitizer not found", file=sys.stderr)
        return -1
    bad = 0

    def say(lines):
        text = "\n".join(lines) + "\n"
        if out:
            with open(out, "a") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
        print(lines[0], file=sys.stderr)

    for m in ms:
        name = label + os.path.splitext(os.path.basename(m["_path"]))[0]
        if not m["_so"]:
            say([f"{name}: no prebuilt .so (prepare.sh --build): not sanitized"])
            bad += 1
            continue
        bufs = ["in"] + [f"{i['dtype']}:{count(i['shape'])}" for i in m["inputs"]] + \
               ["out"] + [f"{x['dtype']}:{count(x['shape'])}" for x in m["outputs"]]
        for tool in tools:
            extra = {"memcheck": ["--leak-check", "full"], "racecheck": ["--racecheck-report", "all"]}
            if tool == "ncu":   # Nsight Compute's view of each axle kernel, not a check
                cmd = [shutil.which("ncu") or "ncu", "--section", "SpeedOfLight", "--section",
                       "Occupancy", "--section", "LaunchStats", "--section", "WarpStateStats",
                       "--section", "MemoryWorkloadAnalysis", "-k", "regex:ax_",
                       driver, m["_so"], m["entry"]] + bufs
            else:
                cmd = [cs, "--tool", tool, "--error-exitcode", "9"] + extra.get(tool, []) + \
                      [driver, m["_so"], m["entry"]] + bufs
            t0 = datetime.datetime.now()
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=per_run)
                rc, text = r.returncode, r.stdout + r.stderr
            except subprocess.TimeoutExpired:
                rc, text = f"not completed in {per_run} s", ""
            secs = (datetime.datetime.now() - t0).total_seconds()
            summary = [ln.replace("=========", "").strip() for ln in text.splitlines()
                       if "SUMMARY" in ln or ln.startswith("driver:")]
            lines = [f"{name}: {tool}: exit {rc} ({secs:.0f} s): {' | '.join(summary)}"]
            if tool == "ncu":
                lines += ["    " + ln for ln in text.splitlines() if not ln.startswith("==PROF==")]
            elif rc != 0:
                bad += 1
                lines += ["    " + ln for ln in text.splitlines()[:40]]
            say(lines)
    return bad


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def fmt(x):
    return "—" if x is None else f"{x:.1f}"


def ratio(a, b):
    return "—" if a is None or b is None or b == 0 else f"{a / b:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+", help="manifest files or directories holding them")
    ap.add_argument("--out", help="write the markdown table here (default: stdout)")
    ap.add_argument("--iters", type=int, default=100, help="timed runs (at least 100)")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--show", action="store_true", help="print the PyTorch programs and exit")
    ap.add_argument("--label", default="", help="prefix of the benchmark names in the table")
    ap.add_argument("--kernels", help="append per-kernel profiled times (JSON lines) to this file")
    ap.add_argument("--no-compile", action="store_true", help="do not time torch.compile")
    ap.add_argument("--sanitize", help="run compute-sanitizer with these tools (comma-separated)")
    ap.add_argument("--driver", help="the sanitizer driver (default: DIR/driver beside the manifests)")
    ap.add_argument("--sanitize-seconds", type=int, default=120, help="limit of one sanitizer run")
    ap.add_argument("--nvcc", default=os.environ.get("NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    o = ap.parse_args()
    if o.iters < 100:
        print("bench: --iters must be at least 100", file=sys.stderr)
        return 2
    files = []
    for p in o.paths:
        files += sorted(glob.glob(os.path.join(p, "*.json"))) if os.path.isdir(p) else [p]
    try:
        ms = [load_manifest(f) for f in files]
    except BadManifest as e:
        print(f"bench: error: {e}", file=sys.stderr)
        return 2
    if not ms:
        print("bench: error: no manifests (NAME.json from `axle cuda --program`) in " + " ".join(o.paths),
              file=sys.stderr)
        return 2
    if o.show:
        for m in ms:
            print(f"# {m['_path']}: entry {m['entry']}, cost model: "
                  f"{'—' if m['_cost'] is None else str(m['_cost']) + ' us'}")
            print(program_source(m))
        return 0
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    if o.sanitize:
        tools = o.sanitize.split(",")
        if any(t not in ("memcheck", "racecheck", "synccheck", "initcheck", "ncu") for t in tools):
            print("bench: --sanitize takes memcheck, racecheck, synccheck, initcheck, ncu", file=sys.stderr)
            return 2
        driver = o.driver or os.path.join(os.path.dirname(ms[0]["_path"]), "driver")
        if not os.path.exists(driver):
            print(f"bench: error: no sanitizer driver {driver} (prepare.sh --build)", file=sys.stderr)
            return 2
        bad = sanitize(ms, tools, driver, o.out, o.label, o.sanitize_seconds)
        return 2 if bad < 0 else 1 if bad else 0
    try:
        import torch
    except ImportError:
        print(f"bench: no GPU measurement ({now}): PyTorch is not installed here, so there is no "
              f"GPU to time on; {len(ms)} benchmark(s) ready: copy them with this script to a GPU "
              f"machine (docs/gpu.md)")
        return 0
    if not torch.cuda.is_available():
        print(f"bench: no GPU measurement ({now}): PyTorch sees no CUDA device here; {len(ms)} "
              f"benchmark(s) ready")
        return 0
    if not os.path.exists(o.nvcc):
        print(f"bench: error: nvcc not found ({o.nvcc}); set NVCC", file=sys.stderr)
        return 2
    dev = torch.cuda.get_device_name()
    cap = torch.cuda.get_device_capability()
    arch = f"sm_{cap[0]}{cap[1]}"
    g = {"torch": torch}
    exec(HELPERS, g)
    rows, bad = [], 0
    build = tempfile.mkdtemp(prefix="axle-bench-")
    for m in ms:
        name = os.path.splitext(os.path.basename(m["_path"]))[0]
        so = m["_so"]
        if not so:
            so = os.path.join(build, name + ".so")
            # pre-defined matmuls are cuBLAS calls: -lcublas, run path the toolkit's lib64
            cudalib = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(o.nvcc))), "lib64")
            cmd = [o.nvcc, "-O3", "-std=c++17", f"-arch={arch}", "-DAXLE_TC", "-Xcompiler", "-fPIC",
                   "-shared", "-o", so, m["_cu"], "-lcublas", "-Xlinker", f"-rpath,{cudalib}"]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"bench: error: {name}: nvcc failed:\n{r.stdout}{r.stderr}", file=sys.stderr)
                return 2
        lib = ctypes.CDLL(os.path.abspath(so))
        entry = getattr(lib, m["entry"])
        entry.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        entry.restype = ctypes.c_int
        gen = torch.Generator(device="cuda").manual_seed(2024)
        ins = [(torch.rand(i["shape"], generator=gen, device="cuda", dtype=torch.float32) - 0.5)
               .to(getattr(torch, TORCH_DTYPE[i["dtype"]])) for i in m["inputs"]]
        outs = [torch.empty(x["shape"], device="cuda", dtype=getattr(torch, TORCH_DTYPE[x["dtype"]]))
                for x in m["outputs"]]
        in_arr = (ctypes.c_void_p * len(ins))(*[t.data_ptr() for t in ins])
        out_arr = (ctypes.c_void_p * len(outs))(*[t.data_ptr() for t in outs])

        def axle():
            rc = entry(in_arr, out_arr, torch.cuda.current_stream().cuda_stream)
            if rc >= 20000:   # the generated entry's code for a failed cuBLAS call
                raise RuntimeError(f"{m['entry']} returned {rc}: cuBLAS status {rc - 20000}")
            if rc != 0:
                raise RuntimeError(f"{m['entry']} returned cudaError {rc}")

        exec(program_source(m), g)
        prog = g["program"]
        note = []
        try:
            axle()
            torch.cuda.synchronize()
        except RuntimeError as e:
            print(f"bench: {name}: {e}", file=sys.stderr)
            rows.append(f"| {dev} | {o.label}{name} | — | — | — | — | — | — | — | — | {fmt(m['_cost'])} "
                        f"| — | FAILED: {e} |")
            bad += 1
            continue
        ref = prog(*ins)
        agree = True
        for i, x in enumerate(m["outputs"]):
            err = compare(outs[i], ref[i], x["dtype"])
            if not err <= TOL[x["dtype"]]:
                agree = False
                note.append(f"{x['name']}: axle vs eager {err:.3g} > {TOL[x['dtype']]}")
        try:
            if o.no_compile:
                raise RuntimeError("not asked for")
            comp = torch.compile(prog)
            cref = comp(*ins)
            for i, x in enumerate(m["outputs"]):
                err = compare(cref[i], ref[i], x["dtype"])
                if not err <= TOL[x["dtype"]]:
                    note.append(f"{x['name']}: compiled vs eager {err:.3g}")
        except Exception as e:  # torch.compile needs a working Triton; say so, time nothing
            comp = None
            if not o.no_compile:
                note.append(f"torch.compile failed: {type(e).__name__}")
        if not agree:
            bad += 1
        ca = time_us(axle, o.iters, o.warmup)
        ce = time_us(lambda: prog(*ins), o.iters, o.warmup)
        cc = time_us(lambda: comp(*ins), o.iters, o.warmup) if comp else None
        ta = te = tc = None
        try:
            per_kernel, ta = profile_kernels(axle, 50)
            te = profile_kernels(lambda: prog(*ins), 50)[1]
            tc = profile_kernels(lambda: comp(*ins), 50)[1] if comp else None
        except Exception as e:  # the call times stand without the profile
            note.append(f"profile failed: {type(e).__name__}: {e}")
        if o.kernels and ta is not None:
            names = kernel_names(m["_cu"])
            with open(o.kernels, "a") as f:
                for k, (t, n) in sorted(per_kernel.items()):
                    f.write(json.dumps({"device": dev, "benchmark": o.label + name, "cuda": k,
                                        "kernel": names.get(k, k), "median_us": round(t, 3),
                                        "launches": n, "gpu_us": round(ta, 3),
                                        "call_us": round(ca, 3)}) + "\n")
        cost = m["_cost"]
        cerr = "—" if cost is None or ta is None else f"{(cost - ta) / ta * 100:+.0f}%"
        rows.append(f"| {dev} | {o.label}{name} | {fmt(ta)} | {fmt(te)} | {fmt(tc)} | {ratio(te, ta)} | "
                    f"{ratio(tc, ta)} | {fmt(ca)} | {fmt(ce)} | {fmt(cc)} | {fmt(cost)} | {cerr} | "
                    f"{'ok' if agree else 'MISMATCH'}{'; ' + '; '.join(note) if note else ''} |")
        print(rows[-1], file=sys.stderr)
    table = [f"Measured {now} on {dev} ({arch}), PyTorch {torch.__version__}, CUDA {torch.version.cuda}. "
             f"µs: GPU time of one call, the summed durations of its kernels, copies and sets "
             f"(CUPTI, 50 profiled calls); call µs: CUDA events around one call, the host's "
             f"launch work included (median of {o.iters} after {o.warmup} warm-up calls). Inputs "
             f"stay in place between calls (L2-warm where they fit).", "",
             "| device | benchmark | axle µs | eager µs | compiled µs | eager / axle | compiled / axle "
             "| axle call µs | eager call µs | compiled call µs | cost model µs | model error | outputs |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"] + rows
    text = "\n".join(table) + "\n"
    if o.out:
        with open(o.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    shutil.rmtree(build, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
