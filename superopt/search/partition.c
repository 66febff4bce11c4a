/* partition.c — regions of a program, their programs, and the module's graph; see
 * partition.h. */
#include "superopt/search/partition.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "superopt/ir/ewop.h"
#include "superopt/ir/load.h"
#include "superopt/ir/mugtext.h"
#include "superopt/search/greedy.h"

static int find(int *uf, int x) {
  while (uf[x] != x) x = uf[x] = uf[uf[x]];
  return x;
}

/* The statement that defines tensor t (an input's or an operator's), -1 for a constant. */
static int producer(const AxMugraph *g, int t) { return g->tensors[t].anon ? -1 : g->tensors[t].stmt; }

static bool is_op(const AxMugraph *g, int s) { return s >= 0 && g->stmts[s].kind == AX_KS_OP; }

/* `  input NAME : T[d, ...]` for tensor t */
static void decl(FILE *out, const AxKTensor *t) {
  fprintf(out, "  input %s : %s[", t->name, ax_dtype_name(t->dtype));
  for (int i = 0; i < t->shape.rank; i++) fprintf(out, "%s%" PRId64, i ? ", " : "", t->shape.dim[i]);
  fputs("]\n", out);
}

static bool is_output(const AxMugraph *g, int t) {
  for (int k = 0; k < g->noutputs; k++)
    if (g->outputs[k] == t) return true;
  return false;
}

/* Statement st with every operand replaced by what stands for it (p->repl): the line a
 * region's program or the module's graph prints for it. */
static AxKStmt through(const AxPartition *p, const AxKStmt *st) {
  AxKStmt c = *st;
  if (c.kind == AX_KS_OP)
    for (int k = 0; k < c.nin; k++) c.in[k] = p->repl[c.in[k]];
  return c;
}

/* The numpy broadcast of shapes a and b into out (aligned on the right, a missing dim is 1);
 * false when some pair of dims differs and neither is 1. */
static bool bcast(const AxTShape *a, const AxTShape *b, AxTShape *out) {
  int r = a->rank > b->rank ? a->rank : b->rank;
  out->rank = r;
  for (int i = 0; i < r; i++) {
    int ia = a->rank - r + i, ib = b->rank - r + i;
    int64_t x = ia >= 0 ? a->dim[ia] : 1, y = ib >= 0 ? b->dim[ib] : 1;
    if (x != y && x != 1 && y != 1) return false;
    out->dim[i] = x == 1 ? y : x;
  }
  return true;
}

static bool same_shape(const AxTShape *a, const AxTShape *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dim[i] != b->dim[i]) return false;
  return true;
}

/* Whether reader st of tensor b = broadcast(x, ...) computes the same when it reads x in place
 * of b: st is element-wise binary (numpy broadcasting, §1 of docs/superopt.md) and its shape
 * stays the same. Then it is the same function: broadcast_to composed with the operator's own
 * broadcasting maps each result index to the element of x that the operator alone maps it
 * to (both align on the right and read index 0 of a size-1 dim). */
static bool reads_through(const AxMugraph *g, const AxKStmt *st, int b, int x) {
  if (st->kind != AX_KS_OP || ax_op_spec(st->op)->cls != AX_TC_BINARY || st->nin != 2) return false;
  AxTShape sh[2], out;
  for (int k = 0; k < 2; k++) {
    int t = st->in[k] == b ? x : st->in[k];
    if (g->tensors[t].anon) sh[k].rank = 0;   /* a literal: a scalar */
    else sh[k] = g->tensors[t].shape;
  }
  return bcast(&sh[0], &sh[1], &out) && same_shape(&out, &g->tensors[st->t].shape);
}

/* p->repl: a broadcast whose every reader is element-wise and computes the same from the
 * broadcast's operand (reads_through) and which is no output is the identity on the
 * program's values — `X / broadcast(sum(X, axis = 1), [8, 256])` is `X / sum(X, axis = 1)`.
 * Its readers read the operand instead; nothing reads it any more, so it is dead code and no
 * cut point: the region around it is not split in two, and a program written with the
 * broadcast is searched as the one written without. The module's graph is still checked
 * against the program as written. */
