/* check_tohlo.c — the HLO printer (hlo/print.c) fed by superopt/eqsat/tohlo.c: every test
 * module imported, printed back as HLO and imported again is the same program (its
 * canonical key, superopt/search/canon.h: names and statement order aside), and a program
 * of every printable operator survives print → import unchanged in what it computes
 * (the equivalence checker), with the module's structure as XLA writes it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/import.h"
#include "hlo/print.h"
#include "superopt/eqsat/tohlo.h"
#include "superopt/equiv/equiv.h"
#include "superopt/ir/load.h"
#include "superopt/search/canon.h"
#include "unit.h"

/* The program block `text` lowered (checked), or NULL. */
static AxMugraph *lower(const char *name, const char *text) {
  return ax_load_from_text(A, &D, name, text, &(AxLoadOpts){.kind = AX_LOAD_PROGRAM});
}

/* The HLO module text imported (cuts counted into *ncuts) and lowered. */
static AxMugraph *import(const char *name, const char *text, size_t len, int *ncuts) {
  AxSource *src = ax_source_from_text(A, name, text, len);
  AxHloModule *m = ax_hlo_parse(A, &D, src);
  AxHloProgram hp;
  ck_assert_msg(m && ax_hlo_import(A, &D, m, &hp), "%s does not import:\n%s", name, unit_diagnostics());
  *ncuts = hp.ncuts;
  AxMugraph *g = lower(name, hp.text);
  ck_assert_msg(g, "%s: the imported program does not check:\n%s", name, hp.text);
  return g;
}

static char *print(const AxMugraph *g) {
  AxHloPProg hp;
  const char *why = NULL;
  ck_assert_msg(ax_eq_to_hlo(g, A, &hp, &why), "%s: %s", g->name, why);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  ax_hlo_print(f, &hp);
  fclose(f);
  char *kept = ax_arena_strdup(A, text);
  free(text);
  return kept;
}

START_TEST(test_modules_round_trip) {
  static const char *const mods[] = {"attention", "causal_attention", "decoder_block", "gated_mlp",
                                     "layernorm", "lora", "lpnorm", "rmsnorm", "rmsnorm_linear",
                                     "softmax", "window", "sgd_loss", "general_dot"};
  const char *root = getenv("AXLE_SRC");
  ck_assert_msg(root, "AXLE_SRC is not set");
  for (size_t k = 0; k < sizeof mods / sizeof *mods; k++) {
    AxSource *src;
    ck_assert(ax_source_load(A, &D, ax_arena_printf(A, "%s/tests/hlo/%s.hlo", root, mods[k]), &src));
    int cuts, cuts2;
    AxMugraph *g = import(mods[k], src->text, src->len, &cuts);
    char *hlo = print(g);
    AxMugraph *g2 = import(ax_arena_printf(A, "%s (printed)", mods[k]), hlo, strlen(hlo), &cuts2);
    ck_assert_msg(cuts2 == 0, "%s: the printed module has cuts:\n%s", mods[k], hlo);
    char *k1 = ax_canon_key(g), *k2 = ax_canon_key(g2);
    ck_assert_msg(strcmp(k1, k2) == 0, "%s: not the same program after print and import:\n%s",
                  mods[k], hlo);
    /* printed again: the same module (a fixed point, names included) */
    ck_assert_str_eq(print(g2), hlo);
    free(k1);
    free(k2);
  }
}
END_TEST

/* Every operator the printer spells out, including those HLO has no single instruction for
 * (square, silu, mean, rms_norm), a literal, kept axes, a matmul, softmax with its max shift (a
 * reducer with -inf), conversions and a transpose, with three outputs. */
