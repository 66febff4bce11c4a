/* emulate.c — the generated CUDA, compiled for the CPU, against the float interpreter. */
#include "gpu/emulate.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu/cuda.h"
#include "superopt/equiv/interp.h"
#include "superopt/arith/rng.h"
#include "superopt/equiv/values.h"

extern const char ax_emu_runtime_h[];   /* gpu/emu/axle_emu.h, embedded (emu_runtime.c) */

double ax_emu_default_tol(AxDtype t) {
  switch (t) {
  case AX_DT_F16: return 1e-2;
  case AX_DT_BF16: return 4e-2;
  case AX_DT_F32: return 1e-4;
  }
  AX_UNREACHABLE();
}

/* ---- storage encodings of values already representable in the dtype ---------------- */

static uint16_t enc_f16(double x) {
  uint16_t sign = signbit(x) ? 0x8000 : 0;
  x = fabs(x);
  if (isinf(x)) return sign | 0x7c00;
  if (isnan(x)) return 0x7e00;
  if (x == 0) return sign;
  if (x < ldexp(1.0, -14)) return sign | (uint16_t)nearbyint(ldexp(x, 24));
  int e;
  double f = frexp(x, &e);   /* x = f 2^e, f in [0.5, 1) */
  uint16_t m = (uint16_t)nearbyint((f * 2 - 1) * 1024);
  return sign | (uint16_t)((e - 1 + 15) << 10) | m;
}

static double dec_f16(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}

static void encode(AxDtype t, double x, unsigned char *p) {
  float f = (float)x;
  uint32_t b;
  memcpy(&b, &f, 4);
  uint16_t h;
  switch (t) {
  case AX_DT_F16: h = enc_f16(x); memcpy(p, &h, 2); break;
  case AX_DT_BF16: h = (uint16_t)(b >> 16); memcpy(p, &h, 2); break;   /* exact: pre-rounded */
  case AX_DT_F32: memcpy(p, &f, 4); break;
  }
}

static double decode(AxDtype t, const unsigned char *p) {
  uint16_t h;
  uint32_t b;
  float f;
  switch (t) {
  case AX_DT_F16: memcpy(&h, p, 2); return dec_f16(h);
  case AX_DT_BF16: memcpy(&h, p, 2); b = (uint32_t)h << 16; memcpy(&f, &b, 4); return f;
  case AX_DT_F32: memcpy(&f, p, 4); return f;
  }
  AX_UNREACHABLE();
}

/* ---- files and processes ---------------------------------------------------------------- */

static char *path_in(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = ax_xmalloc(n);
  snprintf(p, n, "%s/%s", dir, name);
  return p;
}

static bool write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, n, f) == n;
  return fclose(f) == 0 && ok;
}

static bool read_file(const char *path, void *data, size_t n) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  bool ok = fread(data, 1, n, f) == n;
  fclose(f);
  return ok;
}

static bool copy_file(const char *from, const char *to) {
  FILE *in = fopen(from, "rb");
  if (!in) return false;
  FILE *out = fopen(to, "wb");
  bool ok = out != NULL;
  char buf[65536];
  size_t n;
  while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0) ok = fwrite(buf, 1, n, out) == n;
  fclose(in);
  if (out && fclose(out) != 0) ok = false;
  return ok;
}

/* Runs argv with stdout and stderr into `log`; returns the exit status, or -1 when it could
 * not start (127: not found) or died of a signal (-2). */
static int run(char *const *argv, const char *log) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    /* descriptors only: axle's stdout is a checked stream (cli/out.h), not a plain FILE */
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    execvp(argv[0], argv);
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFSIGNALED(st)) return -2;
  return WEXITSTATUS(st);
}

static void print_log(FILE *out, const char *log) {
  FILE *f = fopen(log, "r");
  if (!f) return;
  char buf[4096];
  int lines = 0;
  while (fgets(buf, sizeof buf, f) && lines++ < 60) fprintf(out, "    %s", buf);
  fclose(f);
}

