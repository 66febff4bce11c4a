#!/usr/bin/env python3
"""verdict-fuzz.py — the verdict fuzzer: hunts wrong verdicts of `axle verify` by itself.

It writes rules — random ones from the language's grammar and operator shape rules, and
mutants of the rule corpus (rules/**/*.axl) — checks each with `axle check` (ill-formed
ones are counted and dropped), and puts every well-formed one to two oracles that share
no code path but the denotations:

  * `axle verify --format json`: the solvers' verdict, VERIFIED for every rank and size
    or INVALID with a counterexample the verifier replayed;
  * `axle brute --format json`: a search of small concrete instances (ranks <= 3, sizes
    <= 3, small element values) with the concrete semantics and no solver
    (verifier/brute.h).

A *discrepancy* is a verdict one of them contradicts:

  verified-refuted     VERIFIED (or HOLDS-BOUNDED) while brute force finds a counterexample;
  cex-not-reproduced   INVALID whose counterexample is none when brute force evaluates
                       exactly that instance (`axle brute --instance`): a precondition
                       fails somewhere, or the sides agree;
  cex-elsewhere        INVALID whose instance is a counterexample, but not at the access
                       (or of the kind) it names;
  cex-unevaluable      INVALID whose instance the concrete domain cannot evaluate;
  hint-unwitnessed     INVALID-HINT without the replayed witness it must carry;
  hint-refuted-right   INVALID-HINT for a hint the generator wrote right — a bijection of
                       the summation boxes pairing equal summands, on a rule made by laws
                       (Gen.hint_rule) — that brute force does not refute: such a hint is a
                       bijection of every summand that counts, so no witness can exist;
  error                an ERROR verdict;
  crash                a command that died, exited with an unexpected status or printed no
                       result for a rule, or a verification worker that crashed (an
                       UNKNOWN "worker killed by SIGSEGV (signal 11)": SIGSEGV, SIGABRT, ...).

and, of a shard/merge round trip (every --shard-every cases with definite verdicts, over
the last three of their rules: `axle verify --shard K/N` for every K of a random N in 2..4
from a result cache the unsharded run filled, then `axle gate --merge`):

  shard-merge          a shard failed, or the merged verdicts or exit status are not the
                       unsharded run's;
  shard-tamper         a tampered set of reports was not refused (exit 3, with the message
                       of its kind): "met" flipped on one line, a shard dropped, a shard
                       given twice, a shard of another run (one file fewer, or another N).

UNKNOWN is no discrepancy (counted). Generated reductions carry hints (Gen.hint_rule): the
identity or the reflection, one-way or with the inverse, right, wrong (off by one, all to 0)
or the other bijection; the verdicts per kind of hint are counted (hints:). Every discrepancy is minimized by delta debugging on
the rule (restrict the type, drop statements and preconditions, replace subexpressions by
their operands or literals, shrink integers) as long as it still shows the same kind, and
written with a comment saying what it shows to --out (default fuzz-findings/).

Usage: verdict-fuzz.py [--seconds N] [--seed N] [--jobs N] [--out DIR] [--axle PATH] ...
(tools/verdict-fuzz.sh is the wrapper CI calls). Exit 0 only with zero discrepancies; 3 on
bad usage or when nothing could be checked. Python 3 standard library only.
"""

import argparse
import collections
import concurrent.futures
import copy
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

# ---------------------------------------------------------------------------------------
# The language: a lexer, a parser and a printer for rules (docs/language.md). Expressions
# are tuples:
#   ('num', text) ('bool', 'true'|'false') ('inf',) ('name', id)
#   ('call', fn, [(argname|None, expr), ...])
#   ('neg', e) ('not', e) ('bin', op, l, r) ('if', c, a, b) ('quant', 'forall'|'exists', cls, e)
#   ('axmap', [(axis, e), ...]) ('list', [e, ...])
# Statements are dicts with a kind 'k' (see Rule.stmt_text).
# ---------------------------------------------------------------------------------------

TOKEN_RE = re.compile(r"""
    (?P<ws>[ \t]+) | (?P<comment>\#[^\r\n]*) | (?P<nl>\r\n|\r|\n)
  | (?P<num>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*'*)
  | (?P<op>=>|==|!=|<=|>=|[-+*/%<>=(){}\[\],:;])
""", re.X)

KEYWORDS_CONT = {'and', 'or', 'not', 'if', 'then', 'else'}
# a statement goes on after these (they cannot end one) ...
CONT_OPS = {'+', '-', '*', '/', '%', '==', '!=', '<', '<=', '>', '>=', '=', '=>', ',', ':',
            '(', '[', '{'}
# ... and before these (they cannot start one)
NOSTART_OPS = {'=>', '+', '*', '/', '%', '==', '!=', '<', '<=', '>', '>=', ',', ')', ']'}
NOSTART_IDS = {'else', 'then', 'and', 'or'}

CMP_OPS = ('==', '!=', '<', '<=', '>', '>=')
PREC = {'or': 1, 'and': 2, '==': 4, '!=': 4, '<': 4, '<=': 4, '>': 4, '>=': 4,
        '+': 5, '-': 5, '*': 6, '/': 6, '%': 6}


class ParseError(Exception):
    pass


def tokenize(text):
    toks, pos = [], 0
    while pos < len(text):
        m = TOKEN_RE.match(text, pos)
        if not m:
            raise ParseError('bad character %r at %d' % (text[pos], pos))
        kind = m.lastgroup
        if kind == 'nl':
            toks.append(('nl', '\n'))
        elif kind in ('num', 'id', 'op'):
            toks.append((kind, m.group()))
        pos = m.end()
    toks.append(('eof', ''))
    return toks


class Parser:
    """Recursive descent over the tokens; newlines as docs/language.md says."""

    def __init__(self, text):
        self.t = tokenize(text)
        self.i = 0
        self.depth = 0          # open ( [ { inside a statement
        self.last = None        # the last token consumed

    def _skip_nl(self):
        while self.t[self.i][0] == 'nl':
            j = self.i
            while self.t[j][0] == 'nl':
                j += 1
            nxt = self.t[j]
            last = self.last
            cont = last is not None and ((last[0] == 'op' and last[1] in CONT_OPS) or
                                         (last[0] == 'id' and last[1] in KEYWORDS_CONT))
            nostart = (nxt[0] == 'op' and nxt[1] in NOSTART_OPS) or \
                      (nxt[0] == 'id' and nxt[1] in NOSTART_IDS)
            if self.depth > 0 or cont or nostart:
                self.i = j
            else:
                return

    def peek(self, skip=True):
        if skip:
            self._skip_nl()
        return self.t[self.i]

    def next(self):
        tok = self.peek()
        self.i += 1
        self.last = tok
        if tok[0] == 'op' and tok[1] in '([{':
            self.depth += 1
        elif tok[0] == 'op' and tok[1] in ')]}' and self.depth > 0:
            self.depth -= 1
        return tok

    def at(self, text):
        tok = self.peek()
        return tok[1] == text and tok[0] in ('op', 'id')

    def accept(self, text):
        if self.at(text):
            return self.next()
        return None

    def expect(self, text):
        tok = self.next()
        if tok[1] != text:
            raise ParseError('expected %r, got %r' % (text, tok[1]))
        return tok

    def ident(self):
        tok = self.next()
        if tok[0] != 'id':
            raise ParseError('expected a name, got %r' % (tok[1],))
        return tok[1]

    def idents(self):
        names = [self.ident()]
        while self.accept(','):
            names.append(self.ident())
        return names

    # file = { block | NL }
    def file(self):
        rules = []
        while True:
            tok = self.peek(skip=False)
            if tok[0] == 'nl' or (tok[0] == 'op' and tok[1] == ';'):
                self.i += 1
                continue
            if tok[0] == 'eof':
                return rules
            if tok[1] == 'program':
                self.skip_block()
            elif tok[1] == 'rule':
                rules.append(self.rule())
            else:
                raise ParseError('expected rule or program, got %r' % (tok[1],))

    def skip_block(self):
        while self.t[self.i][1] != '{':
            self.i += 1
        depth = 0
        while True:
            tok = self.t[self.i]
            self.i += 1
            if tok[1] == '{':
                depth += 1
            elif tok[1] == '}':
                depth -= 1
                if depth == 0:
                    return
            elif tok[0] == 'eof':
                raise ParseError('unterminated block')

    # block = "rule" ident [ "for" ident "in" tclass ] [ "expect" ... ] "{" body "}"
    def rule(self):
        self.expect('rule')
        r = Rule(self.ident())
        if self.accept('for'):
            r.tvar = self.ident()
            self.expect('in')
            r.tclass = self.ident()
        if self.accept('expect'):
            r.expect = self.ident()
            if r.expect == 'invalid' and self.accept('hint'):
                r.expect = 'invalid hint'
        self.expect('{')
        self.depth = 0
        while True:
            tok = self.peek(skip=False)
            if tok[0] == 'nl' or tok[1] == ';':
                self.i += 1
                continue
            if tok[1] == '}':
                self.i += 1
                self.last = tok
                return r
            r.stmts.append(self.stmt())
            self.depth = 0
            end = self.peek(skip=False)
            if end[0] not in ('nl', 'eof') and end[1] not in (';', '}'):
                raise ParseError('statement does not end at %r' % (end[1],))

    def stmt(self):
        tok = self.peek()
        w = tok[1] if tok[0] == 'id' else None
        if w == 'rclass':
            self.next()
            return {'k': 'rclass', 'names': self.idents()}
        if w == 'axes':
            self.next()
            names = self.idents()
            self.expect(':')
            return {'k': 'axes', 'names': names, 'cls': self.ident()}
        if w == 'map':
            self.next()
            names = self.idents()
            self.expect('over')
            s = {'k': 'map', 'names': names, 'cls': self.ident(), 'nonneg': False, 'value': None}
            if self.accept('nonneg'):
                s['nonneg'] = True
            if self.accept('='):
                s['value'] = self.expr()
            return s
        if w == 'index':
            self.next()
            names = self.idents()
            self.expect('over')
            return {'k': 'index', 'names': names, 'cls': self.ident()}
        if w in ('tensor', 'input'):
            self.next()
            names = self.idents()
            self.expect(':')
            s = {'k': 'tensor', 'names': names, 'type': self.ident(), 'dims': None}
            if self.accept('['):
                dims = []
                while not self.at(']'):
                    a = None
                    if self.peek()[0] == 'id' and self.t[self.i + 1][1] == ':':
                        a = self.ident()
                        self.expect(':')
                    dims.append((a, self.expr()))
                    if not self.accept(','):
                        break
                self.expect(']')
                s['dims'] = dims
            return s
        if w == 'scalar':
            self.next()
            names = self.idents()
            self.expect(':')
            return {'k': 'scalar', 'names': names, 'type': self.ident()}
        if w == 'let':
            self.next()
            name = self.ident()
            self.expect('=')
            return {'k': 'let', 'name': name, 'value': self.expr()}
        if w in ('require', 'hint'):
            self.next()
            exprs = [self.expr()]
            while self.accept(','):
                exprs.append(self.expr())
            return {'k': w, 'exprs': exprs}
        lhs = self.expr()
        self.expect('=>')
        return {'k': 'rewrite', 'lhs': lhs, 'rhs': self.expr()}

    def expr(self):
        if self.at('if'):
            self.next()
            c = self.expr()
            self.expect('then')
            a = self.expr()
            self.expect('else')
            return ('if', c, a, self.expr())
        if self.at('forall') or self.at('exists'):
            q = self.next()[1]
            cls = self.ident()
            self.expect(':')
            return ('quant', q, cls, self.expr())
        return self.binary(1)

    def binary(self, level):
        if level == 3:
            if self.accept('not'):
                return ('not', self.binary(3))
            return self.binary(4)
        if level == 4:
            left = self.binary(5)
            tok = self.peek()
            if tok[0] == 'op' and tok[1] in CMP_OPS:
                self.next()
                return ('bin', tok[1], left, self.binary(5))
            return left
        if level == 7:
            return self.unary()
        ops = {1: ('or',), 2: ('and',), 5: ('+', '-'), 6: ('*', '/', '%')}[level]
        nxt = {1: 2, 2: 3, 5: 6, 6: 7}[level]
        left = self.binary(nxt)
        while True:
            tok = self.peek()
            if tok[1] in ops and tok[0] in ('op', 'id'):
                self.next()
                left = ('bin', tok[1], left, self.binary(nxt))
            else:
                return left

    def unary(self):
        if self.accept('-'):
            return ('neg', self.unary())
        if self.at('if') or self.at('forall') or self.at('exists'):
            return self.expr()
        return self.primary()

    def primary(self):
        tok = self.next()
        kind, text = tok
        if kind == 'num':
            return ('num', text)
        if kind == 'id':
            if text in ('true', 'false'):
                return ('bool', text)
            if text == 'inf':
                return ('inf',)
            if self.at('('):
                self.next()
                args = []
                while not self.at(')'):
                    name = None
                    if self.peek()[0] == 'id' and self.t[self.i + 1][1] == '=':
                        name = self.ident()
                        self.expect('=')
                    args.append((name, self.expr()))
                    if not self.accept(','):
                        break
                self.expect(')')
                return ('call', text, args)
            return ('name', text)
        if text == '(':
            e = self.expr()
            self.expect(')')
            return e
        if text == '{':
            entries = []
            while not self.at('}'):
                a = self.ident()
                self.expect(':')
                entries.append((a, self.expr()))
                if not self.accept(','):
                    break
            self.expect('}')
            return ('axmap', entries)
        if text == '[':
            items = []
            while not self.at(']'):
                items.append(self.expr())
                if not self.accept(','):
                    break
            self.expect(']')
            return ('list', items)
        raise ParseError('unexpected %r' % (text,))