static const char *every_op =
    "program every {\n"
    "  input X : f32[2, 4, 8]\n"
    "  input W : f32[2, 8, 4]\n"
    "  let s = sum(X * X, axis = 2)\n"
    "  let m = mean(X, axis = 1)\n"
    "  let y = silu(X - m) / sqrt(s + 0.5)\n"
    "  let z = matmul(square(y), exp(W))\n"
    "  let c = concat(z, -z, axis = 2)\n"
    "  output O = reshape(c, [2, 32]) - 1\n"
    "  output P = broadcast(s, [2, 4, 8]) * rms_norm(X - m, axis = 2)\n"
    "  let e = exp(X - reduce_max(X, axis = 2))\n"
    "  output Q = transpose(to_f32(to_bf16(e / sum(e, axis = 2))), [0, 2, 1])\n"
    "}\n";

START_TEST(every_printable_operator) {
  AxMugraph *g = lower("every.axl", every_op);
  ck_assert_msg(g, "%s", unit_diagnostics());
  char *hlo = print(g);
  /* the module as XLA writes it */
  ck_assert_msg(strstr(hlo, "HloModule every, entry_computation_layout={(f32[2,4,8]{2,1,0}, "
                            "f32[2,8,4]{2,1,0})->(f32[2,32]{1,0}, f32[2,4,8]{2,1,0}, f32[2,8,4]{2,1,0})}"), "%s", hlo);
  ck_assert_msg(strstr(hlo, "%add_f32 (x: f32[], y: f32[]) -> f32[] {"), "%s", hlo);
  ck_assert_msg(strstr(hlo, " reduce(%"), "%s", hlo);
  ck_assert_msg(strstr(hlo, "dimensions={2}, to_apply=%add_f32"), "%s", hlo);
  ck_assert_msg(strstr(hlo, "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
                            "rhs_contracting_dims={1}"), "%s", hlo);
  ck_assert_msg(strstr(hlo, "broadcast("), "%s", hlo);
  ck_assert_msg(strstr(hlo, "ROOT %outputs = (f32[2,32]{1,0}, f32[2,4,8]{2,1,0}, f32[2,8,4]{2,1,0}) tuple("),
                "%s", hlo);
  ck_assert_msg(strstr(hlo, "%maximum_f32 (x: f32[], y: f32[]) -> f32[] {"), "%s", hlo);
  ck_assert_msg(strstr(hlo, "f32[] constant(-inf)"), "%s", hlo);
  ck_assert_msg(strstr(hlo, "bf16[2,4,8]{2,1,0} convert(%"), "%s", hlo);
  ck_assert_msg(strstr(hlo, "transpose(%") && strstr(hlo, "dimensions={0,2,1}"), "%s", hlo);
  int cuts;
  AxMugraph *g2 = import("every (printed)", hlo, strlen(hlo), &cuts);
  ck_assert_int_eq(cuts, 0);
  AxEquivOpts eo;
  ax_equiv_defaults(&eo);
  eo.seed = 7;
  eo.out = NULL;
  int eqr = ax_equiv_run(g, g2, &D, &eo);
  ck_assert_msg(eqr == 0, "%d: %s\n%s", eqr, unit_diagnostics(), hlo);
  /* what has no printing yet is said */
  AxMugraph *r = lower("r.axl", "program r {\n  input X : f32[4, 8]\n  output O = repeat(X, axis = 1, times = 2)\n}\n");
  AxHloPProg hp;
  const char *why = NULL;
  ck_assert(r && !ax_eq_to_hlo(r, A, &hp, &why));
  ck_assert_str_eq(why, "repeat has no HLO printing yet");
}
END_TEST

/* Masks, slices, pads and reverses as XLA writes them: a comparison in pred and its f32
 * convert, a broadcast of the mask in pred for the select, a select of a data mask through
 * compare NE 0, iota, slice={[s:l:p]} (stride 1 left out), padding=l_h_i on every dim once
 * one has interior padding, reverse's dimensions=, abs, log and power. */
