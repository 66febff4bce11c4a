#!/usr/bin/env bash
# The XLA rules beyond TensorRight's corpus, family by family, for docs/results.md.
#
#   tools/xla-extra-table.sh [--rules DIR] RESULTS.json
#
# Every rule in DIR (default rules/xla-extra of this checkout) carries one comment line
# directly above its `rule` line, `# xla-extra: HANDLER — CLASS (REASON)`: the function of
# XLA's algebraic_simplifier.cc the rule comes from, and CLASS one of
#   faithful     the rewrite as XLA states it (an `expect invalid` rule: XLA's rule is wrong)
#   generalized  axle's rule covers more than XLA's pattern
#   restricted   axle proves it under a condition XLA does not state (real only, A > 0, …)
# RESULTS.json is `axle verify --format json` output that holds the results of DIR (other
# results, such as rules/xla's, are counted for the headline when present). Prints a
# markdown section: one row per file (operator family), the classes, how many are VERIFIED
# and how many XLA rules axle finds wrong, then the headline against TensorRight's figures.
# Exit 2 on a missing or malformed tag or unreadable results. Needs jq.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
rules=$root/rules/xla-extra
usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case $1 in
    --rules) [ $# -ge 2 ] || { usage >&2; exit 2; }; rules=$2; shift 2 ;;
    --help) usage; exit 0 ;;
    -*) usage >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || { usage >&2; exit 2; }
in=$1
source "$root/tools/lib-tags.sh"
tags_inputs xla-extra-table "$in" "$rules"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# "file<TAB>rule<TAB>handler<TAB>class" per rule (tools/tags.awk): every rule exactly one
# tag, directly above it
cat > "$tmp/check.awk" << 'EOF'
BEGIN { known["faithful"] = known["generalized"] = known["restricted"] = 1 }
function tag_fields(handler, rest,   cls) {
  cls = rest; sub(/[ \t].*/, "", cls)
  if (!(cls in known)) err("unknown class \"" cls "\" (faithful, generalized, restricted)")
  if (rest !~ /\(.+\)/) err("tag without a reason in parentheses")
  if (handler !~ /^(Handle|Try)[A-Za-z]+$/) err("handler \"" handler "\" is not an XLA Handle* or Try* function")
  return handler "\t" cls
}
EOF
tags_read xla-extra-table xla-extra 'HANDLER — CLASS (why)' "$tmp/check.awk" > "$tmp/tags.tsv" || exit 2

# per rule: verified for every type, invalid as expected (XLA wrong), met
jq -r -s '
  group_by(.rule)[] |
  [ .[0].rule,
    (if all(.[]; .verdict == "verified") then 1 else 0 end),
    (if all(.[]; .verdict == "invalid" and .expected == "invalid") then 1 else 0 end),
    (if all(.[]; .met == true) then 1 else 0 end) ] | @tsv' "$in" > "$tmp/results.tsv"
xla_rules=$(jq -r -s '[.[] | select(.file | startswith("rules/xla/")) | .rule] | unique | length' "$in")
xla_ok=$(jq -r -s '[group_by(.rule)[] | select(.[0].file | startswith("rules/xla/"))
                   | select(all(.[]; .verdict == "verified" or .verdict == "trivial")) ] | length' "$in")

