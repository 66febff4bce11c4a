#!/usr/bin/env bash
# docs/cli.md against `axle VERB --help`: for every verb, each option the help lists is
# documented in that verb's section of docs/cli.md, and each option the section documents
# is one the verb has. A verb's section is the `## ` heading that names `axle VERB` (down to
# the next `## `); what it documents: the synopsis (the code lines that start with
# `axle VERB`, and their indented continuations), the first cell of its option tables
# (`| `--name ...` |`) and the bullets that open with an option (`* `--name``). A synopsis
# "[the options of axle OTHER]" documents OTHER's options.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
doc=docs/cli.md
verbs="check fmt verify gate brute equiv mugraph cost superopt cuda emulate import mpk optimize"

# section VERB: the lines of VERB's section of docs/cli.md
section() {
  awk -v v="\`axle $1\`" '/^## / { on = index($0, v) > 0; next } on' "$doc"
}

# documented VERB: the options VERB's section documents, one a line
documented() {
  section "$1" | awk -v verb="$1" '
    function opts(s) { while (match(s, /--[a-z0-9][a-z0-9-]*/)) { print substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH) } }
    /^```/ { code = !code; syn = 0; next }
    code && index($0, "axle " verb " ") == 1 { syn = 1; if (match($0, /the options of axle [a-z]+/)) print "@" substr($0, RSTART + 20, RLENGTH - 20); opts($0); next }
    code && syn && /^[ \t]/ { opts($0); next }
    code { syn = 0; next }
    /^\| *`--/ { split($0, cell, "|"); opts(cell[2]); next }
    /^\* `--/ { match($0, /^\* (`--[^`]*`[ ,or]*)+/); opts(substr($0, 1, RLENGTH)) }
  ' | sort -u
}

for verb in $verbs; do
  "$AXLE" "$verb" --help >"$tmp/help" 2>&1
  # the option lines of the help: "  --name META  text" or "  -c, --name ..."
  grep -oE -- '^  (-[a-zA-Z], )?--[a-z0-9][a-z0-9-]*' "$tmp/help" | sed 's/.*--/--/' | sort -u \
    >"$tmp/$verb.help"
  check "$verb: docs/cli.md has a section for axle $verb" [ -n "$(section "$verb")" ]
  documented "$verb" >"$tmp/$verb.doc"
done
for verb in $verbs; do   # "[the options of axle OTHER]"
  for other in $(sed -n 's/^@//p' "$tmp/$verb.doc"); do
    cat "$tmp/$other.doc" >>"$tmp/$verb.doc"
  done
  grep -v '^@' "$tmp/$verb.doc" | sort -u >"$tmp/$verb.d"
  check "$verb: the help lists options" [ -s "$tmp/$verb.help" ]
  while read -r o; do
    check "axle $verb --help lists $o: documented in docs/cli.md, section of axle $verb" \
      grep -qxF -- "$o" "$tmp/$verb.d"
  done <"$tmp/$verb.help"
  while read -r o; do
    check "docs/cli.md documents $o for axle $verb: axle $verb --help lists it" \
      grep -qxF -- "$o" "$tmp/$verb.help"
  done <"$tmp/$verb.d"
done

echo "e2e/cli_docs: $pass passed, $fail failed"
[ "$fail" = 0 ]
