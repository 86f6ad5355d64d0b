#!/bin/bash
# As root, NCCL_DOCTOR_LIBRARY_PATH (the tests' way to the fake GPU
# libraries) is used only where it names a root-owned directory that nobody
# else can write: a directory another user owns, or one others can write,
# holding a "libnvidia-ml.so.1" whose constructor leaves a marker, is
# ignored with one line on stderr and a note in the JSON, and the library
# never runs; a root-owned, safe directory still works (the suite's own
# fakes, and the same planted library copied there); NCCL_DOCTOR_LIBRARY_PATH_ONLY
# goes with ignored directories; as the other user the override keeps
# working.
. "$(dirname "$0")/lib.sh"
other_user
CC=$(command -v cc || command -v gcc) || skip_all "no C compiler to build the planted library"
MARK="$OTHER_DIR/marker"
mkdir -p "$ND_TMP/src"
cat >"$ND_TMP/src/evil.c" <<EOF
#include <stdio.h>
__attribute__((constructor)) static void planted(void)
{
	FILE *f = fopen("$MARK", "a");
	if (f) { fputs("ran\n", f); fclose(f); }
}
EOF
mkdir -p "$OTHER_DIR/lib"
"$CC" -shared -fPIC -o "$OTHER_DIR/lib/libnvidia-ml.so.1" "$ND_TMP/src/evil.c" || skip_all "cannot build the planted library"
cp "$OTHER_DIR/lib/libnvidia-ml.so.1" "$OTHER_DIR/lib/libcuda.so.1"
cp "$OTHER_DIR/lib/libnvidia-ml.so.1" "$OTHER_DIR/lib/libnccl.so.2"
chown -R "$OTHER" "$OTHER_DIR/lib"
chmod 0777 "$OTHER_DIR"   # the marker: writable by the planted code as either user
ran() { [ -e "$MARK" ]; }
# one "ignoring" line on stderr, naming the variable and the reason
ignoring_lines() { grep -c "^nccl-doctor: ignoring NCCL_DOCTOR_LIBRARY_PATH .*as root: " "$ERR"; }

# --- a directory another user owns -------------------------------------------
rm -f "$MARK"
NCCL_DOCTOR_LIBRARY_PATH="$OTHER_DIR/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 run_nd topo --json
if ran; then not_ok "root: the library in $OTHER's directory ran"; else ok "root: the library in $OTHER's directory did not run"; fi
if [ "$(ignoring_lines)" = 1 ]; then ok "root: one line says it is ignored"; else not_ok "root: $(ignoring_lines) 'ignoring' lines"; sed 's/^/    err: /' "$ERR" | head -5; fi
expect_err "^nccl-doctor: ignoring NCCL_DOCTOR_LIBRARY_PATH '$OTHER_DIR/lib' as root: '$OTHER_DIR' belongs to uid $OTHER_UID, not root\$" "root: the line names the directory, where it goes wrong and the owner"
json_check "any(e['variable'] == 'NCCL_DOCTOR_LIBRARY_PATH' and e['value'] == '$OTHER_DIR/lib' and 'uid $OTHER_UID' in e['reason'] for e in d['ignored_environment'])" "root: the JSON says what was ignored and why"
mkdir -p "$ND_TMP/docs"; cp "$OUT" "$ND_TMP/docs/topo-ignored.json"
if python3 "$ND_SRC/tests/tools/validate_json.py" "$ND_SRC/docs/schema" "$ND_TMP/docs/topo-ignored.json" >"$ND_TMP/v" 2>&1
then ok "root: the document with ignored_environment validates against docs/schema"
else not_ok "root: the document does not validate"; head -5 "$ND_TMP/v" | sed 's/^/    /'; fi
if grep -q "not in NCCL_DOCTOR_LIBRARY_PATH" "$OUT"; then not_ok "root: NCCL_DOCTOR_LIBRARY_PATH_ONLY still applied to the ignored directory"; else ok "root: NCCL_DOCTOR_LIBRARY_PATH_ONLY went with it"; fi
# every command: the worker task loading all three libraries
rm -f "$MARK"
NCCL_DOCTOR_LIBRARY_PATH="$OTHER_DIR/lib" run_nd __worker libs
if ran; then not_ok "root: __worker libs ran the planted libraries"; else ok "root: __worker libs did not run them"; fi

