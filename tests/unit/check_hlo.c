/* check_hlo.c — the HLO front end: the parser on the corners of XLA's text format, the
 * importer's mapping and cuts, and every prefix of a real module (no crash; an import
 * that succeeds always yields a program the checker accepts). */
#include <check.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hlo/hlo.h"
#include "hlo/import.h"
#include "superopt/equiv/interp.h"
#include "superopt/equiv/values.h"
#include "superopt/ir/program.h"
#include "unit.h"

static AxHloModule *parse(const char *text) {
  AxSource *src = ax_source_from_text(A, "t.hlo", ax_arena_strdup(A, text), strlen(text));
  return ax_hlo_parse(A, &D, src);
}

/* The program of text, imported and lowered; the test fails on any error. */
static AxHloProgram import(const char *text) {
  AxHloModule *m = parse(text);
  ck_assert_msg(m, "%s", unit_diagnostics());
  AxHloProgram p;
  ck_assert_msg(ax_hlo_import(A, &D, m, &p), "%s", unit_diagnostics());
  AxSource *src = ax_source_from_text(A, "p.axl", p.text, strlen(p.text));
  AxFile *f = ax_parse(A, &D, src);
  ck_assert_msg(D.errors == 0, "%s\n%s", p.text, unit_diagnostics());
  ck_assert_msg(ax_prog_lower(A, &D, f->blocks[0]), "%s\n%s", p.text, unit_diagnostics());
  return p;
}

static bool has_cut(const AxHloProgram *p, const char *name, const char *reason) {
  for (int k = 0; k < p->ncuts; k++)
    if (strcmp(p->cuts[k].name, name) == 0 && strstr(p->cuts[k].reason, reason)) return true;
  return false;
}

START_TEST(every_corner_of_the_format_parses) {
  AxHloModule *m = parse(
      "HloModule m.1-x, is_scheduled=true, entry_computation_layout={(f32[2,3]{1,0}, (s32[], pred[]))->f32[2,3]{1,0}},\n"
      "  alias_passthrough_params=true, frontend_attributes={fingerprint=\"a,b\"}\n"
      "\n"
      "// a line comment\n"
      "add_f32 {\n"
      "  a = f32[] parameter(0)\n"
      "  b = f32[] parameter(1)\n"
      "  ROOT s = f32[] add(a, b)\n"
      "}, execution_thread=\"main\"\n"
      "\n"
      "ENTRY %main.9 (p0: f32[2,3], p1: (s32[], pred[])) -> f32[2,3] {\n"
      "  %p0 = f32[2,3]{1,0} parameter(0), sharding={devices=[2,1]0,1}, metadata={op_name=\"x\" source_file=\"f.py\" source_line=12}\n"
      "  %p1 = (s32[], pred[]) parameter(1)\n"
      "  %g = s32[] get-tuple-element((s32[], pred[]) %p1), index=0\n"
      "  %t = f32[3,2]{0,1:T(8,128)S(1)} transpose(f32[2,3]{1,0} %p0), dimensions={1,0}, backend_config=\"{\\\"k\\\": [1, 2]}\"\n"
      "  %c = f32[] constant(-1.5e-3)\n"
      "  %big = f32[2,2] constant({ { 1, 2 }, { 3, 4 } })\n"
      "  %e = bf16[4096] constant({...})\n"
      "  %z = c64[] constant((1, 0))\n"
      "  %i = u8[2] constant({1, 2}), frontend_attributes={_xla_x=\"y\"}\n"
      "  %cv = f32[1,2,3] convolution(f32[2,3] %p0, f32[2,3] %p0), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f,\n"
      "      feature_group_count=1\n"
      "  %sl = f32[1,2] slice(f32[2,3]{1,0} %p0), slice={[0:1], [1:3]}\n"
      "  %cc = (f32[2], s8[]) custom-call(%p0, /*index=1*/%c), custom_call_target=\"foo\", output_to_operand_aliasing={{}: (0, {})}, api_version=API_VERSION_STATUS_RETURNING\n"
      "  %ar = f32[2,3] all-reduce(%p0), replica_groups=[2,2]<=[4], to_apply=%add_f32, channel_id=1\n"
      "  %r = f32[2] reduce(%p0, %c), dimensions={1}, to_apply=add_f32\n"
      "  ROOT %n = f32[2,3]{1,0} negate(f32[2,3]{1,0} %p0), control-predecessors={%t, %g}, sharding={replicated}\n"
      "}\n");
  ck_assert_msg(m, "%s", unit_diagnostics());
  ck_assert_str_eq(m->name, "m.1-x");
  ck_assert_int_eq(m->nattrs, 4);
  ck_assert_str_eq(m->attrs[1].value, "{(f32[2,3]{1,0}, (s32[], pred[]))->f32[2,3]{1,0}}");
  ck_assert_str_eq(m->attrs[3].value, "{fingerprint=\"a,b\"}");
  ck_assert_int_eq(m->ncomps, 2);
  AxHloComp *e = m->entry;
  ck_assert_str_eq(e->name, "main.9");
  ck_assert_str_eq(e->root->name, "n");
  ck_assert_int_eq(e->ninstrs, 15);
  AxHloInstr *t = e->instrs[3];
  ck_assert_str_eq(t->opcode, "transpose");
  ck_assert_str_eq(t->shape->layout, "0,1:T(8,128)S(1)");
  ck_assert(!ax_hlo_layout_default(t->shape));
  ck_assert(ax_hlo_layout_default(e->instrs[0]->shape));
  ck_assert_str_eq(ax_hlo_attr(t, "backend_config")->value, "\"{\\\"k\\\": [1, 2]}\"");
  ck_assert_int_eq(e->instrs[1]->shape->type, AX_HLO_TUPLE);
  ck_assert_int_eq(e->instrs[1]->shape->nelems, 2);
  ck_assert_str_eq(e->instrs[4]->literal, "-1.5e-3");
  ck_assert_str_eq(e->instrs[6]->literal, "{...}");
  ck_assert_int_eq(e->instrs[6]->shape->type, AX_HLO_BF16);
  ck_assert_int_eq(e->instrs[8]->shape->type, AX_HLO_U8);
  AxHloInstr *cv = e->instrs[9];
  ck_assert_str_eq(ax_hlo_attr(cv, "dim_labels")->value, "b01f_01io->b01f");
  ck_assert_str_eq(ax_hlo_attr(cv, "feature_group_count")->value, "1");
  ck_assert_str_eq(ax_hlo_attr(e->instrs[10], "slice")->value, "{[0:1], [1:3]}");
  ck_assert_int_eq(e->instrs[11]->nops, 2);
  ck_assert_str_eq(ax_hlo_attr(e->instrs[12], "replica_groups")->value, "[2,2]<=[4]");
  ck_assert_str_eq(ax_hlo_attr(e->root, "control-predecessors")->value, "{%t, %g}");
  int64_t v[4];
  ck_assert_int_eq(ax_hlo_attr_ints(" {1, 0}", v, 4), 2);
  ck_assert_int_eq(ax_hlo_attr_ints("{}", v, 4), 0);
  ck_assert_int_eq(ax_hlo_attr_ints("{1,x}", v, 4), -1);
}
END_TEST

