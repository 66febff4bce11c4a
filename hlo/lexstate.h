/* lexstate.h — what the HLO scanner (lexer.l) keeps between tokens, shared with the parser.
 *
 * The parser owns one AxHloLex per source. Offsets are bytes into the source. */
#ifndef AX_HLO_LEXSTATE_H
#define AX_HLO_LEXSTATE_H

#include "base/arena.h"

typedef struct AxHloLex {
  AxArena *arena;
  const char *text;    /* the source, to cut attribute values from */
  uint32_t off;        /* byte offset of the next token */
  int parens;          /* open '(' outside attribute values */
  int vdepth;          /* open brackets inside the attribute value being scanned */
  uint32_t vstart;     /* where that value starts */
  bool module_name;    /* 'HloModule' was the last token: its name comes next */
} AxHloLex;

#endif