def parse_rules(text):
    return Parser(text).file()


def pe(e, ctx=0):
    """An expression as text, parenthesized only where its context needs it."""
    k = e[0]
    if k == 'num' or k == 'bool':
        return e[1]
    if k == 'inf':
        return 'inf'
    if k == 'name':
        return e[1]
    if k == 'call':
        return '%s(%s)' % (e[1], ', '.join((n + '=' if n else '') + pe(v) for n, v in e[2]))
    if k == 'axmap':
        return '{%s}' % ', '.join('%s: %s' % (a, pe(v)) for a, v in e[1])
    if k == 'list':
        return '[%s]' % ', '.join(pe(v) for v in e[1])
    if k == 'neg':
        s, p = '-' + pe(e[1], 8 if e[1][0] == 'neg' else 7), 7
    elif k == 'not':
        s, p = 'not ' + pe(e[1], 3), 3
    elif k == 'bin':
        p = PREC[e[1]]
        if p == 4:
            s = '%s %s %s' % (pe(e[2], 5), e[1], pe(e[3], 5))
        else:
            s = '%s %s %s' % (pe(e[2], p), e[1], pe(e[3], p + 1))
    elif k == 'if':
        s, p = 'if %s then %s else %s' % (pe(e[1], 1), pe(e[2], 1), pe(e[3], 0)), 0
    elif k == 'quant':
        s, p = '%s %s: %s' % (e[1], e[2], pe(e[3], 0)), 0
    else:
        raise ValueError(k)
    return '(%s)' % s if p < ctx else s


class Rule:
    def __init__(self, name):
        self.name = name
        self.tvar = None
        self.tclass = None
        self.expect = None
        self.stmts = []
        self.origin = ''
        # the generator's hint (hint_rule): 'right' (a bijection of the summation boxes that
        # pairs equal summands: never INVALID-HINT), 'wrong', 'neutral' (not judged), None
        self.hint_class = None

    def copy(self):
        return copy.deepcopy(self)

    @staticmethod
    def stmt_text(s):
        k = s['k']
        if k == 'rclass':
            return 'rclass ' + ', '.join(s['names'])
        if k == 'axes':
            return 'axes %s : %s' % (', '.join(s['names']), s['cls'])
        if k == 'map':
            t = 'map %s over %s' % (', '.join(s['names']), s['cls'])
            if s['nonneg']:
                t += ' nonneg'
            if s['value'] is not None:
                t += ' = ' + pe(s['value'])
            return t
        if k == 'index':
            return 'index %s over %s' % (', '.join(s['names']), s['cls'])
        if k == 'tensor':
            t = 'tensor %s : %s' % (', '.join(s['names']), s['type'])
            if s['dims'] is not None:
                t += '[%s]' % ', '.join((a + ': ' if a else '') + pe(v) for a, v in s['dims'])
            return t
        if k == 'scalar':
            return 'scalar %s : %s' % (', '.join(s['names']), s['type'])
        if k == 'let':
            return 'let %s = %s' % (s['name'], pe(s['value']))
        if k in ('require', 'hint'):
            return '%s %s' % (k, ', '.join(pe(e) for e in s['exprs']))
        if k == 'rewrite':
            return '%s => %s' % (pe(s['lhs']), pe(s['rhs']))
        raise ValueError(k)

    def text(self):
        head = 'rule ' + self.name
        if self.tvar:
            head += ' for %s in %s' % (self.tvar, self.tclass)
        if self.expect:
            head += ' expect ' + self.expect
        body = ''.join('  %s\n' % self.stmt_text(s) for s in self.stmts)
        return '%s {\n%s}\n' % (head, body)

    def rewrite(self):
        for s in self.stmts:
            if s['k'] == 'rewrite':
                return s
        return None


# ---------------------------------------------------------------------------------------
# Expression helpers
# ---------------------------------------------------------------------------------------

def num(v):
    return ('num', str(v)) if v >= 0 else ('neg', ('num', str(-v)))


def name(n):
    return ('name', n)


def call(fn, *pos, **named):
    return ('call', fn, [(None, p) for p in pos] + [(k, v) for k, v in named.items()])


def axmap(d):
    return ('axmap', sorted(d.items()))


def binop(op, a, b):
    return ('bin', op, a, b)


def pos_args(e):
    return [v for n, v in e[2] if n is None]


def is_call(e, *fns):
    return e[0] == 'call' and e[1] in fns


def children(e):
    """(index path step, child) of every sub-expression."""
    k = e[0]
    if k == 'call':
        return [((2, i, 1), v) for i, (_, v) in enumerate(e[2])]
    if k in ('neg', 'not'):
        return [((1,), e[1])]
    if k == 'bin':
        return [((2,), e[2]), ((3,), e[3])]
    if k == 'if':
        return [((1,), e[1]), ((2,), e[2]), ((3,), e[3])]
    if k == 'quant':
        return [((3,), e[3])]
    if k == 'axmap':
        return [((1, i, 1), v) for i, (_, v) in enumerate(e[1])]
    if k == 'list':
        return [((1, i), v) for i, v in enumerate(e[1])]
    return []


def subterms(e, path=()):
    yield path, e
    for step, c in children(e):
        yield from subterms(c, path + (step,))


def replace_at(e, path, new):
    if not path:
        return new
    step, rest = path[0], path[1:]
    lst = list(e)
    if len(step) == 1:
        lst[step[0]] = replace_at(e[step[0]], rest, new)
    elif len(step) == 2:
        items = list(e[step[0]])
        items[step[1]] = replace_at(items[step[1]], rest, new)
        lst[step[0]] = items
    else:
        items = list(e[step[0]])
        pair = list(items[step[1]])
        pair[step[2]] = replace_at(pair[step[2]], rest, new)
        items[step[1]] = tuple(pair)
        lst[step[0]] = items
    return tuple(lst)


def substitute(e, old, new):
    if e == old:
        return new
    k = e[0]
    if k == 'call':
        return ('call', e[1], [(a, substitute(v, old, new)) for a, v in e[2]])
    if k in ('neg', 'not'):
        return (k, substitute(e[1], old, new))
    if k == 'bin':
        return ('bin', e[1], substitute(e[2], old, new), substitute(e[3], old, new))
    if k == 'if':
        return ('if',) + tuple(substitute(x, old, new) for x in e[1:])
    if k == 'quant':
        return ('quant', e[1], e[2], substitute(e[3], old, new))
    if k == 'axmap':
        return ('axmap', [(a, substitute(v, old, new)) for a, v in e[1]])
    if k == 'list':
        return ('list', [substitute(v, old, new) for v in e[1]])
    return e


def attr(e, fn_attrs, key):
    """Attribute `key` of call e, positional or named, given the operator's attribute order."""
    pos = pos_args(e)
    order = fn_attrs.get(e[1], [])
    for n, v in e[2]:
        if n == key:
            return v
    nops = OPERANDS.get(e[1], 1)
    if key in order:
        i = nops + order.index(key)
        if i < len(pos):
            return pos[i]
    return None


# operands and attribute order of the operators the laws look into
OPERANDS = {'slice': 1, 'pad': 2, 'pad_low': 2, 'dynamic_slice': 1, 'dynamic_update_slice': 2,
            'reverse': 1, 'relabel': 1, 'reduce': 1, 'broadcast': 1, 'select': 3}
ATTRS = {'slice': ['start', 'end', 'stride'], 'pad': ['low', 'interior', 'high'],
         'pad_low': ['low'], 'dynamic_slice': ['start', 'sizes'],
         'dynamic_update_slice': ['start'], 'reverse': ['axes'], 'relabel': ['map'],
         'reduce': ['axes'], 'broadcast': ['shape']}

ELEMENTWISE2 = ('add', 'sub', 'mul', 'max', 'min')
INFIX_ARITH = ('+', '-', '*')


def merge_axmaps(a, b, op='+'):
    """{x: a1} op {x: b1}: per axis (an axis missing on one side keeps the other's)."""
    if not (a and b and a[0] == 'axmap' and b[0] == 'axmap'):
        return None
    da, db = dict(a[1]), dict(b[1])
    out = {}
    for k in set(da) | set(db):
        if k in da and k in db:
            out[k] = binop(op, da[k], db[k])
        else:
            out[k] = da.get(k, db.get(k))
    return axmap(out)


# ---------------------------------------------------------------------------------------
# Laws: rewrites that hold (some only under conditions a random rule may not meet — those
# are the interesting ones). Each returns the alternatives for one node.
# ---------------------------------------------------------------------------------------

