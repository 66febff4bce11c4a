/* print.c — an HLO module from a program described value by value (print.h).
 *
 * What each kind becomes (T: the element type, S: the value's shape, layout row-major):
 *   PARAM      %v = T[S] parameter(k)
 *   CONST      %v = T[] constant(lit)                  (broadcast where an operand needs it)
 *   EW         %v = T[S] opcode(a', b')                a', b': the operands made shape S
 *   SUM        %v.zero = T[] constant(0)                (-inf for maximum, inf for minimum)
 *              %v = T[S without axis] reduce(x, %v.zero), dimensions={axis}, to_apply=%R_T
 *                                      (R: add, maximum or minimum)
 *              %v.kept = T[S] reshape(%v)              (the kept size-1 axis)
 *   DOT        %v = T[S] dot(a', b'), lhs_batch_dims={0..r-3}, lhs_contracting_dims={r-1},
 *                                      rhs_batch_dims={0..r-3}, rhs_contracting_dims={r-2}
 *              ([..., m, k] x [k, n]: no batch dims, lhs_contracting_dims={r-1},
 *               rhs_contracting_dims={0}; the lhs's leading dims are free dims)
 *   RESHAPE    %v = T[S] reshape(x)
 *   BROADCAST  x made shape S (below), the last instruction named %v
 *   CONCAT     %v = T[S] concatenate(a, b, ...), dimensions={axis}
 *   TRANSPOSE  %v = T[S] transpose(x), dimensions={perm}
 *   COMPARE    %v = pred[S] compare(a', b'), direction=D;  %v.f32 = T[S] convert(%v)
 *   SELECT     %v = T[S] select(m, a, b)     m: the mask's pred twin, or compare(x, 0) NE
 *   IOTA       %v = T[S] iota(), iota_dimension=axis
 *   SLICE      %v = T[S] slice(x), slice={[lo:hi:step], ...}   (":step" left out when 1)
 *   PAD        %v = T[S] pad(x, c), padding=lo_hi[_step]x...   c: the value as a scalar
 *   REVERSE    %v = T[S] reverse(x), dimensions={...}
 * A reshape or broadcast of a mask is printed in pred, then converted as COMPARE's is.
 * Making x shape S (numpy broadcasting, x right-aligned): the dims of x equal to S's at
 * their position are kept, the others (size 1, or missing in front) are new. When x has a
 * size-1 dim that grows, `reshape` drops it first; then `broadcast(x), dimensions={kept
 * positions}`. A scalar constant is `broadcast(c), dimensions={}`. This is the form
 * docs/hlo.md says the importer reads back without a let of its own. */
#include "hlo/print.h"

#include <stdlib.h>
#include <string.h>

typedef struct Printer {
  FILE *out;
  const AxHloPProg *p;
  const char **ref;         /* per value: the instruction holding it with its own shape */
  const char **pred;        /* per value: its pred twin when it is a mask (a comparison, a
                               reshape or broadcast of one), else NULL */
  const char **scalar;      /* per value: a T[] instruction of its one element (a scalar
                               parameter), else NULL */
  char **owned;             /* names made here, freed at the end */
  int nowned, capowned;
  int fresh;
} Printer;

static const char *keep(Printer *pr, char *s) {
  if (pr->nowned == pr->capowned) {
    pr->capowned = pr->capowned ? pr->capowned * 2 : 16;
    pr->owned = ax_xrealloc(pr->owned, (size_t)pr->capowned * sizeof *pr->owned);
  }
  pr->owned[pr->nowned++] = s;
  return s;
}

static const char *fmt_name(Printer *pr, const char *base, const char *suffix) {
  size_t n = strlen(base) + strlen(suffix) + 16;
  char *s = ax_xmalloc(n);
  snprintf(s, n, "%s.%s%d", base, suffix, pr->fresh++);
  return keep(pr, s);
}

