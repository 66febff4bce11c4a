#!/usr/bin/env bash
# Turns `axle verify --format json` output into a results page and a time plot.
#
#   tools/timing-report.sh [--wall SECONDS] [--ieee IEEE.json [--ieee-wall SECONDS]]
#                          [--run TEXT] [--fuzz FUZZ.json] RESULTS.json [PAGE.md [PLOT.svg|PLOT.png]]
#
# --ieee adds the section of tools/ieee-table.sh (which XLA rules hold in f32/f16/bf16)
# from a run of `axle verify --numbers ieee --format json rules/xla`.
# PAGE (default docs/results.md): one table row per rule and element type -- category,
# verdict, expectation, rank bounds, instances, queries, time, solver -- the figures
# TensorRight reports (how many under 1 s, the maximum, the mean; also p50, p90 and the
# total), how many rules are verified for every element type, the results that were not
# verified with their reasons, and, for rules/xla, TensorRight's published figures side by
# side. --wall gives the run's wall-clock time (e.g. with --jobs 2) for the page; --run one
# line on how the run was made (command, date, machine); --fuzz the figures of a verdict
# fuzzer run (the --stats JSON of tools/verdict-fuzz.sh, with command, date and machine).
# The page is written whole from these inputs: nothing in it is kept from an older page.
# PLOT (default docs/results-cdf.svg, next to PAGE): the cumulative distribution of the
# times, drawn by gnuplot (SVG or PNG after the file's extension). The figures are printed
# on standard output too. Results answered from the cache (`"cached": true`) report the
# time of the verification that stored them; the page says how many there were.
# tools/results-md.sh runs this over the recorded data in docs/data/.
# Needs jq and gnuplot (Debian: jq, gnuplot-nox).
set -eu
wall= run= fuzz=
ieee= ieee_wall=
while [ $# -ge 2 ]; do
  case $1 in
    --wall) wall=$2 ;;
    --ieee) ieee=$2 ;;
    --ieee-wall) ieee_wall=$2 ;;
    --run) run=$2 ;;
    --fuzz) fuzz=$2 ;;
    *) break ;;
  esac
  shift 2
done
if [ $# -lt 1 ] || [ $# -gt 3 ] || [ "$1" = --help ]; then
  sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'
  [ $# -ge 1 ] && [ "$1" = --help ] && exit 0
  exit 2
fi
in=$1
page=${2:-docs/results.md}
plot=${3:-$(dirname "$page")/results-cdf.svg}
for tool in jq gnuplot; do
  command -v $tool > /dev/null || { echo "timing-report: $tool not found (apt-get install ${tool/gnuplot/gnuplot-nox})" >&2; exit 2; }
done
[ -s "$in" ] || { echo "timing-report: $in: no results" >&2; exit 2; }
jq -e . "$in" > /dev/null 2>&1 || { echo "timing-report: $in: not JSON lines from axle verify --format json" >&2; exit 2; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
jq -s -c '.' "$in" > "$tmp/all.json"

# the figures, one "name value" per line
jq -r '
  [.[].time_ms] as $t | ($t | sort) as $s | ($t | length) as $n |
  "results \($n)",
  "under_1s \([$t[] | select(. < 1000)] | length)",
  "max_ms \($s[-1])",
  "max_rule \(max_by(.time_ms) | .rule + (if .type then " [" + .type + "]" else "" end))",
  "mean_ms \(($t | add) / $n | . * 10 | round / 10)",
  "median_ms \(if $n % 2 == 1 then $s[($n - 1) / 2] else ($s[$n / 2 - 1] + $s[$n / 2]) / 2 end)",
  "p90_ms \($s[(($n * 9 + 9) / 10 | floor) - 1])",
  "rules_verified \(group_by(.file + ":" + .rule) | map(select(all(.verdict == "verified" and (.trivial | not)))) | length)",
  "rules_under_1s \(group_by(.file + ":" + .rule) | map(select(all(.verdict == "verified" and (.trivial | not)) and ([.[].time_ms] | add) < 1000)) | length)",
  "rule_max_s \(group_by(.file + ":" + .rule) | map([.[].time_ms] | add) | max / 1000 | . * 100 | round / 100)",
  "total_s \(($t | add) / 1000 | . * 10 | round / 10)",
  "rules \([.[] | .file + ":" + .rule] | unique | length)",
  "verified \([.[] | select(.verdict == "verified" and (.trivial | not))] | length)",
  "trivial \([.[] | select(.trivial == true)] | length)",
  "single \([.[] | select(.verdict == "verified" and .single_solver == true)] | length)",
  "invalid \([.[] | select(.verdict == "invalid" or .verdict == "invalid-hint")] | length)",
  "unknown \([.[] | select(.verdict == "unknown" or .verdict == "error")] | length)",
  "met \([.[] | select(.met)] | length)",
  "cached \([.[] | select(.cached == true)] | length)",
  "solvers \([.[].solver] | unique | join(", "))",
  "files \([.[].file] | unique | length)",
  "dirs \([.[].file | sub("/[^/]*$"; "")] | unique | join(", "))"
' "$tmp/all.json" > "$tmp/figures"
fig() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$tmp/figures"; }
n=$(fig results)
# one decimal, rounded down: 988 of 991 is 99.6 %, never "100 %" while one is over
pct=$(awk -v a="$(fig under_1s)" -v b="$n" 'BEGIN { printf "%.1f", int(1000 * a / b) / 10 }')
summary="$n results ($(fig rules) rules): $(fig under_1s) under 1 s ($pct%), max $(fig max_ms) ms ($(fig max_rule)), mean $(fig mean_ms) ms, median $(fig median_ms) ms, total $(fig total_s) s"

# the CDF: sorted times against the fraction of results done within them
jq -r '[.[].time_ms] | sort | to_entries[] | "\(.value) \((.key + 1))"' "$tmp/all.json" \
  | awk -v n="$n" '{ printf "%s %.6f\n", ($1 < 0.1 ? 0.1 : $1), $2 / n }' > "$tmp/cdf.dat"
case $plot in
  *.png) term="pngcairo size 800,500" ;;
  *.svg) term="svg size 800,500 dynamic" ;;
  *) echo "timing-report: $plot: the plot must be .svg or .png" >&2; exit 2 ;;
