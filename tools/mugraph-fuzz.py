#!/usr/bin/env python3
"""mugraph-fuzz.py — an oracle for the superoptimizer's verdicts: a μGraph fuzzer.

It writes random tensor programs (docs/superopt.md §1: element-wise arithmetic, exp, sqrt,
rsqrt, tanh, logistic, silu, the conversions between f16, bf16 and f32, masks built from
iotas, comparisons and select, sum, mean, reduce_max, rms_norm, matmul) on small shapes, and
puts to `axle equiv` graphs for them:

  * the greedy floor's (`axle superopt P --max-states 1`), and with the test binary the
    floor before its check (`AXLE_TEST_GREEDY_ONLY=1`);
  * the search's (`axle superopt P --time-limit T --max-states N`);
  * mutants of those graphs, made by text edits of the .mug: a wrong element type, a wrong
    constant, a wrong axis, a reduction changed (sum, mean, max), a mask or comparison
    changed or dropped, a conversion dropped or added, an online softmax's rescale
    dropped, the operands of a non-commutative operator swapped, a wrong imap, fmap, omap
    or grid that still validates.

Every pair is also judged by a brute-force evaluator written here, independent of axle's
C: it parses the program and the .mug itself and runs both — the graph block by block and
iteration by iteration, as docs/superopt.md §2 defines it — in exact arithmetic (rationals,
and rigorous intervals where a transcendental leaves them: see `Iv`), and in the storage
types for the float side. A *discrepancy* is:

  equiv-separated     `axle equiv` says equivalent (exit 0) where the brute force separates
                      the pair: some output differs at some input point;
  equiv-interface     ... or where the inputs' or outputs' names, shapes or element types
                      differ (a separation too);
  equiv-unstable      ... or where, in the storage types on inputs in [-0.5, 0.5], the
                      graph is off by more than ten times the float tolerance on every
                      draw while the program in its own storage is within it;
  result-separated    a graph the superoptimizer wrote (floor or search) that the brute
  result-interface    force separates from its program (written graphs must be equal to
                      the program exactly: exact values do not depend on the order of a
                      reduction, so exact equality is the right test);
  crash, hang,        a command killed by a signal, one that outlived its time, one whose
  bad-exit            exit status docs/cli.md does not list for it.

"Not equivalent" on a pair the brute force cannot separate is no discrepancy (the check is
conservative: a conversion is a keyed random function there, a max a fresh variable); it is
counted as *incomplete*. Every discrepancy is minimised (smaller shapes, fewer operators,
the graph built again the same way) and written to --out (default mugraph-fuzz-findings/).

Usage: mugraph-fuzz.py [--seconds N] [--seed N] [--jobs N] [--out DIR] [--axle PATH] ...
(tools/mugraph-fuzz.sh is the wrapper CI calls). Exit 0 only with zero discrepancies; 3 on
bad usage or when nothing could be checked. Pieces for tests and for a reader:
  --eval FILE [--inputs JSON]     evaluate a program (.axl) or a graph (.mug) exactly
  --separate PROGRAM GRAPH        the brute force's judgement of one pair
  --render STATS.json             the section of docs/results-superopt.md for a run
Python 3 standard library only.
"""

import argparse
import collections
import concurrent.futures
import decimal
import itertools
import json
import math
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from fractions import Fraction as Q

# ---------------------------------------------------------------------------------------
# Numbers. The exact side computes with Fractions while every operation is rational, and
# with intervals (Iv) once a transcendental has no rational value (exp(x) for x != 0, a
# square root of a non-square, ...).
#
# Why an interval decides soundly: every Iv [lo, hi] is a proof that the real value lies in
# it. Its bounds are Decimals of PREC digits computed with directed rounding (DN rounds
# toward -inf, UP toward +inf) for + - * /; exp, ln and sqrt are correctly rounded by the
# decimal module (an error of at most half a unit in the last place, i.e. at most 10^-59
# relative at 60 digits) and are then widened outward by a relative 10^-55 — four orders of
# magnitude more than that error — so their bounds enclose the true value too; every
# function used is monotone or composed from enclosed pieces. So two values are
# *separated* only when their enclosures are disjoint (or both are rationals that differ),
# which is a proof that the reals differ: no margin has to be argued. What cannot be
# decided — a comparison or a mask whose interval straddles its threshold, a divisor whose
# interval holds 0 — raises Undecided, and the input point is skipped. A value with no
# real meaning raises Undefined: a point where the program has none is not used; a graph
# with none where the program has one (a root of a negative value, a conversion that
# overflows to inf) is separated from it there, unless it divides by zero (DivZero: no
# verdict speaks of such points).
# ---------------------------------------------------------------------------------------

PREC = 60
_CTX = dict(prec=PREC, Emax=10 ** 8, Emin=-10 ** 8,
            traps=[decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow])
DN = decimal.Context(rounding=decimal.ROUND_FLOOR, **_CTX)
UP = decimal.Context(rounding=decimal.ROUND_CEILING, **_CTX)
NE = decimal.Context(rounding=decimal.ROUND_HALF_EVEN, **_CTX)
WIDEN = decimal.Decimal('1e-55')
D0 = decimal.Decimal(0)


class Undefined(Exception):
    """The value has no real meaning at this point (sqrt or log of a negative, a conversion
    that overflows to inf, or DivZero)."""


class DivZero(Undefined):
    """A division by zero: axle's verdicts speak of the inputs where none occurs (§4's "in
    plain words"), so such a point judges nothing, whichever side divides."""


class Undecided(Exception):
    """An interval cannot decide a comparison, a mask or a divisor's sign here."""


class Unsupported(Exception):
    """An operator or form the evaluator does not implement."""


class Iv:
    """A closed interval [lo, hi] of Decimals that holds a real value (see above)."""
    __slots__ = ('lo', 'hi')

    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    def __repr__(self):
        return 'Iv(%s, %s)' % (self.lo, self.hi)


def _lo(x):
    if type(x) is Iv:
        return x.lo
    if x.denominator == 1:
        return DN.plus(decimal.Decimal(x.numerator))
    return DN.divide(decimal.Decimal(x.numerator), decimal.Decimal(x.denominator))


def _hi(x):
    if type(x) is Iv:
        return x.hi
    if x.denominator == 1:
        return UP.plus(decimal.Decimal(x.numerator))
    return UP.divide(decimal.Decimal(x.numerator), decimal.Decimal(x.denominator))


def _down(r):   # a bound below r, beyond any rounding error of a correctly rounded r
    return DN.subtract(r, DN.multiply(r.copy_abs(), WIDEN))


def _up(r):
    return UP.add(r, UP.multiply(r.copy_abs(), WIDEN))


def x_add(a, b):
    if type(a) is Q and type(b) is Q:
        return a + b
    return Iv(DN.add(_lo(a), _lo(b)), UP.add(_hi(a), _hi(b)))


def x_sub(a, b):
    if type(a) is Q and type(b) is Q:
        return a - b
    return Iv(DN.subtract(_lo(a), _hi(b)), UP.subtract(_hi(a), _lo(b)))


def x_mul(a, b):
    if type(a) is Q and type(b) is Q:
        return a * b
    if (type(a) is Q and a == 0) or (type(b) is Q and b == 0):
        return Q(0)
    al, ah, bl, bh = _lo(a), _hi(a), _lo(b), _hi(b)
    return Iv(min(DN.multiply(x, y) for x in (al, ah) for y in (bl, bh)),
              max(UP.multiply(x, y) for x in (al, ah) for y in (bl, bh)))


def x_div(a, b):
    if type(b) is Q and b == 0:
        raise DivZero('division by zero')
    if type(a) is Q and type(b) is Q:
        return a / b
    bl, bh = _lo(b), _hi(b)
    if bl <= 0 <= bh:
        raise Undecided('a divisor whose enclosure holds 0')
    al, ah = _lo(a), _hi(a)
    return Iv(min(DN.divide(x, y) for x in (al, ah) for y in (bl, bh)),
              max(UP.divide(x, y) for x in (al, ah) for y in (bl, bh)))


def x_neg(a):
    if type(a) is Q:
        return -a
    return Iv(a.hi.copy_negate(), a.lo.copy_negate())   # exact (a plain - rounds to 28 digits)


def x_square(a):
    if type(a) is Q:
        return a * a
    l, h = a.lo, a.hi
    if l >= 0:
        return Iv(DN.multiply(l, l), UP.multiply(h, h))
    if h <= 0:
        return Iv(DN.multiply(h, h), UP.multiply(l, l))
    return Iv(D0, max(UP.multiply(l, l), UP.multiply(h, h)))


def x_exp(a):
    if type(a) is Q and a == 0:
        return Q(1)
    try:
        lo, hi = NE.exp(_lo(a)), NE.exp(_hi(a))
    except decimal.Overflow:
        raise Undecided('exp beyond the decimal range')
    if hi == 0:
        raise Undecided('exp below the decimal range')
    return Iv(max(_down(lo), D0), _up(hi))


def x_log(a):
    if type(a) is Q and a == 1:
        return Q(0)
    l, h = _lo(a), _hi(a)
    if h <= 0:
        raise Undefined('log of a non-positive value')
    if l <= 0:
        raise Undecided('log of a value whose enclosure holds 0')
    return Iv(_down(NE.ln(l)), _up(NE.ln(h)))


def _isqrt_exact(n):
    r = math.isqrt(n)
    return r if r * r == n else None


def x_sqrt(a):
    if type(a) is Q:
        if a < 0:
            raise Undefined('sqrt of a negative value')
        n, d = _isqrt_exact(a.numerator), _isqrt_exact(a.denominator)
        if n is not None and d is not None:
            return Q(n, d)
    l, h = _lo(a), _hi(a)
    if h < 0:
        raise Undefined('sqrt of a negative value')
    if l < 0:
        raise Undecided('sqrt of a value whose enclosure holds 0')
    return Iv(max(_down(NE.sqrt(l)), D0) if l > 0 else D0, _up(NE.sqrt(h)))


def x_rsqrt(a):
    return x_div(Q(1), x_sqrt(a))


def x_tanh(a):
    # tanh(x) = 1 - 2 / (exp(2x) + 1): x occurs once, so the enclosure stays tight
    if type(a) is Q and a == 0:
        return Q(0)
    return x_sub(Q(1), x_div(Q(2), x_add(x_exp(x_mul(Q(2), a)), Q(1))))


# pi to 70 digits: the extrema of sin and cos sit at multiples of pi / 2
PI = decimal.Decimal('3.141592653589793238462643383279502884197169399375105820974944592307816')


def _series(x, first, step):
    """sum of first(x), then each term times step(n, x): an alternating series whose terms
    shrink from the first on (|x| <= 4 and the steps below), so the error is below the first
    term left out; widened by that and by the rounding of PREC digits."""
    total, term, n = D0, first, 0
    while True:
        total = NE.add(total, term)
        term = NE.multiply(term, step(n, x))
        n += 1
        if term.copy_abs() < decimal.Decimal('1e-58') and n > 2:
            break
    err = NE.add(term.copy_abs(), NE.multiply(total.copy_abs(), WIDEN))
    return DN.subtract(total, err), UP.add(total, err)


def _sin_pt(x):
    return _series(x, x, lambda n, x: NE.divide(NE.multiply(x, x).copy_negate(), (2 * n + 2) * (2 * n + 3)))


def _cos_pt(x):
    return _series(x, decimal.Decimal(1), lambda n, x: NE.divide(NE.multiply(x, x).copy_negate(), (2 * n + 1) * (2 * n + 2)))


def _trig(a, pt, shift):
    """sin (shift 1/2) or cos (shift 0) of an enclosure: monotone between extrema at
    (k + shift) pi, so the endpoints' values bound it where none lies inside."""
    if type(a) is Q and a == 0:
        return Q(0) if pt is _sin_pt else Q(1)
    l, h = _lo(a), _hi(a)
    if l.copy_abs() > 4 or h.copy_abs() > 4:
        raise Undecided('sin or cos of a value beyond [-4, 4]')
    k0 = NE.divide(l, PI) - decimal.Decimal(shift)
    k1 = NE.divide(h, PI) - decimal.Decimal(shift)
    if k0.to_integral_value(rounding=decimal.ROUND_FLOOR) != k1.to_integral_value(rounding=decimal.ROUND_FLOOR):
        raise Undecided('an extremum of sin or cos within the enclosure')
    (a0, a1), (b0, b1) = pt(l), pt(h)
    return Iv(min(a0, b0), max(a1, b1))


def x_sin(a):
    return _trig(a, _sin_pt, '0.5')


def x_cos(a):
    return _trig(a, _cos_pt, '0')


def x_erf(a):
    """erf(x) = 2 / sqrt(pi) sum (-1)^n x^(2n+1) / (n! (2n+1)): increasing, so its
    endpoints bound it; the series is alternating with shrinking terms for |x| <= 2."""
    if type(a) is Q and a == 0:
        return Q(0)
    l, h = _lo(a), _hi(a)
    if l.copy_abs() > 2 or h.copy_abs() > 2:
        raise Undecided('erf of a value beyond [-2, 2]')
    c0, c1 = DN.divide(2, UP.sqrt(PI + decimal.Decimal('1e-65'))), UP.divide(2, DN.sqrt(PI - decimal.Decimal('1e-65')))

    def pt(x):   # the series of sum (-1)^n x^(2n+1) / (n! (2n+1)): terms x^(2n+1) (-1)^n / n!
        t = [x]
        total, n = D0, 0
        term = x
        while True:
            total = NE.add(total, NE.divide(term, 2 * n + 1))
            term = NE.divide(NE.multiply(term, NE.multiply(x, x).copy_negate()), n + 1)
            n += 1
            if term.copy_abs() < decimal.Decimal('1e-58') and n > 2:
                break
        err = NE.add(NE.divide(term.copy_abs(), 2 * n + 1), NE.multiply(total.copy_abs(), WIDEN))
        return DN.subtract(total, err), UP.add(total, err)
    (a0, _), (_, b1) = pt(l), pt(h)
    lo = min(DN.multiply(c0, a0), DN.multiply(c1, a0))
    hi = max(UP.multiply(c0, b1), UP.multiply(c1, b1))
    return Iv(lo, hi)


def x_logistic(a):
    if type(a) is Q and a == 0:
        return Q(1, 2)
    return x_div(Q(1), x_add(Q(1), x_exp(x_neg(a))))


def x_silu(a):
    if type(a) is Q and a == 0:
        return Q(0)
    return x_mul(a, x_logistic(a))


def x_abs(a):
    if type(a) is Q:
        return abs(a)
    if a.lo >= 0:
        return a
    if a.hi <= 0:
        return x_neg(a)
    return Iv(D0, max(a.lo.copy_negate(), a.hi))


def x_max(a, b):
    if type(a) is Q and type(b) is Q:
        return max(a, b)
    return Iv(max(_lo(a), _lo(b)), max(_hi(a), _hi(b)))


def x_min(a, b):
    if type(a) is Q and type(b) is Q:
        return min(a, b)
    return Iv(min(_lo(a), _lo(b)), min(_hi(a), _hi(b)))


def x_order(a, b):
    """-1, 0 or 1 as a <, =, > b; Undecided when the enclosures overlap."""
    if type(a) is Q and type(b) is Q:
        return (a > b) - (a < b)
    if _hi(a) < _lo(b):
        return -1
    if _lo(a) > _hi(b):
        return 1
    raise Undecided('a comparison of overlapping enclosures')


def x_truth(m):
    """Whether a mask element is not 0 (select's test)."""
    if type(m) is Q:
        return m != 0
    if m.lo > 0 or m.hi < 0:
        return True
    raise Undecided('a mask whose enclosure holds 0')


def separated(a, b):
    """True when the two values are provably different reals."""
    if type(a) is Q and type(b) is Q:
        return a != b
    return _hi(a) < _lo(b) or _hi(b) < _lo(a)


def x_show(a):
    if type(a) is Q:
        return str(a) if a.denominator == 1 or a.denominator < 10 ** 6 else '%.9g' % float(a)
    mid = (a.lo + a.hi) / 2
    # the decimals' own formatting: a float would print e^-1000 as 0
    return '%s (in [%s, %s])' % (format(mid, '.12g'), format(a.lo, '.6g'), format(a.hi, '.6g'))


def x_float(a):
    if type(a) is Q:
        return float(a)
    return float((a.lo + a.hi) / 2)


# Storage formats: (fraction bits, least normal exponent, largest exponent).
FORMATS = {'f16': (10, -14, 15), 'bf16': (7, -126, 127), 'f32': (23, -126, 127)}
TOLERANCE = {'f16': 2e-2, 'bf16': 8e-2, 'f32': 1e-4}   # axle equiv's float tolerances (docs/superopt.md §4)


def round_exact(dt, q):
    """The rational q rounded to format dt, to nearest with ties to even, exactly; Undefined
    when it overflows to inf (inf is no real number)."""
    if q == 0:
        return Q(0)
    mant, emin, emax = FORMATS[dt]
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()   # 2^e <= a < 2^(e+2)
    if Q(2) ** e > a:
        e -= 1
    elif Q(2) ** (e + 1) <= a:
        e += 1
    ulp = Q(2) ** (max(e, emin) - mant)
    r = round(a / ulp) * ulp                 # Fraction's round(): half to even
    if r > (2 - Q(1, 2 ** mant)) * Q(2) ** emax:
        raise Undefined('%s overflows to inf' % dt)
    return r if q > 0 else -r


def x_convert(dt, a):
    if type(a) is Q:
        return round_exact(dt, a)
    # rounding is monotone: the rounded bounds enclose the rounded value
    lo, hi = round_exact(dt, Q(a.lo)), round_exact(dt, Q(a.hi))
    return lo if lo == hi else Iv(_lo(lo), _hi(hi))