static void shape(FILE *out, AxHloType t, int rank, const int64_t *dims) {
  fprintf(out, "%s[", ax_hlo_type_name(t));
  for (int i = 0; i < rank; i++) fprintf(out, "%s%lld", i ? "," : "", (long long)dims[i]);
  fputc(']', out);
  if (rank > 0) {
    fputc('{', out);
    for (int i = rank - 1; i >= 0; i--) fprintf(out, "%d%s", i, i ? "," : "");
    fputc('}', out);
  }
}

static void dimlist(FILE *out, const char *attr, int n, const int *d) {
  fprintf(out, ", %s={", attr);
  for (int i = 0; i < n; i++) fprintf(out, "%s%d", i ? "," : "", d[i]);
  fputc('}', out);
}

/* The name of an instruction holding value v (its pred twin when `mask`) broadcast
 * numpy-style to (rank, dims); the value's own when the shapes are equal. `base` names the
 * helpers. */
static const char *shaped(Printer *pr, int v, int rank, const int64_t *dims, const char *base, bool mask) {
  const AxHloPVal *x = &pr->p->vals[v];
  const char *own = mask ? pr->pred[v] : pr->ref[v];
  AxHloType xt = mask ? AX_HLO_PRED : x->type;
  if (x->rank == rank && memcmp(x->dims, dims, (size_t)rank * sizeof *dims) == 0) return own;
  if (!mask && pr->scalar[v]) {   /* a scalar parameter: its own T[], broadcast */
    const char *b = fmt_name(pr, base, "b");
    fprintf(pr->out, "  %%%s = ", b);
    shape(pr->out, xt, rank, dims);
    fprintf(pr->out, " broadcast(%%%s), dimensions={}\n", pr->scalar[v]);
    return b;
  }
  AX_ASSERT(x->rank <= rank);
  int kept[AX_HLO_PMAXRANK], nk = 0;
  int64_t kdims[AX_HLO_PMAXRANK];
  int off = rank - x->rank;
  for (int i = 0; i < x->rank; i++) {
    if (x->dims[i] == dims[off + i]) {
      kdims[nk] = x->dims[i];
      kept[nk++] = off + i;
    } else {
      AX_ASSERT(x->dims[i] == 1);
    }
  }
  const char *src = own;
  if (nk != x->rank) {
    const char *r = fmt_name(pr, base, "r");
    fprintf(pr->out, "  %%%s = ", r);
    shape(pr->out, xt, nk, kdims);
    fprintf(pr->out, " reshape(%%%s)\n", src);
    src = r;
  }
  const char *b = fmt_name(pr, base, "b");
  fprintf(pr->out, "  %%%s = ", b);
  shape(pr->out, xt, rank, dims);
  fprintf(pr->out, " broadcast(%%%s)", src);
  dimlist(pr->out, "dimensions", nk, kept);
  fputc('\n', pr->out);
  return b;
}

static const char *as_shape(Printer *pr, int v, int rank, const int64_t *dims, const char *base) {
  return shaped(pr, v, rank, dims, base, false);
}

/* Value v just printed in pred under its own name: its f32 twin `NAME.f32`, the reference
 * everything but a select's mask uses (import reads the convert as the same tensor). */
static void masked(Printer *pr, int i) {
  const AxHloPVal *v = &pr->p->vals[i];
  size_t n = strlen(v->name) + 8;
  char *f = ax_xmalloc(n);
  snprintf(f, n, "%s.f32", v->name);
  keep(pr, f);
  fprintf(pr->out, "  %%%s = ", f);
  shape(pr->out, v->type, v->rank, v->dims);
  fprintf(pr->out, " convert(%%%s)\n", v->name);
  pr->pred[i] = v->name;
  pr->ref[i] = f;
}

static void pred_head(Printer *pr, const AxHloPVal *v) {
  fprintf(pr->out, "  %%%s = ", v->name);
  shape(pr->out, AX_HLO_PRED, v->rank, v->dims);
  fputc(' ', pr->out);
}

