#!/usr/bin/env python3
"""Random programs in the families a transformer is built of, for the search's generality
benchmark (tools/superopt-families.sh, which runs `axle superopt` on each).

    tools/superopt-families.py N SEED OUTDIR
    tools/superopt-families.py --table RUN.tsv
    tools/superopt-families.py --render RUN.tsv
    tools/superopt-families.py --row SEARCH.json EXIT EQUIV WALL I NAME FAMILY FORM SHAPES GRAPH

The first writes OUTDIR/NN-FAMILY.axl, one program each, and prints one line per program:
`FILE<TAB>FAMILY<TAB>FORM<TAB>SHAPES`. The same SEED gives the same programs (the first N
of a longer run are the same): the benchmark's figures name the programs they came from,
and anyone can write them again. --table prints the benchmark's table and its last line
from the run's raw figures (tools/superopt-families.sh writes them); --render prints the
same as the Markdown section of docs/results-superopt.md. --row prints one program's line
of RUN.tsv from `axle superopt --format json`'s report and what the driver saw.

Why these families: a superoptimizer tuned to the exact written forms of its six benchmarks
is a fuzzer's easy target. The families are the operators of a transformer layer, each in
the several forms people write it in (a norm by its library name or spelled out, a scale as
`* 0.125` or `/ 8` or folded into an operand, SiLU by name or through exp), with shapes from
real model configurations. Only the Python standard library.
"""
import json
import os
import random
import statistics
import sys

# Real model configurations: hidden size, attention heads, head dim, MLP width.
# The search works on them scaled down (SCALE) so that a 30-s budget and the full-shape
# equivalence check of every result fit on two cores; the ratios between the dims stay.
CONFIGS = [
    ("gpt2", 768, 12, 64, 3072),
    ("gpt2_medium", 1024, 16, 64, 4096),
    ("tinyllama", 2048, 32, 64, 5632),
    ("llama2_7b", 4096, 32, 128, 11008),
]
SCALE = {768: 4, 1024: 4, 2048: 4, 4096: 8}   # hidden 192, 256, 512, 512
TOKENS = [8, 16, 32]        # batch x sequence rows of a decode or short prefill step
LORA_RANK = [8, 16]
LORA_ALPHA = [8, 16, 32]
EPS = ["0.00001", "0.000001"]


def dec(x):
    """A literal the language reads exactly: the shortest decimal of the double."""
    s = repr(float(x))
    return s[:-2] if s.endswith(".0") else s


