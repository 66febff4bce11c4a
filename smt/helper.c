/* helper.c — z3 in a helper process that outlives its queries; see helper.h.
 *
 * The channel is one Unix stream socket pair (send with MSG_NOSIGNAL: a helper that died
 * is an error to report, never a SIGPIPE that ends the worker). A query, caller to helper:
 *     u32 length of the rest, u32 WIRE_MAGIC, u32 timeout_ms, u8 want_model,
 *     u32 n, then n terms, each: u8 kind, u8 sort, u32 nargs, nargs u32 indices of earlier
 *       terms, and by kind: INT and REAL their decimal text, VAR its name, APP its
 *       function's name, arity, argument sorts and result sort, FP_LIT its bits;
 *     u32 index of the formula, u32 nwatch, nwatch u32 indices.
 * (u32 little-endian as this machine writes them: both ends are the same binary; a text is
 * a u32 length and its bytes.) The terms come in postorder, so the helper rebuilds each
 * from terms it already has, with the same builders, and checks that each has the sort
 * sent: the rebuilt query is the query. The answer goes back in the racers' text format.
 *
 * One helper per process: `owner` is the pid that forked it. A process forked from the
 * owner inherits the variables and a copy of the socket, which it must neither use (two
 * processes on one socket would read each other's answers) nor kill; it forks its own. */
#define _GNU_SOURCE   /* close_range */

#include "smt/helper.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/proc.h"
#include "smt/z3.h"

#define WIRE_MAGIC 0x41585a33u   /* "AXZ3" */
#define MAX_QUERY ((uint32_t)1 << 30)

static struct {
  pid_t pid;     /* 0: none */
  pid_t owner;   /* the process that forked it */
  int fd;        /* our end of the socket */
} helper = {0, 0, -1};

/* --- The wire format --------------------------------------------------------------------- */

static void put_u32(FILE *f, uint32_t v) { fwrite(&v, sizeof v, 1, f); }
static void put_u8(FILE *f, unsigned v) { fputc((int)(v & 0xff), f); }
static void put_text(FILE *f, const char *s) {
  size_t n = strlen(s);
  put_u32(f, (uint32_t)n);
  fwrite(s, 1, n, f);
}

typedef struct Enc {
  FILE *f;
  uint32_t *index;   /* by term id: its position in the message, UINT32_MAX before */
  uint32_t n;
} Enc;

static void encode_term(const AxTerm *t, void *data) {
  Enc *e = data;
  AxTermKind k = ax_term_kind(t);
  size_t nargs = ax_term_nargs(t);
  put_u8(e->f, (unsigned)k);
  put_u8(e->f, (unsigned)ax_term_sort(t));
  put_u32(e->f, (uint32_t)nargs);
  for (size_t i = 0; i < nargs; i++) put_u32(e->f, e->index[ax_term_id(ax_term_arg(t, i))]);
  if (k == AX_TERM_INT || k == AX_TERM_REAL) {
    mpq_t q;
    mpq_init(q);
    ax_term_real_value(t, q);
    char *s = ax_xmalloc(mpz_sizeinbase(mpq_numref(q), 10) + mpz_sizeinbase(mpq_denref(q), 10) + 3);
    put_text(e->f, mpq_get_str(s, 10, q));
    free(s);
    mpq_clear(q);
  } else if (k == AX_TERM_VAR) {
    put_text(e->f, ax_term_var_name(t));
  } else if (k == AX_TERM_APP) {
    const AxFunc *fn = ax_term_app_func(t);
    put_text(e->f, ax_term_func_name(fn));
    put_u32(e->f, (uint32_t)ax_term_func_nargs(fn));
    for (size_t i = 0; i < ax_term_func_nargs(fn); i++)
      put_u8(e->f, (unsigned)ax_term_func_argsort(fn, i));
    put_u8(e->f, (unsigned)ax_term_func_result(fn));
  } else if (k == AX_TERM_FP_LIT) {
    put_u32(e->f, ax_term_fp_bits_value(t));
  }
  e->index[ax_term_id(t)] = e->n++;
}

/* Offsets in the message of the two fields known only at its end: the length of the rest
 * (first) and the number of terms (after magic, timeout and want_model). */
#define AT_LENGTH 0
#define AT_NTERMS (3 * sizeof(uint32_t) + 1)