# Floats: the float side rounds to the storage types with the standard library's packers
# (f16: struct 'e', f32: struct 'f', both round to nearest even from a double) and bf16 by
# bit arithmetic on the double; computation runs in doubles, as axle's float check does.
INF = float('inf')
NAN = float('nan')
BF16_MAX = (2 - 2.0 ** -7) * 2.0 ** 127


def _pack_round(fmt, x):
    try:
        return struct.unpack(fmt, struct.pack(fmt, x))[0]
    except OverflowError:
        return math.copysign(INF, x)


def round_bf16(x):
    if x != x or x == 0 or math.isinf(x):
        return x
    a = abs(x)
    if a < 2.0 ** -126:     # subnormal: spacing 2^-133 (a * 2^133 is exact; round() ties even)
        r = round(a * 2.0 ** 133) * 2.0 ** -133
    else:                   # keep 7 of the double's 52 fraction bits, ties to even
        bits = struct.unpack('<Q', struct.pack('<d', a))[0]
        bits = (bits + (1 << 44) - 1 + ((bits >> 45) & 1)) & ~((1 << 45) - 1)
        r = struct.unpack('<d', struct.pack('<Q', bits))[0]
        if r > BF16_MAX:
            r = INF
    return math.copysign(r, x)


def round_float(dt, x):
    if dt == 'f16':
        return _pack_round('<e', x)
    if dt == 'f32':
        return _pack_round('<f', x)
    return round_bf16(x)


def f_div(a, b):
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0:
            return NAN
        return math.copysign(INF, a) * math.copysign(1.0, b)


def f_exp(a):
    try:
        return math.exp(a)
    except OverflowError:
        return INF


def f_sqrt(a):
    if a != a or a < 0:
        return NAN
    return math.sqrt(a)


def f_log(a):
    if a != a or a < 0:
        return NAN
    if a == 0:
        return -INF
    return math.log(a)


def f_logistic(a):
    return f_div(1.0, 1.0 + f_exp(-a))


def f_max(a, b):
    if a != a or b != b:
        return NAN
    return a if a >= b else b


def f_min(a, b):
    if a != a or b != b:
        return NAN
    return a if a <= b else b


class Exact:
    """The exact domain: Fractions and intervals; storage rounding is the identity (a
    program's and a graph's exact values do not depend on where they are stored)."""
    unary = {'neg': x_neg, 'exp': x_exp, 'square': x_square, 'sqrt': x_sqrt, 'rsqrt': x_rsqrt,
             'tanh': x_tanh, 'logistic': x_logistic, 'silu': x_silu, 'abs': x_abs, 'log': x_log,
             'sin': x_sin, 'cos': x_cos, 'erf': x_erf}
    binary = {'add': x_add, 'sub': x_sub, 'mul': x_mul, 'div': x_div, 'max': x_max, 'min': x_min}

    @staticmethod
    def const(q):
        return q

    @staticmethod
    def convert(dt, a):
        return x_convert(dt, a)

    @staticmethod
    def compare(op, a, b):
        o = x_order(a, b)
        return Q(int({'eq': o == 0, 'ne': o != 0, 'lt': o < 0, 'le': o <= 0, 'gt': o > 0,
                      'ge': o >= 0}[op]))

    @staticmethod
    def truth(m):
        return x_truth(m)

    @staticmethod
    def store(dt, data):
        return data

    @staticmethod
    def acc_store(data):
        return data

    @staticmethod
    def guard(v):
        return v


class Float:
    """The float domain: doubles; with storage on, every stored value is rounded to its
    element type and accumulator state to f32 (docs/superopt.md §3, what a GPU keeps)."""
    unary = {'neg': lambda a: -a, 'exp': f_exp, 'square': lambda a: a * a, 'sqrt': f_sqrt,
             'rsqrt': lambda a: f_div(1.0, f_sqrt(a)),
             'tanh': math.tanh, 'logistic': f_logistic, 'silu': lambda a: a * f_logistic(a),
             'abs': abs, 'log': f_log, 'sin': math.sin, 'cos': math.cos, 'erf': math.erf}
    binary = {'add': lambda a, b: a + b, 'sub': lambda a, b: a - b, 'mul': lambda a, b: a * b, 'div': f_div,
              'max': f_max, 'min': f_min}

    def __init__(self, storage):
        self.storage = storage

    @staticmethod
    def const(q):
        return float(q)

    @staticmethod
    def convert(dt, a):
        return round_float(dt, a)

    @staticmethod
    def compare(op, a, b):
        if a != a or b != b:
            return 1.0 if op == 'ne' else 0.0
        return 1.0 if {'eq': a == b, 'ne': a != b, 'lt': a < b, 'le': a <= b, 'gt': a > b,
                       'ge': a >= b}[op] else 0.0

    @staticmethod
    def truth(m):
        return m != 0

    def store(self, dt, data):
        if not self.storage:
            return data
        return [round_float(dt, v) for v in data]

    def acc_store(self, data):
        return self.store('f32', data)

    @staticmethod
    def guard(v):
        # FlashAttention's guard: a running max still at -inf is read as 0 inside the loop
        return 0.0 if v == -INF else v


# ---------------------------------------------------------------------------------------
# Tensors (row-major, a shape and a flat list) and the operators of docs/superopt.md §1,
# each a shape rule and an evaluator over a domain (Exact or Float).
# ---------------------------------------------------------------------------------------

class ShapeError(Exception):
    pass


class T:
    __slots__ = ('shape', 'data')

    def __init__(self, shape, data):
        self.shape, self.data = tuple(shape), data


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def strides(shape):
    st, acc = [], 1
    for d in reversed(shape):
        st.append(acc)
        acc *= d
    return st[::-1]


_OFFS = {}


def bcast_offsets(shape, out):
    """For every index of `out` (row-major), the offset of the element of a tensor of
    `shape` that numpy's broadcasting reads there."""
    key = (tuple(shape), tuple(out))
    got = _OFFS.get(key)
    if got is not None:
        return got
    r = len(out)
    s = (1,) * (r - len(shape)) + tuple(shape)
    st = [0 if s[i] == 1 else v for i, v in enumerate(strides(s))]
    offs = [0]
    for d in range(r):
        offs = [o + k * st[d] for o in offs for k in range(out[d])]
    if len(_OFFS) > 4096:
        _OFFS.clear()
    _OFFS[key] = offs
    return offs


def bshape(*shapes):
    r = max(len(s) for s in shapes)
    out = []
    for i in range(r):
        dims = set()
        for s in shapes:
            j = i - (r - len(s))
            dims.add(s[j] if j >= 0 else 1)
        dims.discard(1)
        if len(dims) > 1:
            raise ShapeError('shapes %s do not broadcast' % ' and '.join(fmt_shape(s) for s in shapes))
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def fmt_shape(s):
    return '[%s]' % ', '.join(str(d) for d in s)


def norm_axis(attrs, rank):
    if rank == 0:
        raise ShapeError('needs an operand with at least one dimension')
    a = attrs.get('axis', rank - 1)
    if a < -rank or a >= rank:
        raise ShapeError('axis %d is out of range for rank %d' % (a, rank))
    return a + rank if a < 0 else a


EW1 = ('neg', 'exp', 'square', 'sqrt', 'rsqrt', 'tanh', 'logistic', 'silu', 'abs', 'log', 'sin', 'cos', 'erf')
EXPLIKE = ('exp', 'silu', 'tanh', 'logistic')     # the exponentials of the Lax fragment
CONV = {'to_f16': 'f16', 'to_bf16': 'bf16', 'to_f32': 'f32'}
EW2 = ('add', 'sub', 'mul', 'div', 'max', 'min')
CMP = ('eq', 'ne', 'lt', 'le', 'gt', 'ge')
REDUCE = ('sum', 'mean', 'reduce_max', 'reduce_min')
LAYOUT = ('reshape', 'broadcast', 'transpose', 'repeat', 'concat')
OPS = set(EW1) | set(CONV) | set(EW2) | set(CMP) | set(REDUCE) | set(LAYOUT) | \
    {'matmul', 'rms_norm', 'select', 'iota', 'reverse'}
# operators a block graph may hold (docs/superopt.md §2)
BLOCK_OPS = set(EW1) | set(CONV) | set(EW2) | set(CMP) | \
    {'matmul', 'sum', 'mean', 'rms_norm', 'concat', 'select', 'iota', 'reduce_max', 'reduce_min'}


def infer(op, attrs, shapes):
    """The result shape of op on operand shapes (tuples), or ShapeError; attrs may gain
    the normalised axis."""
    n = len(shapes)
    if op in EW1 or op in CONV:
        if n != 1:
            raise ShapeError('%s takes one operand' % op)
        return shapes[0]
    if op in EW2 or op in CMP:
        if n != 2:
            raise ShapeError('%s takes two operands' % op)
        return bshape(*shapes)
    if op == 'select':
        if n != 3 or not (shapes[0] == shapes[1] == shapes[2]):
            raise ShapeError('select takes three operands of one shape')
        return shapes[0]
    if op == 'matmul':
        if n != 2:
            raise ShapeError('matmul takes two operands')
        a, b = shapes
        if len(a) < 2 or len(b) < 2:
            raise ShapeError('matmul needs operands of rank 2 or more')
        if a[-1] != b[-2]:
            raise ShapeError('inner dimensions differ: %s x %s' % (fmt_shape(a), fmt_shape(b)))
        return bshape(a[:-2], b[:-2]) + (a[-2], b[-1])
    if op in REDUCE or op == 'rms_norm':
        if n != 1:
            raise ShapeError('%s takes one operand' % op)
        s = shapes[0]
        ax = norm_axis(attrs, len(s))
        attrs['axis'] = ax
        if op == 'rms_norm':
            return s
        to = attrs.get('to', 1)
        if op == 'mean' and to != 1:
            raise ShapeError('mean takes no to')
        if to < 1 or s[ax] % to:
            raise ShapeError('cannot sum axis %d of size %d to %d' % (ax, s[ax], to))
        return s[:ax] + (to,) + s[ax + 1:]
    if op == 'iota':
        s = tuple(attrs['shape'])
        attrs['axis'] = norm_axis(attrs, len(s))
        return s
    if op == 'reshape':
        if numel(attrs['shape']) != numel(shapes[0]):
            raise ShapeError('cannot reshape %s to %s' % (fmt_shape(shapes[0]), fmt_shape(attrs['shape'])))
        return tuple(attrs['shape'])
    if op == 'broadcast':
        s, t = shapes[0], tuple(attrs['shape'])
        if len(t) < len(s) or bshape(s, t) != t:
            raise ShapeError('cannot broadcast %s to %s' % (fmt_shape(s), fmt_shape(t)))
        return t
    if op == 'transpose':
        p, s = attrs['shape'], shapes[0]
        if sorted(p) != list(range(len(s))):
            raise ShapeError('not a permutation')
        return tuple(s[k] for k in p)
    if op == 'reverse':
        return shapes[0]
    if op == 'repeat':
        s = shapes[0]
        ax = norm_axis(attrs, len(s))
        attrs['axis'] = ax
        return s[:ax] + (s[ax] * attrs.get('times', 1),) + s[ax + 1:]
    if op == 'concat':
        s0 = shapes[0]
        ax = norm_axis(attrs, len(s0))
        attrs['axis'] = ax
        tot = 0
        for s in shapes:
            if len(s) != len(s0) or any(s[k] != s0[k] for k in range(len(s0)) if k != ax):
                raise ShapeError('concat operands do not fit')
            tot += s[ax]
        return s0[:ax] + (tot,) + s0[ax + 1:]
    raise Unsupported('operator %s' % op)


def result_dtype(op, dts):
    """The element type of op's result from its non-literal operands' types: a conversion
    gives its type, an iota f32, anything else the type of its first typed operand (f32
    when every operand is a literal) — docs/superopt.md §1: the tensors of one operator
    have one element type, literals adapt."""
    if op in CONV:
        return CONV[op]
    if op == 'iota' or not dts:
        return 'f32'
    return dts[0]


def fold(f, x, axis, to):
    """out[.., i, ..] = f-fold over j of x[.., j*to + i, ..], chunk 0 first (the order of
    axle's float domain; exact values do not depend on it)."""
    s = x.shape
    outer, L, inner = numel(s[:axis]), s[axis], numel(s[axis + 1:])
    nch = L // to
    d, out = x.data, []
    for o in range(outer):
        base = o * L * inner
        for i in range(to):
            for n in range(inner):
                acc = d[base + i * inner + n]
                for j in range(1, nch):
                    acc = f(acc, d[base + (j * to + i) * inner + n])
                out.append(acc)
    return T(s[:axis] + (to,) + s[axis + 1:], out)