static void remove_dir(const char *dir, const char *const *names, int n) {
  for (int i = 0; i < n; i++) {
    char *p = path_in(dir, names[i]);
    remove(p);
    free(p);
  }
  rmdir(dir);
}

/* The driver: reads in<i>.bin, runs the entry, writes out<i>.bin (sizes are constants). */
static void write_driver(FILE *f, const AxMugraph *g, const char *id) {
  fprintf(f, "// driver of axle emulate: files in, axle_run_%s, files out\n#include \"axle_emu.h\"\n", id);
  fprintf(f, "extern \"C\" int axle_run_%s(const void *const *, void *const *, cudaStream_t);\n", id);
  fprintf(f, "static const size_t in_bytes[] = {");
  int ni = 0;
  for (int s = 0; s < g->nstmts; s++)
    if (g->stmts[s].kind == AX_KS_INPUT) {
      const AxKTensor *t = &g->tensors[g->stmts[s].t];
      fprintf(f, "%" PRId64 "u, ", ax_shape_numel(&t->shape) * (int64_t)ax_dtype_bytes(t->dtype));
      ni++;
    }
  fprintf(f, "0};\nstatic const size_t out_bytes[] = {");
  for (int i = 0; i < g->noutputs; i++) {
    const AxKTensor *t = &g->tensors[g->outputs[i]];
    fprintf(f, "%" PRId64 "u, ", ax_shape_numel(&t->shape) * (int64_t)ax_dtype_bytes(t->dtype));
  }
  fprintf(f, "0};\n");
  fprintf(f,
          "static void *io(const char *dir, const char *kind, int i, size_t n, bool rd) {\n"
          "  char path[4096];\n"
          "  std::snprintf(path, sizeof path, \"%%s/%%s%%d.bin\", dir, kind, i);\n"
          "  void *p = std::calloc(n ? n : 1, 1);\n"
          "  FILE *f = std::fopen(path, rd ? \"rb\" : \"wb\");\n"
          "  if (!f || !p) { std::fprintf(stderr, \"driver: cannot open %%s\\n\", path); std::exit(6); }\n"
          "  size_t k = rd ? std::fread(p, 1, n, f) : n;\n"
          "  std::fclose(f);\n"
          "  if (k != n) { std::fprintf(stderr, \"driver: short read %%s\\n\", path); std::exit(6); }\n"
          "  return p;\n"
          "}\n"
          "int main(int argc, char **argv) {\n"
          "  if (argc != 2 && argc != 4) return 6;\n"
          "  const int ni = %d, no = %d;\n"
          "  std::vector<void *> in(ni + 1), out(no + 1);\n"
          "  for (int i = 0; i < ni; i++) in[(size_t)i] = io(argv[1], \"in\", i, in_bytes[i], true);\n"
          "  for (int i = 0; i < no; i++) out[(size_t)i] = std::calloc(out_bytes[i] ? out_bytes[i] : 1, 1);\n"
          "#ifdef AXLE_EMU_MK\n"
          "  if (argc != 4) return 6;\n"
          "  axemu::mk_workers = std::atoi(argv[2]);  // the SMs the device reports\n"
          "  axemu::mk_seed = std::strtoull(argv[3], nullptr, 10);\n"
          "#endif\n"
          "  int rc = axle_run_%s(in.data(), out.data(), nullptr);\n"
          "  if (rc) { std::fprintf(stderr, \"driver: axle_run_%s returned %%d\\n\", rc); return 7; }\n"
          "  for (int i = 0; i < no; i++) {\n"
          "    char path[4096];\n"
          "    std::snprintf(path, sizeof path, \"%%s/out%%d.bin\", argv[1], i);\n"
          "    FILE *f = std::fopen(path, \"wb\");\n"
          "    if (!f || std::fwrite(out[(size_t)i], 1, out_bytes[i], f) != out_bytes[i]) return 6;\n"
          "    std::fclose(f);\n"
          "  }\n"
          "  return axemu::write_banks(argv[1]) ? 0 : 6;  // the bank counter's figures\n"
          "}\n",
          ni, g->noutputs, id, id);
}

