/* cuda.c — μGraph → CUDA C++ (docs/gpu.md, "Generated code").
 *
 * The generated text is read by two compilers: nvcc, and the host C++ compiler with
 * gpu/emu/axle_emu.h standing in for the CUDA runtime (AXLE_EMU). So it uses only what the
 * emulator defines: __global__, __shared__ through AX_SMEM_*, threadIdx / blockIdx /
 * blockDim / gridDim, __syncthreads, the f16/bf16 conversion intrinsics, AX_LAUNCH instead
 * of <<< >>>, cudaMallocAsync / cudaFreeAsync / cudaGetLastError, the cp.async
 * wrappers ax_cp_async16/8/4, ax_cp_async_commit, ax_cp_async_wait<N> (inline PTX here,
 * poisoned-until-waited copies there), and the warp-level primitives of gpu/warp.cuh
 * (shuffles, warp sums, ldmatrix, mma.sync, 16-byte shared accesses: PTX here, warp-wide
 * rendezvous there). Block matmuls on tensor cores are mma.sync fed by ldmatrix, emitted
 * without a guard, so the emulator runs the very code the GPU runs.
 *
 * Values are computed in f32; every block operator's result is rounded to its dtype when
 * stored, accumulators stay f32 until the loop ends and are then rounded to their dtype —
 * exactly where the float interpreter (superopt/equiv/interp.c, storage mode) rounds, so that
 * emulation can be compared with it element by element. A matmul whose accumulator lives in
 * its fragments (reg_acc_plan) rounds each iteration's product in the registers, where the
 * interpreter stores it. */
#include "gpu/cuda.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "superopt/cost/optimize.h"
#include "superopt/ir/ewop.h"
#include "superopt/ir/pop.h"

/* ORDER TARGET */
static const char *const target_names[] = {[AX_CUDA_SM90] = "sm_90", [AX_CUDA_SM80] = "sm_80"};

bool ax_cuda_target_lookup(const char *name, AxCudaTarget *out) {
  for (int i = 0; i < (int)AX_COUNTOF(target_names); i++)
    if (strcmp(name, target_names[i]) == 0) {
      *out = (AxCudaTarget)i;
      return true;
    }
  return false;
}

const char *ax_cuda_target_name(AxCudaTarget t) { return target_names[t]; }

/* cudaDevAttrMaxSharedMemoryPerBlockOptin: 232448 B (H100), 166912 B (A100). */
int64_t ax_cuda_smem_limit(AxCudaTarget t) { return t == AX_CUDA_SM90 ? 232448 : 166912; }

/* Static __shared__ arrays are limited to 48 KB; larger blocks use dynamic shared memory
 * and opt in with cudaFuncSetAttribute. */
#define STATIC_SMEM_MAX (48 * 1024)