static void see_through(AxArena *a, const AxMugraph *g, AxPartition *p) {
  p->repl = ax_arena_alloc(a, sizeof *p->repl * (size_t)(g->ntensors + 1));
  for (int t = 0; t < g->ntensors; t++) p->repl[t] = t;
  for (int s = 0; s < g->nstmts; s++) {
    const AxKStmt *st = &g->stmts[s];
    if (st->kind != AX_KS_OP || st->op != AX_OP_BROADCAST || st->nin != 1 || is_output(g, st->t)) continue;
    int x = p->repl[st->in[0]];
    if (g->tensors[x].anon) continue;
    bool ok = true;
    for (int r = s + 1; r < g->nstmts && ok; r++) {
      const AxKStmt *rd = &g->stmts[r];
      for (int k = 0; k < rd->nin && ok && rd->kind == AX_KS_OP; k++)
        if (rd->in[k] == st->t) ok = reads_through(g, rd, st->t, x);
    }
    if (ok) p->repl[st->t] = x;
  }
}

/* p->index: the index values of g, in program order: iotas, literals, reshapes and
 * broadcasts of them, + - * neg and comparisons of them (other layouts stay cut points). A comparison of two of them is decided
 * exactly by the check (superopt/equiv/exact.h), so a region that holds its mask statements
 * is searched and proved with the program's mask, where one that reads the mask as an input
 * could only be proved for every mask. */
static void index_values(AxArena *a, const AxMugraph *g, AxPartition *p) {
  p->index = ax_arena_alloc(a, (size_t)g->ntensors + 1);
  for (int t = 0; t < g->ntensors; t++) p->index[t] = g->tensors[t].anon;
  for (int s = 0; s < g->nstmts; s++) {
    const AxKStmt *st = &g->stmts[s];
    if (st->kind != AX_KS_OP) continue;
    bool v;
    switch (st->op) {
    case AX_OP_IOTA: v = true; break;
    case AX_OP_ADD: case AX_OP_SUB: case AX_OP_MUL: case AX_OP_NEG:
    case AX_OP_EQ: case AX_OP_NE: case AX_OP_LT: case AX_OP_LE: case AX_OP_GT: case AX_OP_GE:
      v = true;
      break;
    case AX_OP_RESHAPE: case AX_OP_BROADCAST: v = true; break;   /* the layouts a kernel makes */
    default: v = false;
    }
    for (int k = 0; k < st->nin && v; k++) v = p->index[p->repl[st->in[k]]];
    p->index[st->t] = v;
  }
}

/* Whether op statement s of g belongs in a region: an operator the search handles, or a
 * select on an index value (a mask); index values themselves are made by their readers. */
static bool member(const AxMugraph *g, const AxPartition *p, int s) {
  const AxKStmt *st = &g->stmts[s];
  if (p->index[st->t]) return false;
  if (st->op == AX_OP_SELECT) return p->index[p->repl[st->in[0]]];
  return ax_search_handles(st->op);
}

/* Whether s is an index value's statement. */
static bool index_stmt(const AxMugraph *g, const AxPartition *p, int s) {
  return is_op(g, s) && p->index[g->stmts[s].t];
}

/* The index statements region r reads, directly or through one another (per statement,
 * owned by the caller: free()). */
static bool *index_closure(const AxMugraph *g, const AxPartition *p, const AxRegion *r) {
  bool *made = calloc((size_t)g->nstmts + 1, 1);
  for (int i = 0; i < r->nstmts; i++) {
    const AxKStmt *st = &g->stmts[r->stmts[i]];
    for (int k = 0; k < st->nin; k++) {
      int q = producer(g, p->repl[st->in[k]]);
      if (index_stmt(g, p, q)) made[q] = true;
    }
  }
  for (int s = g->nstmts - 1; s >= 0; s--)
    for (int k = 0; made[s] && k < g->stmts[s].nin; k++) {
      int q = producer(g, p->repl[g->stmts[s].in[k]]);
      if (index_stmt(g, p, q)) made[q] = true;
    }
  return made;
}

