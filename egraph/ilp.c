/* ilp.c — exact DAG extraction with GLPK (ilp.h). All GLPK calls are in this file; without
 * GLPK (AXLE_HAVE_GLPK unset by CMake) only the stub at the end is compiled. */
#include "egraph/ilp.h"

#include <math.h>
#include <string.h>

const char *ax_eg_ilp_status_name(AxEgIlpStatus s) {
  static const char *const names[] = {"optimal", "timeout", "no finite term", "failed", "unavailable"};   /* ORDER AxEgIlpStatus */
  return names[s];
}

#ifdef AXLE_HAVE_GLPK
#include <glpk.h>

bool ax_eg_ilp_built(void) { return true; }

/* A growable triplet list for glp_load_matrix (1-based, entry 0 unused). */
typedef struct Mat {
  int *ia, *ja;
  double *ar;
  int n, cap;
} Mat;

static void entry(Mat *m, int row, int col, double v) {
  if (m->n + 1 >= m->cap) {
    m->cap = m->cap ? m->cap * 2 : 256;
    m->ia = ax_xrealloc(m->ia, (size_t)m->cap * sizeof *m->ia);
    m->ja = ax_xrealloc(m->ja, (size_t)m->cap * sizeof *m->ja);
    m->ar = ax_xrealloc(m->ar, (size_t)m->cap * sizeof *m->ar);
  }
  m->n++;
  m->ia[m->n] = row, m->ja[m->n] = col, m->ar[m->n] = v;
}