/* "[s:l]" or "[s:l:p]" per dim, as XLA writes slice={...} */
static void slice_attr(FILE *out, const AxHloPVal *v) {
  fputs(", slice={", out);
  for (int k = 0; k < v->rank; k++) {
    fprintf(out, "%s[%lld:%lld", k ? ", " : "", (long long)v->lo[k], (long long)v->hi[k]);
    if (v->step[k] != 1) fprintf(out, ":%lld", (long long)v->step[k]);
    fputc(']', out);
  }
  fputc('}', out);
}

/* low_high per dim, with _interior on every dim when some dim has one (XLA's form) */
static void padding_attr(FILE *out, const AxHloPVal *v) {
  bool interior = false;
  for (int k = 0; k < v->rank; k++) interior |= v->step[k] != 0;
  fputs(", padding=", out);
  for (int k = 0; k < v->rank; k++) {
    fprintf(out, "%s%lld_%lld", k ? "x" : "", (long long)v->lo[k], (long long)v->hi[k]);
    if (interior) fprintf(out, "_%lld", (long long)v->step[k]);
  }
}

static void head(Printer *pr, const char *name, const AxHloPVal *v) {
  fprintf(pr->out, "  %%%s = ", name);
  shape(pr->out, v->type, v->rank, v->dims);
  fputc(' ', pr->out);
}