/* The program of region r (whose statements carry region id `id` in reg[]): inputs in the
 * order of first use, the statements of the index values it reads (they are no inputs),
 * one let per operator, outputs what the rest of the program (its live statements) or its
 * outputs read. */
static char *region_text(const AxMugraph *g, const AxPartition *p, const AxRegion *r, const int *reg, int id) {
  const bool *live = p->live;
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  fprintf(m, "program %s {\n", r->name);
  bool *seen = calloc((size_t)g->ntensors + 1, 1);
  for (int i = 0; i < r->nstmts; i++) {
    const AxKStmt *st = &g->stmts[r->stmts[i]];
    for (int k = 0; k < st->nin; k++) {
      int t = p->repl[st->in[k]], q = producer(g, t);
      if (q < 0 || seen[t] || (is_op(g, q) && reg[q] == id) || index_stmt(g, p, q)) continue;
      seen[t] = true;
      decl(m, &g->tensors[t]);
    }
  }
  bool *made = index_closure(g, p, r);
  for (int s = 0; s < g->nstmts; s++) {
    if (!made[s]) continue;
    char *line = NULL;
    size_t n = 0;
    FILE *l = open_memstream(&line, &n);
    AxKStmt c = through(p, &g->stmts[s]);
    ax_mugtext_print_stmt(l, g, &c);
    fclose(l);
    fprintf(m, "  let %s\n", line + 2);
    free(line);
  }
  free(made);
  for (int i = 0; i < r->nstmts; i++) {
    char *line = NULL;
    size_t n = 0;
    FILE *l = open_memstream(&line, &n);
    AxKStmt c = through(p, &g->stmts[r->stmts[i]]);
    ax_mugtext_print_stmt(l, g, &c);
    fclose(l);
    fprintf(m, "  let %s\n", line + 2);   /* `  Y = op(...)` is a let's right-hand side */
    free(line);
  }
  for (int i = 0; i < r->nstmts; i++) {
    int t = g->stmts[r->stmts[i]].t;
    bool out = is_output(g, t);
    for (int s = 0; s < g->nstmts && !out; s++) {
      const AxKStmt *st = &g->stmts[s];
      if (st->kind != AX_KS_OP || !live[s] || reg[s] == id) continue;
      for (int k = 0; k < st->nin; k++) out |= p->repl[st->in[k]] == t;
    }
    if (out) fprintf(m, "  output %s\n", g->tensors[t].name);
  }
  fputs("}\n", m);
  fclose(m);
  free(seen);
  return buf;
}

static AxMugraph *lower(AxArena *a, AxDiag *d, const char *name, const char *text) {
  return ax_load_from_text(a, d, ax_arena_printf(a, "region %s", name), text, &(AxLoadOpts){.kind = AX_LOAD_PROGRAM});
}

/* Whether each statement's tensor reaches a program output: the importer leaves lets
 * that only a cut read (a reshape before a transpose it cannot express). */
static bool *live_stmts(AxArena *a, const AxMugraph *g, const int *repl) {
  bool *live = ax_arena_alloc(a, (size_t)g->nstmts + 1);
  memset(live, 0, (size_t)g->nstmts + 1);
  bool *need = calloc((size_t)g->ntensors + 1, 1);
  for (int k = 0; k < g->noutputs; k++) need[g->outputs[k]] = true;
  for (int s = g->nstmts - 1; s >= 0; s--) {
    const AxKStmt *st = &g->stmts[s];
    if (st->kind != AX_KS_OP || !need[st->t]) continue;
    live[s] = true;
    for (int k = 0; k < st->nin; k++) need[repl[st->in[k]]] = true;
  }
  free(need);
  return live;
}

static const AxPartition *sort_p;

static int by_gain(const void *x, const void *y) {
  const AxRegion *a = &sort_p->regions[*(const int *)x], *b = &sort_p->regions[*(const int *)y];
  double ga = a->naive_s - a->estimate_s, gb = b->naive_s - b->estimate_s;
  if (ga != gb) return ga > gb ? -1 : 1;
  if (a->naive_s != b->naive_s) return a->naive_s > b->naive_s ? -1 : 1;
  return *(const int *)x - *(const int *)y;
}