def apply_op(D, op, attrs, ins):
    """op on tensors ins over domain D; attrs as infer() leaves them."""
    attrs = dict(attrs)
    shape = infer(op, attrs, [t.shape for t in ins])
    if op in EW1:
        f = D.unary[op]
        return T(shape, [f(v) for v in ins[0].data])
    if op in CONV:
        dt = CONV[op]
        return T(shape, [D.convert(dt, v) for v in ins[0].data])
    if op in EW2 or op in CMP:
        a, b = ins
        oa, ob = bcast_offsets(a.shape, shape), bcast_offsets(b.shape, shape)
        ad, bd = a.data, b.data
        if op in EW2:
            f = D.binary[op]
            return T(shape, [f(ad[i], bd[j]) for i, j in zip(oa, ob)])
        return T(shape, [D.compare(op, ad[i], bd[j]) for i, j in zip(oa, ob)])
    if op == 'select':
        m, a, b = ins
        return T(shape, [av if D.truth(mv) else bv for mv, av, bv in zip(m.data, a.data, b.data)])
    if op == 'matmul':
        a, b = ins
        m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
        bs = shape[:-2]
        oa = bcast_offsets(a.shape[:-2], bs)
        ob = bcast_offsets(b.shape[:-2], bs)
        add, mul = D.binary['add'], D.binary['mul']
        out = []
        for ia, ib in zip(oa, ob):
            A = a.data[ia * m * k:(ia + 1) * m * k]
            B = b.data[ib * k * n:(ib + 1) * k * n]
            for i in range(m):
                for j in range(n):
                    acc = mul(A[i * k], B[j])
                    for l in range(1, k):
                        acc = add(acc, mul(A[i * k + l], B[l * n + j]))
                    out.append(acc)
        return T(shape, out)
    if op == 'sum':
        return fold(D.binary['add'], ins[0], attrs['axis'], attrs.get('to', 1))
    if op == 'reduce_max':
        return fold(D.binary['max'], ins[0], attrs['axis'], attrs.get('to', 1))
    if op == 'reduce_min':
        return fold(D.binary['min'], ins[0], attrs['axis'], attrs.get('to', 1))
    if op == 'mean':
        s = fold(D.binary['add'], ins[0], attrs['axis'], 1)
        c = D.const(Q(1, ins[0].shape[attrs['axis']]))
        mul = D.binary['mul']
        return T(s.shape, [mul(v, c) for v in s.data])
    if op == 'rms_norm':
        x = ins[0]
        sq = T(x.shape, [D.unary['square'](v) for v in x.data])
        r = apply_op(D, 'mean', {'axis': attrs['axis']}, [sq])
        r = T(r.shape, [D.unary['sqrt'](v) for v in r.data])
        return apply_op(D, 'div', {}, [x, r])
    if op == 'iota':
        ax = attrs['axis']
        st = strides(shape)
        return T(shape, [D.const(Q((i // st[ax]) % shape[ax])) for i in range(numel(shape))])
    if op == 'reshape':
        return T(shape, list(ins[0].data))
    if op == 'broadcast':
        x = ins[0]
        return T(shape, [x.data[i] for i in bcast_offsets(x.shape, shape)])
    if op == 'transpose':
        x, p = ins[0], attrs['shape']
        xs = strides(x.shape)
        out = []
        for idx in itertools.product(*[range(d) for d in shape]):
            out.append(x.data[sum(idx[k] * xs[p[k]] for k in range(len(p)))])
        return T(shape, out)
    if op == 'reverse':
        x, axes = ins[0], set(attrs['shape'])
        xs = strides(x.shape)
        out = []
        for idx in itertools.product(*[range(d) for d in shape]):
            out.append(x.data[sum((shape[k] - 1 - idx[k] if k in axes else idx[k]) * xs[k]
                                  for k in range(len(shape)))])
        return T(shape, out)
    if op == 'repeat':
        x, ax, times = ins[0], attrs['axis'], attrs.get('times', 1)
        xs = strides(x.shape)
        out = []
        for idx in itertools.product(*[range(d) for d in shape]):
            out.append(x.data[sum((idx[k] // times if k == ax else idx[k]) * xs[k]
                                  for k in range(len(shape)))])
        return T(shape, out)
    if op == 'concat':
        ax = attrs['axis']
        outer = numel(shape[:ax])
        out = []
        for o in range(outer):
            for t in ins:
                run = numel(t.shape[ax:])
                out.extend(t.data[o * run:(o + 1) * run])
        return T(shape, out)
    raise Unsupported('operator %s' % op)


def store_tensor(D, dt, t):
    return T(t.shape, D.store(dt, t.data))


# ---------------------------------------------------------------------------------------
# Text: one scanner for .axl program blocks and .mug files.
# ---------------------------------------------------------------------------------------

class ParseError(Exception):
    pass


TOKEN_RE = re.compile(r"""
    (?P<ws>[ \t\r]+) | (?P<comment>\#[^\n]*) | (?P<nl>\n)
  | (?P<num>[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<p>[-+*/(){}\[\],:=])
""", re.X)


def tokenize(text):
    toks, pos, line = [], 0, 1
    while pos < len(text):
        m = TOKEN_RE.match(text, pos)
        if not m:
            raise ParseError('line %d: bad character %r' % (line, text[pos]))
        k = m.lastgroup
        if k == 'nl':
            line += 1
        elif k in ('num', 'id', 'p'):
            toks.append((k, m.group(), line))
        pos = m.end()
    toks.append(('eof', '', line))
    return toks


class Scanner:
    def __init__(self, text):
        self.t = tokenize(text)
        self.i = 0

    def peek(self, k=0):
        return self.t[min(self.i + k, len(self.t) - 1)]

    def next(self):
        tok = self.t[self.i]
        if tok[0] != 'eof':
            self.i += 1
        return tok

    def at(self, text):
        tok = self.peek()
        return tok[1] == text and tok[0] in ('p', 'id')

    def accept(self, text):
        if self.at(text):
            return self.next()
        return None

    def expect(self, text):
        tok = self.next()
        if tok[1] != text or tok[0] not in ('p', 'id'):
            raise ParseError('line %d: expected %r, found %r' % (tok[2], text, tok[1]))
        return tok

    def ident(self):
        tok = self.next()
        if tok[0] != 'id':
            raise ParseError('line %d: expected a name, found %r' % (tok[2], tok[1]))
        return tok[1]

    def integer(self, neg_ok=True):
        neg = neg_ok and self.accept('-')
        tok = self.next()
        if tok[0] != 'num' or not tok[1].isdigit():
            raise ParseError('line %d: expected an integer, found %r' % (tok[2], tok[1]))
        return -int(tok[1]) if neg else int(tok[1])

    def ints(self):
        self.expect('[')
        out = [self.integer()]
        while self.accept(','):
            out.append(self.integer())
        self.expect(']')
        return out


# ---------------------------------------------------------------------------------------
# Programs (docs/superopt.md §1). Expressions are tuples:
#   ('num', Fraction, text) ('name', n) ('neg', e) ('bin', '+'|'-'|'*'|'/', l, r)
#   ('call', fn, [(attr-name or None, expr)]) ('list', [ints])
# ---------------------------------------------------------------------------------------

BIN_OPS = {'+': 'add', '-': 'sub', '*': 'mul', '/': 'div'}
ATTRS = ('axis', 'to', 'times')


class Program:
    def __init__(self, name):
        self.name = name
        self.inputs = []      # (name, dtype, shape)
        self.stmts = []       # ('let' | 'output', name, expr or None)

    def copy(self):
        p = Program(self.name)
        p.inputs = list(self.inputs)
        p.stmts = list(self.stmts)
        return p

    @property
    def outputs(self):
        return [s[1] for s in self.stmts if s[0] == 'output']

    def text(self):
        lines = ['program %s {' % self.name]
        for n, dt, s in self.inputs:
            lines.append('  input %s : %s%s' % (n, dt, fmt_shape(s)))
        for k, n, e in self.stmts:
            lines.append('  %s %s%s' % (k, n, '' if e is None else ' = ' + pe(e)))
        lines.append('}')
        return '\n'.join(lines) + '\n'


def pe(e, ctx=0):
    """Prints an expression; ctx is the binding strength around it (1 +-, 2 */, 3 unary)."""
    k = e[0]
    if k == 'num':
        return e[2]
    if k == 'name':
        return e[1]
    if k == 'list':
        return fmt_shape(e[1])
    if k == 'neg':
        s = '-' + pe(e[1], 3)
        return '(%s)' % s if ctx > 2 else s
    if k == 'bin':
        lv = 1 if e[1] in '+-' else 2
        s = '%s %s %s' % (pe(e[2], lv), e[1], pe(e[3], lv + 1))
        return '(%s)' % s if ctx > lv else s
    if k == 'call':
        parts = []
        for an, a in e[2]:
            parts.append('%s = %s' % (an, pe(a)) if an else pe(a))
        return '%s(%s)' % (e[1], ', '.join(parts))
    raise ValueError(e)


def num(text):
    """A literal expression for a decimal text such as '0.5' or '-1000'."""
    neg = text.startswith('-')
    lit = ('num', Q(text.lstrip('-')), text.lstrip('-'))
    return ('neg', lit) if neg else lit


def parse_program(text, want=None):
    """The first program block of text (or the one named want)."""
    sc = Scanner(text)
    found = []
    while sc.peek()[0] != 'eof':
        tok = sc.next()
        if tok[1] == 'program':
            found.append(program_block(sc))
        elif tok[1] == '{':
            depth = 1
            while depth and sc.peek()[0] != 'eof':
                t = sc.next()[1]
                depth += t == '{'
                depth -= t == '}'
    for p in found:
        if want is None or p.name == want:
            return p
    raise ParseError('no program block%s' % (' named ' + want if want else ''))


def program_block(sc):
    p = Program(sc.ident())
    sc.expect('{')
    while not sc.accept('}'):
        kw = sc.ident()
        if kw == 'input':
            names = [sc.ident()]
            while sc.accept(','):
                names.append(sc.ident())
            sc.expect(':')
            dt = sc.ident()
            if dt not in FORMATS:
                raise ParseError('unknown element type %s' % dt)
            shape = tuple(sc.ints())
            for n in names:
                p.inputs.append((n, dt, shape))
        elif kw == 'let':
            n = sc.ident()
            sc.expect('=')
            p.stmts.append(('let', n, expr(sc)))
        elif kw == 'output':
            n = sc.ident()
            e = expr(sc) if sc.accept('=') else None
            p.stmts.append(('output', n, e))
        else:
            raise ParseError('line %d: unexpected %r in a program' % (sc.peek()[2], kw))
    return p


def expr(sc, level=1):
    if level == 3:
        if sc.accept('-'):
            return ('neg', expr(sc, 3))
        return primary(sc)
    e = expr(sc, level + 1)
    ops = '+-' if level == 1 else '*/'
    while sc.peek()[0] == 'p' and sc.peek()[1] in ops:
        op = sc.next()[1]
        e = ('bin', op, e, expr(sc, level + 1))
    return e


def primary(sc):
    tok = sc.peek()
    if tok[0] == 'num':
        sc.next()
        return ('num', Q(tok[1]), tok[1])
    if tok[1] == '(':
        sc.next()
        e = expr(sc)
        sc.expect(')')
        return e
    if tok[1] == '[':
        return ('list', sc.ints())
    n = sc.ident()
    if not sc.accept('('):
        return ('name', n)
    args = []
    while not sc.accept(')'):
        if args:
            sc.expect(',')
        if sc.peek()[0] == 'id' and sc.peek(1)[1] == '=':
            an = sc.ident()
            sc.expect('=')
            args.append((an, expr(sc)))
        else:
            args.append((None, expr(sc)))
    return ('call', n, args)


def attr_value(e):
    if e[0] == 'num' and e[1].denominator == 1:
        return int(e[1])
    if e[0] == 'neg' and e[1][0] == 'num' and e[1][1].denominator == 1:
        return -int(e[1][1])
    raise ShapeError('an attribute must be an integer')


class Val:
    """A program value while typing: shape, element type, whether it is a literal, and
    the most exponentials on one path from an input to it (the Lax fragment's count)."""
    __slots__ = ('shape', 'dtype', 'anon', 'nexp')

    def __init__(self, shape, dtype, anon=False, nexp=0):
        self.shape, self.dtype, self.anon, self.nexp = shape, dtype, anon, nexp


def call_parts(e):
    """(operator, operand expressions, attrs) of a call or operator expression."""
    if e[0] == 'bin':
        return BIN_OPS[e[1]], [e[2], e[3]], {}
    if e[0] == 'neg':
        return 'neg', [e[1]], {}
    ops, attrs = [], {}
    for an, a in e[2]:
        if an in ATTRS:
            attrs[an] = attr_value(a)
        elif an is not None:
            raise ShapeError('%s takes no attribute %s' % (e[1], an))
        elif a[0] == 'list':
            attrs['shape'] = list(a[1])
        else:
            ops.append(a)
    return e[1], ops, attrs


def literal_of(e):
    """The Fraction of a literal expression (a number, or a negated one), else None."""
    if e[0] == 'num':
        return e[1]
    if e[0] == 'neg' and e[1][0] == 'num':
        return -e[1][1]
    return None


def type_program(p, partial=False):
    """Shapes and element types of every name of p (axle's rules: the non-literal operands
    of one operator share one element type); {name: Val}, or ShapeError/Unsupported. A
    partial program (the generator's, while it grows) needs no output."""
    env = {}
    for n, dt, s in p.inputs:
        if n in env:
            raise ShapeError('%s is defined twice' % n)
        env[n] = Val(tuple(s), dt)

    def ty(e):
        q = literal_of(e)
        if q is not None:
            return Val((), 'f32', anon=True)
        if e[0] == 'name':
            if e[1] not in env:
                raise ShapeError('%s is not defined' % e[1])
            return env[e[1]]
        op, args, attrs = call_parts(e)
        if op not in OPS:
            raise Unsupported('operator %s' % op)
        vs = [ty(a) for a in args]
        dts = [v.dtype for v in vs if not v.anon]
        if len(set(dts)) > 1:
            raise ShapeError('%s: operands have different element types (%s)' % (op, ', '.join(dts)))
        shape = infer(op, attrs, [v.shape for v in vs])
        nexp = max([v.nexp for v in vs] or [0]) + (op in EXPLIKE)
        return Val(shape, result_dtype(op, dts), anon=False, nexp=nexp)

    for k, n, e in p.stmts:
        if e is None:
            if n not in env:
                raise ShapeError('output %s is not defined' % n)
            continue
        if n in env:
            raise ShapeError('%s is defined twice' % n)
        env[n] = ty(e)
        if env[n].anon:
            raise ShapeError('%s is a bare literal' % n)
    if not p.outputs and not partial:
        raise ShapeError('no output')
    return env


def lit_tensor(D, q):
    return T((), [D.const(q)])


def eval_program(p, D, inputs):
    """{output: T} of program p over domain D at inputs ({name: T}); every operator's result
    stored in its element type (the Float domain rounds when its storage is on)."""
    types = type_program(p)
    env = {n: (t, types[n].dtype) for n, t in inputs.items()}

    def value(e):
        """(tensor, element type or None for a literal) of e."""
        q = literal_of(e)
        if q is not None:
            return lit_tensor(D, q), None
        if e[0] == 'name':
            return env[e[1]]
        op, args, attrs = call_parts(e)
        got = [value(a) for a in args]
        dt = result_dtype(op, [d for _, d in got if d is not None])
        return store_tensor(D, dt, apply_op(D, op, attrs, [t for t, _ in got])), dt

    live = live_program(p)
    for k, n, e in p.stmts:
        if e is not None and n in live:
            env[n] = value(e)
    return {n: env[n][0] for n in p.outputs}


def expr_names(e, out):
    """The names expression e reads, added to the set out."""
    if isinstance(e, tuple):
        if len(e) == 2 and e[0] == 'name' and isinstance(e[1], str):
            out.add(e[1])
            return
        for x in e:
            expr_names(x, out)
    elif isinstance(e, list):
        for x in e:
            expr_names(x, out)


def live_program(p):
    """The names of p's statements that reach an output. Dead code has no say in a value:
    axle drops it before it checks anything (docs/superopt.md §1, "Dead code"), and a root of
    a negative value there is no missing value of the program."""
    live = set(p.outputs)
    for k, n, e in reversed(p.stmts):
        if e is not None and n in live:
            expr_names(e, live)
    return live


def live_graph(g):
    """(tensor names, {kernel name: node indices}) of validated g that reach an output, as
    live_program: a pre-defined statement whose tensor is read, a saver whose tensor is, the
    block nodes such a saver reads (a rescaled sum's max too), a tile's source."""
    live, nodes = set(g.outputs), {}
    for st in reversed(g.stmts):
        if st['k'] == 'op':
            if st['name'] in live:
                live.update(a[1] for a in st['args'] if a[0] == 'name')
            continue
        ns = st['all']
        keep = set(i for i, n in enumerate(ns) if n['k'] == 'save' and n['name'] in live)
        for i in range(len(ns) - 1, -1, -1):
            if i not in keep:
                continue
            keep.update(ns[i].get('ins', []))
            if ns[i].get('rescale_i') is not None:
                keep.add(ns[i]['rescale_i'])
            if ns[i]['k'] == 'iter':
                live.add(ns[i]['src'])
        nodes[st['name']] = keep
    return live, nodes


# ---------------------------------------------------------------------------------------
# μGraphs (.mug, docs/superopt.md §2): parsed, validated (shapes, element types, phases,
# divisibility, omaps) and executed block by block, iteration by iteration.
# ---------------------------------------------------------------------------------------

class GraphError(Exception):
    pass


GAXIS = 'xyz'


class Graph:
    def __init__(self, name):
        self.name = name
        self.inputs = []     # (name, dtype, shape)
        self.stmts = []      # dicts: k = 'op' | 'kernel'; 'line'
        self.outputs = []
        self.tensors = {}    # name -> (shape, dtype), filled by check_graph


def g_map(sc):
    m = [-1, -1, -1]
    sc.expect('{')
    while not sc.accept('}'):
        if m != [-1, -1, -1] or sc.peek()[1] == ',':
            sc.accept(',')
        ax = sc.ident()
        if ax not in GAXIS:
            raise ParseError('map key %r' % ax)
        sc.expect(':')
        m[GAXIS.index(ax)] = -1 if sc.accept('-') else sc.integer(False)
    return m


def g_call(sc):
    """OP '(' args ')' -> (op, args, attrs, rescale); args ('name', n) | ('lit', q, text)."""
    op = sc.ident()
    sc.expect('(')
    args, attrs, rescale = [], {}, None
    while not sc.accept(')'):
        if args or attrs or rescale:
            sc.expect(',')
        tok = sc.peek()
        if tok[0] == 'id' and sc.peek(1)[1] == '=':
            an = sc.ident()
            sc.expect('=')
            if an == 'rescale':
                rescale = sc.ident()
            elif an in ATTRS:
                attrs[an] = sc.integer()
            else:
                raise ParseError('line %d: unknown attribute %s' % (tok[2], an))
        elif tok[0] == 'id':
            args.append(('name', sc.ident()))
        elif tok[1] == '[':
            attrs['shape'] = sc.ints()
        else:
            neg = sc.accept('-')
            t = sc.next()
            if t[0] != 'num':
                raise ParseError('line %d: expected an operand, found %r' % (t[2], t[1]))
            q = Q(t[1])
            args.append(('lit', -q if neg else q, ('-' if neg else '') + t[1]))
    return op, args, attrs, rescale


def parse_graph(text):
    sc = Scanner(text)
    sc.expect('mugraph')
    g = Graph(sc.ident())
    sc.expect('{')
    while not sc.accept('}'):
        tok = sc.peek()
        line = tok[2]
        if tok[1] == 'input' and sc.peek(1)[1] != '=':
            sc.next()
            names = [sc.ident()]
            while sc.accept(','):
                names.append(sc.ident())
            sc.expect(':')
            dt = sc.ident()
            if dt not in FORMATS:
                raise ParseError('line %d: unknown element type %s' % (line, dt))
            shape = tuple(sc.ints())
            for n in names:
                g.inputs.append((n, dt, shape))
        elif tok[1] == 'output' and sc.peek(1)[1] != '=':
            sc.next()
            g.outputs.append(sc.ident())
            while sc.accept(','):
                g.outputs.append(sc.ident())
        elif tok[1] == 'kernel' and sc.peek(1)[1] != '=':
            sc.next()
            g.stmts.append(g_kernel(sc, line))
        else:
            n = sc.ident()
            sc.expect('=')
            op, args, attrs, rescale = g_call(sc)
            if rescale:
                raise ParseError('line %d: rescale outside an accumulator' % line)
            g.stmts.append({'k': 'op', 'name': n, 'op': op, 'args': args, 'attrs': attrs, 'line': line})
    if sc.peek()[0] != 'eof':
        raise ParseError('text after the graph')
    return g


def g_kernel(sc, line):
    k = {'k': 'kernel', 'name': sc.ident(), 'line': line, 'block': [128, 1, 1], 'forloop': 1, 'nodes': []}
    sc.expect('grid')
    k['grid'] = sc.ints()
    if sc.accept('block'):
        k['block'] = sc.ints()
    if sc.accept('forloop'):
        k['forloop'] = sc.integer(False)
    if len(k['grid']) != 3 or len(k['block']) != 3:
        raise ParseError('line %d: grid and block take three sizes' % line)
    sc.expect('{')
    b_body(sc, k, -1)
    return k


def b_body(sc, k, thread):
    nthreads = [0]
    while not sc.accept('}'):
        tok = sc.peek()
        line = tok[2]
        if tok[1] == 'thread' and sc.peek(1)[1] == '{' and thread < 0:
            sc.next()
            sc.next()
            k.setdefault('nthreads', 0)
            k['nthreads'] += 1
            b_body(sc, k, k['nthreads'])
            continue
        if tok[1] == 'output' and sc.peek(1)[1] != '=':
            sc.next()
            dst = sc.ident()
            sc.expect('=')
            src = sc.ident()
            sc.expect('omap')
            k['nodes'].append({'k': 'save', 'name': dst, 'arg': src, 'omap': g_map(sc), 'line': line})
            continue
        n = sc.ident()
        sc.expect('=')
        if sc.at('input') and sc.peek(1)[0] == 'id':
            sc.next()
            src = sc.ident()
            sc.expect('imap')
            imap = g_map(sc)
            fmap = -1
            if sc.accept('fmap'):
                fmap = -1 if sc.accept('-') else sc.integer(False)
            k['nodes'].append({'k': 'iter', 'name': n, 'src': src, 'imap': imap, 'fmap': fmap, 'line': line})
            continue
        acc = bool(sc.accept('accum'))
        op, args, attrs, rescale = g_call(sc)
        node = {'k': 'accum' if acc else 'op', 'name': n, 'op': op, 'args': args, 'attrs': attrs,
                'rescale': rescale, 'thread': thread, 'line': line}
        if acc and op not in ('sum', 'concat', 'rms', 'max'):
            raise ParseError('line %d: unknown accumulator %s' % (line, op))
        if rescale and not acc:
            raise ParseError('line %d: rescale on an operator' % line)
        if not acc and op == 'iota':
            sc.expect('imap')
            node['imap'] = g_map(sc)
            node['fmap'] = -1
            if sc.accept('fmap'):
                node['fmap'] = -1 if sc.accept('-') else sc.integer(False)
        k['nodes'].append(node)


def tile(full, m, fmap, grid, R, b, it):
    """(tile shape, offset) of the tile the maps cut from dims `full` for block b and
    iteration it: grid axes mapped to one dim cut it in x, y, z order (x outermost), the
    for-loop cuts each block's chunk (docs/superopt.md §2)."""
    shape, off = [], []
    for d in range(len(full)):
        parts, h = 1, 0
        for gx in range(3):
            if m[gx] == d:
                parts *= grid[gx]
                h = h * grid[gx] + b[gx]
        chunk = full[d] // parts
        o, sz = h * chunk, chunk
        if fmap == d:
            sz = chunk // R
            o += it * sz
        shape.append(sz)
        off.append(o)
    return tuple(shape), off


def box_offsets(full, shape, off):
    st = strides(full)
    offs = [0]
    for d in range(len(full)):
        offs = [o + (off[d] + k) * st[d] for o in offs for k in range(shape[d])]
    return offs


def load_box(x, shape, off):
    return T(shape, [x.data[i] for i in box_offsets(x.shape, shape, off)])


def store_box(dst, t, off):
    for i, v in zip(box_offsets(dst.shape, t.shape, off), t.data):
        dst.data[i] = v


def check_split(what, full, m, fmap, grid, R):
    for gx in range(3):
        if m[gx] >= len(full):
            raise GraphError('%s: grid.%s maps to dim %d of a rank-%d tensor' % (what, GAXIS[gx], m[gx], len(full)))
    if fmap >= len(full):
        raise GraphError('%s: fmap names dim %d of a rank-%d tensor' % (what, fmap, len(full)))
    for d in range(len(full)):
        parts = 1
        for gx in range(3):
            if m[gx] == d:
                parts *= grid[gx]
        if fmap == d:
            parts *= R
        if full[d] % parts:
            raise GraphError('%s: dim %d (size %d) is not divisible by %d' % (what, d, full[d], parts))


def check_graph(g):
    """Validates g as docs/superopt.md §2 states it and fills, per kernel node, 'shape',
    'dtype', 'phase' (inv, loop, post) and 'ins' (operand node indices), and g.tensors.
    Element types follow the operators' rule (result_dtype: a conversion gives its type).
    Raises GraphError."""
    tens = {}
    for n, dt, s in g.inputs:
        if n in tens:
            raise GraphError('input %s twice' % n)
        tens[n] = (tuple(s), dt)
    for st in g.stmts:
        if st['k'] == 'op':
            shapes, dts = [], []
            for a in st['args']:
                if a[0] == 'lit':
                    shapes.append(())
                else:
                    if a[1] not in tens:
                        raise GraphError("'%s' is not defined" % a[1])
                    shapes.append(tens[a[1]][0])
                    dts.append(tens[a[1]][1])
            if st['op'] not in OPS:
                raise Unsupported('operator %s' % st['op'])
            try:
                shape = infer(st['op'], st['attrs'], shapes)
            except ShapeError as e:
                raise GraphError('%s: %s' % (st['name'], e))
            if st['name'] in tens:
                raise GraphError("'%s' is defined twice" % st['name'])
            tens[st['name']] = (shape, result_dtype(st['op'], dts))
        else:
            check_kernel(g, st, tens)
    for o in g.outputs:
        if o not in tens:
            raise GraphError("output '%s' is not defined" % o)
    if not g.outputs:
        raise GraphError('no output')
    g.tensors = tens


def check_kernel(g, k, tens):
    grid, R = k['grid'], k['forloop']
    if min(grid) < 1 or min(k['block']) < 1 or R < 1:
        raise GraphError('kernel %s: sizes must be at least 1' % k['name'])
    names = {}
    nodes = []      # the kernel's nodes with anonymous literal nodes inserted, as axle builds them
    for n in k['nodes']:
        kname = '%s: %s' % (k['name'], n['name'])
        if n['k'] == 'iter':
            if n['src'] not in tens:
                raise GraphError("kernel %s: '%s' is not a kernel tensor" % (k['name'], n['src']))
            full, dt = tens[n['src']]
            check_split(kname, full, n['imap'], n['fmap'], grid, R)
            n['shape'] = tile(full, n['imap'], n['fmap'], grid, R, (0, 0, 0), 0)[0]
            n['dtype'], n['phase'] = dt, ('loop' if n['fmap'] >= 0 else 'inv')
            n['ins'] = []
        elif n['k'] == 'save':
            if n['arg'] not in names:
                raise GraphError("kernel %s: '%s' is not defined" % (k['name'], n['arg']))
            a = nodes[names[n['arg']]]
            if a['phase'] == 'loop' and R > 1:
                raise GraphError('%s saves a loop value' % kname)
            for gx in range(3):
                if n['omap'][gx] >= len(a['shape']):
                    raise GraphError('%s: omap grid.%s out of range' % (kname, GAXIS[gx]))
                if grid[gx] > 1 and n['omap'][gx] < 0:
                    raise GraphError('%s: grid.%s unmapped in the omap' % (kname, GAXIS[gx]))
            shape = list(a['shape'])
            for gx in range(3):
                if n['omap'][gx] >= 0:
                    shape[n['omap'][gx]] *= grid[gx]
            if n['name'] in tens:
                raise GraphError("'%s' is defined twice" % n['name'])
            tens[n['name']] = (tuple(shape), a['dtype'])
            n['ins'] = [names[n['arg']]]
            n['shape'], n['dtype'], n['phase'] = a['shape'], a['dtype'], 'post'
            nodes.append(n)
            continue
        else:
            ins = []
            for a in n['args']:
                if a[0] == 'lit':
                    nodes.append({'k': 'lit', 'name': a[2], 'value': a[1], 'shape': (), 'dtype': 'f32',
                                  'phase': 'inv', 'ins': []})
                    ins.append(len(nodes) - 1)
                else:
                    if a[1] not in names:
                        raise GraphError("kernel %s: '%s' is not defined before '%s'" % (k['name'], a[1], n['name']))
                    ins.append(names[a[1]])
            n['ins'] = ins
            if n.get('rescale'):
                if n['rescale'] not in names:
                    raise GraphError('%s: rescale names no node before it' % kname)
                n['rescale_i'] = names[n['rescale']]
            if n['k'] == 'accum':
                check_accum(k, n, nodes, kname)
            else:
                check_bop(k, n, nodes, kname)
        if n['name'] in names:
            raise GraphError("kernel %s: '%s' is defined twice" % (k['name'], n['name']))
        nodes.append(n)
        names[n['name']] = len(nodes) - 1
    k['all'] = nodes


def is_running(n):
    return n['k'] == 'accum' and n['op'] == 'max'


def check_bop(k, n, nodes, kname):
    op, R = n['op'], k['forloop']
    if op not in BLOCK_OPS:
        raise GraphError("%s: '%s' is not a block operator" % (kname, op))
    if n['thread'] >= 0 and not (op in EW1 or op in CONV or op in EW2 or op in CMP):
        raise GraphError('%s: a thread graph holds only element-wise operators' % kname)
    ins = [nodes[i] for i in n['ins']]
    running = any(is_running(a) for a in ins)
    has_loop = any(a['phase'] == 'loop' and not is_running(a) for a in ins)
    post_in = any(a['phase'] == 'post' and not is_running(a) for a in ins)
    has_post = post_in or (running and not has_loop)
    if has_loop and post_in and R > 1:
        raise GraphError('%s mixes a loop value and a post-loop value' % kname)
    phase = 'loop' if has_loop else 'post' if has_post else 'inv'
    if has_post and (post_in or R == 1):
        phase = 'post'
    try:
        shape = infer(op, n['attrs'], [a['shape'] for a in ins])
    except ShapeError as e:
        raise GraphError('%s: %s' % (kname, e))
    n['dtype'] = result_dtype(op, [a['dtype'] for a in ins if a['k'] != 'lit'])
    if op == 'iota':
        check_split(kname, shape, n['imap'], n['fmap'], k['grid'], R)
        shape = tile(shape, n['imap'], n['fmap'], k['grid'], R, (0, 0, 0), 0)[0]
        phase = 'loop' if n['fmap'] >= 0 else 'inv'
    n['shape'], n['phase'] = shape, phase


def check_accum(k, n, nodes, kname):
    if len(n['ins']) != 1:
        raise GraphError('%s: an accumulator takes one operand' % kname)
    a = nodes[n['ins'][0]]
    if a['phase'] == 'post':
        raise GraphError('%s accumulates a post-loop value' % kname)
    n['dtype'], n['phase'] = a['dtype'], 'post'
    s = list(a['shape'])
    acc = n['op']
    if n.get('rescale'):
        m = nodes[n['rescale_i']]
        if acc != 'sum' or not is_running(m):
            raise GraphError('%s: only accum sum takes rescale, by an accum max' % kname)
    if not (acc in ('sum', 'max') and 'axis' not in n['attrs']):
        if not s:
            raise GraphError('%s needs an operand with dimensions' % kname)
        ax = n['attrs'].get('axis', len(s) - 1)
        ax = ax + len(s) if ax < 0 else ax
        if not 0 <= ax < len(s):
            raise GraphError('%s: axis out of range' % kname)
        n['attrs']['axis'] = ax
        if acc == 'concat':
            s[ax] *= k['forloop']
        elif acc in ('rms', 'max'):
            s[ax] = 1
        else:
            to = n['attrs'].get('to', 1)
            if to < 1 or s[ax] % to:
                raise GraphError('%s: cannot sum axis %d of size %d to %d' % (kname, ax, s[ax], to))
            s[ax] = to
    n['shape'] = tuple(s)
    if n.get('rescale'):
        m = nodes[n['rescale_i']]
        if len(m['shape']) != len(s) or any(md not in (1, sd) for md, sd in zip(m['shape'], s)):
            raise GraphError('%s: its rescale does not broadcast onto its state' % kname)


def eval_graph(g, D, inputs):
    """{output: T} of the validated graph g over domain D at inputs ({name: T})."""
    vals = dict(inputs)
    live, nodes = live_graph(g)
    for st in g.stmts:
        if st['k'] == 'op':
            if st['name'] not in live:
                continue
            ins = [lit_tensor(D, a[1]) if a[0] == 'lit' else vals[a[1]] for a in st['args']]
            r = apply_op(D, st['op'], st['attrs'], ins)
            vals[st['name']] = store_tensor(D, g.tensors[st['name']][1], r)
        elif nodes[st['name']]:
            run_kernel(g, st, D, vals, nodes[st['name']])
    return {o: vals[o] for o in g.outputs}


def contribution(D, n, v):
    """An accumulator's value of one iteration: v, or v summed (max: reduced) along its axis
    (rms: v squared first)."""
    acc = n['op']
    if acc in ('sum', 'max') and 'axis' not in n['attrs']:
        return v
    ax = n['attrs']['axis']
    if acc == 'rms':
        v = T(v.shape, [D.unary['square'](x) for x in v.data])
    if acc == 'max':
        return fold(D.binary['max'], v, ax, 1)
    return fold(D.binary['add'], v, ax, n['attrs'].get('to', 1) if acc == 'sum' else 1)


def run_kernel(g, k, D, vals, keep):
    """Runs kernel k, only its nodes `keep` (live_graph), into vals."""
    grid, R = k['grid'], k['forloop']
    # a dead node is never computed: a placeholder that nothing live reads
    nodes = [n if i in keep else dict(n, k='dead', phase='dead') for i, n in enumerate(k['all'])]
    for n in nodes:
        if n['k'] == 'save':
            shape, _ = g.tensors[n['name']]
            vals[n['name']] = T(shape, [None] * numel(shape))
    mul, add = D.binary['mul'], D.binary['add']

    def compute(i, n, t, it, b):
        if n['op'] == 'iota':
            full = tuple(n['attrs']['shape'])
            shape, off = tile(full, n['imap'], n['fmap'], grid, R, b, it)
            ax = n['attrs']['axis']
            st = strides(shape)
            return T(shape, [D.const(Q(off[ax] + (j // st[ax]) % shape[ax])) for j in range(numel(shape))])
        ins = []
        for j in n['ins']:
            a = nodes[j]
            # a loop operator reads a running max's guarded value, the post phase its raw one
            ins.append(t[j])
        r = apply_op(D, n['op'], n['attrs'], ins)
        return T(r.shape, D.store(n['dtype'], r.data))

    for b in itertools.product(range(grid[0]), range(grid[1]), range(grid[2])):
        t, raw, mprev = {}, {}, {}
        for i, n in enumerate(nodes):
            if n['k'] == 'accum' and n['op'] != 'concat':
                t[i] = T(n['shape'], [D.const(Q(0))] * numel(n['shape']))
            elif n['k'] == 'accum':
                t[i] = T(n['shape'], [None] * numel(n['shape']))
            if n['phase'] != 'inv':
                continue
            if n['k'] == 'lit':
                t[i] = lit_tensor(D, n['value'])
            elif n['k'] == 'iter':
                src = vals[n['src']]
                shape, off = tile(src.shape, n['imap'], n['fmap'], grid, R, b, 0)
                t[i] = load_box(src, shape, off)
            elif n['k'] == 'op':
                t[i] = compute(i, n, t, 0, b)
        for it in range(R):
            for i, n in enumerate(nodes):
                if n['k'] == 'iter' and n['phase'] == 'loop':
                    src = vals[n['src']]
                    shape, off = tile(src.shape, n['imap'], n['fmap'], grid, R, b, it)
                    t[i] = load_box(src, shape, off)
                elif n['k'] == 'op' and n['phase'] == 'loop':
                    t[i] = compute(i, n, t, it, b)
                elif n['k'] == 'accum':
                    v = t[n['ins'][0]]
                    if n['op'] == 'concat':
                        ax = n['attrs']['axis']
                        off = [0] * len(v.shape)
                        off[ax] = it * v.shape[ax]
                        store_box(t[i], v, off)
                        continue
                    c = contribution(D, n, v)
                    if n['op'] == 'max':
                        if it == 0:
                            raw[i] = list(c.data)
                        else:
                            raw[i] = [D.binary['max'](x, y) for x, y in zip(raw[i], c.data)]
                        raw[i] = D.acc_store(raw[i])
                        t[i] = T(n['shape'], [D.guard(x) for x in raw[i]])
                        continue
                    state = t[i].data
                    if n.get('rescale'):
                        m = n['rescale_i']
                        if it > 0:
                            # s <- s * exp(m_prev - m_now): m_now the guarded max the loop reads
                            f = T(nodes[m]['shape'], [D.unary['exp'](D.binary['sub'](p, q))
                                                      for p, q in zip(mprev[i], t[m].data)])
                            offs = bcast_offsets(f.shape, n['shape'])
                            state = [mul(s, f.data[o]) for s, o in zip(state, offs)]
                        mprev[i] = list(raw[m])
                    state = [add(s, x) for s, x in zip(state, c.data)]
                    t[i] = T(n['shape'], D.acc_store(state))
        for i, n in enumerate(nodes):
            if n['k'] == 'accum':
                data = t[i].data
                if n['op'] == 'max':
                    data = list(raw[i])
                elif n['op'] == 'rms':
                    ln = nodes[n['ins'][0]]['shape'][n['attrs']['axis']]
                    c = D.const(Q(1, R * ln))
                    data = [D.unary['sqrt'](mul(x, c)) for x in data]
                t[i] = T(n['shape'], D.store(n['dtype'], data))
            elif n['k'] == 'op' and n['phase'] == 'post':
                t[i] = compute(i, n, t, R - 1, b)
            elif n['k'] == 'save':
                dst = vals[n['name']]
                _, off = tile(dst.shape, n['omap'], -1, grid, 1, b, 0)
                store_box(dst, t[n['ins'][0]], off)
    for n in nodes:
        if n['k'] == 'save' and any(v is None for v in vals[n['name']].data):
            raise GraphError("kernel %s: output '%s' is not written everywhere" % (k['name'], n['name']))


# ---------------------------------------------------------------------------------------
# The brute force's judgement of a (program, graph) pair.
# ---------------------------------------------------------------------------------------

def draw_exact(dt, rng, kind):
    """One input element, a value of element type dt: a small integer, or a value in
    [0.25, 2) with every fraction bit of the type random (so conversions round it)."""
    if kind == 'int':
        return Q(rng.randint(-3, 3))
    mant = FORMATS[dt][0]
    m = rng.randrange(2 ** mant, 2 ** (mant + 1))
    q = Q(m, 2 ** (mant + rng.randint(0, 2)))
    return q if rng.random() < 0.5 else -q


def draw_float(dt, rng):
    return round_float(dt, rng.uniform(-0.5, 0.5))


def interface(prog, ptypes, g):
    """Why the graph's inputs or outputs are not the program's (names, shapes, element
    types), or None."""
    pin = {n: (tuple(s), dt) for n, dt, s in prog.inputs}
    gin = {n: (tuple(s), dt) for n, dt, s in g.inputs}
    for n in sorted(set(pin) | set(gin)):
        if n not in gin:
            return "the graph has no input '%s'" % n
        if n not in pin:
            return "the graph's input '%s' is no input of the program" % n
        if pin[n] != gin[n]:
            return "input '%s' is %s%s in the graph, %s%s in the program" % (
                n, gin[n][1], fmt_shape(gin[n][0]), pin[n][1], fmt_shape(pin[n][0]))
    pout = {n: (ptypes[n].shape, ptypes[n].dtype) for n in prog.outputs}
    gout = {n: g.tensors[n] for n in g.outputs}
    for n in sorted(set(pout) | set(gout)):
        if n not in gout:
            return "the graph has no output '%s'" % n
        if n not in pout:
            return "the graph's output '%s' is no output of the program" % n
        if pout[n][0] != tuple(gout[n][0]) or pout[n][1] != gout[n][1]:
            return "output '%s' is %s%s in the graph, %s%s in the program" % (
                n, gout[n][1], fmt_shape(gout[n][0]), pout[n][1], fmt_shape(pout[n][0]))
    return None


def rel_err(g, ref):
    """axle's float check's measure: max |g - ref| / max |ref| (inf when g is not finite
    where ref is), the absolute difference when ref is all 0 (equiv.c rel_error)."""
    top = max([abs(r) for r in ref.data if math.isfinite(r)] or [0.0])
    worst = 0.0
    for a, r in zip(g.data, ref.data):
        if not math.isfinite(r):
            continue
        if not math.isfinite(a):
            return INF
        worst = max(worst, abs(a - r))
    if top == 0:
        return worst
    return worst / top


def finite(t):
    return all(math.isfinite(v) for v in t.data)


class Oracle:
    """A program, its input points and its values there, computed once for every graph
    judged against it. Exact points: `npoints` (the first with small integers, the others
    with full-precision values of each input's type); float draws: `nfloat`, inputs uniform
    in [-0.5, 0.5] rounded to their type, as axle's float check draws them."""

    def __init__(self, prog, rng, npoints=4, nfloat=3):
        self.prog = prog
        self.types = type_program(prog)
        self.points, self.values, self.why = [], [], collections.Counter()
        for k in range(npoints):
            kind = 'int' if k == 0 else 'fine'
            pt = {n: T(s, [draw_exact(dt, rng, kind) for _ in range(numel(s))]) for n, dt, s in prog.inputs}
            # where the point has no value (a root or a division of an input), the same
            # magnitudes positive, then each one more than that (no zeros), in its type
            dts = {n: dt for n, dt, _ in prog.inputs}
            for alt in (pt, {n: T(t.shape, [abs(v) for v in t.data]) for n, t in pt.items()},
                        {n: T(t.shape, [round_exact(dts[n], abs(v) + 1) for v in t.data]) for n, t in pt.items()}):
                try:
                    self.values.append(eval_program(prog, Exact, alt))
                    self.points.append(alt)
                    break
                except (Undefined, Undecided) as e:
                    self.why[type(e).__name__.lower()] += 1
        self.floats = []
        for k in range(nfloat):
            pt = {n: T(s, [draw_float(dt, rng) for _ in range(numel(s))]) for n, dt, s in prog.inputs}
            ref = eval_program(prog, Float(False), pt)
            st = eval_program(prog, Float(True), pt)
            self.floats.append((pt, ref, st))

    def judge(self, g):
        """{'sep': 'interface' | 'values' | None, 'what': text, 'decided': points decided,
        'unstable': text or None}; GraphError when the graph does not validate here."""
        why = interface(self.prog, self.types, g)
        if why:
            return {'sep': 'interface', 'what': why, 'decided': 0, 'unstable': None}
        decided = 0
        for pt, want in zip(self.points, self.values):
            try:
                got = eval_graph(g, Exact, pt)
            except (DivZero, Undecided):
                continue
            except Undefined as e:
                return {'sep': 'values', 'decided': decided + 1, 'unstable': None,
                        'what': 'the graph has no real value where the program has one: %s' % e,
                        'point': {n: [x_show(v) for v in t.data] for n, t in pt.items()}}
            decided += 1
            for o in self.prog.outputs:
                for idx, (a, b) in enumerate(zip(got[o].data, want[o].data)):
                    if separated(a, b):
                        return {'sep': 'values', 'decided': decided, 'unstable': None,
                                'what': "output '%s' differs at %s: graph %s, program %s" % (
                                    o, list(unflat(idx, want[o].shape)), x_show(a), x_show(b)),
                                'point': {n: [x_show(v) for v in t.data] for n, t in pt.items()}}
        return {'sep': None, 'what': None, 'decided': decided, 'unstable': self.unstable(g)}

    def unstable(self, g):
        """Why the graph in its storage types is numerically unstable where the program in
        its own is not — on every float draw, by more than ten times the tolerance — or
        None."""
        bad = None
        for o in self.prog.outputs:
            tol = TOLERANCE[self.types[o].dtype]
            worst = None
            for pt, ref, st in self.floats:
                try:
                    got = eval_graph(g, Float(True), pt)[o]
                except (Undefined, Undecided):
                    return None
                pe_ = rel_err(st[o], ref[o])
                ge = rel_err(got, ref[o])
                ok_prog = pe_ <= tol and finite(st[o])
                off = ge > 10 * tol or (not finite(got) and finite(st[o]))
                if not (ok_prog and off):
                    worst = None
                    break
                worst = ge if worst is None else min(worst, ge)
            if worst is not None:
                bad = "output '%s' in storage types is off by a relative %.3g on every draw (tolerance %g; the program in its own storage is within it)" % (o, worst, tol)
                break
        return bad


def unflat(i, shape):
    idx = []
    for d in reversed(shape):
        idx.append(i % d)
        i //= d
    return idx[::-1]


# ---------------------------------------------------------------------------------------
# The program generator: small shapes, every operator family the superoptimizer handles,
# kept inside what the equivalence check decides (at most one exponential on a path, no
# comparison of data, no element-wise max/min), so that most pairs get a verdict.
# ---------------------------------------------------------------------------------------

LITERALS = ('0.5', '2', '0.25', '3', '1.5', '0.125', '0.1', '1e-3', '7')
SIZES = (2, 4, 4, 8, 8, 3, 6, 16)


class Gen:
    def __init__(self, rng, name):
        self.rng = rng
        self.p = Program(name)
        self.env = {}          # name -> Val
        self.nv = 0
        self.nin = 0
        self.dtype = rng.choice(('f16', 'bf16', 'f32', 'f32'))

    # ---- the pool ----
    def new_input(self, shape, dtype=None):
        n = 'XYWVUABCDE'[self.nin] if self.nin < 10 else 'I%d' % self.nin
        self.nin += 1
        dt = dtype or self.dtype
        self.p.inputs.append((n, dt, tuple(shape)))
        self.env[n] = Val(tuple(shape), dt)
        return n

    def let(self, e):
        n = 'v%d' % self.nv
        self.nv += 1
        self.p.stmts.append(('let', n, e))
        self.env[n] = type_program(self.p, partial=True)[n]
        return n

    def pick(self, pred=lambda v: True):
        names = [n for n, v in self.env.items() if pred(v)]
        if not names:
            return None
        # the recent values more often: chains, not a heap of unrelated pieces
        w = [1 + 2 * i for i in range(len(names))]
        return self.rng.choices(names, weights=w)[0]

    def lit(self):
        return num(self.rng.choice(LITERALS))

    # ---- steps ----
    def step(self):
        r = self.rng
        kinds = ['ew2', 'ew2', 'scale', 'ew1', 'ew1', 'matmul', 'matmul', 'reduce', 'softmax',
                 'rms', 'root', 'convert', 'mask']
        for _ in range(20):
            k = r.choice(kinds)
            e = getattr(self, 'g_' + k)()
            if e is not None:
                try:
                    return self.let(e)
                except (ShapeError, Unsupported):
                    self.p.stmts.pop()
        return None

    def same(self, n):
        v = self.env[n]
        return self.pick(lambda w: w.shape == v.shape and w.dtype == v.dtype)

    def bcastable(self, n):
        v = self.env[n]

        def ok(w):
            if w.dtype != v.dtype or len(w.shape) != len(v.shape):
                return False
            try:
                return bshape(w.shape, v.shape) == v.shape
            except ShapeError:
                return False
        return self.pick(ok)

    def g_ew2(self):
        a = self.pick()
        b = self.bcastable(a) if self.rng.random() < 0.4 else self.same(a)
        if b == a and self.rng.random() < 0.9:
            b = None        # a - a and a / a are mostly dull (0 and 1); some are kept
        if b is None:
            b = self.new_input(self.env[a].shape, self.env[a].dtype)
        op = self.rng.choice('+-*/' if self.rng.random() < 0.7 else '+-*')
        if op == '/':   # a divisor that is never 0: 1 + b*b, exp(b) or a positive literal
            b = self.rng.choice([('bin', '+', num('1'), ('bin', '*', ('name', b), ('name', b))),
                                 ('call', 'exp', [(None, ('name', b))]) if self.env[b].nexp == 0 else num('4')])
            return ('bin', op, ('name', a), b)
        x, y = ('name', a), ('name', b)
        return ('bin', op, x, y) if self.rng.random() < 0.7 else ('bin', op, y, x)

    def g_scale(self):
        a = self.pick()
        op = self.rng.choice('+-*/')
        e = ('bin', op, ('name', a), self.lit())
        return e if self.rng.random() < 0.7 or op == '/' else ('bin', op, self.lit(), ('name', a))

    def g_ew1(self):
        a = self.pick()
        v = self.env[a]
        fns = ['neg', 'square', 'sin', 'cos', 'erf'] + (['exp', 'tanh', 'logistic', 'silu'] if v.nexp == 0 else [])
        fn = self.rng.choice(fns)
        if fn == 'neg':
            return ('neg', ('name', a))
        if fn == 'exp':   # keep exp's argument small: a scaled operand
            return ('call', 'exp', [(None, ('bin', '*', ('name', a), num('0.5')))])
        return ('call', fn, [(None, ('name', a))])

    def g_root(self):
        a = self.pick()
        fn = self.rng.choice(('sqrt', 'rsqrt'))
        arg = ('bin', '+', ('bin', '*', ('name', a), ('name', a)), num(self.rng.choice(('0.5', '1', '1e-3'))))
        if self.rng.random() < 0.3 and len(self.env[a].shape) >= 1:
            arg = ('bin', '+', ('call', 'mean', [(None, ('bin', '*', ('name', a), ('name', a))),
                                                 ('axis', num(str(len(self.env[a].shape) - 1)))]), num('1e-3'))
        return ('call', fn, [(None, arg)])

    def g_matmul(self):
        a = self.pick(lambda v: len(v.shape) >= 2)
        if a is None:
            return None
        v = self.env[a]
        k = v.shape[-1]
        b = self.pick(lambda w: len(w.shape) == 2 and w.shape[0] == k and w.dtype == v.dtype)
        if b is None or self.rng.random() < 0.5:
            b = self.new_input((k, self.rng.choice(SIZES[:6])), v.dtype)
        if self.rng.random() < 0.2:   # the transposed use: b on the left
            c = self.pick(lambda w: len(w.shape) == 2 and w.shape[-1] == v.shape[-2] and w.dtype == v.dtype)
            if c is not None and len(v.shape) == 2:
                return ('call', 'matmul', [(None, ('name', c)), (None, ('name', a))])
        return ('call', 'matmul', [(None, ('name', a)), (None, ('name', b))])

    def g_reduce(self):
        a = self.pick(lambda v: len(v.shape) >= 1)
        v = self.env[a]
        ax = self.rng.randrange(len(v.shape))
        fn = self.rng.choice(('sum', 'sum', 'mean', 'reduce_max'))
        args = [(None, ('name', a)), ('axis', num(str(ax)))]
        if fn == 'sum' and self.rng.random() < 0.3:
            tos = [t for t in range(2, v.shape[ax]) if v.shape[ax] % t == 0]
            if tos:
                args.append(('to', num(str(self.rng.choice(tos)))))
        e = ('call', fn, args)
        if fn == 'reduce_max' and self.rng.random() < 0.8:
            # a max the output does not depend on: a shift that a division cancels
            return None
        if fn in ('sum', 'mean') and self.rng.random() < 0.5:   # back to the operand's shape
            return ('bin', self.rng.choice('-*/') if fn == 'mean' else '*', ('name', a), e) \
                if fn == 'mean' else ('bin', '*', ('name', a), e)
        return e

    def g_softmax(self):
        a = self.pick(lambda v: v.nexp == 0 and len(v.shape) >= 1)
        if a is None:
            return None
        v = self.env[a]
        ax = len(v.shape) - 1 if self.rng.random() < 0.8 else self.rng.randrange(len(v.shape))
        x = ('name', a)
        if self.rng.random() < 0.7:
            x = ('bin', '-', x, ('call', 'reduce_max', [(None, x), ('axis', num(str(ax)))]))
        en = self.let(('call', 'exp', [(None, x)]))
        return ('bin', '/', ('name', en), ('call', 'sum', [(None, ('name', en)), ('axis', num(str(ax)))]))

    def g_rms(self):
        a = self.pick(lambda v: len(v.shape) >= 1)
        v = self.env[a]
        args = [(None, ('name', a))]
        if self.rng.random() < 0.4:
            args.append(('axis', num(str(self.rng.randrange(len(v.shape))))))
        return ('call', 'rms_norm', args)

    def g_convert(self):
        a = self.pick()
        v = self.env[a]
        to = self.rng.choice([d for d in FORMATS if d != v.dtype])
        return ('call', 'to_' + to, [(None, ('name', a))])

    def g_mask(self):
        # an index-only mask (iotas, an offset, a comparison) and a select of data on it; a
        # select's operands share one element type, and an iota is f32, so data in f32 only
        a = self.pick(lambda v: len(v.shape) == 2 and v.dtype == 'f32')
        if a is None:
            a0 = self.pick(lambda v: len(v.shape) == 2)
            if a0 is None:
                return None
            a = self.let(('call', 'to_f32', [(None, ('name', a0))]))
        s = list(self.env[a].shape)
        r = ('call', 'iota', [(None, ('list', s)), ('axis', num('0'))])
        c = ('call', 'iota', [(None, ('list', s)), ('axis', num('1'))])
        if self.rng.random() < 0.3:
            r = ('bin', '+', r, num(self.rng.choice(('1', '2'))))
        if self.rng.random() < 0.5:
            r, c = c, r
        m = self.let(('call', self.rng.choice(CMP), [(None, r), (None, c)]))
        fill = self.rng.choice([('call', 'broadcast', [(None, num('-1000')), (None, ('list', s))]),
                                ('bin', '-', ('bin', '*', ('name', a), num('0')), num('1000')),
                                ('bin', '*', ('name', a), num('0'))])
        args = [('name', a), fill] if self.rng.random() < 0.8 else [fill, ('name', a)]
        return ('call', 'select', [(None, ('name', m))] + [(None, x) for x in args])

    # ---- the program ----
    def program(self):
        r = self.rng
        rank3 = r.random() < 0.15
        shape = ((r.choice((1, 2)),) if rank3 else ()) + (r.choice(SIZES[:6]), r.choice(SIZES))
        self.new_input(shape)
        if r.random() < 0.4:
            self.new_input(shape)
        nsteps = r.choice((1, 2, 2, 3, 3, 4, 5, 6))
        made = [self.step() for _ in range(nsteps)]
        made = [m for m in made if m]
        lets = [s[1] for s in self.p.stmts if s[0] == 'let']
        if not lets:
            self.let(('bin', '*', ('name', self.p.inputs[0][0]), num('2')))
            lets = [s[1] for s in self.p.stmts if s[0] == 'let']
        outs = [lets[-1]]
        # every value no other reads is an output (nothing dead), at most three
        read = set()
        for _, _, e in self.p.stmts:
            read |= names_in(e)
        for n in lets[:-1]:
            if n not in read and len(outs) < 3:
                outs.append(n)
        final = []
        for i, n in enumerate(outs):
            final.append(('O' if i == 0 else 'O%d' % (i + 1), n))
        stmts = []
        for k, n, e in self.p.stmts:
            alias = dict((m, o) for o, m in final)
            if n in alias:
                stmts.append(('output', alias[n], rename(e, {m: o for o, m in final})))
            else:
                stmts.append((k, n, rename(e, {m: o for o, m in final})))
        self.p.stmts = stmts
        type_program(self.p)
        return self.p


def names_in(e):
    if e is None:
        return set()
    if e[0] == 'name':
        return {e[1]}
    if e[0] in ('num', 'list'):
        return set()
    if e[0] == 'neg':
        return names_in(e[1])
    if e[0] == 'bin':
        return names_in(e[2]) | names_in(e[3])
    out = set()
    for _, a in e[2]:
        out |= names_in(a)
    return out


def rename(e, m):
    if e is None:
        return None
    if e[0] == 'name':
        return ('name', m.get(e[1], e[1]))
    if e[0] in ('num', 'list'):
        return e
    if e[0] == 'neg':
        return ('neg', rename(e[1], m))
    if e[0] == 'bin':
        return ('bin', e[1], rename(e[2], m), rename(e[3], m))
    return ('call', e[1], [(an, rename(a, m)) for an, a in e[2]])


# ---------------------------------------------------------------------------------------
# Mutants: text edits of a .mug, one statement line each (printed again from its parse;
# an added conversion adds a line). Every edit says what it does.
# ---------------------------------------------------------------------------------------

def p_map(m):
    return '{%s}' % ', '.join('%s: %s' % (GAXIS[g], m[g]) for g in range(3) if m[g] >= 0)


def p_args(args, attrs, rescale=None, shape_first=False):
    parts = []
    if shape_first and 'shape' in attrs:
        parts.append(fmt_shape(attrs['shape']))
    for a in args:
        parts.append(a[1] if a[0] == 'name' else a[2])
    if not shape_first and 'shape' in attrs:
        parts.append(fmt_shape(attrs['shape']))
    for an in ATTRS:
        if an in attrs:
            parts.append('%s = %d' % (an, attrs[an]))
    if rescale:
        parts.append('rescale = %s' % rescale)
    return ', '.join(parts)


def p_node(n):
    """One block node (or a kernel-level operator) as a .mug statement."""
    if n['k'] == 'iter':
        return '%s = input %s imap %s fmap %s' % (n['name'], n['src'], p_map(n['imap']),
                                                 '-' if n['fmap'] < 0 else n['fmap'])
    if n['k'] == 'save':
        return 'output %s = %s omap %s' % (n['name'], n['arg'], p_map(n['omap']))
    if n['k'] == 'accum':
        return '%s = accum %s(%s)' % (n['name'], n['op'], p_args(n['args'], n['attrs'], n.get('rescale')))
    s = '%s = %s(%s)' % (n['name'], n['op'], p_args(n['args'], n['attrs'], shape_first=n['op'] == 'iota'))
    if n['op'] == 'iota' and 'imap' in n:
        s += ' imap %s fmap %s' % (p_map(n['imap']), '-' if n['fmap'] < 0 else n['fmap'])
    return s


def p_kernel_head(k):
    return 'kernel %s grid %s block %s forloop %d {' % (k['name'], fmt_shape(k['grid']),
                                                      fmt_shape(k['block']), k['forloop'])


MUTATION_KINDS = ('dtype', 'constant', 'axis', 'reduction', 'mask', 'conversion', 'rescale',
                  'swap', 'map', 'grid', 'op', 'drop')
NONCOMM = ('sub', 'div', 'matmul', 'lt', 'le', 'gt', 'ge', 'select')
SWAP_OPS = {'add': ('sub', 'mul'), 'sub': ('add',), 'mul': ('add', 'div'), 'div': ('mul',),
            'exp': ('silu', 'logistic'), 'silu': ('exp', 'logistic'), 'tanh': ('logistic',),
            'logistic': ('tanh', 'silu'), 'sqrt': ('rsqrt',), 'rsqrt': ('sqrt',),
            'neg': ('square',), 'square': ('neg',), 'sin': ('cos',), 'cos': ('sin',),
            'erf': ('tanh',)}


def other_literal(text, rng):
    q = Q(text)
    cands = [q * 2, q / 2, q + 1, -q if q else Q(1), q + q / 1000 if q else Q(1, 1000)]
    return format_q(rng.choice(cands))


def format_q(q):
    """A decimal text for q (a finite binary-decimal fraction, as every mutated literal is)."""
    if q.denominator == 1:
        return str(q.numerator)
    d = decimal.Decimal(q.numerator) / decimal.Decimal(q.denominator)
    t = format(d.normalize(), 'f')
    return t if Q(t) == q else repr(float(q))


def mutants(text, rng):
    """Every single edit of the graph text that the mutation kinds make, as (kind, what,
    new text); the caller picks among them. Ranks and shapes come from a validated copy."""
    raw, chk = parse_graph(text), parse_graph(text)
    check_graph(chk)
    lines = text.split('\n')
    out = []

    def indent(ln):
        s = lines[ln - 1]
        return s[:len(s) - len(s.lstrip())]

    def put(kind, what, ln, new, extra_after=None):
        ls = list(lines)
        ls[ln - 1] = indent(ln) + new
        if extra_after is not None:
            ls.insert(ln, indent(ln) + extra_after)
        out.append((kind, what, '\n'.join(ls)))

    # input declarations: another element type
    for ln, s in enumerate(lines, 1):
        m = re.match(r'\s*input (\w+) : (\w+)(\[.*\])\s*$', s)
        if m:
            for dt in FORMATS:
                if dt != m.group(2):
                    put('dtype', "input '%s' declared %s, not %s" % (m.group(1), dt, m.group(2)), ln,
                        'input %s : %s%s' % (m.group(1), dt, m.group(3)))

    def node_edits(rn, cn, k, rank_of):
        ln = rn['line']
        nm = rn['name']
        if rn['k'] == 'iter' or (rn['k'] == 'op' and rn['op'] == 'iota' and 'imap' in rn):
            full_rank = len(chk.tensors[rn['src']][0]) if rn['k'] == 'iter' else len(rn['attrs']['shape'])
            for g in range(3):
                if k is None or k['grid'][g] == 1:
                    continue        # a grid axis of size 1: every map of it is the same tile
                for d in [-1] + list(range(full_rank)):
                    if d != rn['imap'][g]:
                        n2 = dict(rn, imap=list(rn['imap']))
                        n2['imap'][g] = d
                        put('map', "'%s': imap grid.%s -> %s" % (nm, GAXIS[g], d if d >= 0 else 'replicate'), ln, p_node(n2))
            for d in [-1] + list(range(full_rank)) if k is not None and k['forloop'] > 1 else []:
                if d != rn['fmap']:
                    put('map', "'%s': fmap %s -> %s" % (nm, rn['fmap'] if rn['fmap'] >= 0 else '-', d if d >= 0 else '-'),
                        ln, p_node(dict(rn, fmap=d)))
        if rn['k'] == 'save':
            for g in range(3):
                if k['grid'][g] == 1:
                    continue
                for d in [-1] + list(range(len(cn['shape']))):
                    if d != rn['omap'][g]:
                        n2 = dict(rn, omap=list(rn['omap']))
                        n2['omap'][g] = d
                        put('map', "output '%s': omap grid.%s -> %s" % (nm, GAXIS[g], d if d >= 0 else '-'), ln, p_node(n2))
            return
        if rn['k'] not in ('op', 'accum'):
            return
        op = rn['op']
        # literals
        for j, a in enumerate(rn['args']):
            if a[0] == 'lit':
                t = other_literal(a[2], rng)
                args = list(rn['args'])
                args[j] = ('lit', Q(t), t)
                put('constant', "'%s': literal %s -> %s" % (nm, a[2], t), ln, p_node(dict(rn, args=args)))
        # axes
        if 'axis' in rn['attrs'] or op in REDUCE + ('rms_norm', 'iota') or rn['k'] == 'accum':
            r = rank_of(rn)
            cur = cn['attrs'].get('axis')
            for ax in range(r):
                if ax != cur and r > 1:
                    at = dict(rn['attrs'], axis=ax)
                    put('axis', "'%s': axis %s -> %d" % (nm, cur, ax), ln, p_node(dict(rn, attrs=at)))
        if 'to' in rn['attrs']:
            at = dict(rn['attrs'])
            del at['to']
            put('reduction', "'%s': to = %d dropped" % (nm, rn['attrs']['to']), ln, p_node(dict(rn, attrs=at)))
        # reductions
        if rn['k'] == 'op' and op in ('sum', 'mean', 'reduce_max'):
            for o2 in ('sum', 'mean', 'reduce_max'):
                if o2 != op:
                    at = dict(rn['attrs'])
                    if o2 == 'mean':
                        at.pop('to', None)
                    put('reduction', "'%s': %s -> %s" % (nm, op, o2), ln, p_node(dict(rn, op=o2, attrs=at)))
        if rn['k'] == 'accum' and op in ('sum', 'max'):
            o2 = 'max' if op == 'sum' else 'sum'
            at = dict(rn['attrs'])
            at.pop('to', None)
            put('reduction', "'%s': accum %s -> accum %s" % (nm, op, o2), ln, p_node(dict(rn, op=o2, attrs=at, rescale=None)))
        if rn.get('rescale'):
            put('rescale', "'%s': rescale = %s dropped" % (nm, rn['rescale']), ln, p_node(dict(rn, rescale=None)))
        # masks and comparisons
        if rn['k'] == 'op' and op in CMP:
            for o2 in CMP:
                if o2 != op:
                    put('mask', "'%s': %s -> %s" % (nm, op, o2), ln, p_node(dict(rn, op=o2)))
        if rn['k'] == 'op' and op == 'select':
            a = rn['args']
            if a[1][0] == 'name':
                put('mask', "'%s': the select dropped (its first branch kept)" % nm, ln,
                    p_node({'k': 'op', 'name': nm, 'op': 'mul', 'args': [a[1], ('lit', Q(1), '1')], 'attrs': {}}))
            put('mask', "'%s': the select's branches swapped" % nm, ln, p_node(dict(rn, args=[a[0], a[2], a[1]])))
        # conversions
        if rn['k'] == 'op' and op in CONV:
            a = rn['args'][0]
            put('conversion', "'%s': %s dropped" % (nm, op), ln,
                p_node({'k': 'op', 'name': nm, 'op': 'mul', 'args': [a, ('lit', Q(1), '1')], 'attrs': {}}))
            for o2 in CONV:
                if o2 != op:
                    put('dtype', "'%s': %s -> %s" % (nm, op, o2), ln, p_node(dict(rn, op=o2)))
        elif rn['k'] == 'op' and op != 'iota':
            to = rng.choice(list(CONV))
            put('conversion', "'%s': %s added after it" % (nm, to), ln, p_node(dict(rn, name=nm + '_c')),
                extra_after='%s = %s(%s_c)' % (nm, to, nm))
        # operands
        if rn['k'] == 'op' and op in NONCOMM:
            a = rn['args']
            if op == 'select':
                pass
            elif len(a) == 2 and a[0] != a[1]:
                put('swap', "'%s': %s's operands swapped" % (nm, op), ln, p_node(dict(rn, args=[a[1], a[0]])))
        if rn['k'] == 'op' and op in SWAP_OPS:
            for o2 in SWAP_OPS[op]:
                put('op', "'%s': %s -> %s" % (nm, op, o2), ln, p_node(dict(rn, op=o2)))
        if rn['k'] == 'op' and op not in ('iota',) and rn['args'] and rn['args'][0][0] == 'name' and \
                op not in CONV:
            put('drop', "'%s': %s dropped (its first operand kept)" % (nm, op), ln,
                p_node({'k': 'op', 'name': nm, 'op': 'mul', 'args': [rn['args'][0], ('lit', Q(1), '1')], 'attrs': {}}))

    for rs, cs in zip(raw.stmts, chk.stmts):
        if rs['k'] == 'op':
            node_edits(rs, cs, None, lambda n: len(chk.tensors[n['args'][0][1]][0]) if n['args'] and n['args'][0][0] == 'name'
                       else len(n['attrs'].get('shape', ())))
            continue
        k = rs
        ln = k['line']
        for g in range(3):
            for f in (Q(1, 2), Q(2)):
                v = k['grid'][g] * f
                if v.denominator == 1 and v >= 1:
                    k2 = dict(k, grid=list(k['grid']))
                    k2['grid'][g] = int(v)
                    put('grid', "kernel '%s': grid.%s %d -> %d" % (k['name'], GAXIS[g], k['grid'][g], v), ln, p_kernel_head(k2))
        for f in (Q(1, 2), Q(2)):
            v = k['forloop'] * f
            if v.denominator == 1 and v >= 1:
                put('grid', "kernel '%s': forloop %d -> %d" % (k['name'], k['forloop'], v), ln,
                    p_kernel_head(dict(k, forloop=int(v))))
        cnodes = {n['name']: n for n in cs['all'] if n['k'] not in ('lit', 'save')}
        for rn in k['nodes']:
            cn = cnodes.get(rn['name']) if rn['k'] != 'save' else next(
                (n for n in cs['all'] if n['k'] == 'save' and n['name'] == rn['name']), None)
            if cn is None:
                continue

            def rank_of(n, cs=cs, cnodes=cnodes):
                if n['op'] == 'iota':
                    return len(n['attrs']['shape'])
                a = n['args'][0]
                return len(cnodes[a[1]]['shape']) if a[0] == 'name' and a[1] in cnodes else 0
            node_edits(rn, cn, k, rank_of)
    return out


# ---------------------------------------------------------------------------------------
# Running axle. Exit statuses docs/cli.md documents, per verb.
# ---------------------------------------------------------------------------------------

DOCUMENTED = {'superopt': (0, 1, 3), 'equiv': (0, 1, 2, 3), 'mugraph': (0, 3)}


def run(cmd, timeout, env=None):
    """(exit status, stdout, stderr) of cmd; None as the status when it ran past timeout
    (it and everything it started are killed: it runs in a process group of its own); a
    negative status is the signal that killed it."""
    for attempt in range(5):   # a binary being replaced (ETXTBSY) is there again soon
        try:
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 start_new_session=True, env=env)
            break
        except OSError:
            if attempt == 4:
                raise
            time.sleep(1)
    try:
        out, err = p.communicate(timeout=max(timeout, 1))
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = p.communicate()
        return None, out, err


def equiv_verdict(rc, out, err):
    """The kind of an `axle equiv` answer, from its exit status and its text."""
    text = out + err
    if rc == 0:
        if 'equivalent on' in text:
            return 'equivalent-no-bound'
        return 'equivalent'
    if rc == 1:
        return 'unstable' if 'numerically unstable' in text else 'not-equivalent'
    if rc == 2:
        return 'not-established'
    if rc == 3:
        if 'cannot decide' in text:
            return 'cannot-decide'
        if 'Lax fragment' in text or 'needs an order' in text or 'no truth value' in text:
            return 'refused'
        return 'bad-input'
    return 'other'


class Axle:
    def __init__(self, args):
        self.args = args
        self.bin = args.axle
        self.test_bin = args.axle_test

    def call(self, verb, argv, timeout, env=None, binary=None):
        """(rc, out, err, problem): problem is a discrepancy dict for a crash, a hang or an
        undocumented exit status, else None."""
        cmd = [binary or self.bin, verb] + argv
        rc, out, err = run(cmd, timeout, env)
        shown = ' '.join([os.path.basename(cmd[0])] + [os.path.basename(a) if '/' in a else a for a in cmd[1:]])
        if rc is None:
            return rc, out, err, {'kind': 'hang', 'what': '%s ran past %d s' % (shown, timeout)}
        if rc < 0:
            return rc, out, err, {'kind': 'crash', 'what': '%s was killed by signal %d: %s' % (
                shown, -rc, (err or out).strip()[-400:])}
        if rc not in DOCUMENTED[verb]:
            return rc, out, err, {'kind': 'bad-exit', 'what': '%s exited %d, which docs/cli.md does not list: %s' % (
                shown, rc, (err or out).strip()[-400:])}
        return rc, out, err, None

    def greedy(self, prog, graph):
        return self.call('superopt', [prog, '--no-gate', '--max-states', '1', '--progress', 'never',
                                      '--output', graph], 120)

    def unchecked(self, prog, graph):
        env = dict(os.environ, AXLE_TEST_GREEDY_ONLY='1')
        return self.call('superopt', [prog, '--no-gate', '--progress', 'never', '--output', graph], 60,
                         env=env, binary=self.test_bin)

    def search(self, prog, graph, limit):
        a = self.args
        return self.call('superopt', [prog, '--no-gate', '--time-limit', str(limit), '--max-states',
                                      str(a.search_states), '--progress', 'never', '--output', graph],
                         limit * 3 + 60)

    def check(self, graph):
        return self.call('mugraph', ['check', graph], 60)

    def equiv(self, prog, graph, seed):
        return self.call('equiv', [prog, graph, '--seed', str(seed)], self.args.equiv_timeout)


# ---------------------------------------------------------------------------------------
# One case: a program, its graphs, their mutants, every pair judged.
# ---------------------------------------------------------------------------------------

SOURCES = ('greedy', 'floor-unchecked', 'search', 'corpus')
RESULT_SOURCES = ('greedy', 'search')      # what axle superopt wrote after its own check
SEP_NAME = {'values': 'separated', 'interface': 'interface'}


def graph_of(axle, source, ppath, gpath, rng_limit):
    """Builds the graph of one source for the program at ppath into gpath; (text or None,
    how the command ended, problem)."""
    if os.path.exists(gpath):
        os.unlink(gpath)
    if source == 'greedy':
        rc, out, err, prob = axle.greedy(ppath, gpath)
    elif source == 'floor-unchecked':
        rc, out, err, prob = axle.unchecked(ppath, gpath)
    else:
        rc, out, err, prob = axle.search(ppath, gpath, rng_limit)
    if prob:
        return None, 'problem', prob
    if rc == 0 and os.path.exists(gpath):
        with open(gpath) as f:
            return f.read(), 'written', None
    if rc == 3:
        return None, 'refused', None
    return None, 'none', None


class Case:
    """What one case found: counts and discrepancies (plain data: it crosses processes)."""

    def __init__(self, i, prog):
        self.i = i
        self.program = prog.text()
        self.c = collections.Counter()
        self.verdicts = collections.Counter()
        self.disc = []
        self.notes = []
        self.origin = 'generated'
        self.seconds = 0.0

    def count(self, k, n=1):
        self.c[k] += n


def judge_pair(axle, oracle, case, ptext, ppath, gtext, gpath, source, mutation, seed, args):
    """Judges one pair by the brute force and by `axle equiv`; records counts and any
    discrepancy in case. Returns the discrepancy kinds found."""
    with open(gpath, 'w') as f:
        f.write(gtext)
    found = []
    g = parse_graph(gtext)
    try:
        check_graph(g)
    except GraphError as e:
        case.count('oracle-rejects')
        case.notes.append({'note': 'oracle-rejects', 'source': source, 'mutation': mutation,
                           'what': str(e), 'graph': gtext, 'program': ptext})
        return found
    except Unsupported as e:
        case.count('oracle-unsupported')
        return found
    j = oracle.judge(g) if oracle.points else {'sep': None if not interface(oracle.prog, oracle.types, g) else 'interface',
                                                'what': interface(oracle.prog, oracle.types, g), 'decided': 0,
                                                'unstable': None}
    case.count('judged')
    if j['sep']:
        case.count('separated')
        case.count('separated-' + j['sep'])
    elif j['decided'] == 0:
        case.count('undecided')
    else:
        case.count('agree')

    def disc(kind, what, verdict=None):
        d = {'kind': kind, 'what': what, 'source': source, 'mutation': mutation, 'program': ptext,
             'graph': gtext, 'verdict': verdict, 'equiv_seed': seed, 'case': case.i,
             'point': j.get('point'), 'origin': case.origin}
        case.disc.append(d)
        found.append(kind)

    if mutation is None and source in RESULT_SOURCES and j['sep']:
        disc('result-' + SEP_NAME[j['sep']], 'the %s graph axle wrote is not the program: %s' % (source, j['what']))
    rc, out, err, prob = axle.equiv(ppath, gpath, seed)
    if prob:
        disc(prob['kind'], prob['what'])
        return found
    v = equiv_verdict(rc, out, err)
    case.verdicts[('mutant' if mutation else source) + ':' + v] += 1
    case.count('x:%s:%s' % (v, 'separated' if j['sep'] else 'undecided' if j['decided'] == 0 else 'agree'))
    note = None
    if not j['sep'] and j.get('unstable'):
        case.count('float-unstable')          # the brute force's float side: off on every draw
        case.count('float-unstable-' + ('agreed' if v == 'unstable' else 'other'))
        note = 'float-unstable'
    elif not j['sep'] and v == 'unstable':
        case.count('unstable-not-seen')       # axle's one float draw saw what the brute force's did not
        note = 'unstable-not-seen'
    if note and len(case.notes) < 3:
        case.notes.append({'note': note, 'source': source, 'mutation': mutation, 'verdict': v,
                           'graph': gtext, 'program': ptext, 'what': j.get('unstable') or
                           (out.strip().splitlines() or [''])[-1][:300]})
    if v.startswith('equivalent'):
        if j['sep'] and not (mutation is None and source in RESULT_SOURCES):
            disc('equiv-' + SEP_NAME[j['sep']], 'axle equiv says %s, but %s' % (v, j['what']), v)
        elif not j['sep'] and j.get('unstable'):
            disc('equiv-unstable', 'axle equiv says %s, but %s' % (v, j['unstable']), v)
    elif v in ('not-equivalent', 'not-established') and not j['sep'] and j['decided'] > 0:
        case.count('incomplete')
        if len(case.notes) < 3:
            case.notes.append({'note': 'incomplete', 'source': source, 'mutation': mutation, 'verdict': v,
                               'graph': gtext, 'program': ptext,
                               'what': (out.strip().splitlines() or [''])[-1][:300]})
    return found


def run_case(i, prog, args, axle, workdir, only=None, corpus=None):
    """Case i end to end for prog. `only` (used when minimising) = (source, mutation kind
    or None, discrepancy kind): build that source's graph and, for a mutant, try every edit
    of that kind, stopping at the first pair that shows that discrepancy. `corpus` = (path,
    text): a graph of the repository for prog, judged and mutated instead of prog's own."""
    case = Case(i, prog)
    case.origin = corpus[0] if corpus else 'generated'
    rng = random.Random('%d/%d/pairs' % (args.seed, i))
    ptext = prog.text()
    ppath = os.path.join(workdir, prog.name + '.axl')
    with open(ppath, 'w') as f:
        f.write(ptext)
    try:
        oracle = Oracle(prog, random.Random('%d/%d/points' % (args.seed, i)), args.points, args.float_draws)
    except (Unsupported, ShapeError) as e:
        case.count('program-unsupported')
        return case
    if not oracle.points:
        case.count('program-undecidable')
    search = rng.random() < args.search_share
    limit = rng.choice(args.search_time)
    sources = ['greedy'] + (['floor-unchecked'] if args.axle_test else []) + (['search'] if search else [])
    if only:
        sources = [only[0]]
    if corpus:
        sources = ['corpus']
        case.count('corpus-cases')
    seen = set()
    for source in sources:
        gpath = os.path.join(workdir, '%s.%s.mug' % (prog.name, source))
        if corpus:
            text, how, prob = corpus[1], 'written', None
        else:
            text, how, prob = graph_of(axle, source, ppath, gpath, limit)
        case.count('%s-%s' % (source, how))
        if prob:
            case.disc.append(dict(prob, source=source, mutation=None, program=ptext, graph=None, case=i))
            continue
        if text is None or text in seen:
            continue
        seen.add(text)
        case.count('graphs')
        seed = rng.randrange(1, 2 ** 32)
        if not only or only[1] is None:
            kinds = judge_pair(axle, oracle, case, ptext, ppath, text, gpath, source, None, seed, args)
            if only and only[2] in kinds:
                return case
        try:
            ms = mutants(text, rng)
        except (GraphError, ParseError, Unsupported):
            case.count('mutants-unavailable')
            continue
        if only:
            pool = [m for m in ms if m[0] == only[1]]
            rng.shuffle(pool)
            picks = pool[:args.minimize_edits]
        else:
            bykind = collections.defaultdict(list)
            for m in ms:
                bykind[m[0]].append(m)
            picks = []
            kinds = sorted(bykind)
            for _ in range(args.mutants):
                if not kinds:
                    break
                k = rng.choice(kinds)
                picks.append(bykind[k].pop(rng.randrange(len(bykind[k]))))
                if not bykind[k]:
                    kinds.remove(k)
        for n, (kind, what, mtext) in enumerate(picks):
            mpath = os.path.join(workdir, '%s.%s.m%d.mug' % (prog.name, source, n))
            with open(mpath, 'w') as f:
                f.write(mtext)
            rc, out, err, prob = axle.check(mpath)
            if prob:
                case.disc.append(dict(prob, source=source, mutation=[kind, what], program=ptext, graph=mtext, case=i))
                continue
            if rc != 0:
                case.count('mutants-invalid')
                continue
            case.count('mutants')
            case.count('mutant-' + kind)
            mseed = rng.randrange(1, 2 ** 32)
            kinds = judge_pair(axle, oracle, case, ptext, ppath, mtext, mpath, source, [kind, what], mseed, args)
            if only and only[2] in kinds:
                return case
    return case


def load_corpus(root, limit=4096):
    """The (program, graph) pairs of the repository small enough to brute-force: every .mug
    of tests/superopt and superopt/examples beside the .axl its name starts with (NAME.mug,
    NAME.WHAT.mug), their inputs at most `limit` elements, as (axl path, mug path)."""
    pairs = []
    for d in ('tests/superopt', 'superopt/examples'):
        full = os.path.join(root, d)
        if not os.path.isdir(full):
            continue
        names = sorted(os.listdir(full))
        for fn in names:
            if not fn.endswith('.mug'):
                continue
            stem = fn.split('.')[0]
            axl = os.path.join(full, stem + '.axl')
            if not os.path.exists(axl):
                continue
            try:
                with open(axl) as f:
                    prog = parse_program(f.read())
                if sum(numel(sh) for _, _, sh in prog.inputs) > limit:
                    continue
                type_program(prog)
                with open(os.path.join(full, fn)) as f:
                    check_graph(parse_graph(f.read()))
            except (ParseError, ShapeError, GraphError, Unsupported, OSError):
                continue
            pairs.append((os.path.relpath(axl, root), os.path.relpath(os.path.join(full, fn), root)))
    return pairs


def case_worker(i, args):
    """A worker process's job: case i (its program depends only on the seed and i). An
    error of the fuzzer itself is a discrepancy too (fuzzer-error: a pair it could not
    judge is no pair judged), with the traceback."""
    workdir = tempfile.mkdtemp(prefix='mugraph-fuzz-')
    prog = None
    t0 = time.time()
    try:
        rng = random.Random('%d/%d' % (args.seed, i))
        if args.corpus_pairs and rng.random() < args.corpus_share:
            axl, mug = rng.choice(args.corpus_pairs)
            with open(os.path.join(args.root, axl)) as f:
                prog = parse_program(f.read())
            with open(os.path.join(args.root, mug)) as f:
                case = run_case(i, prog, args, Axle(args), workdir, corpus=(mug, f.read()))
            case.seconds = time.time() - t0
            return case
        prog = Gen(rng, 'fz%d_%d' % (args.seed, i)).program()
        case = run_case(i, prog, args, Axle(args), workdir)
        case.seconds = time.time() - t0
        return case
    except Exception:
        import traceback
        case = Case(i, prog or Program('none'))
        case.disc.append({'kind': 'fuzzer-error', 'what': traceback.format_exc().strip().splitlines()[-1],
                          'trace': traceback.format_exc(), 'source': '-', 'mutation': None,
                          'program': prog.text() if prog else None, 'graph': None, 'case': i})
        return case
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


# ---------------------------------------------------------------------------------------
# Minimisation: smaller programs (an output dropped, an operator replaced by its operand, a
# size halved, an unused input dropped), each built into a graph again the same way (the
# same source, an edit of the same mutation kind), kept while the same discrepancy shows.
# ---------------------------------------------------------------------------------------

def subexprs(e):
    """The operand expressions of e (the candidates to replace it by)."""
    if e[0] == 'neg':
        return [e[1]]
    if e[0] == 'bin':
        return [e[2], e[3]]
    if e[0] == 'call':
        return [a for an, a in e[2] if an is None and a[0] != 'list']
    return []


def replace_in(e, path, new):
    if not path:
        return new
    k, rest = path[0], path[1:]
    if e[0] == 'neg':
        return ('neg', replace_in(e[1], rest, new))
    if e[0] == 'bin':
        return ('bin', e[1], replace_in(e[2], rest, new) if k == 0 else e[2],
                replace_in(e[3], rest, new) if k == 1 else e[3])
    args = list(e[2])
    an, a = args[k]
    args[k] = (an, replace_in(a, rest, new))
    return ('call', e[1], args)


def paths(e, path=()):
    yield path, e
    if e[0] == 'neg':
        yield from paths(e[1], path + (0,))
    elif e[0] == 'bin':
        yield from paths(e[2], path + (0,))
        yield from paths(e[3], path + (1,))
    elif e[0] == 'call':
        for k, (an, a) in enumerate(e[2]):
            if an is None and a[0] != 'list':
                yield from paths(a, path + (k,))


def drop_dead(p):
    """p without lets no output needs and inputs nothing reads."""
    need = set(p.outputs)
    keep = []
    for st in reversed(p.stmts):
        if st[0] == 'output' or st[1] in need:
            keep.append(st)
            need |= names_in(st[2])
    p.stmts = keep[::-1]
    p.inputs = [i for i in p.inputs if i[0] in need]
    return p


def shrink_dims(e, old, new):
    if e is None:
        return None
    if e[0] == 'list':
        return ('list', [new if d == old else d for d in e[1]])
    if e[0] in ('num', 'name'):
        return e
    if e[0] == 'neg':
        return ('neg', shrink_dims(e[1], old, new))
    if e[0] == 'bin':
        return ('bin', e[1], shrink_dims(e[2], old, new), shrink_dims(e[3], old, new))
    return ('call', e[1], [(an, shrink_dims(a, old, new) if an != 'axis' else a) for an, a in e[2]])


def smaller(p):
    """Smaller variants of program p, lazily, the most promising first."""
    outs = [st for st in p.stmts if st[0] == 'output']
    if len(outs) > 1:
        for st in outs:
            q = p.copy()
            q.stmts = [s if s is not st else ('let', s[1], s[2]) for s in q.stmts if s is not st or s[2] is not None]
            yield drop_dead(q)
    dims = sorted({d for _, _, s in p.inputs for d in s if d > 1}, reverse=True)
    for d in dims:
        for nd in sorted({d // 2, 2, 1} - {d}, reverse=True):
            if nd < 1 or nd >= d:
                continue
            q = p.copy()
            q.inputs = [(n, dt, tuple(nd if x == d else x for x in s)) for n, dt, s in p.inputs]
            q.stmts = [(k, n, shrink_dims(e, d, nd)) for k, n, e in p.stmts]
            yield q
    for idx, (k, n, e) in enumerate(p.stmts):
        if k == 'let' and e is not None and e[0] == 'name':   # a let of a bare name: inlined
            q = p.copy()
            q.stmts = [(k2, n2, rename(e2, {n: e[1]})) for k2, n2, e2 in p.stmts if n2 != n]
            yield q
    for idx, (k, n, e) in enumerate(p.stmts):
        if e is None:
            continue
        for path, sub in list(paths(e)):
            for alt in subexprs(sub):
                q = p.copy()
                q.stmts = list(p.stmts)
                q.stmts[idx] = (k, n, replace_in(e, path, alt))
                yield drop_dead(q)


def expr_size(e):
    if e is None or e[0] in ('num', 'name', 'list'):
        return 0
    return 1 + sum(expr_size(x) for x in subexprs(e))


def prog_size(p):
    """What minimisation makes smaller, in this order: operators, input elements, text."""
    return (sum(expr_size(e) for _, _, e in p.stmts) + len(p.stmts),
            sum(numel(s) for _, _, s in p.inputs), len(p.text()))


def minimize(d, args, seconds):
    """The smallest program found within `seconds` whose graph, built again the same way,
    still shows a discrepancy of d's kind; returns (discrepancy, steps)."""
    axle = Axle(args)
    end = time.time() + seconds
    best = parse_program(d['program'])
    best_d, steps = d, 0
    only = (d['source'], d['mutation'][0] if d.get('mutation') else None, d['kind'])
    seen = {best.text()}
    workdir = tempfile.mkdtemp(prefix='mugraph-fuzz-min-')
    try:
        improved = True
        while improved and time.time() < end:
            improved = False
            for cand in smaller(best):
                if time.time() >= end:
                    break
                t = cand.text()
                if t in seen or prog_size(cand) >= prog_size(best):
                    continue
                seen.add(t)
                try:
                    type_program(cand)
                except (ShapeError, Unsupported):
                    continue
                case = run_case(d['case'], cand, args, axle, workdir, only=only)
                same = [x for x in case.disc if x['kind'] == d['kind']]
                if same:
                    best, best_d, steps = cand, same[0], steps + 1
                    improved = True
                    break
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return best_d, steps


def minimize_worker(d, args):
    try:
        return minimize(d, args, args.minimize_seconds)
    except Exception:      # the finding as found is still a finding
        return d, 0


def write_finding(out_dir, seed, d, steps, minimized, original):
    """Writes the pair: KIND-sSEED-cCASE.axl (the program, what it shows in comments) and
    .mug (the graph); returns the .axl's path."""
    os.makedirs(out_dir, exist_ok=True)
    base = os.path.join(out_dir, '%s-s%d-c%d' % (d['kind'], seed, d['case']))
    n = 2
    while os.path.exists(base + '.axl'):
        base = os.path.join(out_dir, '%s-s%d-c%d-%d' % (d['kind'], seed, d['case'], n))
        n += 1
    head = ['mugraph-fuzz finding: %s' % d['kind'], '  ' + d['what']]
    src = d.get('origin') if d['source'] == 'corpus' else 'the %s graph' % d['source']
    if d.get('mutation'):
        head.append('graph: a mutant of %s (%s: %s)' % (src, d['mutation'][0], d['mutation'][1]))
    else:
        head.append('graph: %s' % src)
    if d.get('verdict'):
        head.append('axle equiv: %s (reproduce: axle equiv %s.axl %s.mug --seed %d)' % (
            d['verdict'], os.path.basename(base), os.path.basename(base), d['equiv_seed']))
    if d.get('point'):
        head.append('inputs where they differ: %s' % json.dumps(d['point'])[:2000])
    if d.get('trace'):
        head += d['trace'].splitlines()
    head.append('seed %d, case %d; %s from:' % (seed, d['case'], 'minimised in %d steps' % steps if minimized
                                                 else 'not minimised (not among the first of its kind)'))
    head += ['  ' + ln for ln in original.splitlines()]
    # every line of every entry a comment (a crash's message runs over several lines)
    head = [part for ln in head for part in ln.splitlines() or ['']]
    with open(base + '.axl', 'w') as f:
        f.write(''.join('# %s\n' % ln for ln in head) + d['program'])
    if d.get('graph'):
        with open(base + '.mug', 'w') as f:
            f.write('# mugraph-fuzz finding: %s (the program: %s.axl)\n' % (d['kind'], os.path.basename(base)) + d['graph'])
    return base + '.axl'


# ---------------------------------------------------------------------------------------
# The driver.
# ---------------------------------------------------------------------------------------

class Stats:
    def __init__(self):
        self.cases = 0
        self.c = collections.Counter()
        self.verdicts = collections.Counter()
        self.kinds = collections.Counter()
        self.findings = []
        self.notes = collections.Counter()
        self.examples = []

    def add(self, case):
        self.cases += 1
        self.c.update(case.c)
        self.verdicts.update(case.verdicts)
        for d in case.disc:
            self.kinds[d['kind']] += 1
        for n in case.notes:
            self.notes[n['note']] += 1
            if len(self.examples) < 40:
                self.examples.append(dict(n, case=case.i))

    def line(self, elapsed):
        return ('[%5.0f s] programs %d, graphs %d, mutants %d, pairs judged %d (separated %d), '
                'equiv %s; discrepancies %d' % (
                    elapsed, self.cases, self.c['graphs'], self.c['mutants'], self.c['judged'],
                    self.c['separated'], ', '.join('%s %d' % kv for kv in sorted(self.by_verdict().items())) or 'none yet',
                    sum(self.kinds.values())))

    def by_verdict(self):
        out = collections.Counter()
        for k, n in self.verdicts.items():
            out[k.split(':', 1)[1]] += n
        return out

    def as_json(self, elapsed, args):
        model = ''
        try:
            with open('/proc/cpuinfo') as f:
                model = next((ln.split(':', 1)[1].strip() for ln in f if ln.startswith('model name')), '')
        except OSError:
            pass
        c = self.c
        return {'command': 'tools/mugraph-fuzz.sh %d %d --jobs %d' % (round(args.seconds), args.seed, args.jobs),
                'date': time.strftime('%Y-%m-%d', time.gmtime()),
                'machine': '%d cores%s' % (os.cpu_count() or 0, ', ' + model if model else ''),
                'seconds': round(elapsed, 1), 'seed': args.seed, 'jobs': args.jobs,
                'programs': self.cases,
                'programs_undecidable': c['program-undecidable'],
                'graphs': {s: c['%s-written' % s] for s in SOURCES},
                'graphs_distinct': c['graphs'],
                'superopt': {s: {h: c['%s-%s' % (s, h)] for h in ('written', 'none', 'refused', 'problem')}
                             for s in SOURCES},
                'mutants': c['mutants'], 'mutants_invalid': c['mutants-invalid'],
                'mutant_kinds': {k: c['mutant-' + k] for k in MUTATION_KINDS if c['mutant-' + k]},
                'pairs_judged': c['judged'], 'separated': c['separated'],
                'separated_interface': c['separated-interface'], 'separated_values': c['separated-values'],
                'agree': c['agree'], 'undecided': c['undecided'],
                'oracle_rejects': c['oracle-rejects'], 'oracle_unsupported': c['oracle-unsupported'],
                'incomplete': c['incomplete'],
                'float_unstable': c['float-unstable'], 'float_unstable_agreed': c['float-unstable-agreed'],
                'unstable_not_seen': c['unstable-not-seen'],
                'verdicts': dict(self.by_verdict()),
                'verdicts_by_oracle': {v: {o: c['x:%s:%s' % (v, o)] for o in ('separated', 'agree', 'undecided')}
                                       for v in sorted(self.by_verdict())},
                'corpus_cases': c['corpus-cases'],
                'verdicts_by_source': dict(sorted(self.verdicts.items())),
                'discrepancies': sum(self.kinds.values()), 'kinds': dict(self.kinds),
                'findings': self.findings, 'notes': dict(self.notes)}


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    ap = argparse.ArgumentParser(description='An oracle for axle equiv and axle superopt: random programs, '
                                 'their graphs and mutants, judged by a brute-force evaluator.')
    ap.add_argument('--seconds', type=float, default=60, help='how long to start cases (default 60)')
    ap.add_argument('--seed', type=int, default=1, help="the run's seed (default 1)")
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1,
                    help='cases at once, one process each (default: the number of cores)')
    ap.add_argument('--cases', type=int, default=0, help='stop after N cases (default: when the time is up)')
    ap.add_argument('--out', default='mugraph-fuzz-findings', help='where findings go (default mugraph-fuzz-findings/)')
    ap.add_argument('--axle', default=os.environ.get('AXLE') or os.path.join(root, 'build', 'axle'),
                    help='the axle binary (default $AXLE, else build/axle)')
    ap.add_argument('--axle-test', default=None,
                    help='the test binary, for the floor before its check (default $AXLE_TEST_BIN, else '
                         'axle-test beside --axle when there; "" for none)')
    ap.add_argument('--mutants', type=int, default=6, help='mutants per graph (default 6)')
    ap.add_argument('--corpus-share', type=float, default=0.15,
                    help="share of cases that mutate a graph of the repository's (tests/superopt, "
                         "superopt/examples: online softmaxes, masks, for-loops) instead (default 0.15; 0: none)")
    ap.add_argument('--points', type=int, default=4, help='exact input points per program (default 4)')
    ap.add_argument('--float-draws', type=int, default=3, help='float draws per program (default 3)')
    ap.add_argument('--search-share', type=float, default=0.5, help='share of programs searched (default 0.5)')
    ap.add_argument('--search-time', default='2,3', help='the search\'s --time-limit, one drawn per program (default 2,3)')
    ap.add_argument('--search-states', type=int, default=1000000,
                    help="the search's --max-states (default 1000000: on small programs it ends the search "
                         "before the time limit, so that the search's graph depends on the seed alone)")
    ap.add_argument('--equiv-timeout', type=int, default=120, help='seconds an axle equiv may take (default 120)')
    ap.add_argument('--minimize-seconds', type=float, default=120,
                    help='time to minimise each discrepancy (default 120; 0: none)')
    ap.add_argument('--minimize-first', type=int, default=3,
                    help='minimise the first N discrepancies of each kind (default 3)')
    ap.add_argument('--minimize-edits', type=int, default=12,
                    help='edits of the mutation kind tried per smaller program (default 12)')
    ap.add_argument('--stop-after', type=int, default=0, help='stop after N discrepancies (default: never)')
    ap.add_argument('--stats', help='write the final figures as JSON to this file')
    ap.add_argument('--notes', metavar='DIR', help='write the first pairs of each note (incomplete: not '
                    'equivalent, not separated; oracle-rejects: a graph axle validates and the brute '
                    'force does not) to DIR, for a reader')
    ap.add_argument('--log', help='append every case (program, counts, discrepancies) as a JSON line to this file')
    ap.add_argument('--progress', type=float, default=10, help='seconds between progress lines (default 10)')
    ap.add_argument('--quiet', action='store_true', help='no progress lines')
    ap.add_argument('--eval', metavar='FILE', help='evaluate a program (.axl) or graph (.mug) exactly and print its outputs')
    ap.add_argument('--inputs', help='with --eval: the inputs as JSON, {"X": [numbers, row-major], ...} '
                    '(numbers as integers or strings such as "1/3" or "0.25"); default: every element 1')
    ap.add_argument('--float', choices=('f64', 'storage'), help='with --eval: in doubles instead, optionally with storage rounding')
    ap.add_argument('--separate', nargs=2, metavar=('PROGRAM', 'GRAPH'),
                    help="print the brute force's judgement of one pair (exit 1 when it separates them)")
    ap.add_argument('--render', metavar='STATS', help='print the docs/results-superopt.md section of a --stats file')
    ap.add_argument('seconds_pos', nargs='?', type=float, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.seconds_pos is not None:
        args.seconds = args.seconds_pos
    try:
        args.search_time = [int(x) for x in args.search_time.split(',')]
    except ValueError:
        ap.error('--search-time takes integers such as 2,3')
    if args.render:
        return render(args.render)
    if args.eval:
        return cmd_eval(args)
    if args.separate:
        return cmd_separate(args)
    if args.jobs < 1 or args.seconds < 0 or args.mutants < 0 or args.points < 1:
        ap.error('--jobs and --points must be at least 1, --seconds and --mutants not negative')
    if not (os.path.isfile(args.axle) and os.access(args.axle, os.X_OK)):
        sys.stderr.write('mugraph-fuzz: error: no axle binary at %s (build it, or set $AXLE)\n' % args.axle)
        return 3
    args.root = root
    args.corpus_pairs = load_corpus(root) if args.corpus_share > 0 else []
    if args.axle_test is None:
        cand = os.environ.get('AXLE_TEST_BIN') or os.path.join(os.path.dirname(args.axle), 'axle-test')
        args.axle_test = cand if os.path.isfile(cand) and os.access(cand, os.X_OK) else ''
    # private copies of the binaries: a rebuild during a long run must not change them midway
    snapshot = tempfile.mkdtemp(prefix='mugraph-fuzz-axle-')
    given = args.axle
    shutil.copy2(args.axle, os.path.join(snapshot, 'axle'))
    args.axle = os.path.join(snapshot, 'axle')
    if args.axle_test:
        shutil.copy2(args.axle_test, os.path.join(snapshot, 'axle-test'))
        args.axle_test = os.path.join(snapshot, 'axle-test')
    try:
        return drive(args, given)
    finally:
        shutil.rmtree(snapshot, ignore_errors=True)


def drive(args, given):
    stats = Stats()
    t0 = time.time()
    stop = t0 + args.seconds
    if not args.quiet:
        sys.stderr.write('mugraph-fuzz: %s%s, seed %d, %d jobs, %.0f s%s, findings to %s/\n' % (
            given, ' and axle-test' if args.axle_test else '', args.seed, args.jobs, args.seconds,
            ', %d cases' % args.cases if args.cases else '', args.out.rstrip('/')))
    last = t0
    minimized = collections.Counter()
    originals = {}
    i = 0

    def wanted():
        if args.stop_after and sum(stats.kinds.values()) >= args.stop_after:
            return False
        if args.cases and i >= args.cases:
            return False
        return time.time() < stop

    with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs) as pool:
        cases, mins = {}, {}
        while True:
            while wanted() and len(cases) + len(mins) < args.jobs:
                cases[pool.submit(case_worker, i, args)] = i
                i += 1
            if not cases and not mins:
                break
            done, _ = concurrent.futures.wait(list(cases) + list(mins), timeout=1,
                                              return_when=concurrent.futures.FIRST_COMPLETED)
            for f in done:
                if f in cases:
                    del cases[f]
                    case = f.result()
                    stats.add(case)
                    if args.log:
                        with open(args.log, 'a') as lf:
                            lf.write(json.dumps({'case': case.i, 'origin': case.origin, 'seconds': round(case.seconds, 2),
                                                 'program': case.program, 'counts': dict(case.c),
                                                 'verdicts': dict(case.verdicts),
                                                 'discrepancies': [d['kind'] for d in case.disc]}) + '\n')
                    seen = set()
                    for d in case.disc:
                        key = (d['kind'], d['source'], (d.get('mutation') or [None])[0])
                        if key in seen:
                            continue
                        seen.add(key)
                        minimized[d['kind']] += 1
                        if not args.quiet:
                            sys.stderr.write('mugraph-fuzz: DISCREPANCY %s in case %d: %s\n' % (d['kind'], d['case'], d['what'][:300]))
                        if args.minimize_seconds > 0 and minimized[d['kind']] <= args.minimize_first and \
                                d['source'] != 'corpus' and \
                                d['kind'] not in ('crash', 'hang', 'bad-exit', 'fuzzer-error') and d.get('graph'):
                            mins[pool.submit(minimize_worker, d, args)] = d
                            originals[id(d)] = d['program']
                        else:
                            record(stats, args, d, 0, False, d['program'])
                else:
                    d = mins.pop(f)
                    small, steps = f.result()
                    record(stats, args, small, steps, True, d['program'])
            if not args.quiet and args.progress > 0 and time.time() - last >= args.progress:
                last = time.time()
                sys.stderr.write(stats.line(last - t0) + '\n')
    elapsed = time.time() - t0
    ndisc = sum(stats.kinds.values())
    c = stats.c
    print('mugraph-fuzz: seed %d, %.0f s, %d jobs' % (args.seed, elapsed, args.jobs))
    print('  programs: %d (%d with no input point the brute force decides)' % (stats.cases, c['program-undecidable']))
    print('  graphs: greedy %d, floor unchecked %d, search %d (%d distinct); superopt refused %d programs' % (
        c['greedy-written'], c['floor-unchecked-written'], c['search-written'], c['graphs'], c['greedy-refused']))
    print('  mutants: %d judged (%d did not validate); %s' % (c['mutants'], c['mutants-invalid'], ', '.join(
        '%s %d' % (k, c['mutant-' + k]) for k in MUTATION_KINDS if c['mutant-' + k]) or 'none'))
    print('  brute force: %d pairs, %d separated (%d by inputs/outputs), %d agree, %d undecided; %d graphs it rejects' % (
        c['judged'], c['separated'], c['separated-interface'], c['agree'], c['undecided'], c['oracle-rejects']))
    print('  axle equiv: %s; not equivalent where the brute force separates nothing: %d' % (
        ', '.join('%s %d' % kv for kv in sorted(stats.by_verdict().items())) or 'none', c['incomplete']))
    print('  discrepancies: %d%s' % (ndisc, ' (%s)' % ', '.join('%s %d' % kv for kv in sorted(stats.kinds.items()))
                                     if ndisc else ''))
    for f in stats.findings:
        print('    %s: %s' % (f['file'], f['what'][:200]))
    if args.stats:
        with open(args.stats, 'w') as f:
            json.dump(stats.as_json(elapsed, args), f, indent=1)
    if args.notes:
        os.makedirs(args.notes, exist_ok=True)
        for n in stats.examples:
            base = os.path.join(args.notes, '%s-s%d-c%d-%s' % (n['note'], args.seed, n['case'], n['source']))
            with open(base + '.axl', 'w') as f:
                f.write('# %s: %s\n# %s\n' % (n['note'], n.get('verdict') or '', n['what']) + n['program'])
            with open(base + '.mug', 'w') as f:
                f.write('# %s\n' % (('mutant: %s: %s' % tuple(n['mutation'])) if n.get('mutation') else 'the graph') + n['graph'])
    if ndisc:
        return 1
    return 0 if c['judged'] else 3


def record(stats, args, d, steps, minimized, original):
    path = write_finding(args.out, args.seed, d, steps, minimized, original) if d.get('program') else None
    stats.findings.append({'file': path, 'kind': d['kind'], 'case': d['case'], 'source': d['source'],
                           'mutation': d.get('mutation'), 'what': d['what']})
    if not args.quiet and path:
        sys.stderr.write('  written to %s\n' % path)


# ---------------------------------------------------------------------------------------
# The pieces on their own: --eval, --separate, --render.
# ---------------------------------------------------------------------------------------

def read_inputs(decls, spec):
    given = json.loads(spec) if spec else {}
    out = {}
    for n, dt, s in decls:
        vals = given.get(n)
        if vals is None:
            vals = [1] * numel(s)
        if len(vals) != numel(s):
            raise ValueError("input '%s' needs %d values, got %d" % (n, numel(s), len(vals)))
        out[n] = T(s, [Q(v) if not isinstance(v, float) else Q(v) for v in vals])
    return out


def cmd_eval(args):
    with open(args.eval) as f:
        text = f.read()
    try:
        if args.eval.endswith('.mug'):
            obj = parse_graph(text)
            check_graph(obj)
            decls = obj.inputs
            ev = eval_graph
        else:
            obj = parse_program(text)
            decls = obj.inputs
            ev = eval_program
        pt = read_inputs(decls, args.inputs)
        if args.float:
            D = Float(args.float == 'storage')
            pt = {n: T(t.shape, [round_float(dt, float(v)) for v in t.data]) for (n, dt, _), t in zip(decls, pt.values())}
        else:
            D = Exact
        outs = ev(obj, D, pt)
    except (ParseError, GraphError, ShapeError, Unsupported, Undefined, Undecided, ValueError) as e:
        sys.stderr.write('mugraph-fuzz: %s: %s: %s\n' % (args.eval, type(e).__name__, e))
        return 3
    for n, t in outs.items():
        vals = [x_show(v) if not isinstance(v, float) else repr(v) for v in t.data]
        print('%s %s: %s' % (n, fmt_shape(t.shape), ' '.join(vals)))
    return 0


def cmd_separate(args):
    pfile, gfile = args.separate
    try:
        with open(pfile) as f:
            prog = parse_program(f.read())
        with open(gfile) as f:
            g = parse_graph(f.read())
        check_graph(g)
        oracle = Oracle(prog, random.Random(args.seed), args.points, args.float_draws)
        j = oracle.judge(g)
    except (ParseError, GraphError, ShapeError, Unsupported) as e:
        sys.stderr.write('mugraph-fuzz: %s\n' % e)
        return 3
    if j['sep']:
        print('separated (%s): %s' % (j['sep'], j['what']))
        if j.get('point'):
            print('  at inputs %s' % json.dumps(j['point']))
        return 1
    print('not separated: %d of %d input points decided, no output differs%s' % (
        j['decided'], len(oracle.points), '; but ' + j['unstable'] if j['unstable'] else ''))
    return 0


def render(path):
    """The section of docs/results-superopt.md for a long run's --stats file."""
    with open(path) as f:
        s = json.load(f)
    g = s['graphs']
    lines = [
        '## The verdicts against a brute force (`tools/mugraph-fuzz.sh`)', '',
        '`%s` on %s (%s), %.0f s:' % (s['command'], s['date'], s['machine'], s['seconds']),
        "random programs on small shapes (and the repository's small pairs), the graphs `axle",
        'superopt` writes for them and mutants of those graphs, each judged by `axle equiv` and by',
        'a brute-force evaluation in exact arithmetic that shares no code with axle',
        '(docs/superopt.md §14). *Separated*: some output differs at some input point, or the',
        'inputs or outputs differ in name, shape or element type.', '',
        '| | count |', '|---|---|',
        '| programs (of them the repository\'s pairs) | %d (%d) |' % (s['programs'], s.get('corpus_cases', 0)),
        '| graphs written: greedy floor, floor before its check, search | %d, %d, %d |' % (
            g['greedy'], g['floor-unchecked'], g['search']),
        '| mutants judged (edits that did not validate, not judged) | %d (%d) |' % (s['mutants'], s['mutants_invalid']),
        '| pairs judged | %d |' % s['pairs_judged'],
        '| separated: by inputs or outputs, by values | %d, %d |' % (s['separated_interface'], s['separated_values']),
        '| not separated: every decided point agrees, no point decided | %d, %d |' % (s['agree'], s['undecided']),
        '', '| `axle equiv` says | pairs | separated | not separated | no point decided |', '|---|---|---|---|---|']
    cross = s.get('verdicts_by_oracle', {})
    for v in sorted(s['verdicts']):
        x = cross.get(v, {})
        lines.append('| %s | %d | %d | %d | %d |' % (v, s['verdicts'][v], x.get('separated', 0), x.get('agree', 0),
                                                   x.get('undecided', 0)))
    lines += ['',
              '**%d discrepancies**%s. *Equivalent* (exit 0, any kind) on a separated pair, a written graph' % (
                  s['discrepancies'], ' (%s)' % ', '.join('%s %d' % kv for kv in sorted(s['kinds'].items()))
                  if s['kinds'] else ''),
              'separated from its program, a crash, a hang or an undocumented exit status would be one.',
              '*Not equivalent* on a pair not separated would be a refutation without a witness: %d. *Not' % (
                  s.get('verdicts_by_oracle', {}).get('not-equivalent', {}).get('agree', 0)),
              '*established* on one (%d: a conversion or root read as a keyed function, where no witness in' % (
                  s.get('verdicts_by_oracle', {}).get('not-established', {}).get('agree', 0)),
              'interval arithmetic exists) is conservatism, counted, no discrepancy.']
    if s['kinds'].get('equiv-interface'):
        lines += ['*equiv-interface*: an output of another element type than the program\'s, equal in',
                  'value (tests/superopt/mugfuzz/type_*: both 0, so the field agrees).', '']
    for f in s.get('findings', [])[:12]:
        lines.append('* %s: %s' % (f['kind'], f['what'][:160]))
    mk = s.get('mutant_kinds') or {}
    if mk:
        lines += ['', 'Mutants by kind: %s.' % ', '.join('%s %d' % kv for kv in sorted(mk.items()))]
    print('\n'.join(lines))
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