void ax_cuda_ident(const char *name, char *buf, size_t n) {
  size_t i = 0;
  for (; name[i] && i + 1 < n; i++) {
    char c = name[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    buf[i] = ok ? c : '_';
  }
  buf[i] = 0;
}

const char *ax_cuda_ctype(AxDtype t) {
  switch (t) {
  case AX_DT_F16: return "__half";
  case AX_DT_BF16: return "__nv_bfloat16";
  case AX_DT_F32: return "float";
  }
  AX_UNREACHABLE();
}

/* ---- output ------------------------------------------------------------------------ */

typedef struct Emit {
  FILE *f;
  int ind;
  int64_t nt;   /* the block's threads inside a graph-defined kernel (NT), else 0 */
} Emit;

static void line(Emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(Emit *e, const char *fmt, ...) {
  for (int i = 0; i < e->ind; i++) fputs("  ", e->f);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(e->f, fmt, ap);
  va_end(ap);
  fputc('\n', e->f);
}

/* An operand of an element loop: a pointer variable with a shape and a storage type, or a
 * constant. */
typedef struct Opnd {
  char name[48];
  AxTShape shape;
  bool is_const;
  double c;
  bool f32;          /* stored as float (accumulators), else as dtype dt */
  AxDtype dt;
} Opnd;

static const char *stype(const Opnd *o) { return o->f32 ? "float" : ax_cuda_ctype(o->dt); }

static int64_t stride_of(const AxTShape *s, int d) {
  int64_t st = 1;
  for (int i = d + 1; i < s->rank; i++) st *= s->dim[i];
  return st;
}

/* Declares i0..i{r-1}, the multi-index of flat index e in shape s. */
static void emit_index(Emit *e, const AxTShape *s, const char *ity) {
  for (int d = 0; d < s->rank; d++) {
    int64_t st = stride_of(s, d);
    char div[48] = "e";
    if (st != 1) snprintf(div, sizeof div, "(e / %" PRId64 ")", st);
    if (d == 0) line(e, "[[maybe_unused]] const %s i%d = %s;", ity, d, div);
    else line(e, "[[maybe_unused]] const %s i%d = %s %% %" PRId64 ";", ity, d, div, s->dim[d]);
  }
}

/* Whether reading o at an element of shape `out` needs the multi-index (broadcasting). */
static bool needs_index(const Opnd *o, const AxTShape *out) {
  return !o->is_const && !ax_shape_equal(&o->shape, out) && ax_shape_numel(&o->shape) > 1;
}

/* The element offset of operand o at the output element e (i0.. declared when needed). */
static void offset(const Opnd *o, const AxTShape *out, char *buf, size_t n) {
  if (ax_shape_equal(&o->shape, out)) {
    snprintf(buf, n, "e");
    return;
  }
  if (ax_shape_numel(&o->shape) == 1) {
    snprintf(buf, n, "0");
    return;
  }
  size_t used = 0;
  buf[0] = 0;
  int shift = out->rank - o->shape.rank;
  for (int d = 0; d < o->shape.rank; d++) {
    if (o->shape.dim[d] == 1) continue;
    int64_t st = stride_of(&o->shape, d);
    if (st == 1) used += (size_t)snprintf(buf + used, used < n ? n - used : 0, "%si%d", used ? " + " : "", d + shift);
    else used += (size_t)snprintf(buf + used, used < n ? n - used : 0, "%si%d * %" PRId64, used ? " + " : "", d + shift, st);
  }
}

static void value(const Opnd *o, const AxTShape *out, char *buf, size_t n) {
  if (o->is_const) {
    snprintf(buf, n, "%.9gf", o->c);
    if (!strpbrk(buf, ".eEn")) snprintf(buf, n, "%.1ff", o->c);   /* "2f" is no literal */
    return;
  }
  char off[256];
  offset(o, out, off, sizeof off);
  snprintf(buf, n, "ax_f(%s[%s])", o->name, off);
}

/* The f32 expression of an element-wise operator on the variables a0, a1 (its row's). */
static const char *ew_expr(AxOp op) { return ax_ewop_get(op)->cuda; }

/* Loop headers: a block's threads stride over a tile; a pre-defined kernel's threads
 * stride over the whole grid. Thread tid handles elements tid, tid + NT, ... either way;
 * where the count is known to be a multiple of NT (or at most NT) the loop has a fixed trip
 * count (or is a guarded block), so that nvcc sees no remainder to branch around. */
static void loop_open(Emit *e, int64_t n, bool global) {
  if (global) {
    line(e, "for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < %" PRId64
            "LL; e += (long long)gridDim.x * blockDim.x) {", n);
    e->ind++;
    return;
  }
  int64_t nt = e->nt;
  AX_ASSERT(nt > 0);
  if (n == nt) line(e, "{");
  else if (n < nt) line(e, "if (tid < %" PRId64 ") {", n);
  else if (n % nt == 0) line(e, "for (int rep = 0; rep < %" PRId64 "; ++rep) {", n / nt);
  else {
    line(e, "for (int e = tid; e < %" PRId64 "; e += NT) {", n);
    e->ind++;
    return;
  }
  e->ind++;
  if (n > nt) line(e, "const int e = tid + rep * NT;");
  else line(e, "const int e = tid;");
}

/* Whether every lane of every warp that takes part in loop_open(n) runs its body equally
 * often: the count is a multiple of NT, or at most NT and a multiple of 32 (whole warps
 * run it once, the others not at all), and NT a multiple of 32. Warp-wide primitives
 * (ax_smem_load16 / ax_smem_store16) may be used in such a loop. */
static bool loop_warp_uniform(const Emit *e, int64_t n) {
  return e->nt % 32 == 0 && (n % e->nt == 0 || (n < e->nt && n % 32 == 0));
}

static void loop_close(Emit *e) {
  e->ind--;
  line(e, "}");
}

static const char *ity(bool global) { return global ? "long long" : "int"; }

/* The body of an element-wise loop: element e of out = op(in...). */
static void ew_element(Emit *e, AxOp op, const Opnd *out, const Opnd *in, int nin, bool global) {
  bool idx = false;
  for (int j = 0; j < nin; j++) idx |= needs_index(&in[j], &out->shape);
  if (idx) emit_index(e, &out->shape, ity(global));
  char v[320];
  for (int j = 0; j < nin; j++) {
    value(&in[j], &out->shape, v, sizeof v);
    line(e, "const float a%d = %s;", j, v);
  }
  line(e, "%s[e] = ax_to<%s>(%s);", out->name, stype(out), ew_expr(op));
}

/* out = op(in...) for an element-wise (unary or binary) operator. */
static void body_elementwise(Emit *e, AxOp op, const Opnd *out, const Opnd *in, int nin,
                             bool global) {
  loop_open(e, ax_shape_numel(&out->shape), global);
  ew_element(e, op, out, in, nin, global);
  loop_close(e);
}

/* matmul, portable path: one output element per thread iteration, f32 FMA. */
static void body_matmul(Emit *e, const Opnd *out, const Opnd *a, const Opnd *b, bool global) {
  const AxTShape *o = &out->shape;
  int r = o->rank;
  int64_t m = o->dim[r - 2], n = o->dim[r - 1], k = a->shape.dim[a->shape.rank - 1];
  loop_open(e, ax_shape_numel(o), global);
  const char *it = ity(global);
  line(e, "const %s col = e %% %" PRId64 ", row = (e / %" PRId64 ") %% %" PRId64 ";", it, n, n, m);
  /* batch offsets: the batch dims of each operand broadcast against the output's */
  char ao[256] = "0", bo[256] = "0";
  if (r > 2) {
    AxTShape ob = *o, ab = a->shape, bb = b->shape;
    ob.rank -= 2;
    ab.rank -= 2;
    bb.rank -= 2;
    line(e, "const %s bt = e / %" PRId64 ";", it, m * n);
    for (int d = 0; d < ob.rank; d++) {
      int64_t st = stride_of(&ob, d);
      if (d == 0) line(e, "[[maybe_unused]] const %s i%d = bt / %" PRId64 ";", it, d, st);
      else line(e, "[[maybe_unused]] const %s i%d = (bt / %" PRId64 ") %% %" PRId64 ";", it, d, st, ob.dim[d]);
    }
    Opnd ta = {.shape = ab}, tb = {.shape = bb};
    char t1[200], t2[200];
    offset(&ta, &ob, t1, sizeof t1);
    offset(&tb, &ob, t2, sizeof t2);
    if (strcmp(t1, "e") == 0) snprintf(t1, sizeof t1, "bt");
    if (strcmp(t2, "e") == 0) snprintf(t2, sizeof t2, "bt");
    snprintf(ao, sizeof ao, "(%s) * %" PRId64, t1[0] ? t1 : "0", m * k);
    snprintf(bo, sizeof bo, "(%s) * %" PRId64, t2[0] ? t2 : "0", k * n);
  }
  line(e, "const %s *pa = %s + %s + row * %" PRId64 ";", stype(a), a->name, ao, k);
  line(e, "const %s *pb = %s + %s + col;", stype(b), b->name, bo);
  line(e, "float acc = 0.0f;");
  line(e, "for (int q = 0; q < %" PRId64 "; ++q) acc = fmaf(ax_f(pa[q]), ax_f(pb[(%s)q * %" PRId64 "]), acc);",
       k, it, n);
  line(e, "%s[e] = ax_to<%s>(acc);", out->name, stype(out));
  loop_close(e);
}

/* outer x len x inner around an axis. */
static void split3(const AxTShape *s, int axis, int64_t *outer, int64_t *len, int64_t *inner) {
  *outer = *inner = 1;
  for (int i = 0; i < axis; i++) *outer *= s->dim[i];
  for (int i = axis + 1; i < s->rank; i++) *inner *= s->dim[i];
  *len = s->dim[axis];
}

/* concat along an axis. */
static void body_concat(Emit *e, const Opnd *out, const Opnd *in, int nin, int axis, bool global) {
  int64_t outer, len, inner;
  split3(&out->shape, axis, &outer, &len, &inner);
  loop_open(e, ax_shape_numel(&out->shape), global);
  const char *it = ity(global);
  line(e, "[[maybe_unused]] const %s o = e / %" PRId64 ", l = (e / %" PRId64 ") %% %" PRId64 ", in = e %% %" PRId64 ";",
       it, len * inner, inner, len, inner);
  int64_t start = 0;
  for (int j = 0; j < nin; j++) {
    int64_t lj = in[j].shape.dim[axis];
    line(e, "%sif (l < %" PRId64 ") %s[e] = ax_to<%s>(ax_f(%s[(o * %" PRId64 " + l - %" PRId64 ") * %" PRId64 " + in]));",
         j ? "else " : "", start + lj, out->name, stype(out), in[j].name, lj, start, inner);
    start += lj;
  }
  loop_close(e);
}

/* ---- pre-defined kernel operators ----------------------------------------------------- */

static void kt_opnd(const AxMugraph *g, int ti, Opnd *o) {
  const AxKTensor *t = &g->tensors[ti];
  memset(o, 0, sizeof *o);
  o->shape = t->shape;
  o->dt = t->dtype;
  if (t->anon) {
    o->is_const = true;
    o->c = (double)t->value.num / (double)t->value.den;
  }
  snprintf(o->name, sizeof o->name, "p%d", ti);
}

/* Whether operand j of st is the first occurrence of its tensor (mul(d, d) passes d once). */
static bool first_use(const AxKStmt *st, int j) {
  for (int q = 0; q < j; q++)
    if (st->in[q] == st->in[j]) return false;
  return true;
}

/* ---- the operators' CUDA rows ------------------------------------------------------- *
 *
 * How each program-level operator that is not element-wise (superopt/ir/pop.h) is emitted:
 * as a pre-defined kernel of its own (a grid-stride loop over its output elements; a row
 * kernel for the reductions and rms_norm) or a library call from the host entry (matmul:
 * cuBLAS), and as a block operator inside a graph-defined kernel; element-wise operators
 * read ewop.h's `cuda` expression instead. A constant is never emitted: it is a kernel
 * argument or an inline literal (pop.h's `literal`). */
struct KGen;
typedef struct CudaPOp {
  /* The body of pre-defined kernel st (out, in: its tensors; store: the format that writes
   * element e of out from a float expression). NULL: a library call instead. */
  void (*predefined)(Emit *e, const AxKStmt *st, const Opnd *out, const Opnd *in, const char *store);
  /* A pre-defined operator that is a library call, not a kernel of axle's: its statements in
   * the host entry (statement s of g). */
  void (*library)(Emit *e, const AxMugraph *g, int s);
  /* The block operator at node i (out, in: its tiles); marks its tile written. NULL: no block
   * operator. */
  void (*block)(struct KGen *kg, int i, Opnd *out, const Opnd *in, int nin, const char *store);
  /* Shared-memory scratch of block operator n of kernel k with nt threads, in bytes;
   * NULL: none. */
  int64_t (*scratch)(const AxKernel *k, const AxBNode *n, int64_t nt);
} CudaPOp;
static const CudaPOp cuda_pops[AX_OP_COUNT];

static void pre_reshape(Emit *e, const AxKStmt *st, const Opnd *out, const Opnd *in, const char *store) {
  (void)st, (void)store;
  loop_open(e, ax_shape_numel(&out->shape), true);
  line(e, "%s[e] = ax_to<%s>(ax_f(%s[e]));", out->name, ax_cuda_ctype(out->dt), in[0].name);
  loop_close(e);
}

static void pre_broadcast(Emit *e, const AxKStmt *st, const Opnd *out, const Opnd *in, const char *store) {
  (void)st, (void)store;
  loop_open(e, ax_shape_numel(&out->shape), true);
  if (needs_index(&in[0], &out->shape)) emit_index(e, &out->shape, "long long");
  char v[320];
  value(&in[0], &out->shape, v, sizeof v);
  line(e, "%s[e] = ax_to<%s>(%s);", out->name, ax_cuda_ctype(out->dt), v);
  loop_close(e);
}

/* out[e] = in[the operand's index of e]: e's digits in the result's dims, each times the
 * operand stride of the dim it comes from */
static void pre_transpose(Emit *e, const AxKStmt *st, const Opnd *out, const Opnd *in, const char *store) {
  (void)store;
  const AxTShape *x = &in[0].shape, *o = &out->shape;
  int64_t xs[AX_MAXRANK];
  xs[x->rank - 1] = 1;
  for (int k = x->rank - 1; k > 0; k--) xs[k - 1] = xs[k] * x->dim[k];
  loop_open(e, ax_shape_numel(o), true);
  line(e, "long long r = e, src = 0;");
  for (int k = o->rank - 1; k >= 0; k--)
    line(e, "src += (r %% %" PRId64 ") * %" PRId64 "; r /= %" PRId64 ";", o->dim[k],
         xs[st->at.shape.dim[k]], o->dim[k]);
  line(e, "%s[e] = ax_to<%s>(ax_f(%s[src]));", out->name, ax_cuda_ctype(out->dt), in[0].name);
  loop_close(e);
}

/* Row-major strides of shape x, in elements. */
static void strides_of(const AxTShape *x, int64_t *xs) {
  if (x->rank == 0) return;
  xs[x->rank - 1] = 1;
  for (int k = x->rank - 1; k > 0; k--) xs[k - 1] = xs[k] * x->dim[k];
}

/* out[e] = in[start + i·stride per axis], i the digits of e in the result's dims */
static void pre_slice(Emit *e, const AxKStmt *st, const Opnd *out, const Opnd *in, const char *store) {
  (void)store;
  const AxTShape *o = &out->shape;
  int64_t xs[AX_MAXRANK];
  strides_of(&in[0].shape, xs);
  loop_open(e, ax_shape_numel(o), true);
  line(e, "long long r = e, src = 0;");
  for (int k = o->rank - 1; k >= 0; k--)
    line(e, "src += (%" PRId32 " + (r %% %" PRId64 ") * %" PRId32 ") * %" PRId64 "; r /= %" PRId64 ";",
         st->at.lo[k], o->dim[k], st->at.step[k], xs[k], o->dim[k]);
  line(e, "%s[e] = ax_to<%s>(ax_f(%s[src]));", out->name, ax_cuda_ctype(out->dt), in[0].name);
  loop_close(e);
}

/* out[e] = in[i] where e's digit on each axis is low + i·(interior + 1), else the padding
 * value (a literal or the one element of operand 1) */
static void pre_pad(Emit *e, const AxKStmt *st, const Opnd *out, const Opnd *in, const char *store) {
  (void)store;
  const AxTShape *o = &out->shape, *x = &in[0].shape;
  int64_t xs[AX_MAXRANK];
  strides_of(x, xs);
  char v[96];
  if (in[1].is_const) value(&in[1], &in[1].shape, v, sizeof v);
  else snprintf(v, sizeof v, "ax_f(%s[0])", in[1].name);
  loop_open(e, ax_shape_numel(o), true);
  line(e, "long long r = e, src = 0, y;");
  line(e, "bool inside = true;");
  for (int k = o->rank - 1; k >= 0; k--) {
    int64_t p = (int64_t)st->at.step[k] + 1;
    line(e, "y = r %% %" PRId64 " - (%" PRId32 "); r /= %" PRId64 ";", o->dim[k], st->at.lo[k], o->dim[k]);
    line(e, "inside = inside && y >= 0 && y %% %" PRId64 " == 0 && y / %" PRId64 " < %" PRId64 ";", p, p,
         x->dim[k]);
    line(e, "src += (y / %" PRId64 ") * %" PRId64 ";", p, xs[k]);
  }
  line(e, "%s[e] = ax_to<%s>(inside ? ax_f(%s[src]) : %s);", out->name, ax_cuda_ctype(out->dt),
       in[0].name, v);
  loop_close(e);
}

/* out[e] = in[e with the digit i of each listed axis replaced by n - 1 - i] */
static void pre_reverse(Emit *e, const AxKStmt *st, const Opnd *out, const Opnd *in, const char *store) {
  (void)store;
  const AxTShape *o = &out->shape;
  bool rev[AX_MAXRANK] = {0};
  for (int k = 0; k < st->at.shape.rank; k++) rev[st->at.shape.dim[k]] = true;
  int64_t xs[AX_MAXRANK];
  strides_of(o, xs);
  loop_open(e, ax_shape_numel(o), true);
  line(e, "long long r = e, src = 0;");
  for (int k = o->rank - 1; k >= 0; k--) {
    if (rev[k])
      line(e, "src += (%" PRId64 " - r %% %" PRId64 ") * %" PRId64 "; r /= %" PRId64 ";", o->dim[k] - 1,
           o->dim[k], xs[k], o->dim[k]);
    else
      line(e, "src += (r %% %" PRId64 ") * %" PRId64 "; r /= %" PRId64 ";", o->dim[k], xs[k], o->dim[k]);
  }
  line(e, "%s[e] = ax_to<%s>(ax_f(%s[src]));", out->name, ax_cuda_ctype(out->dt), in[0].name);
  loop_close(e);
}

static void pre_select(Emit *e, const AxKStmt *st, const Opnd *out, const Opnd *in, const char *store) {
  (void)st, (void)store;
  loop_open(e, ax_shape_numel(&out->shape), true);
  line(e, "%s[e] = ax_to<%s>(ax_f(%s[e]) != 0.0f ? ax_f(%s[e]) : ax_f(%s[e]));", out->name,
       ax_cuda_ctype(out->dt), in[0].name, in[1].name, in[2].name);
  loop_close(e);
}

/* the index along the axis: (e / inner) % len */
static void pre_iota(Emit *e, const AxKStmt *st, const Opnd *out, const Opnd *in, const char *store) {
  (void)in, (void)store;
  int64_t outer, len, inner;
  split3(&out->shape, st->at.axis, &outer, &len, &inner);
  loop_open(e, ax_shape_numel(&out->shape), true);
  line(e, "%s[e] = ax_to<%s>((float)((e / %" PRId64 ") %% %" PRId64 "));", out->name,
       ax_cuda_ctype(out->dt), inner, len);
  loop_close(e);
}

static void pre_repeat(Emit *e, const AxKStmt *st, const Opnd *out, const Opnd *in, const char *store) {
  (void)store;
  int64_t outer, len, inner;
  split3(&in[0].shape, st->at.axis, &outer, &len, &inner);
  int64_t times = st->at.times;
  loop_open(e, ax_shape_numel(&out->shape), true);
  line(e, "[[maybe_unused]] const long long o = e / %" PRId64 ", l = (e / %" PRId64 ") %% %" PRId64 ", in = e %% %" PRId64 ";",
       len * times * inner, inner, len * times, inner);
  line(e, "%s[e] = ax_to<%s>(ax_f(%s[(o * %" PRId64 " + l / %" PRId64 ") * %" PRId64 " + in]));",
       out->name, ax_cuda_ctype(out->dt), in[0].name, len, times, inner);
  loop_close(e);
}

static void pre_concat(Emit *e, const AxKStmt *st, const Opnd *out, const Opnd *in, const char *store) {
  (void)store;
  body_concat(e, out, in, st->nin, st->at.axis, true);
}

/* The CUDA row of a pre-defined operator (NULL: element-wise, whose expression ewop.h has). */
static const CudaPOp *pre_row(AxOp op);
static void pre_elementwise(Emit *e, AxOp op, const Opnd *out, const Opnd *in, int nin);
static bool ew_packed(const Opnd *out, const Opnd *in, int nin);

/* How pre-defined statement st runs, for the comment above its kernel. */
static void pre_shape(const AxMugraph *g, const AxKStmt *st, char *buf, size_t n) {
  const AxPOp *p = ax_pop_get(st->op);
  if (!p || p->contract != AX_POP_CONTRACT_AXIS) {
    Opnd out, in[AX_MAXIN];
    kt_opnd(g, st->t, &out);
    for (int j = 0; j < st->nin; j++) kt_opnd(g, st->in[j], &in[j]);
    snprintf(buf, n, "a grid-stride loop over the output%s",
             ax_ewop_get(st->op) && ew_packed(&out, in, st->nin) ? ", 8 elements a step where 16-byte aligned" : "");
    return;
  }
  AxPopRowPlan pl;
  ax_pop_rowplan(&g->tensors[st->in[0]].shape, st->at.axis, st->at.to, &pl);
  if (pl.rows)
    snprintf(buf, n, "%" PRId64 " row%s of %" PRId64 ", %" PRId64 " lanes a row%s", pl.outputs,
             pl.outputs == 1 ? "" : "s", pl.len, pl.lanes, pl.len % 8 ? "" : ", 16-byte loads where aligned");
  else
    snprintf(buf, n, "%" PRId64 " column%s of %" PRId64 " elements %" PRId64 " apart, a thread each", pl.outputs,
             pl.outputs == 1 ? "" : "s", pl.len, pl.stride);
}

/* The grid of pre-defined statement st's kernel (blocks of 256 threads): a row kernel's
 * plan, else 8 elements a thread (the pack of pre_elementwise; the cost model's library
 * kernel, cost.c), at most 65535 blocks (grid-stride loops take the rest). */
static int64_t pre_blocks(const AxMugraph *g, const AxKStmt *st) {
  const AxPOp *p = ax_pop_get(st->op);
  if (p && p->contract == AX_POP_CONTRACT_AXIS) {
    AxPopRowPlan pl;
    ax_pop_rowplan(&g->tensors[st->in[0]].shape, st->at.axis, st->at.to, &pl);
    return pl.blocks;
  }
  int64_t n = ax_shape_numel(&g->tensors[st->t].shape), b = (n + 8 * AX_POP_ROW_THREADS - 1) / (8 * AX_POP_ROW_THREADS);
  return b < 1 ? 1 : b > AX_POP_MAX_GRID ? AX_POP_MAX_GRID : b;
}

/* Whether pre-defined statement st is a library call (no kernel of axle's). */
static bool pre_library(const AxKStmt *st) {
  const CudaPOp *r = pre_row(st->op);
  return r && r->library;
}

/* One __global__ for pre-defined operator statement s; its name is op<s>. A library call
 * has none (its statements are in the host entry). */
static void emit_predefined(Emit *e, const AxMugraph *g, int s) {
  const AxKStmt *st = &g->stmts[s];
  if (pre_library(st)) return;
  Opnd out, in[AX_MAXIN];
  kt_opnd(g, st->t, &out);
  for (int j = 0; j < st->nin; j++) kt_opnd(g, st->in[j], &in[j]);
  char how[160];
  pre_shape(g, st, how, sizeof how);
  fprintf(e->f, "\n// '%s' = %s(...) %s, pre-defined: %s\n", g->tensors[st->t].name, ax_op_pname(st->op),
          ax_cuda_ctype(out.dt), how);
  fprintf(e->f, "__global__ void __launch_bounds__(256) ax_op%d(%s *__restrict__ %s", s, ax_cuda_ctype(out.dt), out.name);
  for (int j = 0; j < st->nin; j++)
    if (!in[j].is_const && first_use(st, j))
      fprintf(e->f, ", const %s *__restrict__ %s", ax_cuda_ctype(in[j].dt), in[j].name);
  fprintf(e->f, ") {\n");
  e->ind = 1;
  char store[96];
  snprintf(store, sizeof store, "%s[e] = ax_to<%s>(%%s)", out.name, ax_cuda_ctype(out.dt));
  if (ax_ewop_get(st->op)) {
    pre_elementwise(e, st->op, &out, in, st->nin);   /* all alike */
  } else {
    /* sources and rule-only operators never reach a kernel */
    AX_ASSERT(cuda_pops[st->op].predefined);
    cuda_pops[st->op].predefined(e, st, &out, in, store);
  }
  e->ind = 0;
  fprintf(e->f, "}\n");
}

/* ---- graph-defined kernels ------------------------------------------------------------ */

/* What a block node's tile is, where it lives and who wrote it last. */
enum { CLEAN, ELEMWISE, SCATTERED };   /* dirty: since the last barrier, written by ... */

typedef struct Tile {
  Opnd o;
  int64_t off, bytes;
  int ring;            /* an iterating input in the loop's cp.async ring: its slots (slot j at
                        * off + j * bytes), else 0 */
  int aw;              /* its cp.async width in bytes (16, 8, 4) */
  int dirty;
  int pf;              /* a megakernel task's prefetchable first tile: its bit in ax_pfm, else -1 */
  int64_t pf_off;      /* and its offset in the prefetch buffer */
  int pf_aw;           /* and the cp.async width of its prefetch */
} Tile;

typedef struct KGen {
  Emit *e;
  const AxMugraph *g;
  const AxKernel *k;
  Tile *t;
  int64_t nt;          /* threads per block */
  int64_t *scr;        /* per node: offset of an rms_norm's f32 row scratch, -1 */
  int barriers;
  bool task;           /* a megakernel task (AxCudaOpts.task_body): tiles may be prefetched */
  int *racc;           /* per node: its register-accumulator partner (reg_acc_plan), -1 */
} KGen;

static void barrier(KGen *kg, const char *why) {
  line(kg->e, "__syncthreads();  // %s", why);
  for (int i = 0; i < kg->k->nnodes; i++) kg->t[i].dirty = CLEAN;
  kg->barriers++;
}

/* Before a node reads node j: element e of a tile written element-wise (by the thread that
 * handles e) can be read at e by the same thread without a barrier; anything else written
 * since the last barrier needs one. */
static void need(KGen *kg, int j, bool same_e, const char *reader) {
  const Tile *t = &kg->t[j];
  if (t->o.is_const || t->dirty == CLEAN) return;
  if (t->dirty == ELEMWISE && same_e) return;
  char why[160];
  snprintf(why, sizeof why, "'%s' reads '%s'", reader, kg->k->nodes[j].name);
  barrier(kg, why);
}

/* ---- row reductions: per lane, per warp by shuffles, across warps --------------------- *
 *
 * A block reduction of R rows of L elements each (a sum, a sum of squares, a max or a min;
 * rows of a tile along an axis, down to t elements: row r = (o, i, in) sums x[o, j t + i,
 * in] over j < L = len / t) runs in three steps when the rows are few:
 *   1. per lane: P lanes share a row (P a power of two), lane p folds elements p, p + P, ...
 *      (a fixed trip count L / P where P divides L), so no thread runs a chain of L;
 *   2. per warp: a butterfly of shuffles over the row's P lanes (ax_warp_sum<P> and the
 *      like, gpu/warp.cuh) when P <= 32: the row's first lane holds the result;
 *   3. across warps, when P = 32 W: each warp's first lane writes its partial into a small
 *      f32 array (R W floats), a barrier, and one more butterfly, over segments of W' lanes
 *      (W rounded up to a power of two; the lanes past W repeat the row's first partial for
 *      a max or min, add 0 to a sum), reduces the W partials of each row.
 * With many rows (P = 1) each thread folds its rows alone, as before. Only whole warps take
 * part (NT rounded down to a multiple of 32) and every lane of a taking-part warp runs
 * every shuffle — lanes past the last row run on a dummy 0 in a segment of their own — so
 * the full mask is always right. Values stay f32. A max or min starts from each lane's
 * first element (P <= L / 8, so every lane has one): no -inf identity is needed. */

/* The lanes that share a row: as many as the whole warps hold for every row, at least 8
 * elements each (measured on an H200: a 4096-long row summed by one thread took 17.4 µs,
 * split over 128 threads 4.9 µs for the whole kernel; docs/results-gpu.md, run `unseen`);
 * a power of two up to 32 (a segment of a warp), beyond that whole warps (32 W); 1: one
 * thread per row. */
static int64_t red_lanes(int64_t nt, int64_t rows, int64_t len) {
  int64_t cap = nt / 32 * 32, p = 1;
  if (rows <= 0 || cap == 0) return 1;
  cap /= rows;
  if (cap > len / 8) cap = len / 8;
  if (cap >= 64) return cap / 32 * 32;
  while (p * 2 <= cap) p *= 2;
  return p;
}

/* The f32 partials step 3 needs, in bytes (0: none). */
static int64_t red_scratch(int64_t nt, int64_t rows, int64_t len) {
  int64_t p = red_lanes(nt, rows, len);
  return p > 32 ? rows * (p / 32) * 4 : 0;
}

/* The smallest power of two at least n. */
static int64_t pow2_ceil(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

typedef enum { RED_SUM, RED_SQUARES, RED_MAX, RED_MIN } RedKind;

/* One row reduction to emit: tile x along `axis` down to t elements; the cross-warp
 * partials at byte `scratch` of ax_smem (red_scratch bytes; -1 when none is laid out),
 * named part<node>; `finish`: statements that store row e's result, the f32 `acc`. */
typedef struct RowRed {
  const Opnd *x;
  int axis;
  int64_t t;
  RedKind kind;
  int node;
  int64_t scratch;
  const char *finish[4];   /* NULL-terminated */
} RowRed;

/* The rows of a block reduction (R above) and their length (L). */
static void red_shape(const AxTShape *x, int axis, int64_t t, int64_t *rows, int64_t *len) {
  int64_t outer, l, inner;
  split3(x, axis, &outer, &l, &inner);
  *rows = outer * t * inner;
  *len = l / t;
}

/* The statements of rr->finish, with e and acc in scope. */
static void red_finish(Emit *e, const RowRed *rr) {
  for (int k = 0; k < 4 && rr->finish[k]; k++) line(e, "%s;", rr->finish[k]);
}

/* px, the first element of row `rv` (an int expression) of rr's tile: row (o, i, in) starts
 * at x[o, i, in] of the tile seen as outer x len x inner, where len is t rows' elements. */
static void red_row(Emit *e, const RowRed *rr, const char *rv) {
  int64_t outer, len, inner;
  split3(&rr->x->shape, rr->axis, &outer, &len, &inner);
  int64_t t = rr->t;
  char at[200];
  if (t == 1 && inner == 1) snprintf(at, sizeof at, "%s * %" PRId64, rv, len);
  else if (inner == 1) snprintf(at, sizeof at, "(%s / %" PRId64 ") * %" PRId64 " + %s %% %" PRId64, rv, t, len, rv, t);
  else if (t == 1)
    snprintf(at, sizeof at, "(%s / %" PRId64 ") * %" PRId64 " + %s %% %" PRId64, rv, inner, len * inner, rv, inner);
  else
    snprintf(at, sizeof at, "((%s / %" PRId64 ") * %" PRId64 " + (%s / %" PRId64 ") %% %" PRId64 ") * %" PRId64 " + %s %% %" PRId64,
             rv, t * inner, len, rv, inner, t, inner, rv, inner);
  line(e, "const %s *px = %s + %s;", stype(rr->x), rr->x->name, at);
}

/* acc = acc (op) v: the combining statement of rr's kind. */
static const char *red_step(RedKind k) {
  switch (k) {
  case RED_SUM: return "acc += v";
  case RED_SQUARES: return "acc += v * v";
  case RED_MAX: return "acc = ax_max(acc, v)";
  case RED_MIN: return "acc = ax_min(acc, v)";
  }
  AX_UNREACHABLE();
}

static const char *red_warp(RedKind k) {
  return k == RED_MAX ? "ax_warp_max" : k == RED_MIN ? "ax_warp_min" : "ax_warp_sum";
}

/* acc over the elements lane p (of np; p an expression) takes of the row at px: p, p + np,
 * ... below len, in a loop of fixed trip count where np divides len. A sum adds to acc (0),
 * a max or min starts from the lane's first element. */
static void red_lane(Emit *e, const RowRed *rr, const char *p, int64_t np, int64_t len) {
  int64_t outer, l, inner;
  split3(&rr->x->shape, rr->axis, &outer, &l, &inner);
  int64_t st = rr->t * inner;
  bool fold = rr->kind == RED_MAX || rr->kind == RED_MIN;
  char at[64];
  if (st == 1) snprintf(at, sizeof at, "j");
  else snprintf(at, sizeof at, "j * %" PRId64, st);
  if (fold) {
    if (st == 1) line(e, "acc = ax_f(px[%s]);", p);
    else line(e, "acc = ax_f(px[(%s) * %" PRId64 "]);", p, st);
  }
  int start = fold ? 1 : 0;
  if (np == 1) {
    if (len > start)
      line(e, "for (int j = %d; j < %" PRId64 "; ++j) { const float v = ax_f(px[%s]); %s; }", start, len, at,
           red_step(rr->kind));
  } else if (len % np == 0) {
    if (len / np > start)
      line(e, "for (int k = %d; k < %" PRId64 "; ++k) { const int j = %s + k * %" PRId64 "; const float v = ax_f(px[%s]); %s; }",
           start, len / np, p, np, at, red_step(rr->kind));
  } else {
    char from[64];
    if (fold) snprintf(from, sizeof from, "%s + %" PRId64, p, np);
    else snprintf(from, sizeof from, "%s", p);
    line(e, "for (int j = %s; j < %" PRId64 "; j += %" PRId64 ") { const float v = ax_f(px[%s]); %s; }", from, len, np,
         at, red_step(rr->kind));
  }
}

/* Emits rr (the steps above) and returns how its rows were written: ELEMWISE (row e by
 * thread e: one thread per row) or SCATTERED (by the first lane of the row's lanes). */
static int emit_rowred(KGen *kg, const RowRed *rr) {
  Emit *e = kg->e;
  int64_t rows, len;
  red_shape(&rr->x->shape, rr->axis, rr->t, &rows, &len);
  int64_t np = red_lanes(kg->nt, rows, len);
  if (np == 1) {   /* many rows: one thread per row */
    loop_open(e, rows, false);
    red_row(e, rr, "e");
    line(e, "float acc = 0.0f;");
    red_lane(e, rr, "0", 1, len);
    red_finish(e, rr);
    loop_close(e);
    return ELEMWISE;
  }
  int64_t nw = np > 32 ? np / 32 : 0, seg = np > 32 ? 32 : np;
  int64_t busy = (rows * np + 31) / 32 * 32;   /* the warps that hold a row */
  line(e, "{  // %" PRId64 " row%s of %" PRId64 ": %" PRId64 " lanes each, then shuffles%s", rows, rows == 1 ? "" : "s", len, np,
       nw ? ", then across warps" : "");
  e->ind++;
  AX_ASSERT(!nw || rr->scratch >= 0);   /* laid out by red_scratch, the same count */
  if (nw) line(e, "float *part%d = (float *)(ax_smem + %" PRId64 ");  // per row, one partial per warp", rr->node,
               rr->scratch);
  if (busy < kg->nt) {
    line(e, "if (tid < %" PRId64 ") {", busy);
    e->ind++;
  }
  line(e, "const int r = tid / %" PRId64 ", p = tid %% %" PRId64 ";", np, np);
  if (rows * np < busy) line(e, "float acc = 0.0f;  // lanes past the last row keep 0, in a segment of their own");
  else line(e, "float acc = 0.0f;");
  if (rows * np < busy) {
    line(e, "if (r < %" PRId64 ") {", rows);
    e->ind++;
  }
  red_row(e, rr, "r");
  red_lane(e, rr, "p", np, len);
  if (rows * np < busy) {
    e->ind--;
    line(e, "}");
  }
  line(e, "acc = %s<%" PRId64 ">(acc);", red_warp(rr->kind), seg);
  if (!nw) {
    char cond[64] = "p == 0";
    if (rows * np < busy) snprintf(cond, sizeof cond, "p == 0 && r < %" PRId64, rows);
    line(e, "if (%s) {", cond);
    e->ind++;
    line(e, "const int e = r;");
    red_finish(e, rr);
    e->ind--;
    line(e, "}");
  } else {
    line(e, "if (tid %% 32 == 0) part%d[tid / 32] = acc;", rr->node);
  }
  if (busy < kg->nt) {
    e->ind--;
    line(e, "}");
  }
  if (nw) {
    /* R W' lanes, R W <= NT / 32 <= 32 and W' < 2 W: within NT */
    int64_t w2 = pow2_ceil(nw), busy2 = (rows * w2 + 31) / 32 * 32;
    bool fold = rr->kind == RED_MAX || rr->kind == RED_MIN;
    barrier(kg, "the warps' partials of a row are combined by one warp");
    line(e, "if (tid < %" PRId64 ") {", busy2);
    e->ind++;
    line(e, "const int r = tid / %" PRId64 ", q = tid %% %" PRId64 ";", w2, w2);
    if (w2 == nw) line(e, "float acc = r < %" PRId64 " ? part%d[tid] : 0.0f;", rows, rr->node);
    else if (fold)
      line(e, "float acc = r < %" PRId64 " ? part%d[r * %" PRId64 " + (q < %" PRId64 " ? q : 0)] : 0.0f;", rows,
           rr->node, nw, nw);
    else line(e, "float acc = r < %" PRId64 " && q < %" PRId64 " ? part%d[r * %" PRId64 " + q] : 0.0f;", rows, nw,
              rr->node, nw);
    line(e, "acc = %s<%" PRId64 ">(acc);", red_warp(rr->kind), w2);
    line(e, "if (q == 0 && r < %" PRId64 ") {", rows);
    e->ind++;
    line(e, "const int e = r;");
    red_finish(e, rr);
    e->ind--;
    line(e, "}");
    e->ind--;
    line(e, "}");
  }
  e->ind--;
  line(e, "}");
  return SCATTERED;
}

/* ---- block matmuls on tensor cores ----------------------------------------------------- *
 *
 * Eligible (tc_eligible): f16 or bf16 operands of the output's type, tiles in shared memory
 * (no accumulator, no literal), m, n and k multiples of 16, batch dims equal on both sides,
 * whole warps (NT a multiple of 32). The output is cut into *warp tiles* of wm m16 rows by
 * wp n16 column pairs; each warp takes warp tiles w = warp, warp + NW, ... and computes one
 * by mma.sync.m16n8k16 chains, one per n8 column tile of it (2 wm wp chains, independent, in
 * f32 registers), k step by k step: A's 16 x 16 fragments by ldmatrix.x4 from the row-major
 * A tile (lane l gives row l % 16, columns 8 (l / 16) on), B's two n8 fragments of a pair by
 * one ldmatrix.x4.trans from the row-major B tile (lane l gives k row l % 16, columns 8 (l /
 * 16) on: registers 0-1 are the first n8 tile's b, 2-3 the second's). The result goes from
 * the fragments (d[i] is D[g + 8 (i >> 1)][2q + (i & 1)], g = lane / 4, q = lane % 4)
 * straight into the output tile, rounded once to its type. The same code runs on the GPU
 * (PTX) and in the emulator (gpu/warp.cuh's exact emulations). */

static bool tc_eligible(const AxKernel *k, const AxBNode *n) {
  const AxBNode *a = &k->nodes[n->in[0]], *b = &k->nodes[n->in[1]];
  int r = n->shape.rank;
  if (a->shape.rank != r || b->shape.rank != r) return false;
  if (a->dtype == AX_DT_F32 || a->dtype != b->dtype || a->dtype != n->dtype) return false;
  /* ldmatrix reads 16-bit elements of a tile in shared memory: an accumulator is stored as
   * f32, a literal is no tile */
  for (int j = 0; j < 2; j++) {
    const AxBNode *x = &k->nodes[n->in[j]];
    if (x->kind == AX_BN_ACCUM || (x->kind == AX_BN_OP && ax_pop_literal(x->op))) return false;
  }
  int64_t m = n->shape.dim[r - 2], nn = n->shape.dim[r - 1], kk = a->shape.dim[r - 1];
  if (m % 16 || nn % 16 || kk % 16) return false;
  for (int d = 0; d < r - 2; d++)   /* batch dims: equal on both sides (no broadcasting) */
    if (a->shape.dim[d] != n->shape.dim[d] || b->shape.dim[d] != n->shape.dim[d]) return false;
  return true;
}

/* How a tensor-core matmul is split over the warps. */
typedef struct MmaPlan {
  int64_t batch, m, n, k;   /* batch products of m x k by k x n */
  int64_t wm, wp;           /* a warp tile: wm m16 rows by wp n16 pairs (2 wm wp chains) */
  int64_t tiles, nw;        /* warp tiles in all, warps of the block */
} MmaPlan;

/* At most this many n16 pairs in a warp tile: 2 x 8 chains, 64 f32 registers. */
#define MMA_MAX_PAIRS 8

/* The warp tile: the fewest pairs the busiest warp computes (ceil(tiles / NW) wm wp), then the
 * largest warp tile (fewer rounds, fragments shared by more chains), then the fewest
 * ldmatrix per mma (wm + wp smallest), then the wider tile. */
static MmaPlan mma_plan(const AxKernel *k, const AxBNode *n, int64_t nt) {
  int r = n->shape.rank;
  MmaPlan p = {.m = n->shape.dim[r - 2], .n = n->shape.dim[r - 1], .k = k->nodes[n->in[0]].shape.dim[r - 1],
               .nw = nt / 32};
  p.batch = ax_shape_numel(&n->shape) / (p.m * p.n);
  int64_t tm = p.m / 16, tp = p.n / 16, best_work = -1;
  for (int64_t wm = 1; wm <= tm && wm <= MMA_MAX_PAIRS; wm++) {
    if (tm % wm) continue;
    for (int64_t wp = 1; wp <= tp && wm * wp <= MMA_MAX_PAIRS; wp++) {
      if (tp % wp) continue;
      int64_t tiles = p.batch * (tm / wm) * (tp / wp), work = (tiles + p.nw - 1) / p.nw * wm * wp;
      bool better = best_work < 0 || work < best_work;
      if (!better && work == best_work) {
        int64_t s = wm * wp, bs = p.wm * p.wp;
        better = s > bs || (s == bs && (wm + wp < p.wm + p.wp || (wm + wp == p.wm + p.wp && wp > p.wp)));
      }
      if (better) best_work = work, p.wm = wm, p.wp = wp, p.tiles = tiles;
    }
  }
  return p;
}

/* The XOR swizzle of a tile that only ldmatrix reads: an iterating input of 16-bit elements
 * whose every reader is a tensor-core matmul, copied in 16-byte chunks (its rows and its
 * tensor's rows whole chunks), with C chunks a row, C a multiple of 8 or C = 2, 4. Chunk c
 * of row r is stored at chunk c ^ f(r) of the row: f(r) = r % 8, or (r / (8 / C)) % C for
 * C < 8, so that the 8 rows of an ldmatrix matrix (8 consecutive rows, one logical chunk)
 * fall on 8 different 16-byte bank groups — 4 wavefronts per ldmatrix.x4, not 8 x 4 on
 * 128-byte rows — while a row's chunks stay a permutation of themselves (the copies' 16-byte
 * stores stay conflict-free). The writers (gen_iter_async, copy_box: the loop's cp.async,
 * the plain and the megakernel's prefetch copies) store swizzled and the readers (the
 * matmuls' ldmatrix, mma_chains) read swizzled; a tile any other operator, saver or
 * accumulator reads is stored plainly. Returns C, or 0 when the tile is not swizzled. */
static int64_t swz_chunks(const AxMugraph *g, const AxKernel *k, int i, int64_t nt) {
  const AxBNode *n = &k->nodes[i];
  if (n->kind != AX_BN_ITER || nt % 32 || ax_dtype_bytes(n->dtype) != 2 || n->shape.rank < 1) return 0;
  int r = n->shape.rank;
  const AxTShape *full = &g->tensors[n->src].shape;
  if (n->shape.dim[r - 1] % 8 || full->dim[r - 1] % 8) return 0;
  int64_t c = n->shape.dim[r - 1] / 8;
  if (c % 8 && c != 2 && c != 4) return 0;
  int readers = 0;
  for (int j = 0; j < k->nnodes; j++)
    for (int q = 0; q < k->nodes[j].nin; q++)
      if (k->nodes[j].in[q] == i) {
        const AxBNode *m = &k->nodes[j];
        if (m->kind != AX_BN_OP || !ax_pop_tensor_core(m->op) || !tc_eligible(k, m)) return 0;
        readers++;
      }
  return readers ? c : 0;
}

/* f(r) of swz_chunks for rows of c chunks, r an expression (parenthesized). */
static void swz_xor(int64_t c, const char *r, char *buf, size_t n) {
  if (c % 8 == 0) snprintf(buf, n, "(%s) %% 8", r);
  else snprintf(buf, n, "(%s) / %" PRId64 " %% %" PRId64, r, 8 / c, c);
}

/* The stored chunk index of logical chunk e (an expression, the row-major chunk index of
 * the tile) in a tile swizzled with c chunks a row. */
static void swz_chunk(int64_t c, const char *e, char *buf, size_t n) {
  char row[96], f[160];
  snprintf(row, sizeof row, "%s / %" PRId64, e, c);
  swz_xor(c, row, f, sizeof f);
  snprintf(buf, n, "(%s / %" PRId64 " * %" PRId64 " + (%s %% %" PRId64 " ^ %s))", e, c, c, e, c, f);
}

/* The register accumulators: a tensor-core matmul of the loop whose only reader is a sum
 * accumulator of its shape (no axis, no rescale) and whose warp tiles are one per warp keeps
 * the accumulator in its warps' f32 fragments across the iterations. Each iteration's
 * product is rounded to the matmul's type in the registers and added — where the float
 * interpreter rounds it (storage rounding: a stored matmul result has its type) — and the
 * accumulator's finish writes the fragments, rounded to its type, into its f32 tile. At
 * most 2 x 4 chains per matmul and 64 f32 registers per lane for all of them. Sets
 * racc[i] = j and racc[j] = i for each such pair (matmul i, accumulator j), else -1. */
#define REG_ACC_PAIRS 4
#define REG_ACC_FLOATS 64
static void reg_acc_plan(const AxKernel *k, int64_t nt, int *racc) {
  int nn = k->nnodes, floats = 0;
  for (int i = 0; i < nn; i++) racc[i] = -1;
  if (nt % 32) return;
  for (int i = 0; i < nn; i++) {
    const AxBNode *n = &k->nodes[i];
    if (n->kind != AX_BN_OP || !ax_pop_tensor_core(n->op) || n->phase != AX_PH_LOOP || !tc_eligible(k, n)) continue;
    int reader = -1, readers = 0;
    for (int j = 0; j < nn; j++)
      for (int q = 0; q < k->nodes[j].nin; q++)
        if (k->nodes[j].in[q] == i) readers++, reader = j;
    if (readers != 1) continue;
    const AxBNode *a = &k->nodes[reader];
    if (a->kind != AX_BN_ACCUM || a->acc != AX_ACC_SUM || a->at.axis_set || a->at.to || a->rescaled ||
        !ax_shape_equal(&a->shape, &n->shape))
      continue;
    MmaPlan p = mma_plan(k, n, nt);
    int64_t f = 8 * p.wm * p.wp;
    if (p.tiles > p.nw || p.wm * p.wp > REG_ACC_PAIRS || floats + f > REG_ACC_FLOATS) continue;
    floats += (int)f;
    racc[i] = reader;
    racc[reader] = i;
  }
}

/* Opens the warps' loop over plan p's warp tiles (w, the tile; bt, its batch; tm, tn, its
 * first row and column) and declares warp and lane. Closed by mma_close. */
static void mma_open(Emit *e, const MmaPlan *p) {
  line(e, "const int warp = tid / 32, lane = tid %% 32;");
  if (p->tiles == p->nw) line(e, "{");
  else if (p->tiles < p->nw) line(e, "if (warp < %" PRId64 ") {", p->tiles);
  else line(e, "for (int w = warp; w < %" PRId64 "; w += %" PRId64 ") {", p->tiles, p->nw);
  e->ind++;
  if (p->tiles <= p->nw) line(e, "const int w = warp;");
  int64_t cols = p->n / (16 * p->wp), rows = p->m / (16 * p->wm);
  line(e, "[[maybe_unused]] const int bt = w / %" PRId64 ";", rows * cols);
  line(e, "const int tm = (w / %" PRId64 ") %% %" PRId64 " * %" PRId64 ", tn = w %% %" PRId64 " * %" PRId64 ";", cols,
       rows, 16 * p->wm, cols, 16 * p->wp);
}

/* The chains' fragments d<c> of warp tile (bt, tm, tn): chain c = i 2 wp + j is m16 row i,
 * n8 column j of the warp tile; acc: the chains start from zero. */
static void mma_chains(Emit *e, const MmaPlan *p, const Opnd *a, const Opnd *b, int64_t swa, int64_t swb) {
  int64_t nc = 2 * p->wm * p->wp;
  for (int64_t c = 0; c < nc; c++) line(e, "float d%" PRId64 "[4] = {0.0f, 0.0f, 0.0f, 0.0f};", c);
  /* lane l's row is l % 16 of a 16-row block (blocks start at multiples of 16): its
   * swizzle, f(l % 16), is the lane's own for every block and k step */
  char f[96];
  if (swa) {
    swz_xor(swa, "lane & 15", f, sizeof f);
    line(e, "const %s *pa = %s + bt * %" PRId64 " + (tm + (lane & 15)) * %" PRId64 ";  // rows swizzled (%" PRId64
            " chunks)", stype(a), a->name, p->m * p->k, p->k, swa);
    line(e, "const int sa = %s, ca = lane >> 4;", f);
  } else {
    line(e, "const %s *pa = %s + bt * %" PRId64 " + (tm + (lane & 15)) * %" PRId64 " + (lane >> 4) * 8;", stype(a),
         a->name, p->m * p->k, p->k);
  }
  if (swb) {
    swz_xor(swb, "lane & 15", f, sizeof f);
    line(e, "const %s *pb = %s + bt * %" PRId64 " + (lane & 15) * %" PRId64 ";  // rows swizzled (%" PRId64 " chunks)",
         stype(b), b->name, p->k * p->n, p->n, swb);
    line(e, "const int sb = %s, cb = (tn >> 3) + (lane >> 4);", f);
  } else {
    line(e, "const %s *pb = %s + bt * %" PRId64 " + (lane & 15) * %" PRId64 " + tn + (lane >> 4) * 8;", stype(b),
         b->name, p->k * p->n, p->n);
  }
  line(e, "for (int q = 0; q < %" PRId64 "; q += 16) {", p->k);
  e->ind++;
  const char *mma = a->dt == AX_DT_BF16 ? "ax_mma_m16n8k16_bf16" : "ax_mma_m16n8k16_f16";
  for (int64_t i = 0; i < p->wm; i++) {
    line(e, "unsigned a%" PRId64 "[4];", i);
    char at[64] = "";
    if (i) snprintf(at, sizeof at, " + %" PRId64, i * 16 * p->k);
    if (swa) line(e, "ax_ldmatrix_x4(a%" PRId64 ", pa%s + (((q >> 3) + ca) ^ sa) * 8);", i, at);
    else line(e, "ax_ldmatrix_x4(a%" PRId64 ", pa%s + q);", i, at);
  }
  for (int64_t j = 0; j < p->wp; j++) {
    line(e, "unsigned b%" PRId64 "[4];", j);
    if (swb && j) line(e, "ax_ldmatrix_x4_trans(b%" PRId64 ", pb + q * %" PRId64 " + ((cb + %" PRId64 ") ^ sb) * 8);", j,
                       p->n, 2 * j);
    else if (swb) line(e, "ax_ldmatrix_x4_trans(b0, pb + q * %" PRId64 " + (cb ^ sb) * 8);", p->n);
    else if (j) line(e, "ax_ldmatrix_x4_trans(b%" PRId64 ", pb + q * %" PRId64 " + %" PRId64 ");", j, p->n, j * 16);
    else line(e, "ax_ldmatrix_x4_trans(b0, pb + q * %" PRId64 ");", p->n);
    line(e, "const unsigned b%" PRId64 "l[2] = {b%" PRId64 "[0], b%" PRId64 "[1]}, b%" PRId64 "h[2] = {b%" PRId64
            "[2], b%" PRId64 "[3]};", j, j, j, j, j, j);
  }
  for (int64_t i = 0; i < p->wm; i++)
    for (int64_t j = 0; j < 2 * p->wp; j++) {
      int64_t c = i * 2 * p->wp + j;
      line(e, "%s(d%" PRId64 ", a%" PRId64 ", b%" PRId64 "%c, d%" PRId64 ");", mma, c, i, j / 2, j % 2 ? 'h' : 'l', c);
    }
  e->ind--;
  line(e, "}");
}

/* Writes chain fragments `src` (a format of the chain c and element x, e.g. "d%d[%d]") of
 * the warp tile into out (the tile at `to`, storage type ty, n columns), each element
 * through `conv` (a format of the value): elements x and x + 1 are adjacent columns of one
 * row, so each pair is one store (ax_st2: 32-bit for 16-bit types), never a 16-bit one. */
static void mma_store(Emit *e, const MmaPlan *p, const char *to, const char *ty, const char *src, const char *conv) {
  line(e, "%s *po = %s + bt * %" PRId64 " + (tm + lane / 4) * %" PRId64 " + tn + 2 * (lane %% 4);", ty, to,
       p->m * p->n, p->n);
  int64_t nc = 2 * p->wm * p->wp;
  for (int64_t c = 0; c < nc; c++) {
    int64_t i = c / (2 * p->wp), j = c % (2 * p->wp);
    for (int x = 0; x < 4; x += 2) {
      char v0[64], v1[64], val0[128], val1[128];
      snprintf(v0, sizeof v0, src, (int)c, x);
      snprintf(v1, sizeof v1, src, (int)c, x + 1);
      snprintf(val0, sizeof val0, conv, v0);
      snprintf(val1, sizeof val1, conv, v1);
      line(e, "ax_st2(po + %" PRId64 ", %s, %s);", (i * 16 + 8 * (x >> 1)) * p->n + j * 8, val0, val1);
    }
  }
}

static void gen_matmul(KGen *kg, int i) {
  const AxBNode *n = &kg->k->nodes[i];
  Emit *e = kg->e;
  need(kg, n->in[0], false, n->name);
  need(kg, n->in[1], false, n->name);
  const Opnd *out = &kg->t[i].o, *a = &kg->t[n->in[0]].o, *b = &kg->t[n->in[1]].o;
  if (!tc_eligible(kg->k, n) || kg->nt % 32) {
    body_matmul(e, out, a, b, false);
    kg->t[i].dirty = ELEMWISE;
    return;
  }
  MmaPlan p = mma_plan(kg->k, n, kg->nt);
  int j = kg->racc[i];
  char conv[64];
  snprintf(conv, sizeof conv, "ax_to<%s>(%%s)", stype(out));
  line(e, "{  // tensor cores: mma.sync m16n8k16 fed by ldmatrix, f32 in registers; %" PRId64 " warp tile%s of %" PRId64
          " x %" PRId64 " (%" PRId64 " chains)%s", p.tiles, p.tiles == 1 ? "" : "s", 16 * p.wm, 16 * p.wp,
       2 * p.wm * p.wp, j >= 0 ? ", added to an accumulator in registers" : "");
  e->ind++;
  mma_open(e, &p);
  mma_chains(e, &p, a, b, swz_chunks(kg->g, kg->k, n->in[0], kg->nt), swz_chunks(kg->g, kg->k, n->in[1], kg->nt));
  if (j >= 0) {
    /* the μGraph stores the product in its type before the accumulator adds it */
    line(e, "// this iteration's product, rounded to %s as the mugraph stores it, added to '%s' (f32)",
         ax_dtype_name(n->dtype), kg->k->nodes[j].name);
    for (int64_t c = 0; c < 2 * p.wm * p.wp; c++)
      for (int x = 0; x < 4; x++)
        line(e, "rf%d_%" PRId64 "[%d] += ax_f(ax_to<%s>(d%" PRId64 "[%d]));", j, c, x, stype(out), c, x);
  } else {
    line(e, "// d[i] is D[g + 8 (i >> 1)][2q + (i & 1)], g = lane / 4, q = lane %% 4: rounded once to %s",
         ax_dtype_name(n->dtype));
    mma_store(e, &p, out->name, stype(out), "d%d[%d]", conv);
  }
  e->ind--;
  line(e, "}");
  e->ind--;
  line(e, "}");
  kg->t[i].dirty = SCATTERED;
}

/* Register accumulator j (racc) before the loop: its fragments, zero. */
static void gen_reg_acc_init(KGen *kg, int j) {
  int i = kg->racc[j];
  MmaPlan p = mma_plan(kg->k, &kg->k->nodes[i], kg->nt);
  line(kg->e, "// '%s' in registers: the f32 fragments of the mma chains of '%s' (%" PRId64 " per lane)",
       kg->k->nodes[j].name, kg->k->nodes[i].name, 8 * p.wm * p.wp);
  for (int64_t c = 0; c < 2 * p.wm * p.wp; c++)
    line(kg->e, "float rf%d_%" PRId64 "[4] = {0.0f, 0.0f, 0.0f, 0.0f};", j, c);
}

/* Register accumulator j after the loop: its fragments, rounded to its type, into its f32
 * tile (the warp tiles of its matmul). */
static void gen_reg_acc_finish(KGen *kg, int j) {
  Emit *e = kg->e;
  int i = kg->racc[j];
  MmaPlan p = mma_plan(kg->k, &kg->k->nodes[i], kg->nt);
  char src[32], conv[64];
  snprintf(src, sizeof src, "rf%d_%%d[%%d]", j);
  snprintf(conv, sizeof conv, "ax_f(ax_to<%s>(%%s))", ax_cuda_ctype(kg->k->nodes[j].dtype));
  line(e, "{  // '%s': its fragments, rounded to %s, into its tile", kg->k->nodes[j].name,
       ax_dtype_name(kg->k->nodes[j].dtype));
  e->ind++;
  mma_open(e, &p);
  mma_store(e, &p, kg->t[j].o.name, "float", src, conv);
  e->ind--;
  line(e, "}");
  e->ind--;
  line(e, "}");
  kg->t[j].dirty = SCATTERED;
}

static void blk_matmul(KGen *kg, int i, Opnd *out, const Opnd *in, int nin, const char *store) {
  (void)out, (void)in, (void)nin, (void)store;
  gen_matmul(kg, i);
}

/* Down to how many elements a block sum, max or min reduces (its `to`; a mean: 1). */
static int64_t red_to(const AxBNode *n) {
  bool to = n->op == AX_OP_REDUCE || n->op == AX_OP_REDUCE_MAX || n->op == AX_OP_REDUCE_MIN;
  return to && n->at.to ? n->at.to : 1;
}

/* The statement that stores `acc` (times scale) through `store`, a format with one %s. */
static void store_text(char *buf, size_t n, const char *store, double scale) {
  char val[96];
  if (scale != 1.0) snprintf(val, sizeof val, "acc * %.9gf", scale);
  else snprintf(val, sizeof val, "acc");
  snprintf(buf, n, store, val);
}

/* A block sum along the node's axis down to t elements, scaled by sc (a mean): a row
 * reduction (emit_rowred), its rows split over lanes and warps when they are few (a row
 * norm's sum over a whole row in one block). */
static void sum_block(KGen *kg, int i, Opnd *out, const Opnd *in, int64_t t, double sc, const char *store) {
  (void)out;
  const AxBNode *n = &kg->k->nodes[i];
  need(kg, n->in[0], false, n->name);
  char fin[160];
  store_text(fin, sizeof fin, store, sc);
  RowRed rr = {.x = &in[0], .axis = n->at.axis, .t = t, .kind = RED_SUM, .node = i, .scratch = kg->scr[i],
               .finish = {fin}};
  kg->t[i].dirty = emit_rowred(kg, &rr);
}

/* A block max or min: sum_block's row reduction with the fold in place of the sum. */
static void fold_block(KGen *kg, int i, AxOp op, Opnd *out, const Opnd *in, const char *store) {
  (void)out;
  const AxBNode *n = &kg->k->nodes[i];
  need(kg, n->in[0], false, n->name);
  char fin[160];
  store_text(fin, sizeof fin, store, 1.0);
  RowRed rr = {.x = &in[0], .axis = n->at.axis, .t = red_to(n), .kind = op == AX_OP_MAX ? RED_MAX : RED_MIN,
               .node = i, .scratch = kg->scr[i], .finish = {fin}};
  kg->t[i].dirty = emit_rowred(kg, &rr);
}

/* ---- pre-defined reductions and normalizations: row kernels ------------------------------ *
 *
 * sum, mean, reduce_max, reduce_min and rms_norm as kernels of their own, laid out by
 * ax_pop_rowplan (superopt/ir/pop.h; cost.c prices the same plan):
 *   rows (the reduced elements adjacent): `lanes` = 32 W threads a row, 8 / W rows a block
 *     of 256. Lane p takes the row's 8-element chunks p, p + lanes, ... as 16-byte vector
 *     loads (ax_pack8) when the row's length is a multiple of 8 and the bases are 16-byte
 *     aligned — checked at run time; every row then starts aligned too, its bytes being a
 *     multiple of 16 — else single elements p, p + lanes, ...; then ax_warp_sum/max/min<32>
 *     over the warp and, for W > 1, the W warps' partials through shared memory, which
 *     every lane adds in the same order, so all lanes of a row hold the same bits. rms_norm
 *     reads the row once more (from L1/L2: the block has just read it) and writes
 *     x / sqrt(mean(x²)).
 *   columns (elements after the axis, or a sum to a size): one thread per output,
 *     grid-stride, its elements `stride` apart; adjacent threads read adjacent elements, so
 *     each step of the loop is one coalesced access of the warp. rms_norm reads its column
 *     once more for the output.
 * The rows go in groups of 8 / W, one group per block and iteration of a grid-stride loop
 * over the groups: the whole block runs every iteration, so every thread reaches the
 * barriers and every lane the shuffles. A row past the last (the last group may be short)
 * is dead: its lanes reduce row 0 again and store nothing. A max or min starts from the
 * row's first element, so no -inf identity is needed (a lane with no element of its own
 * holds that one, which changes no max or min). Values are f32, rounded once to the
 * output's type — where the float interpreter rounds. */

/* The statement that combines the f32 `x` into `acc`. */
static const char *row_step(RedKind k) {
  switch (k) {
  case RED_SUM: return "acc += x";
  case RED_SQUARES: return "acc += x * x";
  case RED_MAX: return "acc = ax_max(acc, x)";
  case RED_MIN: return "acc = ax_min(acc, x)";
  }
  AX_UNREACHABLE();
}

/* Lane p's loop (of np lanes) over the items p, p + np, ... below n, item `it`: a fixed trip
 * count where np divides n. Closed by loop_close. */
static void lane_loop_open(Emit *e, const char *it, int64_t n, int64_t np) {
  if (n % np == 0) {
    line(e, "for (int k = 0; k < %" PRId64 "; ++k) {", n / np);
    e->ind++;
    line(e, "const int %s = p + k * %" PRId64 ";", it, np);
    return;
  }
  line(e, "for (int %s = p; %s < %" PRId64 "; %s += %" PRId64 ") {", it, it, n, it, np);
  e->ind++;
}

/* The row kernel of plan pl: x's rows reduced (kind k, times scale) into out, or with norm
 * every row of x normalized into out. */
static void pre_rows(Emit *e, const AxPopRowPlan *pl, RedKind k, double scale, bool norm, const Opnd *out,
                     const Opnd *x) {
  int64_t len = pl->len, np = pl->lanes, w = np / 32, per = pl->per_block;
  bool vec = len % 8 == 0, dead = pl->outputs % per != 0, fold = k == RED_MAX || k == RED_MIN;
  const char *tx = stype(x), *to = stype(out);
  line(e, "const int tid = threadIdx.x, p = tid %% %" PRId64 ";  // the lane of its row", np);
  if (per > 1) line(e, "const int rb = tid / %" PRId64 ";  // its row in the group", np);
  if (w > 1) {
    line(e, "AX_SMEM_STATIC(ax_rowsm, %d);", AX_POP_ROW_THREADS / 32 * 4);
    line(e, "float *part = (float *)ax_rowsm;  // a partial per warp");
  }
  if (vec && norm)
    line(e, "const bool vec = (uintptr_t)%s %% 16 == 0 && (uintptr_t)%s %% 16 == 0;", x->name, out->name);
  else if (vec)
    line(e, "const bool vec = (uintptr_t)%s %% 16 == 0;", x->name);
  line(e, "for (long long g = blockIdx.x; g < %" PRId64 "LL; g += gridDim.x) {", pl->groups);
  e->ind++;
  char r[64];
  if (per > 1) snprintf(r, sizeof r, "g * %" PRId64 " + rb", per);
  else snprintf(r, sizeof r, "g");
  if (dead) {
    line(e, "const bool live = %s < %" PRId64 "LL;", r, pl->outputs);
    line(e, "const long long r = live ? %s : 0;", r);
  } else {
    line(e, "const long long r = %s;", r);
  }
  line(e, "const %s *px = %s + r * %" PRId64 "LL;", tx, x->name, len);
  line(e, "%s", fold ? "float acc = ax_f(px[0]);" : "float acc = 0.0f;");
  if (vec) {
    line(e, "if (vec) {");
    e->ind++;
    lane_loop_open(e, "c", len / 8, np);
    line(e, "const ax_pack8<%s> v = *(const ax_pack8<%s> *)(px + 8 * c);", tx, tx);
    line(e, "for (int q = 0; q < 8; ++q) { const float x = ax_f(v.v[q]); %s; }", row_step(k));
    loop_close(e);
    e->ind--;
    line(e, "} else {");
    e->ind++;
  }
  lane_loop_open(e, "j", len, np);
  line(e, "const float x = ax_f(px[j]);");
  line(e, "%s;", row_step(k));
  loop_close(e);
  if (vec) loop_close(e);
  line(e, "acc = %s<32>(acc);", red_warp(k));
  if (w > 1) {
    line(e, "if (tid %% 32 == 0) part[tid / 32] = acc;");
    line(e, "__syncthreads();  // the row's %" PRId64 " warps' partials", w);
    char base[32];
    if (per > 1) snprintf(base, sizeof base, "rb * %" PRId64, w);
    else snprintf(base, sizeof base, "0");
    line(e, "acc = part[%s];", base);
    line(e, "for (int q = 1; q < %" PRId64 "; ++q) { const float x = part[%s + q]; %s; }", w, base,
         row_step(k == RED_SQUARES ? RED_SUM : k));
    if (pl->groups > pl->blocks)   /* a block runs more than one group */
      line(e, "__syncthreads();  // read before the next group's partials are written");
  }
  if (!norm) {
    char val[64];
    if (scale != 1.0) snprintf(val, sizeof val, "acc * %.9gf", scale);
    else snprintf(val, sizeof val, "acc");
    line(e, "if (p == 0%s) %s[r] = ax_to<%s>(%s);", dead ? " && live" : "", out->name, to, val);
  } else {
    line(e, "const float rs = sqrtf(acc * %.9gf);", 1.0 / (double)len);
    if (dead) {
      line(e, "if (live) {");
      e->ind++;
    }
    line(e, "%s *po = %s + r * %" PRId64 "LL;", to, out->name, len);
    if (vec) {
      line(e, "if (vec) {");
      e->ind++;
      lane_loop_open(e, "c", len / 8, np);
      line(e, "const ax_pack8<%s> v = *(const ax_pack8<%s> *)(px + 8 * c);", tx, tx);
      line(e, "ax_pack8<%s> y;", to);
      line(e, "for (int q = 0; q < 8; ++q) y.v[q] = ax_to<%s>(ax_f(v.v[q]) / rs);", to);
      line(e, "*(ax_pack8<%s> *)(po + 8 * c) = y;", to);
      loop_close(e);
      e->ind--;
      line(e, "} else {");
      e->ind++;
    }
    lane_loop_open(e, "j", len, np);
    line(e, "po[j] = ax_to<%s>(ax_f(px[j]) / rs);", to);
    loop_close(e);
    if (vec) loop_close(e);
    if (dead) loop_close(e);
  }
  loop_close(e);
}

/* The column kernel of plan pl: one thread per output (o, c), its elements at
 * x[o · len · stride + j · stride + c]. */
static void pre_columns(Emit *e, const AxPopRowPlan *pl, RedKind k, double scale, bool norm, const Opnd *out,
                        const Opnd *x) {
  int64_t len = pl->len, st = pl->stride;
  bool fold = k == RED_MAX || k == RED_MIN;
  loop_open(e, pl->outputs, true);
  line(e, "const long long o = e / %" PRId64 ", c = e %% %" PRId64 ";", st, st);
  line(e, "const %s *px = %s + o * %" PRId64 "LL + c;", stype(x), x->name, len * st);
  line(e, "%s", fold ? "float acc = ax_f(px[0]);" : "float acc = 0.0f;");
  if (len > (fold ? 1 : 0))
    line(e, "for (int j = %d; j < %" PRId64 "; ++j) { const float x = ax_f(px[(long long)j * %" PRId64 "]); %s; }",
         fold ? 1 : 0, len, st, row_step(k));
  if (!norm) {
    if (scale != 1.0) line(e, "%s[e] = ax_to<%s>(acc * %.9gf);", out->name, stype(out), scale);
    else line(e, "%s[e] = ax_to<%s>(acc);", out->name, stype(out));
  } else {
    line(e, "const float rs = sqrtf(acc * %.9gf);", 1.0 / (double)len);
    line(e, "%s *po = %s + o * %" PRId64 "LL + c;", stype(out), out->name, len * st);
    line(e, "for (int j = 0; j < %" PRId64 "; ++j) po[(long long)j * %" PRId64 "] = ax_to<%s>(ax_f(px[(long long)j * %" PRId64 "]) / rs);",
         len, st, stype(out), st);
  }
  loop_close(e);
}

/* A pre-defined reduction of in[0] along st's axis down to `to` (kind k, times scale), or
 * with norm its rms_norm: the row or the column kernel its plan says. */
static void pre_reduce(Emit *e, const AxKStmt *st, const Opnd *out, const Opnd *in, RedKind k, int64_t to,
                       double scale, bool norm) {
  AxPopRowPlan pl;
  ax_pop_rowplan(&in[0].shape, st->at.axis, to, &pl);
  if (pl.rows) pre_rows(e, &pl, k, scale, norm, out, &in[0]);
  else pre_columns(e, &pl, k, scale, norm, out, &in[0]);
}

static void pre_sum(Emit *e, const AxKStmt *st, const Opnd *out, const Opnd *in, const char *store) {
  (void)store;
  pre_reduce(e, st, out, in, RED_SUM, st->at.to, 1.0, false);
}

static void pre_mean(Emit *e, const AxKStmt *st, const Opnd *out, const Opnd *in, const char *store) {
  (void)store;
  pre_reduce(e, st, out, in, RED_SUM, 1, 1.0 / (double)in[0].shape.dim[st->at.axis], false);
}

static void pre_rms_norm(Emit *e, const AxKStmt *st, const Opnd *out, const Opnd *in, const char *store) {
  (void)store;
  pre_reduce(e, st, out, in, RED_SQUARES, 1, 1.0, true);
}

static void pre_max(Emit *e, const AxKStmt *st, const Opnd *out, const Opnd *in, const char *store) {
  (void)store;
  pre_reduce(e, st, out, in, RED_MAX, st->at.to, 1.0, false);
}

static void pre_min(Emit *e, const AxKStmt *st, const Opnd *out, const Opnd *in, const char *store) {
  (void)store;
  pre_reduce(e, st, out, in, RED_MIN, st->at.to, 1.0, false);
}

/* ---- pre-defined element-wise kernels ---------------------------------------------------- */

/* Whether operand o of an element-wise operator with result shape `out` is read as a
 * vector: a tensor of the result's shape (a literal or a one-element tensor is read whole
 * by every step). */
static bool ew_vector_operand(const Opnd *o, const AxTShape *out) {
  return !o->is_const && ax_shape_equal(&o->shape, out);
}

/* out = op(in...) as a pre-defined kernel. With at least 8 elements and no operand
 * broadcast (each of the result's shape, a single element or a literal), each step of the
 * grid-stride loop moves 8 elements as packs (ax_pack8: 16-byte vector loads and stores of
 * f16 or bf16, two of f32) when the bases of out and of the operands read as packs are
 * 16-byte aligned — checked at run time —; then the last n % 8 elements, or all of them when
 * a base is not aligned, go one at a time. Otherwise one element a step. */
/* Whether pre_elementwise moves packs: at least 8 elements, no operand broadcast. */
static bool ew_packed(const Opnd *out, const Opnd *in, int nin) {
  bool vec = ax_shape_numel(&out->shape) >= 8;
  for (int j = 0; j < nin; j++)
    if (!in[j].is_const && !ew_vector_operand(&in[j], &out->shape) && ax_shape_numel(&in[j].shape) != 1) vec = false;
  return vec;
}

static void pre_elementwise(Emit *e, AxOp op, const Opnd *out, const Opnd *in, int nin) {
  const AxTShape *os = &out->shape;
  int64_t n = ax_shape_numel(os);
  if (!ew_packed(out, in, nin)) {
    body_elementwise(e, op, out, in, nin, true);
    return;
  }
  line(e, "const long long gt = (long long)blockIdx.x * blockDim.x + threadIdx.x, gs = (long long)gridDim.x * blockDim.x;");
  char cond[512];
  size_t u = (size_t)snprintf(cond, sizeof cond, "(uintptr_t)%s %% 16 == 0", out->name);
  int first[AX_MAXIN];   /* the first operand that is the same tensor (mul(d, d)) */
  for (int j = 0; j < nin; j++) {
    first[j] = j;
    for (int q = 0; q < j; q++)
      if (!in[q].is_const && !in[j].is_const && strcmp(in[q].name, in[j].name) == 0) {
        first[j] = q;
        break;
      }
    if (ew_vector_operand(&in[j], os) && first[j] == j && u < sizeof cond)
      u += (size_t)snprintf(cond + u, sizeof cond - u, " && (uintptr_t)%s %% 16 == 0", in[j].name);
  }
  line(e, "const bool vec = %s;", cond);
  line(e, "if (vec) {");
  e->ind++;
  line(e, "for (long long c = gt; c < %" PRId64 "LL; c += gs) {", n / 8);
  e->ind++;
  for (int j = 0; j < nin; j++)
    if (ew_vector_operand(&in[j], os) && first[j] == j)
      line(e, "const ax_pack8<%s> v%d = *(const ax_pack8<%s> *)(%s + 8 * c);", stype(&in[j]), j, stype(&in[j]),
           in[j].name);
  line(e, "ax_pack8<%s> y;", stype(out));
  line(e, "for (int q = 0; q < 8; ++q) {");
  e->ind++;
  char v[320];
  for (int j = 0; j < nin; j++) {
    if (ew_vector_operand(&in[j], os)) snprintf(v, sizeof v, "ax_f(v%d.v[q])", first[j]);
    else value(&in[j], os, v, sizeof v);   /* a literal, or element 0 */
    line(e, "const float a%d = %s;", j, v);
  }
  line(e, "y.v[q] = ax_to<%s>(%s);", stype(out), ew_expr(op));
  loop_close(e);
  line(e, "*(ax_pack8<%s> *)(%s + 8 * c) = y;", stype(out), out->name);
  loop_close(e);
  loop_close(e);
  line(e, "for (long long e = (vec ? %" PRId64 "LL : 0LL) + gt; e < %" PRId64 "LL; e += gs) {", n / 8 * 8, n);
  e->ind++;
  ew_element(e, op, out, in, nin, true);
  loop_close(e);
}

/* ---- pre-defined matmul: cuBLAS ------------------------------------------------------------ *
 *
 * A pre-defined matmul is a cuBLAS call from the host entry (docs/gpu.md, "Pre-defined
 * operators": why cuBLAS, the handle): cublasGemmStridedBatchedEx with the operands' and
 * the result's own types (f16, bf16 or f32; one type, mugraph.h) and CUBLAS_COMPUTE_32F —
 * f32 products and sums, rounded once to the result's type, as the interpreter rounds.
 * cuBLAS is column-major and the tensors are row-major: a row-major m x n C is the
 * column-major n x m C^T, and C^T = B^T A^T, where the row-major B (k x n) is the
 * column-major B^T with leading dimension n and A likewise A^T with k — so the call is
 * gemm(N, N, n, m, k, B, n, A, k, C, n), no transposition. Batch dims broadcast: the
 * output's batch splits into an outer part, looped over on the host, and the longest
 * suffix over which each operand either has the output's dims (its matrices one after
 * another: stride one matrix) or none of them (stride 0) — one batched call per outer
 * index; a plain batch or one shared operand (the usual cases) is one call. */

static const char *cublas_type(AxDtype t) {
  switch (t) {
  case AX_DT_F16: return "CUDA_R_16F";
  case AX_DT_BF16: return "CUDA_R_16BF";
  case AX_DT_F32: return "CUDA_R_32F";
  }
  AX_UNREACHABLE();
}

/* How operand x's batch meets the output's (shape o) at output batch dim d: 0 the output's
 * dim is 1 (either reading fits), 1 x has it, 2 x broadcasts along it (size 1 or absent). */
static int mm_bclass(const AxTShape *o, const AxTShape *x, int d) {
  int shift = (o->rank - 2) - (x->rank - 2);
  if (o->dim[d] == 1) return 0;
  if (d < shift || x->dim[d - shift] == 1) return 2;
  return 1;
}

/* The split: the least j such that over the output batch dims j.. each operand is all of
 * class 1 or all of class 2 (class 0 aside). *inner gets the product of those dims, *outer
 * of the others, stride[q] the operand's matrix stride inside the suffix (1 or 0). */
static int mm_split(const AxTShape *o, const AxTShape *const x[2], int64_t *outer, int64_t *inner, int stride[2]) {
  int rb = o->rank - 2, j = rb;
  int cls[2] = {0, 0};
  while (j > 0) {
    int c[2] = {cls[0], cls[1]};
    bool ok = true;
    for (int q = 0; q < 2; q++) {
      int b = mm_bclass(o, x[q], j - 1);
      if (b && c[q] && b != c[q]) ok = false;
      if (b) c[q] = b;
    }
    if (!ok) break;
    cls[0] = c[0], cls[1] = c[1];
    j--;
  }
  *outer = *inner = 1;
  for (int d = 0; d < rb; d++) *(d < j ? outer : inner) *= o->dim[d];
  for (int q = 0; q < 2; q++) stride[q] = cls[q] == 2 ? 0 : 1;
  return j;
}

/* The matrix index of operand x (its batch dims) at the output's outer batch digits
 * i0..i{j-1} (the suffix's digits 0), as an expression; "0" when x has none of them. */
static void mm_index(const AxTShape *o, const AxTShape *x, int j, char *buf, size_t n) {
  int xb = x->rank - 2, shift = (o->rank - 2) - xb;
  size_t u = 0;
  buf[0] = 0;
  for (int d = 0; d < j; d++) {
    if (d < shift || x->dim[d - shift] == 1) continue;
    int64_t st = 1;
    for (int q = d - shift + 1; q < xb; q++) st *= x->dim[q];
    u += (size_t)snprintf(buf + u, u < n ? n - u : 0, "%si%d * %" PRId64 "LL", u ? " + " : "", d, st);
  }
  if (!buf[0]) snprintf(buf, n, "0");
}

/* Why matmul statement st cannot be a cuBLAS call (a size beyond its int arguments), or
 * NULL. */
static const char *mm_too_large(const AxMugraph *g, const AxKStmt *st, int64_t *what) {
  const AxTShape *o = &g->tensors[st->t].shape, *x[2] = {&g->tensors[st->in[0]].shape, &g->tensors[st->in[1]].shape};
  int64_t outer, inner;
  int stride[2];
  mm_split(o, x, &outer, &inner, stride);
  int64_t m = o->dim[o->rank - 2], n = o->dim[o->rank - 1], k = x[0]->dim[x[0]->rank - 1];
  const char *names[4] = {"m", "n", "k", "batch"};
  int64_t v[4] = {m, n, k, inner};
  for (int i = 0; i < 4; i++)
    if (v[i] > INT32_MAX) {
      *what = v[i];
      return names[i];
    }
  return NULL;
}

static void lib_matmul(Emit *e, const AxMugraph *g, int s) {
  const AxKStmt *st = &g->stmts[s];
  const AxKTensor *ot = &g->tensors[st->t], *at = &g->tensors[st->in[0]], *bt = &g->tensors[st->in[1]];
  const AxTShape *o = &ot->shape, *x[2] = {&at->shape, &bt->shape};
  int64_t m = o->dim[o->rank - 2], n = o->dim[o->rank - 1], k = x[0]->dim[x[0]->rank - 1];
  int64_t outer, inner;
  int stride[2];
  int j = mm_split(o, x, &outer, &inner, stride);
  char sb[96];
  line(e, "{  // '%s' = matmul(...) %s%s, pre-defined: cuBLAS, f32 compute; row-major C = A B as C^T = B^T A^T",
       ot->name, ax_dtype_name(ot->dtype), ax_shape_str(o, sb, sizeof sb));
  e->ind++;
  line(e, "cublasHandle_t h = NULL;");
  line(e, "if ((ax_rc = ax_cublas(stream, &h)) != 0) goto done;");
  line(e, "const float alpha = 1.0f, beta = 0.0f;");
  char pa[320], pb[320], pc[160];
  snprintf(pa, sizeof pa, "p%d", st->in[0]);
  snprintf(pb, sizeof pb, "p%d", st->in[1]);
  snprintf(pc, sizeof pc, "p%d", st->t);
  if (outer > 1) {
    line(e, "for (long long ob = 0; ob < %" PRId64 "LL; ++ob) {  // the batch dims the operands broadcast across", outer);
    e->ind++;
    AxTShape os = *o;
    os.rank = j;
    for (int d = 0; d < j; d++) {
      int64_t sd = stride_of(&os, d);
      if (d == 0) line(e, "[[maybe_unused]] const long long i%d = ob / %" PRId64 "LL;", d, sd);
      else line(e, "[[maybe_unused]] const long long i%d = (ob / %" PRId64 "LL) %% %" PRId64 "LL;", d, sd, os.dim[d]);
    }
    char ia[256], ib[256];
    mm_index(o, x[0], j, ia, sizeof ia);
    mm_index(o, x[1], j, ib, sizeof ib);
    snprintf(pa, sizeof pa, "p%d + (%s) * %" PRId64 "LL", st->in[0], ia, m * k);
    snprintf(pb, sizeof pb, "p%d + (%s) * %" PRId64 "LL", st->in[1], ib, k * n);
    snprintf(pc, sizeof pc, "p%d + ob * %" PRId64 "LL", st->t, inner * m * n);
  }
  line(e, "const cublasStatus_t s = cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, %" PRId64 ", %" PRId64
          ", %" PRId64 ", &alpha,", n, m, k);
  line(e, "    %s, %s, %" PRId64 ", %" PRId64 "LL,  // B^T: %" PRId64 " x %" PRId64 "%s", pb, cublas_type(bt->dtype), n,
       stride[1] * k * n, n, k, stride[1] ? "" : ", shared by the batch");
  line(e, "    %s, %s, %" PRId64 ", %" PRId64 "LL,  // A^T: %" PRId64 " x %" PRId64 "%s", pa, cublas_type(at->dtype), k,
       stride[0] * m * k, k, m, stride[0] ? "" : ", shared by the batch");
  line(e, "    &beta, %s, %s, %" PRId64 ", %" PRId64 "LL, %" PRId64 ", CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);", pc,
       cublas_type(ot->dtype), n, m * n, inner);
  line(e, "if (s != CUBLAS_STATUS_SUCCESS) {");
  line(e, "  ax_rc = AX_CUBLAS_ERR + (int)s;");
  line(e, "  goto done;");
  line(e, "}");
  if (outer > 1) loop_close(e);
  loop_close(e);
}

static void blk_max(KGen *kg, int i, Opnd *out, const Opnd *in, int nin, const char *store) {
  (void)nin;
  fold_block(kg, i, AX_OP_MAX, out, in, store);
}

static void blk_min(KGen *kg, int i, Opnd *out, const Opnd *in, int nin, const char *store) {
  (void)nin;
  fold_block(kg, i, AX_OP_MIN, out, in, store);
}

/* The cross-warp partials of a block sum, mean, max or min (emit_rowred). */
static int64_t scratch_reduce(const AxKernel *k, const AxBNode *n, int64_t nt) {
  int64_t rows, len;
  red_shape(&k->nodes[n->in[0]].shape, n->at.axis, red_to(n), &rows, &len);
  return red_scratch(nt, rows, len);
}

static void blk_sum(KGen *kg, int i, Opnd *out, const Opnd *in, int nin, const char *store) {
  (void)nin;
  const AxBNode *n = &kg->k->nodes[i];
  sum_block(kg, i, out, in, n->at.to ? n->at.to : 1, 1.0, store);
}

static void blk_mean(KGen *kg, int i, Opnd *out, const Opnd *in, int nin, const char *store) {
  (void)nin;
  const AxBNode *n = &kg->k->nodes[i];
  sum_block(kg, i, out, in, 1, 1.0 / (double)in[0].shape.dim[n->at.axis], store);
}

static void blk_rms_norm(KGen *kg, int i, Opnd *out, const Opnd *in, int nin, const char *store) {
  (void)nin, (void)store;
  const AxBNode *n = &kg->k->nodes[i];
  Emit *e = kg->e;
  need(kg, n->in[0], false, n->name);
  int64_t outer, len, inner;
  split3(&in[0].shape, n->at.axis, &outer, &len, &inner);
  Opnd r = {.shape = in[0].shape, .f32 = true};
  r.shape.dim[n->at.axis] = 1;
  snprintf(r.name, sizeof r.name, "rs%d", i);
  line(e, "float *%s = (float *)(ax_smem + %" PRId64 ");  // 1 / rms of every row", r.name, kg->scr[i]);
  /* the row statistic, a row reduction (emit_rowred) of squares; its cross-warp partials
   * after the row scales */
  int64_t rows = outer * inner;
  char fin[160];
  snprintf(fin, sizeof fin, "%s[e] = 1.0f / sqrtf(acc * %.9gf)", r.name, 1.0 / (double)len);
  RowRed rr = {.x = &in[0], .axis = n->at.axis, .t = 1, .kind = RED_SQUARES, .node = i,
               .scratch = kg->scr[i] + (rows + 31) / 32 * 32 * 4, .finish = {fin}};
  emit_rowred(kg, &rr);
  barrier(kg, "the row scales are read by every thread of the row");
  loop_open(e, ax_shape_numel(&n->shape), false);
  line(e, "[[maybe_unused]] const int o = e / %" PRId64 ", in = e %% %" PRId64 ";", len * inner, inner);
  line(e, "%s[e] = ax_to<%s>(ax_f(%s[e]) * %s[o * %" PRId64 " + in]);", out->name, stype(out),
       in[0].name, r.name, inner);
  loop_close(e);
  kg->t[i].dirty = ELEMWISE;
}

/* The row scales (and, with few rows, the cross-warp partials) of an rms_norm. */
static int64_t scratch_rms_norm(const AxKernel *k, const AxBNode *n, int64_t nt) {
  (void)k;
  int64_t rows, len;
  red_shape(&n->shape, n->at.axis, 1, &rows, &len);
  return (rows + 31) / 32 * 32 * 4 + red_scratch(nt, rows, len);
}

static void blk_concat(KGen *kg, int i, Opnd *out, const Opnd *in, int nin, const char *store) {
  (void)store;
  const AxBNode *n = &kg->k->nodes[i];
  for (int q = 0; q < n->nin; q++) need(kg, n->in[q], false, n->name);
  body_concat(kg->e, out, in, nin, n->at.axis, false);
  kg->t[i].dirty = ELEMWISE;
}

/* below: the offsets of an input iterator's tile */
static void tile_offsets(const AxTShape *full, const int *map, int fmap, const int64_t *grid,
                         const AxTShape *tile, const char *itv, char off[][160]);

/* select(m, a, b) on tiles: a where the mask is not 0, else b (operands of one shape,
 * inline literals allowed as for element-wise operators). */
static void blk_select(KGen *kg, int i, Opnd *out, const Opnd *in, int nin, const char *store) {
  (void)store;
  const AxBNode *n = &kg->k->nodes[i];
  Emit *e = kg->e;
  for (int q = 0; q < n->nin; q++) need(kg, n->in[q], ax_shape_equal(&in[q].shape, &n->shape), n->name);
  loop_open(e, ax_shape_numel(&out->shape), false);
  bool idx = false;
  for (int j = 0; j < nin; j++) idx |= needs_index(&in[j], &out->shape);
  if (idx) emit_index(e, &out->shape, "int");
  char v[320];
  for (int j = 0; j < nin; j++) {
    value(&in[j], &out->shape, v, sizeof v);
    line(e, "const float a%d = %s;", j, v);
  }
  line(e, "%s[e] = ax_to<%s>(a0 != 0.0f ? a1 : a2);", out->name, stype(out));
  loop_close(e);
  kg->t[i].dirty = ELEMWISE;
}

/* A block iota: element e of the tile holds its global index along the axis, the tile's
 * offset there (the block's chunk and the iteration's slice, as an input iterator's
 * tile_offsets) plus its index inside the tile. */
static void blk_iota(KGen *kg, int i, Opnd *out, const Opnd *in, int nin, const char *store) {
  (void)in, (void)nin, (void)store;
  const AxBNode *n = &kg->k->nodes[i];
  Emit *e = kg->e;
  char off[AX_MAXRANK][160];
  tile_offsets(&n->at.shape, n->imap, n->fmap, kg->k->grid, &n->shape, "it", off);
  int64_t outer, len, inner;
  split3(&n->shape, n->at.axis, &outer, &len, &inner);
  line(e, "// '%s': its global index along axis %d", n->name, n->at.axis);
  loop_open(e, ax_shape_numel(&out->shape), false);
  line(e, "%s[e] = ax_to<%s>((float)(%s + (long long)((e / %" PRId64 ") %% %" PRId64 ")));", out->name,
       stype(out), off[n->at.axis], inner, len);
  loop_close(e);
  kg->t[i].dirty = ELEMWISE;
}

/* A block operator (or, for a thread graph, the run of its operators starting at i, fused
 * into one loop when they share a shape). Returns the last node handled. */
static int gen_op(KGen *kg, int i) {
  const AxKernel *k = kg->k;
  const AxBNode *n = &k->nodes[i];
  Emit *e = kg->e;
  Tile *t = kg->t;
  if (ax_pop_literal(n->op)) return i;
  if (n->thread >= 0) {
    int last = i;
    bool same = true;
    /* the group: the thread graph's operators, with the inline constants among them */
    for (int j = i + 1; j < k->nnodes; j++) {
      const AxBNode *m = &k->nodes[j];
      if (m->kind == AX_BN_OP && ax_pop_literal(m->op)) continue;
      if (m->thread != n->thread || m->phase != n->phase) break;
      last = j;
      if (!ax_shape_equal(&m->shape, &n->shape)) same = false;
    }
    if (same && last > i) {
      /* one loop; within it a value produced by the graph is a register */
      /* an operand from inside the group is a register (inline constants are literals) */
#define INSIDE(q) ((q) >= i && !t[q].o.is_const)
      for (int j = i; j <= last; j++)
        for (int q = 0; q < k->nodes[j].nin; q++)
          if (!INSIDE(k->nodes[j].in[q]))
            need(kg, k->nodes[j].in[q], ax_shape_equal(&t[k->nodes[j].in[q]].o.shape, &n->shape), k->nodes[j].name);
      int nops = 0;
      for (int j = i; j <= last; j++) nops += !t[j].o.is_const;
      line(e, "// thread graph: %d fused operators", nops);
      loop_open(e, ax_shape_numel(&n->shape), false);
      bool idx = false;
      for (int j = i; j <= last; j++)
        for (int q = 0; q < k->nodes[j].nin; q++)
          if (!INSIDE(k->nodes[j].in[q])) idx |= needs_index(&t[k->nodes[j].in[q]].o, &n->shape);
      if (idx) emit_index(e, &n->shape, "int");
      for (int j = i; j <= last; j++) {
        const AxBNode *m = &k->nodes[j];
        if (ax_pop_literal(m->op)) continue;
        line(e, "{");
        e->ind++;
        char v[320];
        for (int q = 0; q < m->nin; q++) {
          if (INSIDE(m->in[q])) snprintf(v, sizeof v, "r%d", m->in[q]);
          else value(&t[m->in[q]].o, &n->shape, v, sizeof v);
          line(e, "const float a%d = %s;", q, v);
        }
        line(e, "r%d = ax_f(ax_to<%s>(%s));", j, stype(&t[j].o), ew_expr(m->op));
        line(e, "%s[e] = ax_to<%s>(r%d);", t[j].o.name, stype(&t[j].o), j);
        e->ind--;
        line(e, "}");
      }
      loop_close(e);
#undef INSIDE
      for (int j = i; j <= last; j++)
        if (!t[j].o.is_const) t[j].dirty = ELEMWISE;
      return last;
    }
  }
  Opnd in[AX_MAXIN];
  int nin = 0;
  for (int q = 0; q < n->nin; q++) in[nin++] = t[n->in[q]].o;
  Opnd *out = &t[i].o;
  if (ax_op_is_elementwise(n->op)) {
    for (int q = 0; q < n->nin; q++) need(kg, n->in[q], ax_shape_equal(&in[q].shape, &n->shape), n->name);
    body_elementwise(e, n->op, out, in, nin, false);
    t[i].dirty = ELEMWISE;
    return i;
  }
  char store[96];
  snprintf(store, sizeof store, "%s[e] = ax_to<%s>(%%s)", out->name, stype(out));
  AX_ASSERT(cuda_pops[n->op].block);   /* sources are literals; rule-only operators never come */
  cuda_pops[n->op].block(kg, i, out, in, nin, store);
  return i;
}

/* The offset expression of a tile's dim d: the block's chunk (imap, hierarchical over the
 * grid axes mapped to d, x outermost) plus, for the fmap dim, the iteration's slice. */
static void tile_offsets(const AxTShape *full, const int *map, int fmap, const int64_t *grid,
                         const AxTShape *tile, const char *itv, char off[][160]) {
  for (int d = 0; d < full->rank; d++) {
    int64_t parts = 1;
    char h[120] = "";
    for (int g = 0; g < 3; g++)
      if (map[g] == d) {
        char nh[120];
        if (!h[0]) snprintf(nh, sizeof nh, "(long long)blockIdx.%c", "xyz"[g]);
        else snprintf(nh, sizeof nh, "(%s * %" PRId64 " + blockIdx.%c)", h, grid[g], "xyz"[g]);
        memcpy(h, nh, sizeof h);
        parts *= grid[g];
      }
    int64_t chunk = full->dim[d] / parts;
    size_t u = 0;
    off[d][0] = 0;
    if (h[0]) u += (size_t)snprintf(off[d], 160, "%s * %" PRId64, h, chunk);
    if (fmap == d) snprintf(off[d] + u, 160 - u, "%s(long long)%s * %" PRId64, u ? " + " : "", itv, tile->dim[d]);
    if (!off[d][0]) snprintf(off[d], 160, "0");
  }
}

/* Whether a tile copy moves 16-byte vectors: the innermost runs of the tile and of the
 * tensor hold whole vectors and both sides have the same type. */
static bool box_vec(const Opnd *tile, AxDtype gdt, const AxTShape *full) {
  int r = tile->shape.rank;
  int64_t v = 16 / (int64_t)ax_dtype_bytes(gdt);
  bool same = !tile->f32 || gdt == AX_DT_F32;
  return same && r > 0 && tile->shape.dim[r - 1] % v == 0 && full->dim[r - 1] % v == 0;
}

/* Copies between a tile in shared memory and its box in a kernel tensor. Vectorized by
 * 16 bytes when box_vec allows it. */
static void copy_box(KGen *kg, const Opnd *tile, const char *gname, AxDtype gdt, const AxTShape *full,
                     char off[][160], bool load, int64_t swz) {
  Emit *e = kg->e;
  const AxTShape *ts = &tile->shape;
  int r = ts->rank;
  int64_t v = 16 / (int64_t)ax_dtype_bytes(gdt);
  bool vec = box_vec(tile, gdt, full);
  /* the innermost offset is a multiple of the tile's innermost size (chunks and slices are) */
  AxTShape s = *ts, f = *full;
  if (vec) s.dim[r - 1] /= v, f.dim[r - 1] /= v;
  else v = 1;
  loop_open(e, ax_shape_numel(&s), false);
  if (r > 0) emit_index(e, &s, "int");
  char gidx[1200] = "";
  size_t u = 0;
  for (int d = 0; d < r; d++) {
    int64_t st = stride_of(&f, d);
    char o[200];
    if (d == r - 1 && v > 1) snprintf(o, sizeof o, "(%s) / %" PRId64, off[d], v);
    else snprintf(o, sizeof o, "%s", off[d]);
    u += (size_t)snprintf(gidx + u, sizeof gidx - u, "%s(%s + i%d) * %" PRId64 "LL", u ? " + " : "", o, d, st);
  }
  if (!gidx[0]) snprintf(gidx, sizeof gidx, "0");
  /* a loop every lane of a warp runs alike routes its shared-memory side through the
   * warp-wide primitives, whose bank wavefronts the emulator counts (gpu/warp.cuh) */
  bool warp = loop_warp_uniform(e, ax_shape_numel(&s));
  /* a swizzled tile (swz_chunks, a load only) is written at its chunks' swizzled places */
  AX_ASSERT(!swz || (load && vec && v == 8));
  char at[256] = "e";
  if (swz) swz_chunk(swz, "e", at, sizeof at);
  if (vec && v > 1 && warp) {
    if (load) line(e, "ax_smem_store16((uint4 *)%s + %s, ((const uint4 *)%s)[%s]);", tile->name, at, gname, gidx);
    else line(e, "((uint4 *)%s)[%s] = ax_smem_load16((const uint4 *)%s + e);", gname, gidx, tile->name);
  } else if (vec && v > 1) {
    if (load) line(e, "((uint4 *)%s)[%s] = ((const uint4 *)%s)[%s];", tile->name, at, gname, gidx);
    else line(e, "((uint4 *)%s)[%s] = ((const uint4 *)%s)[e];", gname, gidx, tile->name);
  } else if (load) {
    line(e, "%s[e] = %s[%s];", tile->name, gname, gidx);
  } else {
    line(e, "%s[%s] = ax_to<%s>(ax_f(%s[e]));", gname, gidx, ax_cuda_ctype(gdt), tile->name);
  }
  loop_close(e);
}

static void gen_iter(KGen *kg, int i) {
  const AxBNode *n = &kg->k->nodes[i];
  const AxKTensor *src = &kg->g->tensors[n->src];
  char off[AX_MAXRANK][160];
  tile_offsets(&src->shape, n->imap, n->fmap, kg->k->grid, &n->shape, "it", off);
  char sb[96];
  line(kg->e, "// '%s': tile %s of '%s'", n->name, ax_shape_str(&n->shape, sb, sizeof sb), src->name);
  char gname[32];
  snprintf(gname, sizeof gname, "p%d", n->src);
  int pf = kg->task ? kg->t[i].pf : -1;
  if (pf >= 0) {   /* the worker loaded it while the previous task ran (mpk/mkcuda.h) */
    line(kg->e, "if (!(ax_pfm & %uu)) {  // not prefetched", 1u << pf);
    kg->e->ind++;
  }
  copy_box(kg, &kg->t[i].o, gname, src->dtype, &src->shape, off, true, swz_chunks(kg->g, kg->k, i, kg->nt));
  if (pf >= 0) {
    kg->e->ind--;
    line(kg->e, "}");
  }
  /* a vectorized copy does not follow the element mapping (nor does a prefetch, which the
   * worker's barrier made visible: the barrier this asks for is then merely redundant) */
  kg->t[i].dirty = box_vec(&kg->t[i].o, src->dtype, &src->shape) ? SCATTERED : ELEMWISE;
}

/* The cp.async width of an iterating input's tile copy: the widest of 16, 8 and 4 bytes
 * that divides the innermost run of both the tile and the tensor, so that every row of the
 * box starts at a multiple of it (chunk and slice offsets are multiples of the tile's
 * innermost size; tensors start 16-byte aligned, as cudaMalloc's do). 0: ragged rows
 * (an f16 row of odd length), which are loaded with plain loads and single-buffered. */
static int async_width(const AxTShape *tile, AxDtype dt, const AxTShape *full) {
  int r = tile->rank;
  int64_t es = (int64_t)ax_dtype_bytes(dt);
  if (r == 0) return 0;
  for (int w = 16; w >= 4; w /= 2)
    if (w % es == 0 && tile->dim[r - 1] * es % w == 0 && full->dim[r - 1] * es % w == 0) return w;
  return 0;
}

/* Issues the cp.async copies of iterating input i's tile for iteration `itv` (an
 * expression) into the buffer `dst` (a pointer variable): one copy of aw bytes (16, 8 or 4:
 * async_width) per thread iteration. They complete at a later ax_cp_async_wait. */
static void gen_iter_async(KGen *kg, int i, const char *itv, const char *dst, int aw) {
  const AxBNode *n = &kg->k->nodes[i];
  const AxKTensor *src = &kg->g->tensors[n->src];
  Emit *e = kg->e;
  char off[AX_MAXRANK][160], sb[96];
  tile_offsets(&src->shape, n->imap, n->fmap, kg->k->grid, &n->shape, itv, off);
  line(e, "// '%s': tile %s of '%s', iteration %s, cp.async %d B", n->name,
       ax_shape_str(&n->shape, sb, sizeof sb), src->name, itv, aw);
  int r = n->shape.rank;
  int64_t v = aw / (int64_t)ax_dtype_bytes(src->dtype);
  AxTShape cs = n->shape;
  cs.dim[r - 1] /= v;
  loop_open(e, ax_shape_numel(&cs), false);
  emit_index(e, &cs, "int");
  char gidx[1200] = "";
  size_t u = 0;
  for (int d = 0; d < r; d++) {
    char ix[48];
    if (d == r - 1 && v > 1) snprintf(ix, sizeof ix, "i%d * %" PRId64, d, v);
    else snprintf(ix, sizeof ix, "i%d", d);
    u += (size_t)snprintf(gidx + u, sizeof gidx - u, "%s(%s + %s) * %" PRId64 "LL", u ? " + " : "", off[d], ix,
                          stride_of(&src->shape, d));
  }
  int64_t swz = swz_chunks(kg->g, kg->k, i, kg->nt);
  AX_ASSERT(!swz || (aw == 16 && v == 8));   /* whole rows of 16-byte chunks: async_width is 16 */
  char at[256];
  if (swz) swz_chunk(swz, "e", at, sizeof at);
  if (swz) line(e, "ax_cp_async%d(%s + %s * %" PRId64 ", p%d + %s);  // swizzled", aw, dst, at, v, n->src, gidx);
  else if (v > 1) line(e, "ax_cp_async%d(%s + e * %" PRId64 ", p%d + %s);", aw, dst, v, n->src, gidx);
  else line(e, "ax_cp_async%d(%s + e, p%d + %s);", aw, dst, n->src, gidx);
  loop_close(e);
}

static void gen_save(KGen *kg, int i) {
  const AxBNode *n = &kg->k->nodes[i];
  const AxKTensor *dst = &kg->g->tensors[n->dst];
  char off[AX_MAXRANK][160];
  AxTShape tile = n->shape;
  int nomap[3];
  memcpy(nomap, n->omap, sizeof nomap);
  tile_offsets(&dst->shape, nomap, -1, kg->k->grid, &tile, "it", off);
  need(kg, n->in[0], !box_vec(&kg->t[n->in[0]].o, dst->dtype, &dst->shape), n->name);
  line(kg->e, "// store '%s' into '%s'", kg->k->nodes[n->in[0]].name, dst->name);
  char gname[32];
  snprintf(gname, sizeof gname, "p%d", n->dst);
  copy_box(kg, &kg->t[n->in[0]].o, gname, dst->dtype, &dst->shape, off, false, 0);
}

/* Down to how many elements an accumulator along an axis reduces its tile (a sum's `to`). */
static int64_t accum_to(const AxBNode *n) { return n->acc == AX_ACC_SUM && n->at.to ? n->at.to : 1; }

/* The cross-warp partials of an accumulator that reduces its tile along an axis (sum, rms,
 * max: emit_rowred), in bytes; 0 for the others. */
static int64_t accum_scratch(const AxKernel *k, const AxBNode *n, int64_t nt) {
  bool along = n->acc == AX_ACC_RMS || ((n->acc == AX_ACC_SUM || n->acc == AX_ACC_MAX) && n->at.axis_set);
  if (!along) return 0;
  int64_t rows, len;
  red_shape(&k->nodes[n->in[0]].shape, n->at.axis, accum_to(n), &rows, &len);
  return red_scratch(nt, rows, len);
}

/* Accumulators: one iteration's contribution. */
static void gen_accum(KGen *kg, int i, bool finish) {
  const AxBNode *n = &kg->k->nodes[i];
  Emit *e = kg->e;
  Tile *acc = &kg->t[i];
  const Opnd *v = &kg->t[n->in[0]].o;
  const char *dt = ax_cuda_ctype(n->dtype);
  if (kg->racc[i] >= 0) {   /* its matmul adds to it in registers */
    if (finish) gen_reg_acc_finish(kg, i);
    return;
  }
  if (finish) {
    if (n->acc == AX_ACC_CONCAT) return;
    need(kg, i, true, n->name);
    int64_t len = kg->k->nodes[n->in[0]].shape.dim[n->at.axis];
    loop_open(e, ax_shape_numel(&n->shape), false);
    if (n->acc == AX_ACC_RMS)
      line(e, "%s[e] = ax_f(ax_to<%s>(sqrtf(%s[e] * %.9gf)));", acc->o.name, dt, acc->o.name,
           1.0 / (double)(kg->k->forloop * len));
    else if (n->acc == AX_ACC_MAX)   /* after the loop: the raw max, -inf included */
      line(e, "%s[e] = ax_f(ax_to<%s>(%s[%" PRId64 " + e]));", acc->o.name, dt, acc->o.name,
           ax_shape_numel(&n->shape));
    else line(e, "%s[e] = ax_f(ax_to<%s>(%s[e]));", acc->o.name, dt, acc->o.name);
    loop_close(e);
    acc->dirty = acc->dirty == CLEAN ? ELEMWISE : acc->dirty;
    return;
  }
  if (n->acc == AX_ACC_MAX) {
    /* the running max: the first tile's max, then the larger of it and the state (the
     * loop's later operators read it, so every thread sees the update) */
    /* FlashAttention's guard: the raw max is kept after the tile (s[cnt + e]); the loop
     * reads s[e], which is 0 where the raw max is still -inf (a row whose tiles so far
     * were all masked), so that its shift exp(x - m) is exp(-inf - 0) = 0, not
     * exp(-inf - -inf) = NaN; the rescale reads the raw previous max (exp(-inf - m) = 0) */
    const char *it0 = "it == 0";
    int64_t cnt = ax_shape_numel(&n->shape);
    if (!n->at.axis_set) {
      need(kg, n->in[0], true, n->name);
      loop_open(e, cnt, false);
      line(e, "const float raw = %s ? ax_f(%s[e]) : ax_max(%s[%" PRId64 " + e], ax_f(%s[e]));", it0,
           v->name, acc->o.name, cnt, v->name);
      line(e, "%s[%" PRId64 " + e] = raw;", acc->o.name, cnt);
      line(e, "%s[e] = raw == -INFINITY ? 0.0f : raw;", acc->o.name);
      loop_close(e);
    } else {   /* the tile's max along the axis, a row reduction (emit_rowred) */
      need(kg, n->in[0], false, n->name);
      char f0[160], f1[96], f2[96];
      snprintf(f0, sizeof f0, "const float raw = %s ? acc : ax_max(%s[%" PRId64 " + e], acc)", it0, acc->o.name, cnt);
      snprintf(f1, sizeof f1, "%s[%" PRId64 " + e] = raw", acc->o.name, cnt);
      snprintf(f2, sizeof f2, "%s[e] = raw == -INFINITY ? 0.0f : raw", acc->o.name);
      RowRed rr = {.x = v, .axis = n->at.axis, .t = 1, .kind = RED_MAX, .node = i, .scratch = kg->scr[i],
                   .finish = {f0, f1, f2}};
      emit_rowred(kg, &rr);
    }
    line(e, "__syncthreads();");
    acc->dirty = CLEAN;
    return;
  }
  if (n->rescaled) {
    /* online softmax: state *= exp(m_prev − m_new) (m broadcast onto the state), then the
     * max is remembered; the first iteration adds to zero and only remembers it */
    const AxBNode *m = &kg->k->nodes[n->rescale];
    const char *mn = kg->t[n->rescale].o.name;
    int64_t cnt = ax_shape_numel(&n->shape), mcnt = ax_shape_numel(&m->shape);
    char idx[512] = "0";
    size_t used = 1;
    int64_t st = 1, mst = 1;
    for (int dd = n->shape.rank - 1; dd >= 0; dd--) {
      if (m->shape.dim[dd] > 1)
        used += (size_t)snprintf(idx + used, sizeof idx - used, " + (e / %" PRId64 " %% %" PRId64 ") * %" PRId64,
                                 st, n->shape.dim[dd], mst);
      st *= n->shape.dim[dd];
      mst *= m->shape.dim[dd];
    }
    line(e, "if (it > 0) {");
    e->ind++;
    loop_open(e, cnt, false);
    line(e, "const int64_t mi = %s;", idx);
    line(e, "%s[e] *= expf(%s[%" PRId64 " + mi] - %s[mi]);", acc->o.name, acc->o.name, cnt, mn);
    loop_close(e);
    e->ind--;
    line(e, "}");
    line(e, "__syncthreads();");
    loop_open(e, mcnt, false);
    line(e, "%s[%" PRId64 " + e] = %s[%" PRId64 " + e];  // the raw max", acc->o.name, cnt, mn, mcnt);
    loop_close(e);
    line(e, "__syncthreads();");
  }
  if (n->acc == AX_ACC_SUM && !n->at.axis_set) {
    need(kg, n->in[0], true, n->name);
    loop_open(e, ax_shape_numel(&n->shape), false);
    line(e, "%s[e] += ax_f(%s[e]);", acc->o.name, v->name);
    loop_close(e);
  } else if (n->acc == AX_ACC_CONCAT) {
    need(kg, n->in[0], true, n->name);
    int64_t outer, len, inner;
    split3(&v->shape, n->at.axis, &outer, &len, &inner);
    loop_open(e, ax_shape_numel(&v->shape), false);
    line(e, "[[maybe_unused]] const int o = e / %" PRId64 ", rest = e %% %" PRId64 ";", len * inner, len * inner);
    line(e, "%s[o * %" PRId64 " + it * %" PRId64 " + rest] = ax_f(%s[e]);", acc->o.name,
         len * inner * kg->k->forloop, len * inner, v->name);
    loop_close(e);
    acc->dirty = SCATTERED;
    return;
  } else {   /* along an axis (rms: of squares), a row reduction (emit_rowred) */
    need(kg, n->in[0], false, n->name);
    char fin[96];
    snprintf(fin, sizeof fin, "%s[e] += acc", acc->o.name);
    RowRed rr = {.x = v, .axis = n->at.axis, .t = accum_to(n), .kind = n->acc == AX_ACC_RMS ? RED_SQUARES : RED_SUM,
                 .node = i, .scratch = kg->scr[i], .finish = {fin}};
    /* the same thread adds to a row in every iteration, but another may read it */
    if (emit_rowred(kg, &rr) == SCATTERED) acc->dirty = SCATTERED;
  }
  if (acc->dirty == CLEAN) acc->dirty = ELEMWISE;
}

static int64_t align128(int64_t x) { return (x + 127) / 128 * 128; }

/* Shared-memory cp.async copies: 16 B (.cg, L2 only) or 8/4 B (.ca) — sm_80 and newer;
 * both targets have them. ORDER TARGET */
static bool has_cp_async(AxCudaTarget t) { return t == AX_CUDA_SM90 || t == AX_CUDA_SM80; }

/* ORDER: pop.h's rows; check_pop.c walks both. */
static const CudaPOp cuda_pops[AX_OP_COUNT] = {
    [AX_OP_DOT] = {.library = lib_matmul, .block = blk_matmul},
    [AX_OP_REDUCE] = {.predefined = pre_sum, .block = blk_sum, .scratch = scratch_reduce},
    [AX_OP_MEAN] = {.predefined = pre_mean, .block = blk_mean, .scratch = scratch_reduce},
    [AX_OP_RMS_NORM] = {.predefined = pre_rms_norm, .block = blk_rms_norm, .scratch = scratch_rms_norm},
    [AX_OP_RESHAPE] = {.predefined = pre_reshape},
    [AX_OP_BROADCAST] = {.predefined = pre_broadcast},
    [AX_OP_REPEAT] = {.predefined = pre_repeat},
    [AX_OP_TRANSPOSE] = {.predefined = pre_transpose},
    [AX_OP_SLICE] = {.predefined = pre_slice},
    [AX_OP_PAD] = {.predefined = pre_pad},
    [AX_OP_REVERSE] = {.predefined = pre_reverse},
    [AX_OP_SELECT] = {.predefined = pre_select, .block = blk_select},
    [AX_OP_IOTA] = {.predefined = pre_iota, .block = blk_iota},
    [AX_OP_CONCAT] = {.predefined = pre_concat, .block = blk_concat},
    [AX_OP_REDUCE_MAX] = {.predefined = pre_max, .block = blk_max, .scratch = scratch_reduce},
    [AX_OP_REDUCE_MIN] = {.predefined = pre_min, .block = blk_min, .scratch = scratch_reduce},
};

static const CudaPOp *pre_row(AxOp op) { return (unsigned)op < AX_OP_COUNT && !ax_ewop_get(op) ? &cuda_pops[op] : NULL; }

bool ax_cuda_emits_op(AxOp op, bool block) {
  if ((unsigned)op >= AX_OP_COUNT) return false;
  return block ? cuda_pops[op].block != NULL : cuda_pops[op].predefined != NULL || cuda_pops[op].library != NULL;
}

/* Lays out kg's tiles in shared memory and returns the bytes a block needs. Invariant
 * tiles, accumulators and scratch live through the block; the loop body's tiles and the
 * post phase's share one region when the loop ends with a barrier (forloop > 1);
 * otherwise they are laid out one after the other. With `stages` > 1, every iterating
 * input of the loop whose rows allow cp.async (async_width) gets that many slots side by
 * side in the loop region: its ring (no post node reads it: every copy has landed by the
 * loop's last iteration). */
static int64_t layout(KGen *kg, int stages) {
  const AxKernel *k = kg->k;
  int nn = k->nnodes;
  int64_t nt = kg->nt, fixed = 0, loop = 0, post = 0;
  reg_acc_plan(k, nt, kg->racc);
  for (int i = 0; i < nn; i++) {
    const AxBNode *n = &k->nodes[i];
    Tile *t = &kg->t[i];
    kg->scr[i] = -1;
    t->ring = 0;
    t->aw = 0;
    if (n->kind == AX_BN_SAVE) continue;
    t->o.shape = n->shape;
    t->o.dt = n->dtype;
    /* a matmul whose product goes to a register accumulator has no tile */
    if (n->kind == AX_BN_OP && kg->racc[i] >= 0) {
      snprintf(t->o.name, sizeof t->o.name, "s%d", i);
      t->bytes = 0;
      continue;
    }
    if (n->kind == AX_BN_OP && ax_pop_literal(n->op)) {
      t->o.is_const = true;
      t->o.c = (double)n->at.value.num / (double)n->at.value.den;
      continue;
    }
    t->o.f32 = n->kind == AX_BN_ACCUM;
    snprintf(t->o.name, sizeof t->o.name, "s%d", i);
    /* a rescaled sum keeps, after its state, the max it was last rescaled to; a running
     * max keeps its raw value after the one the loop reads (gen_accum's guard) */
    int64_t extra = n->rescaled ? ax_shape_numel(&k->nodes[n->rescale].shape) : 0;
    if (n->kind == AX_BN_ACCUM && n->acc == AX_ACC_MAX) extra = ax_shape_numel(&n->shape);
    t->bytes = align128((ax_shape_numel(&n->shape) + extra) * (t->o.f32 ? 4 : (int64_t)ax_dtype_bytes(n->dtype)));
    if (n->kind == AX_BN_ACCUM || n->phase == AX_PH_INVARIANT) t->off = fixed, fixed += t->bytes;
    else if (n->phase == AX_PH_LOOP) {
      t->off = loop, loop += t->bytes;
      if (stages > 1 && n->kind == AX_BN_ITER &&
          (t->aw = async_width(&n->shape, n->dtype, &kg->g->tensors[n->src].shape)) > 0)
        t->ring = stages, loop += (stages - 1) * t->bytes;
    } else t->off = post, post += t->bytes;
    if (n->kind == AX_BN_OP && !ax_op_is_elementwise(n->op) && cuda_pops[n->op].scratch) {
      kg->scr[i] = fixed;
      fixed += align128(cuda_pops[n->op].scratch(k, n, nt));
    }
    if (n->kind == AX_BN_ACCUM && accum_scratch(k, n, nt) > 0) {
      kg->scr[i] = fixed;
      fixed += align128(accum_scratch(k, n, nt));
    }
  }
  bool share = k->forloop > 1;
  int64_t loop_base = fixed, post_base = share ? fixed : fixed + loop;
  int64_t total = share ? fixed + (loop > post ? loop : post) : fixed + loop + post;
  if (total == 0) total = 16;
  for (int i = 0; i < nn; i++) {
    const AxBNode *n = &k->nodes[i];
    if (n->kind == AX_BN_SAVE || kg->t[i].o.is_const || n->kind == AX_BN_ACCUM) continue;
    if (n->kind == AX_BN_OP && kg->racc[i] >= 0) continue;
    if (n->phase == AX_PH_LOOP) kg->t[i].off += loop_base;
    else if (n->phase == AX_PH_POST) kg->t[i].off += post_base;
  }
  return total;
}

/* Where a kernel's tiles live (layout) and how its loop loads them, decided before any
 * code is written. */
typedef struct SmemPlan {
  int64_t total;      /* bytes of shared memory per block */
  int64_t limit;      /* the target's limit */
  int stages;         /* the loop's cp.async ring: slots per ringed input (1: none) */
  int64_t need[5];    /* need[S]: the bytes a ring of S stages needs; 0 when not tried */
  bool ringable;      /* some iterating input of the loop has rows cp.async can copy */
  bool dyn;           /* dynamic shared memory (beyond the static maximum) */
} SmemPlan;

/* CUDA's grid limits: false after reporting. */
static bool grid_ok(const AxKernel *k, AxDiag *d) {
  if (k->grid[1] > 65535 || k->grid[2] > 65535 || k->grid[0] > 2147483647) {
    ax_diag_error(d, k->span, "kernel '%s': grid [%" PRId64 ", %" PRId64 ", %" PRId64
                  "] exceeds CUDA's limits (y and z at most 65535)", k->name, k->grid[0], k->grid[1], k->grid[2]);
    return false;
  }
  return true;
}

/* ax_ring_stages' question: does a ring of `stages` slots fit with the kernel's other
 * tiles? Lays kg out that way and remembers what it needs. */
typedef struct {
  KGen *kg;
  SmemPlan *p;
} RingTry;

static bool ring_fits(void *ctx, int stages) {
  RingTry *r = ctx;
  int64_t total = layout(r->kg, stages);
  bool any = false;
  for (int i = 0; i < r->kg->k->nnodes; i++) any = any || r->kg->t[i].ring > 0;
  r->p->need[stages] = total;
  r->p->ringable = any;
  /* the slots may cost nothing (a post phase larger than the loop body shares its
   * region), so whether any ring was laid out decides, not the size */
  return any && total <= r->p->limit;
}

/* The shared-memory plan: layout with a cp.async ring where it is wanted (the loop has
 * more than one iteration and the target has cp.async: docs/gpu.md, "The cp.async ring"),
 * of as many stages as ax_ring_stages allows, else without. A megakernel's task keeps at
 * most TASK_STAGES: the worker's prefetch buffers sit above the largest task's shared
 * memory (mpk/mkcuda.c), and a deeper ring would leave them no room (GQA's first kernel
 * needs 219264 bytes with 3 stages, where 2 prefetch buffers of its first tiles no longer
 * fit sm_90's 232448). False after reporting a
 * kernel that does not fit at all. */
enum { TASK_STAGES = 2 };

static bool plan_smem(KGen *kg, AxCudaTarget target, const AxCudaOpts *o, SmemPlan *p, AxDiag *d) {
  const AxKernel *k = kg->k;
  bool want = k->forloop > 1 && has_cp_async(target) && !o->single_buffer;
  p->limit = ax_cuda_smem_limit(target);
  memset(p->need, 0, sizeof p->need);
  p->ringable = false;
  p->stages = 1;
  if (want) {
    RingTry r = {kg, p};
    p->stages = ax_ring_stages_most(k->forloop, o->task_body ? TASK_STAGES : 4, ring_fits, &r);
  }
  p->total = layout(kg, p->stages);
  if (p->total > p->limit) {
    ax_diag_error(d, k->span,
                  "kernel '%s': needs %" PRId64 " bytes of shared memory per block (tiles, "
                  "accumulators and scratch), more than %s allows (%" PRId64 ")",
                  k->name, p->total, ax_cuda_target_name(target), p->limit);
    return false;
  }
  p->dyn = p->total > STATIC_SMEM_MAX;
  return true;
}

/* The comment above the kernel: its geometry, its shared memory, and how the loop's
 * iterating inputs are loaded and why. */
static void emit_notes(const KGen *kg, AxCudaTarget target, const AxCudaOpts *o, const SmemPlan *p) {
  Emit *e = kg->e;
  const AxKernel *k = kg->k;
  int nn = k->nnodes;
  fprintf(e->f, "\n// kernel '%s': grid [%" PRId64 ", %" PRId64 ", %" PRId64 "], block [%" PRId64 ", %" PRId64
          ", %" PRId64 "], for-loop %" PRId64 "\n// axle: kernel %s shared memory %" PRId64 " bytes (%s, limit %" PRId64 ")\n",
          k->name, k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->forloop,
          k->name, p->total, p->dyn ? "dynamic" : "static", p->limit);
  int nloopit = 0;
  for (int i = 0; i < nn; i++) nloopit += k->nodes[i].kind == AX_BN_ITER && k->nodes[i].phase == AX_PH_LOOP;
  if (p->stages > 1) {
    fprintf(e->f, "// axle: kernel %s loads in a cp.async ring of %d stages:", k->name, p->stages);
    for (int i = 0; i < nn; i++)
      if (k->nodes[i].kind == AX_BN_ITER && k->nodes[i].phase == AX_PH_LOOP) {
        if (kg->t[i].ring > 0) fprintf(e->f, " '%s' %d B", k->nodes[i].name, kg->t[i].aw);
        else fprintf(e->f, " '%s' plain (ragged rows)", k->nodes[i].name);
      }
    fprintf(e->f, "\n// axle: kernel %s ring of %d: ", k->name, p->stages);
    if (p->stages == 4) fprintf(e->f, "the most stages axle uses, and they fit\n");
    else if (o->task_body && p->stages == TASK_STAGES && k->forloop > TASK_STAGES)
      fprintf(e->f, "the most a megakernel's task keeps (the worker's prefetch buffers need the room)\n");
    else if (p->stages + 1 > k->forloop || (p->stages == 3 && k->forloop < 4))
      fprintf(e->f, "no more stages than the loop's %" PRId64 " iterations%s\n", k->forloop,
              p->stages == 3 ? " (4 needs at least 4)" : "");
    else
      fprintf(e->f, "%d stages would need %" PRId64 " bytes of shared memory, more than %s allows (%" PRId64 ")\n",
              p->stages + 1, p->need[p->stages + 1], ax_cuda_target_name(target), p->limit);
  } else if (nloopit > 0) {
    fprintf(e->f, "// axle: kernel %s loads single-buffered: ", k->name);
    if (k->forloop == 1) fprintf(e->f, "the loop has one iteration\n");
    else if (!has_cp_async(target)) fprintf(e->f, "%s has no cp.async\n", ax_cuda_target_name(target));
    else if (o->single_buffer) fprintf(e->f, "asked for (--single-buffer)\n");
    else if (p->ringable)
      fprintf(e->f, "a ring of 2 stages would need %" PRId64 " bytes of shared memory, more than %s allows (%" PRId64 ")\n",
              p->need[2], ax_cuda_target_name(target), p->limit);
    else fprintf(e->f, "no iterating input has rows cp.async can copy (ragged rows)\n");
  }
}

/* The signature: one parameter per kernel tensor the kernel reads or writes (const where
 * it only reads), in tensor order. task NULL: the __global__ kernel; else a megakernel's
 * __device__ function ax_k<s>_<task> ("task" or "prefetch"), which takes the block, the
 * prefetch buffer and its bit set first. */
static void emit_signature(const KGen *kg, int s, const char *task) {
  Emit *e = kg->e;
  const AxMugraph *g = kg->g;
  const AxKernel *k = kg->k;
  bool *uses = ax_xcalloc((size_t)g->ntensors + 1, 1), *writes = ax_xcalloc((size_t)g->ntensors + 1, 1);
  for (int i = 0; i < k->nnodes; i++) {
    if (k->nodes[i].kind == AX_BN_ITER) uses[k->nodes[i].src] = true;
    if (k->nodes[i].kind == AX_BN_SAVE) uses[k->nodes[i].dst] = writes[k->nodes[i].dst] = true;
  }
  /* min one block per SM: ptxas may then use the registers it needs (without it, it capped
   * a QKNorm kernel at 72 registers on sm_80 and spilled) */
  /* A megakernel's task (AxCudaOpts.task_body) takes its block as a parameter that shadows
   * the built-in blockIdx, so the body's text is the kernel's. No __restrict__ there: other
   * tasks of the same launch write what it reads, so its loads must not go through the
   * read-only (non-coherent) cache. */
  if (task) fprintf(e->f, "__device__ __forceinline__ void ax_k%d_%s(const uint3 blockIdx, unsigned char *ax_pf, "
                         "unsigned ax_pfm", s, task);
  else fprintf(e->f, "__global__ void __launch_bounds__(%" PRId64 ", 1) ax_k%d(", kg->nt, s);
  bool first = !task;
  for (int ti = 0; ti < g->ntensors; ti++)
    if (uses[ti]) {
      fprintf(e->f, "%s%s%s *%sp%d", first ? "" : ", ", writes[ti] ? "" : "const ",
              ax_cuda_ctype(g->tensors[ti].dtype), task ? "" : "__restrict__ ", ti);
      first = false;
    }
  fprintf(e->f, ") {\n");
  free(uses);
  free(writes);
}

/* The block's shared memory and a pointer to every tile in it (a ringed tile's pointer
 * is set per iteration, in the loop), and the registers of fused thread graphs. */
static void emit_tiles(KGen *kg, const SmemPlan *p) {
  Emit *e = kg->e;
  const AxKernel *k = kg->k;
  line(e, "constexpr int NT = %" PRId64 ";", kg->nt);
  line(e, "const int tid = threadIdx.x + %" PRId64 " * (threadIdx.y + %" PRId64 " * threadIdx.z);",
       k->block[0], k->block[1]);
  if (p->dyn) line(e, "AX_SMEM_DYNAMIC(ax_smem);");
  else line(e, "AX_SMEM_STATIC(ax_smem, %" PRId64 ");", p->total);
  for (int i = 0; i < k->nnodes; i++) {
    const Tile *t = &kg->t[i];
    const AxBNode *n = &k->nodes[i];
    if (n->kind == AX_BN_SAVE || t->o.is_const) continue;
    if (n->kind == AX_BN_OP && kg->racc[i] >= 0) continue;   /* its product stays in registers */
    char sb[96];
    if (t->ring > 0) {   /* the loop picks the iteration's slot */
      line(e, "// %s: '%s' %s %s, loop, a ring of %d slots of %" PRId64 " bytes at %" PRId64, t->o.name, n->name,
           ax_shape_str(&n->shape, sb, sizeof sb), ax_dtype_name(n->dtype), t->ring, t->bytes, t->off);
      continue;
    }
    if (kg->task && t->pf >= 0)   /* prefetched: the tile is read where the worker put it */
      line(e, "%s *const %s = (ax_pfm & %uu) ? (%s *)(ax_pf + %" PRId64 ") : (%s *)(ax_smem + %" PRId64
           ");  // '%s' %s %s, %s, prefetchable", stype(&t->o), t->o.name, 1u << t->pf, stype(&t->o), t->pf_off,
           stype(&t->o), t->off, n->name, ax_shape_str(&n->shape, sb, sizeof sb), ax_dtype_name(n->dtype),
           ax_mug_phase_name(n->phase));
    else
      line(e, "%s *const %s = (%s *)(ax_smem + %" PRId64 ");  // '%s' %s %s, %s", stype(&t->o), t->o.name,
           stype(&t->o), t->off, n->name, ax_shape_str(&n->shape, sb, sizeof sb),
           t->o.f32 ? "f32 accumulator" : ax_dtype_name(n->dtype), ax_mug_phase_name(n->phase));
  }
  for (int i = 0; i < k->nnodes; i++)
    /* inline constants of a thread graph are literals, not registers */
    if (k->nodes[i].thread >= 0 && k->nodes[i].kind == AX_BN_OP && !ax_pop_literal(k->nodes[i].op))
      line(e, "float r%d;", i);
  line(e, "(void)tid;");
  line(e, "(void)NT;");
  if (kg->task) {
    line(e, "(void)ax_pf;");
    line(e, "(void)ax_pfm;");
  }
}

/* The ring's prologue: iterations 0 .. S-2 into slots 0 .. S-2, one commit group each,
 * in flight while the accumulators and the invariant phase are set up (the loop region is
 * the loop's alone until the loop ends). S never exceeds the iteration count, so each of
 * these iterations exists. */
static void emit_prologue(KGen *kg, int stages) {
  Emit *e = kg->e;
  for (int st = 0; st + 1 < stages; st++) {
    line(e, "{  // prologue: iteration %d's tiles into slot %d", st, st);
    e->ind++;
    for (int i = 0; i < kg->k->nnodes; i++)
      if (kg->t[i].ring > 0) {
        line(e, "%s *const %sn = (%s *)(ax_smem + %" PRId64 ");", stype(&kg->t[i].o), kg->t[i].o.name,
             stype(&kg->t[i].o), kg->t[i].off + st * kg->t[i].bytes);
        char dst[64], itv[16];
        snprintf(dst, sizeof dst, "%sn", kg->t[i].o.name);
        snprintf(itv, sizeof itv, "%d", st);
        gen_iter_async(kg, i, itv, dst, kg->t[i].aw);
      }
    e->ind--;
    line(e, "}");
    line(e, "ax_cp_async_commit();");
  }
}

/* Before the loop: accumulators start at zero (a concat accumulator is written whole),
 * then the invariant phase's loads and operators. */
static void emit_invariant(KGen *kg) {
  const AxKernel *k = kg->k;
  line(kg->e, "// before the loop: accumulators start at zero, invariant tiles and operators");
  for (int i = 0; i < k->nnodes; i++) {
    const AxBNode *n = &k->nodes[i];
    if (n->kind == AX_BN_ACCUM && kg->racc[i] >= 0) {
      gen_reg_acc_init(kg, i);
    } else if (n->kind == AX_BN_ACCUM && n->acc != AX_ACC_CONCAT) {
      loop_open(kg->e, ax_shape_numel(&n->shape), false);
      line(kg->e, "%s[e] = 0.0f;", kg->t[i].o.name);
      loop_close(kg->e);
      kg->t[i].dirty = ELEMWISE;
    }
  }
  for (int i = 0; i < k->nnodes; i++) {
    const AxBNode *n = &k->nodes[i];
    if (n->phase != AX_PH_INVARIANT) continue;
    if (n->kind == AX_BN_ITER) {
      /* an invariant iterator's box does not depend on `it` */
      gen_iter(kg, i);
    } else if (n->kind == AX_BN_OP) {
      i = gen_op(kg, i);
    }
  }
}

/* The ring inside the loop (S stages): slot it % S holds this iteration's tiles, in flight
 * since iteration it - S + 1 (or the prologue). Group j carries iteration j's tiles, one
 * group per iteration (empty once nothing is left to copy), so when iteration it starts
 * S - 1 + it groups are committed, and wait_group S-2 leaves only iterations it+1 ..
 * it+S-2 in flight: this thread's copies of iteration it have landed (other threads' are
 * visible after the barrier the tiles' readers ask for: their dirty state). Then iteration
 * it+S-1's copies go into slot (it + S - 1) % S = (it - 1) % S: the slot iteration it - 1
 * read, which every thread finished reading before the barrier that closes iteration
 * it - 1's body (emit_loop), so refilling it is free of the write-after-read hazard; the
 * refill flies while this iteration computes. */
static void emit_loop_copies(KGen *kg, int stages) {
  Emit *e = kg->e;
  const AxKernel *k = kg->k;
  line(e, "ax_cp_async_wait<%d>();  // this thread's copies of iteration it have landed", stages - 2);
  for (int i = 0; i < k->nnodes; i++)
    if (kg->t[i].ring > 0)
      line(e, "%s *const %s = (%s *)(ax_smem + %" PRId64 " + (it %% %d) * %" PRId64 ");  // '%s', slot it %% %d",
           stype(&kg->t[i].o), kg->t[i].o.name, stype(&kg->t[i].o), kg->t[i].off, stages, kg->t[i].bytes,
           k->nodes[i].name, stages);
  line(e, "if (it + %d < %" PRId64 ") {  // iteration it + %d's tiles into the slot iteration it - 1 read", stages - 1,
       k->forloop, stages - 1);
  e->ind++;
  for (int i = 0; i < k->nnodes; i++)
    if (kg->t[i].ring > 0) {
      line(e, "%s *const %sn = (%s *)(ax_smem + %" PRId64 " + ((it + %d) %% %d) * %" PRId64 ");", stype(&kg->t[i].o),
           kg->t[i].o.name, stype(&kg->t[i].o), kg->t[i].off, stages - 1, stages, kg->t[i].bytes);
      char dst[64], itv[32];
      snprintf(dst, sizeof dst, "%sn", kg->t[i].o.name);
      snprintf(itv, sizeof itv, "(it + %d)", stages - 1);
      gen_iter_async(kg, i, itv, dst, kg->t[i].aw);
    }
  e->ind--;
  line(e, "}");
  line(e, "ax_cp_async_commit();  // empty when nothing is left to copy: the wait count stays right");
}

/* The for-loop, where the kernel has a loop phase or accumulators: each iteration's
 * loads, operators and accumulation, and the barrier before the next one overwrites the
 * tiles. */
static void emit_loop(KGen *kg, int stages) {
  Emit *e = kg->e;
  const AxKernel *k = kg->k;
  bool loop_body = false;
  for (int i = 0; i < k->nnodes; i++)
    if (k->nodes[i].phase == AX_PH_LOOP || k->nodes[i].kind == AX_BN_ACCUM) loop_body = true;
  if (!loop_body) return;
  /* no barrier here: the body's reads see the invariant phase's writes as unsynchronized
   * (every later iteration starts after the end-of-body barrier, so that is the worst
   * case) and synchronize where they need to */
  line(e, "for (int it = 0; it < %" PRId64 "; ++it) {", k->forloop);
  e->ind++;
  if (stages > 1) emit_loop_copies(kg, stages);
  for (int i = 0; i < k->nnodes; i++) {
    const AxBNode *n = &k->nodes[i];
    if (n->kind == AX_BN_ITER && n->phase == AX_PH_LOOP && kg->t[i].ring > 0) {
      /* landed, and visible to the thread that copied them: one copy of more than one
       * element is not the element-wise mapping, so other readers need a barrier */
      kg->t[i].dirty = kg->t[i].aw > (int)ax_dtype_bytes(n->dtype) ? SCATTERED : ELEMWISE;
    } else if (n->kind == AX_BN_ITER && n->phase == AX_PH_LOOP) gen_iter(kg, i);
    else if (n->kind == AX_BN_OP && n->phase == AX_PH_LOOP) i = gen_op(kg, i);
    else if (n->kind == AX_BN_ACCUM) gen_accum(kg, i, false);
  }
  if (k->forloop > 1) barrier(kg, "the next iteration overwrites this one's tiles");
  e->ind--;
  line(e, "}");
}

/* After the loop: the reductions finish (accumulators), post operators, stores. */
static void emit_post(KGen *kg) {
  line(kg->e, "// after the loop: accumulators finished, post operators, stores");
  for (int i = 0; i < kg->k->nnodes; i++) {
    const AxBNode *n = &kg->k->nodes[i];
    if (n->kind == AX_BN_ACCUM) gen_accum(kg, i, true);
    else if (n->kind == AX_BN_OP && n->phase == AX_PH_POST) i = gen_op(kg, i);
    else if (n->kind == AX_BN_SAVE) gen_save(kg, i);
  }
}

/* A megakernel task's prefetchable first tiles (docs/mpk.md, "Cross-task prefetch"): the
 * iterating inputs loaded once per task, before the loop (invariant) or in a loop of one
 * iteration, whose rows allow cp.async; at most 32 (a bit each in ax_pfm). A loop's tiles
 * of later iterations are not first tiles, and the first of a ringed loop already flies
 * during the prologue. Sets each tile's pf, pf_off and pf_aw and returns the prefetch
 * buffer's bytes (0: nothing to prefetch). */
static int64_t pf_plan(KGen *kg, AxCudaTarget target) {
  const AxKernel *k = kg->k;
  int64_t bytes = 0;
  int n = 0;
  for (int i = 0; i < k->nnodes; i++) {
    const AxBNode *nd = &k->nodes[i];
    Tile *t = &kg->t[i];
    t->pf = -1;
    t->pf_off = -1;
    t->pf_aw = 0;
    if (!has_cp_async(target) || nd->kind != AX_BN_ITER || n == 32) continue;
    if (nd->phase != AX_PH_INVARIANT && !(nd->phase == AX_PH_LOOP && k->forloop == 1)) continue;
    int aw = async_width(&nd->shape, nd->dtype, &kg->g->tensors[nd->src].shape);
    if (aw == 0) continue;
    t->pf = n++;
    t->pf_off = bytes;
    t->pf_aw = aw;
    bytes += align128(ax_shape_numel(&nd->shape) * (int64_t)ax_dtype_bytes(nd->dtype));
  }
  return bytes;
}

/* The task's prefetch: its first tiles whose bits ax_pfm sets, issued with cp.async into the
 * buffer ax_pf by the worker's threads; the worker commits them and waits before the task
 * runs (mpk/mkcuda.h). */
static void emit_prefetch(KGen *kg, int s) {
  Emit *e = kg->e;
  const AxKernel *k = kg->k;
  fprintf(e->f, "// the first tiles of a task of kernel '%s', loaded ahead (axle mpk: cross-task prefetch)\n", k->name);
  emit_signature(kg, s, "prefetch");
  e->ind = 1;
  line(e, "constexpr int NT = %" PRId64 ";", kg->nt);
  line(e, "const int tid = threadIdx.x + %" PRId64 " * (threadIdx.y + %" PRId64 " * threadIdx.z);", k->block[0],
       k->block[1]);
  line(e, "(void)tid;");
  line(e, "(void)NT;");
  line(e, "(void)ax_pf;");
  line(e, "(void)ax_pfm;");
  for (int i = 0; i < k->nnodes; i++) {
    const Tile *t = &kg->t[i];
    if (t->pf < 0) continue;
    line(e, "if (ax_pfm & %uu) {", 1u << t->pf);
    e->ind++;
    line(e, "%s *const %sp = (%s *)(ax_pf + %" PRId64 ");", stype(&t->o), t->o.name, stype(&t->o), t->pf_off);
    char dst[64];
    snprintf(dst, sizeof dst, "%sp", t->o.name);
    gen_iter_async(kg, i, "0", dst, t->pf_aw);
    e->ind--;
    line(e, "}");
  }
  e->ind = 0;
  fprintf(e->f, "}\n");
}

bool ax_cuda_task_plan(const AxMugraph *g, int s, AxCudaTarget target, AxCudaTaskPlan *out, AxDiag *d) {
  const AxKernel *k = g->stmts[s].kernel;
  int nn = k->nnodes;
  KGen kg = {NULL, g, k, ax_xcalloc((size_t)nn + 1, sizeof(Tile)), k->block[0] * k->block[1] * k->block[2],
             ax_xcalloc((size_t)nn + 1, sizeof(int64_t)), 0, true, ax_xcalloc((size_t)nn + 1, sizeof(int))};
  AxCudaOpts o = {.task_body = true};
  SmemPlan p;
  bool ok = plan_smem(&kg, target, &o, &p, d);
  memset(out, 0, sizeof *out);
  if (ok) {
    out->smem = p.total;
    out->pf_bytes = pf_plan(&kg, target);
    for (int i = 0; i < nn; i++)
      if (kg.t[i].pf >= 0) {
        out->pf_tile_bytes[out->npf] = ax_shape_numel(&k->nodes[i].shape) * (int64_t)ax_dtype_bytes(k->nodes[i].dtype);
        out->pf_tensor[out->npf++] = k->nodes[i].src;
      }
  }
  free(kg.t);
  free(kg.scr);
  free(kg.racc);
  return ok;
}

/* Kernel statement s of g as one __global__ function, phase by phase; false after
 * reporting a kernel the target cannot run (grid, shared memory). */
static bool emit_kernel(Emit *e, const AxMugraph *g, int s, AxCudaTarget target, const AxCudaOpts *o,
                        AxDiag *d) {
  const AxKernel *k = g->stmts[s].kernel;
  int nn = k->nnodes;
  int64_t nt = k->block[0] * k->block[1] * k->block[2];
  if (!grid_ok(k, d)) return false;
  KGen kg = {e, g, k, ax_xcalloc((size_t)nn + 1, sizeof(Tile)), nt, ax_xcalloc((size_t)nn + 1, sizeof(int64_t)), 0,
             o->task_body, ax_xcalloc((size_t)nn + 1, sizeof(int))};
  e->nt = nt;
  SmemPlan p;
  bool ok = plan_smem(&kg, target, o, &p, d);
  int64_t pf_bytes = 0;
  if (ok && o->task_body) pf_bytes = pf_plan(&kg, target);
  if (ok) {
    /* the tasks of a megakernel share one dynamic buffer (the largest task's), where static
     * arrays would add up */
    if (o->task_body) p.dyn = true;
    emit_notes(&kg, target, o, &p);
    emit_signature(&kg, s, o->task_body ? "task" : NULL);
    e->ind = 1;
    emit_tiles(&kg, &p);
    if (p.stages > 1) emit_prologue(&kg, p.stages);
    emit_invariant(&kg);
    emit_loop(&kg, p.stages);
    emit_post(&kg);
    e->ind = 0;
    fprintf(e->f, "}\n// axle: kernel %s barriers %d\n", k->name, kg.barriers);
    fprintf(e->f, "#define AX_SMEM_K%d %" PRId64 "\n#define AX_SMEM_DYN_K%d %d\n", s, p.dyn ? p.total : (int64_t)0,
            s, p.dyn ? 1 : 0);
    if (o->task_body) {
      fprintf(e->f, "#define AX_PF_K%d %" PRId64 "  // its prefetch buffer's bytes\n", s, pf_bytes);
      if (pf_bytes > 0) emit_prefetch(&kg, s);
    }
  }
  e->nt = 0;
  free(kg.t);
  free(kg.scr);
  free(kg.racc);
  return ok;
}

/* ---- prelude, host entry, header -------------------------------------------------- */

static const char prelude[] =
    "#include <stdint.h>\n"
    "#ifdef AXLE_EMU\n"
    "#include \"axle_emu.h\"  // the CPU emulator (gpu/emu): fibers for threads\n"
    "#else\n"
    "#include <cuda_runtime.h>\n"
    "#include <cuda_fp16.h>\n"
    "#include <cuda_bf16.h>\n"
    "#define AX_SMEM_STATIC(name, bytes) __shared__ __align__(128) unsigned char name[bytes]\n"
    "#define AX_SMEM_DYNAMIC(name) extern __shared__ __align__(128) unsigned char name[]\n"
    "#define AX_LAUNCH(kernel, grid, block, smem, stream, ...) \\\n"
    "  kernel<<<grid, block, smem, stream>>>(__VA_ARGS__)\n"
    "// Asynchronous global -> shared copies (sm_80+): 16 B bypass L1 (.cg), 8 and 4 B may\n"
    "// not (.ca). A copy lands at the ax_cp_async_wait<N> that leaves at most N newer\n"
    "// groups pending, visible to the thread that issued it; other threads need a barrier.\n"
    "// Below sm_80 they are plain copies, already landed when the wait comes.\n"
    "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800\n"
    "__device__ __forceinline__ void ax_cp_async16(void *d, const void *s) { *(uint4 *)d = *(const uint4 *)s; }\n"
    "__device__ __forceinline__ void ax_cp_async8(void *d, const void *s) { *(uint2 *)d = *(const uint2 *)s; }\n"
    "__device__ __forceinline__ void ax_cp_async4(void *d, const void *s) { *(unsigned *)d = *(const unsigned *)s; }\n"
    "__device__ __forceinline__ void ax_cp_async_commit() {}\n"
    "template <int N> __device__ __forceinline__ void ax_cp_async_wait() {}\n"
    "#else\n"
    "#define AX_CP_ASYNC(op, bytes) \\\n"
    "  asm volatile(\"cp.async.\" op \".shared.global [%0], [%1], \" #bytes \";\\n\" \\\n"
    "               :: \"r\"((unsigned)__cvta_generic_to_shared(d)), \"l\"(s) : \"memory\")\n"
    "__device__ __forceinline__ void ax_cp_async16(void *d, const void *s) { AX_CP_ASYNC(\"cg\", 16); }\n"
    "__device__ __forceinline__ void ax_cp_async8(void *d, const void *s) { AX_CP_ASYNC(\"ca\", 8); }\n"
    "__device__ __forceinline__ void ax_cp_async4(void *d, const void *s) { AX_CP_ASYNC(\"ca\", 4); }\n"
    "__device__ __forceinline__ void ax_cp_async_commit() { asm volatile(\"cp.async.commit_group;\\n\" ::: \"memory\"); }\n"
    "template <int N> __device__ __forceinline__ void ax_cp_async_wait() {\n"
    "  asm volatile(\"cp.async.wait_group %0;\\n\" :: \"n\"(N) : \"memory\");\n"
    "}\n"
    "#endif\n"
    "#endif\n"
    "\n"
    "// Every value is computed in f32; storage types convert on load and store.\n"
    "__device__ __forceinline__ float ax_f(float x) { return x; }\n"
    "__device__ __forceinline__ float ax_f(__half x) { return __half2float(x); }\n"
    "__device__ __forceinline__ float ax_f(__nv_bfloat16 x) { return __bfloat162float(x); }\n"
    "template <typename T> __device__ __forceinline__ T ax_to(float x);\n"
    "template <> __device__ __forceinline__ float ax_to<float>(float x) { return x; }\n"
    "template <> __device__ __forceinline__ __half ax_to<__half>(float x) { return __float2half_rn(x); }\n"
    "template <> __device__ __forceinline__ __nv_bfloat16 ax_to<__nv_bfloat16>(float x) {\n"
    "  return __float2bfloat16_rn(x);\n"
    "}\n"
    "// XLA's maximum and minimum (the llvm.maximum / llvm.minimum it emits: IEEE 754-2019):\n"
    "// NaN if either operand is NaN (fmaxf alone returns the other), else the larger\n"
    "// (smaller), -0 below +0 (fmaxf may return either zero).\n"
    "__device__ __forceinline__ float ax_max(float a, float b) {\n"
    "  return (a != a || b != b) ? a + b : a == b ? (copysignf(1.0f, a) < 0.0f ? b : a) : fmaxf(a, b);\n"
    "}\n"
    "__device__ __forceinline__ float ax_min(float a, float b) {\n"
    "  return (a != a || b != b) ? a + b : a == b ? (copysignf(1.0f, a) < 0.0f ? a : b) : fminf(a, b);\n"
    "}\n";

extern const char ax_cuda_warp_cuh[];   /* gpu/warp.cuh, embedded (warp_cuh.c) */

void ax_cuda_emit_prelude(FILE *out) {
  fputs(prelude, out);
  fputs(ax_cuda_warp_cuh, out);
  fputs("// axle: end of the prelude\n", out);
}

static void list_io(FILE *f, const AxMugraph *g, const char *prefix) {
  char sb[96];
  int ni = 0;
  for (int s = 0; s < g->nstmts; s++)
    if (g->stmts[s].kind == AX_KS_INPUT) {
      const AxKTensor *t = &g->tensors[g->stmts[s].t];
      fprintf(f, "%s  inputs[%d]  %-8s %s%s\n", prefix, ni++, t->name, ax_dtype_name(t->dtype),
              ax_shape_str(&t->shape, sb, sizeof sb));
    }
  for (int i = 0; i < g->noutputs; i++) {
    const AxKTensor *t = &g->tensors[g->outputs[i]];
    fprintf(f, "%s  outputs[%d] %-8s %s%s\n", prefix, i, t->name, ax_dtype_name(t->dtype),
            ax_shape_str(&t->shape, sb, sizeof sb));
  }
}

/* Whether g has a pre-defined operator that is a library call (a cuBLAS matmul). */
static bool has_library(const AxMugraph *g) {
  for (int s = 0; s < g->nstmts; s++)
    if (g->stmts[s].kind == AX_KS_OP && pre_library(&g->stmts[s])) return true;
  return false;
}

void ax_cuda_emit_header(FILE *out, const AxMugraph *g) {
  char id[128];
  ax_cuda_ident(g->name, id, sizeof id);
  fprintf(out, "/* Generated by axle from mugraph '%s'. Host entry of its CUDA kernels.\n", g->name);
  fprintf(out, " * Device pointers, dense row-major; returns 0 or a cudaError_t%s:\n",
          has_library(g) ? ", or 20000 + a cublasStatus_t\n * when the cuBLAS call of a pre-defined matmul fails" : "");
  list_io(out, g, " *");
  fprintf(out, " * stream: a cudaStream_t (NULL: the default stream). */\n");
  fprintf(out, "#ifndef AXLE_%s_H\n#define AXLE_%s_H\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n", id, id);
  fprintf(out, "int axle_run_%s(const void *const *inputs, void *const *outputs, void *stream);\n", id);
  if (has_library(g))
    fprintf(out, "/* Destroys the cuBLAS handles the calling host thread made (its pre-defined matmuls):\n"
                 " * call before unloading the code. */\nvoid axle_release_%s(void);\n", id);
  fprintf(out, "#ifdef __cplusplus\n}\n#endif\n#endif\n");
}

bool ax_cuda_emit(FILE *out, const AxMugraph *g, AxCudaTarget target, AxDiag *d) {
  AxCudaOpts none = {0};
  return ax_cuda_emit_opts(out, g, target, &none, d);
}

/* Refuses, through d, a pre-defined matmul cuBLAS cannot take (a size beyond its int
 * arguments); false then. */
static bool library_ok(const AxMugraph *g, AxDiag *d) {
  for (int s = 0; s < g->nstmts; s++) {
    const AxKStmt *st = &g->stmts[s];
    if (st->kind != AX_KS_OP || st->op != AX_OP_DOT) continue;
    int64_t v;
    const char *what = mm_too_large(g, st, &v);
    if (what) {
      ax_diag_error(d, g->tensors[st->t].span,
                    "pre-defined matmul '%s': its %s is %" PRId64 ", beyond cuBLAS's int arguments (at most %d)",
                    g->tensors[st->t].name, what, v, INT32_MAX);
      return false;
    }
  }
  return true;
}

/* After the prelude of a graph with pre-defined operators: ax_pack8 (pre_elementwise,
 * pre_rows) and, where a matmul is pre-defined, the cuBLAS handles (lib_matmul). */
static const char pre_helpers[] =
    "\n// Pre-defined kernels move 8 elements as one pack (16 bytes of f16 or bf16, 32 of f32):\n"
    "// 16-byte vector loads and stores where the bases are 16-byte aligned.\n"
    "template <typename T> struct alignas(16) ax_pack8 { T v[8]; };\n";

static const char cublas_helpers[] =
    "\n// Pre-defined matmuls are cuBLAS calls (cublasGemmStridedBatchedEx, f32 compute); link with\n"
    "// -lcublas. The emulator (AXLE_EMU) has a stand-in of the same signature.\n"
    "#ifndef AXLE_EMU\n"
    "#include <cublas_v2.h>\n"
    "#endif\n"
    "// A failed cuBLAS call makes the host entry return AX_CUBLAS_ERR + its cublasStatus_t\n"
    "// (cudaError_t values are below it).\n"
    "#define AX_CUBLAS_ERR 20000\n"
    "#define AX_CUBLAS_DEVICES 64\n"
    "// One handle per host thread and device: a handle belongs to the device current when it\n"
    "// is made, and its stream is set at every call, which must not race with another\n"
    "// thread's call on the same handle. Made at the thread's first pre-defined matmul on\n"
    "// that device, kept until axle_release_<graph>() or the end of the process (not\n"
    "// destroyed at exit: the CUDA runtime may be gone by then; the driver frees it).\n"
    "static thread_local cublasHandle_t ax_cublas_h[AX_CUBLAS_DEVICES];\n"
    "static int ax_cublas(cudaStream_t stream, cublasHandle_t *h) {\n"
    "  int dev = 0;\n"
    "  const cudaError_t ce = cudaGetDevice(&dev);\n"
    "  if (ce != cudaSuccess) return (int)ce;\n"
    "  if (dev < 0 || dev >= AX_CUBLAS_DEVICES) return (int)cudaErrorInvalidDevice;\n"
    "  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;\n"
    "  if (!ax_cublas_h[dev] && (st = cublasCreate(&ax_cublas_h[dev])) != CUBLAS_STATUS_SUCCESS) {\n"
    "    ax_cublas_h[dev] = NULL;\n"
    "    return AX_CUBLAS_ERR + (int)st;\n"
    "  }\n"
    "  if ((st = cublasSetStream(ax_cublas_h[dev], stream)) != CUBLAS_STATUS_SUCCESS) return AX_CUBLAS_ERR + (int)st;\n"
    "  *h = ax_cublas_h[dev];\n"
    "  return 0;\n"
    "}\n";

bool ax_cuda_emit_opts(FILE *out, const AxMugraph *g, AxCudaTarget target, const AxCudaOpts *o, AxDiag *d) {
  Emit e = {out, 0, 0};
  char id[128];
  ax_cuda_ident(g->name, id, sizeof id);
  if (!library_ok(g, d)) return false;
  bool lib = has_library(g), pre = false;
  for (int s = 0; s < g->nstmts; s++) pre |= g->stmts[s].kind == AX_KS_OP;
  fprintf(out, "// Generated by axle (axle %s) from mugraph '%s' for %s. Do not edit.\n",
          o->task_body ? "mpk" : "cuda", g->name, ax_cuda_target_name(target));
  fprintf(out, "// Host entry: axle_run_%s(inputs, outputs, stream)%s\n", id,
          lib ? "; links with -lcublas (pre-defined matmuls)" : "");
  list_io(out, g, "//");
  ax_cuda_emit_prelude(out);
  if (pre) fputs(pre_helpers, out);
  if (lib) fputs(cublas_helpers, out);
  for (int s = 0; s < g->nstmts; s++) {
    if (g->stmts[s].kind == AX_KS_OP) emit_predefined(&e, g, s);
    else if (g->stmts[s].kind == AX_KS_KERNEL && !emit_kernel(&e, g, s, target, o, d)) return false;
  }
  if (o->task_body) return true;   /* the megakernel's runtime and host entry follow (mpk/) */

  /* host entry */
  fprintf(out, "\nextern \"C\" int axle_run_%s(const void *const *inputs, void *const *outputs, "
               "cudaStream_t stream) {\n", id);
  e.ind = 1;
  bool *is_out = ax_xcalloc((size_t)g->ntensors + 1, 1);
  int ni = 0;
  for (int s = 0; s < g->nstmts; s++)
    if (g->stmts[s].kind == AX_KS_INPUT) {
      int ti = g->stmts[s].t;
      line(&e, "%s *const p%d = (%s *)inputs[%d];  // %s", ax_cuda_ctype(g->tensors[ti].dtype), ti,
           ax_cuda_ctype(g->tensors[ti].dtype), ni++, g->tensors[ti].name);
      /* an input nothing reads (a module's graph keeps every input of its program, also
       * those only dead code read) is still an argument: no unused-variable warning */
      line(&e, "(void)p%d;", ti);
    }
  for (int i = 0; i < g->noutputs; i++) {
    int ti = g->outputs[i];
    if (g->stmts[g->tensors[ti].stmt].kind == AX_KS_INPUT || is_out[ti]) continue;
    is_out[ti] = true;
    line(&e, "%s *const p%d = (%s *)outputs[%d];  // %s", ax_cuda_ctype(g->tensors[ti].dtype), ti,
         ax_cuda_ctype(g->tensors[ti].dtype), i, g->tensors[ti].name);
  }
  line(&e, "cudaError_t err = cudaSuccess;");
  if (lib) line(&e, "int ax_rc = 0;  // a cuBLAS call's failure (AX_CUBLAS_ERR + its status), else 0");
  /* intermediates: device memory for the run, stream-ordered */
  for (int ti = 0; ti < g->ntensors; ti++) {
    const AxKTensor *t = &g->tensors[ti];
    if (t->anon || is_out[ti] || g->stmts[t->stmt].kind == AX_KS_INPUT) continue;
    line(&e, "%s *p%d = NULL;  // '%s', intermediate", ax_cuda_ctype(t->dtype), ti, t->name);
  }
  for (int ti = 0; ti < g->ntensors; ti++) {
    const AxKTensor *t = &g->tensors[ti];
    if (t->anon || is_out[ti] || g->stmts[t->stmt].kind == AX_KS_INPUT) continue;
    line(&e, "if ((err = cudaMallocAsync((void **)&p%d, %" PRId64 ", stream)) != cudaSuccess) goto done;", ti,
         ax_shape_numel(&t->shape) * (int64_t)ax_dtype_bytes(t->dtype));
  }
  for (int s = 0; s < g->nstmts; s++) {
    const AxKStmt *st = &g->stmts[s];
    if (st->kind == AX_KS_OP && pre_library(st)) {
      cuda_pops[st->op].library(&e, g, s);
      continue;   /* its status is checked where it is called */
    } else if (st->kind == AX_KS_OP) {
      fprintf(out, "  AX_LAUNCH(ax_op%d, dim3(%" PRId64 "), dim3(%d), 0, stream, p%d", s, pre_blocks(g, st),
              AX_POP_ROW_THREADS, st->t);
      for (int j = 0; j < st->nin; j++)
        if (!g->tensors[st->in[j]].anon && first_use(st, j)) fprintf(out, ", p%d", st->in[j]);
      fprintf(out, ");\n");
    } else if (st->kind == AX_KS_KERNEL) {
      const AxKernel *k = st->kernel;
      /* the opt-in into more than 48 KB, once per process (not inside timed runs) */
      fprintf(out, "#if AX_SMEM_DYN_K%d\n", s);
      line(&e, "static bool ax_optin_k%d = false;", s);
      line(&e, "if (!ax_optin_k%d) {", s);
      line(&e, "  if ((err = cudaFuncSetAttribute(ax_k%d, cudaFuncAttributeMaxDynamicSharedMemorySize, AX_SMEM_K%d)) != cudaSuccess) goto done;", s, s);
      line(&e, "  ax_optin_k%d = true;", s);
      line(&e, "}");
      fprintf(out, "#endif\n");
      fprintf(out, "  AX_LAUNCH(ax_k%d, dim3(%" PRId64 ", %" PRId64 ", %" PRId64 "), dim3(%" PRId64 ", %" PRId64
              ", %" PRId64 "), AX_SMEM_K%d, stream", s, k->grid[0], k->grid[1], k->grid[2], k->block[0],
              k->block[1], k->block[2], s);
      bool *uses = ax_xcalloc((size_t)g->ntensors + 1, 1);
      for (int i = 0; i < k->nnodes; i++) {
        if (k->nodes[i].kind == AX_BN_ITER) uses[k->nodes[i].src] = true;
        if (k->nodes[i].kind == AX_BN_SAVE) uses[k->nodes[i].dst] = true;
      }
      for (int ti = 0; ti < g->ntensors; ti++)
        if (uses[ti]) fprintf(out, ", p%d", ti);
      free(uses);
      fprintf(out, ");\n");
    } else {
      continue;
    }
    line(&e, "if ((err = cudaGetLastError()) != cudaSuccess) goto done;");
  }
  /* an output that is an input of the graph: copied (the parser refuses an output named
   * twice; the check keeps the copy right if that ever changes) */
  for (int i = 0; i < g->noutputs; i++) {
    int ti = g->outputs[i];
    bool again = false;
    for (int j = 0; j < i; j++) again |= g->outputs[j] == ti;
    if (g->stmts[g->tensors[ti].stmt].kind != AX_KS_INPUT && !again) continue;
    line(&e, "if ((err = cudaMemcpyAsync(outputs[%d], p%d, %" PRId64 ", cudaMemcpyDeviceToDevice, stream)) != cudaSuccess) goto done;",
         i, ti, ax_shape_numel(&g->tensors[ti].shape) * (int64_t)ax_dtype_bytes(g->tensors[ti].dtype));
  }
  fprintf(out, "done:\n");
  for (int ti = 0; ti < g->ntensors; ti++) {
    const AxKTensor *t = &g->tensors[ti];
    if (t->anon || is_out[ti] || g->stmts[t->stmt].kind == AX_KS_INPUT) continue;
    line(&e, "if (p%d) cudaFreeAsync(p%d, stream);", ti, ti);
  }
  line(&e, "return %s;", lib ? "ax_rc ? ax_rc : (int)err" : "(int)err");
  fprintf(out, "}\n");
  free(is_out);
  if (lib) {
    /* the calling thread's handles, for a process that unloads the code (cublas_helpers) */
    fprintf(out, "\n// Destroys the cuBLAS handles this host thread made (call before unloading the code).\n");
    fprintf(out, "extern \"C\" void axle_release_%s(void) {\n", id);
    fprintf(out, "  int cur = -1;\n  if (cudaGetDevice(&cur) != cudaSuccess) cur = -1;\n");
    fprintf(out, "  for (int dev = 0; dev < AX_CUBLAS_DEVICES; dev++) {\n");
    fprintf(out, "    if (!ax_cublas_h[dev] || cudaSetDevice(dev) != cudaSuccess) continue;\n");
    fprintf(out, "    cublasDestroy(ax_cublas_h[dev]);\n    ax_cublas_h[dev] = NULL;\n  }\n");
    fprintf(out, "  if (cur >= 0) cudaSetDevice(cur);\n}\n");
  }
  return true;
}

/* ---- benchmark manifest ------------------------------------------------------------------ */

static void json_shape(FILE *out, const AxTShape *s) {
  fputc('[', out);
  for (int i = 0; i < s->rank; i++) fprintf(out, "%s%" PRId64, i ? ", " : "", s->dim[i]);
  fputc(']', out);
}

/* Names in .axl and .mug files are identifiers; anything else is escaped for JSON. */
static void json_str(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fprintf(out, "\\%c", *s);
    else if ((unsigned char)*s < 0x20) fprintf(out, "\\u%04x", *s);
    else fputc(*s, out);
  }
  fputc('"', out);
}

/* The program tensor named like graph tensor gt, with the same dtype and shape; -1 after
 * reporting. */
static int pair_tensor(const AxMugraph *g, int gt, const AxMugraph *prog, AxDiag *d, const char *what) {
  const AxKTensor *t = &g->tensors[gt];
  int pt = ax_mug_find(prog, t->name);
  char b1[96], b2[96];
  if (pt < 0) {
    ax_diag_error(d, t->span, "%s '%s' of mugraph '%s' is not a tensor of program '%s'", what, t->name,
                  g->name, prog->name);
    return -1;
  }
  const AxKTensor *p = &prog->tensors[pt];
  if (p->dtype != t->dtype || !ax_shape_equal(&p->shape, &t->shape)) {
    ax_diag_error(d, t->span, "%s '%s': %s%s in the mugraph, %s%s in program '%s'", what, t->name,
                  ax_dtype_name(t->dtype), ax_shape_str(&t->shape, b1, sizeof b1), ax_dtype_name(p->dtype),
                  ax_shape_str(&p->shape, b2, sizeof b2), prog->name);
    return -1;
  }
  return pt;
}

bool ax_cuda_emit_manifest(FILE *out, const AxMugraph *g, const AxMugraph *prog, AxCudaTarget target,
                           AxDiag *d) {
  char id[128];
  ax_cuda_ident(g->name, id, sizeof id);
  int *pin = ax_xcalloc((size_t)g->ntensors + 1, sizeof *pin);
  bool ok = true;
  int ni = 0, pni = 0;
  for (int s = 0; s < g->nstmts; s++)
    if (g->stmts[s].kind == AX_KS_INPUT) {
      int pt = pair_tensor(g, g->stmts[s].t, prog, d, "input");
      if (pt < 0) ok = false;
      else if (prog->stmts[prog->tensors[pt].stmt].kind != AX_KS_INPUT) {
        ax_diag_error(d, g->tensors[g->stmts[s].t].span, "input '%s' is computed, not an input, in program '%s'",
                      g->tensors[g->stmts[s].t].name, prog->name);
        ok = false;
      }
      pin[ni++] = pt;
    }
  for (int s = 0; s < prog->nstmts; s++) pni += prog->stmts[s].kind == AX_KS_INPUT;
  if (ok && pni != ni) {
    ax_diag_error(d, g->span, "mugraph '%s' has %d inputs, program '%s' %d", g->name, ni, prog->name, pni);
    ok = false;
  }
  int *pout = ax_xcalloc((size_t)g->noutputs + 1, sizeof *pout);
  for (int i = 0; i < g->noutputs && ok; i++)
    if ((pout[i] = pair_tensor(g, g->outputs[i], prog, d, "output")) < 0) ok = false;
  if (!ok) {
    free(pin);
    free(pout);
    return false;
  }
  fprintf(out, "{\n  \"format\": \"axle-bench-1\",\n  \"graph\": ");
  json_str(out, g->name);
  fprintf(out, ",\n  \"entry\": \"axle_run_%s\",\n  \"target\": \"%s\",\n  \"program\": ", id,
          ax_cuda_target_name(target));
  json_str(out, prog->name);
  fprintf(out, ",\n  \"inputs\": [");
  for (int i = 0; i < ni; i++) {
    const AxKTensor *t = &prog->tensors[pin[i]];
    fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
    json_str(out, t->name);
    fprintf(out, ", \"t\": %d, \"dtype\": \"%s\", \"shape\": ", pin[i], ax_dtype_name(t->dtype));
    json_shape(out, &t->shape);
    fputc('}', out);
  }
  fprintf(out, "\n  ],\n  \"outputs\": [");
  for (int i = 0; i < g->noutputs; i++) {
    const AxKTensor *t = &prog->tensors[pout[i]];
    fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
    json_str(out, t->name);
    fprintf(out, ", \"t\": %d, \"dtype\": \"%s\", \"shape\": ", pout[i], ax_dtype_name(t->dtype));
    json_shape(out, &t->shape);
    fputc('}', out);
  }
  fprintf(out, "\n  ],\n  \"steps\": [");
  bool first = true;
  for (int s = 0; s < prog->nstmts; s++) {
    const AxKStmt *st = &prog->stmts[s];
    if (st->kind != AX_KS_OP) continue;
    const AxKTensor *t = &prog->tensors[st->t];
    fprintf(out, "%s\n    {\"t\": %d, \"op\": \"%s\", \"in\": [", first ? "" : ",", st->t, ax_op_pname(st->op));
    first = false;
    for (int j = 0; j < st->nin; j++) {
      const AxKTensor *a = &prog->tensors[st->in[j]];
      if (a->anon) fprintf(out, "%s{\"const\": %.17g}", j ? ", " : "", (double)a->value.num / (double)a->value.den);
      else fprintf(out, "%s%d", j ? ", " : "", st->in[j]);
    }
    fprintf(out, "], \"dtype\": \"%s\", \"shape\": ", ax_dtype_name(t->dtype));
    json_shape(out, &t->shape);
    unsigned at = ax_op_spec(st->op)->tattrs;
    if (at & AX_TA_AXIS) fprintf(out, ", \"axis\": %d", st->at.axis);
    if (at & AX_TA_TO) fprintf(out, ", \"to\": %" PRId64, st->at.to ? st->at.to : 1);
    if (at & AX_TA_TIMES) fprintf(out, ", \"times\": %" PRId64, st->at.times);
    if (at & AX_TA_SHAPE) {
      fprintf(out, ", \"attr_shape\": ");
      json_shape(out, &st->at.shape);
    }
    fputc('}', out);
  }
  fprintf(out, "\n  ]\n}\n");
  free(pin);
  free(pout);
  return true;
}
