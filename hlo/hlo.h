/* hlo.h — XLA HLO text modules: the module IR and its parser.
 *
 * The front end for models that reach compiler engineers as HLO text (`--xla_dump_to`,
 * `jax.jit(f).lower(...).as_text(dialect="hlo")`):
 *
 *   HloModule jit_f, entry_computation_layout={(f32[2,3]{1,0})->f32[2,3]{1,0}}
 *   %region_0.4 (Arg_0.5: f32[], Arg_1.6: f32[]) -> f32[] { ... }
 *   ENTRY %main.7 (Arg_0.1: f32[2,3]) -> f32[2,3] {
 *     %Arg_0.1 = f32[2,3]{1,0} parameter(0), metadata={op_name="x"}
 *     ROOT %add.2 = f32[2,3]{1,0} add(f32[2,3]{1,0} %Arg_0.1, %Arg_0.1), sharding={replicated}
 *   }
 *
 * The whole format is parsed: any module or instruction attribute (kept as text), tuple
 * shapes, layouts (kept; tiles and memory spaces as text), comments, operands with or
 * without their shapes, literals of constants (kept as text, `{...}` for elided data).
 * ax_hlo_parse builds the IR and then checks what the grammar cannot: names defined once
 * and before use (so the graph has no cycle), known opcodes, operand counts and the shapes
 * of the operators the importer reads (import.h), element types, no dynamic dimensions,
 * element counts within 2^62, constants' literals of their shapes' counts, iotas along a
 * dimension of theirs, bitcasts that keep the bytes, get-tuple-element indices inside their
 * tuples, one ENTRY, called computations that exist. Every error is located
 * (FILE:LINE:COL). */
#ifndef AX_HLO_H
#define AX_HLO_H

#include "base/diag.h"

/* Element types (ORDER: the names in hlo.c's etypes[]). */
typedef enum {
  AX_HLO_PRED, AX_HLO_S4, AX_HLO_S8, AX_HLO_S16, AX_HLO_S32, AX_HLO_S64,
  AX_HLO_U4, AX_HLO_U8, AX_HLO_U16, AX_HLO_U32, AX_HLO_U64,
  AX_HLO_F8E4M3FN, AX_HLO_F8E5M2, AX_HLO_F16, AX_HLO_BF16, AX_HLO_F32, AX_HLO_F64,
  AX_HLO_C64, AX_HLO_C128,
  /* the narrow types of newer XLA versions: parsed, never held by a program */
  AX_HLO_S1, AX_HLO_S2, AX_HLO_U1, AX_HLO_U2, AX_HLO_F4E2M1FN, AX_HLO_F6E2M3FN,
  AX_HLO_F6E3M2FN, AX_HLO_F8E3M4, AX_HLO_F8E4M3, AX_HLO_F8E4M3FNUZ, AX_HLO_F8E4M3B11FNUZ,
  AX_HLO_F8E5M2FNUZ, AX_HLO_F8E8M0FNU,
  AX_HLO_TOKEN, AX_HLO_TUPLE
} AxHloType;

typedef struct AxHloShape {
  AxHloType type;
  int rank;
  int64_t *dims;             /* rank sizes */
  bool dynamic;              /* some size is `<=N` or `?`: refused by the checker */
  const char *layout;        /* text inside the layout braces, NULL when none is written */
  struct AxHloShape **elems; /* tuple elements (type AX_HLO_TUPLE) */
  int nelems;
  AxSpan span;
} AxHloShape;

typedef struct AxHloAttr {
  const char *name;
  const char *value;   /* as written, e.g. "{1}", "%region_0.4", "\"json\"" */
  AxSpan span;         /* the value */
} AxHloAttr;

typedef struct AxHloOperand {
  const char *name;        /* NULL for a literal (constant's operand) */
  AxHloShape *shape;       /* written before the name, or NULL */
  struct AxHloInstr *def;  /* set by the checker */
  AxSpan span;
} AxHloOperand;

typedef struct AxHloInstr {
  const char *name;
  const char *opcode;
  AxHloShape *shape;
  bool root;
  AxHloOperand *ops;
  int nops;
  const char *literal;     /* constant and parameter: the text between the parentheses */
  AxHloAttr *attrs;
  int nattrs;
  AxSpan span, name_span, op_span;
  int index;               /* position in its computation */
} AxHloInstr;