bool ax_partition_split(AxArena *a, AxDiag *d, const AxMugraph *g, int max_ops, const AxTarget *t,
                        AxPartition *p) {
  AX_ASSERT(max_ops >= 1);
  int n = g->nstmts;
  int *lab = calloc((size_t)g->ntensors + 1, sizeof *lab);
  int *uf = malloc(sizeof *uf * (size_t)(n + 1));
  int *reg = malloc(sizeof *reg * (size_t)(n + 1));
  memset(p, 0, sizeof *p);
  see_through(a, g, p);
  p->live = live_stmts(a, g, p->repl);
  index_values(a, g, p);
  /* an index statement that only regions read (directly or through other index statements)
   * is written into those regions' programs and leaves the module: readers first */
  bool *inside = calloc((size_t)n + 1, 1);
  for (int s = n - 1; s >= 0; s--) {
    if (!index_stmt(g, p, s) || !p->live[s] || is_output(g, g->stmts[s].t)) continue;
    bool all = true;
    for (int r = s + 1; r < n && all; r++) {
      const AxKStmt *rd = &g->stmts[r];
      if (rd->kind != AX_KS_OP || !p->live[r]) continue;
      for (int k = 0; k < rd->nin; k++)
        if (p->repl[rd->in[k]] == g->stmts[s].t && !(member(g, p, r) || inside[r])) all = false;
    }
    inside[s] = all;
  }
  /* lab[t]: the most cut points on a path from the inputs to t */
  for (int s = 0; s < n; s++) {
    uf[s] = s;
    reg[s] = -1;
    const AxKStmt *st = &g->stmts[s];
    if (st->kind != AX_KS_OP) continue;
    if (!p->live[s]) {
      p->ndead++;
      continue;
    }
    if (inside[s]) continue;
    int m = 0;
    for (int k = 0; k < st->nin; k++)
      if (!g->tensors[st->in[k]].anon && lab[p->repl[st->in[k]]] > m) m = lab[p->repl[st->in[k]]];
    lab[st->t] = member(g, p, s) ? m : m + 1;
    if (!member(g, p, s)) {
      p->nleft++;
      continue;
    }
    for (int k = 0; k < st->nin; k++) {
      int u = p->repl[st->in[k]], q = producer(g, u);
      if (is_op(g, q) && member(g, p, q) && lab[u] == lab[st->t]) {
        int x = find(uf, q), y = find(uf, s);
        if (x != y) uf[x > y ? x : y] = x < y ? x : y;
      }
    }
  }
  /* groups in order of their first operator, cut into pieces of at most max_ops */
  int *count = calloc((size_t)n + 1, sizeof *count), *piece = calloc((size_t)n + 1, sizeof *piece);
  AxVec regions = {0};
  for (int s = 0; s < n; s++) {
    const AxKStmt *st = &g->stmts[s];
    if (st->kind != AX_KS_OP || !p->live[s] || !member(g, p, s)) continue;
    int root = find(uf, s);
    if (count[root] % max_ops == 0) {
      AxRegion *r = ax_arena_alloc(a, sizeof *r);
      memset(r, 0, sizeof *r);
      r->stmts = ax_arena_alloc(a, sizeof *r->stmts * (size_t)max_ops);
      r->name = ax_arena_printf(a, "r%02d", (int)regions.len + 1);
      piece[root] = (int)regions.len;
      ax_vec_push(a, &regions, r);
    }
    count[root]++;
    AxRegion *r = regions.items[piece[root]];
    r->stmts[r->nstmts++] = s;
    reg[s] = piece[root];
  }
  for (int s = 0; s < n; s++)
    if (inside[s]) p->live[s] = false;
  free(inside);
  p->n = (int)regions.len;
  p->regions = ax_arena_alloc(a, sizeof *p->regions * (size_t)(p->n + 1));
  p->order = ax_arena_alloc(a, sizeof *p->order * (size_t)(p->n + 1));
  bool ok = true;
  for (int i = 0; i < p->n && ok; i++) {
    AxRegion *r = &p->regions[i];
    *r = *(AxRegion *)regions.items[i];
    char *text = region_text(g, p, r, reg, i);
    r->text = ax_arena_strdup(a, text);
    free(text);
    r->prog = lower(a, d, r->name, r->text);
    if (!r->prog) {
      ok = false;
      break;
    }
    r->naive_s = ax_cost_time(r->prog, t);
    double gt;
    int nk, nf;
    char *gtext = ax_greedy_build(r->prog, t, &gt, &nk, &nf);
    r->estimate_s = gtext && gt < r->naive_s ? gt : r->naive_s;
    free(gtext);
    p->order[i] = i;
  }
  if (ok && p->n > 1) {
    sort_p = p;
    qsort(p->order, (size_t)p->n, sizeof *p->order, by_gain);
  }
  free(lab);
  free(uf);
  free(reg);
  free(count);
  free(piece);
  return ok;
}

