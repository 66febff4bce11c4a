/* canon.h — canonical keys of μGraphs: what the search's reachability mode (search.h,
 * AxSearchOpts.pin) compares a generated candidate with. */
#ifndef AX_CANON_H
#define AX_CANON_H

#include "superopt/ir/mugraph.h"

/* A canonical key of validated g (returned owned, free()): every output, by name, as the
 * tree that computes it — kernels by grid, block, for-loop and omaps, block nodes by
 * operator, attributes and operands (add/mul operands sorted), iterators and block iotas by
 * maps, the shapes an iota, broadcast or reshape makes. Names,
 * statement order and thread grouping do not enter it: two graphs with one key compute
 * the same thing the same way. */
char *ax_canon_key(const AxMugraph *g);

#endif
