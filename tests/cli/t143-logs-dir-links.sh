#!/usr/bin/env bash
# logs DIR counts each file once: a link to the directory itself or to its
# parent (a loop) is not followed (it was, once per level: each file three
# times), a link to a file and a hard link are one file, and so is a file
# named twice; a link to a directory elsewhere is not followed during a walk
# (its files are read when that directory is named).
. "$(dirname "$0")/lib.sh"
H="$ND_FIXTURES/logs/real-h200-2rank/healthy"
D="$ND_TMP/logs"; mkdir -p "$D/sub" "$ND_TMP/elsewhere"
cp "$H/nccl.0.log" "$D/a.log"; cp "$H/nccl.1.log" "$D/sub/b.log"
ln -s . "$D/loop"; ln -s .. "$D/sub/up"; ln -s a.log "$D/link.log"; ln "$D/a.log" "$D/hard.log"
cp "$H/nccl.0.log" "$ND_TMP/elsewhere/c.log"; ln -s "$ND_TMP/elsewhere" "$D/away"

run_nd logs "$D"
expect_rc 0 "a directory with link loops"
expect_out '^NCCL logs: 2 files, 2 processes' "two files read, each once"
run_nd --json logs "$D"
json_check '[f["file"] for f in d["facts"]["inputs"]["files"]] == ["'"$D"'/a.log", "'"$D"'/sub/b.log"]' "--json: a.log and sub/b.log, each once"
json_check 'len(d["ranks"]) == 2 and len(set((r["host"], r["pid"]) for r in d["ranks"])) == 2' "--json: two ranks, none twice"
run_nd logs "$D/a.log" "$D/a.log" "$D/link.log"
expect_out '^NCCL logs: 1 file, 1 process' "one file named three ways is read once"
run_nd logs "$D/away"
expect_out '^NCCL logs: 1 file, 1 process' "a linked directory named itself is read"
finish