typedef struct AxHloComp {
  const char *name;
  bool entry;
  AxHloInstr **instrs;
  int ninstrs;
  AxHloInstr *root;        /* the ROOT, or the last instruction when none is marked */
  AxSpan span;             /* the name */
  bool visiting;           /* the importer's guard against a computation calling itself */
} AxHloComp;

typedef struct AxHloModule {
  const char *name;
  const AxSource *src;
  AxHloAttr *attrs;
  int nattrs;
  AxHloComp **comps;
  int ncomps;
  AxHloComp *entry;
  struct AxHloTable *table;   /* computation names -> index in comps */
} AxHloModule;

/* Parses and checks the HLO text of src. Returns the module (allocated in a, which the
 * caller owns) or NULL after reporting every error through d. */
AxHloModule *ax_hlo_parse(AxArena *a, AxDiag *d, const AxSource *src);

/* The attribute `name` of instruction i, or NULL. */
const AxHloAttr *ax_hlo_attr(const AxHloInstr *i, const char *name);
/* The computation named `name` (a leading '%' is ignored), or NULL. */
AxHloComp *ax_hlo_comp(const AxHloModule *m, const char *name);
/* Reads an attribute value "{1, 0}" (or "1") as at most max integers into out; returns
 * the count, or -1 when it is not such a list. */
int ax_hlo_attr_ints(const char *value, int64_t *out, int max);
/* Reads slice's "{[0:4], [1:9:2]}" (start:limit[:stride] per dim, stride 1 when left out)
 * into three arrays of at most max entries; returns the dim count, or -1 when malformed. */
int ax_hlo_attr_slice(const char *value, int64_t *start, int64_t *limit, int64_t *stride, int max);
/* Reads pad's "0_1x-2_0_1" (low_high[_interior] per dim, 'x' between dims, interior 0 when
 * left out) likewise; returns the dim count, or -1 when malformed. */
int ax_hlo_attr_padding(const char *value, int64_t *low, int64_t *high, int64_t *interior, int max);
/* "f32", "bf16", ... */
const char *ax_hlo_type_name(AxHloType t);
/* Whether the layout of s is the default (major-to-minor, "{rank-1,...,0}", or none). */
bool ax_hlo_layout_default(const AxHloShape *s);
/* Elements of an array shape. */
int64_t ax_hlo_numel(const AxHloShape *s);

/* A map from names to ints in an arena (modules have 100,000s of instructions: lookups
 * must not be linear). */
typedef struct AxHloTable AxHloTable;
AxHloTable *ax_hlo_table_new(AxArena *a);
/* The value of name, or -1. */
int ax_hlo_table_get(const AxHloTable *t, const char *name);
/* Sets name (borrowed: it must outlive t) to value >= 0 unless it is there; returns
 * whether it was new. */
bool ax_hlo_table_add(AxHloTable *t, const char *name, int value);

/* Builders, called by the grammar's actions only. */
typedef struct AxHloBuild AxHloBuild;
AxHloShape *ax_hlo_mk_shape(AxHloBuild *b, const char *type, AxVec *dims, const char *layout,
                            AxSpan at);
AxHloShape *ax_hlo_mk_tuple(AxHloBuild *b, AxVec *elems, AxSpan at);
void ax_hlo_mk_dim(AxHloBuild *b, AxVec *dims, const char *size);   /* NULL: dynamic */
void ax_hlo_push(AxHloBuild *b, AxVec *v, void *item);
void ax_hlo_mk_module(AxHloBuild *b, const char *name, AxVec *attrs, AxSpan at);
void ax_hlo_mk_attr(AxHloBuild *b, AxVec *into, const char *name, const char *value, AxSpan at);
void ax_hlo_begin_comp(AxHloBuild *b, const char *name, bool entry, AxSpan at);
void ax_hlo_end_comp(AxHloBuild *b, AxVec *attrs);
AxHloOperand *ax_hlo_mk_operand(AxHloBuild *b, const char *name, AxHloShape *shape, AxSpan at);
void ax_hlo_mk_instr(AxHloBuild *b, bool root, const char *name, AxSpan name_at, AxHloShape *s,
                     const char *opcode, AxSpan op_at, AxVec *operands, AxSpan args_at,
                     AxVec *attrs, AxSpan at);
AxVec *ax_hlo_vec(AxHloBuild *b);
/* The grammar (parser.y): scans and parses src into b, reporting syntax errors through d;
 * false after one. */
bool ax_hlo_syntax(AxHloBuild *b, AxArena *a, AxDiag *d, const AxSource *src);

#endif