/* ---- the module's graph ---- */

/* Prints region graph rg (region r's) into out: every statement but its inputs and its
 * output list, inner tensors and kernels renamed R__x. */
static void print_region(FILE *out, AxArena *a, AxMugraph *rg, const AxRegion *r) {
  for (int t = 0; t < rg->ntensors; t++) {
    AxKTensor *kt = &rg->tensors[t];
    if (kt->anon || rg->stmts[kt->stmt].kind == AX_KS_INPUT || is_output(rg, t)) continue;
    kt->name = ax_arena_printf(a, "%s__%s", r->name, kt->name);
  }
  for (int s = 0; s < rg->nstmts; s++) {
    AxKStmt *st = &rg->stmts[s];
    if (st->kind == AX_KS_KERNEL) st->kernel->name = ax_arena_printf(a, "%s__%s", r->name, st->kernel->name);
    if (st->kind != AX_KS_OP && st->kind != AX_KS_KERNEL) continue;
    ax_mugtext_print_stmt(out, rg, st);
    fputc('\n', out);
  }
}

char *ax_partition_stitch(AxArena *a, AxDiag *d, const AxMugraph *g, const AxPartition *p,
                          const char *const *graphs, const char *name) {
  int n = g->nstmts, nu = p->n + n;
  /* units: region i is unit i, an operator statement s outside regions unit p->n + s */
  int *unit = malloc(sizeof *unit * (size_t)(n + 1)), *key = malloc(sizeof *key * (size_t)(nu + 1));
  int *indeg = calloc((size_t)nu + 1, sizeof *indeg);
  bool *live = calloc((size_t)nu + 1, 1);
  bool *printed = calloc((size_t)n + 1, 1);   /* index statements written for a region */
  for (int s = 0; s < n; s++) unit[s] = g->stmts[s].kind == AX_KS_OP && p->live[s] ? p->n + s : -1;
  for (int i = 0; i < p->n; i++) {
    for (int k = 0; k < p->regions[i].nstmts; k++) unit[p->regions[i].stmts[k]] = i;
    key[i] = p->regions[i].stmts[0];
    live[i] = true;
  }
  for (int s = 0; s < n; s++)
    if (unit[s] >= p->n) key[unit[s]] = s, live[unit[s]] = true;
  /* an edge per operand that crosses units (counted once per reading statement and operand) */
  for (int s = 0; s < n; s++) {
    if (unit[s] < 0) continue;
    const AxKStmt *st = &g->stmts[s];
    for (int k = 0; k < st->nin; k++) {
      int q = producer(g, p->repl[st->in[k]]);
      if (is_op(g, q) && unit[q] >= 0 && unit[q] != unit[s]) indeg[unit[s]]++;
    }
  }
  AxMugraph **rgs = calloc((size_t)p->n + 1, sizeof *rgs);
  bool ok = true;
  for (int i = 0; i < p->n && ok; i++) {
    if (!graphs[i]) continue;
    /* parsed for its names only: the module's text it is renamed into is validated whole */
    rgs[i] = ax_load_from_text(a, d, ax_arena_printf(a, "%s.mug", p->regions[i].name), graphs[i],
                               &(AxLoadOpts){.kind = AX_LOAD_MUGRAPH, .parse_only = true});
    ok = rgs[i] != NULL;
  }
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  fprintf(out, "mugraph %s {\n", name);
  for (int s = 0; s < n; s++)
    if (g->stmts[s].kind == AX_KS_INPUT) decl(out, &g->tensors[g->stmts[s].t]);
  /* Kahn's order, the ready unit that comes first in the program first */
  for (int done = 0; ok; done++) {
    int u = -1;
    for (int v = 0; v < nu; v++)
      if (live[v] && indeg[v] == 0 && (u < 0 || key[v] < key[u])) u = v;
    if (u < 0) break;
    live[u] = false;
    if (u < p->n && rgs[u]) print_region(out, a, rgs[u], &p->regions[u]);
    if (u < p->n && !rgs[u]) {   /* its operators as they are: the index statements first */
      bool *made = index_closure(g, p, &p->regions[u]);
      for (int s = 0; s < n; s++)
        if (made[s] && !p->live[s] && !printed[s]) {
          printed[s] = true;
          AxKStmt c = through(p, &g->stmts[s]);
          ax_mugtext_print_stmt(out, g, &c);
          fputc('\n', out);
        }
      free(made);
    }
    for (int s = 0; s < n; s++) {
      if (unit[s] != u) continue;
      if (u >= p->n || !rgs[u]) {
        AxKStmt c = through(p, &g->stmts[s]);
        ax_mugtext_print_stmt(out, g, &c);
        fputc('\n', out);
      }
      for (int r = 0; r < n; r++) {   /* release the readers of s's tensor */
        if (unit[r] < 0 || unit[r] == u) continue;
        for (int k = 0; k < g->stmts[r].nin; k++)
          if (p->repl[g->stmts[r].in[k]] == g->stmts[s].t) indeg[unit[r]]--;
      }
    }
  }
  for (int s = 0; s < n; s++)
    if (g->stmts[s].kind == AX_KS_OUTPUT) {
      ax_mugtext_print_stmt(out, g, &g->stmts[s]);
      fputc('\n', out);
    }
  fputs("}\n", out);
  fclose(out);
  for (int v = 0; v < nu && ok; v++) AX_ASSERT(!live[v]);   /* regions are convex: no cycle */
  free(unit);
  free(key);
  free(indeg);
  free(live);
  free(printed);
  free(rgs);
  if (!ok) {
    free(buf);
    return NULL;
  }
  return buf;
}