/* Largest |y - x| relative to the largest finite |x|. Where the reference is not finite
 * (an f16 overflow the μGraph itself makes: QKNorm's exp) the emulation must give the same
 * class (nan, +inf, -inf); otherwise, or when y is not finite where x is, the error is inf.
 * *at gets the worst index, *nonfinite the number of non-finite reference elements. */
static double rel_error(const double *x, const double *y, int64_t n, int64_t *at, int64_t *nonfinite) {
  double ref = 0, err = 0;
  *at = 0;
  *nonfinite = 0;
  for (int64_t k = 0; k < n; k++) {
    if (!isfinite(x[k])) {
      ++*nonfinite;
      bool same = isnan(x[k]) ? isnan(y[k]) : y[k] == x[k];
      if (!same) {
        *at = k;
        return INFINITY;
      }
      continue;
    }
    ref = fmax(ref, fabs(x[k]));
    if (!isfinite(y[k])) {
      *at = k;
      return INFINITY;
    }
    double dlt = fabs(y[k] - x[k]);
    if (dlt > err) err = dlt, *at = k;
  }
  return ref > 0 ? err / ref : err;
}

static void index_str(const AxTShape *s, int64_t at, char *buf, size_t n) {
  int64_t idx[AX_MAXRANK];
  for (int d = s->rank - 1; d >= 0; d--) idx[d] = at % s->dim[d], at /= s->dim[d];
  size_t u = (size_t)snprintf(buf, n, "[");
  for (int d = 0; d < s->rank && u < n; d++)
    u += (size_t)snprintf(buf + u, n - u, "%s%" PRId64, d ? ", " : "", idx[d]);
  if (u < n) snprintf(buf + u, n - u, "]");
}

/* ---- the run, phase by phase -------------------------------------------------------- */

/* One emulation: its temporary directory and the files in it, the inputs and the
 * reference's tensors. */
typedef struct Emu {
  const AxMugraph *g;
  const AxEmuOpts *o;
  FILE *out;
  char dir[4096];
  char id[128];          /* the graph's C identifier */
  const char **names;    /* the names written into dir, for the cleanup */
  int nnames;
  char *hp, *kp, *dp, *ep, *lp;   /* runtime header, kernel, driver, binary, log */
  int ni;                /* graph inputs */
  AxTensor *vals;        /* per kernel tensor: the interpreter's values (inputs first) */
  double **din;          /* per input: its values */
  const double **ref;    /* with a program: per graph output, the program's value */
  AxArena *a;
} Emu;

/* A phase that succeeded returns GO_ON; any other value is the run's exit status. */
enum { GO_ON = -1 };

static int io_fail(const Emu *x) {
  fprintf(x->out, "axle emulate: cannot write or read files in '%s'\n", x->dir);
  return 2;
}

/* The runtime header, the kernel source (FILE.cu, the megakernel given, or generated for
 * sm_90) and the driver. */
static int write_sources(Emu *x, AxDiag *d) {
  if (!write_file(x->hp, ax_emu_runtime_h, strlen(ax_emu_runtime_h))) return io_fail(x);
  if (x->o->megakernel) {
    if (!write_file(x->kp, x->o->megakernel, strlen(x->o->megakernel))) return io_fail(x);
  } else if (x->o->source) {
    if (!copy_file(x->o->source, x->kp)) {
      fprintf(x->out, "axle emulate: cannot read '%s'\n", x->o->source);
      return 3;
    }
  } else {
    FILE *f = fopen(x->kp, "w");
    if (!f) return io_fail(x);
    bool ok = ax_cuda_emit(f, x->g, AX_CUDA_SM90, d);
    if (fclose(f) != 0 && ok) return io_fail(x);
    if (!ok) return 3;
  }
  FILE *f = fopen(x->dp, "w");
  if (!f) return io_fail(x);
  write_driver(f, x->g, x->id);
  if (fclose(f) != 0) return io_fail(x);
  return GO_ON;
}