class Gen:
    def __init__(self, rng):
        self.r = rng

    def config(self):
        name, hidden, heads, hdim, ffn = self.r.choice(CONFIGS)
        k = SCALE[hidden]
        return name, hidden // k, heads, hdim, ffn // k

    # --- families -------------------------------------------------------------------
    # Each returns (form, shapes comment, body lines); the body reads inputs it declares.

    def projection(self):
        """A linear layer with a scale and a bias: O = (X W) * s + b, in its written forms."""
        cfg, h, _, hdim, ffn = self.config()
        m = self.r.choice(TOKENS)
        n = self.r.choice([h, ffn])
        s = self.r.choice([0.5, 0.125, 2.0, 1 / (hdim ** 0.5)])
        form = self.r.choice(["mul_after", "div_after", "bias_then_scale", "scale_input"])
        body = [f"input X : f16[{m}, {h}]", f"input W : f16[{h}, {n}]", f"input Bias : f16[{n}]"]
        if form == "mul_after":
            body.append(f"output O = matmul(X, W) * {dec(s)} + Bias")
        elif form == "div_after":
            body.append(f"output O = matmul(X, W) / {dec(1 / s)} + Bias")
        elif form == "bias_then_scale":
            body.append(f"output O = (matmul(X, W) + Bias) * {dec(s)}")
        else:
            body.append(f"output O = matmul(X * {dec(s)}, W) + Bias")
        return form, f"{cfg}: X [{m}, {h}], W [{h}, {n}]", body

    def norm(self):
        """A norm in any written form, with its weight, optionally followed by a projection."""
        cfg, h, _, _, ffn = self.config()
        m = self.r.choice(TOKENS)
        eps = self.r.choice(EPS)
        form = self.r.choice(["rms_norm", "rms_by_hand", "rms_by_hand_eps", "rms_square_mean",
                              "layer_norm_via_rms", "layer_norm_by_hand"])
        body = [f"input X : f16[{m}, {h}]", f"input G : f16[{h}]"]
        if form.startswith("layer_norm"):
            body.append(f"input Bias : f16[{h}]")
            body.append("let D = X - mean(X, axis = 1)")
            if form == "layer_norm_via_rms":
                body.append("let N = rms_norm(D) * G + Bias")
            else:
                body.append(f"let N = D / sqrt(mean(D * D, axis = 1) + {eps}) * G + Bias")
        elif form == "rms_norm":
            body.append("let N = rms_norm(X) * G")
        elif form == "rms_by_hand":
            body.append("let N = X / sqrt(mean(square(X), axis = 1)) * G")
        elif form == "rms_by_hand_eps":
            body.append(f"let N = X / sqrt(mean(X * X, axis = 1) + {eps}) * G")
        else:
            body.append("let N = G * (X / sqrt(sum(square(X), axis = 1) / %d))" % h)
        if self.r.random() < 0.5:
            n = self.r.choice([h, ffn])
            body.insert(2, f"input W : f16[{h}, {n}]")
            body.append("output O = matmul(N, W)")
            return form + "+linear", f"{cfg}: X [{m}, {h}], W [{h}, {n}]", body
        body.append("output O = N")
        return form, f"{cfg}: X [{m}, {h}]", body

    def activation(self):
        """A projection with its activation: SiLU by name or through exp, a sigmoid GELU."""
        cfg, h, _, _, ffn = self.config()
        m = self.r.choice(TOKENS)
        form = self.r.choice(["silu", "silu_by_exp", "gelu_sigmoid", "silu_bias"])
        body = [f"input X : f16[{m}, {h}]", f"input W : f16[{h}, {ffn}]"]
        if form == "silu":
            body.append("output O = silu(matmul(X, W))")
        elif form == "silu_by_exp":
            body.append("let H = matmul(X, W)")
            body.append("output O = H / (1 + exp(-H))")
        elif form == "gelu_sigmoid":
            body.append("let H = matmul(X, W)")
            body.append("output O = H / (1 + exp(-1.702 * H))")
        else:
            body.append(f"input Bias : f16[{ffn}]")
            body.append("output O = silu(matmul(X, W) + Bias)")
        return form, f"{cfg}: X [{m}, {h}], W [{h}, {ffn}]", body

    def gated_mlp(self):
        """LLaMA's MLP: silu(X W1) * (X W2), optionally with its down projection."""
        cfg, h, _, _, ffn = self.config()
        m = self.r.choice(TOKENS)
        form = self.r.choice(["silu", "silu_by_exp", "down_proj"])
        body = [f"input X : f16[{m}, {h}]", f"input W1, W2 : f16[{h}, {ffn}]"]
        if form == "silu":
            body.append("output O = silu(matmul(X, W1)) * matmul(X, W2)")
        elif form == "silu_by_exp":
            body.append("let G = matmul(X, W1)")
            body.append("output O = G / (1 + exp(-G)) * matmul(X, W2)")
        else:
            body.append(f"input W3 : f16[{ffn}, {h}]")
            body.append("output O = matmul(silu(matmul(X, W1)) * matmul(X, W2), W3)")
        return form, f"{cfg}: X [{m}, {h}], W1, W2 [{h}, {ffn}]", body

    def lora(self):
        """LoRA with its alpha / r factor, written as a quotient, a decimal or on the input."""
        cfg, h, _, _, ffn = self.config()
        m = self.r.choice(TOKENS)
        n = self.r.choice([h, ffn])
        r = self.r.choice(LORA_RANK)
        alpha = self.r.choice(LORA_ALPHA)
        form = self.r.choice(["alpha_over_r", "decimal", "scale_down_input"])
        body = [f"input X : f16[{m}, {h}]", f"input W : f16[{h}, {n}]",
                f"input A : f16[{h}, {r}]", f"input B : f16[{r}, {n}]"]
        if form == "alpha_over_r":
            body.append(f"output O = matmul(X, W) + matmul(matmul(X, A), B) * {alpha} / {r}")
        elif form == "decimal":
            body.append(f"output O = matmul(X, W) + {dec(alpha / r)} * matmul(matmul(X, A), B)")
        else:
            body.append(f"output O = matmul(X, W) + matmul(matmul(X, A) * {dec(alpha / r)}, B)")
        return form, f"{cfg}: X [{m}, {h}], W [{h}, {n}], r {r}, alpha {alpha}", body

    def attention(self):
        """Softmax attention with its 1 / sqrt(d) scale (no max subtraction, as in the GQA
        benchmark): the scale after the scores, as a division, or on Q."""
        cfg, _, heads, hdim, _ = self.config()
        hs = self.r.choice([2, 4])           # heads, scaled down from the config's
        q = self.r.choice([16, 32, 64])      # query rows
        kv = self.r.choice([128, 256, 512])  # keys
        sd = hdim ** 0.5
        form = self.r.choice(["scale_scores", "divide_scores", "scale_q"])
        body = [f"input Q : f16[{hs}, {q}, {hdim}]", f"input K : f16[{hs}, {hdim}, {kv}]",
                f"input V : f16[{hs}, {kv}, {hdim}]"]
        if form == "scale_scores":
            body.append(f"let E = exp(matmul(Q, K) * {dec(1 / sd)})")
        elif form == "divide_scores":
            body.append(f"let E = exp(matmul(Q, K) / {dec(sd)})")
        else:
            body.append(f"let E = exp(matmul(Q * {dec(1 / sd)}, K))")
        body.append("output O = matmul(E / sum(E, axis = 2), V)")
        return form, f"{cfg} ({heads} heads): {hs} heads, Q [{q}, {hdim}], {kv} keys", body