static void value(Printer *pr, int i) {
  const AxHloPVal *v = &pr->p->vals[i];
  FILE *out = pr->out;
  const char *ops[AX_HLO_PMAXIN];
  pr->ref[i] = v->name;
  switch (v->kind) {
  case AX_HP_PARAM:
    if (v->scalar) {   /* T[] as the module had it; its [1] for what needs the program's shape */
      AX_ASSERT(v->rank == 1 && v->dims[0] == 1);
      fprintf(out, "  %%%s = %s[] parameter(%d)\n", v->name, ax_hlo_type_name(v->type), v->param);
      pr->scalar[i] = v->name;
      pr->ref[i] = fmt_name(pr, v->name, "held");
      head(pr, pr->ref[i], v);
      fprintf(out, "reshape(%%%s)\n", v->name);
      return;
    }
    head(pr, v->name, v);
    fprintf(out, "parameter(%d)\n", v->param);
    return;
  case AX_HP_CONST:
    AX_ASSERT(v->rank == 0);
    head(pr, v->name, v);
    fprintf(out, "constant(%s)\n", v->literal);
    return;
  case AX_HP_EW:
    if (!strcmp(v->opcode, "multiply") && v->nin == 2 && pr->pred[v->in[0]] && pr->pred[v->in[1]]) {
      /* a product of two masks is their `and` (the importer reads `and` of masks as this
       * product), in pred for a select to use */
      for (int k = 0; k < 2; k++) ops[k] = shaped(pr, v->in[k], v->rank, v->dims, v->name, true);
      pred_head(pr, v);
      fprintf(out, "and(%%%s, %%%s)\n", ops[0], ops[1]);
      masked(pr, i);
      return;
    }
    for (int k = 0; k < v->nin; k++) ops[k] = as_shape(pr, v->in[k], v->rank, v->dims, v->name);
    head(pr, v->name, v);
    fprintf(out, "%s(", v->opcode);
    for (int k = 0; k < v->nin; k++) fprintf(out, "%s%%%s", k ? ", " : "", ops[k]);
    fputs(")\n", out);
    return;
  case AX_HP_SUM: {
    const AxHloPVal *x = &pr->p->vals[v->in[0]];
    const char *zero = fmt_name(pr, v->name, "zero");
    const char *by = v->opcode ? v->opcode : "add";
    /* the reducer's identity: XLA writes a max-reduction's init as -inf */
    const char *init = !strcmp(by, "maximum") ? "-inf" : !strcmp(by, "minimum") ? "inf" : "0";
    fprintf(out, "  %%%s = %s[] constant(%s)\n", zero, ax_hlo_type_name(v->type), init);
    int64_t rd[AX_HLO_PMAXRANK];
    int nr = 0;
    for (int d = 0; d < x->rank; d++)
      if (d != v->axis) rd[nr++] = x->dims[d];
    fprintf(out, "  %%%s = ", v->name);
    shape(out, v->type, nr, rd);
    fprintf(out, " reduce(%%%s, %%%s), dimensions={%d}, to_apply=%%%s_%s\n", pr->ref[v->in[0]], zero,
            v->axis, by, ax_hlo_type_name(v->type));
    const char *k = fmt_name(pr, v->name, "kept");
    head(pr, k, v);
    fprintf(out, "reshape(%%%s)\n", v->name);
    pr->ref[i] = k;
    return;
  }
  case AX_HP_DOT: {
    int r = v->rank;
    const AxHloPVal *a = &pr->p->vals[v->in[0]], *b = &pr->p->vals[v->in[1]];
    if (r > 2 && a->rank == r && b->rank == 2) {
      /* [..., m, k] x [k, n]: the lhs's leading dims are free dims of a dot without batch
       * dims, whose result XLA orders [..., m, n] as matmul does; no broadcast of the rhs
       * (and the importer reads it back as the same matmul) */
      head(pr, v->name, v);
      fprintf(out, "dot(%%%s, %%%s), lhs_contracting_dims={%d}, rhs_contracting_dims={0}\n", pr->ref[v->in[0]],
              pr->ref[v->in[1]], r - 1);
      return;
    }
    /* operands broadcast to the batch dims of the result (equal ones: no instruction) */
    for (int k = 0; k < 2; k++) {
      const AxHloPVal *x = &pr->p->vals[v->in[k]];
      int64_t d[AX_HLO_PMAXRANK];
      memcpy(d, v->dims, (size_t)r * sizeof *d);
      d[r - 2] = k == 0 ? v->dims[r - 2] : x->dims[x->rank - 2];
      d[r - 1] = k == 0 ? x->dims[x->rank - 1] : v->dims[r - 1];
      ops[k] = as_shape(pr, v->in[k], r, d, v->name);
    }
    int batch[AX_HLO_PMAXRANK];
    for (int d = 0; d < r - 2; d++) batch[d] = d;
    head(pr, v->name, v);
    fprintf(out, "dot(%%%s, %%%s)", ops[0], ops[1]);
    if (r > 2) dimlist(out, "lhs_batch_dims", r - 2, batch);
    fprintf(out, ", lhs_contracting_dims={%d}", r - 1);
    if (r > 2) dimlist(out, "rhs_batch_dims", r - 2, batch);
    fprintf(out, ", rhs_contracting_dims={%d}\n", r - 2);
    return;
  }
  case AX_HP_RESHAPE:
    if (pr->pred[v->in[0]]) {   /* a mask moved: moved in pred */
      pred_head(pr, v);
      fprintf(out, "reshape(%%%s)\n", pr->pred[v->in[0]]);
      masked(pr, i);
      return;
    }
    head(pr, v->name, v);
    fprintf(out, "reshape(%%%s)\n", pr->ref[v->in[0]]);
    return;
  case AX_HP_BROADCAST: {
    if (pr->pred[v->in[0]]) {
      const char *b = shaped(pr, v->in[0], v->rank, v->dims, v->name, true);
      pred_head(pr, v);
      fprintf(out, "copy(%%%s)\n", b);
      masked(pr, i);
      return;
    }
    const char *b = as_shape(pr, v->in[0], v->rank, v->dims, v->name);
    /* the value's own name on its last instruction: a copy when nothing was needed */
    head(pr, v->name, v);
    fprintf(out, "copy(%%%s)\n", b);
    return;
  }
  case AX_HP_TRANSPOSE:
    head(pr, v->name, v);
    fprintf(out, "transpose(%%%s)", pr->ref[v->in[0]]);
    dimlist(out, "dimensions", v->rank, v->perm);
    fputc('\n', out);
    return;
  case AX_HP_COMPARE:
    for (int k = 0; k < 2; k++) ops[k] = as_shape(pr, v->in[k], v->rank, v->dims, v->name);
    pred_head(pr, v);
    fprintf(out, "compare(%%%s, %%%s), direction=%s\n", ops[0], ops[1], v->direction);
    masked(pr, i);
    return;
  case AX_HP_SELECT: {
    const char *m = pr->pred[v->in[0]];
    if (!m) {   /* a mask of data: not 0 */
      const char *z = fmt_name(pr, v->name, "zero"), *ne = fmt_name(pr, v->name, "mask");
      const AxHloPVal *x = &pr->p->vals[v->in[0]];
      fprintf(out, "  %%%s = %s[] constant(0)\n", z, ax_hlo_type_name(x->type));
      const char *zb = fmt_name(pr, v->name, "b");
      fprintf(out, "  %%%s = ", zb);
      shape(out, x->type, v->rank, v->dims);
      fprintf(out, " broadcast(%%%s), dimensions={}\n", z);
      fprintf(out, "  %%%s = ", ne);
      shape(out, AX_HLO_PRED, v->rank, v->dims);
      fprintf(out, " compare(%%%s, %%%s), direction=NE\n", pr->ref[v->in[0]], zb);
      m = ne;
    }
    head(pr, v->name, v);
    fprintf(out, "select(%%%s, %%%s, %%%s)\n", m, pr->ref[v->in[1]], pr->ref[v->in[2]]);
    return;
  }
  case AX_HP_IOTA:
    head(pr, v->name, v);
    fprintf(out, "iota(), iota_dimension=%d\n", v->axis);
    return;
  case AX_HP_SLICE:
    head(pr, v->name, v);
    fprintf(out, "slice(%%%s)", pr->ref[v->in[0]]);
    slice_attr(out, v);
    fputc('\n', out);
    return;
  case AX_HP_PAD: {
    const AxHloPVal *x = &pr->p->vals[v->in[1]];
    const char *pv = pr->ref[v->in[1]];
    if (x->rank > 0) {   /* one element: HLO's padding value is a scalar */
      const char *r = fmt_name(pr, v->name, "value");
      fprintf(out, "  %%%s = %s[] reshape(%%%s)\n", r, ax_hlo_type_name(x->type), pv);
      pv = r;
    }
    head(pr, v->name, v);
    fprintf(out, "pad(%%%s, %%%s)", pr->ref[v->in[0]], pv);
    padding_attr(out, v);
    fputc('\n', out);
    return;
  }
  case AX_HP_REVERSE:
    head(pr, v->name, v);
    fprintf(out, "reverse(%%%s)", pr->ref[v->in[0]]);
    dimlist(out, "dimensions", v->nperm, v->perm);
    fputc('\n', out);
    return;
  case AX_HP_CONCAT:
    head(pr, v->name, v);
    fputs("concatenate(", out);
    for (int k = 0; k < v->nin; k++) fprintf(out, "%s%%%s", k ? ", " : "", pr->ref[v->in[k]]);
    fprintf(out, "), dimensions={%d}\n", v->axis);
    return;
  }
}

