/* query.c — models of watched terms and the small shared helpers of query.h. */
#include "smt/query.h"

#include <stdio.h>

enum { SLOT_EMPTY, SLOT_BOOL, SLOT_NUM };

typedef struct Slot {
  AxSort sort;
  uint8_t state;   /* SLOT_* */
  bool b;
  mpq_t q;         /* initialised in every slot */
} Slot;

struct AxModel {
  size_t n;
  Slot *slots;
};

AxModel *ax_model_new(const AxTerm *const *watch, size_t n) {
  AxModel *m = ax_xmalloc(sizeof *m);
  m->n = n;
  m->slots = ax_xcalloc(n, sizeof *m->slots);
  for (size_t i = 0; i < n; i++) {
    m->slots[i].sort = ax_term_sort(watch[i]);
    mpq_init(m->slots[i].q);
  }
  return m;
}

void ax_model_free(AxModel *m) {
  if (!m) return;
  for (size_t i = 0; i < m->n; i++) mpq_clear(m->slots[i].q);
  free(m->slots);
  free(m);
}

size_t ax_model_size(const AxModel *m) { return m->n; }

AxSort ax_model_sort(const AxModel *m, size_t i) {
  AX_ASSERT(i < m->n);
  return m->slots[i].sort;
}

bool ax_model_set_bool(AxModel *m, size_t i, bool v) {
  AX_ASSERT(i < m->n);
  if (m->slots[i].sort != AX_SORT_BOOL) return false;
  m->slots[i].state = SLOT_BOOL;
  m->slots[i].b = v;
  return true;
}

bool ax_model_set_rational(AxModel *m, size_t i, const mpq_t v) {
  AX_ASSERT(i < m->n);
  Slot *s = &m->slots[i];
  if (s->sort == AX_SORT_BOOL) return false;
  if ((s->sort == AX_SORT_INT || ax_term_sort_is_fp(s->sort)) && mpz_cmp_ui(mpq_denref(v), 1) != 0)
    return false;
  mpq_set(s->q, v);
  s->state = SLOT_NUM;
  return true;
}

bool ax_model_int(const AxModel *m, size_t i, mpz_t out) {
  if (!m || i >= m->n || m->slots[i].state != SLOT_NUM || m->slots[i].sort != AX_SORT_INT)
    return false;
  mpz_set(out, mpq_numref(m->slots[i].q));
  return true;
}

bool ax_model_real(const AxModel *m, size_t i, mpq_t out) {
  if (!m || i >= m->n || m->slots[i].state != SLOT_NUM) return false;
  mpq_set(out, m->slots[i].q);
  return true;
}

bool ax_model_bool(const AxModel *m, size_t i, bool *out) {
  if (!m || i >= m->n || m->slots[i].state != SLOT_BOOL) return false;
  *out = m->slots[i].b;
  return true;
}

const char *ax_solver_fmt_ms(char *buf, size_t len, unsigned ms) {
  if (ms % 1000 == 0)
    snprintf(buf, len, "%u s", ms / 1000);
  else
    snprintf(buf, len, "%u ms", ms);
  return buf;
}