START_TEST(masks_and_windows) {
  AxMugraph *g = lower("mw.axl",
                       "program mw {\n"
                       "  input X : f32[4, 6]\n"
                       "  input Y : f32[4, 6]\n"
                       "  let m = ge(reshape(iota([6], axis = 0), [1, 6]), 3)\n"
                       "  output S = select(broadcast(m, [4, 6]), X, Y)\n"
                       "  output T = select(Y, X, abs(X))\n"
                       "  output U = slice(X, start = [0, 1], limit = [4, 6], stride = [1, 2])\n"
                       "  output V = pad(log(X), 0.5, low = [1, -1], high = [0, 2], interior = [0, 1])\n"
                       "  output W = reverse(pow(X, Y), [0, 1])\n"
                       "}\n");
  ck_assert_msg(g, "%s", unit_diagnostics());
  char *hlo = print(g);
  ck_assert_msg(strstr(hlo, "f32[6]{0} iota(), iota_dimension=0"), "%s", hlo);
  ck_assert_msg(strstr(hlo, " compare(%") && strstr(hlo, "direction=GE"), "%s", hlo);
  ck_assert_msg(strstr(hlo, "pred[4,6]{1,0} copy(%"), "%s", hlo);
  ck_assert_msg(strstr(hlo, "direction=NE"), "%s", hlo);
  ck_assert_msg(strstr(hlo, "slice={[0:4], [1:6:2]}"), "%s", hlo);
  ck_assert_msg(strstr(hlo, "padding=1_0_0x-1_2_1"), "%s", hlo);
  ck_assert_msg(strstr(hlo, "reverse(%") && strstr(hlo, "dimensions={0,1}"), "%s", hlo);
  ck_assert_msg(strstr(hlo, " abs(%") && strstr(hlo, " log(%") && strstr(hlo, " power(%"), "%s", hlo);
  /* imported back without a cut; the data mask comes back as its comparison with 0, after
   * which printing and importing is a fixed point */
  int cuts;
  AxMugraph *g2 = import("mw (printed)", hlo, strlen(hlo), &cuts);
  ck_assert_int_eq(cuts, 0);
  char *hlo2 = print(g2);
  AxMugraph *g3 = import("mw (printed twice)", hlo2, strlen(hlo2), &cuts);
  ck_assert_int_eq(cuts, 0);
  ck_assert_str_eq(print(g3), hlo2);
}
END_TEST

/* A select on a product of two masks prints the product as `and` in pred (what the importer
 * reads as that product), not as a data mask compared with 0. */
START_TEST(a_product_of_masks_is_and) {
  AxMugraph *g = lower("pm.axl",
                       "program pm {\n"
                       "  input X : f32[4, 6]\n"
                       "  input Y : f32[4, 6]\n"
                       "  let c = ge(reshape(iota([6], axis = 0), [1, 6]), 2)\n"
                       "  let r = lt(reshape(iota([6], axis = 0), [1, 6]), 5)\n"
                       "  output S = select(broadcast(c * r, [4, 6]), X, Y)\n"
                       "}\n");
  ck_assert_msg(g, "%s", unit_diagnostics());
  char *hlo = print(g);
  ck_assert_msg(strstr(hlo, " and(%"), "%s", hlo);
  ck_assert_msg(!strstr(hlo, "direction=NE"), "%s", hlo);
  /* imported back as the product again (no `ne(m, 0)`), and printed again as `and` */
  int cuts;
  AxMugraph *g2 = import("pm (printed)", hlo, strlen(hlo), &cuts);
  ck_assert_int_eq(cuts, 0);
  char *hlo2 = print(g2);
  ck_assert_msg(strstr(hlo2, " and(%") && !strstr(hlo2, "direction=NE"), "%s", hlo2);
  AxMugraph *g3 = import("pm (printed twice)", hlo2, strlen(hlo2), &cuts);
  ck_assert_str_eq(print(g3), hlo2);
}
END_TEST

/* An HLO scalar held as [1] (a parameter, an output) is printed back as T[] when the
 * description says so (axle optimize tells it from the import), and the module imports back
 * to the same program, the names included. */