def laws(e):
    out = []
    k = e[0]
    if k == 'neg' and e[1][0] == 'neg':
        out.append(e[1][1])
    if k == 'not' and e[1][0] == 'not':
        out.append(e[1][1])
    if k == 'not' and e[1][0] == 'bin' and e[1][1] in CMP_OPS:
        neg = {'==': '!=', '!=': '==', '<': '>=', '<=': '>', '>': '<=', '>=': '<'}
        out.append(binop(neg[e[1][1]], e[1][2], e[1][3]))
    if k == 'bin':
        op, a, b = e[1], e[2], e[3]
        if op in ('+', '*', '==', '!=', 'and', 'or'):
            out.append(binop(op, b, a))
        flip = {'<': '>', '<=': '>=', '>': '<', '>=': '<='}
        if op in flip:
            out.append(binop(flip[op], b, a))
        if op == '+' and b == ('num', '0'):
            out.append(a)
        if op == '*' and b == ('num', '1'):
            out.append(a)
        if op == '-':
            out.append(binop('+', a, ('neg', b)))
            if b == ('num', '0'):
                out.append(a)
        if op in ('+', '*') and a[0] == 'bin' and a[1] == op:
            out.append(binop(op, a[2], binop(op, a[3], b)))
        if op == '*' and b[0] == 'bin' and b[1] in ('+', '-'):
            out.append(binop(b[1], binop('*', a, b[2]), binop('*', a, b[3])))
        if op in ('+', '-', '*') and a[0] == 'call' and a[1] == 'select':
            p, x, y = pos_args(a)[:3]
            out.append(call('select', p, binop(op, x, b), binop(op, y, b)))
    if k != 'call':
        return out
    fn, pos = e[1], pos_args(e)
    if fn == 'neg' and pos and is_call(pos[0], 'neg'):
        out.append(pos_args(pos[0])[0])
    if fn in ('max', 'min') and len(pos) == 2:
        a, b = pos
        if a == b:
            out.append(a)
        out.append(call(fn, b, a))
        if fn == 'max':
            out.append(call('select', binop('>=', a, b), a, b))
        else:
            out.append(('neg', call('max', ('neg', a), ('neg', b))))
    if fn == 'select' and len(pos) == 3:
        p, a, b = pos
        if a == b:
            out.append(a)
        out.append(call('select', ('not', p), b, a))
        if p[0] == 'bin' and p[1] == '>' and p[3] == ('num', '0') and a == p[2] and b == ('num', '0'):
            out.append(call('max', a, ('num', '0')))
    if fn == 'abs' and pos:
        if pos[0][0] == 'neg' or is_call(pos[0], 'neg'):
            inner = pos[0][1] if pos[0][0] == 'neg' else pos_args(pos[0])[0]
            out.append(call('abs', inner))
        if is_call(pos[0], 'abs'):
            out.append(pos[0])
        out.append(call('select', binop('>=', pos[0], ('num', '0')), pos[0], ('neg', pos[0])))
    if fn == 'reverse' and pos:
        inner = pos[0]
        if is_call(inner, 'reverse') and attr(inner, ATTRS, 'axes') == attr(e, ATTRS, 'axes'):
            out.append(pos_args(inner)[0])
        ax = attr(e, ATTRS, 'axes')
        if ax is not None and ax[0] == 'list' and not ax[1]:
            out.append(inner)
        out.extend(push_unary(e, 'reverse', [('axes', ax)]))
    if fn == 'slice' and pos:
        st, en, sd = (attr(e, ATTRS, a) for a in ('start', 'end', 'stride'))
        inner = pos[0]
        if is_call(inner, 'slice') and sd is None and attr(inner, ATTRS, 'stride') is None:
            ist, ien = attr(inner, ATTRS, 'start'), attr(inner, ATTRS, 'end')
            if ist is not None and st is not None and en is not None:
                nst, nen = merge_axmaps(ist, st), merge_axmaps(ist, en)
                if nst and nen:
                    out.append(call('slice', pos_args(inner)[0], start=nst, end=nen))
        out.extend(push_unary(e, 'slice', [(a, attr(e, ATTRS, a)) for a in ('start', 'end', 'stride')]))
    if fn == 'pad_low' and len(pos) >= 2:
        inner, v, lo = pos[0], pos[1], attr(e, ATTRS, 'low')
        if is_call(inner, 'pad_low') and len(pos_args(inner)) >= 2 and pos_args(inner)[1] == v:
            m = merge_axmaps(attr(inner, ATTRS, 'low'), lo)
            if m:
                out.append(call('pad_low', pos_args(inner)[0], v, m))
        if lo is not None:
            out.append(call('pad', inner, v, low=lo))
    if fn == 'pad' and len(pos) >= 2:
        lo, ip, hi = (attr(e, ATTRS, a) for a in ('low', 'interior', 'high'))
        if ip is None and hi is None and lo is not None:
            out.append(call('pad_low', pos[0], pos[1], lo))
        out.extend(push_unary(e, 'pad', [(a, x) for a, x in (('low', lo), ('interior', ip), ('high', hi))],
                              extra=[pos[1]]))
    if fn == 'dynamic_slice' and pos:
        st, ln = attr(e, ATTRS, 'start'), attr(e, ATTRS, 'sizes')
        if st is not None and ln is not None:
            en = merge_axmaps(st, ln)
            if en:
                out.append(call('slice', pos[0], start=st, end=en))
    if fn == 'dynamic_update_slice' and len(pos) >= 2:
        a, u, st = pos[0], pos[1], attr(e, ATTRS, 'start')
        if is_call(u, 'dynamic_slice') and pos_args(u)[0] == a and attr(u, ATTRS, 'start') == st:
            out.append(a)
    if fn == 'relabel' and pos:
        inner, m = pos[0], attr(e, ATTRS, 'map')
        if is_call(inner, 'relabel') and m is not None and m[0] == 'axmap':
            im = attr(inner, ATTRS, 'map')
            if im is not None and im[0] == 'axmap' and \
                    sorted((b[1], a) for a, b in im[1] if b[0] == 'name') == sorted((a, b[1]) for a, b in m[1] if b[0] == 'name'):
                out.append(pos_args(inner)[0])
    if fn == 'reduce' and pos:
        inner, ax = pos[0], attr(e, ATTRS, 'axes')
        if inner[0] == 'bin' and inner[1] in ('+', '-'):
            out.append(binop(inner[1], call('reduce', inner[2], ax), call('reduce', inner[3], ax)))
        if inner[0] == 'neg':
            out.append(('neg', call('reduce', inner[1], ax)))
    return out


def push_unary(e, fn, attrs, extra=()):
    """fn(a op b, attrs) -> fn(a, attrs) op fn(b, attrs) for an element-wise op: true for
    reverse and slice; for pad only where op(v, v) = v (a near miss otherwise)."""
    inner = pos_args(e)[0]
    named = {a: x for a, x in attrs if x is not None}

    def wrap(x):
        if fn == 'reverse':   # its attribute is positional ('axes' is a keyword)
            return call(fn, x, named['axes']) if 'axes' in named else call(fn, x)
        return call(fn, x, *extra, **named)
    if inner[0] == 'bin' and inner[1] in INFIX_ARITH + CMP_OPS:
        return [binop(inner[1], wrap(inner[2]), wrap(inner[3]))]
    if inner[0] == 'neg':
        return [('neg', wrap(inner[1]))]
    if is_call(inner, *ELEMENTWISE2) and len(pos_args(inner)) == 2:
        a, b = pos_args(inner)
        return [call(inner[1], wrap(a), wrap(b))]
    if is_call(inner, 'select') and fn != 'pad':
        p, a, b = pos_args(inner)[:3]
        return [call('select', wrap(p), wrap(a), wrap(b))]
    return []


def apply_law(e, rng):
    """e with one law applied at a random node where one applies (None if none does)."""
    sites = []
    for path, t in subterms(e):
        alts = laws(t)
        if alts:
            sites.append((path, alts))
    if not sites:
        return None
    path, alts = rng.choice(sites)
    return replace_at(e, path, rng.choice(alts))


SWAPS = {'+': '-', '-': '+', '*': '+', '<': '<=', '<=': '<', '>': '>=', '>=': '>', '==': '!=',
         '!=': '==', 'and': 'or', 'or': 'and'}
CALL_SWAPS = {'max': 'min', 'min': 'max', 'add': 'sub', 'sub': 'add', 'mul': 'add',
              'abs': 'neg', 'neg': 'abs', 'lt': 'le', 'le': 'lt', 'gt': 'ge', 'ge': 'gt',
              'eq': 'ne', 'ne': 'eq', 'and': 'or', 'or': 'and'}


def operands(e):
    """The tensor operands of call e (not its attributes)."""
    if e[1] in ('constant', 'iota'):
        return []
    pos = [v for v in pos_args(e) if v[0] not in ('axmap', 'list')]
    return pos[:OPERANDS[e[1]]] if e[1] in OPERANDS else pos


def near_miss(e, rng):
    """e changed a little: an operator swapped, an integer moved by one, a select's branches
    swapped, a node replaced by its operand. Mostly wrong, sometimes only at an edge."""
    sites = list(subterms(e))
    for _ in range(20):
        path, t = rng.choice(sites)
        k = t[0]
        new = None
        if k == 'num' and '.' not in t[1] and 'e' not in t[1]:
            v = int(t[1])
            new = num(rng.choice([v + 1, v - 1, 0, 1]))
        elif k == 'bin' and t[1] in SWAPS:
            new = binop(SWAPS[t[1]], t[2], t[3])
        elif k == 'call' and t[1] in CALL_SWAPS and rng.random() < 0.5:
            new = ('call', CALL_SWAPS[t[1]], t[2])
        elif k == 'call' and t[1] == 'select':
            p, a, b = pos_args(t)[:3]
            new = call('select', p, b, a)
        elif k == 'call' and operands(t):
            new = rng.choice(operands(t))
        elif k in ('neg', 'not'):
            new = t[1]
        if new is not None and new != t:
            return replace_at(e, path, new)
    return None


# ---------------------------------------------------------------------------------------
# The generator: well-formed (mostly) rules from the grammar and the operators' shape
# rules, biased toward edges — sizes 0 and 1, negative pads, empty slices — and toward
# pairs of sides a law relates, so that VERIFIED is common and its edge cases matter.
# ---------------------------------------------------------------------------------------