/* What XLA's own tools print that the corners above lack: the stack-frame index a newer
 * XLA writes after the header (numbered file and function names, `N {key=value ...}`
 * records), a `// NAME` comment after a computation's '}', a ROOT that is not the last
 * instruction, and a scalar's broadcast without dimensions= (XLA's parser allows it). */
static const char *const wild_module =
    "HloModule jit_f, entry_computation_layout={(f32[4,3]{1,0})->f32[4,3]{1,0}}\n"
    "\n"
    "FileNames\n"
    "1 \"prog.py\"\n"
    "2 \"<embedded module \\'_launcher\\'>\"\n"
    "\n"
    "FunctionNames\n"
    "1 \"f\"\n"
    "\n"
    "FileLocations\n"
    "1 {file_name_id=1 function_name_id=1 line=6 end_line=6 column=11 end_column=20}\n"
    "\n"
    "StackFrames\n"
    "1 {file_location_id=1 parent_frame_id=1}\n"
    "2 {file_location_id=1 parent_frame_id=2}\n"
    "\n"
    "ENTRY %main.4 (x: f32[4,3]) -> f32[4,3] {\n"
    "  %x = f32[4,3]{1,0} parameter(0), metadata={op_name=\"x\" stack_frame_id=2}\n"
    "  %one = f32[] constant(1)\n"
    "  %ones = f32[4,3]{1,0} broadcast(%one)\n"
    "  ROOT %y = f32[4,3]{1,0} add(%x, %ones), metadata={op_name=\"add\" stack_frame_id=1}\n"
    "  %z = f32[4,3]{1,0} negate(%x)\n"
    "} // main.4\n";

START_TEST(modules_as_xla_tools_print_them) {
  AxHloModule *m = parse(wild_module);
  ck_assert_msg(m, "%s", unit_diagnostics());
  ck_assert_int_eq(m->ncomps, 1);
  ck_assert_str_eq(m->entry->root->name, "y");
  ck_assert_str_eq(ax_hlo_attr(m->entry->instrs[2], "dimensions")->value, "{}");
  AxHloProgram p = import(wild_module);
  ck_assert_msg(strstr(p.text, "let y = x + 1"), "%s", p.text);
  ck_assert_int_eq(p.ncuts, 0);
}
END_TEST

