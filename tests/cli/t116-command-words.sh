#!/usr/bin/env bash
# Advice must be followable: every `nccl-doctor WORD` in the texts the tool
# prints (src/: finding catalog, explain, fixes, help) names a command of the
# table in src/main.c, or is one of the few English verbs that follow the
# tool's name in prose ("nccl-doctor reads ...").
. "$(dirname "$0")/lib.sh"
cmds=$(sed -n 's/^\t{ "\([a-z0-9_]*\)", cmd_.*/\1/p' "$ND_SRC/src/main.c" | tr '\n' ' ')
prose="uses reads does needs itself can was with"
bad=0
while read -r word; do
  case " $cmds $prose " in
    *" $word "*) ;;
    *) not_ok "'nccl-doctor $word' is not a command"; grep -rn "nccl-doctor $word" "$ND_SRC/src" | head -3 | sed 's/^/    /'; bad=1 ;;
  esac
done < <(grep -rhoE "nccl-doctor [a-z_][a-z0-9_-]*" "$ND_SRC/src" | awk '{print $2}' | sort -u)
[ $bad -eq 0 ] && ok "every 'nccl-doctor WORD' in src/ is a command ($(grep -rhoE 'nccl-doctor [a-z_]+' "$ND_SRC/src" | wc -l) mentions)"
# and the command words of the help text are the table's
run_nd --help
for c in $cmds; do
  case $c in __*) continue ;; esac
  expect_out "^  $c " "--help lists $c"
done
finish