class Gen:
    def __init__(self, rng, name):
        self.rng = rng
        self.name = name
        r = rng.random()
        self.tclass = ('num' if r < 0.35 else 'int' if r < 0.5 else 'real' if r < 0.7 else
                       'any' if r < 0.85 else 'bool')
        self.numeric = self.tclass in ('num', 'int', 'real')
        self.classes = ['x', 'y', 'z'][:rng.choice([1, 1, 1, 2, 2, 3])]
        self.axes = {c: c for c in self.classes}   # axis -> class
        self.size = {}                               # axis -> its size map
        sizes = ['s', 't', 'u']
        for i, c in enumerate(self.classes):
            self.size[c] = sizes[i]
        if rng.random() < 0.3:                      # two axes of one class (relabel, matrices)
            c = rng.choice(self.classes)
            self.axes[c + '2'] = c
            self.size[c + '2'] = self.size[c] if rng.random() < 0.5 else self.size[c] + '2'
        self.maps = {}      # name -> (class, nonneg, definition or None)
        for a, m in self.size.items():
            self.maps.setdefault(m, (self.axes[a], False, None))
        self.tensors = []   # (name, elem, {axis: size name})
        self.scalars = []   # (name, elem)
        self.requires = []
        self.lets = []
        self.indices = []   # (names, class): index maps
        self.hints = []     # hint expressions
        self.nparams = 0
        self.fixed = set()  # classes used as concat axes

    # ---- symbols ----
    def param(self, cls, nonneg=None):
        self.nparams += 1
        n = 'p%d' % self.nparams
        if nonneg is None:
            nonneg = self.rng.random() < 0.5
        self.maps[n] = (cls, nonneg, None)
        return name(n)

    def scalar(self, elem='T'):
        for n, e in self.scalars:
            if e == elem and self.rng.random() < 0.7:
                return name(n)
        n = 'c%d' % (len(self.scalars) + 1)
        self.scalars.append((n, elem))
        return name(n)

    def tensor(self, elem, axes):
        axes = tuple(sorted(axes))
        mine = [t for t in self.tensors if t[1] == elem and tuple(sorted(t[2])) == axes]
        if mine and self.rng.random() < 0.75:
            return self.rng.choice(mine)
        n = 'ABCDEFGHJK'[len(self.tensors)] if len(self.tensors) < 10 else 'X%d' % len(self.tensors)
        if elem == 'bool':
            n = 'P' + n
        t = (n, elem, {a: self.size[a] for a in axes})
        self.tensors.append(t)
        return t

    def lit(self, elem='T'):
        """A literal (or a named scalar) of element type elem."""
        if elem == 'bool':
            return ('bool', self.rng.choice(['true', 'false']))
        if elem == 'T' and not self.numeric:   # a bool literal is no T, even for T in bool
            return self.scalar()
        vals = [0, 1, 1, 2, -1, 3]
        v = num(self.rng.choice(vals))
        if self.tclass == 'real' and self.rng.random() < 0.15:
            v = ('num', self.rng.choice(['0.5', '1.5']))
        return v

    # ---- map values for attributes: edges first ----
    def amount(self, axis, size, kind):
        """A map expression for an attribute on `axis` whose current size is `size`."""
        cls = self.axes[axis]
        r = self.rng.random()
        if kind == 'start':
            return self.rng.choice([num(0), num(1), num(0), size, binop('-', size, num(1))]) \
                if r < 0.75 else self.param(cls, nonneg=True)
        if kind == 'end':
            return self.rng.choice([size, size, binop('-', size, num(1)), num(1), num(0)]) \
                if r < 0.75 else self.param(cls)
        if kind == 'stride':
            return self.rng.choice([num(1), num(2), num(2), num(3)]) if r < 0.85 else self.param(cls)
        if kind == 'pad':
            return self.rng.choice([num(0), num(1), num(2), num(-1), num(-1), num(-2)]) \
                if r < 0.7 else self.param(cls)
        if kind == 'interior':
            return self.rng.choice([num(0), num(1), num(1), num(2)]) if r < 0.8 else self.param(cls, True)
        if kind == 'length':
            return self.rng.choice([num(1), num(0), size, binop('-', size, num(1))]) \
                if r < 0.75 else self.param(cls, True)
        raise ValueError(kind)

    # ---- expressions ----
    def gen(self, elem, axes, depth, want=None):
        """(expr, sizes): a tensor expression of element type elem ('T' or 'bool') over
        exactly `axes`; sizes maps each axis to its size expression. `want`: sizes some
        axes must have (as expressions), so that element-wise operands agree."""
        want = want or {}
        axes = tuple(sorted(axes))
        rng = self.rng
        choices = ['leaf'] * 3
        if depth > 0:
            if elem == 'T':
                choices += ['select', 'update', 'reverse']
                if self.numeric:
                    choices += ['arith'] * 4 + ['unary'] * 2 + ['minmax'] * 2 + ['special']
                    if len(self.classes) > 1 or len(self.axes) > len(axes):
                        choices += ['reduce', 'dot']
                if self.tclass == 'bool':
                    choices += ['logic'] * 2
            else:
                choices += ['compare'] * 4 + ['logic'] * 2 + ['select', 'reverse']
            free = [a for a in axes if a not in want]
            if free:
                choices += ['slice', 'slice', 'pad', 'pad_low', 'dyslice', 'concat', 'broadcast']
                if any(self.axes[b] == self.axes[a] and b not in axes for a in free for b in self.axes):
                    choices += ['relabel']
        kind = rng.choice(choices)
        return getattr(self, 'g_' + kind)(elem, axes, depth, want)

    def sizes_of(self, axes, want):
        return {a: want.get(a, name(self.size[a])) for a in axes}

    def g_leaf(self, elem, axes, depth, want):
        rng = self.rng
        fits = [t for t in self.tensors if t[1] == elem and tuple(sorted(t[2])) == axes and
                all(pe(want[a]) == t[2][a] for a in want)]
        if elem == 'bool' and rng.random() < 0.6:
            return self.g_compare(elem, axes, 0, want)
        if (fits and rng.random() < 0.85) or (not want and rng.random() < 0.8 and axes):
            t = rng.choice(fits) if fits else self.tensor(elem, axes)
            return name(t[0]), {a: name(s) for a, s in t[2].items()}
        sizes = self.sizes_of(axes, want)
        if not axes:
            return self.lit(elem), {}
        return call('constant', self.lit(elem), axmap(sizes)), sizes

    def operand2(self, elem, axes, depth, sizes):
        """A second operand for an element-wise operator: a literal or scalar (which
        broadcasts), or a tensor expression of the same sizes."""
        if self.rng.random() < 0.3:
            return self.lit(elem)
        return self.gen(elem, axes, depth - 1, sizes)[0]

    def g_arith(self, elem, axes, depth, want):
        a, sizes = self.gen(elem, axes, depth - 1, want)
        # division and remainder by zero, NaN and the infinities are where the solvers' terms
        # and the concrete numbers part most easily (docs/semantics.md, "Elements")
        ops = ['+', '-', '*', '+', '*', '/', '%']
        op = self.rng.choice(ops)
        b = self.operand2(elem, axes, depth, sizes)
        if self.rng.random() < 0.08:
            b = ('inf',) if self.rng.random() < 0.5 else ('neg', ('inf',))
        return binop(op, a, b), sizes

    def g_special(self, elem, axes, depth, want):
        """clamp, square, pow with a small numeral exponent, sqrt (real): operators with
        edge cases of their own."""
        a, sizes = self.gen(elem, axes, depth - 1, want)
        r = self.rng.random()
        if r < 0.3:
            return call('clamp', self.lit(elem), a, self.lit(elem)), sizes
        if r < 0.55:
            return call('square', a), sizes
        if r < 0.85:
            return call('pow', a, num(self.rng.choice([0, 1, 2, 3, -1, -2]))), sizes
        if self.tclass == 'real':
            return call('sqrt', call('square', a)), sizes
        return call('abs', a), sizes

    def g_dot(self, elem, axes, depth, want):
        """dot(A, B, contract=[y]): A over some of the axes and y, B over the others and y."""
        extra = [b for b in self.axes if b not in axes]
        if not extra or not self.numeric:
            return self.g_arith(elem, axes, depth, want)
        y = self.rng.choice(extra)
        left = tuple(a for a in axes if self.rng.random() < 0.5)
        right = tuple(a for a in axes if a not in left)
        a, sa = self.gen(elem, left + (y,), depth - 1, {k: v for k, v in want.items() if k in left})
        b, sb = self.gen(elem, right + (y,), depth - 1, dict({k: v for k, v in want.items() if k in right}, **{y: sa[y]}))
        sizes = {k: v for k, v in list(sa.items()) + list(sb.items()) if k != y}
        return call('dot', a, b, contract=('list', [name(y)])), sizes

    def g_minmax(self, elem, axes, depth, want):
        a, sizes = self.gen(elem, axes, depth - 1, want)
        return call(self.rng.choice(['max', 'min']), a, self.operand2(elem, axes, depth, sizes)), sizes

    def g_unary(self, elem, axes, depth, want):
        a, sizes = self.gen(elem, axes, depth - 1, want)
        fn = self.rng.choice(['neg', 'abs', 'neg'])
        return (('neg', a) if fn == 'neg' and self.rng.random() < 0.5 else call(fn, a)), sizes

    def g_logic(self, elem, axes, depth, want):
        a, sizes = self.gen(elem, axes, depth - 1, want)
        if self.rng.random() < 0.25:
            return ('not', a), sizes
        return binop(self.rng.choice(['and', 'or']), a, self.operand2(elem, axes, depth, sizes)), sizes

    def g_compare(self, elem, axes, depth, want):
        a, sizes = self.gen('T', axes, max(depth - 1, 0), want)
        ops = list(CMP_OPS) if self.numeric else ['==', '!=']
        b = self.operand2('T', axes, max(depth, 1), sizes)
        if a[0] in ('num', 'neg', 'bool') and b[0] in ('num', 'neg', 'bool'):
            b = self.g_leaf_tensor('T', axes, sizes)[0]   # two literals do not type
        if a == b:   # A != A: a precondition that never holds says nothing
            b = self.lit('T')
        return binop(self.rng.choice(ops), a, b), sizes

    def g_leaf_tensor(self, elem, axes, want):
        t = self.tensor(elem, axes)
        return name(t[0]), {a: name(s) for a, s in t[2].items()}

    def g_select(self, elem, axes, depth, want):
        a, sizes = self.gen(elem, axes, depth - 1, want)
        p = self.gen('bool', axes, depth - 1, sizes)[0]
        return call('select', p, a, self.gen(elem, axes, depth - 1, sizes)[0]), sizes

    def g_reverse(self, elem, axes, depth, want):
        a, sizes = self.gen(elem, axes, depth - 1, want)
        if not axes:
            return a, sizes
        which = self.rng.sample(axes, self.rng.choice([1, 1, len(axes)]))
        return call('reverse', a, ('list', [name(x) for x in sorted(which)])), sizes

    def g_update(self, elem, axes, depth, want):
        a, sizes = self.gen(elem, axes, depth - 1, want)
        if not axes:
            return a, sizes
        u, usizes = self.gen(elem, axes, depth - 1)
        start = {x: self.amount(x, sizes[x], 'start') for x in axes if self.rng.random() < 0.7}
        return call('dynamic_update_slice', a, u, axmap(start)), sizes

    def free_axis(self, axes, want):
        return self.rng.choice([a for a in axes if a not in want])

    def g_slice(self, elem, axes, depth, want):
        x = self.free_axis(axes, want)
        a, sizes = self.gen(elem, axes, depth - 1, {k: v for k, v in want.items()})
        n = sizes[x]
        st, en = self.amount(x, n, 'start'), self.amount(x, n, 'end')
        named = {}
        if self.rng.random() < 0.8:
            named['start'] = axmap({x: st})
        else:
            st = num(0)
        if self.rng.random() < 0.8:
            named['end'] = axmap({x: en})
        else:
            en = n
        size = binop('-', en, st)
        if self.rng.random() < 0.3:
            p = self.amount(x, n, 'stride')
            named['stride'] = axmap({x: p})
            size = binop('/', binop('-', binop('+', size, p), num(1)), p)
        sizes = dict(sizes)
        sizes[x] = size
        return call('slice', a, **named), sizes

    def g_pad(self, elem, axes, depth, want):
        x = self.free_axis(axes, want)
        a, sizes = self.gen(elem, axes, depth - 1, want)
        lo, hi = self.amount(x, sizes[x], 'pad'), self.amount(x, sizes[x], 'pad')
        named = {'low': axmap({x: lo})}
        if self.rng.random() < 0.7:
            named['high'] = axmap({x: hi})
        else:
            hi = num(0)
        size = binop('+', binop('+', sizes[x], lo), hi)
        if self.rng.random() < 0.25:
            ip = self.amount(x, sizes[x], 'interior')
            named['interior'] = axmap({x: ip})
            size = binop('+', size, binop('*', ip, binop('-', sizes[x], num(1))))   # for n >= 1
        sizes = dict(sizes)
        sizes[x] = size
        return call('pad', a, self.lit(elem), **named), sizes

    def g_pad_low(self, elem, axes, depth, want):
        x = self.free_axis(axes, want)
        a, sizes = self.gen(elem, axes, depth - 1, want)
        lo = self.amount(x, sizes[x], 'pad')
        sizes = dict(sizes)
        sizes[x] = binop('+', sizes[x], lo)
        return call('pad_low', a, self.lit(elem), axmap({x: lo})), sizes

    def g_dyslice(self, elem, axes, depth, want):
        x = self.free_axis(axes, want)
        a, sizes = self.gen(elem, axes, depth - 1, want)
        st, ln = self.amount(x, sizes[x], 'start'), self.amount(x, sizes[x], 'length')
        sizes = dict(sizes)
        sizes[x] = ln
        return call('dynamic_slice', a, axmap({x: st}), axmap({x: ln})), sizes

    def g_concat(self, elem, axes, depth, want):
        x = self.free_axis(axes, want)
        a, sizes = self.gen(elem, axes, depth - 1, want)
        others = {k: v for k, v in sizes.items() if k != x}
        b, bsizes = self.gen(elem, axes, depth - 1, others)
        self.fixed.add(self.axes[x])
        sizes = dict(sizes)
        sizes[x] = binop('+', sizes[x], bsizes.get(x, sizes[x]))
        return call('concat', a, b, axis=name(x)), sizes

    def g_broadcast(self, elem, axes, depth, want):
        x = self.free_axis(axes, want)
        inner = tuple(a for a in axes if a != x)
        a, sizes = self.gen(elem, inner, depth - 1, want)
        sizes = dict(sizes)
        sizes[x] = name(self.size[x])
        return call('broadcast', a, axmap({x: sizes[x]})), sizes

    def g_relabel(self, elem, axes, depth, want):
        x = self.free_axis(axes, want)
        others = [b for b in self.axes if self.axes[b] == self.axes[x] and b not in axes]
        if not others:
            return self.g_leaf(elem, axes, depth, want)
        y = self.rng.choice(others)
        inner = tuple(sorted([a for a in axes if a != x] + [y]))
        a, sizes = self.gen(elem, inner, depth - 1, {k: v for k, v in want.items()})
        sizes = dict(sizes)
        sizes[x] = sizes.pop(y)
        return call('relabel', a, axmap({y: name(x)})), sizes

    def g_reduce(self, elem, axes, depth, want):
        extra = [b for b in self.axes if b not in axes]
        if not extra:
            return self.g_leaf(elem, axes, depth, want)
        y = self.rng.choice(extra)
        a, sizes = self.gen(elem, tuple(axes) + (y,), depth - 1, want)
        sizes = dict(sizes)
        sizes.pop(y, None)
        return call('reduce', a, ('list', [name(y)])), sizes

    # ---- masks: Boolean tensors built from constants by shape operators, reading no input;
    # "on every axis" against "on some axis" tells them apart only from rank 2 on, which is
    # what the rank bound must count (docs/semantics.md, "Worked examples") ----
    def mask(self, axes, depth, want=None):
        rng = self.rng
        want = want or {}
        sizes = self.sizes_of(axes, want)
        free = [a for a in axes if a not in want]
        r = rng.random()
        if depth <= 0 or r < 0.2 or not axes:
            if axes and rng.random() < 0.25:   # the index along one axis (its class: rank 1)
                x = rng.choice(axes)
                self.fixed.add(self.axes[x])
                return binop(rng.choice(CMP_OPS), call('iota', axmap(sizes), name(x)),
                             num(rng.choice([0, 1, 2]))), sizes
            return call('constant', ('bool', rng.choice(['true', 'false'])), axmap(sizes)), sizes
        if r < 0.45 and free:
            x = rng.choice(free)
            inner, isz = self.mask(axes, depth - 1, want)
            lo, hi = self.amount(x, isz[x], 'pad'), self.amount(x, isz[x], 'pad')
            isz = dict(isz)
            isz[x] = binop('+', binop('+', isz[x], lo), hi)
            return call('pad', inner, ('bool', rng.choice(['true', 'false'])), low=axmap({x: lo}),
                        high=axmap({x: hi})), isz
        if r < 0.65:
            a, asz = self.mask(axes, depth - 1, want)
            b = self.mask(axes, depth - 1)[0]
            start = {x: self.amount(x, asz[x], 'start') for x in axes}
            return call('dynamic_update_slice', a, b, axmap(start)), asz
        if r < 0.8 and free:
            x = rng.choice(free)
            inner, isz = self.mask(axes, depth - 1, want)
            st, en = self.amount(x, isz[x], 'start'), self.amount(x, isz[x], 'end')
            isz = dict(isz)
            isz[x] = binop('-', en, st)
            return call('slice', inner, start=axmap({x: st}), end=axmap({x: en})), isz
        a, asz = self.mask(axes, depth - 1, want)
        if rng.random() < 0.2:
            return ('not', a), asz
        return binop(rng.choice(['and', 'or', '==', '!=']), a, self.mask(axes, depth - 1, asz)[0]), asz

    def mask_rule(self):
        """select(M1, A, B) => select(M2, A, B), M2 a law, a near miss or another mask."""
        rng = self.rng
        axes = tuple(sorted(a for a in self.axes if rng.random() < 0.7) or [rng.choice(list(self.axes))])
        ta = self.tensor('T', axes)
        tb = self.tensor('T', axes) if rng.random() < 0.7 else None
        sizes = {a: name(s) for a, s in ta[2].items()}
        m1 = self.mask(axes, rng.choice([2, 3, 4]), sizes)[0]
        r = rng.random()
        m2 = (apply_law(m1, rng) if r < 0.4 else near_miss(m1, rng) if r < 0.8 else
              self.mask(axes, rng.choice([2, 3]), sizes)[0]) or m1
        other = name(tb[0]) if tb else self.lit('T')
        self.requires += self.map_requires()
        return self.assemble(call('select', m1, name(ta[0]), other), call('select', m2, name(ta[0]), other))

    # ---- preconditions that only hold where the tensors say so ----
    def cover(self, t):
        """A tensor expression that reads tensor t at most of its points (or all)."""
        e = name(t[0])
        axes = sorted(t[2])
        if not axes:
            return e
        x = self.rng.choice(axes)
        n = name(t[2][x])
        r = self.rng.random()
        if r < 0.3:
            return e
        if r < 0.45:
            return call('slice', e, start=axmap({x: num(1)}))
        if r < 0.6:
            return call('slice', e, end=axmap({x: binop('-', n, num(1))}))
        if r < 0.7:
            return call('reverse', e, ('list', [name(x)]))
        if r < 0.8:
            return call('pad', e, num(1), low=axmap({x: num(self.rng.choice([-1, 1]))}))
        if r < 0.9:
            return call('slice', e, stride=axmap({x: num(2)}))
        return call('pad_low', e, num(1), axmap({x: num(self.rng.choice([1, -1]))}))

    def positive_forms(self, a, other):
        """Expressions equal to tensor a wherever a > 0 (resp. != 0)."""
        z = num(0)
        forms = [(call('select', binop('>', a, z), a, other), '>'),
                 (call('abs', a), '>='), (call('max', a, z), '>='),
                 (call('select', binop('!=', a, z), a, z), '!=')]
        if self.tclass == 'real':
            forms.append((binop('/', binop('*', a, other), other), 'other!='))
        return forms

    def map_requires(self):
        rng = self.rng
        out = []
        names = [n for n, (c, nn, d) in self.maps.items() if d is None]
        for _ in range(rng.choice([0, 0, 1, 1, 2])):
            m = rng.choice(names)
            cls = self.maps[m][0]
            same = [n for n in names if self.maps[n][0] == cls]
            o = rng.choice([n for n in same if n != m] or [None])
            r = rng.random()
            if o is None:
                r = min(r, 0.29) if r < 0.5 else r if r < 0.75 else 0.29
            if r < 0.3:
                out.append(binop(rng.choice(['>=', '>']), name(m), num(rng.choice([0, 1]))))
            elif r < 0.5:
                out.append(binop(rng.choice(['<=', '<', '==']), name(m), name(o)))
            elif r < 0.65:
                out.append(('quant', 'forall', cls, binop('>=', name(m), num(rng.choice([1, 2])))))
            elif r < 0.75:
                out.append(('quant', 'exists', cls, binop('==', name(m), num(0))))
            elif r < 0.85:
                out.append(binop('or', binop('<', name(m), name(o)), binop('==', name(m), num(0))))
            else:
                out.append(binop('<=', binop('+', name(m), num(1)), name(o)))
        return out

    # ---- reductions with hints: right and wrong, one-way and two-way ----
    def hint_rule(self):
        """reduce(E, {x: i}) => reduce(E' or reverse(E', [x]), {x: k}) with a hint pairing k
        and i: the right one (the identity, or the reflection k == n - 1 - i over E's size n
        on x), one-way or with its inverse, or a wrong one (off by one, all to 0, the other
        of the two). E' is E or a law of it (the rule holds) or a near miss (it may not)."""
        rng = self.rng
        if not self.numeric:   # sums are of numbers
            self.tclass = rng.choice(['num', 'int', 'real'])
            self.numeric = True
        x = rng.choice(list(self.axes))
        cls = self.axes[x]
        rest = [a for a in self.axes if a != x and rng.random() < 0.5]
        e, sizes = self.gen('T', tuple(sorted(rest + [x])), rng.choice([1, 1, 2, 2, 3]))
        n = sizes[x]
        r = rng.random()
        e2, valid = (e, True) if r < 0.4 else (apply_law(e, rng) or e, True) if r < 0.75 else \
            (near_miss(e, rng) or e, False)
        # an interior padding's size is written for n >= 1 only (g_pad): at n = 0 the
        # reflection over it is no bijection, so such a hint is not judged
        exact = not any(is_call(t, 'pad') and any(a == 'interior' for a, _ in t[2]) for _, t in subterms(e))
        reflect = rng.random() < 0.5 or e2 == e   # the same body twice is a trivial rule
        i, k = name('i'), name('k')
        last = binop('-', n, num(1))
        mirror = binop('-', last, i)      # k for i under the reflection
        back = binop('-', last, k)        # i for k under it
        right, inverse = (mirror, back) if reflect else (i, k)
        other = i if reflect else mirror  # a bijection too, pairing other summands
        w = rng.random()
        if w < 0.5:
            h, klass = right, 'right' if valid and exact else 'neutral'
        elif w < 0.65:
            h, klass = other, 'neutral'
        else:
            h, klass = rng.choice([binop('+', right, num(1)), num(0), binop('-', right, num(1))]), 'wrong'
        self.hints = [binop('==', k, h)]
        if rng.random() < 0.5:             # two-way: the inverse written too (the right one)
            self.hints.append(binop('==', i, inverse if h is right else back if h is mirror else k))
        self.indices.append((['i', 'k'], cls))
        body = call('reverse', e2, ('list', [name(x)])) if reflect else e2
        self.requires += self.map_requires()
        rule = self.assemble(call('reduce', e, axmap({x: i})), call('reduce', body, axmap({x: k})))
        rule.hint_class = klass
        return rule

    # ---- the rule ----
    def rule(self):
        rng = self.rng
        if rng.random() < 0.1:
            return self.hint_rule()
        if rng.random() < 0.12:
            return self.mask_rule()
        # the shape of the result: a random non-empty set of axes (sometimes none)
        axes = [a for a in self.axes if rng.random() < 0.6] or [rng.choice(list(self.axes))]
        if rng.random() < 0.05:
            axes = []
        depth = rng.choice([1, 2, 2, 3, 3, 4])
        for _ in range(8):   # a left side that is more than a tensor or a constant
            lhs, sizes = self.gen('T', axes, depth)
            if lhs[0] != 'name' and not is_call(lhs, 'constant'):
                break
        rhs = None
        r = rng.random()
        if r < 0.1 and self.numeric and self.tensors:
            # max(A, B) => A where A >= B, on the points a cover of both reaches
            ts = [t for t in self.tensors if t[1] == 'T']
            if ts:
                t = rng.choice(ts)
                u = self.tensor('T', tuple(sorted(t[2])))
                occ = [p for p, x in subterms(lhs) if x == name(t[0])]
                if occ and u != t:
                    cov = self.cover(t)
                    self.requires.append(binop(rng.choice(['>=', '>']), cov, substitute(cov, name(t[0]), name(u[0]))))
                    form = rng.choice([call('max', name(t[0]), name(u[0])),
                                       call('select', binop('>=', name(t[0]), name(u[0])), name(t[0]), name(u[0]))])
                    path = rng.choice(occ)
                    rhs = lhs
                    lhs = replace_at(lhs, path, form)
        elif r < 0.35 and self.numeric and self.tensors:
            # a law that holds where a tensor precondition does: lhs C[form(A)], rhs C[A]
            ts = [t for t in self.tensors if t[1] == 'T']
            if ts:
                t = rng.choice(ts)
                occ = [p for p, s in subterms(lhs) if s == name(t[0])]
                other = name(self.tensor('T', tuple(sorted(t[2])))[0])
                form, need = rng.choice(self.positive_forms(name(t[0]), other))
                cov = self.cover(t)
                if need == 'other!=':
                    self.requires.append(binop('!=', self.cover(self.tensor_named(other[1])), num(0)))
                else:
                    self.requires.append(binop(need if need != '>=' or rng.random() < 0.7 else '>',
                                               cov, num(0)))
                if occ:
                    path = rng.choice(occ)
                    rhs = lhs
                    lhs = replace_at(lhs, path, form)
                else:
                    rhs, lhs = lhs, lhs
        if rhs is None:
            r = rng.random()
            if r < 0.6:
                rhs = lhs
                for _ in range(rng.choice([1, 1, 2, 3])):
                    rhs = apply_law(rhs, rng) or rhs
                if rhs == lhs:
                    rhs = near_miss(lhs, rng) or lhs
            elif r < 0.85:
                rhs = near_miss(lhs, rng) or lhs
            else:
                rhs = self.gen('T', axes, depth, sizes)[0]
        if rng.random() < 0.2:
            rhs = near_miss(rhs, rng) or rhs
        # more tensor preconditions, and preconditions on maps
        for _ in range(rng.choice([0, 0, 0, 1, 1, 2])):
            if self.tensors and rng.random() < 0.6:
                t = rng.choice(self.tensors)
                if t[1] == 'T' and self.numeric:
                    self.requires.append(binop(rng.choice(['>', '>=', '!=', '<']), self.cover(t),
                                               num(rng.choice([0, 0, 1]))))
                    continue
            ax = [a for a in self.axes if rng.random() < 0.5] or [rng.choice(list(self.axes))]
            self.requires.append(self.gen('bool', ax, rng.choice([0, 1, 1, 2]))[0])
        self.requires += self.map_requires()
        # a let for a subterm both sides share
        if rng.random() < 0.3:
            shared = [s for _, s in subterms(lhs) if s[0] in ('call', 'bin') and
                      not is_call(s, 'constant') and any(s == t for _, t in subterms(rhs)) and
                      s != lhs]
            if shared:
                s = rng.choice(shared)
                self.lets.append(('L1', s))
                lhs, rhs = substitute(lhs, s, name('L1')), substitute(rhs, s, name('L1'))
        return self.assemble(lhs, rhs)

    def tensor_named(self, n):
        for t in self.tensors:
            if t[0] == n:
                return t
        raise KeyError(n)

    def assemble(self, lhs, rhs):
        r = Rule(self.name)
        r.tvar, r.tclass = 'T', self.tclass
        r.origin = 'generated'
        r.stmts.append({'k': 'rclass', 'names': list(self.classes)})
        for a, c in self.axes.items():
            if a != c:
                r.stmts.append({'k': 'axes', 'names': [a], 'cls': c})
        for m, (c, nonneg, d) in self.maps.items():
            r.stmts.append({'k': 'map', 'names': [m], 'cls': c, 'nonneg': nonneg, 'value': d})
        for n, elem, dims in self.tensors:
            r.stmts.append({'k': 'tensor', 'names': [n], 'type': elem,
                            'dims': [(a, name(s)) for a, s in sorted(dims.items())]})
        for n, elem in self.scalars:
            r.stmts.append({'k': 'scalar', 'names': [n], 'type': elem})
        for n, v in self.lets:
            r.stmts.append({'k': 'let', 'name': n, 'value': v})
        for names, cls in self.indices:
            r.stmts.append({'k': 'index', 'names': list(names), 'cls': cls})
        for q in self.requires:
            r.stmts.append({'k': 'require', 'exprs': [q]})
        if self.hints:
            r.stmts.append({'k': 'hint', 'exprs': list(self.hints)})
        r.stmts.append({'k': 'rewrite', 'lhs': lhs, 'rhs': rhs})
        return r