START_TEST(malformed_modules_get_located_errors) {
  static const struct { const char *text, *msg; } cases[] = {
    {"", "t.hlo:1:1: error: empty file: expected 'HloModule NAME'"},
    {"HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n", "t.hlo:3:26: error: unexpected end of file"},
    {"HloModule m\nENTRY e {\n  x = f32[?] parameter(0)\n}\n", "t.hlo:3:7: error: dynamic dimensions are not supported"},
    {"HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  x = f32[2] negate(x)\n}\n", "t.hlo:4:3: error: 'x' is already defined"},
    {"HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  ROOT y = f32[3] reshape(x)\n}\n", "t.hlo:4:19: error: reshape: f32[2] cannot become f32[3]"},
    {"HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  ROOT y = f32[2,3] broadcast(x), dimensions={1}\n}\n", "t.hlo:4:46: error: broadcast: operand dimension 0 (size 2)"},
    {"HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  ROOT y = f32[2] add(x)\n}\n", "t.hlo:4:19: error: add takes 2 operands, not 1"},
    {"HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n}\nENTRY f {\n  x = f32[2] parameter(0)\n}\n", "t.hlo:5:7: error: a second ENTRY computation ('f')"},
    {"HloModule m\nENTRY e {\n}\n", "t.hlo:2:7: error: computation 'e' has no instructions"},
    {"HloModule m\nENTRY e {\n  x = f32[2] parameter(0) \xe2\n}\n", "t.hlo:3:27: error: invalid byte 0xe2"},
    {"HloModule m\nENTRY e {\n  x = f32[2,3] parameter(0)\n  ROOT y = f32[3,2] transpose(x), dimensions={1,1}\n}\n",
     "t.hlo:4:46: error: transpose: dimensions= must be a permutation of the operand's 2 dimensions"},
    {"HloModule m\nENTRY e {\n  x = f32[2,3] parameter(0)\n  ROOT y = f32[3,2] transpose(x), dimensions={1,0,2}\n}\n",
     "t.hlo:4:46: error: transpose: dimensions= must be a permutation of the operand's 2 dimensions"},
    {"HloModule m\nENTRY e {\n  x = f32[2,3] parameter(0)\n  ROOT y = f32[2,3,1] transpose(x), dimensions={1,0}\n}\n",
     "t.hlo:4:23: error: transpose: f32[2,3] cannot become f32[2,3,1]"},
    {"HloModule m\nENTRY e {\n  x = f32[2,3] parameter(0)\n  ROOT y = f32[2,3] transpose(x), dimensions={1,0}\n}\n",
     "t.hlo:4:46: error: transpose: result dimension 0 (size 2) is not operand dimension 1 (size 3)"},
    /* only a scalar's broadcast may leave dimensions= out */
    {"HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  ROOT y = f32[2,3] broadcast(x)\n}\n",
     "t.hlo:4:21: error: broadcast: dimensions= must list one result dimension per operand dimension"},
    {"HloModule m\nStackFrames\n1 {file_location_id=1 parent_frame_id=}\n",
     "t.hlo:3:39: error: unexpected '}', expected integer or number"},
    /* a dot's dims: each batch or contracted once, the result in XLA's order (batch, lhs
     * free, rhs free) */
    {"HloModule m\nENTRY e {\n  x = f32[2,3] parameter(0)\n  ROOT y = f32[] dot(x, x), lhs_contracting_dims={0,0}, rhs_contracting_dims={0,1}\n}\n",
     "t.hlo:4:18: error: dot: f32[2,3] and f32[2,3] do not give f32[] with these batch and contracting dimensions"},
    {"HloModule m\nENTRY e {\n  x = f32[2,3] parameter(0)\n  w = f32[3,4] parameter(1)\n  ROOT y = f32[4,2] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
     "t.hlo:5:21: error: dot: f32[2,3] and f32[3,4] do not give f32[4,2] with these batch and contracting dimensions"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    unit_teardown();
    unit_setup();
    ck_assert_msg(!parse(cases[k].text), "case %zu parsed", k);
    ck_assert_msg(strstr(unit_diagnostics(), cases[k].msg), "case %zu: %s", k, unit_diagnostics());
  }
}
END_TEST

/* The importer inlines fusion and call recursively: a chain of calls too deep for its stack
 * and calls that double the program per level are refused first, located at the call. */
static char *call_chain(int depth, int calls_per_level) {
  char *t = ax_arena_printf(A, "HloModule m\nc0 {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] negate(p)\n}\n");
  for (int k = 1; k < depth; k++) {
    const char *second = calls_per_level == 2 ? ax_arena_printf(A, "call(a), to_apply=c%d", k - 1) : "negate(a)";
    t = ax_arena_printf(A, "%sc%d {\n  p = f32[4] parameter(0)\n  a = f32[4] call(p), to_apply=c%d\n"
                        "  ROOT r = f32[4] %s\n}\n", t, k, k - 1, second);
  }
  return ax_arena_printf(A, "%sENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] call(p), to_apply=c%d\n}\n",
                         t, depth - 1);
}

START_TEST(call_graphs_the_importer_could_not_inline) {
  import(call_chain(200, 1));   /* 200 levels: imports */
  ck_assert(!parse(call_chain(201, 1)));
  ck_assert_msg(strstr(unit_diagnostics(), "t.hlo:8:32: error: fusions and calls nested too deeply (at most 200 levels)"),
                "%s", unit_diagnostics());
  unit_teardown();
  unit_setup();
  ck_assert(!parse(call_chain(60, 2)));
  ck_assert_msg(strstr(unit_diagnostics(), "imports to more than 1000000 instructions with its fusions and calls inlined"),
                "%s", unit_diagnostics());
}
END_TEST

START_TEST(the_vocabulary_and_the_cuts) {
  AxHloProgram p = import(
      "HloModule corners\n"
      "max { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT m = f32[] maximum(a, b) }\n"
      "plus { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT m = f32[] add(b, a) }\n"
      "ENTRY e {\n"
      "  x = f32[4,8]{1,0} parameter(0)\n"
      "  s = f32[] parameter(1)\n"
      "  w = f32[8,4]{1,0} parameter(2)\n"
      "  bt = f32[32]{0} bitcast(x)\n"
      "  bl = f32[8,4]{0,1} bitcast(x)\n"
      "  cv = bf16[4,8] convert(x)\n"
      "  sb = f32[4,8] broadcast(s), dimensions={}\n"
      "  m = f32[4,8] multiply(x, sb)\n"
      "  tr = f32[8,4,2] broadcast(x), dimensions={1,0}\n"
      "  d1 = f32[4,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
      "  d2 = f32[8,8] dot(x, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n"
      "  one = f32[] constant(1)\n"
      "  zero = f32[] constant(0)\n"
      "  r1 = f32[4] reduce(x, one), dimensions={1}, to_apply=plus\n"
      "  r2 = f32[] reduce(x, zero), dimensions={0,1}, to_apply=plus\n"
      "  r3 = f32[8] reduce(x, zero), dimensions={0}, to_apply=max\n"
      "  r4 = f32[4] reduce(x, zero), dimensions={1}, to_apply=plus\n"
      "  cc = f32[8,8] concatenate(x, x), dimensions={0}\n"
      "  lg = f32[4,8] logistic(x)\n"
      "  ex = f32[4,8] exponential(x)\n"
      "  cp = f32[4,8]{0,1} copy(ex)\n"
      "  tn = f32[4,8] tanh(cp)\n"
      "  zb = f32[4,8] broadcast(zero), dimensions={}\n"
      "  mz = f32[4,8] maximum(x, zb)\n"
      "  rs = f32[4,8] rsqrt(ex)\n"
      "  mn = f32[4,8] minimum(mz, rs)\n"
      "  t2 = f32[4,8] add(tn, mn)\n"
      "  cu = f32[4,8] custom-call(x), custom_call_target=\"Sharding\"\n"
      "  ROOT out = (f32[32], f32[4,4], f32[4,8], f32[8,8], f32[4], f32[4,8], f32[4,8], f32[4,8]) tuple(bt, d1, m, cc, r4, lg, t2, x)\n"
      "}\n");
  ck_assert_str_eq(p.name, "corners");
  ck_assert_msg(strstr(p.text, "  let bt = reshape(x, [32])\n"), "%s", p.text);
  /* s is a scalar, held as [1]: its broadcast is numpy's */
  ck_assert_msg(strstr(p.text, "  input s : f32[1]\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let m = x * s\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let d1 = matmul(x, w)\n"), "%s", p.text);
  /* the sum keeps its axis; as an output it gets the ROOT's shape back */
  ck_assert_msg(strstr(p.text, "  let r4 = sum(x, axis = 1)\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let r4_2 = reshape(r4, [4])\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  output r4_2\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let cc = concat(x, x, axis = 0)\n"), "%s", p.text);
  /* the element-wise operators of real layers are program operators, not cuts */
  ck_assert_msg(strstr(p.text, "  let lg = logistic(x)\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let tn = tanh(ex)\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let mz = max(x, 0)\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let rs = rsqrt(ex)\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let mn = min(mz, rs)\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let t2 = tn + mn\n"), "%s", p.text);
  ck_assert(has_cut(&p, "bl", "bitcast between layouts other than row-major"));
  ck_assert_msg(strstr(p.text, "  let cv = to_bf16(x)\n"), "%s", p.text);   /* a narrowing convert rounds */
  ck_assert(has_cut(&p, "tr", "reorders dimensions"));
  /* xᵀx: contracted on the first of the last two dims, the lhs is transposed into place */
  ck_assert_msg(strstr(p.text, "  let d2 = matmul(transpose(x, [1, 0]), x)\n") || !strstr(p.text, "d2"), "%s", p.text);
  ck_assert(!has_cut(&p, "d2", "not matmul's"));
  ck_assert(has_cut(&p, "r1", "init value is not the constant 0"));
  ck_assert_msg(strstr(p.text, "  let r2 = sum(sum(x, axis = 0), axis = 1)\n"), "%s", p.text);
  ck_assert(has_cut(&p, "r3", "reduce with maximum"));
  ck_assert(has_cut(&p, "cu", "custom-call to \"Sharding\""));
  ck_assert(has_cut(&p, "x", "output dropped"));
  ck_assert_int_eq(p.noutputs, 7);   /* bt d1 m cc r4 lg t2; x is a parameter */
}
END_TEST

/* transpose and convert: a transpose of the explicit form (after a head split's reshape), the
 * identity an alias, a narrowing convert rounds, a widening one is the same value, an
 * integer one is cut. */
START_TEST(transposes_and_converts) {
  AxHloProgram p = import(
      "HloModule tc\n"
      "ENTRY e {\n"
      "  x = f32[4,6]{1,0} parameter(0)\n"
      "  h = f16[4,6]{1,0} parameter(1)\n"
      "  r = f32[4,2,3] reshape(x)\n"
      "  t = f32[2,4,3]{2,1,0} transpose(r), dimensions={1,0,2}\n"
      "  i = f32[2,4,3] transpose(t), dimensions={0,1,2}\n"
      "  n = f32[2,4,3] negate(i)\n"
      "  c16 = f16[4,6] convert(x)\n"
      "  cbf = bf16[4,6] convert(h)\n"
      "  w = f32[4,6] convert(h)\n"
      "  a = f32[4,6] add(w, x)\n"
      "  ci = s32[4,6] convert(x)\n"
      "  ROOT out = (f32[2,4,3], f16[4,6], bf16[4,6], f32[4,6]) tuple(n, c16, cbf, a)\n"
      "}\n");
  ck_assert_msg(strstr(p.text, "  let r = reshape(x, [4, 2, 3])\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let t = transpose(r, [1, 0, 2])\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let n = -t\n"), "%s", p.text);   /* the identity: t itself */
  ck_assert_msg(strstr(p.text, "  let c16 = to_f16(x)\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let cbf = to_bf16(h)\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let w = to_f32(h)\n"), "%s", p.text);   /* f16 to f32: exact */
  ck_assert_msg(strstr(p.text, "  let a = w + x\n"), "%s", p.text);
  ck_assert(has_cut(&p, "ci", "convert from f32 to s32 changes the element type"));
  ck_assert_int_eq(p.ncuts, 1);
}
END_TEST

/* Layouts other than the default on an ENTRY parameter and the ROOT: the caller's buffers
 * in another order, read and written through transposes. */
START_TEST(entry_layouts_are_transposes) {
  AxHloProgram p = import(
      "HloModule lay, entry_computation_layout={(f32[2,3,4]{0,2,1})->f32[2,3,4]{1,2,0}}\n"
      "ENTRY e {\n"
      "  x = f32[2,3,4]{0,2,1} parameter(0)\n"
      "  ROOT n = f32[2,3,4]{1,2,0} negate(x)\n"
      "}\n");
  ck_assert_msg(strstr(p.text, "  input x_buffer : f32[3, 4, 2]\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let x = transpose(x_buffer, [2, 0, 1])\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let n_buffer = transpose(n, [0, 2, 1])\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  output n_buffer\n"), "%s", p.text);
}
END_TEST

START_TEST(literals_the_program_can_hold) {
  AxHloProgram p = import(
      "HloModule l\n"
      "ENTRY e {\n"
      "  x = f32[4]{0} parameter(0)\n"
      "  a = f32[] constant( 2 )\n"
      "  b = f32[] constant(1.)\n"
      "  c = f32[] constant(-2.5e-1)\n"
      "  ab = f32[4] broadcast(a), dimensions={}\n"
      "  bb = f32[4] broadcast(b), dimensions={}\n"
      "  cb = f32[4] broadcast(c), dimensions={}\n"
      "  m = f32[4] multiply(x, ab)\n"
      "  n = f32[4] multiply(m, bb)\n"
      "  ROOT r = f32[4] subtract(n, cb)\n"
      "}\n");
  ck_assert_msg(strstr(p.text, "  let m = x * 2\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  input b : f32[1]\n"), "%s", p.text);   /* the scalar, held as [1] */
  ck_assert_msg(strstr(p.text, "  let n = m * b\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let r = n - (-2.5e-1)\n"), "%s", p.text);
  ck_assert(has_cut(&p, "b", "constant 1. is not a finite decimal"));
  ck_assert_int_eq(p.ncuts, 1);
}
END_TEST

/* Reduced axes stay as size-1 axes and broadcasts consumed element-wise are no op: the
 * program's numpy broadcasting grows them; a reshape or broadcast is written only where a
 * size-1 axis must be inserted, for a matmul, or for an output. */
START_TEST(keepdims_and_implicit_broadcasts) {
  AxHloProgram p = import(
      "HloModule k\n"
      "plus { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT m = f32[] add(a, b) }\n"
      "ENTRY e {\n"
      "  x = f32[16,4]{1,0} parameter(0)\n"
      "  v = f32[16]{0} parameter(1)\n"
      "  u = f32[4]{0} parameter(2)\n"
      "  w = f32[4,8]{1,0} parameter(3)\n"
      "  zero = f32[] constant(0)\n"
      "  r = f32[16]{0} reduce(x, zero), dimensions={1}, to_apply=plus\n"
      "  rb = f32[16,4]{1,0} broadcast(r), dimensions={0}\n"
      "  y = f32[16,4]{1,0} divide(x, rb)\n"
      "  ub = f32[16,4]{1,0} broadcast(u), dimensions={1}\n"
      "  z = f32[16,4]{1,0} add(y, ub)\n"
      "  d = f32[16,8]{1,0} dot(z, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
      "  rv = f32[16]{0} add(r, v)\n"
      "  vb = f32[16,4]{1,0} broadcast(v), dimensions={0}\n"
      "  r1 = f32[16,1]{1,0} reshape(r)\n"
      "  ROOT t = (f32[16,8], f32[16], f32[16,4], f32[16,1]) tuple(d, rv, vb, r1)\n"
      "}\n");
  ck_assert_msg(strstr(p.text, "  let r = sum(x, axis = 1)\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let y = x / r\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let z = y + u\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let d = matmul(z, w)\n"), "%s", p.text);
  /* v has no kept axis to line up with r's: a reshape moves it onto r's axes */
  ck_assert_msg(strstr(p.text, "  let v_2 = reshape(v, [16, 1])\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let rv = r + v_2\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let rv_2 = reshape(rv, [16])\n"), "%s", p.text);
  /* a broadcast that is an output is written out in full */
  ck_assert_msg(strstr(p.text, "  let vb = reshape(v, [16, 1])\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let vb_2 = broadcast(vb, [16, 4])\n"), "%s", p.text);
  /* a reshape that inserts the axis the sum kept is the sum itself: an output as it is */
  ck_assert_msg(strstr(p.text, "  output r\n"), "%s", p.text);
  ck_assert_msg(!strstr(p.text, "rb") && !strstr(p.text, "ub") && !strstr(p.text, "r1"), "%s", p.text);
  ck_assert_int_eq(p.noutputs, 4);
}
END_TEST

/* Scalars are tensors of shape [1] that broadcast numpy-style (a full reduction keeps its
 * axes); clamp is min(max(x, lo), hi) with scalar bounds; the logical operators combine
 * pred masks held as 0/1; what the program has no operator for stays a cut. */
START_TEST(scalars_clamps_and_masks) {
  AxHloProgram p = import(
      "HloModule s\n"
      "plus { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT m = f32[] add(a, b) }\n"
      "ENTRY e {\n"
      "  x = f32[4,8]{1,0} parameter(0)\n"
      "  lr = f32[] parameter(1)\n"
      "  v = f32[8]{0} parameter(2)\n"
      "  k = s32[4,8]{1,0} parameter(3)\n"
      "  pm = pred[4,8]{1,0} parameter(4)\n"
      "  zero = f32[] constant(0)\n"
      "  tot = f32[] reduce(x, zero), dimensions={0,1}, to_apply=plus\n"
      "  totb = f32[4,8] broadcast(tot), dimensions={}\n"
      "  cen = f32[4,8] subtract(x, totb)\n"
      "  vs = f32[] reduce(v, zero), dimensions={0}, to_apply=plus\n"
      "  lrv = f32[] multiply(vs, lr)\n"
      "  c = f32[4,8] clamp(zero, cen, totb)\n"
      "  cl = f32[4,8] clamp(tot, x, lr)\n"
      "  ck = s32[4,8] clamp(k, k, k)\n"
      "  gt = pred[] compare(lr, zero), direction=GT\n"
      "  sel = f32[4,8] select(gt, c, cl)\n"
      "  pd = f32[4,10] pad(x, lr), padding=0_0x1_1\n"
      "  xb = pred[4,8] compare(x, totb), direction=LT\n"
      "  nx = pred[4,8] not(xb)\n"
      "  np = pred[4,8] not(pm)\n"
      "  ak = s32[4,8] and(k, k)\n"
      "  sg = f32[4,8] sign(x)\n"
      "  fl = f32[4,8] floor(x)\n"
      "  er = f32[4,8] tan(x)\n"
      "  rm = f32[4,8] remainder(x, x)\n"
      "  nf = f32[4,8] convert(nx)\n"
      "  ROOT t = (f32[4,8], f32[], f32[4,8], f32[4,10], f32[4,8], s32[4,8], pred[4,8], s32[4,8], f32[4,8], f32[4,8], f32[4,8], f32[4,8]) "
      "tuple(cen, lrv, sel, pd, nf, ck, np, ak, sg, fl, er, rm)\n"
      "}\n");
  ck_assert_msg(strstr(p.text, "  input lr : f32[1]\n"), "%s", p.text);
  /* the full sum keeps both axes, each of size 1: it broadcasts against x as it is */
  ck_assert_msg(strstr(p.text, "  let tot = sum(sum(x, axis = 0), axis = 1)\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let cen = x - tot\n"), "%s", p.text);
  /* a rank-1 sum is a [1] already: an output as it is, with a note */
  ck_assert_msg(strstr(p.text, "  let vs = sum(v, axis = 0)\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let lrv = vs * lr\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  output lrv\n"), "%s", p.text);
  ck_assert_int_eq(p.nnotes, 1);
  ck_assert_str_eq(p.notes[0].name, "lrv");
  ck_assert_msg(strstr(p.notes[0].reason, "the output is the scalar f32[], held as f32[1]"), "%s", p.notes[0].reason);
  /* clamp(lo, x, hi) in HLO's operand order */
  ck_assert_msg(strstr(p.text, "  let c = min(max(cen, 0), tot)\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let cl = min(max(x, tot), lr)\n"), "%s", p.text);
  ck_assert(has_cut(&p, "ck", "element type s32"));
  /* a scalar predicate is broadcast to the branches' shape */
  ck_assert_msg(strstr(p.text, "  let gt = gt(lr, 0)\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let sel = select(broadcast(gt, [4, 8]), c, cl)\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let pd = pad(x, lr, low = [0, 1], high = [0, 1], interior = [0, 0])\n"), "%s", p.text);
  /* not of a computed mask is 1 - m; of a pred parameter (no mask the program holds) a cut */
  ck_assert_msg(strstr(p.text, "  let nx = 1 - xb\n"), "%s", p.text);
  ck_assert(has_cut(&p, "np", "operand 'pm' is element type pred"));
  ck_assert(has_cut(&p, "ak", "element type s32"));
  ck_assert(has_cut(&p, "sg", "sign is not in the program vocabulary"));
  ck_assert(has_cut(&p, "fl", "floor is not in the program vocabulary"));
  ck_assert(has_cut(&p, "er", "tan is not in the program vocabulary"));
  ck_assert(has_cut(&p, "rm", "remainder is not in the program vocabulary"));
}
END_TEST

/* Every prefix of a module and every one-byte deletion: no crash, an error when the
 * import fails, a program that lowers when it succeeds. */
static void attack(const char *text, size_t len) {
  AxArena *a = ax_arena_new();
  FILE *null = fopen("/dev/null", "w");
  AxDiag d;
  ax_diag_init(&d, null);
  AxSource *src = ax_source_from_text(a, "a.hlo", ax_arena_strndup(a, text, len), len);
  AxHloModule *m = ax_hlo_parse(a, &d, src);
  AxHloProgram p;
  if (m && ax_hlo_import(a, &d, m, &p)) {
    AxSource *ps = ax_source_from_text(a, "p.axl", p.text, strlen(p.text));
    AxFile *f = ax_parse(a, &d, ps);
    ck_assert_msg(d.errors == 0 && ax_prog_lower(a, &d, f->blocks[0]),
                  "an imported program does not check:\n%.*s\n%s", (int)len, text, p.text);
  } else {
    ck_assert_msg(d.errors > 0, "a failed import without a message:\n%.*s", (int)len, text);
  }
  fclose(null);
  ax_arena_free(a);
}

START_TEST(every_prefix_and_deletion_of_a_module) {
  static const char *const files[] = {"tests/hlo/gated_mlp.hlo", "tests/hlo/softmax.hlo"};
  const char *root = getenv("AXLE_SRC");
  ck_assert_msg(root, "AXLE_SRC is not set");
  for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
    AxSource *src;
    ck_assert(ax_source_load(A, &D, ax_arena_printf(A, "%s/%s", root, files[k]), &src));
    for (size_t n = 0; n <= src->len; n++) attack(src->text, n);
    char *buf = malloc(src->len);
    for (size_t at = 0; at < src->len; at++) {
      memcpy(buf, src->text, at);
      memcpy(buf + at, src->text + at + 1, src->len - at - 1);
      attack(buf, src->len - 1);
    }
    free(buf);
  }
  size_t len = strlen(wild_module);
  for (size_t n = 0; n <= len; n++) attack(wild_module, n);
}
END_TEST