static double range(const AxEmuOpts *o) { return o->range > 0 ? o->range : 0.5; }

/* The inputs: uniform in [-range, range] (default 0.5) from the seed, rounded to the dtype;
 * in%d.bin for the program, x->vals for the interpreter. */
static int write_inputs(Emu *x) {
  static const char *const inames[] = {"in0.bin", "in1.bin", "in2.bin", "in3.bin", "in4.bin", "in5.bin",
                                       "in6.bin", "in7.bin"};
  const AxMugraph *g = x->g;
  AxRng r;
  ax_rng_init(&r, x->o->seed, 0x20000);
  int i = 0;
  for (int s = 0; s < g->nstmts; s++) {
    if (g->stmts[s].kind != AX_KS_INPUT) continue;
    int ti = g->stmts[s].t;
    const AxKTensor *t = &g->tensors[ti];
    size_t n = (size_t)ax_shape_numel(&t->shape), es = ax_dtype_bytes(t->dtype);
    x->din[i] = ax_xmalloc(n * sizeof(double) + 1);
    unsigned char *raw = ax_xmalloc(n * es + 1);
    for (size_t k = 0; k < n; k++) {
      x->din[i][k] = ax_values_round_to(t->dtype, (2 * ax_rng_unit(&r) - 1) * range(x->o));
      encode(t->dtype, x->din[i][k], raw + k * es);
    }
    x->vals[ti] = (AxTensor){t->shape, x->din[i]};
    char nm[32];
    snprintf(nm, sizeof nm, "in%d.bin", i);
    char *p = path_in(x->dir, nm);
    bool ok = write_file(p, raw, n * es);
    free(p);
    free(raw);
    if (i < (int)AX_COUNTOF(inames)) x->names[x->nnames++] = inames[i];
    else x->names[x->nnames++] = ax_arena_strdup(x->a, nm);
    if (!ok) return io_fail(x);
    i++;
  }
  return GO_ON;
}

/* The kernel and the driver, compiled by $CXX (default g++) with the emulator's runtime. */
static int compile(Emu *x) {
  const char *cxx = x->o->cxx ? x->o->cxx : getenv("CXX");
  if (!cxx || !*cxx) cxx = "g++";
  char *argv[] = {(char *)cxx, "-std=c++17", "-O2", "-w", "-DAXLE_EMU", "-I", x->dir, "-x", "c++",
                  x->kp, x->dp, "-o", x->ep, NULL, NULL, NULL};
  if (x->o->megakernel) {   /* the megakernel's workers are threads */
    argv[13] = "-DAXLE_EMU_MK";
    argv[14] = "-pthread";
  }
  int rc = run(argv, x->lp);
  if (rc == 0) return GO_ON;
  if (rc == 127) fprintf(x->out, "axle emulate: cannot run the C++ compiler '%s' (set CXX)\n", cxx);
  else fprintf(x->out, "axle emulate: the generated source does not compile for the CPU (%s):\n", cxx);
  print_log(x->out, x->lp);
  return 2;
}

/* The emulated program, which writes out%d.bin; a megakernel's run `run` has schedule seed
 * seed + run. */
static int execute(Emu *x, int run_no) {
  char workers[32], seed[32];
  snprintf(workers, sizeof workers, "%d", x->o->workers);
  snprintf(seed, sizeof seed, "%" PRIu64, x->o->seed + (uint64_t)run_no);
  char *argv[] = {x->ep, x->dir, x->o->megakernel ? workers : NULL, seed, NULL};
  int rc = run(argv, x->lp);
  if (rc == 0) return GO_ON;
  fprintf(x->out, "axle emulate: the emulated program failed (%s):\n",
          rc == 5 ? "barrier divergence" : rc == 8 ? "warp divergence" : rc == -2 ? "killed by a signal"
          : rc == 9 ? "a megakernel event never fired" : "exit status");
  print_log(x->out, x->lp);
  if (rc > 0 && rc != 5 && rc != 8) fprintf(x->out, "    (exit status %d)\n", rc);
  return 2;
}

