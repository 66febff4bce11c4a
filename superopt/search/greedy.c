/* greedy.c — the greedy fusion floor (greedy.h).
 *
 * Groups are sets of the program's operator statements (a bit mask over at most MAXOPS of
 * them). A group's kernel is written as .mug text and read back by the one parser and
 * validator (mugtext.h, mugraph.h), so that the pass can build only what every other part of
 * axle — interpreters, cost model, CUDA backend — already accepts. */
#include "superopt/search/greedy.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/hooks.h"
#include "superopt/equiv/equiv.h"
#include "superopt/equiv/exact.h"
#include "superopt/cost/cost.h"
#include "superopt/ir/load.h"
#include "superopt/ir/mugtext.h"

#define MAXOPS 64
/* Shared memory a greedy kernel may plan per block: the CUDA backend adds scratch and
 * alignment to the validator's figure, so some room is left below the target's limit. */
#define SMEM_SHARE 0.75

typedef struct Memo {
  uint64_t mask;
  double time_s;       /* INFINITY: no kernel for this group */
  char *text;          /* the group's statement(s), kernel name k<first op> */
} Memo;

typedef struct Pass {
  const AxMugraph *p;
  const AxTarget *target;
  int nops;
  int op[MAXOPS];      /* statement index of operator i, in program order */
  int *opof;           /* tensor -> operator index producing it; -1 otherwise */
  bool *isout;         /* tensor is a program output */
  uint64_t users[MAXOPS];   /* operators reading operator i's result */
  bool *inl;           /* tensor is an index value (index.c's sense): a fused kernel makes it */
  uint64_t virt;       /* operators whose tensor is inl: never merged, dropped once dead */
  Memo *memo;
  int nmemo, capmemo;
} Pass;

static const AxKStmt *stmt_at(const Pass *g, int i) { return &g->p->stmts[g->op[i]]; }
static const AxKTensor *tensor_at(const Pass *g, int t) { return &g->p->tensors[t]; }

/* ---- classes of one group ------------------------------------------------------------ */

typedef struct GroupDims {
  int *parent;         /* union-find over t * AX_MAXRANK + d */
  bool *red;           /* root reduced by some operator of the group */
} GroupDims;

static int find(int *p, int x) {
  while (p[x] != x) x = p[x] = p[p[x]];
  return x;
}

static void unite(const Pass *g, GroupDims *c, int t1, int d1, int t2, int d2) {
  if (tensor_at(g, t1)->anon || tensor_at(g, t2)->anon) return;
  if (tensor_at(g, t1)->shape.dim[d1] != tensor_at(g, t2)->shape.dim[d2] || tensor_at(g, t1)->shape.dim[d1] <= 1) return;
  int a = find(c->parent, t1 * AX_MAXRANK + d1), b = find(c->parent, t2 * AX_MAXRANK + d2);
  if (a != b) c->parent[a] = b;
}

/* dim d of t's class root, or -1 for a dim of size 1 (broadcast) */
static int cls_of(const Pass *g, GroupDims *c, int t, int d) {
  if (tensor_at(g, t)->anon || tensor_at(g, t)->shape.dim[d] <= 1) return -1;
  return find(c->parent, t * AX_MAXRANK + d);
}

/* the dim of t in class r, or -1 */
static int dim_in(const Pass *g, GroupDims *c, int t, int r) {
  for (int d = 0; d < tensor_at(g, t)->shape.rank; d++)
    if (cls_of(g, c, t, d) == r) return d;
  return -1;
}

/* Elementwise operands aligned on the right with the result. */
static void unite_bcast(const Pass *g, GroupDims *c, int out, int in) {
  int ro = tensor_at(g, out)->shape.rank, ri = tensor_at(g, in)->shape.rank;
  for (int d = 0; d < ri; d++)
    if (d + ro - ri >= 0) unite(g, c, out, d + ro - ri, in, d);
}

/* Classes of group m; false when an operator cannot be part of a graph-defined kernel. */
static bool classes(const Pass *g, uint64_t m, GroupDims *c) {
  int n = g->p->ntensors * AX_MAXRANK;
  c->parent = malloc(sizeof(int) * (size_t)n);
  c->red = calloc((size_t)n, sizeof(bool));
  for (int i = 0; i < n; i++) c->parent[i] = i;
  for (int i = 0; i < g->nops; i++) {
    if (!(m >> i & 1)) continue;
    const AxKStmt *s = stmt_at(g, i);
    int out = s->t;
    if (s->op == AX_OP_SELECT) {   /* three operands of one shape: element-wise */
      for (int j = 0; j < s->nin; j++) unite_bcast(g, c, out, s->in[j]);
      continue;
    }
    switch (ax_op_spec(s->op)->cls) {
    case AX_TC_UNARY:
    case AX_TC_BINARY:
      for (int j = 0; j < s->nin; j++) unite_bcast(g, c, out, s->in[j]);
      break;
    case AX_TC_MATMUL: {
      int A = s->in[0], B = s->in[1];
      int ra = tensor_at(g, A)->shape.rank, rb = tensor_at(g, B)->shape.rank, ro = tensor_at(g, out)->shape.rank;
      if (ra < 2 || rb < 2) return false;
      for (int d = 0; d < ra - 2; d++) unite(g, c, out, d + ro - ra, A, d);
      for (int d = 0; d < rb - 2; d++) unite(g, c, out, d + ro - rb, B, d);
      unite(g, c, out, ro - 2, A, ra - 2);
      unite(g, c, out, ro - 1, B, rb - 1);
      unite(g, c, A, ra - 1, B, rb - 2);
      break;
    }
    case AX_TC_REDUCE:
      if (s->at.to > 1) return false;
      for (int d = 0; d < tensor_at(g, out)->shape.rank; d++)
        if (d != s->at.axis) unite(g, c, out, d, s->in[0], d);
      break;
    case AX_TC_NORM:
      unite_bcast(g, c, out, s->in[0]);
      break;
    default:
      return false;   /* layout operators stay pre-defined kernels */
    }
  }
  /* reductions, after every union */
  for (int i = 0; i < g->nops; i++) {
    if (!(m >> i & 1)) continue;
    const AxKStmt *s = stmt_at(g, i);
    int r = -1;
    AxOpClass k = ax_op_spec(s->op)->cls;
    if (k == AX_TC_MATMUL) r = cls_of(g, c, s->in[0], tensor_at(g, s->in[0])->shape.rank - 1);
    else if (k == AX_TC_REDUCE || k == AX_TC_NORM) r = cls_of(g, c, s->in[0], s->at.axis);
    if (r >= 0) c->red[r] = true;
  }
  return true;
}