/* A dot of any dimension numbers is one matmul between transposes and reshapes, each left
 * out where it would change nothing (tests/hlo/general_dot.hlo checks the values against
 * the reference); narrower operands with an f32 result are widened first, as before. */
START_TEST(dots_of_any_dimension_numbers) {
  AxHloProgram p = import(
      "HloModule dots\n"
      "ENTRY e {\n"
      "  q = bf16[2,4,3,5] parameter(0)\n"
      "  k = bf16[2,6,3,5] parameter(1)\n"
      "  s = f32[2,3,4,6] dot(q, k), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}\n"
      "  a = f16[4,3,5] parameter(2)\n"
      "  b = f16[5,3,6] parameter(3)\n"
      "  t = f32[4,6] dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}\n"
      "  v = f32[5] parameter(4)\n"
      "  n = f32[] dot(v, v), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n"
      "  ROOT out = (f32[2,3,4,6], f32[4,6], f32[]) tuple(s, t, n)\n"
      "}\n");
  ck_assert_msg(strstr(p.text, "  let s = matmul(transpose(to_f32(q), [0, 2, 1, 3]), transpose(to_f32(k), [0, 2, 3, 1]))\n"),
                "%s", p.text);
  /* the rhs's contracting dims in the lhs's order: [3, 5] from b's dims 1 and 0 */
  ck_assert_msg(strstr(p.text, "  let t = matmul(reshape(to_f32(a), [4, 15]), reshape(transpose(to_f32(b), [1, 0, 2]), [15, 6]))\n"),
                "%s", p.text);
  /* a scalar result: the [1, 1] matmul held as f32[1], noted as every scalar output is */
  ck_assert_msg(strstr(p.text, "  let n = matmul(reshape(v, [1, 5]), reshape(v, [5, 1]))\n"), "%s", p.text);
  ck_assert_msg(strstr(p.text, "  let n_2 = reshape(n, [1])\n"), "%s", p.text);
  ck_assert_int_eq(p.ncuts, 0);
  ck_assert_int_eq(p.nnotes, 1);
  /* a type the dot cannot widen is still cut, whatever its dims */
  AxHloProgram c = import(
      "HloModule c\nENTRY e {\n  x = f32[3,2,4] parameter(0)\n"
      "  d = f16[2,4,4] dot(x, x), lhs_batch_dims={1}, lhs_contracting_dims={0}, rhs_batch_dims={1}, rhs_contracting_dims={0}\n"
      "  ROOT r = f32[3,2,4] negate(x)\n}\n");
  ck_assert(has_cut(&c, "d", "dot of f32 operands with a f16 result changes the element type"));
}
END_TEST