def mutate_corpus(rule, rng, name_):
    """A corpus rule changed once or twice: a law or a near miss on one side, a
    precondition dropped or weakened, a nonneg dropped, a type class widened."""
    r = rule.copy()
    r.name = name_
    r.expect = None
    for _ in range(rng.choice([1, 1, 2])):
        rw = r.rewrite()
        x = rng.random()
        reqs = [(i, j) for i, s in enumerate(r.stmts) if s['k'] == 'require' for j in range(len(s['exprs']))]
        if x < 0.3:
            side = rng.choice(['lhs', 'rhs'])
            rw[side] = apply_law(rw[side], rng) or rw[side]
        elif x < 0.6:
            side = rng.choice(['lhs', 'rhs', 'rhs'])
            rw[side] = near_miss(rw[side], rng) or rw[side]
        elif x < 0.8 and reqs:
            i, j = rng.choice(reqs)
            e = r.stmts[i]['exprs'][j]
            if rng.random() < 0.5 or len(r.stmts[i]['exprs']) == 1 and rng.random() < 0.5:
                del r.stmts[i]['exprs'][j]
                if not r.stmts[i]['exprs']:
                    del r.stmts[i]
            else:
                r.stmts[i]['exprs'][j] = near_miss(e, rng) or e
        elif x < 0.9:
            hints = [(i, j) for i, s in enumerate(r.stmts) if s['k'] == 'hint' for j in range(len(s['exprs']))]
            maps = [s for s in r.stmts if s['k'] == 'map' and s['nonneg']]
            if hints and rng.random() < 0.5:   # a hint moved a little: right or wrong
                i, j = rng.choice(hints)
                e = r.stmts[i]['exprs'][j]
                r.stmts[i]['exprs'][j] = near_miss(e, rng) or e
                r.hint_class = 'neutral'
            elif maps:
                rng.choice(maps)['nonneg'] = False
        elif r.tvar:
            r.tclass = rng.choice(['any', 'num', 'int', 'real', 'bool'])
    r.origin = 'mutant of %s' % rule.origin
    return r