FAMILIES = ["projection", "norm", "activation", "gated_mlp", "lora", "attention"]


# --- the run's figures -----------------------------------------------------------------
# run.tsv: KEY<TAB>VALUE lines (n, seed, seconds, jobs, gate, date, machine, load0, load1)
# and one `prog` line per program: index, name, family, form, shapes, exit status (or
# `rejected`), naive / greedy / best modelled us, which gave the best (greedy or search),
# graph-defined kernels, wall seconds, the `axle equiv` verdict of the written graph, the
# seconds of the floor's full-shape check and of the search (what the floor's check left of
# the budget); a field is '-' where there is nothing (no floor, no graph written).
COLS = ["i", "name", "family", "form", "shapes", "exit", "naive", "greedy", "best", "by",
        "kernels", "wall", "equiv", "floor_check", "search"]


def row(path, st, equiv, wall, i, name, fam, form, shapes, mug):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError):
        d = None

    def us(x):
        return "-" if x is None else "%.2f" % x

    def secs(x):
        return "-" if x is None else "%.1f" % x
    if d is None:
        fields = ["exit-" + st, "-", "-", "-", "-", "-", "%.1f" % float(wall), equiv, "-", "-"]
    else:
        g = d.get("greedy") or {}
        kernels = "-"
        if st == "0" and os.path.exists(mug):
            with open(mug) as f:
                kernels = str(sum(1 for line in f if line.startswith("  kernel ")))
        which = "-" if st != "0" else ("greedy" if d.get("best_is_greedy") else "search")
        fields = [st, us(d.get("naive_time_us")), us(g.get("time_us")),
                  us(d.get("best_time_us") if st == "0" else None), which, kernels,
                  "%.1f" % float(wall), equiv, secs(g.get("check_seconds")),
                  secs(d.get("search_seconds"))]
    print("\t".join(["prog", i, name, fam, form, shapes] + fields))
    return 0


def num(x):
    return None if x in ("-", "") else float(x)


def read_run(path):
    meta, rows = {}, []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if parts[0] == "prog":
                rows.append(dict(zip(COLS, parts[1:])))
            elif len(parts) == 2:
                meta[parts[0]] = parts[1]
    for r in rows:
        naive, greedy, best = num(r["naive"]), num(r["greedy"]), num(r["best"])
        ok = r["exit"] in ("0", "1") and r["equiv"] in ("-", "equivalent")
        written = r["exit"] == "0" and r["equiv"] == "equivalent"
        # the result: the written graph, or the naive graph when nothing was written
        result = best if written else naive
        floor = greedy if greedy is not None else naive
        r["ok"] = ok
        r["faster"] = ok and written and best < naive
        r["ge_greedy"] = ok and result is not None and result <= floor
        r["ratio"] = result / naive if ok and naive else 1.0
    return meta, rows


def summary(rows):
    f = sum(r["faster"] for r in rows)
    g = sum(r["ge_greedy"] for r in rows)
    med = statistics.median(r["ratio"] for r in rows) if rows else 1.0
    return (f"{len(rows)} programs: {f} faster than naive, {g} at least as fast as greedy, "
            f"median ratio {med:.2f}")


def note(r):
    if r["exit"] == "rejected":
        return "rejected by axle"
    if not r["ok"]:
        return "ERROR: exit %s, equiv %s" % (r["exit"], r["equiv"])
    if r["exit"] == "1":
        return "nothing better than naive"
    if r["by"] == "greedy":
        return "the greedy floor (search found nothing faster)"
    return "the search's graph"


