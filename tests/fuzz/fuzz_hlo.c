/* fuzz_hlo.c — libFuzzer target over the HLO front end (hlo/).
 *
 * Any input: scan, parse, check the module, import it; nothing may crash, leak or hang, and
 * an error is always reported (a located diagnostic, never a silent failure). A module that
 * imports gives a program text that the program front end must take as it is: parsed,
 * lowered and validated without an error, the importer's contract (hlo/import.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo.h"
#include "hlo/import.h"
#include "superopt/ir/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, NULL);   /* count, do not print */
  char *text = ax_arena_alloc(a, size + 1);
  memcpy(text, data, size);
  AxSource *src = ax_source_from_text(a, "fuzz.hlo", text, size);
  AxHloModule *m = ax_hlo_parse(a, &d, src);
  if (!m && d.errors == 0) abort();   /* a refusal without a message */
  AxHloProgram p;
  if (m && d.errors == 0) {
    bool ok = ax_hlo_import(a, &d, m, &p);
    if (!ok && d.errors == 0) abort();
    if (ok) {
      /* through the door every reader of a program takes: parsed, lowered, validated */
      if (!ax_load_from_text(a, &d, "imported.axl", p.text, NULL) || d.errors != 0) {
        fprintf(stderr, "the imported program does not check:\n%s\nfrom:\n%.*s\n", p.text, (int)size, text);
        abort();
      }
    }
  }
  ax_arena_free(a);
  return 0;
}
