#!/usr/bin/env bash
# nccl-doctor watch --user NAME runs the job as NAME (root only): its uid,
# gid and groups, HOME, USER and LOGNAME; the private log directory is given
# to it (still 0700) and removed at exit; a --log-dir must then be NAME's.
# Without --user the job runs as watch does (root under sudo).
. "$(dirname "$0")/lib.sh"
other_user
export TMPDIR="$ND_TMP"
cd "$ND_TMP" || exit 1 # a working directory the other user may enter

# 1. the job as the other user
run_nd watch --user "$OTHER" -- sh -c 'id -u; id -g; echo "home=$HOME user=$USER logname=$LOGNAME"; d=${NCCL_DEBUG_FILE%/*}; touch "$d/probe" && echo writable; stat -c "%a %u" "$d"'
expect_rc 0 "--user: the job ran"
expect_out "^$OTHER_UID\$" "its uid is the other user's"
expect_out "^$(id -g "$OTHER")\$" "its gid too"
expect_out "^home=/nonexistent user=$OTHER logname=$OTHER\$" "HOME, USER and LOGNAME are the user's"
expect_out '^writable$' "the private log directory is writable by the job"
expect_out "^700 $OTHER_UID\$" "and stays 0700, given to the user"
left=$(ls -d "$ND_TMP"/nccl-doctor-watch.* 2>/dev/null | wc -l)
if [ "$left" -eq 0 ]; then ok "the private log directory is removed at exit"; else not_ok "$left log directories left"; fi

# 2. without --user the job runs as watch
run_nd watch -- id -u
expect_out '^0$' "without --user: as root"

# 3. refusals
run_nd watch --user nd-no-such-user-x -- true
expect_rc 64 "an unknown user is a usage error"
expect_err "--user: no user 'nd-no-such-user-x' on this machine" "it says so"
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
as_other "$ND_BIN" watch --user root -- true >"$OUT" 2>"$ERR" </dev/null; RC=$?
expect_rc 3 "--user needs root"
expect_err "--user root needs root: watch runs as uid $OTHER_UID" "it says so"
mkdir -m 0700 "$ND_TMP/rootlogs"
run_nd watch --user "$OTHER" --log-dir "$ND_TMP/rootlogs" -- true
expect_rc 3 "a --log-dir the job's user cannot write is refused"
expect_err "it belongs to uid 0 and the job runs as $OTHER" "it says so"

# 4. a --log-dir of the job's user: accepted, the job's NCCL file read
mkdir -m 0700 "$OTHER_DIR/logs" && chown "$OTHER" "$OTHER_DIR/logs"
cat >"$ND_TMP/job.sh" <<'JOB'
dir=${NCCL_DEBUG_FILE%/*}
{ echo "node1:1000:1000 [0] NCCL INFO cudaDriverVersion 13000"
  echo "node1:1000:1000 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>"
  echo "node1:1000:1000 [0] NCCL INFO NCCL version 2.28.9+cuda13.0"; } >"$dir/nccl.node1.1000"
sleep 30
JOB
chmod 0644 "$ND_TMP/job.sh"
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
timeout -k 5 60 "$ND_BIN" watch --user "$OTHER" --stall 1 --on-stall kill --log-dir "$OTHER_DIR/logs" -- sh "$ND_TMP/job.sh" >"$OUT" 2>"$ERR" </dev/null
RC=$?
expect_rc 143 "--user with a --log-dir of that user: the job ran"
expect_err 'node1:1000 .*T1' "the NCCL file the job wrote as the user is read"
if [ "$(stat -c %U "$OTHER_DIR/logs/nccl.node1.1000" 2>/dev/null)" = "$OTHER" ]; then ok "written as the user"; else not_ok "not written as the user"; fi
finish
