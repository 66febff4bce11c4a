#!/usr/bin/env python3
"""An HLO reference interpreter written independently of axle (no numpy, no axle code).

Usage: reference.py [--samples N] MODULE.hlo...

Reads the HLO text itself and prints, for every element of each module's ROOT (a tuple: each
of its elements, in order), N flat indices (default 4) spread over the output with their
values in doubles, one `MODULE OUTPUT FLAT VALUE` line each. Parameter p's element at flat index i is
(((7919 i + 104729 p) mod 1000) / 1000 - 0.5) / 4, in [-1/8, 1/8): small enough that the
softmaxes without a max shift stay finite; tests/unit/check_hlo_reference.c feeds axle's
imported program the same inputs.

Elements are evaluated on demand and memoised per (instruction, index), so a sampled
element of a 4096-wide matmul costs one row of its operands, not the whole product.
Everything is computed in doubles, as the interpreter it is compared with does; a convert to
f16, bf16 or f32 rounds to that format (nearest, ties to even, subnormals kept, ±inf from the
overflow threshold on). Only the opcodes the test modules use are known; anything else is
an error.

The elementary functions are XLA's at their special values (±inf, NaN, ±0), written here
from the C library's Annex F and XLA's emitters, not from axle (docs/semantics.md "Special
values" is the table): Python's math module raises where C returns inf or NaN, so each is
wrapped, and Python's max/min are not XLA's maximum/minimum (NaN propagates, -0 < +0).
"""
import math
import re
import sys


def parse_shape(text):
    """'f32[2,3]{1,0}' -> ('f32', [2, 3]); a tuple shape -> ('tuple', [])."""
    text = text.strip()
    if text.startswith('('):
        return ('tuple', [])
    m = re.match(r'([a-z0-9]+)\[([0-9, ]*)\]', text)
    dims = [int(d) for d in m.group(2).replace(' ', '').split(',') if d]
    return (m.group(1), dims)


def split_top(text, sep=','):
    """Splits at sep outside brackets, braces, parentheses and strings."""
    out, depth, cur, quote = [], 0, '', False
    for c in text:
        if c == '"':
            quote = not quote
        if not quote:
            if c in '([{':
                depth += 1
            elif c in ')]}':
                depth -= 1
            elif c == sep and depth == 0:
                out.append(cur)
                cur = ''
                continue
        cur += c
    if cur.strip():
        out.append(cur)
    return out


class Instr:
    pass