/* The whole message for one query, length first; NULL if it cannot be made. */
static char *encode(const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                    const AxTerm *const *watch, size_t nwatch, bool want_model, size_t *len) {
  char *msg = NULL;
  size_t mlen = 0;
  FILE *f = open_memstream(&msg, &mlen);
  if (!f) return NULL;
  put_u32(f, 0);   /* AT_LENGTH, filled in below */
  put_u32(f, WIRE_MAGIC);
  put_u32(f, o->timeout_ms);
  put_u8(f, want_model);
  put_u32(f, 0);   /* AT_NTERMS, filled in below */
  uint32_t size = ax_term_ctx_size(tc);
  Enc e = {f, ax_xmalloc((size ? size : 1) * sizeof *e.index), 0};
  memset(e.index, 0xff, (size ? size : 1) * sizeof *e.index);
  const AxTerm **roots = ax_xmalloc((nwatch + 1) * sizeof *roots);
  roots[0] = formula;
  for (size_t i = 0; i < nwatch; i++) roots[i + 1] = watch[i];
  ax_term_postorder(tc, roots, nwatch + 1, encode_term, &e);
  put_u32(f, e.index[ax_term_id(formula)]);
  put_u32(f, (uint32_t)nwatch);
  for (size_t i = 0; i < nwatch; i++) put_u32(f, e.index[ax_term_id(watch[i])]);
  free(roots);
  free(e.index);
  if (fclose(f) != 0 || mlen - sizeof(uint32_t) >= MAX_QUERY) {
    free(msg);
    return NULL;
  }
  uint32_t rest = (uint32_t)(mlen - sizeof rest);
  memcpy(msg + AT_LENGTH, &rest, sizeof rest);
  memcpy(msg + AT_NTERMS, &e.n, sizeof e.n);
  *len = mlen;
  return msg;
}

typedef struct Dec {
  const unsigned char *p, *end;
  bool bad;
} Dec;

static uint32_t get_u32(Dec *d) {
  uint32_t v = 0;
  if ((size_t)(d->end - d->p) < sizeof v) {
    d->bad = true;
    return 0;
  }
  memcpy(&v, d->p, sizeof v);
  d->p += sizeof v;
  return v;
}

static unsigned get_u8(Dec *d) {
  if (d->p >= d->end) {
    d->bad = true;
    return 0;
  }
  return *d->p++;
}

/* A text of the message as a new string (NULL, bad set, if it does not fit). */
static char *get_text(Dec *d) {
  uint32_t n = get_u32(d);
  if (d->bad || (size_t)(d->end - d->p) < n) {
    d->bad = true;
    return NULL;
  }
  if (memchr(d->p, '\0', n)) {   /* no name or number holds a NUL */
    d->bad = true;
    return NULL;
  }
  char *s = ax_xmalloc((size_t)n + 1);
  memcpy(s, d->p, n);
  s[n] = '\0';
  d->p += n;
  return s;
}

static const int arity[] = {
#define X(kind, smt, ar) ar,
  AX_TERM_KINDS(X)
#undef X
};

static bool valid_sort(unsigned s) { return s <= AX_SORT_BF16; }