/* Importing is linear in the module's size: names are looked up by hash in the module, the
 * importer and the program's lowering (a scan per name took 20 s for 50,000 lets). */
START_TEST(a_module_of_50000_instructions_imports) {
  enum { N = 50000 };
  size_t cap = 64 + (size_t)N * 48, n = 0;
  char *t = ax_arena_alloc(A, cap);
  n += (size_t)sprintf(t + n, "HloModule chain\nENTRY e {\n  p = f32[4] parameter(0)\n  a0 = f32[4] negate(p)\n");
  for (int k = 1; k < N; k++) n += (size_t)sprintf(t + n, "  a%d = f32[4] add(a%d, p)\n", k, k - 1);
  sprintf(t + n, "}\n");
  AxHloProgram p = import(t);   /* parsed, imported and lowered */
  ck_assert_int_eq(p.ninputs, 1);
  ck_assert_int_eq(p.nlets, N);
  ck_assert_int_eq(p.noutputs, 1);
  ck_assert_int_eq(p.ncuts, 0);
  ck_assert_msg(strstr(p.text, "  let a49999 = a49998 + p\n  output a49999\n}\n"), "%.200s", p.text + strlen(p.text) - 200);
}
END_TEST

/* ---- the imported programs against an independent reference ---- */

/* text with every number token `from` (not part of a name or a decimal) made `to`: the
 * test modules shrunk, dims and the mean divisors that are them alike. */
