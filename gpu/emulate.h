/* emulate.h — runs a μGraph's generated CUDA on the CPU and compares it with the float
 * interpreter (docs/gpu.md, "Emulator").
 *
 * The generated source (ax_cuda_emit for sm_90, or a given .cu file) is compiled by the
 * host C++ compiler with -DAXLE_EMU against gpu/emu/axle_emu.h (carried inside axle and
 * written beside it in a temporary directory), together with a small driver that reads the
 * inputs, calls axle_run_<graph> and writes the outputs. Inputs are drawn uniformly from
 * [-0.5, 0.5] with ChaCha20 from the seed and rounded to their dtype; the reference is the
 * μGraph run by the float interpreter with storage rounding (superopt/equiv/interp.h), which
 * rounds where the generated code rounds. Per output the largest relative error
 * max|emu - ref| / max|ref| is printed and compared with the dtype's tolerance; per
 * graph-defined kernel, the bank counter's figures (wavefronts of the warp-wide
 * shared-memory requests the emulator saw whole, and the ideal). */
#ifndef AX_EMULATE_H
#define AX_EMULATE_H

#include "superopt/ir/mugraph.h"

typedef struct AxEmuOpts {
  uint64_t seed;
  const char *source;   /* a .cu file to run instead of generating one; NULL: generate */
  const char *cxx;      /* the host C++ compiler; NULL: $CXX, else g++ */
  double tol;           /* 0: by dtype (f16 1e-2, bf16 4e-2, f32 1e-4) */
  bool keep;            /* keep the temporary directory (its path is printed) */
  double range;         /* inputs uniform in [-range, range]; 0: 0.5 */
  /* The reference: the graph's program (validated, borrowed; inputs and outputs paired
   * by name, as axle equiv pairs them) in doubles without storage rounding, instead of
   * the graph itself with storage rounding. NULL: the graph. */
  const AxMugraph *program;
  FILE *out;            /* the report */
  /* The emulated megakernel (docs/mpk.md): the persistent megakernel's CUDA source
   * (mpk/mkcuda.h, run instead of the per-kernel one; NULL: the ordinary emulation). It is
   * compiled with -DAXLE_EMU_MK and run `runs` times (schedule seeds seed, seed + 1, ...)
   * with `workers` worker threads (the SM count its device reports), every run's outputs
   * compared with the interpreter; the first run that differs ends it. */
  const char *megakernel;
  int workers, runs;
} AxEmuOpts;

/* Whether program p (validated) can be g's reference (AxEmuOpts.program): every input of
 * g an input of p, every output of g a tensor of p, of the same shapes. Reports through d
 * at g's tensor otherwise. */
bool ax_emu_pair_check(const AxMugraph *g, const AxMugraph *p, AxDiag *d);

/* Tolerance of an output of dtype t when none is given. */
double ax_emu_default_tol(AxDtype t);

/* g must be validated. Exit status: 0 every output within tolerance, 1 some output differs
 * (or is inf/nan where the reference is finite), 2 the emulation could not run (no
 * compiler, the source does not compile, the program crashed, its barriers diverged, a
 * warp collective can never complete (warp divergence), or a megakernel's event never
 * fired; the compiler's or program's messages are printed),
 * 3 the graph cannot be generated for the target (reported through d). */
int ax_emu_run(const AxMugraph *g, AxDiag *d, const AxEmuOpts *o);

#endif