static void cls_free(GroupDims *c) {
  free(c->parent);
  free(c->red);
}

/* ---- text ------------------------------------------------------------------------------ */

static bool saved(const Pass *g, uint64_t m, int i) {
  return g->isout[stmt_at(g, i)->t] || (g->users[i] & ~m);
}

static void attrs(FILE *f, const AxKStmt *s) {
  const AxOpSpec *sp = ax_op_spec(s->op);
  if (sp->tattrs & AX_TA_SHAPE) {
    fputs(s->nin ? ", [" : "[", f);   /* iota has no operand before its shape */
    for (int i = 0; i < s->at.shape.rank; i++) fprintf(f, "%s%" PRId64, i ? ", " : "", s->at.shape.dim[i]);
    fputc(']', f);
  }
  if (sp->tattrs & AX_TA_AXIS) fprintf(f, ", axis = %d", s->at.axis);
  if ((sp->tattrs & AX_TA_TO) && s->at.to) fprintf(f, ", to = %" PRId64, s->at.to);
  if ((sp->tattrs & AX_TA_TIMES) && s->at.times) fprintf(f, ", times = %" PRId64, s->at.times);
}

/* An operator alone: the pre-defined kernel of the naive graph. */
static void predefined(FILE *f, const Pass *g, int i) {
  const AxKStmt *s = stmt_at(g, i);
  fprintf(f, "  %s = %s(", tensor_at(g, s->t)->name, ax_op_pname(s->op));
  for (int j = 0; j < s->nin; j++) fprintf(f, "%s%s", j ? ", " : "", tensor_at(g, s->in[j])->name);
  attrs(f, s);
  fputs(")\n", f);
}

typedef struct LaunchShape {
  int naxes;
  int cls[3];          /* class root per grid axis */
  int64_t size[3];
  int loop;            /* class walked by the for-loop, -1 none */
  int64_t range;
} LaunchShape;

/* The block-graph name of t inside group m's kernel. */
static void ref(FILE *f, const Pass *g, uint64_t m, int t, const int *subst) {
  const AxKTensor *kt = tensor_at(g, t);
  if (kt->anon) fputs(kt->text, f);
  else if (g->opof[t] >= 0 && (m >> g->opof[t] & 1)) {
    if (subst[g->opof[t]] == 1) fprintf(f, "a%d", t);
    else if (subst[g->opof[t]] == 2) fprintf(f, "d%d", t);
    else fprintf(f, "v%d", t);
  } else fprintf(f, "i%d", t);
}

static void map(FILE *f, const Pass *g, GroupDims *c, const LaunchShape *k, int t) {
  int mp[3] = {-1, -1, -1};
  for (int a = 0; a < k->naxes; a++) mp[a] = dim_in(g, c, t, k->cls[a]);
  ax_mugtext_print_map(f, mp);
}

/* ---- index values made inside a kernel ------------------------------------------------
 *
 * An index value depends on no input: an iota, a literal, a broadcast of one, a reshape of
 * one that only adds or drops dims of size 1, and + - * neg or a comparison of such
 * values. A causal mask and its fill are index values. A fused kernel does not load one it
 * reads element-wise: it writes it from block iotas (each element's global index, the
 * tile of the kernel-level iota its maps cut), the literals and the same operators. The
 * mask then costs no memory traffic, its statements become dead code, and the group's
 * check runs the program's own mask statements in front of the group's operators (so the
 * mask is the program's, not a random input), where the comparison of two index values is
 * decided exactly (exact.h). */

static bool elementwise(const AxKStmt *s) {
  AxOpClass k = ax_op_spec(s->op)->cls;
  return k == AX_TC_UNARY || k == AX_TC_BINARY || s->op == AX_OP_SELECT;
}

/* g->inl and g->virt, one pass in program order. */
static void index_values(Pass *g) {
  g->inl = calloc((size_t)g->p->ntensors + 1, sizeof(bool));
  for (int t = 0; t < g->p->ntensors; t++) g->inl[t] = tensor_at(g, t)->anon;
  for (int i = 0; i < g->nops; i++) {
    const AxKStmt *s = stmt_at(g, i);
    bool v = s->op == AX_OP_IOTA;
    if (s->op == AX_OP_BROADCAST) v = g->inl[s->in[0]];
    else if (s->op == AX_OP_RESHAPE)
      v = g->inl[s->in[0]] && ax_shape_squeeze_equal(&tensor_at(g, s->in[0])->shape, &tensor_at(g, s->t)->shape);
    else if (ax_exact_index_op(s->op)) {
      v = true;
      for (int j = 0; j < s->nin; j++) v &= g->inl[s->in[j]];
    }
    g->inl[s->t] = v;
    if (v) g->virt |= (uint64_t)1 << i;
  }
}

/* Whether operand j of operator i is made inside group m's kernel rather than loaded. */
static bool inlined(const Pass *g, uint64_t m, int i, int j) {
  const AxKStmt *s = stmt_at(g, i);
  int t = s->in[j];
  return __builtin_popcountll(m) > 1 && !tensor_at(g, t)->anon && g->inl[t] && g->opof[t] >= 0 &&
         !(m >> g->opof[t] & 1) && elementwise(s);
}

