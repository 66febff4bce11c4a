#!/usr/bin/env bash
# check-includes.sh [ROOT] — every project include ("folder/file.h") must point down the
# pipeline: a layer may include its own headers and those of the layers before it in
# LAYERS, never one after it (docs/architecture.md draws the picture). A layer is a folder
# or a sub-folder (superopt/ir); a header belongs to the deepest layer its path is in. Also
# refused: an include of a project header that does not exist. Prints one located line per
# violation, "FILE:LINE: 'smt' may not include 'verifier/cex.h' (smt comes before
# verifier)", and exits 1 if there is any; so does a cycle between modules (one .c/.h pair
# including, through any path, its own header) in any layer. Exit 0 and a one-line summary
# otherwise. tests/ may include anything.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
LAYERS=(base egraph dsl hlo semantics smt verifier run
        superopt/arith superopt/ir superopt/equiv superopt/cost superopt/search superopt/eqsat
        gpu mpk cli)

rank_of() {
  local i
  for i in "${!LAYERS[@]}"; do
    [[ ${LAYERS[$i]} == "$1" ]] && { echo "$i"; return; }
  done
  echo -1
}

# The layer of an included path: its folder, or the folder above it if that is no layer
# ("superopt/ir/tensor.h" -> superopt/ir, "gpu/emu/x.h" -> gpu).
layer_of() {
  local dir=${1%/*}
  while [[ $dir == */* ]] && (( $(rank_of "$dir") < 0 )); do dir=${dir%/*}; done
  echo "$dir"
}

bad=0 files=0 includes=0
for layer in "${LAYERS[@]}"; do
  [[ -d $root/$layer ]] || { echo "$root/$layer: missing folder (LAYERS is out of date)"; bad=1; continue; }
  mine=$(rank_of "$layer")
  while IFS= read -r -d '' f; do
    files=$((files + 1))
    while IFS=: read -r line target; do
      includes=$((includes + 1))
      folder=$(layer_of "$target")
      rel=${f#"$root"/}
      if [[ $target != */* ]]; then
        continue                      # same-folder generated header (parser.h, lexer.h)
      fi
      theirs=$(rank_of "$folder")
      if (( theirs < 0 )); then
        echo "$rel:$line: '$target' is not in a pipeline folder (${LAYERS[*]})"; bad=1
      elif (( theirs > mine )); then
        echo "$rel:$line: '$layer' may not include '$target' ($layer comes before $folder)"; bad=1
      elif [[ ! -f $root/$target ]]; then
        echo "$rel:$line: '$target' does not exist"; bad=1
      fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
             sed -E 's/^([0-9]+):[^"]*"([^"]*)".*/\1:\2/')
  done < <(find "$root/$layer" -type f \( -name '*.c' -o -name '*.h' -o -name '*.l' -o -name '*.y' \) \
             -not -path '*/emu/*' -print0)
done
# No cycle between modules either (a module: a .c and its .h, e.g. verifier/verify): within
# a layer the order is free, but two modules that need each other are one module in two
# files. Every include is an edge from the including module to the included one; tsort
# finds a loop if there is one.
ACYCLIC=("${LAYERS[@]}")
edges=$(for layer in "${ACYCLIC[@]}"; do
  find "$root/$layer" -type f \( -name '*.c' -o -name '*.h' \) -not -path '*/emu/*' -print0 |
    while IFS= read -r -d '' f; do
      from=${f#"$root"/}
      from=${from%.*}
      grep -h '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z]*/' "$f" |
        sed -E 's/^[^"]*"([^"]*)\.h".*/\1/' |
        while read -r to; do [[ $to != "$from" ]] && echo "$from $to"; done
    done
done)
if ! loops=$(echo "$edges" | tsort 2>&1 >/dev/null) || [[ -n $loops ]]; then
  echo "include cycle between modules:"
  echo "$loops" | sed -n 's/^tsort: //p' | grep -v 'input contains a loop' | sed 's/^/  /'
  bad=1
fi
if (( bad )); then
  exit 1
fi
echo "includes: $includes project includes in $files files, all down the pipeline (${LAYERS[*]}), no module cycle in ${ACYCLIC[*]}"