/* One term of the message, rebuilt in tc from the terms before it; NULL if malformed. */
static const AxTerm *decode_term(Dec *d, AxTermCtx *tc, const AxTerm **terms, uint32_t have) {
  unsigned k = get_u8(d), sort = get_u8(d);
  uint32_t nargs = get_u32(d);
  if (d->bad || k >= AX_TERM_NKINDS || !valid_sort(sort) ||
      nargs > (size_t)(d->end - d->p) / sizeof(uint32_t) ||
      (arity[k] >= 0 && (uint32_t)arity[k] != nargs))
    return NULL;
  const AxTerm **args = ax_xmalloc((nargs ? nargs : 1) * sizeof *args);
  for (uint32_t i = 0; i < nargs; i++) {
    uint32_t a = get_u32(d);
    args[i] = a < have ? terms[a] : NULL;
    if (!args[i]) d->bad = true;
  }
  const AxTerm *t = NULL;
  char *s = NULL;
  if (d->bad) {
    /* nothing */
  } else if (k == AX_TERM_TRUE || k == AX_TERM_FALSE) {
    t = ax_term_mk_bool(tc, k == AX_TERM_TRUE);
  } else if (k == AX_TERM_INT || k == AX_TERM_REAL) {
    mpq_t q;
    mpq_init(q);
    /* linear in the text, which is within the message (at most MAX_QUERY bytes) */
    if ((s = get_text(d)) && mpq_set_str(q, s, 10) == 0 && mpz_sgn(mpq_denref(q)) != 0) {
      mpq_canonicalize(q);
      t = k == AX_TERM_INT ? (mpz_cmp_ui(mpq_denref(q), 1) == 0 ? ax_term_mk_int(tc, mpq_numref(q))
                                                                : NULL)
                           : ax_term_mk_real(tc, q);
    }
    mpq_clear(q);
  } else if (k == AX_TERM_VAR) {
    if ((s = get_text(d))) t = ax_term_mk_var(tc, s, (AxSort)sort);
  } else if (k == AX_TERM_APP) {
    s = get_text(d);
    uint32_t fn = get_u32(d);
    AxSort *sorts = NULL;
    if (!d->bad && fn == nargs) {
      sorts = ax_xmalloc((fn ? fn : 1) * sizeof *sorts);
      for (uint32_t i = 0; i < fn; i++) {
        unsigned as = get_u8(d);
        sorts[i] = (AxSort)as;
        if (!valid_sort(as) || (args[i] && ax_term_sort(args[i]) != (AxSort)as)) d->bad = true;
      }
      unsigned res = get_u8(d);
      if (!d->bad && s && valid_sort(res)) {
        const AxFunc *f = ax_term_func(tc, s, fn, sorts, (AxSort)res);
        if (f) t = ax_term_mk_app(tc, f, nargs, args);
      }
    }
    free(sorts);
  } else if (k == AX_TERM_FP_LIT) {
    uint32_t bits = get_u32(d);
    if (!d->bad && ax_term_sort_is_fp((AxSort)sort)) t = ax_term_mk_fp_bits(tc, (AxSort)sort, bits);
  } else {
    t = ax_term_mk(tc, (AxTermKind)k, nargs, args);
  }
  free(s);
  free(args);
  if (d->bad || !t || ax_term_sort(t) != (AxSort)sort) return NULL;
  return t;
}

/* --- The helper -------------------------------------------------------------------------- */

void ax_helper_write_answer(FILE *f, AxSmtResult r, const AxModel *m, const char *reason) {
  if (r == AX_SMT_UNSAT) {
    fputs("unsat\n", f);
  } else if (r == AX_SMT_UNKNOWN) {
    fputs("unknown ", f);
    for (const char *c = reason && *reason ? reason : "unknown"; *c; c++)
      fputc(*c == '\n' ? ' ' : *c, f);
    fputc('\n', f);
  } else {
    size_t n = m ? ax_model_size(m) : 0;
    fprintf(f, "sat %zu\n", n);
    mpq_t q;
    mpq_init(q);
    for (size_t i = 0; i < n; i++) {
      bool b;
      if (ax_model_bool(m, i, &b)) {
        fprintf(f, "b %d\n", b);
      } else if (ax_model_real(m, i, q)) {
        fputs("q ", f);
        mpq_out_str(f, 10, q);
        fputc('\n', f);
      } else {
        fputs("-\n", f);
      }
    }
    mpq_clear(q);
  }
  fputs("end\n", f);
}

/* ax_proc_write_full, but with send's MSG_NOSIGNAL: the worker's main thread, which sends,
 * does not block SIGPIPE, and a dead helper must be a failed send, not the worker's end. */
static bool send_all(int fd, const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    s += w;
    n -= (size_t)w;
  }
  return true;
}