typedef struct IxOut {
  FILE *f;
  const Pass *g;
  GroupDims *c;
  const LaunchShape *k;
  int o;               /* the reading operator's result: the dims the values are seen in */
  int *n;              /* nodes written so far for o: names x<o>_<n> */
  int *iota;           /* o's dim d -> the node of its block iota, -1 none yet */
} IxOut;

/* The block iota of o's dim d: kernel-level shape o's with every other dim 1, cut as o is. */
static void block_iota(IxOut *x, int d, char *name, size_t nn) {
  const AxKTensor *o = tensor_at(x->g, x->o);
  if (x->iota[d] >= 0) {   /* one per dim and reading operator */
    snprintf(name, nn, "x%d_%d", x->o, x->iota[d]);
    return;
  }
  x->iota[d] = *x->n;
  snprintf(name, nn, "x%d_%d", x->o, (*x->n)++);
  fprintf(x->f, "    %s = iota([", name);
  for (int e = 0; e < o->shape.rank; e++) fprintf(x->f, "%s%" PRId64, e ? ", " : "", e == d ? o->shape.dim[e] : 1);
  fprintf(x->f, "], axis = %d) imap ", d);
  int r = cls_of(x->g, x->c, x->o, d), mp[3] = {-1, -1, -1};
  for (int a = 0; a < x->k->naxes; a++) mp[a] = x->k->cls[a] == r ? d : -1;
  ax_mugtext_print_map(x->f, mp);
  if (x->k->loop >= 0 && x->k->loop == r) fprintf(x->f, " fmap %d\n", d);
  else fputs(" fmap -\n", x->f);
}

/* Writes the block nodes of index value t, its dim e seen as o's dim dmap[e] (-1: e has
 * size 1), and its name (a node's or a literal's) into name; returns the dims of o it
 * varies along (a bit each), or -1 when it cannot be written (an operator of literals only). */
static int ix_emit(IxOut *x, int t, const int *dmap, char *name, size_t nn) {
  const AxKTensor *kt = tensor_at(x->g, t);
  if (kt->anon) {
    snprintf(name, nn, "%s", kt->text);
    return 0;
  }
  const AxKStmt *s = stmt_at(x->g, x->g->opof[t]);
  int rt = kt->shape.rank;
  if (s->op == AX_OP_IOTA) {
    if (dmap[s->at.axis] < 0) {   /* the index along a dim of size 1 */
      snprintf(name, nn, "0");
      return 0;
    }
    block_iota(x, dmap[s->at.axis], name, nn);
    return 1 << dmap[s->at.axis];
  }
  int dm[AX_MAXIN][AX_MAXRANK];
  for (int j = 0; j < s->nin; j++) {
    const AxKTensor *it = tensor_at(x->g, s->in[j]);
    if (it->anon) continue;
    if (s->op == AX_OP_RESHAPE) {   /* the dims other than 1 correspond in order */
      int e = 0;
      for (int d = 0; d < it->shape.rank; d++) {
        dm[j][d] = -1;
        if (it->shape.dim[d] == 1) continue;
        while (kt->shape.dim[e] == 1) e++;
        dm[j][d] = dmap[e++];
      }
    } else   /* broadcast and the element-wise operators: aligned on the right */
      for (int d = 0; d < it->shape.rank; d++)
        dm[j][d] = it->shape.dim[d] == 1 ? -1 : dmap[d + rt - it->shape.rank];
  }
  if (s->op == AX_OP_BROADCAST || s->op == AX_OP_RESHAPE) return ix_emit(x, s->in[0], dm[0], name, nn);
  char arg[AX_MAXIN][64];
  int cover = 0;
  for (int j = 0; j < s->nin; j++) {
    int r = ix_emit(x, s->in[j], dm[j], arg[j], sizeof arg[j]);
    if (r < 0) return -1;
    cover |= r;
  }
  if (!cover) return -1;
  snprintf(name, nn, "x%d_%d", x->o, (*x->n)++);
  fprintf(x->f, "    %s = %s(", name, ax_op_pname(s->op));
  for (int j = 0; j < s->nin; j++) fprintf(x->f, "%s%s", j ? ", " : "", arg[j]);
  fputs(")\n", x->f);
  return cover;
}

/* Writes operand j of operator i (inlined) as block nodes, its name into name; false when it
 * cannot be written. The value is widened with a zero made of block iotas to every dim of
 * the operand other than 1 that it does not vary along (a select takes three tiles of one
 * shape; a fill is a literal), never with a data tile, whose infinities would make NaN. */
static bool ix_operand(FILE *f, const Pass *g, GroupDims *c, const LaunchShape *k, int i, int j, int *n,
                       int *iota, char *name, size_t nn) {
  const AxKStmt *s = stmt_at(g, i);
  int t = s->in[j];
  const AxTShape *sh = &tensor_at(g, t)->shape;
  int ro = tensor_at(g, s->t)->shape.rank, dmap[AX_MAXRANK], need = 0;
  for (int d = 0; d < sh->rank; d++) {
    dmap[d] = sh->dim[d] == 1 ? -1 : d + ro - sh->rank;
    if (dmap[d] >= 0) need |= 1 << dmap[d];
  }
  IxOut x = {f, g, c, k, s->t, n, iota};
  int cover = ix_emit(&x, t, dmap, name, nn);
  if (cover < 0) return false;
  for (int d = 0; d < ro; d++) {
    if (!((need & ~cover) >> d & 1)) continue;
    char io[64], z[64];
    block_iota(&x, d, io, sizeof io);
    snprintf(z, sizeof z, "x%d_%d", s->t, (*n)++);
    fprintf(f, "    %s = mul(%s, 0)\n", z, io);
    char sum[64];
    snprintf(sum, sizeof sum, "x%d_%d", s->t, (*n)++);
    fprintf(f, "    %s = add(%s, %s)\n", sum, z, name);
    snprintf(name, nn, "%s", sum);
  }
  return true;
}