AxEgIlpStatus ax_eg_extract_ilp(AxEgraph *g, AxEgId root, AxEgCost *cost, void *ctx,
                                double time_limit_s, AxArena *a, AxEgTerm *t, double *total,
                                size_t *nvars, size_t *nrows) {
  AX_ASSERT(ax_eg_is_clean(g));
  *t = (AxEgTerm){0};
  *total = INFINITY;
  root = ax_eg_find(g, root);
  size_t ids = ax_eg_nids(g);
  /* the classes reachable from the root (through e-nodes of finite cost), numbered */
  int *cidx = ax_xmalloc((ids + 1) * sizeof *cidx);
  for (size_t i = 0; i < ids; i++) cidx[i] = -1;
  AxEgId *cls = ax_xmalloc((ids + 1) * sizeof *cls);
  int ncls = 0;
  cidx[root] = ncls;
  cls[ncls++] = root;
  const AxEgNode **nodes = NULL;
  int *ncls_of = NULL;            /* per e-node: its class's number */
  double *ncost = NULL;
  int nn = 0, capn = 0;
  for (int q = 0; q < ncls; q++) {
    AxEgId c = cls[q];
    size_t k = ax_eg_class_size(g, c);
    for (size_t i = 0; i < k; i++) {
      const AxEgNode *n = ax_eg_class_node(g, c, i);
      double s = cost(ctx, n);
      AX_ASSERT(s > 0);
      if (!isfinite(s)) continue;
      bool self = false;
      for (uint32_t j = 0; j < n->nkids; j++) self |= n->kids[j] == c;
      if (self) continue;          /* never part of a finite term */
      if (nn == capn) {
        capn = capn ? capn * 2 : 64;
        nodes = ax_xrealloc(nodes, (size_t)capn * sizeof *nodes);
        ncls_of = ax_xrealloc(ncls_of, (size_t)capn * sizeof *ncls_of);
        ncost = ax_xrealloc(ncost, (size_t)capn * sizeof *ncost);
      }
      nodes[nn] = n, ncls_of[nn] = q, ncost[nn] = s;
      nn++;
      for (uint32_t j = 0; j < n->nkids; j++)
        if (cidx[n->kids[j]] < 0) {
          cidx[n->kids[j]] = ncls;
          cls[ncls++] = n->kids[j];
        }
    }
  }
  /* columns: x (1..nn), y (nn+1..nn+ncls), t (nn+ncls+1..nn+2ncls) */
  glp_term_out(GLP_OFF);
  glp_prob *lp = glp_create_prob();
  glp_set_obj_dir(lp, GLP_MIN);
  int X = 0, Y = nn, T = nn + ncls;
  double M = ncls;
  glp_add_cols(lp, nn + 2 * ncls);
  for (int j = 1; j <= nn; j++) {
    glp_set_col_kind(lp, X + j, GLP_BV);
    glp_set_obj_coef(lp, X + j, ncost[j - 1]);
  }
  for (int q = 1; q <= ncls; q++) {
    glp_set_col_kind(lp, Y + q, GLP_BV);
    glp_set_col_bnds(lp, T + q, GLP_DB, 0, M - 1 > 0 ? M - 1 : 1);
  }
  glp_set_col_bnds(lp, Y + 1, GLP_FX, 1, 1);      /* the root (class number 0) */
  Mat m = {0};
  int row = glp_add_rows(lp, ncls);               /* one e-node per chosen class */
  for (int q = 0; q < ncls; q++) {
    glp_set_row_bnds(lp, row + q, GLP_FX, 0, 0);
    entry(&m, row + q, Y + q + 1, -1);
  }
  for (int j = 0; j < nn; j++) entry(&m, row + ncls_of[j], X + j + 1, 1);
  for (int j = 0; j < nn; j++) {
    const AxEgNode *n = nodes[j];
    for (uint32_t k = 0; k < n->nkids; k++) {
      bool dup = false;
      for (uint32_t k2 = 0; k2 < k; k2++) dup |= n->kids[k2] == n->kids[k];
      if (dup) continue;
      int kq = cidx[n->kids[k]];
      int r = glp_add_rows(lp, 2);
      glp_set_row_bnds(lp, r, GLP_UP, 0, 0);       /* x_n - y_k <= 0 */
      entry(&m, r, X + j + 1, 1);
      entry(&m, r, Y + kq + 1, -1);
      glp_set_row_bnds(lp, r + 1, GLP_LO, 1 - M, 0);  /* t_c - t_k - M x_n >= 1 - M */
      entry(&m, r + 1, T + ncls_of[j] + 1, 1);
      entry(&m, r + 1, T + kq + 1, -1);
      entry(&m, r + 1, X + j + 1, -M);
    }
  }
  glp_load_matrix(lp, m.n, m.ia, m.ja, m.ar);
  if (nvars) *nvars = (size_t)(nn + 2 * ncls);
  if (nrows) *nrows = (size_t)glp_get_num_rows(lp);
  glp_iocp parm;
  glp_init_iocp(&parm);
  parm.presolve = GLP_ON;
  parm.msg_lev = GLP_MSG_OFF;
  double ms = time_limit_s * 1000;
  parm.tm_lim = ms < 1 ? 1 : ms > 1e9 ? 1000000000 : (int)ms;
  int ret = glp_intopt(lp, &parm);
  int st = glp_mip_status(lp);
  AxEgIlpStatus status;
  if (ret == 0 && st == GLP_OPT) status = AX_EG_ILP_OPTIMAL;
  else if (ret == GLP_ETMLIM) status = AX_EG_ILP_TIMEOUT;
  else if (ret == GLP_ENOPFS || ret == GLP_ENODFS || st == GLP_NOFEAS) status = AX_EG_ILP_NO_TERM;
  else status = AX_EG_ILP_FAILED;
  if (status == AX_EG_ILP_OPTIMAL) {
    const AxEgNode **best = ax_xcalloc(ids + 1, sizeof *best);
    for (int j = 0; j < nn; j++)
      if (glp_mip_col_val(lp, X + j + 1) > 0.5) best[cls[ncls_of[j]]] = nodes[j];
    if (ax_eg_term_of_choice(g, best, root, a, t)) {
      /* the DAG's cost: at the optimum, with positive costs, every chosen e-node is in
       * the term, each once */
      *total = glp_mip_obj_val(lp);
    } else {
      status = AX_EG_ILP_FAILED;
    }
    free(best);
  }
  glp_delete_prob(lp);
  free(m.ia);
  free(m.ja);
  free(m.ar);
  free(nodes);
  free(ncls_of);
  free(ncost);
  free(cls);
  free(cidx);
  return status;
}

#else

bool ax_eg_ilp_built(void) { return false; }

AxEgIlpStatus ax_eg_extract_ilp(AxEgraph *g, AxEgId root, AxEgCost *cost, void *ctx,
                                double time_limit_s, AxArena *a, AxEgTerm *t, double *total,
                                size_t *nvars, size_t *nrows) {
  (void)g, (void)root, (void)cost, (void)ctx, (void)time_limit_s, (void)a;
  *t = (AxEgTerm){0};
  *total = INFINITY;
  if (nvars) *nvars = 0;
  if (nrows) *nrows = 0;
  return AX_EG_ILP_UNAVAILABLE;
}

#endif