char *ax_partition_program_text(const AxMugraph *g) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  fprintf(m, "program %s {\n", g->name);
  for (int s = 0; s < g->nstmts; s++) {
    const AxKStmt *st = &g->stmts[s];
    if (st->kind == AX_KS_INPUT) decl(m, &g->tensors[st->t]);
  }
  for (int s = 0; s < g->nstmts; s++) {
    if (g->stmts[s].kind != AX_KS_OP) continue;
    char *line = NULL;
    size_t n = 0;
    FILE *l = open_memstream(&line, &n);
    ax_mugtext_print_stmt(l, g, &g->stmts[s]);
    fclose(l);
    fprintf(m, "  let %s\n", line + 2);
    free(line);
  }
  for (int k = 0; k < g->noutputs; k++) fprintf(m, "  output %s\n", g->tensors[g->outputs[k]].name);
  fputs("}\n", m);
  fclose(m);
  return buf;
}

/* ---- the module check, cut at the layout operators ------------------------------------ */

/* The line of top-level statement s of g, "  NAME = op(...)" without the newline (malloc'd). */
static char *stmt_line(const AxMugraph *g, const AxKStmt *st) {
  char *line = NULL;
  size_t n = 0;
  FILE *l = open_memstream(&line, &n);
  ax_mugtext_print_stmt(l, g, st);
  fclose(l);
  size_t k = strlen(line);
  while (k > 0 && line[k - 1] == '\n') line[--k] = 0;
  return line;
}

/* Where text holds line as a whole line (a top-level statement: a kernel's are indented
 * deeper), when it does exactly once; NULL otherwise. */
