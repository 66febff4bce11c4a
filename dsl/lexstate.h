/* lexstate.h — what the scanner (lexer.l) keeps between tokens, shared with the parser.
 *
 * The parser owns one AxLexState per source; the scanner reads and updates it. Strings
 * the scanner returns (identifiers, literal digits) are copied into `arena`. */
#ifndef AX_LEXSTATE_H
#define AX_LEXSTATE_H

#include "base/arena.h"

typedef struct AxLexState {
  AxArena *arena;
  uint32_t off;          /* byte offset of the next token */
  int depth;             /* open '(' and '[' */
  int last;              /* last significant token returned (0 at the start) */
  bool pending_nl;       /* a newline that ends the statement unless the next token
                            continues it (else, then, an operator, =>, a closing bracket) */
  uint32_t pending_off;  /* where that newline is */
  uint32_t block_start;  /* offset of the last 'rule'/'program' keyword */
  AxVec comments;        /* AxComment*, in source order */
} AxLexState;

int ax_lex_keyword(const char *word);             /* token code, or 0 if not a keyword */
bool ax_lex_newline_ends_stmt(AxLexState *st);   /* could this newline end a statement? */
bool ax_lex_continues(int tok);   /* does a line starting with tok continue the statement? */
void ax_lex_comment(AxLexState *st, uint32_t start, uint32_t end);
const char *ax_lex_text(AxLexState *st, const char *text, size_t len);

#endif