static char *shrink(const char *text, const char *const (*pairs)[2], int npairs) {
  size_t len = strlen(text);
  char *out = ax_arena_alloc(A, len + 1), *o = out;
  for (const char *p = text; *p;) {
    bool bounded = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.');
    size_t n = 0;
    while (isdigit((unsigned char)p[n])) n++;
    bool done = false;
    if (n && bounded && !(isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.'))
      for (int k = 0; k < npairs && !done; k++)
        if (strlen(pairs[k][0]) == n && strncmp(p, pairs[k][0], n) == 0) {
          o += sprintf(o, "%s", pairs[k][1]);   /* never longer than `from` */
          p += n;
          done = true;
        }
    if (!done) {
      size_t m = n ? n : 1;
      memcpy(o, p, m);
      o += m;
      p += m;
    }
  }
  *o = 0;
  return out;
}

/* The program name the importer gives HLO name s (import.c's `fresh`, collisions aside). */
static char *prog_name(const char *s) {
  char *t = ax_arena_alloc(A, strlen(s) + 2), *o = t;
  if (!isalpha((unsigned char)s[0]) && s[0] != '_') *o++ = '_';
  for (; *s; s++) *o++ = isalnum((unsigned char)*s) ? *s : '_';
  *o = 0;
  return t;
}

/* Every test module without cuts is imported, lowered and run by the program interpreter
 * in doubles on fixed inputs; tests/hlo/reference.py, an HLO interpreter in plain Python
 * that reads the module text itself and shares no code with axle, computes sampled output
 * elements on the same inputs (parameter p's element i: (((7919 i + 104729 p) mod 1000) /
 * 1000 - 0.5) / 4). They must agree within 1e-9 relative (1e-12 absolute near 0): both
 * compute in doubles, so only the order of summation differs. tests/hlo/specials.hlo (the
 * elementary functions at ±inf, NaN, ±0 and subnormals, docs/semantics.md "Special
 * values") must agree exactly: NaN with NaN, every other value bit for bit, the sign of a
 * zero included. The modules are shrunk alike first (4096 -> 32, 256 -> 16; the decoder
 * block's 64 -> 16, 32 -> 8) so the Python reference stays within seconds; every operator
 * and axis is kept. */
START_TEST(imported_programs_match_an_independent_reference) {
  static const char *const big[][2] = {{"4096", "32"}, {"256", "16"}};
  static const char *const block[][2] = {{"64", "16"}, {"32", "8"}};
  static const char *const mods[] = {"attention", "causal_attention", "decoder_block", "gated_mlp",
                                     "gqa", "layernorm", "lora", "lpnorm", "ntrans", "qknorm",
                                     "rmsnorm", "rmsnorm_linear", "softmax", "window", "masked_softmax", "sgd_loss",
                                     "general_dot", "specials", "gelu_rotary"};
  enum { NMOD = sizeof mods / sizeof *mods };
  const char *root = getenv("AXLE_SRC");
  ck_assert_msg(root, "AXLE_SRC is not set");
  if (system("python3 -c 1 2>/dev/null") != 0) {
    fprintf(stderr, "check_hlo: python3 not found, the reference comparison is skipped\n");
    return;
  }
  char dir[] = "/tmp/axle-hlo-ref-XXXXXX";
  ck_assert(mkdtemp(dir));
  const char *cmd = ax_arena_printf(A, "python3 %s/tests/hlo/reference.py --samples 3", root);
  char *texts[NMOD];
  for (int k = 0; k < NMOD; k++) {
    AxSource *src;
    ck_assert(ax_source_load(A, &D, ax_arena_printf(A, "%s/tests/hlo/%s.hlo", root, mods[k]), &src));
    bool blk = strcmp(mods[k], "decoder_block") == 0;
    texts[k] = shrink(src->text, blk ? block : big, 2);
    const char *path = ax_arena_printf(A, "%s/%s.hlo", dir, mods[k]);
    FILE *f = fopen(path, "w");
    ck_assert(f);
    fputs(texts[k], f);
    fclose(f);
    cmd = ax_arena_printf(A, "%s %s", cmd, path);
  }
  FILE *py = popen(cmd, "r");
  ck_assert(py);
  char line[4096];
  int checked[NMOD] = {0};
  AxMugraph *g[NMOD] = {0};
  AxTensor *vals[NMOD] = {0};
  while (fgets(line, sizeof line, py)) {
    char path[1024];
    int out;
    long long at;
    double want;
    ck_assert_msg(sscanf(line, "%1023s %d %lld %lf", path, &out, &at, &want) == 4, "reference: %s", line);
    int k = 0;
    while (k < NMOD && !strstr(path, ax_arena_printf(A, "/%s.hlo", mods[k]))) k++;
    ck_assert_msg(k < NMOD, "reference: %s", line);
    if (!g[k]) {   /* imported, lowered and run once, at its first sample */
      AxSource *src = ax_source_from_text(A, mods[k], texts[k], strlen(texts[k]));
      AxHloModule *m = ax_hlo_parse(A, &D, src);
      AxHloProgram hp;
      ck_assert_msg(m && ax_hlo_import(A, &D, m, &hp), "%s: %s", mods[k], unit_diagnostics());
      ck_assert_msg(hp.ncuts == 0, "%s has cuts", mods[k]);
      AxFile *pf = ax_parse(A, &D, ax_source_from_text(A, mods[k], hp.text, strlen(hp.text)));
      const AxBlock *b = D.errors ? NULL : ax_prog_find(pf, NULL, &D);
      g[k] = b ? ax_prog_lower(A, &D, b) : NULL;
      ck_assert_msg(g[k], "%s: %s", mods[k], unit_diagnostics());
      vals[k] = ax_arena_alloc(A, sizeof *vals[k] * ((size_t)g[k]->ntensors + 1));
      for (int s = 0; s < g[k]->nstmts; s++) {
        const AxKStmt *st = &g[k]->stmts[s];
        if (st->kind != AX_KS_INPUT) continue;
        const AxKTensor *t = &g[k]->tensors[st->t];
        int p = -1;
        for (int i = 0; i < m->entry->ninstrs && p < 0; i++) {
          const AxHloInstr *in = m->entry->instrs[i];
          if (strcmp(in->opcode, "parameter") == 0 && strcmp(prog_name(in->name), t->name) == 0)
            p = atoi(in->literal);
        }
        ck_assert_msg(p >= 0, "%s: input %s is no parameter", mods[k], t->name);
        int64_t n = ax_shape_numel(&t->shape);
        double *d = ax_arena_alloc(A, sizeof *d * (size_t)(n + 1));
        for (int64_t i = 0; i < n; i++) d[i] = ((double)((7919 * i + 104729 * p) % 1000) / 1000 - 0.5) / 4;
        vals[k][st->t] = (AxTensor){t->shape, d};
      }
      AxTDomain exact = ax_values_float(false);
      ax_interp_run(g[k], &exact, A, vals[k]);
    }
    ck_assert_msg(out < g[k]->noutputs, "%s: output %d", mods[k], out);
    const double *got = vals[k][g[k]->outputs[out]].data;
    double tol = 1e-9 * fabs(want) + 1e-12;
    if (strcmp(mods[k], "specials") == 0)   /* special values: the same class, bit for bit */
      ck_assert_msg(isnan(want) ? isnan(got[at]) : got[at] == want && signbit(got[at]) == signbit(want),
                    "%s: output %d at %lld: %.17g, the reference %.17g", mods[k], out, at, got[at], want);
    else
      ck_assert_msg(fabs(got[at] - want) <= tol, "%s: output %d at %lld: %.17g, the reference %.17g",
                    mods[k], out, at, got[at], want);
    checked[k]++;
  }
  ck_assert_int_eq(pclose(py), 0);
  for (int k = 0; k < NMOD; k++) {
    ck_assert_msg(checked[k] >= 3, "%s: %d elements checked", mods[k], checked[k]);
    unlink(ax_arena_printf(A, "%s/%s.hlo", dir, mods[k]));
  }
  rmdir(dir);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("hlo");
  TCase *t = tcase_create("hlo");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_set_timeout(t, 300);
  tcase_add_test(t, every_corner_of_the_format_parses);
  tcase_add_test(t, modules_as_xla_tools_print_them);
  tcase_add_test(t, call_graphs_the_importer_could_not_inline);
  tcase_add_test(t, malformed_modules_get_located_errors);
  tcase_add_test(t, the_vocabulary_and_the_cuts);
  tcase_add_test(t, transposes_and_converts);
  tcase_add_test(t, entry_layouts_are_transposes);
  tcase_add_test(t, literals_the_program_can_hold);
  tcase_add_test(t, keepdims_and_implicit_broadcasts);
  tcase_add_test(t, scalars_clamps_and_masks);
  tcase_add_test(t, every_prefix_and_deletion_of_a_module);
  tcase_add_test(t, dots_of_any_dimension_numbers);
  tcase_add_test(t, a_module_of_50000_instructions_imports);
  tcase_add_test(t, imported_programs_match_an_independent_reference);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return unit_run(suite());
}
