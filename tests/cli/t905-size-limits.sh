#!/bin/bash
# Size limits of the house (issue 9): no .c file in src/ over 900 lines, no
# function over 150 lines. A function is a top-level body: from the line
# that names it (the one before a "{" in column 0) to its "}" in column 0,
# both counted. The scan is plain brace-by-column, which is how every file
# here is formatted; a file it cannot read as such fails the test.
. "$(dirname "$0")/lib.sh"
SRC="${ND_SRC:?ND_SRC must name the source tree}/src"
MAX_FILE=900
MAX_FUNC=150
# Files exempt from the limits (none: keep it so)
EXEMPT=""

is_exempt() { case " $EXEMPT " in *" $1 "*) return 0 ;; esac; return 1; }

# scan FILE: one line per function over MAX_FUNC lines, "NAME:START-END N",
# and "UNBALANCED" when a body opened in column 0 is not closed in column 0
scan() {
  awk -v max="$MAX_FUNC" '
    function fname(h,   m) {
      gsub(/\(.*/, "", h); m = split(h, w, /[ *\t]+/); return w[m]
    }
    /^\{/ && !inbody { inbody = 1; start = hdrline ? hdrline : NR; name = fname(hdr); next }
    /^\}/ && inbody { inbody = 0; len = NR - start + 1
      if (len > max) printf "%s:%d-%d %d\n", name, start, NR, len
      hdr = ""; hdrline = 0; next }
    !inbody {
      if ($0 ~ /^[A-Za-z_].*\(/ && $0 !~ /;[ \t]*$/) { hdr = $0; hdrline = NR }
      else if ($0 ~ /^[ \t]*$/ || $0 ~ /^#/ || $0 ~ /;[ \t]*$/) { hdr = ""; hdrline = 0 }
    }
    END { if (inbody) print "UNBALANCED" }' "$1"
}

nfiles=0
while IFS= read -r f; do
  rel=${f#"$SRC"/}
  nfiles=$((nfiles + 1))
  if is_exempt "$rel"; then echo "# skipped $rel (exempt)"; continue; fi
  n=$(wc -l <"$f")
  if [ "$n" -gt "$MAX_FILE" ]; then not_ok "$rel has $n lines (limit $MAX_FILE)"; fi
  long=$(scan "$f")
  if [ -n "$long" ]; then
    while IFS= read -r l; do not_ok "$rel: function $l lines (limit $MAX_FUNC)"; done <<<"$long"
  fi
done < <(find "$SRC" -name '*.c' | sort)

if [ "$nfiles" -gt 0 ]; then ok "scanned $nfiles .c files"; else not_ok "no .c file found under $SRC"; fi

# the scan itself must see a long function: a file with a 151-line body fails
probe="$ND_TMP/probe.c"
{ echo "static int too_long(void)"; echo "{"; for i in $(seq 1 148); do echo "	x();"; done; echo "}"; } >"$probe"
# and one of 150 lines passes
short="$ND_TMP/short.c"
{ echo "static int short_enough(void)"; echo "{"; for i in $(seq 1 147); do echo "	x();"; done; echo "}"; } >"$short"
if [ -z "$(scan "$short")" ]; then ok "a 150-line function passes"; else not_ok "a 150-line function is reported"; fi
got=$(scan "$probe")
if [ "$got" = "too_long:1-151 151" ]; then ok "a 151-line function is caught"; else not_ok "a 151-line function is not caught"; fi
finish