/* The bank counter's figures (gpu/emu/axle_emu.h writes banks.txt): per graph-defined
 * kernel, and per other kernel that made any, the warp-wide shared-memory requests the
 * emulator saw whole — ldmatrix and 16-byte vector accesses —, their wavefronts and the
 * ideal (docs/gpu.md, "The bank counter"). */
static void print_banks(Emu *x) {
  char *p = path_in(x->dir, "banks.txt");
  FILE *f = fopen(p, "r");
  free(p);
  if (!f) return;
  static const char *const what[2] = {"ldmatrix", "16-byte vector"};
  char name[100];
  unsigned long long v[7];
  while (fscanf(f, "%99s %llu %llu %llu %llu %llu %llu %llu", name, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                &v[6]) == 8) {
    int s;
    char tail;
    bool graph = sscanf(name, "ax_k%d%c", &s, &tail) == 1 && s >= 0 && s < x->g->nstmts &&
                 x->g->stmts[s].kind == AX_KS_KERNEL;
    if (!graph && v[0] + v[3] + v[6] == 0) continue;
    if (graph) fprintf(x->out, "  shared memory, kernel '%s' (%s):", x->g->stmts[s].kernel->name, name);
    else fprintf(x->out, "  shared memory, kernel %s:", name);
    if (v[0] + v[3] == 0) fputs(" no warp-wide request seen whole", x->out);
    bool first = true;
    for (int c = 0; c < 2; c++) {
      unsigned long long req = v[3 * c], wf = v[3 * c + 1], ideal = v[3 * c + 2];
      if (!req) continue;
      fprintf(x->out, "%s %llu %s request%s, %llu wavefronts (%.2f per request), ideal %llu (%.2f per request): "
              "%.2f of ideal", first ? "" : ";", req, what[c], req == 1 ? "" : "s", wf, (double)wf / (double)req, ideal,
              (double)ideal / (double)req, ideal ? (double)wf / (double)ideal : 0.0);
      first = false;
    }
    if (v[6]) fprintf(x->out, "; %llu 16-byte accesses not made by every lane of a warp (not counted)", v[6]);
    fputc('\n', x->out);
  }
  fclose(f);
}

/* The program's outputs in doubles (no storage rounding) on the graph's inputs, paired by
 * name (the caller checked the pairing: ax_emu_pair_check), per graph output. */
static const double **reference(Emu *x) {
  const AxMugraph *g = x->g, *p = x->o->program;
  AxTensor *pv = ax_arena_alloc(x->a, ((size_t)p->ntensors + 1) * sizeof *pv);
  memset(pv, 0, ((size_t)p->ntensors + 1) * sizeof *pv);
  for (int s = 0; s < g->nstmts; s++)
    if (g->stmts[s].kind == AX_KS_INPUT) {
      int ti = g->stmts[s].t, pi = ax_mug_find(p, g->tensors[ti].name);
      pv[pi] = x->vals[ti];
    }
  AxTDomain exact = ax_values_float(false);
  ax_interp_run(p, &exact, x->a, pv);
  const double **ref = ax_arena_alloc(x->a, ((size_t)g->noutputs + 1) * sizeof *ref);
  for (int i = 0; i < g->noutputs; i++)
    ref[i] = pv[ax_mug_find(p, g->tensors[g->outputs[i]].name)].data;
  return ref;
}

static bool same_shape(const AxTShape *a, const AxTShape *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dim[i] != b->dim[i]) return false;
  return true;
}

