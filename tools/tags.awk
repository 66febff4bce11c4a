# tags.awk — the one reader of the rule tags that tools/tensorright-table.sh,
# tools/xla-extra-table.sh and tools/trinity-table.sh build their tables from.
#
# Every rule of the files read carries exactly one comment line directly above its `rule`
# line, `# TAG: HEAD — REST` (an em dash between spaces). Run as
#
#   LC_ALL=C awk -v tag=TAG -v prog=PROGRAM -v form='HEAD — REST' -f tools/tags.awk -f CHECK.awk FILE...
#
# where CHECK.awk (the tool's own part) defines
#
#   function tag_fields(head, rest)
#
# which checks HEAD and REST of one tag, calling err(MESSAGE) for each problem, and returns
# the tab-separated fields to print for the rule it tags, or the value of `dropped` when the
# tag is too malformed to stand for any rule. Prints "FILE<TAB>RULE<TAB>FIELDS" per tagged
# rule (FILE without its directory). Messages go to standard error as
# "PROGRAM: FILE:LINE: MESSAGE"; the exit status is 2 after any, else 0.
BEGIN { OFS = "\t"; bad = 0; dropped = "\001"; sep_text = " — " }
function err(msg) { printf "%s: %s:%d: %s\n", prog, FILENAME, FNR, msg > "/dev/stderr"; bad = 1 }
FNR == 1 { if (tagged) err("tag at the end of the previous file"); tagged = 0 }
/^rule[ \t]/ {
  if (!tagged) err("rule " $2 " has no \"# " tag ": " form "\" line directly above it")
  else { n = split(FILENAME, p, "/"); print p[n], $2, fields }
  tagged = 0; next
}
$0 ~ ("^#[ \t]*" tag "[ \t]*:") {
  if (tagged) err("two " tag " tags in a row (one per rule)")
  line = $0; sub("^#[ \t]*" tag "[ \t]*:[ \t]*", "", line)
  sep = index(line, sep_text)
  if (sep == 0) { err("tag is not \"# " tag ": " form "\""); tagged = 0; next }
  fields = tag_fields(substr(line, 1, sep - 1), substr(line, sep + length(sep_text)))
  tagged = fields != dropped; next
}
{ if (tagged) err(tag " tag not directly above a rule line"); tagged = 0 }
END { if (tagged) err("tag at the end of the file"); exit bad ? 2 : 0 }
