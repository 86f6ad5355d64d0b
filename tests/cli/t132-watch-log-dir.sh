#!/usr/bin/env bash
# nccl-doctor watch --log-dir DIR under root: DIR must be the invoking
# user's and not writable by group or others, no directory above it someone
# else's (they could replace it with a link that root's NCCL follows:
# NCCL_DEBUG_FILE=DIR/nccl.%h.%p); a missing DIR is made 0700; what DIR held
# before the start is not read (a planted or old log is not "the first
# failure" of this job); only regular files of the job's user are read;
# more than 512 files are no longer silently cut (4096 are followed, the
# rest said in the diagnosis).
. "$(dirname "$0")/lib.sh"
other_user
export TMPDIR="$ND_TMP"
# rank lines of one process (HOST PID RANK): a rank that stopped in bootstrap (T1)
rank_lines() {
  echo "$1:$2:$2 [$3] NCCL INFO cudaDriverVersion 13000"
  echo "$1:$2:$2 [$3] NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>"
  echo "$1:$2:$2 [$3] NCCL INFO NCCL version 2.28.9+cuda13.0"
}
# the job: writes its own NCCL file into the log directory, then waits
cat >"$ND_TMP/job.sh" <<'JOB'
dir=${NCCL_DEBUG_FILE%/*}
{ echo "node1:1000:1000 [0] NCCL INFO cudaDriverVersion 13000"
  echo "node1:1000:1000 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>"
  echo "node1:1000:1000 [0] NCCL INFO NCCL version 2.28.9+cuda13.0"; } >"$dir/nccl.node1.1000"
echo "job: started"
sleep 30
JOB
watch_dir() { # DIR ARGS...: a stalled job watched with --log-dir DIR, stopped at the stall
  local d=$1; shift
  OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
  timeout -k 5 60 "$ND_BIN" watch --stall 1 --on-stall kill --log-dir "$d" "$@" >"$OUT" 2>"$ERR" </dev/null
  RC=$?
}

# 1. refused directories: someone else's, group-writable, a link, inside a
# directory of someone else
mkdir "$OTHER_DIR/logs" && chown "$OTHER" "$OTHER_DIR/logs" && chmod 0700 "$OTHER_DIR/logs"
run_nd watch --log-dir "$OTHER_DIR/logs" -- sh -c 'echo job ran'
expect_rc 3 "a log directory of another user is refused"
expect_err "cannot use '$OTHER_DIR/logs' as the log directory: '$OTHER_DIR/logs' belongs to $OTHER, not to you" "it says whose it is"
expect_no_out 'job ran' "the job did not start"
mkdir -m 0775 "$ND_TMP/gw"
run_nd watch --log-dir "$ND_TMP/gw" -- true
expect_rc 3 "a group-writable log directory is refused"
expect_err "'$ND_TMP/gw' is writable by group or others \\(mode 0775\\)" "it says so"
mkdir -m 0700 "$ND_TMP/mine"
ln -s "$ND_TMP/mine" "$ND_TMP/link"
run_nd watch --log-dir "$ND_TMP/link" -- true
expect_rc 3 "a symbolic link as the log directory is refused"
expect_err "'$ND_TMP/link' is a symbolic link" "it says so"
run_nd watch --log-dir "$ND_TMP/link/" -- true
expect_rc 3 "also written with a final slash"
mkdir -m 0700 "$OTHER_DIR/rootlogs"
run_nd watch --log-dir "$OTHER_DIR/rootlogs" -- true
expect_rc 3 "a directory of ours inside another user's is refused"
expect_err "'$OTHER_DIR' belongs to $OTHER, who could replace what is in it" "it names the directory above"
run_nd watch --log-dir "$OTHER_DIR/new" -- true
expect_rc 3 "nor is one made there"
if [ -e "$OTHER_DIR/new" ]; then not_ok "it was made"; else ok "nothing made in the other user's directory"; fi

# 2. a missing directory is made 0700 and kept; the job's NCCL file read
watch_dir "$ND_TMP/made" -- sh "$ND_TMP/job.sh"
expect_rc 143 "a log directory that did not exist: the job ran"
if [ "$(stat -c '%a %U' "$ND_TMP/made")" = "700 root" ]; then ok "made 0700, ours"; else not_ok "made as $(stat -c '%a %U' "$ND_TMP/made")"; fi
[ -f "$ND_TMP/made/nccl.node1.1000" ] && ok "kept after the run" || not_ok "the job's file is gone"
expect_err 'node1:1000 .*T1' "the job's own NCCL file is read"

# 3. a stale log planted in our own directory is not read; the job's is
mkdir -m 0700 "$ND_TMP/stale"
rank_lines node9 4242 0 >"$ND_TMP/stale/nccl.node9.4242"
watch_dir "$ND_TMP/stale" -- sh "$ND_TMP/job.sh"
expect_rc 143 "a directory with an old file: the job ran"
expect_err 'node1:1000 .*T1' "the job's own file is read"
if grep -q 'node9:4242' "$ERR"; then not_ok "the stale file of node9:4242 was read"; else ok "the file from before the start is not read"; fi
expect_err "1 file that '$ND_TMP/stale' held before the job started was not read \\(stale\\)" "the diagnosis says so"

# 4. a file of another user (or a link) in the directory is not read
mkdir -m 0700 "$ND_TMP/foreign"
cat >"$ND_TMP/job-foreign.sh" <<JOB
dir=\${NCCL_DEBUG_FILE%/*}
printf '%s\n' "node7:77:77 [0] NCCL INFO cudaDriverVersion 13000" "node7:77:77 [0] NCCL INFO NCCL version 2.28.9+cuda13.0" >"\$dir/nccl.node7.77"
chown $OTHER "\$dir/nccl.node7.77"
ln -s "$ND_TMP/stale/nccl.node9.4242" "\$dir/nccl.node9.4242"
sh "$ND_TMP/job.sh"
JOB
watch_dir "$ND_TMP/foreign" -- sh "$ND_TMP/job-foreign.sh"
expect_rc 143 "files of another user in the directory: the job ran"
expect_err 'node1:1000 .*T1' "the job's own file is read"
if grep -q 'node7:77' "$ERR"; then not_ok "a file of $OTHER was read"; else ok "a file of another user is not read"; fi
if grep -q 'node9:4242' "$ERR"; then not_ok "a link was followed"; else ok "a link is not followed"; fi
expect_err "2 entries of '$ND_TMP/foreign' were not read: not a regular file of the job's user \\(uid 0\\)" "the diagnosis says so"

# 5. more than 512 files: the job's NCCL file written after 600 others is
# still read (it was silently left out); the job says how far it got (no
# stall while it makes them, on a loaded machine)
cat >"$ND_TMP/job-many.sh" <<JOB
dir=\${NCCL_DEBUG_FILE%/*}
i=0; while [ \$i -lt 600 ]; do : >"\$dir/pad.\$i"; i=\$((i + 1)); [ \$((i % 100)) = 0 ] && echo "\$i files"; done
sleep 1.5
exec sh "$ND_TMP/job.sh"
JOB
watch_dir "$ND_TMP/many" --stall 3 -- sh "$ND_TMP/job-many.sh"
expect_rc 143 "600 files: the job ran"
expect_err 'node1:1000 .*T1' "the NCCL file written after 600 others is read"

# 6. past 4096 files: what is left out is said
cat >"$ND_TMP/job-more.sh" <<'JOB'
dir=${NCCL_DEBUG_FILE%/*}
i=0; while [ $i -lt 4100 ]; do : >"$dir/pad.$i"; i=$((i + 1)); [ $((i % 100)) = 0 ] && echo "$i files"; done
sleep 30
JOB
watch_dir "$ND_TMP/more" --stall 2 -- sh "$ND_TMP/job-more.sh"
expect_rc 143 "4100 files: the job ran"
expect_err "[0-9]+ NCCL log files? past the first 4096 of '$ND_TMP/more' (was|were) not read" "the diagnosis says files were left out"
finish
