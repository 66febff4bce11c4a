/* access.h — the symbolic maps and the general access of one rank instance, for both
 * verifiers: the proof (instance.c) and IEEE mode's bounded check (fpcheck.c, and its
 * concrete replay). One builder names the variables and states what makes the access valid
 * and the two sides' sizes equal, in whatever domain it is given, so that the soundness of
 * that step is written once. Depends on the denotations only (below instance.h and
 * result.h). */
#ifndef AX_ACCESS_H
#define AX_ACCESS_H

#include "semantics/denote.h"

/* Families of the variables (instance.h: one quantity on the named axes of a class) */
enum { AX_FAMILY_MAP = 0, AX_FAMILY_ACCESS = 1L << 20, AX_FAMILY_SUM = 1L << 21 };

/* A new Int variable of the caller's domain named `name`, at named axis pos of rank class
 * rclass, of family `family` (AX_FAMILY_* + the symbol's or the axis's number). */
typedef AxV (*AxAccessVar)(void *ctx, const char *name, int rclass, int pos, long family);

/* One Int variable per named axis ("s.k") of every symbolic map and index map of s (not the
 * defined ones), at rank[its class]; returned by symbol number (NULL for other symbols),
 * allocated in a. */
AxV **ax_access_maps(AxArena *a, const AxRuleSyms *s, const int *rank, AxAccessVar var, void *ctx);

/* The general access over every named axis of lhs: with var, one new variable per named
 * axis ("@x.k") written to acc; without, acc's values are used as they are (a model's).
 * *acc_valid: 0 <= acc < lhs's size on each; *sizes: lhs's and rhs's sizes equal on each —
 * values of den's domain. Arrays in den->a. */
void ax_access_build(AxInst *den, const AxShape *lhs, const AxShape *rhs, AxAccessVar var,
                     void *ctx, AxIndex *acc, AxV *acc_valid, AxV *sizes);

#endif
