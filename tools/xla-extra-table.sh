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
    print "Rules of XLA'"'"'s algebraic simplifier (xla/hlo/transforms/simplifiers/algebraic_simplifier.cc"
    print "at openxla/xla commit 0057bb15) beyond TensorRight'"'"'s corpus; what each family states and"
    print "what is still not expressible: [architecture.md](architecture.md), \"The XLA rules beyond"
    print "TensorRight'"'"'s corpus\"."
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
    if (bad != "") { print ""; print "Not as expected: " bad }
    if (missing != "") printf "xla-extra-table: warning: tagged rules without a result: %s\n", missing > "/dev/stderr"
  }
' "$tmp/results.tsv" "$tmp/tags.tsv"