/* Writes group m's kernel under configuration k; false when the configuration cannot hold
 * the group (a loop over a class an operator outside the matmul's prologue touches). */
static bool kernel_text(FILE *f, const Pass *g, uint64_t m, GroupDims *c, const LaunchShape *k) {
  int first = __builtin_ctzll(m);
  int subst[MAXOPS] = {0};   /* 1: read the accumulator a<t>; 2: read the division d<t> */
  int mm = -1, absorbed = -1;
  uint64_t anc = 0;
  if (k->loop >= 0) {
    for (int i = 0; i < g->nops; i++)
      if ((m >> i & 1) && ax_op_spec(stmt_at(g, i)->op)->cls == AX_TC_MATMUL) mm = i;
    if (mm < 0) return false;
    /* the matmul's in-group ancestors: its prologue, run every iteration */
    for (int i = mm - 1; i >= 0; i--) {
      if (!(m >> i & 1)) continue;
      if (g->users[i] & m & ((uint64_t)1 << mm | anc)) anc |= (uint64_t)1 << i;
    }
    /* rms_norm over the contracted dim feeding A: Mirage's accum rms and a division */
    int A = stmt_at(g, mm)->in[0];
    int ra = g->opof[A];
    if (ra >= 0 && (m >> ra & 1) && stmt_at(g, ra)->op == AX_OP_RMS_NORM &&
        stmt_at(g, ra)->at.axis == tensor_at(g, A)->shape.rank - 1 && !saved(g, m, ra) &&
        g->users[ra] == (uint64_t)1 << mm && stmt_at(g, mm)->in[1] != A)
      absorbed = ra;
    for (int i = 0; i < g->nops; i++) {
      if (!(m >> i & 1) || i == mm || i == absorbed) continue;
      const AxKStmt *s = stmt_at(g, i);
      if (anc >> i & 1) {
        if (!elementwise(s) || saved(g, m, i)) return false;
        continue;
      }
      if (dim_in(g, c, s->t, k->loop) >= 0) return false;
      for (int j = 0; j < s->nin; j++)
        if (!tensor_at(g, s->in[j])->anon && dim_in(g, c, s->in[j], k->loop) >= 0) return false;
    }
    if (dim_in(g, c, stmt_at(g, mm)->t, k->loop) >= 0) return false;
    subst[mm] = absorbed >= 0 ? 2 : 1;
  }
  fprintf(f, "  kernel k%d grid [%" PRId64 ", %" PRId64 ", %" PRId64 "] block [128, 1, 1] forloop %" PRId64 " {\n",
          first, k->naxes > 0 ? k->size[0] : 1, k->naxes > 1 ? k->size[1] : 1, k->naxes > 2 ? k->size[2] : 1,
          k->loop >= 0 ? k->range : 1);
  /* input iterators: every tensor read from outside the group, once */
  bool *done = calloc((size_t)g->p->ntensors + 1, sizeof(bool));
  for (int i = 0; i < g->nops; i++) {
    if (!(m >> i & 1) || i == absorbed) continue;
    const AxKStmt *s = stmt_at(g, i);
    for (int j = 0; j < s->nin; j++) {
      int t = s->in[j];
      if (tensor_at(g, t)->anon || done[t] || (g->opof[t] >= 0 && (m >> g->opof[t] & 1)) || inlined(g, m, i, j))
        continue;
      done[t] = true;
      fprintf(f, "    i%d = input %s imap ", t, tensor_at(g, t)->name);
      map(f, g, c, k, t);
      int fd = k->loop >= 0 ? dim_in(g, c, t, k->loop) : -1;
      if (fd >= 0) fprintf(f, " fmap %d\n", fd);
      else fputs(" fmap -\n", f);
    }
  }
  /* an absorbed rms_norm reads its operand, which may come from outside */
  if (absorbed >= 0) {
    int t = stmt_at(g, absorbed)->in[0];
    if (!tensor_at(g, t)->anon && !done[t] && !(g->opof[t] >= 0 && (m >> g->opof[t] & 1))) {
      done[t] = true;
      fprintf(f, "    i%d = input %s imap ", t, tensor_at(g, t)->name);
      map(f, g, c, k, t);
      int fd = dim_in(g, c, t, k->loop);
      if (fd >= 0) fprintf(f, " fmap %d\n", fd);
      else fputs(" fmap -\n", f);
    }
  }
  free(done);
  for (int i = 0; i < g->nops; i++) {
    if (!(m >> i & 1) || i == absorbed) continue;
    const AxKStmt *s = stmt_at(g, i);
    char made[AX_MAXIN][64];   /* the inlined operands' names */
    int nmade = 0, iota[AX_MAXRANK];
    for (int d = 0; d < AX_MAXRANK; d++) iota[d] = -1;
    for (int j = 0; j < s->nin; j++)
      if (inlined(g, m, i, j) && !ix_operand(f, g, c, k, i, j, &nmade, iota, made[j], sizeof made[j]))
        return false;
    fprintf(f, "    v%d = %s(", s->t, ax_op_pname(s->op));
    for (int j = 0; j < s->nin; j++) {
      if (j) fputs(", ", f);
      if (inlined(g, m, i, j)) fputs(made[j], f);
      else if (i == mm && j == 0 && absorbed >= 0) ref(f, g, m, stmt_at(g, absorbed)->in[0], subst);
      else ref(f, g, m, s->in[j], subst);
    }
    attrs(f, s);
    fputs(")\n", f);
    if (i == mm) {
      fprintf(f, "    a%d = accum sum(v%d)\n", s->t, s->t);
      if (absorbed >= 0) {
        const AxKStmt *r = stmt_at(g, absorbed);
        fprintf(f, "    q%d = accum rms(", s->t);
        ref(f, g, m, r->in[0], subst);
        fprintf(f, ", axis = %d)\n    d%d = div(a%d, q%d)\n", r->at.axis, s->t, s->t, s->t);
      }
    }
  }
  for (int i = 0; i < g->nops; i++) {
    if (!(m >> i & 1) || !saved(g, m, i)) continue;
    int t = stmt_at(g, i)->t;
    fprintf(f, "    output %s = ", tensor_at(g, t)->name);
    ref(f, g, m, t, subst);
    fputs(" omap ", f);
    map(f, g, c, k, t);
    fputc('\n', f);
  }
  fputs("  }\n", f);
  return true;
}