START_TEST(scalars_print_back_as_scalars) {
  static const char text[] =
      "HloModule sc\n"
      "plus { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT m = f32[] add(a, b) }\n"
      "ENTRY e {\n"
      "  x = f32[4,8] parameter(0)\n"
      "  lr = f32[] parameter(1)\n"
      "  lrb = f32[4,8] broadcast(lr), dimensions={}\n"
      "  m = f32[4,8] multiply(x, lrb)\n"
      "  z = f32[] constant(0)\n"
      "  loss = f32[] reduce(m, z), dimensions={0,1}, to_apply=plus\n"
      "  s = f32[] multiply(loss, lr)\n"
      "  ROOT t = (f32[4,8], f32[], f32[]) tuple(m, loss, s)\n"
      "}\n";
  AxHloModule *m = ax_hlo_parse(A, &D, ax_source_from_text(A, "sc.hlo", text, strlen(text)));
  AxHloProgram hp;
  ck_assert_msg(m && ax_hlo_import(A, &D, m, &hp), "%s", unit_diagnostics());
  ck_assert_int_eq(hp.nscalar_inputs, 1);
  ck_assert_str_eq(hp.scalar_inputs[0], "lr");
  ck_assert_int_eq(hp.noutputs, 3);
  ck_assert(!hp.output_scalar[0] && hp.output_scalar[1] && hp.output_scalar[2]);
  AxMugraph *g = lower("sc", hp.text);
  ck_assert_msg(g, "%s\n%s", hp.text, unit_diagnostics());
  AxHloPProg pp;
  const char *why = NULL;
  ck_assert(ax_eq_to_hlo(g, A, &pp, &why));
  for (int i = 0; i < pp.nvals; i++)
    if (pp.vals[i].kind == AX_HP_PARAM && !strcmp(pp.vals[i].name, "lr")) ((AxHloPVal *)pp.vals)[i].scalar = true;
  pp.out_scalar = hp.output_scalar;
  char *hlo = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&hlo, &len);
  ax_hlo_print(f, &pp);
  fclose(f);
  char *kept = ax_arena_strdup(A, hlo);
  free(hlo);
  ck_assert_msg(strstr(kept, "->(f32[4,8]{1,0}, f32[], f32[])}"), "%s", kept);
  ck_assert_msg(strstr(kept, "  %lr = f32[] parameter(1)\n"), "%s", kept);
  ck_assert_msg(strstr(kept, " tuple(") && strstr(kept, "ROOT %outputs = (f32[4,8]{1,0}, f32[], f32[])"), "%s", kept);
  int cuts;
  AxMugraph *g2 = import("sc (printed)", kept, strlen(kept), &cuts);
  ck_assert_int_eq(cuts, 0);
  char *k1 = ax_canon_key(g), *k2 = ax_canon_key(g2);
  ck_assert_msg(strcmp(k1, k2) == 0, "not the same program after print and import:\n%s", kept);
  free(k1);
  free(k2);
  /* the same names: what the equivalence check of `axle optimize` matches outputs by */
  for (int k = 0; k < g->noutputs; k++)
    ck_assert_str_eq(g2->tensors[g2->outputs[k]].name, g->tensors[g->outputs[k]].name);
  ck_assert_int_eq(g2->stmts[1].kind, AX_KS_INPUT);
  ck_assert_str_eq(g2->tensors[g2->stmts[1].t].name, "lr");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("tohlo");
  TCase *t = tcase_create("tohlo");
  tcase_add_checked_fixture(t, unit_setup, unit_teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_modules_round_trip);
  tcase_add_test(t, every_printable_operator);
  tcase_add_test(t, masks_and_windows);
  tcase_add_test(t, a_product_of_masks_is_and);
  tcase_add_test(t, scalars_print_back_as_scalars);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return unit_run(suite());
}