def parse_module(text):
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    comps, entry, cur, body = {}, None, None, ''
    lines = [l.split('//')[0] for l in text.split('\n')]
    # join continuation lines: an instruction ends where the next begins or a '}' closes
    stmts, buf = [], ''
    for l in lines:
        s = l.strip()
        if not s or s.startswith('HloModule'):
            continue
        if re.match(r'^(ENTRY\s+)?%?[\w.\-]+\s*(\(.*\)\s*->.*)?\{$', s) or s == '}' or \
                re.match(r'^(ROOT\s+)?%?[\w.\-]+\s*=\s*([a-z0-9]+\[|\()', s):
            if buf:
                stmts.append(buf)
            buf = s
        else:
            buf += ' ' + s
    if buf:
        stmts.append(buf)
    for s in stmts:
        m = re.match(r'^(ENTRY\s+)?%?([\w.\-]+)\s*(\(.*\)\s*->.*)?\{$', s)
        if m and '=' not in s.split('{')[0]:
            cur = {'name': m.group(2), 'instrs': {}, 'order': [], 'root': None}
            comps[cur['name']] = cur
            if m.group(1) or entry is None:
                entry = entry if (entry and not m.group(1)) else cur['name']
            continue
        if s == '}':
            cur = None
            continue
        m = re.match(r'^(ROOT\s+)?%?([\w.\-]+)\s*=\s*(.*)$', s)
        i = Instr()
        i.name = m.group(2)
        rest = m.group(3)
        # the shape: up to the opcode
        if rest.startswith('('):
            depth = 0
            for k, c in enumerate(rest):
                depth += c == '('
                depth -= c == ')'
                if depth == 0:
                    break
            shape_text, rest = rest[:k + 1], rest[k + 1:].strip()
        else:
            ms = re.match(r'[a-z0-9]+\[[^\]]*\](\{[^}]*\})?', rest)
            shape_text, rest = ms.group(0), rest[ms.end():].strip()
        try:
            i.type, i.dims = parse_shape(shape_text)
        except AttributeError:
            raise SystemExit("reference.py: cannot read %r" % s)
        mo = re.match(r'([a-z\-]+)\(', rest)
        i.op = mo.group(1)
        depth, k0 = 0, mo.end() - 1
        for k in range(k0, len(rest)):
            depth += rest[k] == '('
            depth -= rest[k] == ')'
            if depth == 0:
                break
        args, attrs = rest[k0 + 1:k], rest[k + 1:]
        i.args = [a.strip().split()[-1].lstrip('%') for a in split_top(args)] if args.strip() else []
        i.literal = args.strip()
        i.attrs = {}
        for a in split_top(attrs):
            if '=' in a:
                key, val = a.split('=', 1)
                i.attrs[key.strip()] = val.strip()
        cur['instrs'][i.name] = i
        cur['order'].append(i.name)
        if m.group(1):
            cur['root'] = i.name
    for c in comps.values():
        if c['root'] is None:
            c['root'] = c['order'][-1]
    return comps, entry


def ints(v):
    return [int(x) for x in re.findall(r'-?\d+', v)] if v else []