static char *line_in(char *text, const char *line) {
  size_t ln = strlen(line);
  char *at = NULL;
  for (char *p = text; (p = strstr(p, line)) != NULL; p += ln)
    if ((p == text || p[-1] == '\n') && (p[ln] == '\n' || p[ln] == ' ')) {
      if (at) return NULL;
      at = p;
    }
  return at;
}

/* text with every line equal to one of lines[k] replaced by decls[k] and the operands
 * outs appended to its output line; NULL when some line is not found exactly once. */
static char *cut_text(AxArena *a, const char *text, char **lines, char **decls, int n,
                      const char *outs) {
  char *t = ax_arena_strndup(a, text, strlen(text));
  for (int k = 0; k < n; k++) {
    char *at = line_in(t, lines[k]);
    if (!at) return NULL;
    char *eol = strchr(at, '\n');
    t = ax_arena_printf(a, "%.*s%s%s", (int)(at - t), t, decls[k], eol ? eol : "");
  }
  char *o = strstr(t, "\n  output ");
  if (!o) return NULL;
  char *eol = strchr(o + 1, '\n');
  if (!eol) return NULL;
  return ax_arena_printf(a, "%.*s%s%s", (int)(eol - t), t, outs, eol);
}

/* Whether c can be part of a name (mugtext's identifiers). */
static bool name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* Where name occurs in text as a whole name, from `from` on; NULL when it does not. */
static const char *find_name(const char *text, const char *from, const char *name) {
  size_t n = strlen(name);
  for (const char *p = from; (p = strstr(p, name)) != NULL; p += n)
    if ((p == text || !name_char(p[-1])) && !name_char(p[n])) return p;
  return NULL;
}

/* text with every whole-name occurrence of from renamed to: a renaming of one tensor, the
 * same graph (from occurs only as that tensor's name: the stitched module's inner names,
 * R__x, are names nowhere else). */
static char *rename_name(AxArena *a, const char *text, const char *from, const char *to) {
  char *buf = NULL;
  size_t n = 0;
  FILE *m = open_memstream(&buf, &n);
  const char *p = text, *q;
  while ((q = find_name(text, p, from)) != NULL) {
    fprintf(m, "%.*s%s", (int)(q - p), p, to);
    p = q + strlen(from);
  }
  fputs(p, m);
  fclose(m);
  char *r = ax_arena_strndup(a, buf, n);
  free(buf);
  return r;
}

/* The one name of mtext of the form PREFIX__name (a region's inner name, ax_partition_stitch),
 * or NULL when there is none or more than one (arena). */
static char *inner_name(AxArena *a, const char *mtext, const char *name) {
  char *suffix = ax_arena_printf(a, "__%s", name), *found = NULL;
  size_t sn = strlen(suffix);
  for (const char *p = strstr(mtext, suffix); p; p = strstr(p + sn, suffix)) {
    if (name_char(p[sn])) continue;
    const char *b = p;
    while (b > mtext && name_char(b[-1])) b--;
    if (b == p) continue;
    char *tok = ax_arena_strndup(a, b, (size_t)(p + sn - b));
    if (found && strcmp(found, tok) != 0) return NULL;
    found = tok;
  }
  return found;
}

/* The statements the module check may cut at: every pre-defined operator (a statement held
 * unchanged on both sides, so cutting it costs nothing sound: the argument in partition.h
 * holds for any operator). The ones a field test cannot read — the layout operators (select
 * and iota among them) and those that need an order (their row's Lax class: comparisons,
 * abs, max, min) — are why the cut check exists; the others (a matmul a region kept) make it
 * cheap: what is left to test is the fused kernels against the operators they replace. */