def table(path):
    _, rows = read_run(path)
    hdr = ("#", "program", "form", "exit", "naive_us", "greedy_us", "best_us", "ratio", "kernels",
           "floor_chk_s", "search_s", "wall_s", "equiv")
    fmt = "%-3s %-16s %-26s %4s %9s %9s %9s %6s %7s %11s %8s %7s  %s"
    print(fmt % hdr)
    for r in rows:
        print(fmt % (r["i"], r["name"], r["form"], r["exit"], r["naive"], r["greedy"], r["best"],
                     "%.2f" % r["ratio"], r["kernels"], r["floor_check"], r["search"], r["wall"],
                     r["equiv"]))
    print(summary(rows))
    return 0


def render(path):
    meta, rows = read_run(path)
    print("## Generated programs: the generality benchmark")
    print()
    print(f"Produced by `tools/superopt-families.sh {meta.get('n')} {meta.get('seed')} "
          f"{meta.get('seconds')}` on {meta.get('date')} — a shared machine")
    print(f"({meta.get('machine')}; load average {meta.get('load0')} at the start, "
          f"{meta.get('load1')} at the end), `--jobs {meta.get('jobs')}`, "
          f"`--time-limit {meta.get('seconds')}` per program, `{meta.get('gate')}`.")
    print("Random programs in the families a transformer is built of, in the forms people write")
    print("them (tools/superopt-families.py: a norm by name or spelled out, a scale as a product,")
    print("a quotient or on an operand, SiLU by name or through exp), with shapes from real model")
    print("configurations (GPT-2, GPT-2 medium, TinyLlama, LLaMA-2-7B: hidden and MLP widths")
    print("divided by 4 or 8, 2 or 4 heads, small batches): programs the search has never seen.")
    print("Every written graph was checked again with `axle equiv`. *greedy µs*: the greedy")
    print("fusion floor (docs/superopt.md §11; - when no fusion applies); *best µs*: the graph")
    print("written (- when nothing better than naive); *by*: whether that is the floor or a")
    print("graph of the search; *ratio*: written (or naive) / naive, modelled on an H100.")
    print("The raw figures: docs/data/superopt-families.tsv.")
    print()
    print("| # | program | form | shapes | naive µs | greedy µs | best µs | by | ratio | kernels | floor check s | search s | wall s | |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['i']} | {r['name']} | {r['form']} | {r['shapes']} | {r['naive']} | "
              f"{r['greedy']} | {r['best']} | {r['by']} | {r['ratio']:.2f} | {r['kernels']} | "
              f"{r['floor_check']} | {r['search']} | {r['wall']} | {note(r)} |")
    print()
    print(f"**{summary(rows)}.**")
    by_search = sum(r["by"] == "search" for r in rows)
    budget = num(meta.get("seconds", "-"))
    starved = sum(1 for r in rows if budget and num(r["search"]) is not None
                  and num(r["search"]) < budget / 10)
    print()
    print(f"The search's own graph beat the greedy floor in {by_search} of {len(rows)} programs; in "
          f"{starved} the floor's full-shape check left the search less than a tenth of the budget "
          "(*floor check s*, *search s*: the time limit covers both).")
    return 0


def main(argv):
    if len(argv) == 12 and argv[1] == "--row":
        return row(*argv[2:])
    if len(argv) == 3 and argv[1] in ("--table", "--render"):
        return table(argv[2]) if argv[1] == "--table" else render(argv[2])
    if len(argv) != 4:
        sys.stderr.write("usage: superopt-families.py N SEED OUTDIR | --table RUN.tsv | --render RUN.tsv | --row ...\n")
        return 2
    try:
        n, seed = int(argv[1]), int(argv[2])
    except ValueError:
        sys.stderr.write("superopt-families.py: N and SEED must be integers\n")
        return 2
    out = argv[3]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(seed)
    gen = Gen(rng)
    # Every family in turn from a seed-chosen start, so that even a few programs differ in kind.
    start = rng.randrange(len(FAMILIES))
    for i in range(n):
        fam = FAMILIES[(start + i) % len(FAMILIES)]
        form, shapes, body = getattr(gen, fam)()
        name = f"{fam}_{i + 1:02d}"
        path = os.path.join(out, f"{i + 1:02d}-{fam}.axl")
        with open(path, "w") as f:
            f.write(f"# Generated by tools/superopt-families.py {n} {seed}: {fam}, {form}; {shapes}.\n")
            f.write(f"program {name} {{\n")
            for line in body:
                f.write(f"  {line}\n")
            f.write("}\n")
        print(f"{path}\t{fam}\t{form}\t{shapes}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
