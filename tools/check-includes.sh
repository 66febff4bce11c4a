#!/usr/bin/env bash
# check-includes.sh [ROOT] — every project include ("folder/file.h") must point down the
# pipeline: a folder may include its own headers and those of the folders before it in
# LAYERS, never one after it (docs/architecture.md draws the picture). Also refused: an
# include of a project header that does not exist. Prints one located line per violation,
# "FILE:LINE: 'smt' may not include 'verifier/cex.h' (smt comes before verifier)", and exits 1
# if there is any; exit 0 and a one-line summary otherwise. tests/ may include anything.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
LAYERS=(base dsl semantics smt verifier run superopt gpu cli)

rank_of() {
  local i
  for i in "${!LAYERS[@]}"; do
    [[ ${LAYERS[$i]} == "$1" ]] && { echo "$i"; return; }
  done
  echo -1
}

bad=0 files=0 includes=0
for layer in "${LAYERS[@]}"; do
  [[ -d $root/$layer ]] || { echo "$root/$layer: missing folder (LAYERS is out of date)"; bad=1; continue; }
  mine=$(rank_of "$layer")
  while IFS= read -r -d '' f; do
    files=$((files + 1))
    while IFS=: read -r line target; do
      includes=$((includes + 1))
      folder=${target%%/*}
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
if (( bad )); then
  exit 1
fi
echo "includes: $includes project includes in $files files, all down the pipeline (${LAYERS[*]})"