# ---------------------------------------------------------------------------------------
# Running axle
# ---------------------------------------------------------------------------------------

class Deadline(Exception):
    """A command outlived the run's deadline: the case is abandoned, not judged."""


def run(cmd, timeout, env=None):
    """(exit status, stdout, stderr) of cmd; None as the status when it ran past timeout
    (it and everything it started are killed: it runs in a process group of its own)."""
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


def json_lines(text):
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith('{'):
            try:
                out.append(json.loads(line))
            except ValueError:
                out.append({'_bad': line})
    return out


class Runner:
    def __init__(self, args):
        self.axle = args.axle
        self.args = args
        self.deadline = None     # commands past it (plus grace) are abandoned

    def _run(self, cmd, timeout, env=None):
        if self.deadline is not None:
            left = self.deadline - time.time()
            if left < timeout:
                rc, out, err = run(cmd, max(left, 1), env)
                if rc is None:
                    raise Deadline()
                return rc, out, err
        return run(cmd, timeout, env)

    def check(self, path):
        return self._run([self.axle, 'check', '-q', path], 60)

    def verify(self, path):
        a = self.args
        return self._run([self.axle, 'verify', '--no-cache', '--format', 'json', '--timeout',
                          str(a.verify_timeout), '--jobs', '1', '--progress', 'never',
                          '--rule-timeout', str(a.rule_timeout), path], a.rule_timeout * 3 + 60)

    def verify_set(self, paths, cache, extra=()):
        """axle verify of several files with the result cache in cache (a directory)."""
        a = self.args
        env = dict(os.environ, XDG_CACHE_HOME=cache)
        return self._run([self.axle, 'verify', '--format', 'json', '--timeout', str(a.verify_timeout),
                          '--jobs', '1', '--progress', 'never', '--rule-timeout', str(a.rule_timeout)] +
                         list(extra) + list(paths), a.rule_timeout * 3 + 60, env)

    def merge(self, reports):
        return self._run([self.axle, 'gate', '--merge', '--format', 'json'] + list(reports), 60)

    def brute(self, path, extra=()):
        a = self.args
        return self._run([self.axle, 'brute', '--format', 'json', '--samples', str(a.samples),
                          '--time-limit', str(a.brute_time_limit)] + list(extra) + [path],
                         a.brute_time_limit * 3 + 60)


# a verification worker killed by one of these crashed (SIGILL, SIGABRT, SIGBUS, SIGFPE,
# SIGSEGV) — unless axle says an allocation had failed (ENOMEM: the memory limit); SIGKILL
# is the rule's time limit or the kernel's out-of-memory killer, UNKNOWN as axle says
CRASH_SIGNALS = (4, 6, 7, 8, 11)


def key_of(r):
    return (r.get('rule'), r.get('type'))


def evaluate(runner, rule, workdir):
    """Checks, verifies and brute-forces one rule; returns (well_formed, results,
    discrepancies). results: {(rule, type): {'verdict', 'brute', ...}}; each discrepancy a
    dict with its 'kind', 'type' and what the two oracles said."""
    path = os.path.join(workdir, rule.name + '.axl')
    with open(path, 'w') as f:
        f.write(rule.text())
    rc, out, err = runner.check(path)
    if rc == 3:
        return False, {}, []
    disc = []
    if rc != 0:
        disc.append({'kind': 'crash', 'type': None, 'what': 'axle check exited %s: %s' % (rc, err.strip()[-400:])})
        return True, {}, disc
    vrc, vout, verr = runner.verify(path)
    brc, bout, berr = runner.brute(path)
    vres, bres = json_lines(vout), json_lines(bout)
    if vrc is None or vrc not in (0, 1, 2) or any('_bad' in r for r in vres) or not vres:
        disc.append({'kind': 'crash', 'type': None,
                     'what': 'axle verify exited %s: %s' % (vrc, (verr or vout).strip()[-600:])})
    if brc is None or brc not in (0, 1) or any('_bad' in r for r in bres) or not bres:
        disc.append({'kind': 'crash', 'type': None,
                     'what': 'axle brute exited %s: %s' % (brc, (berr or bout).strip()[-600:])})
    if disc:
        return True, {}, disc
    brute = {key_of(r): r for r in bres}
    results = {}
    for v in vres:
        k = key_of(v)
        b = brute.get(k)
        verdict = v.get('verdict')
        res = {'verdict': verdict, 'brute': b.get('result') if b else None,
               'vacuous': v.get('vacuous'), 'reason': v.get('reason'), 'hint': rule.hint_class}
        results[k] = res
        d = {'type': k[1], 'verify': v, 'brute': b}
        if b is None:
            disc.append(dict(d, kind='crash', what='axle brute printed no result for %s [%s]' % k))
            continue
        crash = re.search(r'worker killed by (?:SIG[A-Z0-9]+ \()?signal (\d+)', v.get('reason') or '')
        if verdict == 'error':
            disc.append(dict(d, kind='error', what='ERROR: %s' % v.get('reason')))
        elif verdict == 'unknown' and crash and int(crash.group(1)) in CRASH_SIGNALS and \
                'allocation failed (ENOMEM)' not in v.get('reason'):
            disc.append(dict(d, kind='crash', what='UNKNOWN because the verifier crashed: %s' % v.get('reason')))
        elif verdict in ('verified', 'holds-bounded') and b.get('result') == 'refuted':
            disc.append(dict(d, kind='verified-refuted',
                             what='%s, but brute force refutes it: %s' %
                             (verdict.upper(), (b.get('counterexample') or {}).get('failed'))))
        elif verdict == 'verified' and v.get('vacuous') and b.get('instances', 0) > 0:
            res['note'] = 'vacuous-but-satisfiable'
        elif verdict == 'invalid-hint' and not v.get('counterexample'):
            disc.append(dict(d, kind='hint-unwitnessed',
                             what='INVALID-HINT without the witness it must carry: %s' % v.get('reason')))
        elif verdict == 'invalid-hint' and rule.hint_class == 'right' and b.get('result') != 'refuted':
            disc.append(dict(d, kind='hint-refuted-right',
                             what='INVALID-HINT for a right hint (a bijection pairing equal summands) on a '
                                  'rule brute force does not refute: %s' % v.get('reason')))
        elif verdict == 'invalid':
            cex = v.get('counterexample')
            ipath = os.path.join(workdir, rule.name + '.cex.json')
            with open(ipath, 'w') as f:
                json.dump(cex, f)
            extra = ['--rule', rule.name] + (['--type', k[1]] if k[1] else []) + ['--instance', '@' + ipath]
            irc, iout, ierr = runner.brute(path, extra)
            ir = json_lines(iout)
            res['replay'] = ir[0].get('result') if ir else 'bad-instance'
            kinds = {'not-counterexample': 'cex-not-reproduced', 'elsewhere': 'cex-elsewhere',
                     'unevaluable': 'cex-unevaluable', 'bad-instance': 'cex-bad-instance'}
            if irc not in (0, 1, 2, 3) or (irc != 3 and not ir):
                disc.append(dict(d, kind='crash', what='axle brute --instance exited %s: %s' %
                                 (irc, (ierr or iout).strip()[-600:])))
            elif res['replay'] != 'reproduced':
                why = ir[0].get('reason') if ir else ierr.strip()[-600:]
                disc.append(dict(d, kind=kinds.get(res['replay'], 'cex-not-reproduced'),
                                 what='INVALID, but its counterexample is %s: %s' % (res['replay'], why)))
    for k in brute:
        if k not in results:
            disc.append({'kind': 'crash', 'type': k[1], 'what': 'axle verify printed no result for %s [%s]' % k})
    return True, results, disc


# ---------------------------------------------------------------------------------------
# Shards: `axle verify --shard K/N` for every K, joined by `axle gate --merge`, must give
# the unsharded run's verdicts; a tampered or mixed-up set of reports must be refused
# ---------------------------------------------------------------------------------------

DEFINITE = ('verified', 'invalid', 'invalid-hint')


