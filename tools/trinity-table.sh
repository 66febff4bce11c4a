#!/usr/bin/env bash
# Checks Trinity's rewrite rules, rule by rule, for docs/trinity.md.
#
#   tools/trinity-table.sh [--rules DIR]... [--list FILE] [--splice DOC] RESULTS.json
#
# FILE (default tools/trinity-rules.tsv) lists every rule of Trinity's optimizer, with where
# it lives and, for the rules axle's language cannot state, why. Every rule in the DIRs
# (default rules/trinity and tests/verify/trinity-unproved of this checkout) carries one
# comment line directly above its `rule` line,
#   # trinity: NAME[, NAME]... — CLASS (WHY)
# naming the Trinity rules it states. CLASS is one of
#   faithful      Trinity's rewrite as it stands (tiles as tensors of any shape)
#   generalized   the same, over more shapes (aggregated axes of any rank)
#   restricted    an instance of Trinity's rule (WHY says which), chosen to exhibit or to
#                 bound what the rule does
#   corrected     Trinity's rule with the side condition it lacks
# RESULTS.json is the output of `axle verify --format json` over those DIRs. Prints a
# markdown section: one row per Trinity rule (its source, the axle rules that state it,
# their verdicts — a counterexample in one line for INVALID — and time), then the counts.
# A Trinity rule is "wrong" when a rule that states it as it stands (not `corrected`) is
# INVALID, or is expected invalid and UNKNOWN (a counterexample by hand, in the rule's
# comment). Exit 2 on a malformed or missing tag, a tag naming an unknown rule, a listed
# rule neither stated nor explained, or unreadable results. With --splice DOC the section
# replaces what DOC holds between the lines `<!-- trinity-table: begin -->` and
# `<!-- trinity-table: end -->` (docs/trinity.md), instead of going to standard output.
# Needs jq.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
list=$root/tools/trinity-rules.tsv
splice=
dirs=()
usage() { sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case $1 in
    --rules) [ $# -ge 2 ] || { usage >&2; exit 2; }; dirs+=("$2"); shift 2 ;;
    --list) [ $# -ge 2 ] || { usage >&2; exit 2; }; list=$2; shift 2 ;;
    --splice) [ $# -ge 2 ] || { usage >&2; exit 2; }; splice=$2; shift 2 ;;
    --help) usage; exit 0 ;;
    -*) usage >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || { usage >&2; exit 2; }
