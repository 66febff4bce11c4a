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

/* Expressions nest at most this deep (parentheses, calls, operators, if, forall, lists,
 * each a level); a deeper one is a syntax error located at the first expression beyond
 * the limit, so that no later pass (checker, printer, semantics: all recursive) runs
 * out of stack on it. */
#define AX_PARSE_MAX_DEPTH 200

AxFile *ax_parse(AxArena *a, AxDiag *d, const AxSource *src);

#endif