def shard_trip(runner, rng, paths, workdir):
    """One round trip over the rule files paths (each of a case whose verdicts were all
    definite). Returns None when the set is not fit (a verdict of the reference run is not
    definite: a re-run could differ), else (discrepancies, tampered merges refused). The
    reference run fills a private result cache that every shard then reads, so the shards
    cost little and their verdicts are the reference's unless sharding or merging is wrong."""
    cache = os.path.join(workdir, 'shard-cache')
    rrc, rout, rerr = runner.verify_set(paths, cache)
    ref = json_lines(rout)
    if rrc not in (0, 1, 2) or not ref or any(r.get('verdict') not in DEFINITE for r in ref):
        return None
    n = rng.randint(2, 4)
    reports, sizes, disc = [], [], []
    what = lambda t: {'kind': 'shard-merge', 'type': None, 'what': t}
    for k in range(1, n + 1):
        krc, kout, kerr = runner.verify_set(paths, cache, ['--shard', '%d/%d' % (k, n)])
        fn = os.path.join(workdir, 'shard-%d.json' % k)
        with open(fn, 'w') as f:
            f.write(kout)
        reports.append(fn)
        sizes.append(len(json_lines(kout)))
        if krc not in (0, 1, 2):
            return [what('axle verify --shard %d/%d exited %s: %s' % (k, n, krc, kerr.strip()[-400:]))], 0
    order = reports[:]
    rng.shuffle(order)
    mrc, mout, merr = runner.merge(order)
    merged = json_lines(mout)
    key = lambda r: (r.get('rule'), r.get('type'), r.get('verdict'), r.get('met'))
    if mrc != rrc or [key(r) for r in merged] != [key(r) for r in ref]:
        return [what('gate --merge of %d shards exited %s (the unsharded run %s); merged %s, unsharded %s; %s' %
                     (n, mrc, rrc, [key(r) for r in merged], [key(r) for r in ref], merr.strip()[-300:]))], 0
    # tampering: each of these must be refused (exit 3) for what it is
    full = [i for i in range(n) if sizes[i]]
    k = rng.choice(full)
    with open(reports[k]) as f:
        lines = f.read().splitlines(True)
    j = rng.randrange(len(lines))
    line = lines[j]
    flipped = line.replace('"met":true', '"met":false', 1) if '"met":true' in line else \
        line.replace('"met":false', '"met":true', 1)
    bad = os.path.join(workdir, 'tampered-met.json')
    with open(bad, 'w') as f:
        f.write(''.join(lines[:j] + [flipped] + lines[j + 1:]))
    cases = [('met flipped', reports[:k] + [bad] + reports[k + 1:], '"met" is '),
             ('a shard dropped', reports[:k] + reports[k + 1:], 'are in no report'),
             ('a shard twice', reports + [reports[k]], 'a shard given twice')]
    # a shard of another run: the set without its last file, or split one way more
    other = paths[:-1] if len(paths) > 1 else paths
    split = n if len(paths) > 1 else n + 1
    for kk in [k + 1] + list(range(1, split + 1)):
        orc, oout, _ = runner.verify_set(other, cache, ['--shard', '%d/%d' % (kk, split)])
        if orc in (0, 1, 2) and json_lines(oout):
            fn = os.path.join(workdir, 'other-run.json')
            with open(fn, 'w') as f:
                f.write(oout)
            cases.append(('a shard of another run', reports[:k] + [fn] + reports[k + 1:],
                          'not a shard of the run of'))
            break
    refused = 0
    for name, files, phrase in cases:
        trc, tout, terr = runner.merge(files)
        if trc == 3 and not tout and phrase in terr and terr.startswith('axle: error: gate --merge: '):
            refused += 1
        else:
            disc.append({'kind': 'shard-tamper', 'type': None,
                         'what': 'gate --merge of %d shards with %s: exit %s, wanted 3 and "%s"; %s' %
                                 (n, name, trc, phrase, terr.strip()[-300:])})
    return disc, refused


# ---------------------------------------------------------------------------------------
# Minimization: delta debugging on the rule, keeping a discrepancy of the same kind
# ---------------------------------------------------------------------------------------

def candidates(rule, dtype):
    """Smaller variants of rule, the most promising first (lazily)."""
    # one element type
    if rule.tvar and dtype and rule.tclass != dtype:
        r = rule.copy()
        r.tclass = dtype
        yield r
    # drop a statement: preconditions, hints, lets (inlined), declarations
    for i in range(len(rule.stmts) - 1, -1, -1):
        s = rule.stmts[i]
        if s['k'] == 'rewrite':
            continue
        if s['k'] in ('require', 'hint') and len(s['exprs']) > 1:
            for j in range(len(s['exprs'])):
                r = rule.copy()
                del r.stmts[i]['exprs'][j]
                yield r
        r = rule.copy()
        del r.stmts[i]
        if s['k'] == 'let':
            for t in r.stmts:
                inline_let(t, s['name'], s['value'])
        yield r
        if s['k'] == 'map' and s['nonneg']:
            r = rule.copy()
            r.stmts[i]['nonneg'] = False
            yield r
        if s['k'] in ('map', 'tensor', 'scalar', 'rclass', 'axes', 'index') and len(s['names']) > 1:
            for j in range(len(s['names'])):
                r = rule.copy()
                del r.stmts[i]['names'][j]
                yield r
    # replace a subexpression by an operand, a literal, or shrink an integer
    slots = []
    for i, s in enumerate(rule.stmts):
        for f in ('lhs', 'rhs', 'value'):
            if s.get(f) is not None:
                slots.append((i, f, None))
        for j in range(len(s.get('exprs', []))):
            slots.append((i, 'exprs', j))
    for i, f, j in slots:
        e = rule.stmts[i][f] if j is None else rule.stmts[i][f][j]
        for path, t in list(subterms(e)):
            alts = []
            if t[0] == 'call':
                alts += operands(t)
                if t[1] in ('slice', 'pad', 'dynamic_slice') and len(t[2]) > 1:
                    for a in range(1, len(t[2])):   # drop an attribute (its default)
                        if t[2][a][0] is not None or a >= OPERANDS.get(t[1], 1) + 1:
                            alts.append(('call', t[1], t[2][:a] + t[2][a + 1:]))
            elif t[0] == 'bin':
                alts += [t[2], t[3]]
            elif t[0] in ('neg', 'not'):
                alts.append(t[1])
            elif t[0] == 'if':
                alts += [t[2], t[3]]
            elif t[0] == 'num' and t[1] not in ('0', '1') and '.' not in t[1]:
                alts += [num(0), num(1), num(int(int(t[1]) / 2)) if 'e' not in t[1] else num(1)]
            elif t[0] == 'axmap' and len(t[1]) > 1:
                for a in range(len(t[1])):
                    alts.append(('axmap', t[1][:a] + t[1][a + 1:]))
            if t[0] in ('call', 'bin') and path:
                alts += [num(0), num(1)]
            for alt in alts:
                if alt == t:
                    continue
                r = rule.copy()
                ne = replace_at(e, path, alt)
                if j is None:
                    r.stmts[i][f] = ne
                else:
                    r.stmts[i][f][j] = ne
                yield r


def inline_let(stmt, n, value):
    for f in ('lhs', 'rhs', 'value'):
        if stmt.get(f) is not None:
            stmt[f] = substitute(stmt[f], ('name', n), value)
    if 'exprs' in stmt:
        stmt['exprs'] = [substitute(e, ('name', n), value) for e in stmt['exprs']]


def size_of(rule):
    return len(rule.text())


def minimize(runner, rule, disc, workdir, seconds):
    """The smallest variant of rule found within `seconds` that still shows a discrepancy of
    disc's kind (for its element type). Returns (rule, discrepancy, steps)."""
    kind, dtype = disc['kind'], disc.get('type')
    best, best_disc, steps, tried = rule, disc, 0, 0
    end = time.time() + seconds
    improved = True
    seen = {rule.text()}
    while improved and time.time() < end:
        improved = False
        for cand in candidates(best, dtype):
            if time.time() >= end:
                break
            t = cand.text()
            if t in seen or size_of(cand) >= size_of(best):
                continue
            seen.add(t)
            tried += 1
            try:
                ok, _, ds = evaluate(runner, cand, workdir)
            except Deadline:
                return best, best_disc, steps
            same = [d for d in ds if d['kind'] == kind and (d.get('type') == dtype or kind == 'crash')]
            if ok and same:
                best, best_disc, steps = cand, same[0], steps + 1
                improved = True
                break
    return best, best_disc, steps


def render_finding(rule, disc, meta, axle):
    """The .axl text of a finding: comment lines saying what it shows, then the rule in
    canonical layout (axle fmt; as printed if fmt fails)."""
    lines = ['verdict-fuzz finding: %s' % disc['kind'],
             '%s%s' % (rule.name, ' [%s]' % disc['type'] if disc.get('type') else '')]
    lines += ['  ' + l for l in disc['what'].splitlines()]
    v, b = disc.get('verify'), disc.get('brute')
    if v:
        lines.append('axle verify: %s%s' % (v.get('verdict', '?').upper(),
                                            ' (%s)' % '+'.join(v['confirmed_by']) if v.get('confirmed_by') else ''))
        if v.get('reason'):
            lines.append('  reason: %s' % v['reason'])
        if v.get('counterexample'):
            lines.append('  counterexample: %s' % json.dumps(v['counterexample'], sort_keys=True))
    if b:
        lines.append('axle brute: %s in %s instances (%s tried)' % (b.get('result', '?').upper(),
                                                                    b.get('instances'), b.get('tried')))
        if b.get('counterexample'):
            lines.append('  counterexample: %s' % json.dumps(b['counterexample'], sort_keys=True))
    lines += meta
    head = ''.join('# %s\n' % l for l in lines)
    text = rule.text()
    with tempfile.NamedTemporaryFile('w', suffix='.axl', delete=False) as f:
        f.write(text)
    try:
        rc, out, _ = run([axle, 'fmt', f.name], 60)
        if rc == 0 and out.strip():
            text = out
    finally:
        os.unlink(f.name)
    return head + '\n' + text


# ---------------------------------------------------------------------------------------
# The driver
# ---------------------------------------------------------------------------------------

class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.generated = 0
        self.mutants = 0
        self.well_formed = 0
        self.ill_formed = 0
        self.abandoned = 0
        self.results = 0
        self.verdicts = collections.Counter()
        self.brute = collections.Counter()
        self.replays = collections.Counter()
        self.notes = collections.Counter()
        self.hints = collections.Counter()   # "CLASS VERDICT" of the generated hints
        self.kinds = collections.Counter()
        self.minimized = collections.Counter()
        self.findings = []
        self.shard_trips = 0       # shard/merge round trips done
        self.shard_refused = 0     # tampered merges refused, as they must be
        self.shard_ready = []      # rule files of cases with definite verdicts, for the next trip

    def line(self, elapsed):
        v = ', '.join('%s %d' % (k, n) for k, n in sorted(self.verdicts.items())) or 'none yet'
        b = ', '.join('%s %d' % (k, n) for k, n in sorted(self.brute.items())) or 'none yet'
        return ('[%5.0f s] rules %d (%d mutants), well-formed %d, ill-formed %d; %d results: %s; '
                'brute: %s; discrepancies %d' %
                (elapsed, self.generated, self.mutants, self.well_formed, self.ill_formed,
                 self.results, v, b, sum(self.kinds.values())))

    def as_json(self, elapsed, args):
        # command, date and machine: what docs/results.md says of the run (tools/timing-report.sh --fuzz)
        model = ''
        try:
            with open('/proc/cpuinfo') as f:
                model = next((ln.split(':', 1)[1].strip() for ln in f if ln.startswith('model name')), '')
        except OSError:
            pass
        return {'command': 'tools/verdict-fuzz.sh %d %d --jobs %d' % (round(args.seconds), args.seed, args.jobs),
                'date': time.strftime('%Y-%m-%d', time.gmtime()),
                'machine': '%d cores%s' % (os.cpu_count() or 0, ', ' + model if model else ''),
                'seconds': round(elapsed, 1), 'seed': args.seed, 'jobs': args.jobs,
                'rules': self.generated, 'mutants': self.mutants,
                'well_formed': self.well_formed, 'ill_formed': self.ill_formed,
                'abandoned': self.abandoned, 'results': self.results,
                'verdicts': dict(self.verdicts), 'brute': dict(self.brute),
                'replays': dict(self.replays), 'notes': dict(self.notes), 'hints': dict(self.hints),
                'shards': {'trips': self.shard_trips, 'tampered_refused': self.shard_refused},
                'discrepancies': sum(self.kinds.values()), 'kinds': dict(self.kinds),
                'findings': self.findings}


def load_corpus(root):
    rules = []
    for dirpath, dirnames, files in os.walk(root):
        dirnames.sort()
        for fn in sorted(files):
            if not fn.endswith('.axl'):
                continue
            path = os.path.join(dirpath, fn)
            try:
                with open(path) as f:
                    parsed = parse_rules(f.read())
            except (ParseError, OSError, UnicodeDecodeError):
                continue
            for r in parsed:
                if r.rewrite() is not None:
                    r.origin = '%s: %s' % (os.path.relpath(path), r.name)
                    rules.append(r)
    return rules