LC_ALL=C awk -F '\t' -v xla_rules="$xla_rules" -v xla_ok="$xla_ok" -v dir="$(basename "$rules")" '
  FNR == NR { have[$1] = 1; ver[$1] = $2; wrong[$1] = $3; met[$1] = $4; next }
  {
    f = $1; sub(/\.axl$/, "", f); r = $2
    if (!(f in seen)) { seen[f] = 1; order[++nf] = f }
    n[f]++; total++; c[f, $4]++; call[$4]++
    h[f] = h[f] ((h[f] ~ $3) ? "" : (h[f] ? ", " : "") $3)
    if (!(r in have)) { missing = missing (missing ? ", " : "") r; next }
    if (ver[r]) { v[f]++; vall++ }
    if (wrong[r]) { w[f]++; wall++; wrongs = wrongs (wrongs ? ", " : "") "`" r "`" }
    if (!met[r]) { bad = bad (bad ? ", " : "") "`" r "`" }
  }
  END {
    print "## XLA rules beyond TensorRight'"'"'s corpus (rules/" dir ")"
    print ""
    print "Rules of XLA'"'"'s algebraic simplifier that use log, pow, rsqrt (session 4), sqrt, abs, negation"
    print "and exp (session 5) or quotients of exp, gather (session 6), scatter and flatten (session 8), translated from"
    print "xla/hlo/transforms/simplifiers/algebraic_simplifier.cc (session 5 read openxla/xla at commit"
    print "0057bb15)."
    print "Each carries `# xla-extra: HANDLER — CLASS (why)`: faithful (as XLA states it), restricted"
    print "(axle proves it under a condition XLA does not state), generalized. \"XLA wrong\" counts XLA"
    print "rules stated faithfully that axle refutes with a replayed counterexample (`expect invalid`)."
    print ""
    print "| family | XLA handler | rules | faithful | restricted | generalized | VERIFIED | XLA wrong |"
    print "|---|---|---:|---:|---:|---:|---:|---:|"
    for (i = 1; i <= nf; i++) {
      f = order[i]
      printf "| %s | %s | %d | %d | %d | %d | %d | %d |\n", f, h[f], n[f], c[f, "faithful"],
             c[f, "restricted"], c[f, "generalized"], v[f], w[f]
    }
    printf "| **all** | | %d | %d | %d | %d | %d | %d |\n", total, call["faithful"], call["restricted"],
           call["generalized"], vall, wall
    print ""
    printf "**TensorRight (POPL'"'"'25 §7): 121 of the 175 rules of XLA'"'"'s simplifier expressible, 115 " \
           "verified. axle: the %d rules of TensorRight'"'"'s corpus (rules/xla, %s) plus %d more " \
           "(rules/%s): %d VERIFIED, %d XLA rules found wrong (%s).**\n",
           xla_rules ? xla_rules : 118,
           xla_rules ? xla_ok " VERIFIED or TRIVIAL in this run" : "not in this run",
           total, dir, vall, wall, wrongs ? wrongs : "none"
    print ""
    print "TensorRight'"'"'s Table 1 counts 10 advanced element-wise rules (1 expressed: exp·exp) and 29"
    print "layout-sensitive ones (none expressed) in the XLA of its time. The element-wise rows above"
    print "(41 rules) state 27 distinct XLA rewrites: `ln(pow(A,B))` in two versions of XLA'"'"'s source"
    print "(without and with the B == 0 guard), each refuted as XLA states it and proved under the"
    print "condition it needs (4 rules); `pow(pow(A,X),Y)` refuted, proved for A > 0, and refuted on int"
    print "(3); `pow(A,-1)` over the reals, refuted on int (XLA'"'"'s integer pow gives 0 at A = 0 and"
    print "A = -1, its 1/A gives -1) and proved there for A not 0 or -1 (3); `pow(A,-2)` over the reals"
    print "and refuted on int (2); `abs(A) => A` for a non-negative A as the general rule and five of"
    print "the operand forms XLA'"'"'s `IsNonNegative` recognises (6); `sqrt(x)*sqrt(x) => x` for x >= 0 and"
    print "for x = abs(A) (2); the other 21 once each (pow(A, 0), pow(A, 1), pow(A, 2) and pow(A, 3) for"
    print "int and real, \"restricted\" where XLA'"'"'s rule also covers signed ints)."
    print ""
    print "Six of XLA'"'"'s sqrt/rsqrt rewrites (`A/sqrt(B)`, `A/rsqrt(B)`, `rsqrt(x)*rsqrt(x)`, `pow(A, 0.5)`,"
    print "`rsqrt(pow(A, -2))`, `rsqrt(1/A)`) are decided since the powers x^(1/2) and x^(-1/2) carry"
    print "their defining facts, and `ln(sqrt(A)) => 0.5*ln(A)` since the log of a root carries"
    print "`x > 0 => log(sqrt x) = 1/2 log x` (docs/semantics.md; a wrong factor there is caught by the"
    print "oracles in tests/verify/xla-extra-unproved/log_root.axl, which it would prove)."
    print ""
    print "The gather row states six rewrites of HandleGather and one of HandleDot for axle'"'"'s gather"
    print "of one row along an axis, `A[y = clamp(I, 0, n - 1), x]` (docs/semantics.md): an operand"
    print "without elements gathers zeros (restricted: empty along a kept axis — along the gathered"
    print "axis the gather is invalid); a scalar operand gathers its broadcast (generalized: size 1 on"
    print "the gathered axis suffices); a very small operand becomes a chain of selects on `I >= i` (at"
    print "n = 3 and n = 4, the default `very_small_gather_size`; right only because XLA clamps — the"
    print "mutant with `I == i` is refuted at an out-of-range index); `gather(pad(A))` is"
    print "`pad(gather(A))` when only kept axes are padded, and so is `gather(reshape(pad(A)))` when a"
    print "split of kept axes is the bitcast reshape (generalized: every rank, interior padding);"
    print "`dot(C, gather(B, I))` is `gather(dot(C, B), I)` (generalized: any operands, not only constants)."
    print ""
    print "The scatter row states the two rewrites of HandleScatter, the four scatter folds of"
    print "HandleAdd and TryFoldTransposeIntoScatter for axle'"'"'s scatter with the add combiner, one row"
    print "per index, `A[y, x] + sum_z [I[z] = y] * U[z, x]` (docs/semantics.md): zero-element updates"
    print "leave the operand; zero-element indices with operand, updates and result of one shape map the"
    print "combiner (both sides empty); an add into a scatter joins its operand, on either side; two"
    print "scatters added merge into one over the concatenated indices and updates, or chain; a"
    print "transpose of a scatter is a scatter into the transposed operand (generalized: a renaming of"
    print "the row and window axes, every rank). All VERIFIED; their mutants INVALID."
    print ""
    print "The flatten row states XLA'"'"'s reshapes that collapse every named axis of an aggregated axis"
    print "into one, row-major, and split it back (`flatten`, `unflatten`; the index mixes the named"
    print "axes, proved for every rank by the merge argument of docs/semantics.md): a reshape of a"
    print "reshape back to the operand'"'"'s shape, in both orders; a reshape of a broadcast scalar; a reduce"
    print "of a reshape that collapses exactly the reduced dimensions; a reshape sunk through an"
    print "element-wise product."
    print ""
    print "Still not expressible in axle, and why:"
    print ""
    print "* `cbrt`, `tanh`, `erf`,"
    print "  `logistic` (HandleMaximum sinks `max(f(x), f(y))` for them), `convert` (rewrites of"
    print "  converted predicates), fixed-width signed integers (the overflow cases of `IsNonNegative`);"
    print "* reshapes that regroup some named axes of a class but not all, flattens of a class the"
    print "  merge argument does not cover (two size maps, `reverse`/`pad`/`slice` on its axes: UNKNOWN),"
    print "  transposes recognised as bitcasts, and layouts other than row-major (tiling, padding:"
    print "  `ValidateTilingOfBitcast`);"
    print "* scatter with a combiner other than add (replace needs \"the indices are distinct\", a"
    print "  precondition over pairs: docs/language.md), gathers and scatters of windows (slice sizes"
    print "  above 1 on the indexed axis) and of index vectors over several axes, sort, while,"
    print "  reduce-window, and element types axle does not have (complex, convert between widths)."
    if (bad != "") { print ""; print "Not as expected: " bad }
    if (missing != "") printf "xla-extra-table: warning: tagged rules without a result: %s\n", missing > "/dev/stderr"
  }
' "$tmp/results.tsv" "$tmp/tags.tsv"
