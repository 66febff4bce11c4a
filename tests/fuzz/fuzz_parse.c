/* fuzz_parse.c — libFuzzer target over the whole front end.
 *
 * Any input: scan, parse, check; nothing may crash, leak or hang. Inputs that parse are
 * also printed and parsed again, and the two trees must be equal — the `fmt` round-trip
 * property, checked on every input the fuzzer finds. */
#include <stdint.h>
#include <string.h>

#include "dsl/check.h"
#include "dsl/parse.h"
#include "dsl/print.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  AxArena *a = ax_arena_new();
  AxDiag d;
  ax_diag_init(&d, NULL);   /* count, do not print */
  char *text = ax_arena_alloc(a, size + 1);
  memcpy(text, data, size);
  AxSource *src = ax_source_from_text(a, "fuzz.axl", text, size);
  AxFile *f = ax_parse(a, &d, src);
  if (d.errors == 0) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    ax_print_file(m, f);
    fclose(m);
    AxSource *src2 = ax_source_from_text(a, "printed.axl", buf, len);
    AxFile *g = ax_parse(a, &d, src2);
    if (d.errors != 0 || !ax_ast_equal(f, g)) {
      fprintf(stderr, "fmt round trip broken for:\n%.*s\nprinted as:\n%s\n", (int)size, text, buf);
      abort();
    }
    ax_check_file(a, &d, f);
    free(buf);
  }
  ax_arena_free(a);
  return 0;
}