/* Group m's statements alone as a μGraph: its outside reads as inputs, its saved tensors as
 * outputs. */
static char *mini(const Pass *g, uint64_t m, const char *body) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  fputs("mugraph greedy_part {\n", f);
  bool *done = calloc((size_t)g->p->ntensors + 1, sizeof(bool));
  for (int i = 0; i < g->nops; i++) {
    if (!(m >> i & 1)) continue;
    const AxKStmt *s = stmt_at(g, i);
    for (int j = 0; j < s->nin; j++) {
      int t = s->in[j];
      const AxKTensor *kt = tensor_at(g, t);
      if (kt->anon || done[t] || (g->opof[t] >= 0 && (m >> g->opof[t] & 1)) || inlined(g, m, i, j)) continue;
      done[t] = true;
      char sh[256];
      fprintf(f, "  input %s : %s%s\n", kt->name, ax_dtype_name(kt->dtype), ax_shape_str(&kt->shape, sh, sizeof sh));
    }
  }
  free(done);
  fputs(body, f);
  fputs("  output ", f);
  bool first = true;
  for (int i = 0; i < g->nops; i++)
    if ((m >> i & 1) && saved(g, m, i)) {
      fprintf(f, "%s%s", first ? "" : ", ", tensor_at(g, stmt_at(g, i)->t)->name);
      first = false;
    }
  fputs("\n}\n", f);
  fclose(f);
  return text;
}

/* Parses, validates and models text; INFINITY when it does not validate or fit. */
static double model(const Pass *g, const char *text, bool kernel) {
  AxArena *a = ax_arena_new();
  AxMugraph *mg = ax_load_from_text(a, NULL, "<greedy>", text, NULL);
  double t = INFINITY;
  if (mg) {
    AxCost c;
    ax_cost_run(a, mg, g->target, &c);
    bool ok = c.fits;
    for (int i = 0; kernel && i < c.nk; i++)
      if (c.k[i].graph_defined && (double)c.k[i].smem_bytes > SMEM_SHARE * (double)g->target->smem_per_block) ok = false;
    if (ok) t = c.time_s;
  }
  ax_arena_free(a);
  return t;
}

/* Power-of-two sizes dividing n (and n itself), ascending; returns the count. */
static int sizes(int64_t n, int64_t *out) {
  int c = 0;
  for (int64_t s = 2; s <= n && s <= 1024 && c < 16; s *= 2)
    if (n % s == 0) out[c++] = s;
  if (n <= 1024 && (c == 0 || out[c - 1] != n) && c < 16) out[c++] = n;
  return c;
}

/* The best kernel for group m (memoized): its text and modelled time (INFINITY: none). */
static const Memo *best(Pass *g, uint64_t m) {
  for (int i = 0; i < g->nmemo; i++)
    if (g->memo[i].mask == m) return &g->memo[i];
  Memo r = {m, INFINITY, NULL};
  if (__builtin_popcountll(m) == 1) {
    int i = __builtin_ctzll(m);
    char *t = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&t, &len);
    predefined(f, g, i);
    fclose(f);
    char *mg = mini(g, m, t);
    r.time_s = model(g, mg, false);
    free(mg);
    r.text = t;
  } else {
    GroupDims c;
    if (classes(g, m, &c)) {
      /* grid classes: in every saved tensor, reduced by nothing; outer dims first */
      int cand[3], nc = 0, sv = -1;
      for (int i = 0; i < g->nops && sv < 0; i++)
        if ((m >> i & 1) && saved(g, m, i)) sv = stmt_at(g, i)->t;
      for (int d = 0; sv >= 0 && d < tensor_at(g, sv)->shape.rank && nc < 3; d++) {
        int root = cls_of(g, &c, sv, d);
        if (root < 0 || c.red[root]) continue;
        bool all = true;
        for (int i = 0; i < g->nops; i++)
          if ((m >> i & 1) && saved(g, m, i) && dim_in(g, &c, stmt_at(g, i)->t, root) < 0) all = false;
        bool dup = false;
        for (int j = 0; j < nc; j++) dup |= cand[j] == root;
        if (all && !dup) cand[nc++] = root;
      }
      /* the for-loop: the contracted class of the group's one matmul */
      int nmm = 0, kcls = -1;
      for (int i = 0; i < g->nops; i++)
        if ((m >> i & 1) && ax_op_spec(stmt_at(g, i)->op)->cls == AX_TC_MATMUL) {
          nmm++;
          kcls = cls_of(g, &c, stmt_at(g, i)->in[0], tensor_at(g, stmt_at(g, i)->in[0])->shape.rank - 1);
        }
      int64_t ranges[4] = {1, 4, 16, 64};
      int nr = nmm == 1 && kcls >= 0 ? 4 : 1;
      int64_t sz[3][16];
      int ns[3] = {1, 1, 1};
      for (int j = 0; j < 3; j++) {
        sz[j][0] = 1;
        if (j < nc) {
          int root = cand[j];
          int64_t full = tensor_at(g, root / AX_MAXRANK)->shape.dim[root % AX_MAXRANK];
          ns[j] = 1 + sizes(full, sz[j] + 1);
        }
      }
      for (int ri = 0; ri < nr; ri++) {
        int64_t R = ranges[ri];
        if (ri > 0) {
          int64_t kfull = tensor_at(g, kcls / AX_MAXRANK)->shape.dim[kcls % AX_MAXRANK];
          if (kfull % R) continue;
        }
        for (int a0 = 0; a0 < ns[0]; a0++)
          for (int a1 = 0; a1 < ns[1]; a1++)
            for (int a2 = 0; a2 < ns[2]; a2++) {
              int64_t s3[3] = {sz[0][a0], sz[1][a1], sz[2][a2]};
              if (s3[0] * s3[1] * s3[2] > 1024) continue;
              LaunchShape k = {0, {0}, {0}, ri > 0 ? kcls : -1, R};
              for (int j = 0; j < nc; j++)
                if (s3[j] > 1) k.cls[k.naxes] = cand[j], k.size[k.naxes++] = s3[j];
              char *body = NULL;
              size_t blen = 0;
              FILE *f = open_memstream(&body, &blen);
              bool ok = kernel_text(f, g, m, &c, &k);
              fclose(f);
              if (ok) {
                char *mg = mini(g, m, body);
                double t = model(g, mg, true);
                free(mg);
                if (t < r.time_s) {
                  free(r.text);
                  r.text = body;
                  body = NULL;
                  r.time_s = t;
                }
              }
              free(body);
            }
      }
    }
    cls_free(&c);
  }
  if (getenv("AXLE_GREEDY_DEBUG"))
    fprintf(stderr, "greedy: group %#" PRIx64 ": %.3f us\n%s", m, r.time_s * 1e6, r.text ? r.text : "");
  if (g->nmemo == g->capmemo) {
    g->capmemo = g->capmemo ? 2 * g->capmemo : 64;
    g->memo = realloc(g->memo, sizeof(Memo) * (size_t)g->capmemo);
  }
  g->memo[g->nmemo++] = r;
  return &g->memo[g->nmemo - 1];
}

