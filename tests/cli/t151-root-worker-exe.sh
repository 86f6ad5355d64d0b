#!/bin/bash
# As root, ND_WORKER_EXE (a test override: the binary run as the worker) is
# used only when it names a root-owned file that nobody else can change: a
# "worker" in a directory another user owns, that leaves a marker and then
# runs the real one, is not run (the tool's own binary is, and topo still
# answers), with one line on stderr and a note in the JSON; a root-owned
# copy in a safe directory is run; as the other user their own override is
# run.
. "$(dirname "$0")/lib.sh"
other_user
export NCCL_DOCTOR_LIBRARY_PATH="$ND_BUILD/tests/fakegpu/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/nvlink8.json"
MARK="$OTHER_DIR/marker"
chmod 0777 "$OTHER_DIR"   # the marker: writable by the planted worker as either user
cat >"$OTHER_DIR/worker.sh" <<EOF
#!/bin/sh
echo ran >>"$MARK"
exec "$ND_BIN" "\$@"
EOF
chown "$OTHER" "$OTHER_DIR/worker.sh"; chmod 0755 "$OTHER_DIR/worker.sh"
ran() { [ -e "$MARK" ]; }

rm -f "$MARK"
ND_WORKER_EXE="$OTHER_DIR/worker.sh" run_nd topo --json
if ran; then not_ok "root: the worker in $OTHER's directory ran"; else ok "root: the worker in $OTHER's directory did not run"; fi
expect_rc 0 "root: topo answered with the tool's own worker"
json_check 'd["matrix_source"] == "nvml" and len(d["matrix"]) == 8' "root: the fake NVML answered through it"
n=$(grep -c "^nccl-doctor: ignoring ND_WORKER_EXE '$OTHER_DIR/worker.sh' as root: '$OTHER_DIR' belongs to uid $OTHER_UID, not root$" "$ERR")
if [ "$n" = 1 ]; then ok "root: one line says ND_WORKER_EXE is ignored, and why"; else not_ok "root: $n such lines"; sed 's/^/    err: /' "$ERR" | head -5; fi
json_check "[e['variable'] for e in d['ignored_environment']] == ['ND_WORKER_EXE'] and d['ignored_environment'][0]['value'] == '$OTHER_DIR/worker.sh'" "root: the JSON says so"

# the planted worker reached through a link in a safe directory
mkdir -p "$ND_TMP/linkbin" && chmod 0755 "$ND_TMP/linkbin"
ln -s "$OTHER_DIR/worker.sh" "$ND_TMP/linkbin/worker"
rm -f "$MARK"
ND_WORKER_EXE="$ND_TMP/linkbin/worker" run_nd topo
if ran; then not_ok "root: a link to the other user's worker ran it"; else ok "root: a link to the other user's worker did not run it"; fi
expect_err "ignoring ND_WORKER_EXE '$ND_TMP/linkbin/worker' as root: '$OTHER_DIR' belongs to uid $OTHER_UID" "root: the link: said so"

# a root-owned script others may write
mkdir -p "$ND_TMP/rootbin" && chmod 0755 "$ND_TMP/rootbin"
cp "$OTHER_DIR/worker.sh" "$ND_TMP/rootbin/worker.sh"; chmod 0757 "$ND_TMP/rootbin/worker.sh"
rm -f "$MARK"
ND_WORKER_EXE="$ND_TMP/rootbin/worker.sh" run_nd topo
if ran; then not_ok "root: a world-writable worker ran"; else ok "root: a world-writable worker did not run"; fi
expect_err "'$ND_TMP/rootbin/worker.sh' is writable by others \(mode 0757\)" "root: world-writable worker: said so"

# root-owned and safe: run (so the check above is real)
chmod 0755 "$ND_TMP/rootbin/worker.sh"
rm -f "$MARK"
ND_WORKER_EXE="$ND_TMP/rootbin/worker.sh" run_nd topo --json
if ran; then ok "root: a root-owned worker in a safe directory runs"; else not_ok "root: the safe worker did not run"; fi
expect_rc 0 "root: and topo answers through it"
if grep -q ignoring "$ERR"; then not_ok "root: a safe worker was reported ignored"; else ok "root: nothing said about a safe worker"; fi

# as the other user: their override runs
rm -f "$MARK"
as_other env ND_WORKER_EXE="$OTHER_DIR/worker.sh" timeout 60 "$ND_BIN" topo >"$OTHER_DIR/out" 2>"$OTHER_DIR/err" </dev/null
if ran; then ok "$OTHER: their ND_WORKER_EXE runs"; else not_ok "$OTHER: their ND_WORKER_EXE did not run"; sed 's/^/    err: /' "$OTHER_DIR/err" | head -3; fi
if grep -q ignoring "$OTHER_DIR/err"; then not_ok "$OTHER: told it was ignored"; else ok "$OTHER: nothing ignored"; fi
finish