esac
xmax=$(awk -v m="$(fig max_ms)" 'BEGIN { x = m * 2; print (x < 2000 ? 2000 : x) }')
mkdir -p "$(dirname "$page")" "$(dirname "$plot")"
gnuplot <<EOF
set terminal $term
set output "$plot"
set title "axle: cumulative distribution of verification times ($n results)"
set xlabel "time per rule and element type (ms, log scale)"
set ylabel "fraction of results verified within"
set logscale x
set xrange [*:$xmax]
set yrange [0:1.02]
set grid
set key top left
set arrow from 1000, graph 0 to 1000, graph 1 nohead dashtype 2
set label "1 s" at 1000, graph 0.05 offset 0.5,0
plot "$tmp/cdf.dat" using 1:2 with steps linewidth 2 title "$(fig solvers)"
EOF

if [ -n "$fuzz" ]; then
  jq -e '.rules and .results and .verdicts and .brute' "$fuzz" > /dev/null 2>&1 ||
    { echo "timing-report: $fuzz: not the --stats JSON of tools/verdict-fuzz.sh" >&2; exit 2; }
fi

{
  echo "# Verification results"
  echo
  echo "Generated by \`tools/timing-report.sh\` from \`axle verify --format json\` output"
  echo "(solver: $(fig solvers)) on $(fig files) files in $(fig dirs)."
  echo "One row per rule and element type; times are wall-clock milliseconds of the whole"
  echo "verification (bound inference, every rank instance)."
  [ -n "$run" ] && echo "Run: $run."
  [ "$(fig cached)" != 0 ] && echo "$(fig cached) results came from the result cache; their time is that of the verification that stored them."
  echo
  echo "**$summary.** Verdicts: $(fig verified) verified ($(fig single) of them by one solver alone), $(fig invalid) invalid, $(fig unknown) unknown, $(fig trivial) trivial; $(fig met) of $n as expected."
  echo
  echo "Rules verified for every element type: $(fig rules_verified) of $(fig rules);" \
    "$(fig rules_under_1s) of them in under 1 s (all their element types together). p50 $(fig median_ms) ms, p90 $(fig p90_ms) ms per result$([ -n "$wall" ] && echo "; wall-clock time of the run: $wall s")."
  echo
  echo "How the solving is made fast, and why each shortcut is sound: [semantics.md](semantics.md),"
  echo "\"Shortcuts in solving, and why each is sound\"."
  echo
  if [ "$(fig dirs)" = rules/xla ]; then
    echo "Side by side with TensorRight's published figures (POPL'25, an i9-13900K; its 118 rules,"
    echo "without the generalized FoldConvInputPad, which this corpus adds as a 119th rule):"
    echo
    echo "| | TensorRight | axle (this run) |"
    echo "|---|---|---|"
    echo "| rules verified | 115 of 118 | $(fig rules_verified) of $(fig rules) |"
    echo "| verified rules under 1 s | 108 of 115 | $(fig rules_under_1s) of $(fig rules_verified) |"
    echo "| slowest rule (all its element types) | 23.33 s | $(fig rule_max_s) s |"
    echo
  fi
  # the comparison with TensorRight rule by rule, from the rules' `# tensorright:` tags
  if jq -e 'map(select(.file | startswith("rules/xla/"))) | length > 0' "$tmp/all.json" > /dev/null; then
    jq -c '.[] | select(.file | startswith("rules/xla/"))' "$tmp/all.json" > "$tmp/xla.json"
    "$(dirname "$0")/tensorright-table.sh" "$tmp/xla.json" && echo
  fi
  if [ -n "$ieee" ]; then   # which of them hold in floating point (--numbers ieee)
    "$(dirname "$0")/ieee-table.sh" "$ieee" $ieee_wall && echo
  fi
  # Trinity's rules (rules/trinity, rules/trinity-mutants): their own page, docs/trinity.md
  if jq -e 'map(select(.file | startswith("rules/trinity"))) | length > 0' "$tmp/all.json" > /dev/null; then
    echo "## Trinity's rules"
    echo
    jq -r '[.[] | select(.file | startswith("rules/trinity/"))] as $r |
           [.[] | select(.file | startswith("rules/trinity-mutants/"))] as $m |
           "rules/trinity states the rewrite rules of Trinity (ASPLOS'"'"'26) that axle can state, " +
           "rules/trinity-mutants their wrong twins: \($r | length) and \($m | length) results, " +
           "\([$r[], $m[] | select(.met)] | length) of \(($r + $m) | length) as expected " +
           "(\([$r[] | select(.verdict == "invalid")] | length) of the first are INVALID on purpose: " +
           "Trinity'"'"'s rules that are wrong). Rule by rule, with counterexamples and the rules that " +
           "cannot be stated: [trinity.md](trinity.md)."' "$tmp/all.json"
    echo
  fi
  # the XLA rules beyond TensorRight's corpus, from the rules' `# xla-extra:` tags
  if jq -e 'map(select(.file | startswith("rules/xla-extra/"))) | length > 0' "$tmp/all.json" > /dev/null; then
    jq -c '.[] | select((.file | startswith("rules/xla-extra/")) or (.file | startswith("rules/xla/")))' \
      "$tmp/all.json" > "$tmp/extra.json"
    "$(dirname "$0")/xla-extra-table.sh" "$tmp/extra.json" && echo
  fi
  if [ "$(fig met)" != "$n" ]; then
    echo "Not as expected:"
    echo
    jq -r '.[] | select(.met | not) | "* `\(.rule)`\(if .type then " [" + .type + "]" else "" end): \(.verdict) (expected \(.expected)) -- \(.reason // "no reason recorded")"' "$tmp/all.json"
    echo
  fi
  echo "![cumulative distribution of verification times]($(basename "$plot"))"
  echo
  echo "| category | rule | type | verdict | expected | bounds | instances | queries | time (ms) | confirmed by |"
  echo "|---|---|---|---|---|---|---:|---:|---:|---|"
  jq -r '.[] | "| \(.file | sub(".*/"; "") | sub("\\.axl$"; "")) | `\(.rule)` (\(.file):\(.line)) | \(.type // "-") | \(.verdict)\(if .vacuous then " (vacuous)" elif .trivial then " (trivial)" else "" end)\(if .met then "" else " **not met**" end) | \(.expected) | \(.bounds | to_entries | map("\(.key)=\(.value)") | join(", ") | if . == "" then "-" else . end) | \(.instances) | \(.queries) | \(.time_ms) | \(if (.confirmed_by // []) | length > 0 then .confirmed_by | join("+") else .solver end) |"' "$tmp/all.json"
  if [ -n "$fuzz" ]; then   # the figures of a verdict-fuzzer run
    echo
    echo "## Verdict fuzzing"
    echo
    jq -r '
      def n: tostring | if length > 3 then .[:-3] + "," + .[-3:] else . end;
      def c($o; $k): ($o[$k] // 0) | n;
      "`\(.command)` (tools/verdict-fuzz.py; how it works: [architecture.md](architecture.md), " +
      "\"The verdict fuzzer\"), \(.date), \(.machine): \(.rules | n) rules generated " +
      "(\(.mutants | n) of them corpus mutants), \(.well_formed | n) well-formed, " +
      "\(.ill_formed | n) ill-formed and discarded; \(.results | n) results (rule × element type): " +
      "\(c(.verdicts; "verified")) VERIFIED, \(c(.verdicts; "invalid")) INVALID, " +
      "\(c(.verdicts; "invalid-hint")) INVALID-HINT, \(c(.verdicts; "unknown")) UNKNOWN, " +
      "\(c(.verdicts; "error")) ERROR. Brute force refuted \(c(.brute; "refuted")) and found no " +
      "counterexample in \(c(.brute; "none")); \(c(.replays; "reproduced")) of the " +
      "\(c(.verdicts; "invalid")) INVALID counterexamples were reproduced by `axle brute --instance`." +
      (if .hints then " Reductions with hints, by kind of hint and verdict: " +
        ([.hints | to_entries[] | "\(.key) \(.value | n)"] | join(", ")) + "." else "" end) +
      (if .shards then " Shard/merge round trips: \(.shards.trips | n), every one as the unsharded " +
        "run; tampered merges refused: \(.shards.tampered_refused | n)." else "" end) +
      " **\(.discrepancies | n) discrepancies.**" +
      (if (.kinds | length) > 0 then " By kind: " + ([.kinds | to_entries[] | "\(.key) \(.value)"] | join(", ")) + "." else "" end)
    ' "$fuzz" | fold -s -w 95 | sed 's/ *$//'
  fi
} > "$page"

echo "$summary"
echo "timing-report: wrote $page and $plot"