/* Answers one query read from fd; false when there is none (the caller has gone). */
static bool serve(int fd) {
  uint32_t len;
  if (!ax_proc_read_full(fd, &len, sizeof len) || len > MAX_QUERY) return false;
  unsigned char *msg = ax_xmalloc(len ? len : 1);
  if (!ax_proc_read_full(fd, msg, len)) {
    free(msg);
    return false;
  }
  Dec d = {msg, msg + len, false};
  AxTermCtx *tc = ax_term_ctx_new();
  uint32_t magic = get_u32(&d), timeout_ms = get_u32(&d);
  bool want_model = get_u8(&d) != 0;
  uint32_t n = get_u32(&d);
  if (magic != WIRE_MAGIC || n > len) d.bad = true;
  const AxTerm **terms = ax_xcalloc(d.bad || !n ? 1 : n, sizeof *terms);
  for (uint32_t i = 0; !d.bad && i < n; i++)
    if (!(terms[i] = decode_term(&d, tc, terms, i))) d.bad = true;
  uint32_t root = get_u32(&d), nwatch = get_u32(&d);
  const AxTerm **watch = NULL;
  if (!d.bad && root < n && nwatch <= (size_t)(d.end - d.p) / sizeof(uint32_t)) {
    watch = ax_xcalloc(nwatch ? nwatch : 1, sizeof *watch);
    for (uint32_t i = 0; i < nwatch; i++) {
      uint32_t w = get_u32(&d);
      watch[i] = w < n ? terms[w] : NULL;
      if (!watch[i]) d.bad = true;
    }
  } else {
    d.bad = true;
  }
  if (d.p != d.end) d.bad = true;

  char reason[512] = "";
  AxModel *m = NULL;
  AxSmtResult r = AX_SMT_UNKNOWN;
  if (d.bad) {
    snprintf(reason, sizeof reason, "the z3 helper could not read the query");
  } else {
    AxSolverOpts o = {.kind = AX_SOLVER_Z3, .timeout_ms = timeout_ms};
    r = ax_z3_check(&o, tc, terms[root], watch, nwatch, want_model ? &m : NULL, reason,
                    sizeof reason);
  }
  char *text = NULL;
  size_t tlen = 0;
  FILE *f = open_memstream(&text, &tlen);
  bool ok = f != NULL;
  if (f) {
    ax_helper_write_answer(f, r, m, reason);
    ok = fclose(f) == 0 && send_all(fd, text, tlen);
  }
  free(text);
  ax_model_free(m);
  free(watch);
  free(terms);
  ax_term_ctx_free(tc);
  free(msg);
  return ok;
}

_Noreturn static void helper_main(int fd, pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);   /* never outlive the worker it serves */
  if (getppid() != parent) _exit(0);  /* it ended before the line above */
  if (fd != 3) {
    dup2(fd, 3);
    fd = 3;
  }
  close_range(4, UINT_MAX, 0);   /* nothing of the worker's: its pool's pipes, its racers' */
  while (serve(fd)) continue;
  _exit(0);
}

static bool spawn(char *reason, size_t len) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    snprintf(reason, len, "cannot create the z3 helper's socket: %s", strerror(errno));
    return false;
  }
  fflush(NULL);   /* nothing buffered may be written twice */
  pid_t parent = getpid(), pid = fork();
  if (pid < 0) {
    snprintf(reason, len, "cannot fork the z3 helper: %s", strerror(errno));
    close(sv[0]);
    close(sv[1]);
    return false;
  }
  if (pid == 0) {
    close(sv[0]);
    helper_main(sv[1], parent);
  }
  close(sv[1]);
  helper.pid = pid;
  helper.owner = getpid();
  helper.fd = sv[0];
  return true;
}

int ax_helper_kill(void) {
  if (helper.owner != getpid() || helper.pid <= 0) return -1;
  ax_proc_kill_tree(helper.pid);   /* first: closing first would let it exit by itself */
  int status = ax_proc_reap(helper.pid);
  close(helper.fd);
  helper.pid = 0;
  helper.fd = -1;
  return status;
}

bool ax_helper_send(const AxSolverOpts *o, AxTermCtx *tc, const AxTerm *formula,
                    const AxTerm *const *watch, size_t nwatch, bool want_model, pid_t *pid,
                    int *fd, char *reason, size_t reason_len) {
  if (helper.pid > 0 && helper.owner != getpid()) {
    close(helper.fd);   /* our copy of a parent's socket: its helper is not ours */
    helper.pid = 0;
    helper.fd = -1;
  }
  size_t len = 0;
  char *msg = encode(o, tc, formula, watch, nwatch, want_model, &len);
  if (!msg) {
    snprintf(reason, reason_len, "the query is too large for the z3 helper");
    return false;
  }
  /* a helper that died since its last answer fails the send: one more try, on a new one */
  bool sent = false;
  for (int attempt = 0; attempt < 2 && !sent; attempt++) {
    if (helper.pid <= 0 && !spawn(reason, reason_len)) break;
    sent = send_all(helper.fd, msg, len);
    if (!sent) {
      snprintf(reason, reason_len, "cannot send the query to the z3 helper: %s", strerror(errno));
      ax_helper_kill();
    }
  }
  free(msg);
  if (!sent) return false;
  *pid = helper.pid;
  *fd = helper.fd;
  return true;
}
