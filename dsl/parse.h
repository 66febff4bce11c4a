/* parse.h — text to syntax tree.
 *
 * ax_parse scans and parses one source into an AxFile allocated in `a` (the caller owns
 * the arena). Syntax errors are reported through `d` (file:line:col, source line, caret);
 * the parser recovers at the end of the offending statement or block, so one call reports
 * every independent error. The result is never NULL: on errors it holds what could be
 * parsed, and d->errors > 0 tells the caller not to trust it. */
#ifndef AX_PARSE_H
#define AX_PARSE_H

#include "dsl/ast.h"

AxFile *ax_parse(AxArena *a, AxDiag *d, const AxSource *src);

#endif