bool ax_emu_pair_check(const AxMugraph *g, const AxMugraph *p, AxDiag *d) {
  char b1[96], b2[96];
  for (int s = 0; s < g->nstmts; s++) {
    const AxKStmt *st = &g->stmts[s];
    int n = st->kind == AX_KS_INPUT ? 1 : st->kind == AX_KS_OUTPUT ? st->nouts : 0;
    for (int j = 0; j < n; j++) {
      const AxKTensor *t = &g->tensors[st->kind == AX_KS_INPUT ? st->t : st->outs[j]];
      int pi = ax_mug_find(p, t->name);
      bool in = st->kind == AX_KS_INPUT;
      bool kind_ok = pi >= 0 && (!in || p->stmts[p->tensors[pi].stmt].kind == AX_KS_INPUT);
      if (!kind_ok) {
        ax_diag_error(d, t->span, "%s '%s' of mugraph '%s' is not %s of program '%s'", in ? "input" : "output",
                      t->name, g->name, in ? "an input" : "a tensor", p->name);
        return false;
      }
      if (!same_shape(&t->shape, &p->tensors[pi].shape)) {
        ax_diag_error(d, t->span, "%s '%s': %s in the mugraph, %s in program '%s'", in ? "input" : "output",
                      t->name, ax_shape_str(&t->shape, b1, sizeof b1),
                      ax_shape_str(&p->tensors[pi].shape, b2, sizeof b2), p->name);
        return false;
      }
    }
  }
  return true;
}

/* The reference (the μGraph in doubles, stored tensors rounded to their dtype) against
 * every output the program wrote: 0 all within tolerance, 1 some not. */
static int compare(Emu *x, int run_no) {
  const AxMugraph *g = x->g;
  FILE *out = x->out;
  if (run_no == 0) {
    if (x->o->program) {
      x->ref = reference(x);
    } else {
      AxTDomain stored = ax_values_float(true);
      ax_interp_run(g, &stored, x->a, x->vals);
    }
    fprintf(out, "emulate: mugraph '%s', seed %" PRIu64 ", inputs in [-%g, %g]; reference: ", g->name,
            x->o->seed, range(x->o), range(x->o));
    if (x->o->program) fprintf(out, "program '%s' in f64\n", x->o->program->name);
    else fputs("the float interpreter with storage rounding\n", out);
    if (x->o->megakernel)
      fprintf(out, "megakernel: %d worker thread%s, %d schedule%s (seeds %" PRIu64 " to %" PRIu64 ")\n",
              x->o->workers, x->o->workers == 1 ? "" : "s", x->o->runs, x->o->runs == 1 ? "" : "s",
              x->o->seed, x->o->seed + (uint64_t)x->o->runs - 1);
  }
  bool bad = false;
  for (int i = 0; i < g->noutputs; i++) {
    const AxKTensor *t = &g->tensors[g->outputs[i]];
    size_t n = (size_t)ax_shape_numel(&t->shape), es = ax_dtype_bytes(t->dtype);
    unsigned char *raw = ax_xmalloc(n * es + 1);
    char nm[32];
    snprintf(nm, sizeof nm, "out%d.bin", i);
    if (run_no == 0) x->names[x->nnames++] = ax_arena_strdup(x->a, nm);
    char *p = path_in(x->dir, nm);
    bool ok = read_file(p, raw, n * es);
    free(p);
    if (!ok) {
      free(raw);
      return io_fail(x);
    }
    double *y = ax_xmalloc(n * sizeof(double) + 1);
    for (size_t k = 0; k < n; k++) y[k] = decode(t->dtype, raw + k * es);
    free(raw);
    int64_t at, nonfinite;
    const double *ref = x->o->program ? x->ref[i] : x->vals[g->outputs[i]].data;
    double rel = rel_error(ref, y, (int64_t)n, &at, &nonfinite);
    double tol = x->o->tol > 0 ? x->o->tol : ax_emu_default_tol(t->dtype);
    bool fine = rel <= tol;
    char idx[128];
    index_str(&t->shape, at, idx, sizeof idx);
    if (x->o->megakernel) fprintf(out, "  schedule %" PRIu64 ":", x->o->seed + (uint64_t)run_no);
    fprintf(out, "  output '%s' %s: max relative error %.3g (tolerance %.3g)", t->name,
            ax_dtype_name(t->dtype), rel, tol);
    if (nonfinite)
      fprintf(out, "; %" PRId64 " of %zu reference elements are inf/nan (the mugraph overflows its "
              "storage type) and match", nonfinite, n);
    fputs(fine ? "\n" : "", out);
    if (!fine) fprintf(out, " at %s: %.6g instead of %.6g\n", idx, y[at], ref[at]);
    bad |= !fine;
    free(y);
  }
  if (!x->o->megakernel) print_banks(x);
  if (x->o->megakernel && !bad && run_no + 1 < x->o->runs) return GO_ON;   /* the next schedule */
  if (x->o->megakernel)
    fprintf(out, bad ? "DIFFERS: the megakernel under schedule %" PRIu64 " does not compute what the "
                       "mugraph computes\n"
                     : "agrees: the megakernel computes what the mugraph computes under every schedule\n",
            x->o->seed + (uint64_t)run_no);
  else if (x->o->program)
    fprintf(out, bad ? "DIFFERS: the generated kernels do not compute what program '%s' computes\n"
                     : "agrees: the generated kernels compute what program '%s' computes\n",
            x->o->program->name);
  else
    fprintf(out, bad ? "DIFFERS: the generated kernels do not compute what the mugraph computes\n"
                     : "agrees: the generated kernels compute what the mugraph computes\n");
  return bad ? 1 : 0;
}