in=$1
[ ${#dirs[@]} -gt 0 ] || dirs=("$root/rules/trinity" "$root/tests/verify/trinity-unproved")
[ -r "$list" ] || { echo "trinity-table: $list: cannot read the rule list" >&2; exit 2; }
source "$root/tools/lib-tags.sh"
tags_inputs trinity-table "$in" "${dirs[@]}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# The tags (tools/tags.awk): "axle-rule<TAB>names<TAB>class<TAB>why" per rule, in file order.
cat > "$tmp/check.awk" << 'EOF'
BEGIN { split("faithful generalized restricted corrected", c, " "); for (i in c) known[c[i]] = 1 }
function tag_fields(names, rest,   sp, cls, why) {
  gsub(/[ \t]+/, "", names)
  if (!match(rest, /^[a-z]+ \(.+\)$/)) { err("tag is not \"# trinity: NAMES — CLASS (WHY)\""); return dropped }
  sp = index(rest, " "); cls = substr(rest, 1, sp - 1)
  why = substr(rest, sp + 2); why = substr(why, 1, length(why) - 1)
  if (!(cls in known)) err("unknown class \"" cls "\" (faithful, generalized, restricted, corrected)")
  if (names == "") err("tag names no Trinity rule")
  return names "\t" cls "\t" why
}
EOF
tags_read trinity-table trinity 'NAMES — CLASS (WHY)' "$tmp/check.awk" > "$tmp/tagged.tsv" || exit 2
cut -f2- "$tmp/tagged.tsv" > "$tmp/tags.tsv"

# The results, per axle rule: "rule<TAB>expected<TAB>status<TAB>label<TAB>time_ms", status
# verified (every element type), invalid (some type), else unknown; the label names the
# verdict, the solvers, and for INVALID the counterexample of one type (real if there is one).
jq -r -s '
  def lab:
    if .verdict == "verified" then
      "VERIFIED (" + (if .single_solver then ((.confirmed_by[0] // "?") + " only")
                      else (.confirmed_by | join("+")) end) + ")"
      + (if .trivial then ", TRIVIAL" else "" end)
    elif .verdict == "invalid" then "INVALID"
    elif .verdict == "invalid-hint" then "INVALID-HINT"
    else (.verdict | ascii_upcase) + ": "
         + ((.reason // "no reason") | sub("^at rank [^:]*: "; "") | split(" (")[0]) end;
  def cex:
    .counterexample as $c |
    if $c == null then "" else
      ($c.failed // "" | test("values differ")) as $values |
      " (cex: "
      + (if $values then "" else "right side ill-formed; " end)
      + ([$c.maps // {} | to_entries[] | "\(.key)=\(.value | tojson)"] | join(" "))
      + (if $values and ($c.reads // [] | length) > 0
         then "; " + ([$c.reads[] | "\(.tensor)\(.index | tojson)=\(.value)"] | join(", "))
         else "" end)
      + (if $values and $c.lhs != null then "; lhs \($c.lhs), rhs \($c.rhs)" else "" end) + ")"
    end;
  group_by(.rule)[] |
  (map(lab) | unique) as $labs |
  ([.[] | select(.verdict == "invalid")] | (map(select(.type == "real")) + .) | .[0]) as $inv |
  [ .[0].rule, (.[0].expected // "valid"),
    (if all(.[]; .verdict == "verified") then "verified"
     elif any(.[]; .verdict == "invalid") then "invalid" else "unknown" end),
    ((if ($labs | length) == 1 then $labs[0]
      else ([.[] | "\(.type // "-"): \(lab)"] | join(", ")) end)
     + (if $inv != null then ($inv | cex) else "" end)),
    ([.[].time_ms // 0] | add) ] | @tsv
' "$in" > "$tmp/results.tsv"

table() {
LC_ALL=C awk -F '\t' -v tagsf="$tmp/tags.tsv" -v resf="$tmp/results.tsv" '
  function esc(s) { gsub(/\|/, "\\|", s); return s }
  BEGIN {
    bad = 0
    while ((getline line < resf) > 0) {
      split(line, f, "\t"); have[f[1]] = 1; expd[f[1]] = f[2]; st[f[1]] = f[3]
      label[f[1]] = f[4]; ms[f[1]] = f[5]
    }
    nt = 0
    while ((getline line < tagsf) > 0) {
      split(line, f, "\t"); nt++; trule[nt] = f[1]; tclass[nt] = f[3]; twhy[nt] = f[4]
      nn = split(f[2], nm, ",")
      for (i = 1; i <= nn; i++) { tagged_name[nm[i]] = tagged_name[nm[i]] " " nt }
    }
  }
  /^#/ || NF == 0 { next }
  {
    if (NF != 5) { printf "trinity-table: %s:%d: expected 5 tab-separated fields\n", FILENAME, FNR > "/dev/stderr"; bad = 1; next }
    n++; rname[n] = $1; fn[n] = $2; ver[n] = $3; paper[n] = $4; why[n] = $5; listed[$1] = 1
    if ($5 == "-" && !($1 in tagged_name)) {
      printf "trinity-table: %s is listed as stated but no rule is tagged with it\n", $1 > "/dev/stderr"; bad = 1
    }
    if ($5 != "-" && ($1 in tagged_name)) {
      printf "trinity-table: %s is listed as not statable but rules are tagged with it\n", $1 > "/dev/stderr"; bad = 1
    }
  }
  END {
    for (nm1 in tagged_name) if (!(nm1 in listed)) {
      printf "trinity-table: a tag names %s, which tools/trinity-rules.tsv does not list\n", nm1 > "/dev/stderr"; bad = 1
    }
    if (bad) exit 2
    print "## Rule by rule"
    print ""
    print "Generated by `tools/trinity-table.sh` from the `# trinity:` tags of rules/trinity and"
    print "tests/verify/trinity-unproved, the list tools/trinity-rules.tsv and a run of"
    print "`axle verify --format json` over those directories (do not edit by hand)."
    print "Source: kaist-ina/Trinity-AE, `optimizer/src/rules.rs`; *function* is the Rust function"
    print "holding the rule, *versions* the stored versions of the file where it is active."
    print "A verdict is over every element type the rule is stated for; `cex` is axle'"'"'s replayed"
    print "counterexample (maps are sizes per axis, `T[i]=v` a tensor element, lhs/rhs the two"
    print "sides at the access); time is the verification time of those rules, every type together."
    print ""
    print "| Trinity rule | function (versions) | paper | axle rule (class) | verdict | time |"
    print "|---|---|---|---|---|---:|"
    for (i = 1; i <= n; i++) {
      r = rname[i]
      src = "`" fn[i] "` (" ver[i] ")"
      pap = (paper[i] == "-") ? "—" : paper[i]
      if (why[i] != "-") {
        printf "| %s | %s | %s | — | cannot be stated: %s | — |\n", r, src, pap, esc(why[i])
        notst++; continue
      }
      stated++
      cells_a = ""; cells_v = ""; total = 0; wrong = 0; wrong_hand = 0; allv = 1; hasnc = 0
      m = split(tagged_name[r], ids, " ")
      for (j = 1; j <= m; j++) {
        t = ids[j]; ar = trule[t]; cl = tclass[t]
        cells_a = cells_a (cells_a ? "<br>" : "") "`" ar "` (" cl ")"
        if (ar in have) { v = label[ar]; total += ms[ar] } else { v = "no result"; missing[ar] = 1 }
        cells_v = cells_v (cells_v ? "<br>" : "") esc(v)
        if (cl == "corrected") {
          if (!(ar in seen_c)) { seen_c[ar] = 1; ncorr++; if (st[ar] == "verified") ncorr_v++ }
          continue
        }
        hasnc = 1
        if (st[ar] == "invalid") wrong = 1
        else if (st[ar] == "unknown" && expd[ar] == "invalid") wrong_hand = 1
        if (st[ar] != "verified") allv = 0
      }
      if (wrong) { nwrong++; wlist = wlist (wlist ? ", " : "") r }
      else if (wrong_hand) { nwrong_hand++; hlist = hlist (hlist ? ", " : "") r }
      else if (hasnc && allv) nholds++
      else { nundec++; ulist = ulist (ulist ? ", " : "") r }
      printf "| %s | %s | %s | %s | %s | %.1f s |\n", r, src, pap, cells_a, cells_v, total / 1000
    }
    print ""
    printf "**Of Trinity'"'"'s %d rewrite rules, axle states %d: %d hold as Trinity states them " \
           "(VERIFIED), %d are wrong with a counterexample axle replays (INVALID), %d are wrong " \
           "by a counterexample worked by hand that axle cannot replay yet, %d are undecided " \
           "(UNKNOWN); %d cannot be stated. %d of the %d corrected rules are VERIFIED.**\n",
           n, stated, nholds, nwrong, nwrong_hand, nundec, notst, ncorr_v, ncorr
    print ""
    if (wlist != "") printf "Wrong (INVALID): %s.\n\n", wlist
    if (hlist != "") printf "Wrong by hand (axle: UNKNOWN): %s.\n\n", hlist
    if (ulist != "") printf "Undecided (UNKNOWN): %s.\n", ulist
    for (a in missing) { nm2++; ml = ml (ml ? ", " : "") a }
    if (nm2) printf "trinity-table: warning: %d tagged rules have no result in the input: %s\n", nm2, ml > "/dev/stderr"
  }
' "$list"
}

if [ -z "$splice" ]; then table; exit; fi
[ -w "$splice" ] || { echo "trinity-table: $splice: cannot write" >&2; exit 2; }
grep -q '^<!-- trinity-table: begin -->$' "$splice" && grep -q '^<!-- trinity-table: end -->$' "$splice" ||
  { echo "trinity-table: $splice: no <!-- trinity-table: begin/end --> lines" >&2; exit 2; }
table > "$tmp/table.md" || exit 2
awk -v tf="$tmp/table.md" '
  /^<!-- trinity-table: end -->$/ { skip = 0 }
  !skip { print }
  /^<!-- trinity-table: begin -->$/ { while ((getline l < tf) > 0) print l; skip = 1 }
' "$splice" > "$tmp/doc" && cat "$tmp/doc" > "$splice"