/* ---- merging --------------------------------------------------------------------------- */

/* The groups (a bit each) that read what group a computes, directly. */
static uint64_t reads_from(const Pass *g, const uint64_t *grp, int ng, int a) {
  uint64_t u = 0;
  for (int i = 0; i < g->nops; i++)
    if (grp[a] >> i & 1) u |= g->users[i];
  u &= ~grp[a];
  uint64_t gs = 0;
  for (int b = 0; b < ng; b++)
    if (grp[b] & u) gs |= (uint64_t)1 << b;
  return gs;
}

/* Merging groups a and b keeps the kernel graph acyclic: no path from one to the other
 * through a third group. */
static bool acyclic_merge(const Pass *g, const uint64_t *grp, int ng, int a, int b) {
  for (int pass = 0; pass < 2; pass++) {
    int from = pass ? b : a, to = pass ? a : b;
    uint64_t seen = 0, frontier = reads_from(g, grp, ng, from) & ~((uint64_t)1 << to);
    while (frontier) {
      int x = __builtin_ctzll(frontier);
      frontier &= frontier - 1;
      if (seen >> x & 1) continue;
      seen |= (uint64_t)1 << x;
      uint64_t nx = reads_from(g, grp, ng, x);
      if (nx >> to & 1) return false;
      frontier |= nx & ~seen;
    }
  }
  return true;
}

/* The index-value operators of grp whose tensor nothing reads any more: every reader is a
 * fused kernel that makes the value itself, or is dead too. */
static uint64_t dead_values(const Pass *g, const uint64_t *grp, int ng) {
  uint64_t dead = 0, need = 0;   /* need: operators whose tensor is read */
  for (int i = g->nops - 1; i >= 0; i--) {
    int b = 0;
    while (!(grp[b] >> i & 1)) b++;
    if ((g->virt >> i & 1) && grp[b] == (uint64_t)1 << i && !(need >> i & 1) && !g->isout[stmt_at(g, i)->t]) {
      dead |= (uint64_t)1 << i;
      continue;
    }
    const AxKStmt *s = stmt_at(g, i);
    for (int j = 0; j < s->nin; j++)
      if (g->opof[s->in[j]] >= 0 && !inlined(g, grp[b], i, j)) need |= (uint64_t)1 << g->opof[s->in[j]];
  }
  (void)ng;
  return dead;
}

/* Writes the whole graph: inputs, the groups in a topological order (dead index values left
 * out), outputs. */
static char *whole(Pass *g, const uint64_t *grp, int ng) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  fprintf(f, "mugraph %s {\n", g->p->name);
  for (int i = 0; i < g->p->nstmts; i++) {
    const AxKStmt *s = &g->p->stmts[i];
    if (s->kind != AX_KS_INPUT) continue;
    char sh[256];
    fprintf(f, "  input %s : %s%s\n", tensor_at(g, s->t)->name, ax_dtype_name(tensor_at(g, s->t)->dtype),
            ax_shape_str(&tensor_at(g, s->t)->shape, sh, sizeof sh));
  }
  uint64_t ops_done = dead_values(g, grp, ng), emitted = 0;
  for (int b = 0; b < ng; b++)
    if ((grp[b] & ops_done) == grp[b]) emitted |= (uint64_t)1 << b;
  for (int round = 0; round < ng; round++) {
    if (__builtin_popcountll(emitted) == ng) break;
    int pick = -1;
    for (int b = 0; b < ng && pick < 0; b++) {
      if (emitted >> b & 1) continue;
      bool ready = true;
      for (int i = 0; i < g->nops; i++) {
        if (!(grp[b] >> i & 1)) continue;
        const AxKStmt *s = stmt_at(g, i);
        for (int j = 0; j < s->nin; j++) {
          int o = g->opof[s->in[j]];
          if (o >= 0 && !(grp[b] >> o & 1) && !(ops_done >> o & 1)) ready = false;
        }
      }
      if (ready) pick = b;
    }
    if (pick < 0) {   /* a cycle: never built, acyclic_merge refuses it */
      fclose(f);
      free(text);
      return NULL;
    }
    emitted |= (uint64_t)1 << pick;
    ops_done |= grp[pick];
    fputs(best(g, grp[pick])->text, f);
  }
  fputs("  output ", f);
  for (int i = 0; i < g->p->noutputs; i++) fprintf(f, "%s%s", i ? ", " : "", tensor_at(g, g->p->outputs[i])->name);
  fputs("\n}\n", f);
  fclose(f);
  return text;
}