int ax_emu_run(const AxMugraph *g, AxDiag *d, const AxEmuOpts *o) {
  Emu x = {.g = g, .o = o, .out = o->out};
  const char *tmpd = getenv("TMPDIR");
  snprintf(x.dir, sizeof x.dir, "%s/axle-emu-XXXXXX", tmpd && *tmpd ? tmpd : "/tmp");
  if (!mkdtemp(x.dir)) {
    fprintf(x.out, "axle emulate: cannot create a temporary directory: %s\n", strerror(errno));
    return 2;
  }
  ax_cuda_ident(g->name, x.id, sizeof x.id);
  for (int s = 0; s < g->nstmts; s++) x.ni += g->stmts[s].kind == AX_KS_INPUT;
  x.names = ax_xcalloc((size_t)(x.ni + g->noutputs + 8), sizeof *x.names);
  x.hp = path_in(x.dir, "axle_emu.h");
  x.kp = path_in(x.dir, "kernel.cu");
  x.dp = path_in(x.dir, "driver.cpp");
  x.ep = path_in(x.dir, "emu");
  x.lp = path_in(x.dir, "log.txt");
  static const char *const fixed[] = {"axle_emu.h", "kernel.cu", "driver.cpp", "emu", "log.txt", "banks.txt"};
  for (size_t i = 0; i < AX_COUNTOF(fixed); i++) x.names[x.nnames++] = fixed[i];
  x.vals = ax_xcalloc((size_t)g->ntensors + 1, sizeof *x.vals);
  x.din = ax_xcalloc((size_t)x.ni + 1, sizeof *x.din);
  x.a = ax_arena_new();

  int status = write_sources(&x, d);
  if (status == GO_ON) status = write_inputs(&x);
  if (status == GO_ON) status = compile(&x);
  int runs = o->megakernel && o->runs > 1 ? o->runs : 1;
  for (int r = 0; r < runs && status == GO_ON; r++) {
    status = execute(&x, r);
    if (status == GO_ON) status = compare(&x, r);
  }

  if (o->keep) fprintf(x.out, "emulate: files kept in %s\n", x.dir);
  else remove_dir(x.dir, x.names, x.nnames);
  for (int i = 0; i < x.ni; i++) free(x.din[i]);
  free(x.din);
  free(x.vals);
  free(x.names);
  free(x.hp);
  free(x.kp);
  free(x.dp);
  free(x.ep);
  free(x.lp);
  ax_arena_free(x.a);
  return status;
}