/* Output k's shape as the ROOT has it: T[] for a scalar held as [1]. */
static void out_shape(FILE *out, const AxHloPProg *p, int k) {
  const AxHloPVal *v = &p->vals[p->outs[k]];
  shape(out, v->type, p->out_scalar && p->out_scalar[k] ? 0 : v->rank, v->dims);
}

static void release(Printer *pr) {
  for (int i = 0; i < pr->nowned; i++) free(pr->owned[i]);
  free(pr->owned);
  free(pr->ref);
  free(pr->pred);
  free(pr->scalar);
}

void ax_hlo_print(FILE *out, const AxHloPProg *p) {
  Printer pr = {.p = p};
  pr.ref = ax_xcalloc((size_t)p->nvals + 1, sizeof *pr.ref);
  pr.pred = ax_xcalloc((size_t)p->nvals + 1, sizeof *pr.pred);
  pr.scalar = ax_xcalloc((size_t)p->nvals + 1, sizeof *pr.scalar);
  AX_ASSERT(p->nouts > 0);
  fprintf(out, "HloModule %s, entry_computation_layout={(", p->name);
  int np = 0;
  for (int i = 0; i < p->nvals; i++) {
    const AxHloPVal *v = &p->vals[i];
    if (v->kind != AX_HP_PARAM) continue;
    if (np++) fputs(", ", out);
    shape(out, v->type, v->scalar ? 0 : v->rank, v->dims);
  }
  fputs(")->", out);
  if (p->nouts > 1) fputc('(', out);
  for (int k = 0; k < p->nouts; k++) {
    if (k) fputs(", ", out);
    out_shape(out, p, k);
  }
  if (p->nouts > 1) fputc(')', out);
  fputs("}\n\n", out);
  /* one reducer computation per reducer and element type the reductions use */
  static const char *const reducers[] = {"add", "maximum", "minimum"};
  bool used[3][AX_HLO_TUPLE + 1] = {{0}};
  for (int i = 0; i < p->nvals; i++) {
    const AxHloPVal *v = &p->vals[i];
    if (v->kind != AX_HP_SUM) continue;
    int r = 0;
    while (r < 2 && v->opcode && strcmp(v->opcode, reducers[r])) r++;
    if (used[r][v->type]) continue;
    used[r][v->type] = true;
    const char *t = ax_hlo_type_name(v->type), *by = reducers[r];
    fprintf(out, "%%%s_%s (x: %s[], y: %s[]) -> %s[] {\n  %%x = %s[] parameter(0)\n"
                 "  %%y = %s[] parameter(1)\n  ROOT %%r = %s[] %s(%%x, %%y)\n}\n\n",
            by, t, t, t, t, t, t, t, by);
  }
  fputs("ENTRY %main {\n", out);
  /* the body into a buffer: with one output, ROOT goes on its instruction's line */
  char *body = NULL;
  size_t blen = 0;
  pr.out = open_memstream(&body, &blen);
  for (int i = 0; i < p->nvals; i++) value(&pr, i);
  /* the outputs' instructions: a scalar output's T[] reshape of its [1] */
  const char **oref = ax_xcalloc((size_t)p->nouts + 1, sizeof *oref);
  for (int k = 0; k < p->nouts; k++) {
    const AxHloPVal *v = &p->vals[p->outs[k]];
    oref[k] = pr.ref[p->outs[k]];
    if (!p->out_scalar || !p->out_scalar[k]) continue;
    AX_ASSERT(v->rank == 1 && v->dims[0] == 1);
    const char *sc = fmt_name(&pr, v->name, "scalar");
    fprintf(pr.out, "  %%%s = %s[] reshape(%%%s)\n", sc, ax_hlo_type_name(v->type), oref[k]);
    oref[k] = sc;
  }
  fclose(pr.out);
  if (p->nouts == 1) {
    const char *ref = oref[0];
    size_t last = blen ? blen - 1 : 0;
    while (last > 0 && body[last - 1] != '\n') last--;
    size_t rl = strlen(ref);
    if (strncmp(body + last, "  %", 3) == 0 && strncmp(body + last + 3, ref, rl) == 0 &&
        strncmp(body + last + 3 + rl, " = ", 3) == 0) {
      fprintf(out, "%.*s  ROOT %s}\n", (int)last, body, body + last + 2);
    } else {
      fputs(body, out);
      fprintf(out, "  ROOT %%%s.out = ", ref);
      out_shape(out, p, 0);
      fprintf(out, " copy(%%%s)\n}\n", ref);
    }
    free(body);
    free(oref);
    release(&pr);
    return;
  }
  fputs(body, out);
  free(body);
  /* the ROOT: a tuple of the outputs */
  fputs("  ROOT %outputs = (", out);
  for (int k = 0; k < p->nouts; k++) {
    if (k) fputs(", ", out);
    out_shape(out, p, k);
  }
  fputs(") tuple(", out);
  for (int k = 0; k < p->nouts; k++) fprintf(out, "%s%%%s", k ? ", " : "", oref[k]);
  fputs(")\n}\n", out);
  free(oref);
  release(&pr);
}