/* Sets up the pass over prog; false when it has fewer than two or more than MAXOPS operators
 * (no floor). On true, free with pass_free. */
static bool pass_init(Pass *g, const AxMugraph *prog, const AxTarget *t) {
  memset(g, 0, sizeof *g);
  g->p = prog;
  g->target = t;
  for (int i = 0; i < prog->nstmts; i++)
    if (prog->stmts[i].kind == AX_KS_OP) {
      if (g->nops == MAXOPS) return false;   /* larger programs get no floor */
      g->op[g->nops++] = i;
    }
  if (g->nops < 2) return false;
  g->opof = malloc(sizeof(int) * (size_t)(prog->ntensors + 1));
  g->isout = calloc((size_t)prog->ntensors + 1, sizeof(bool));
  for (int i = 0; i < prog->ntensors; i++) g->opof[i] = -1;
  for (int i = 0; i < g->nops; i++) g->opof[stmt_at(g, i)->t] = i;
  for (int i = 0; i < prog->noutputs; i++) g->isout[prog->outputs[i]] = true;
  for (int i = 0; i < g->nops; i++) {
    const AxKStmt *s = stmt_at(g, i);
    for (int j = 0; j < s->nin; j++) {
      int o = g->opof[s->in[j]];
      if (o >= 0) g->users[o] |= (uint64_t)1 << i;
    }
  }
  index_values(g);
  return true;
}

static void pass_free(Pass *g) {
  for (int i = 0; i < g->nmemo; i++) free(g->memo[i].text);
  free(g->memo);
  free(g->opof);
  free(g->isout);
  free(g->inl);
}

/* Merges the producer-consumer pair with the largest modelled gain, until none gains;
 * returns the number of groups left in grp. */
static int merge(Pass *g, uint64_t *grp) {
  int ng = g->nops;
  for (int i = 0; i < ng; i++) grp[i] = (uint64_t)1 << i;
  for (;;) {
    int ba = -1, bb = -1;
    double gain = 0;
    for (int a = 0; a < ng; a++) {
      uint64_t rd = reads_from(g, grp, ng, a);
      for (int b = 0; b < ng; b++) {
        if (!(rd >> b & 1)) continue;
        uint64_t m = grp[a] | grp[b];
        if (m & g->virt) continue;   /* an index value is made by its readers (inlined) */
        double ta = best(g, grp[a])->time_s, tb = best(g, grp[b])->time_s;
        double tm = best(g, m)->time_s;
        if (!isfinite(tm) || !isfinite(ta) || !isfinite(tb)) continue;
        double gn = ta + tb - tm;
        if (gn > gain * (1 + 1e-12) && gn > 0 && acyclic_merge(g, grp, ng, a, b)) gain = gn, ba = a, bb = b;
      }
    }
    if (ba < 0) break;
    grp[ba] |= grp[bb];
    for (int b = bb; b + 1 < ng; b++) grp[b] = grp[b + 1];
    ng--;
  }
  return ng;
}

/* The graph of groups grp: its text (owned) when it has a graph-defined kernel and is
 * modelled faster than the program, else NULL; its time and counts through the pointers. */
static char *assemble(Pass *g, const uint64_t *grp, int ng, double *time_s, int *kernels, int *fused_ops) {
  *time_s = 0;
  *kernels = *fused_ops = 0;
  for (int b = 0; b < ng; b++)
    if (__builtin_popcountll(grp[b]) > 1) (*kernels)++, *fused_ops += __builtin_popcountll(grp[b]);
  if (!*kernels) return NULL;
  char *text = whole(g, grp, ng);
  double tw = text ? model(g, text, true) : INFINITY;
  if (!isfinite(tw) || tw >= ax_cost_time(g->p, g->target)) {
    free(text);
    *kernels = *fused_ops = 0;
    return NULL;
  }
  *time_s = tw;
  return text;
}

char *ax_greedy_build(const AxMugraph *prog, const AxTarget *t, double *time_s, int *kernels,
                      int *fused_ops) {
  *time_s = 0;
  *kernels = *fused_ops = 0;
  Pass g;
  if (!pass_init(&g, prog, t)) return NULL;
  uint64_t grp[MAXOPS];
  int ng = merge(&g, grp);
  char *text = assemble(&g, grp, ng, time_s, kernels, fused_ops);
  pass_free(&g);
  return text;
}

/* ---- the check, group by group ----------------------------------------------------------
 *
 * The greedy graph is the program with each fused group's operators replaced by the group's
 * kernel; every other operator is written by predefined() exactly as the program has it.
 * Induction over the dataflow, in a topological order of the groups: if every kernel
 * computes, for all values of its group's inputs, what its group's operators compute from
 * them, then each tensor a kernel saves equals the program's tensor of that name — its
 * inputs are program tensors (inputs, or saved by groups before it, equal by induction),
 * so it receives the values the program's operators receive — and so do the outputs. The
 * same argument makes ax_partition_check_cut (partition.h) sound for cuts. Each group's
 * check draws its inputs as free variables, uniformly over the whole field: a stronger test
 * than the values its producers would give them, never a weaker one. With k groups checked
 * at δ/k each, the union bound keeps the chance that any wrong kernel passes — and so that
 * the graph is wrong — within δ. The checks are of one kernel against a few operators
 * where the whole graph's also runs every matmul that stays a pre-defined kernel: GatedMLP's
 * two 16x4096x4096 matmuls in each of its field tests. */