def numel(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def unflat(i, dims):
    idx = []
    for d in reversed(dims):
        idx.append(i % d)
        i //= d
    return tuple(reversed(idx))


def flat(idx, dims):
    f = 0
    for x, d in zip(idx, dims):
        f = f * d + x
    return f


# ---- XLA's elementary functions at their special values (docs/semantics.md) ----

def xla_exp(x):
    """exp: +inf at +inf (and past the double range), 0 at -inf, NaN for NaN (F.10.3.1)."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def xla_expm1(x):
    """expm1: +inf at +inf (and on overflow), -1 at -inf (F.10.3.3)."""
    try:
        return math.expm1(x)
    except OverflowError:
        return math.inf


def xla_log(x):
    """log: -inf at ±0, NaN below 0 (-inf included), +inf at +inf (F.10.3.7)."""
    if x != x:
        return x
    if x == 0:
        return -math.inf
    return math.nan if x < 0 else math.log(x)


def xla_sin(x):
    """sin: NaN at ±inf (F.10.1.6); Python's math.sin raises there."""
    return math.nan if math.isinf(x) or x != x else math.sin(x)


def xla_cos(x):
    """cos: NaN at ±inf (F.10.1.5)."""
    return math.nan if math.isinf(x) or x != x else math.cos(x)


def xla_log1p(x):
    """log1p: -inf at -1, NaN below -1 (F.10.3.9)."""
    if x == -1:
        return -math.inf
    return math.nan if x < -1 else math.log1p(x)


def xla_sqrt(x):
    """sqrt: ±0 at ±0, NaN below 0, +inf at +inf (F.10.4.5)."""
    return math.nan if x < 0 else math.sqrt(x)


def xla_rsqrt(x):
    """rsqrt: XLA's 1 / sqrt(x): ±inf at ±0, +0 at +inf, NaN below 0."""
    r = xla_sqrt(x)
    return math.copysign(math.inf, r) if r == 0 else 1 / r


def xla_divide(x, y):
    """IEEE division: a non-zero over ±0 is an infinity of the product's sign, 0/0 NaN."""
    if y == 0:
        if x != x or x == 0:
            return math.nan
        return math.copysign(math.inf, math.copysign(1, x) * math.copysign(1, y))
    return x / y


def odd_integer(y):
    return math.isfinite(y) and y == math.floor(y) and math.fmod(y, 2) != 0


def xla_pow(x, y):
    """C's pow (F.10.4.4), which XLA calls: pow(x, ±0) = 1 and pow(1, y) = 1 even for NaN;
    a pole at ±0 for y < 0 (±inf for an odd integer y, else +inf); NaN for a finite x < 0
    and a finite non-integer y; overflow to an infinity."""
    try:
        return math.pow(x, y)
    except (ValueError, ZeroDivisionError):
        if x == 0 and y < 0:
            return math.copysign(math.inf, x) if odd_integer(y) else math.inf
        return math.nan
    except OverflowError:
        return -math.inf if x < 0 and odd_integer(y) else math.inf


def xla_tanh(x):
    """tanh: ±1 at ±inf, ±0 at ±0, NaN for NaN (F.10.2.6; XLA's polynomial clamps)."""
    return math.tanh(x)


def xla_logistic(x):
    """XLA's logistic expansion 1 / (1 + exp(-x)): 1 at +inf, 0 at -inf, NaN for NaN."""
    return 1 / (1 + xla_exp(-x))


def xla_maximum(x, y):
    """XLA's maximum (llvm.maximum, IEEE 754-2019): NaN if either is, -0 below +0."""
    if x != x or y != y:
        return math.nan
    if x == y:
        return y if math.copysign(1, x) < 0 else x
    return x if x > y else y


def xla_minimum(x, y):
    """XLA's minimum (llvm.minimum): NaN if either is, -0 below +0."""
    if x != x or y != y:
        return math.nan
    if x == y:
        return x if math.copysign(1, x) < 0 else y
    return x if x < y else y


# fraction bits, least and largest normal exponent
FORMATS = {'f16': (10, -14, 15), 'bf16': (7, -126, 127), 'f32': (23, -126, 127)}


def round_to(t, x):
    """x rounded to float format t (nearest, ties to even; subnormals kept; ±inf from the
    overflow threshold (2 - 2^-(mant+1)) 2^emax on); NaN, ±inf, ±0 and other types as they are."""
    if t not in FORMATS or x != x or math.isinf(x) or x == 0:
        return x
    mant, emin, emax = FORMATS[t]
    ulp = math.ldexp(1.0, max(math.frexp(x)[1] - 1, emin) - mant)
    r = round(x / ulp) * ulp   # x / ulp is exact; round() ties to even
    if abs(r) > math.ldexp(2 - math.ldexp(1.0, -mant), emax):
        return math.copysign(math.inf, x)
    return math.copysign(r, x) if r == 0 else r


def literal(text):
    t = text.strip().lower()
    if t in ('inf', '+inf'):
        return math.inf
    if t == '-inf':
        return -math.inf
    if t in ('true', 'false'):
        return 1.0 if t == 'true' else 0.0
    return float(t)


class Eval:
    def __init__(self, comps):
        self.comps = comps
        self.memo = {}

    def reducer(self, comp):
        body = self.comps[comp.lstrip('%')]
        op = body['instrs'][body['root']].op
        return {'add': lambda a, b: a + b, 'maximum': xla_maximum, 'minimum': xla_minimum,
                'multiply': lambda a, b: a * b}[op]

    def val(self, comp, name, idx, params):
        key = (comp['name'], name, idx, params)
        if key in self.memo:
            return self.memo[key]
        v = self.compute(comp, comp['instrs'][name], idx, params)
        self.memo[key] = v
        return v

    def arg(self, comp, i, k, idx, params):
        return self.val(comp, i.args[k], idx, params)

    def shape_of(self, comp, name):
        return comp['instrs'][name].dims

    def compute(self, comp, i, idx, params):
        op, a = i.op, i.attrs
        if op == 'parameter':
            p = int(i.literal)
            if params is not None:   # a called computation: the caller's operand
                caller, cargs, cparams = params
                return self.val(self.comps[caller], cargs[p], idx, cparams)
            f = flat(idx, i.dims)
            return (((7919 * f + 104729 * p) % 1000) / 1000.0 - 0.5) / 4
        if op == 'constant':
            return literal(i.literal)
        unary = {'negate': lambda x: -x, 'exponential': xla_exp, 'sqrt': xla_sqrt,
                 'rsqrt': xla_rsqrt, 'tanh': xla_tanh, 'logistic': xla_logistic,
                 'abs': abs, 'log': xla_log, 'sine': xla_sin, 'cosine': xla_cos,
                 'erf': math.erf,
                 'convert': lambda x: round_to(i.type, x), 'copy': lambda x: x,
                 'exponential-minus-one': xla_expm1, 'log-plus-one': xla_log1p,
                 'not': lambda x: 0.0 if x else 1.0}
        if op in unary:
            return unary[op](self.arg(comp, i, 0, idx, params))
        binary = {'add': lambda x, y: x + y, 'subtract': lambda x, y: x - y,
                  'multiply': lambda x, y: x * y, 'divide': xla_divide,
                  'maximum': xla_maximum, 'minimum': xla_minimum, 'power': xla_pow}
        if op in binary:
            return binary[op](self.arg(comp, i, 0, idx, params), self.arg(comp, i, 1, idx, params))
        # pred values are 0.0 / 1.0 here, as compare makes them
        logic = {'and': lambda x, y: bool(x) and bool(y), 'or': lambda x, y: bool(x) or bool(y),
                 'xor': lambda x, y: bool(x) != bool(y)}
        if op in logic:
            return float(logic[op](self.arg(comp, i, 0, idx, params), self.arg(comp, i, 1, idx, params)))
        if op == 'clamp':   # clamp(lo, x, hi); a scalar bound is read at ()
            bound = [self.arg(comp, i, k, idx if self.shape_of(comp, i.args[k]) else (), params)
                     for k in (0, 2)]
            return xla_minimum(xla_maximum(self.arg(comp, i, 1, idx, params), bound[0]), bound[1])
        if op == 'compare':
            x, y = self.arg(comp, i, 0, idx, params), self.arg(comp, i, 1, idx, params)
            d = a['direction']
            return float({'EQ': x == y, 'NE': x != y, 'LT': x < y, 'LE': x <= y,
                          'GT': x > y, 'GE': x >= y}[d])
        if op == 'select':
            c = self.arg(comp, i, 0, idx, params)
            return self.arg(comp, i, 1 if c != 0 else 2, idx, params)
        if op == 'iota':
            return float(idx[int(a['iota_dimension'])])
        if op == 'broadcast':
            dims = ints(a.get('dimensions', '{}'))
            return self.arg(comp, i, 0, tuple(idx[d] for d in dims), params)
        if op in ('reshape', 'bitcast'):
            src = self.shape_of(comp, i.args[0])
            return self.arg(comp, i, 0, unflat(flat(idx, i.dims), src), params)
        if op == 'transpose':
            perm = ints(a['dimensions'])
            src = [0] * len(perm)
            for k, p in enumerate(perm):
                src[p] = idx[k]
            return self.arg(comp, i, 0, tuple(src), params)
        if op == 'reduce':
            dims = ints(a['dimensions'])
            fn = self.reducer(a['to_apply'])
            src = self.shape_of(comp, i.args[0])
            kept = [d for d in range(len(src)) if d not in dims]
            acc = self.arg(comp, i, 1, (), params)
            for r in range(numel([src[d] for d in dims])):
                ridx = unflat(r, [src[d] for d in dims])
                full = [0] * len(src)
                for k, d in enumerate(kept):
                    full[d] = idx[k]
                for k, d in enumerate(dims):
                    full[d] = ridx[k]
                acc = fn(acc, self.arg(comp, i, 0, tuple(full), params))
            return acc
        if op == 'dot':
            lb, rb = ints(a.get('lhs_batch_dims')), ints(a.get('rhs_batch_dims'))
            lc, rc = ints(a.get('lhs_contracting_dims')), ints(a.get('rhs_contracting_dims'))
            ls, rs = self.shape_of(comp, i.args[0]), self.shape_of(comp, i.args[1])
            lfree = [d for d in range(len(ls)) if d not in lb and d not in lc]
            rfree = [d for d in range(len(rs)) if d not in rb and d not in rc]
            # the result: batch dims, then lhs free, then rhs free
            nb = len(lb)
            bidx, lidx, ridx = idx[:nb], idx[nb:nb + len(lfree)], idx[nb + len(lfree):]
            total = 0.0
            for c in range(numel([ls[d] for d in lc])):
                cidx = unflat(c, [ls[d] for d in lc])
                L, R = [0] * len(ls), [0] * len(rs)
                for k, d in enumerate(lb):
                    L[d] = bidx[k]
                for k, d in enumerate(rb):
                    R[d] = bidx[k]
                for k, d in enumerate(lfree):
                    L[d] = lidx[k]
                for k, d in enumerate(rfree):
                    R[d] = ridx[k]
                for k, d in enumerate(lc):
                    L[d] = cidx[k]
                for k, d in enumerate(rc):
                    R[d] = cidx[k]
                total += self.arg(comp, i, 0, tuple(L), params) * self.arg(comp, i, 1, tuple(R), params)
            return total
        if op == 'slice':
            bounds = re.findall(r'\[(-?\d+):(-?\d+)(?::(\d+))?\]', a['slice'])
            return self.arg(comp, i, 0, tuple(int(s) + x * int(p or 1) for x, (s, l, p) in zip(idx, bounds)), params)
        if op == 'pad':
            src = self.shape_of(comp, i.args[0])
            spec = [[int(x) for x in d.split('_')] + [0] for d in a['padding'].split('x')]
            out = []
            for x, n, sp in zip(idx, src, spec):
                lo, it = sp[0], sp[2]
                q = x - lo
                if q < 0 or q % (it + 1) or q // (it + 1) >= n:
                    return self.arg(comp, i, 1, (), params)
                out.append(q // (it + 1))
            return self.arg(comp, i, 0, tuple(out), params)
        if op == 'reverse':
            dims = ints(a['dimensions'])
            return self.arg(comp, i, 0, tuple(i.dims[k] - 1 - x if k in dims else x for k, x in enumerate(idx)), params)
        if op == 'concatenate':
            d = ints(a['dimensions'])[0]
            off = idx[d]
            for k, name in enumerate(i.args):
                n = self.shape_of(comp, name)[d]
                if off < n:
                    return self.arg(comp, i, k, idx[:d] + (off,) + idx[d + 1:], params)
                off -= n
        if op in ('fusion', 'call'):
            callee = self.comps[(a.get('calls') or a['to_apply']).lstrip('%')]
            return self.val(callee, callee['root'], idx, (comp['name'], tuple(i.args), params))
        raise SystemExit('reference.py: opcode %s is not known here' % op)


def main():
    args = sys.argv[1:]
    samples = 4
    if args[:1] == ['--samples']:
        samples, args = int(args[1]), args[2:]
    for path in args:
        comps, entry = parse_module(open(path).read())
        ev = Eval(comps)
        c = comps[entry]
        root = c['instrs'][c['root']]
        outs = list(root.args) if root.op == 'tuple' else [root.name]
        for k, name in enumerate(outs):
            dims = c['instrs'][name].dims
            n = numel(dims)
            for s in range(samples):
                f = s * (n - 1) // max(samples - 1, 1)
                print(path, k, f, repr(ev.val(c, name, unflat(f, dims), None)))


if __name__ == '__main__':
    main()