int ax_partition_check_cut(AxArena *a, const AxMugraph *prog, const AxMugraph *mod,
                           int (*check)(const AxMugraph *, const AxMugraph *, void *), void *ctx) {
  char **lines = ax_arena_alloc(a, sizeof *lines * (size_t)(prog->nstmts + 1));
  char **decls = ax_arena_alloc(a, sizeof *decls * (size_t)(prog->nstmts + 1));
  int n = 0;
  const char *outs = "";
  /* a program tensor in outs already, or an input of both cut graphs (a program input or a
   * cut result): equal on both sides without being compared */
  bool *listed = ax_arena_alloc(a, (size_t)prog->ntensors + 1);
  memset(listed, 0, (size_t)prog->ntensors + 1);
  for (int s = 0; s < prog->nstmts; s++)
    if (prog->stmts[s].kind == AX_KS_INPUT) listed[prog->stmts[s].t] = true;
  char *ptext = ax_mugtext_string(prog), *mt = ax_mugtext_string(mod);
  char *mtext = ax_arena_strndup(a, mt, strlen(mt));
  free(mt);
  /* a region's inner name for a program tensor (R__x for x) is renamed x where the module
   * has no x: the same graph (a renaming), in which the statements the region kept are the
   * program's lines again */
  for (int t = 0; t < prog->ntensors; t++) {
    const char *name = prog->tensors[t].name;
    if (prog->tensors[t].anon || find_name(mtext, mtext, name)) continue;
    char *inner = inner_name(a, mtext, name);
    if (inner) mtext = rename_name(a, mtext, inner, name);
  }
  for (int s = 0; s < prog->nstmts; s++) {
    const AxKStmt *st = &prog->stmts[s];
    if (st->kind != AX_KS_OP) continue;
    char *own = stmt_line(prog, st), *line = ax_arena_strndup(a, own, strlen(own));
    free(own);
    const AxKTensor *t = &prog->tensors[st->t];
    /* only a statement the module holds unchanged, once, at top level: the same operator,
     * attributes, operands (a line inside a kernel is another thing, however it reads) */
    bool both = line_in(mtext, line) != NULL;
    if (both) {
      char *dims = NULL;
      size_t dn = 0;
      FILE *f = open_memstream(&dims, &dn);
      for (int i = 0; i < t->shape.rank; i++) fprintf(f, "%s%" PRId64, i ? ", " : "", t->shape.dim[i]);
      fclose(f);
      lines[n] = line;
      decls[n++] = ax_arena_printf(a, "  input %s : %s[%s]", t->name, ax_dtype_name(t->dtype), dims);
      free(dims);
      /* an operand of two cut statements (an iota on both sides of a compare) is one output */
      for (int k = 0; k < st->nin; k++)
        if (!prog->tensors[st->in[k]].anon && !listed[st->in[k]]) {
          listed[st->in[k]] = true;
          outs = ax_arena_printf(a, "%s, %s", outs, prog->tensors[st->in[k]].name);
        }
      listed[st->t] = true;
    }
  }
  int st = 3;
  char *pc = n ? cut_text(a, ptext, lines, decls, n, outs) : NULL;
  char *mc = n ? cut_text(a, mtext, lines, decls, n, outs) : NULL;
  free(ptext);
  if (!pc || !mc) return 3;
  /* a program input that only the cut statements read is read by neither cut graph: left
   * out of both, it is not drawn in every test (a kept matmul's 4096 x 4096 weight) */
  for (int s = 0; s < prog->nstmts; s++) {
    if (prog->stmts[s].kind != AX_KS_INPUT) continue;
    const char *name = prog->tensors[prog->stmts[s].t].name;
    char *head = ax_arena_printf(a, "\n  input %s : ", name);
    char *dp = strstr(pc, head), *dm = strstr(mc, head);
    if (!dp || !dm) continue;
    char *ep = strchr(dp + 1, '\n'), *em = strchr(dm + 1, '\n');
    if (!ep || !em || find_name(pc, ep, name) || find_name(mc, em, name)) continue;
    pc = ax_arena_printf(a, "%.*s%s", (int)(dp - pc), pc, ep);
    mc = ax_arena_printf(a, "%.*s%s", (int)(dm - mc), mc, em);
  }
  AxMugraph *gp = ax_load_from_text(a, NULL, "<program, cut>", pc, NULL);
  AxMugraph *gm = gp ? ax_load_from_text(a, NULL, "<module, cut>", mc, NULL) : NULL;
  if (gm) st = check(gp, gm, ctx);
  return st;
}
