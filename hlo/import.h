/* import.h — an HLO module (hlo.h) to an axle tensor program (superopt/program.h).
 *
 * The ENTRY computation becomes `program NAME { input ...; let ...; output ... }`, NAME
 * the module's name; fusions and calls are inlined (the called computation imported in
 * place). Each instruction the program vocabulary can express becomes one `let` named
 * after it (docs/hlo.md has the table: hlo/import.c's `handlers`, one row per opcode).
 * Everything else is a *cut*: the module still imports, and the instruction's result,
 * where a later instruction needs it, becomes an `input` named after it. Parameters
 * become inputs; scalar constants literals (a scalar of an element type the program does not
 * hold is cut as such); array and elided constants inputs (cuts, as the program does not know
 * their data). The ROOT is the output (a tuple: one output per
 * element); an output the program does not compute (an input, a constant) is dropped
 * with a cut, and a module left with no output is an error.
 *
 * Programs hold f16, bf16 and f32 tensors of rank 1 to 8: a scalar is held as a tensor of
 * shape [1] (numpy broadcasting makes it any shape's; a scalar output is noted), other
 * element types are cut, and so is what needs one as an operand. The text is built to pass
 * the program checker; the caller checks it (ax_prog_lower) before using it. */
#ifndef AX_HLO_IMPORT_H
#define AX_HLO_IMPORT_H

#include "hlo/hlo.h"

typedef struct AxHloCut {
  AxSpan at;            /* the instruction */
  const char *name;     /* its HLO name */
  const char *opcode;
  const char *reason;   /* "transpose is not in the program vocabulary" */
} AxHloCut;

typedef struct AxHloProgram {
  const char *name;     /* the program's name */
  const char *text;     /* the program block, NUL-terminated */
  AxHloCut *cuts;       /* in the order the importer met them */
  int ncuts;
  AxHloCut *notes;      /* what else the report says, `reason` the text: a scalar output */
  int nnotes;
  int ninputs, nlets, noutputs;
  AxSpan *let_at;       /* nlets: the HLO instruction each let comes from (its name) */
  AxSpan *input_at;     /* ninputs: the HLO instruction each input comes from (its name) */
  const char **scalar_inputs;   /* the inputs held as [1] for a scalar ENTRY parameter */
  int nscalar_inputs;
  bool *output_scalar;  /* noutputs: the output is held as [1] for a scalar of the ROOT */
} AxHloProgram;

/* Imports the checked module m (everything allocated in a). Returns false after
 * reporting through d when the module has nothing a program can compute or calls itself. */
bool ax_hlo_import(AxArena *a, AxDiag *d, const AxHloModule *m, AxHloProgram *out);

/* The HLO instruction (its name's span) that line `line` of p->text (1-based) comes from: an
 * input's or a let's; no span ({0}) for the program's other lines. */
AxSpan ax_hlo_program_at(const AxHloProgram *p, int line);
/* Its line in the HLO module; 0 for the program's other lines. */
int ax_hlo_program_line(const AxHloProgram *p, int line);

#endif
