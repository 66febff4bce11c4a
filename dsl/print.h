/* print.h — the canonical printer behind `axle fmt`.
 *
 * Prints a parsed file in canonical layout: two-space indentation, one statement per
 * line, minimal parentheses, `name=value` attributes. Comments are kept (a comment that
 * stood inside a multi-line statement moves above the next statement) and single blank
 * lines between statements are kept. The output parses back to an equal tree
 * (ax_ast_equal), which tests check over every file in rules/. Lines end as the source's
 * first line does ("\n", "\r\n" or "\r"). Linear in the size of the file. */
#ifndef AX_PRINT_H
#define AX_PRINT_H

#include "dsl/ast.h"

void ax_print_file(FILE *out, const AxFile *f);
void ax_print_expr(FILE *out, const AxExpr *e);   /* one expression, no newline */
char *ax_print_expr_str(AxArena *a, const AxExpr *e);   /* same, into the arena */

/* The canonical text of one block without its comments or blank lines: the header, one
 * statement per line (never broken), the closing brace. Two blocks print the same exactly
 * when they are the same tree, whatever their layout; the result cache keys on it. */
void ax_print_block(FILE *out, const AxBlock *b);

#endif
