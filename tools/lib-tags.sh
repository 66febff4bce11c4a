# lib-tags.sh — sourced by the rule-table tools (tensorright-, xla-extra-, trinity-table.sh):
# their common input checks and the one tag reader (tools/tags.awk).

# tags_inputs PROG RESULTS DIR...: jq on PATH, every DIR a directory, RESULTS non-empty JSON
# lines, at least one .axl file in the DIRs; sets the array `files` to those files. Exits 2,
# saying why as "PROG: ...", otherwise.
tags_inputs() {
  local prog=$1 in=$2 d
  shift 2
  command -v jq > /dev/null || { echo "$prog: jq not found (apt-get install jq)" >&2; exit 2; }
  for d; do [ -d "$d" ] || { echo "$prog: $d: not a directory" >&2; exit 2; }; done
  [ -s "$in" ] || { echo "$prog: $in: no results" >&2; exit 2; }
  jq -e . "$in" > /dev/null 2>&1 ||
    { echo "$prog: $in: not JSON lines from axle verify --format json" >&2; exit 2; }
  shopt -s nullglob
  files=()
  for d; do files+=("$d"/*.axl); done
  [ ${#files[@]} -gt 0 ] || { echo "$prog: $([ $# -eq 1 ] && echo "$1: ")no .axl files" >&2; exit 2; }
}

# tags_read PROG TAG FORM CHECK_AWK: the tags `# TAG: FORM` of the rules in `files`, one
# line per rule, as tools/tags.awk prints them (CHECK_AWK defines the tool's tag_fields);
# its messages on standard error, its status (2 on any problem).
tags_read() {
  LC_ALL=C awk -v prog="$1" -v tag="$2" -v form="$3" -f "$(dirname "${BASH_SOURCE[0]}")/tags.awk" -f "$4" "${files[@]}"
}