/* Group m's operators alone (the program's part it replaces), as μGraph text (owned). */
static char *group_program(const Pass *g, uint64_t m) {
  char *body = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&body, &len);
  /* the index values the kernel makes, with the program's statements that make them */
  uint64_t made = 0;
  for (int i = g->nops - 1; i >= 0; i--) {
    if (!(m >> i & 1) && !(made >> i & 1)) continue;
    const AxKStmt *s = stmt_at(g, i);
    for (int j = 0; j < s->nin; j++) {
      int o = g->opof[s->in[j]];
      if (o >= 0 && ((made >> i & 1) || inlined(g, m, i, j))) made |= (uint64_t)1 << o;
    }
  }
  for (int i = 0; i < g->nops; i++)
    if (made >> i & 1) predefined(f, g, i);
  for (int i = 0; i < g->nops; i++)
    if (m >> i & 1) predefined(f, g, i);
  fclose(f);
  char *text = mini(g, m, body);
  free(body);
  return text;
}

/* Checks the fused groups of grp (ng of them in all), each kernel against its own
 * operators, and drops (splits back into pre-defined kernels) those refused. Returns the
 * status: 0 when at least one kernel passed and the graph left is still modelled faster than
 * the program (*text: that graph, owned), 4 as soon as the deadline stops a check (no
 * verdict: the floor is not used), else the first refused group's status; -1 when a group
 * cannot be written as a μGraph of its own (the caller checks the whole graph instead). */
static int check_groups(Pass *g, uint64_t *grp, int ng, const AxSearchOpts *o, AxGreedyResult *r,
                        char **text) {
  *text = NULL;
  int k = 0;
  for (int b = 0; b < ng; b++) k += __builtin_popcountll(grp[b]) > 1;
  AxArena *a = ax_arena_new();
  AxMugraph **progs = calloc((size_t)ng, sizeof *progs);
  char **kerns = calloc((size_t)ng, sizeof *kerns);
  bool whole_check = false;
  for (int b = 0; b < ng && !whole_check; b++) {
    if (__builtin_popcountll(grp[b]) < 2) continue;
    char *pt = group_program(g, grp[b]);
    progs[b] = ax_load_from_text(a, NULL, "<greedy group>", pt, NULL);
    free(pt);
    kerns[b] = mini(g, grp[b], best(g, grp[b])->text);
    AxArena *ka = ax_arena_new();
    whole_check = !progs[b] || !ax_load_from_text(ka, NULL, "<greedy group>", kerns[b], NULL);
    ax_arena_free(ka);
  }
  int st = -1;
  if (!whole_check) {
    AxEquivOpts eo;
    ax_equiv_defaults(&eo);
    AxSearchOpts go = *o;
    go.delta = (o->delta > 0 ? o->delta : eo.delta) / k;   /* the union bound: δ in all */
    int first_bad = 0;
    const char *rh = ax_test_hook("AXLE_TEST_GREEDY_REFUSE");
    int refuse = rh ? atoi(rh) : 0;
    uint64_t out[MAXOPS] = {0};
    int nout = 0;
    for (int b = 0; b < ng; b++) {
      if (!progs[b]) {
        out[nout++] = grp[b];
        continue;
      }
      /* Test hook (axle-test only, base/hooks.h): AXLE_TEST_GREEDY_REFUSE=N reports the N-th
       * group's check (1-based) as refused, so that a test can show the group dropped and
       * the rest of the floor kept (tests/e2e/superopt_greedy.sh). */
      st = refuse == r->groups + 1 ? 1 : ax_search_accept(progs[b], kerns[b], &go);
      if (getenv("AXLE_GREEDY_DEBUG")) fprintf(stderr, "greedy: group %#" PRIx64 " check %d\n", grp[b], st);
      r->groups++;
      if (st == 0) {
        out[nout++] = grp[b];
        continue;
      }
      if (st == 4) break;
      if (!first_bad) first_bad = st;
      r->dropped++;
      for (int i = 0; i < g->nops; i++)   /* back to the program's own operators */
        if (grp[b] >> i & 1) out[nout++] = (uint64_t)1 << i;
    }
    if (st != 4) {
      *text = assemble(g, out, nout, &r->time_s, &r->kernels, &r->fused_ops);
      st = *text ? 0 : first_bad;
    }
  }
  for (int b = 0; b < ng; b++) free(kerns[b]);
  free(kerns);
  free(progs);
  ax_arena_free(a);
  return st;
}

bool ax_greedy_floor(const AxMugraph *prog, const AxSearchOpts *o, AxGreedyResult *r) {
  memset(r, 0, sizeof *r);
  r->check = -1;
  r->naive_s = ax_cost_time(prog, o->target);
  double t0 = ax_clock_s();
  Pass g;
  if (!pass_init(&g, prog, o->target)) {
    r->build_s = ax_clock_s() - t0;
    return false;
  }
  uint64_t grp[MAXOPS];
  int ng = merge(&g, grp);
  char *text = assemble(&g, grp, ng, &r->time_s, &r->kernels, &r->fused_ops);
  r->build_s = ax_clock_s() - t0;
  if (text) {
    double t1 = ax_clock_s();
    char *checked = NULL;
    double built_s = r->time_s;
    int kernels = r->kernels, fused = r->fused_ops;
    r->check = ax_test_hook("AXLE_TEST_GREEDY_WHOLE") ? -1 : check_groups(&g, grp, ng, o, r, &checked);
    if (r->check < 0) {   /* a group that is no μGraph of its own: the whole graph at once */
      r->groups = r->dropped = 0;
      r->check = ax_search_accept(prog, text, o);
      if (r->check == 0) checked = text, text = NULL;
    }
    r->check_s = ax_clock_s() - t1;
    r->text = checked;
    if (!checked) r->time_s = built_s, r->kernels = kernels, r->fused_ops = fused;   /* what was refused */
    free(text);
  }
  pass_free(&g);
  return r->text != NULL;
}

void ax_greedy_result_free(AxGreedyResult *r) {
  free(r->text);
  r->text = NULL;
}
