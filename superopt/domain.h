/* domain.h — value domains the interpreters compute in.
 *
 * An interpreter (program or μGraph) moves tensor elements around without looking at
 * them and asks a domain for arithmetic. Two domains exist:
 *   float  (this file)   doubles; the reference semantics. Optionally rounds stored
 *                        tensors to their storage type (f16, bf16, f32) so a μGraph is
 *                        run with the precision a GPU would keep (Mirage's float filter).
 *   field  (field.h)     pairs in Zp x Zq, Mirage §5 Table 3, for probabilistic
 *                        equivalence.
 * Every callback works on runs of elements so that the per-element cost of the indirect
 * call stays out of inner loops. A domain is a value (copied freely); ctx is borrowed.
 * (AxTDomain computes on tensor elements of programs and μGraphs; semantics/domain.h's
 * AxDomain is the verifier's, over symbolic and exact values.) */
#ifndef AX_TDOMAIN_H
#define AX_TDOMAIN_H

#include "superopt/tensor.h"

typedef struct AxTDomain AxTDomain;
struct AxTDomain {
  const char *name;
  size_t size;    /* bytes of one element */
  void *ctx;      /* borrowed; the domain's parameters and counters */
  /* Set by a caller that needs only the primary component of the results (the field's p
   * side): a domain may then leave the secondary one undefined and skip its work. */
  bool primary_only;
  /* out[i] = a[i*sa] op b[i*sb], i < n; op is ADD SUB MUL or DIV; sa, sb are 0 or 1. */
  void (*binary)(const AxTDomain *d, AxOp op, size_t n, void *out, const void *a, size_t sa,
                 const void *b, size_t sb);
  /* out[i] = op(a[i]); op is NEG EXP SQUARE SQRT or SILU. out may equal a. */
  void (*unary)(const AxTDomain *d, AxOp op, size_t n, void *out, const void *a);
  /* out[m x n] = a[m x k] . b[k x n], all contiguous row-major. */
  void (*matmul)(const AxTDomain *d, size_t m, size_t k, size_t n, void *out, const void *a,
                 const void *b);
  /* out[0] = the constant c. */
  void (*constant)(const AxTDomain *d, AxRat c, void *out);
  /* Rounds n stored elements to storage type t (NULL for exact domains). */
  void (*round)(const AxTDomain *d, AxDtype t, size_t n, void *data);
};

/* The float domain; rounding to storage types happens when `storage` is true. The
 * returned domain has no ctx to free. */
AxTDomain ax_domain_float(bool storage);

/* Round-to-nearest-even of a double to the value set of t (overflow gives ±inf). */
double ax_domain_round_to(AxDtype t, double x);

#endif
