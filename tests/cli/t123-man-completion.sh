#!/usr/bin/env bash
# The man page and the bash and zsh completion the build generates
# (tools/gen-docs.sh, target nd-docs) are the binary's own: a section per
# command of --help, groff finds nothing to warn about, and bash itself
# completes the commands and each command's options (its option table,
# NCCL_DOCTOR_DEBUG_OPTIONS=1), global options before the command too.
. "$(dirname "$0")/lib.sh"
: "${ND_BUILD:?}" "${ND_SRC:?}"
gen=$ND_BUILD/docs-gen
[ -f "$gen/nccl-doctor.1" ] || { echo "no $gen/nccl-doctor.1 (NCCL_DOCTOR_DOCS off): skipped"; exit 77; }

run_nd --help
cmds=$(awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' "$OUT")
[ "$(echo "$cmds" | wc -w)" -ge 10 ] && ok "--help lists $(echo $cmds | wc -w) commands" || not_ok "--help lists few commands: $cmds"
miss=""
for c in $cmds; do grep -qx ".SH \"COMMAND $(echo "$c" | tr a-z A-Z)\"" "$gen/nccl-doctor.1" || miss="$miss $c"; done
[ -z "$miss" ] && ok "the man page has a section per command" || not_ok "no man section for:$miss"
if command -v groff >/dev/null; then
  groff -man -Tutf8 -ww -z "$gen/nccl-doctor.1" >"$ND_TMP/groff" 2>&1
  [ ! -s "$ND_TMP/groff" ] && ok "groff -ww: no warnings" || { not_ok "groff warns"; head -5 "$ND_TMP/groff"; }
fi

# One bash reads the completion and answers each line of queries: the
# words offered for the last word of the line (a trailing space: an empty
# last word), as one line "LINE<TAB>WORD WORD ...".
{
  echo "nccl-doctor ch"; echo "nccl-doctor --json sy"; echo "nccl-doctor sys --sys"
  echo "nccl-doctor bench --pro"; echo "nccl-doctor help p"; echo "nccl-doctor "
  echo "nccl-doctor watch -- ls -"
  for c in $cmds; do echo "nccl-doctor $c -"; done
} >"$ND_TMP/queries"
bash --norc --noprofile -c '
  . "$1"
  while IFS= read -r line; do
    read -ra COMP_WORDS <<<"$line"; [[ $line == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE=$line; COMP_POINT=${#line}; COMPREPLY=()
    _nccl_doctor; printf "%s\t%s\n" "$line" "${COMPREPLY[*]}"
  done' _ "$gen/nccl-doctor.bash" <"$ND_TMP/queries" >"$ND_TMP/answers"
sh=bash
offers() { awk -F'\t' -v l="$1" '$1 == l { print $2 }' "$ND_TMP/answers"; }
want() { # LINE WORD...: every WORD is offered
  local got miss="" w; got=" $(offers "$1") "
  for w in "${@:2}"; do [[ $got == *" $w "* ]] || miss="$miss $w"; done
  [ -z "$miss" ] && ok "$sh: '$1' offers ${*:2}" || not_ok "$sh: '$1' lacks$miss (offers:$got)"
}
want "nccl-doctor ch" check
want "nccl-doctor --json sy" sys
want "nccl-doctor sys --sys" --sysroot
want "nccl-doctor bench --pro" --procs --progress
want "nccl-doctor help p" p2p
[ "$(offers "nccl-doctor ch")" = check ] && ok "'nccl-doctor ch' offers check alone" || not_ok "'nccl-doctor ch' offers: $(offers "nccl-doctor ch")"
[ "$(offers "nccl-doctor ")" = "$(echo $cmds help)" ] && ok "'nccl-doctor ' offers every command and help" || not_ok "'nccl-doctor ' offers: $(offers "nccl-doctor ")"
[ -z "$(offers "nccl-doctor watch -- ls -")" ] && ok "after watch's '--' the job's words are its own" || not_ok "after '--' offers: $(offers "nccl-doctor watch -- ls -")"
# each command's whole option table, as the parser prints it
miss=""
for c in $cmds; do
  NCCL_DOCTOR_DEBUG_OPTIONS=1 "$ND_BIN" "$c" --help 2>&1 >/dev/null | sed -n "s/^nccl-doctor\(: global\| $c:\) options: //p" >"$ND_TMP/table"
  [ -s "$ND_TMP/table" ] || miss="$miss $c:(no table)"
  got=" $(offers "nccl-doctor $c -") "
  for o in $(cat "$ND_TMP/table"); do [[ $got == *" $o "* ]] || miss="$miss $c:$o"; done
done
[ -z "$miss" ] && ok "every command completes every option of its table and the global ones" || not_ok "not completed:$miss"
# zsh: the completion function with zsh's completion builtins stubbed to
# print what they are given (compadd -a ARRAY, _describe TAG ARRAY, _files,
# _normal): the words it offers for each line of queries
if command -v zsh >/dev/null; then
  zsh -n "$gen/_nccl-doctor" 2>"$ND_TMP/zsh" && ok "zsh reads the zsh completion" || { not_ok "zsh -n fails"; head -3 "$ND_TMP/zsh"; }
  printf '%s\n' "nccl-doctor ch" "nccl-doctor --json sy" "nccl-doctor sys --sys" "nccl-doctor bench -" \
    "nccl-doctor watch -- ls -" "nccl-doctor sys x" | zsh -f -c '
    compadd() { [[ $1 == -a ]] && print -l -- ${(P)2} }
    _describe() { print -l -- ${${(P)2}%%:*} }
    _files() { print FILES }
    _normal() { print NORMAL }
    while IFS= read -r line; do
      words=(${=line}); [[ $line == *" " ]] && words+=("")
      CURRENT=${#words}; PREFIX=${words[CURRENT]}
      print -r -- "$line"$'"'"'\t'"'"'"$(source $1 | tr "\n" " " | sed "s/ \$//")"
    done' _ "$gen/_nccl-doctor" >"$ND_TMP/answers" 2>"$ND_TMP/zsh"
  sh=zsh
  want "nccl-doctor ch" check
  want "nccl-doctor --json sy" sys
  want "nccl-doctor sys --sys" --sysroot
  want "nccl-doctor bench -" --procs --progress -b
  [ "$(offers "nccl-doctor watch -- ls -")" = NORMAL ] && ok "zsh: after watch's '--' the job's own completion" || not_ok "zsh: after '--': $(offers "nccl-doctor watch -- ls -")"
  [ "$(offers "nccl-doctor sys x")" = FILES ] && ok "zsh: a command's argument is a file" || not_ok "zsh: 'sys x': $(offers "nccl-doctor sys x")"
fi
finish