# --- root-owned but writable by others, or its group ----------------------------
mkdir -p "$ND_TMP/shared/lib" && chmod 0777 "$ND_TMP/shared"
cp "$OTHER_DIR/lib/"lib* "$ND_TMP/shared/lib/"
rm -f "$MARK"
NCCL_DOCTOR_LIBRARY_PATH="$ND_TMP/shared/lib" run_nd topo
if ran; then not_ok "root: a library under a world-writable directory ran"; else ok "root: a library under a world-writable directory did not run"; fi
expect_err "ignoring NCCL_DOCTOR_LIBRARY_PATH '$ND_TMP/shared/lib' as root: '$ND_TMP/shared' is writable by others \(mode 0777\)" "root: world-writable: the line says so"
chmod 0775 "$ND_TMP/shared"
rm -f "$MARK"
NCCL_DOCTOR_LIBRARY_PATH="$ND_TMP/shared/lib" run_nd topo
if ran; then not_ok "root: a library under a group-writable directory ran"; else ok "root: a library under a group-writable directory did not run"; fi

# --- a root-owned, safe directory whose file links to the other user's ---------
mkdir -p "$ND_TMP/linked" && chmod 0755 "$ND_TMP/linked"
ln -s "$OTHER_DIR/lib/libnvidia-ml.so.1" "$ND_TMP/linked/libnvidia-ml.so.1"
rm -f "$MARK"
NCCL_DOCTOR_LIBRARY_PATH="$ND_TMP/linked" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 run_nd topo --json
if ran; then not_ok "root: a link to the other user's library was loaded"; else ok "root: a link to the other user's library was not loaded"; fi
if grep -q "not loaded as root: '$OTHER_DIR' belongs to uid $OTHER_UID" "$OUT"; then ok "root: the JSON says why the linked library was not loaded"
else not_ok "root: the loader's error does not say why"; grep -o '"[^"]*not loaded[^"]*"' "$OUT" | head -2; fi

# --- root-owned and safe: used (the planted copy runs: the check is real) -------
mkdir -p "$ND_TMP/rootlib" && chmod 0755 "$ND_TMP/rootlib"
cp "$OTHER_DIR/lib/libnvidia-ml.so.1" "$ND_TMP/rootlib/"
rm -f "$MARK"
NCCL_DOCTOR_LIBRARY_PATH="$ND_TMP/rootlib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 run_nd topo --json
if ran; then ok "root: the same library in a root-owned 0755 directory is loaded"; else not_ok "root: a root-owned safe directory was not used"; fi
if grep -q "ignoring" "$ERR"; then not_ok "root: a safe directory was reported as ignored"; else ok "root: nothing said about a safe directory"; fi
# the suite's own fakes in the build directory, first in a list with an unsafe one
NCCL_DOCTOR_LIBRARY_PATH="$OTHER_DIR/lib:$ND_BUILD/tests/fakegpu/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 \
  NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/nvlink8.json" run_nd topo --json
expect_rc 0 "root: the build's fakes still work after an ignored directory"
json_check 'd["matrix_source"] == "nvml" and len(d["matrix"]) == 8' "root: the fake NVML answered (8 GPUs)"
if [ "$(ignoring_lines)" = 1 ]; then ok "root: only the unsafe directory is reported"; else not_ok "root: $(ignoring_lines) lines"; fi
# a directory that does not exist under a safe one (the golden tests' /nonexistent)
NCCL_DOCTOR_LIBRARY_PATH=/nonexistent/nccl-doctor-t150 NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 run_nd topo --json
if grep -q ignoring "$ERR"; then not_ok "root: a missing directory under / was reported as unsafe"; else ok "root: a missing directory under / is not unsafe"; fi
expect_out "not in NCCL_DOCTOR_LIBRARY_PATH '/nonexistent/nccl-doctor-t150'" "root: and NCCL_DOCTOR_LIBRARY_PATH_ONLY still applies to it"

# --- as the other user: the override is theirs to use ------------------------------
rm -f "$MARK"
as_other env NCCL_DOCTOR_LIBRARY_PATH="$OTHER_DIR/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 \
  timeout 60 "$ND_BIN" topo >"$OTHER_DIR/out" 2>"$OTHER_DIR/err" </dev/null
if ran; then ok "$OTHER: their own NCCL_DOCTOR_LIBRARY_PATH is used"; else not_ok "$OTHER: the override was not used"; sed 's/^/    err: /' "$OTHER_DIR/err" | head -3; fi
if grep -q ignoring "$OTHER_DIR/err"; then not_ok "$OTHER: told the override was ignored"; else ok "$OTHER: nothing ignored"; fi
finish