def make_case(i, args, corpus):
    """Case i of the run: the same rule for the same seed, whatever the parallelism."""
    rng = random.Random('%d/%d' % (args.seed, i))
    nm = 'fz%d_%d' % (args.seed, i)
    if corpus and rng.random() < args.mutants:
        return mutate_corpus(rng.choice(corpus), rng, nm)
    return Gen(rng, nm).rule()


def shard_work(i, trip, args, runner, stats, workdir):
    """A shard/merge round trip over the rules of trip [(name, text)]; its discrepancies
    (written as findings by work, not minimized: they are of the set, not of one rule)."""
    tdir = os.path.join(workdir, 'shards')
    os.makedirs(tdir, exist_ok=True)
    paths = []
    for name_, text in trip:
        paths.append(os.path.join(tdir, name_ + '.axl'))
        with open(paths[-1], 'w') as f:
            f.write(text)
    try:
        got = shard_trip(runner, random.Random('%d/%d/shards' % (args.seed, i)), paths, tdir)
    except Deadline:
        return []
    if got is None:
        return []
    disc, refused = got
    with stats.lock:
        stats.shard_trips += 1
        stats.shard_refused += refused
        for d in disc:
            stats.kinds[d['kind']] += 1
    for d in disc:
        d['set'] = trip
    return disc


def work(i, rule, args, runner, stats, out_dir):
    """One case end to end; discrepancies are minimized and written here."""
    workdir = tempfile.mkdtemp(prefix='verdict-fuzz-')
    try:
        try:
            ok, results, disc = evaluate(runner, rule, workdir)
        except Deadline:
            with stats.lock:
                stats.abandoned += 1
            return
        with stats.lock:
            if args.log:
                with open(args.log, 'a') as f:
                    f.write(json.dumps({'case': i, 'origin': rule.origin, 'rule': rule.text(),
                                        'well_formed': ok,
                                        'results': [dict(r, type=k[1]) for k, r in results.items()],
                                        'discrepancies': [d['kind'] for d in disc]}) + '\n')
            if not ok:
                stats.ill_formed += 1
                return
            stats.well_formed += 1
            for k, r in results.items():
                stats.results += 1
                stats.verdicts[r['verdict']] += 1
                if r['brute']:
                    stats.brute[r['brute']] += 1
                if r.get('replay'):
                    stats.replays[r['replay']] += 1
                if r.get('note'):
                    stats.notes[r['note']] += 1
                if r.get('hint'):
                    stats.hints['%s %s' % (r['hint'], r['verdict'])] += 1
            if disc and args.stop_after and len(stats.findings) >= args.stop_after:
                return
            for d in disc:
                stats.kinds[d['kind']] += 1
            trip = None
            if args.shard_every and not disc and results and \
                    all(r['verdict'] in DEFINITE for r in results.values()):
                stats.shard_ready.append((rule.name, rule.text()))
                if len(stats.shard_ready) >= args.shard_every:
                    trip, stats.shard_ready = stats.shard_ready[-3:], []
        if trip:
            disc += shard_work(i, trip, args, runner, stats, workdir)
        seen = set()
        for d in disc:
            if (d['kind'], d.get('type')) in seen:
                continue
            seen.add((d['kind'], d.get('type')))
            if d.get('set'):   # of a shard/merge round trip: its rules as they were
                head = ['verdict-fuzz finding: %s' % d['kind']] + ['  ' + l for l in d['what'].splitlines()]
                head += ['seed %d, case %d: the rules of the round trip, one file each in the run' % (args.seed, i)]
                text = ''.join('# %s\n' % l for l in head) + ''.join('\n' + t for _, t in d['set'])
                fn = os.path.join(out_dir, '%s-s%d-c%d.axl' % (d['kind'], args.seed, i))
                os.makedirs(out_dir, exist_ok=True)
                with open(fn, 'w') as f:
                    f.write(text)
                with stats.lock:
                    stats.findings.append({'file': fn, 'kind': d['kind'], 'type': None, 'case': i,
                                           'what': d['what']})
                if not args.quiet:
                    sys.stderr.write('verdict-fuzz: DISCREPANCY %s in case %d: %s\n  written to %s\n' %
                                     (d['kind'], i, d['what'][:300], fn))
                continue
            orig = rule
            small, sd, steps = rule, d, 0
            with stats.lock:   # the first few of a kind are minimized; the others are kept as found
                stats.minimized[d['kind']] += 1
                again = stats.minimized[d['kind']] <= args.minimize_first
            if args.minimize_seconds > 0 and again and not d['kind'].startswith('hint-'):
                r2 = Runner(args)   # minimization is not held to the run's deadline
                small, sd, steps = minimize(r2, rule, d, workdir, args.minimize_seconds)
            how = ('not minimized (a smaller rule need not keep its hint right)' if d['kind'].startswith('hint-')
                   else 'minimized in %d steps' % steps if again
                   else 'not minimized (not among the first of its kind)')
            meta = ['seed %d, case %d (%s); %s from:' % (args.seed, i, orig.origin, how)]
            meta += ['  ' + l for l in orig.text().splitlines()]
            text = render_finding(small, sd, meta, args.axle)
            fn = os.path.join(out_dir, '%s-s%d-c%d%s.axl' % (d['kind'], args.seed, i,
                                                             '-' + d['type'] if d.get('type') else ''))
            os.makedirs(out_dir, exist_ok=True)
            with open(fn, 'w') as f:
                f.write(text)
            with stats.lock:
                stats.findings.append({'file': fn, 'kind': d['kind'], 'type': d.get('type'),
                                       'case': i, 'what': sd['what']})
            if not args.quiet:
                sys.stderr.write('verdict-fuzz: DISCREPANCY %s in case %d: %s\n  written to %s\n' %
                                 (d['kind'], i, sd['what'][:300], fn))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    ap = argparse.ArgumentParser(description='Hunts wrong verdicts of axle verify with random and '
                                 'mutated rules checked against axle brute (docs/results.md).')
    ap.add_argument('--seconds', type=float, default=60, help='how long to generate rules (default 60)')
    ap.add_argument('--seed', type=int, default=1, help='the run\'s seed (default 1)')
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1,
                    help='rules checked at once (default: the number of cores)')
    ap.add_argument('--out', default='fuzz-findings', help='where minimized findings go (default fuzz-findings/)')
    ap.add_argument('--axle', default=os.environ.get('AXLE') or os.path.join(root, 'build', 'axle'),
                    help='the axle binary (default $AXLE, else build/axle)')
    ap.add_argument('--corpus', default=os.path.join(root, 'rules'),
                    help='rules to mutate (default rules/; "" for none)')
    ap.add_argument('--mutants', type=float, default=0.3, help='share of corpus mutants (default 0.3)')
    ap.add_argument('--verify-timeout', type=int, default=10, help='axle verify --timeout (default 10)')
    ap.add_argument('--rule-timeout', type=int, default=60, help='axle verify --rule-timeout (default 60)')
    ap.add_argument('--samples', type=int, default=1000, help='axle brute --samples (default 1000)')
    ap.add_argument('--brute-time-limit', type=int, default=20, help='axle brute --time-limit (default 20)')
    ap.add_argument('--minimize-seconds', type=float, default=180,
                    help='time to minimize each discrepancy (default 180; 0: none)')
    ap.add_argument('--minimize-first', type=int, default=3,
                    help='minimize the first N discrepancies of each kind; write later ones as found (default 3)')
    ap.add_argument('--shard-every', type=int, default=40,
                    help='after every N cases with definite verdicts, a shard/merge round trip over '
                         'the last three of them, tampering included (default 40; 0: none)')
    ap.add_argument('--stop-after', type=int, default=0, help='stop after N discrepancies (default: never)')
    ap.add_argument('--stats', help='write the final figures as JSON to this file')
    ap.add_argument('--log', help='append every case (rule, verdicts) as a JSON line to this file')
    ap.add_argument('--progress', type=float, default=5, help='seconds between progress lines (default 5)')
    ap.add_argument('--quiet', action='store_true', help='no progress lines')
    ap.add_argument('seconds_pos', nargs='?', type=float, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.seconds_pos is not None:
        args.seconds = args.seconds_pos
    if args.jobs < 1 or args.seconds < 0:
        ap.error('--jobs must be at least 1 and --seconds not negative')
    if not (os.path.isfile(args.axle) and os.access(args.axle, os.X_OK)):
        sys.stderr.write('verdict-fuzz: error: no axle binary at %s (build it, or set $AXLE)\n' % args.axle)
        return 3
    corpus = load_corpus(args.corpus) if args.corpus else []
    # a private copy of the binary: a rebuild during a long run must not change it midway
    snapshot = tempfile.mkdtemp(prefix='verdict-fuzz-axle-')
    shutil.copy2(args.axle, os.path.join(snapshot, 'axle'))
    given, args.axle = args.axle, os.path.join(snapshot, 'axle')
    try:
        return drive(args, corpus, given)
    finally:
        shutil.rmtree(snapshot, ignore_errors=True)


def drive(args, corpus, given):
    stats = Stats()
    runner = Runner(args)
    t0 = time.time()
    stop = t0 + args.seconds
    runner.deadline = stop + max(30, args.rule_timeout)   # in-flight cases get this long
    if not args.quiet:
        sys.stderr.write('verdict-fuzz: %s, seed %d, %d jobs, %.0f s, %d corpus rules to mutate, '
                         'findings to %s/\n' % (given, args.seed, args.jobs, args.seconds,
                                                len(corpus), args.out.rstrip('/')))
    done = threading.Event()

    def progress():
        while not done.wait(args.progress):
            with stats.lock:
                sys.stderr.write(stats.line(time.time() - t0) + '\n')
    if not args.quiet and args.progress > 0:
        threading.Thread(target=progress, daemon=True).start()
    i = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        pending = set()
        while time.time() < stop:
            if args.stop_after and len(stats.findings) >= args.stop_after:
                break
            while len(pending) < args.jobs and time.time() < stop:
                rule = make_case(i, args, corpus)
                with stats.lock:
                    stats.generated += 1
                    stats.mutants += rule.origin != 'generated'
                pending.add(pool.submit(work, i, rule, args, runner, stats, args.out))
                i += 1
            finished, pending = concurrent.futures.wait(pending, timeout=0.5,
                                                        return_when=concurrent.futures.FIRST_COMPLETED)
            for f in finished:
                f.result()
        for f in concurrent.futures.as_completed(pending):
            f.result()
    done.set()
    elapsed = time.time() - t0
    ndisc = sum(stats.kinds.values())
    print('verdict-fuzz: seed %d, %.0f s, %d jobs' % (args.seed, elapsed, args.jobs))
    print('  rules generated: %d (%d corpus mutants); well-formed: %d; ill-formed (discarded): %d%s' %
          (stats.generated, stats.mutants, stats.well_formed, stats.ill_formed,
           '; abandoned at the deadline: %d' % stats.abandoned if stats.abandoned else ''))
    print('  results (rule x type): %d; verify: %s' % (stats.results, ', '.join(
        '%s %d' % (k, n) for k, n in sorted(stats.verdicts.items())) or 'none'))
    print('  brute: %s; INVALID counterexamples replayed by brute: %s' % (
        ', '.join('%s %d' % (k, n) for k, n in sorted(stats.brute.items())) or 'none',
        ', '.join('%s %d' % (k, n) for k, n in sorted(stats.replays.items())) or 'none'))
    if stats.notes:
        print('  notes: %s' % ', '.join('%s %d' % kv for kv in sorted(stats.notes.items())))
    if stats.hints:
        print('  hints (kind verdict): %s' % ', '.join('%s %d' % kv for kv in sorted(stats.hints.items())))
    print('  shard/merge round trips: %d (tampered merges refused: %d)' % (stats.shard_trips, stats.shard_refused))
    print('  discrepancies: %d%s' % (ndisc, ' (%s)' % ', '.join('%s %d' % kv for kv in sorted(stats.kinds.items()))
                                     if ndisc else ''))
    for f in stats.findings:
        print('    %s: %s' % (f['file'], f['what'][:200]))
    if args.stats:
        with open(args.stats, 'w') as f:
            json.dump(stats.as_json(elapsed, args), f, indent=1)
    if ndisc:
        return 1
    return 0 if stats.well_formed else 3


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
