#!/usr/bin/env bash
# The folders' one-way dependencies (docs/architecture.md): tools/check-includes.sh passes on
# the tree, and on a copy of it with one include pointing up the pipeline, at a header that
# does not exist, or closing a cycle between modules it fails, naming what it found.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash

check "the tree's includes point down the pipeline" \
  bash -c 'tools/check-includes.sh > "$0/ok.txt"' "$tmp"
check "summary printed" has "$tmp/ok.txt" "all down the pipeline"

# A copy of the pipeline folders' sources only (no build trees); superopt/'s layers are
# sub-folders.
for d in base egraph dsl hlo semantics smt verifier run superopt/arith superopt/ir superopt/equiv \
         superopt/cost superopt/search superopt/eqsat gpu mpk cli; do
  mkdir -p "$tmp/tree/$d"
  cp "$d"/*.[chly] "$tmp/tree/$d/" 2>/dev/null
done
check "the copy passes" tools/check-includes.sh "$tmp/tree"

# smt (the solver layer) reaching up into the proof core: line 2 of the file.
printf '/* a solver that knows about counterexamples */\n#include "verifier/cex.h"\n' \
  > "$tmp/tree/smt/upward.c"
tools/check-includes.sh "$tmp/tree" > "$tmp/up.txt"; rc=$?
check "upward include: exit 1" test "$rc" -eq 1
check "upward include: located, names both folders" \
  has "$tmp/up.txt" "smt/upward.c:2: 'smt' may not include 'verifier/cex.h' (smt comes before verifier)"
rm "$tmp/tree/smt/upward.c"

# base including the language, with spaces inside the directive.
printf '#  include   "dsl/ast.h"\n' > "$tmp/tree/base/x.h"
tools/check-includes.sh "$tmp/tree" > "$tmp/base.txt"; rc=$?
check "base -> dsl: exit 1" test "$rc" -eq 1
check "base -> dsl: located" has "$tmp/base.txt" "base/x.h:1: 'base' may not include 'dsl/ast.h'"
rm "$tmp/tree/base/x.h"

# A cycle between two modules of one layer: verify.h including bijection.h, whose module
# already needs result.h — and result.h made to need verify.h back.
printf '#include "verifier/verify.h"\n' >> "$tmp/tree/verifier/result.h"
tools/check-includes.sh "$tmp/tree" > "$tmp/cycle.txt"; rc=$?
check "module cycle: exit 1" test "$rc" -eq 1
check "module cycle: said, with its modules" has "$tmp/cycle.txt" "include cycle between modules"
check "module cycle: names verifier/result" has "$tmp/cycle.txt" "  verifier/result"
cp verifier/result.h "$tmp/tree/verifier/result.h"
check "the summary says no module cycle" has "$tmp/ok.txt" "no module cycle in"

# Inside superopt/: a lower layer reaching up (ir needing the value domains of equiv), and
# a cycle between two modules of one layer (the tensors needing the rows' dispatcher).
printf '#include "superopt/equiv/values.h"\n' >> "$tmp/tree/superopt/ir/tensor.c"
tools/check-includes.sh "$tmp/tree" > "$tmp/sub.txt"; rc=$?
check "sub-layer upward include: exit 1" test "$rc" -eq 1
check "sub-layer upward include: names both layers" has "$tmp/sub.txt" \
  "'superopt/ir' may not include 'superopt/equiv/values.h' (superopt/ir comes before superopt/equiv)"
cp superopt/ir/tensor.c "$tmp/tree/superopt/ir/tensor.c"
printf '#include "superopt/ir/tensorop.h"\n' >> "$tmp/tree/superopt/ir/tensor.h"
tools/check-includes.sh "$tmp/tree" > "$tmp/subcycle.txt"; rc=$?
check "superopt module cycle: exit 1" test "$rc" -eq 1
check "superopt module cycle: names superopt/ir/tensorop" has "$tmp/subcycle.txt" "  superopt/ir/tensorop"
cp superopt/ir/tensor.h "$tmp/tree/superopt/ir/tensor.h"
check "the copy passes again" tools/check-includes.sh "$tmp/tree"

# A header that does not exist, and a folder outside the pipeline.
printf '#include "verifier/nothing.h"\n#include "extra/thing.h"\n' > "$tmp/tree/cli/ghost.c"
tools/check-includes.sh "$tmp/tree" > "$tmp/ghost.txt"; rc=$?
check "missing header: exit 1" test "$rc" -eq 1
check "missing header: named" has "$tmp/ghost.txt" "cli/ghost.c:1: 'verifier/nothing.h' does not exist"
check "foreign folder: named" has "$tmp/ghost.txt" "cli/ghost.c:2: 'extra/thing.h' is not in a pipeline folder"

echo "arch_includes: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
