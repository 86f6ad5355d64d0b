#!/bin/bash
# The hand-written NCCL rows of src/kb/nccl_signatures.c and the classes of
# NCCL's own message table (tools/nccl-warns/classified.tsv) cannot drift
# apart: `crosscheck.py --check` fails on a class disagreement that
# tools/nccl-warns/crosscheck-exceptions.tsv does not list with its reason,
# and on a listed one that no longer occurs (issue 14 item 1; docs/logs.md
# "NCCL's own failure messages"). Then what the review changed, each with a
# line where the old behaviour must be gone and one where the row must
# still fire: S73's real argcheck wording, S61 without graph search's
# fallback, cudaIpcGetMemHandle under S55l, S07b without 'failed to
# connect', S75 and the generated table on 2.29+'s 'dynamic smem', and the
# title of LOG_NCCL_WARNING saying what NCCL's source ties a warning to.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}
cc="$ND_SRC/tools/nccl-warns/crosscheck.py"
exc="$ND_SRC/tools/nccl-warns/crosscheck-exceptions.tsv"

# the committed tables agree, apart from the reviewed and listed cases
python3 "$cc" --check -q >"$ND_TMP/cc.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -qE '^crosscheck: [0-9]+ signature rows naming NCCL, .* \([0-9]+ reviewed and listed, 0 not\), 0 stale entries$' "$ND_TMP/cc.out"; then
  ok "crosscheck: every disagreement reviewed ($(tail -1 "$ND_TMP/cc.out" | sed 's/^crosscheck: //'))"
else
  not_ok "crosscheck --check: exit $rc"; grep -E 'not reviewed|stale|^crosscheck' "$ND_TMP/cc.out" | head -20 | sed 's/^/    /'
fi
n=$(grep -vcE '^(#|$)' "$exc")
if [ "$n" -ge 2 ] && grep -qE '^sig	literal	table	row	verdict	reason$' "$exc"; then
  ok "crosscheck-exceptions.tsv: $((n - 1)) reviewed entries"
else
  not_ok "crosscheck-exceptions.tsv: no entries or no header"
fi

# cc_expect RC REGEX DESCRIPTION ARGS...: runs crosscheck.py ARGS
cc_expect() {
  local want=$1 re=$2 what=$3
  shift 3
  python3 "$cc" --check -q "$@" >"$ND_TMP/cc2.out" 2>&1
  local got=$?
  if [ $got -eq "$want" ] && grep -qE -- "$re" "$ND_TMP/cc2.out"; then ok "$what (exit $got)"; else
    not_ok "$what: exit $got, wanted $want and /$re/"; tail -5 "$ND_TMP/cc2.out" | sed 's/^/    /'; fi
}
# an entry taken out: the disagreement is new again
first=$(grep -vE '^(#|$)' "$exc" | sed -n 2p)
grep -vF -- "$first" "$exc" >"$ND_TMP/less.tsv"
cc_expect 1 "not reviewed: $(printf '%s' "$first" | cut -f1) " "an unlisted disagreement fails" --exceptions "$ND_TMP/less.tsv"
# an entry whose classes no longer hold
printf '%s\n' "$first" | awk -F'\t' -v OFS='\t' '{ $3 = $3 ",shm_too_small"; print }' >"$ND_TMP/chg.row"
{ grep -vF -- "$first" "$exc"; cat "$ND_TMP/chg.row"; } >"$ND_TMP/chg.tsv"
cc_expect 1 'NOT REVIEWED \(chg.tsv says table [a-z_,]+,shm_too_small, row ' "an entry whose table classes changed fails" --exceptions "$ND_TMP/chg.tsv"
# an entry that no longer disagrees
{ cat "$exc"; printf 'S05\tno such literal\tcontext\tbootstrap_network\tc\ta stale entry\n'; } >"$ND_TMP/stale.tsv"
cc_expect 1 "stale entry of stale.tsv: S05 'no such literal'" "a stale entry fails" --exceptions "$ND_TMP/stale.tsv"
# a new row whose class disagrees with NCCL's source: the drift this test is for
mkdir -p "$ND_TMP/repo/src/kb/findings"
cp "$ND_SRC"/src/kb/findings_*.def "$ND_TMP/repo/src/kb/"
cp "$ND_SRC"/src/kb/findings/*.def "$ND_TMP/repo/src/kb/findings/"
sed 's/{ "S55l", F(LOG_P2P_IPC_UNSUPPORTED)/{ "S55l", F(LOG_P2P_PEER_FAILED)/' "$ND_SRC/src/kb/nccl_signatures.c" >"$ND_TMP/repo/src/kb/nccl_signatures.c"
cc_expect 1 "not reviewed: S55l 'Legacy IPC not supported': table p2p_virtualization, row p2p_pcie_acs_iommu" \
  "a row moved to another class fails" --repo "$ND_TMP/repo"
# unreadable inputs: exit 2 with a message, never a pass
printf 'sig\tliteral\n' >"$ND_TMP/bad.tsv"
cc_expect 2 'expected header' "an exceptions file without its header: exit 2" --exceptions "$ND_TMP/bad.tsv"
sed 's/{ "S05", F(LOG_BOOTSTRAP_NO_INTERFACE), NS_ANY,/{ "S05", F(LOG_BOOTSTRAP_NO_INTERFACE), 7,/' "$ND_SRC/src/kb/nccl_signatures.c" >"$ND_TMP/repo/src/kb/nccl_signatures.c"
cc_expect 2 'signature rows, [0-9]+ understood' "a row the parser does not understand: exit 2" --repo "$ND_TMP/repo"

# ---- what the review changed -------------------------------------------------
first_cause() { json_check "d['causes'] and d['causes'][0]['cause'] == '$1'" "$2"; }
finding() { json_check "any(f['id'] == '$1' for f in d['findings'])" "$2"; }
title() { json_check "any(f['id'] == 'LOG_NCCL_WARNING' and f['title'].startswith('''$1''') for f in d['findings'])" "$2"; }
logline() { printf '%s\n' "$@" >"$ND_TMP/t.log"; run_nd logs --json "$ND_TMP/t.log"; }

# S73: NCCL says '%s : invalid reduction operation %d' (misc/argcheck.cc), never 'invalid redop'
logline "node1:100:200 [0] misc/argcheck.cc:61 NCCL WARN AllReduce : invalid reduction operation 9"
finding LOG_INVALID_USAGE "S73: argcheck's 'invalid reduction operation' is invalid usage"
first_cause collective_mismatch_app_bug "S73: the application's call first"
# S55l: cudaIpcGetMemHandle is legacy CUDA IPC, not the PCIe path (was S54)
logline "node1:100:200 [0] transport/p2p.cc:236 NCCL WARN cudaIpcGetMemHandle failed : operation not supported" \
        "node1:100:200 [0] transport/p2p.cc:238 NCCL WARN Cuda failure 'operation not supported'"
finding LOG_P2P_IPC_UNSUPPORTED "cudaIpcGetMemHandle failed: CUDA IPC does not work here"
no_finding LOG_P2P_PEER_FAILED "cudaIpcGetMemHandle failed: not a failed peer enable (ACS/IOMMU)"
first_cause p2p_virtualization "cudaIpcGetMemHandle failed: P2P in a VM/WSL first"
logline "node1:100:200 [0] transport/p2p.cc:330 NCCL WARN failed to peer with device 1(=b5000): 217 peer access is not supported between these two devices"
finding LOG_P2P_PEER_FAILED "S54 still takes a failed peer enable"
# S61: graph search's fallback is a slow local graph, not ranks that disagree
logline "node1:100:200 [0] graph/search.cc:1010 NCCL WARN Could not find a path for pattern 4, falling back to simple order" \
        "node1:100:200 [0] NCCL INFO comm 0x5555 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 commId 0x1 - Init COMPLETE"
no_finding LOG_RING_MISMATCH "graph search's fallback is no ring mismatch"
title "NCCL printed a warning that names no cause by itself (NCCL's own message table): Could not find a path" \
  "LOG_NCCL_WARNING title: NCCL's own message that names no cause"
logline "node1:100:200 [0] graph/rings.cc:43 NCCL WARN Error : ring 1 does not loop back to start (0 != 1)"
finding LOG_RING_MISMATCH "S61 still takes a ring that does not loop back"
# S07b: 'failed to connect' is in no Linux NCCL release
logline "node1:100:200 [0] NCCL INFO NET/Plugin: failed to connect to the metrics service"
no_finding LOG_SOCKET_CONNECT_FAILED "'failed to connect' is not NCCL's socket connect failure"
logline "node1:100:200 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: exceeded retries (20000)"
finding LOG_SOCKET_CONNECT_FAILED "S07b still takes exceeded retries"
# S75 and the generated table: 2.29+ words the shared-memory check 'dynamic smem'
logline "node1:100:200 [0] enqueue.cc:81 NCCL WARN cudaArch 1200 dynamic smem 99328 exceeds device/fn maxSharedMem 101376"
finding LOG_NCCL_TOO_OLD_FOR_GPU "S75: 2.29+'s 'dynamic smem exceeds' is an NCCL build that does not fit the GPU"
first_cause driver_or_kernel_bug "S75: another NCCL version first"
# the title of LOG_NCCL_WARNING says what NCCL's source ties a warning to
logline "node1:100:200 [0] init.cc:1305 NCCL WARN Invalid config blocking attribute value 5"
title "NCCL printed a warning of class collective_mismatch_app_bug (NCCL's own message table): Invalid config blocking" \
  "LOG_NCCL_WARNING title: the class of NCCL's own message"
logline "node1:100:200 [0] foo.cc:1 NCCL WARN zz quux frobnicated"
title "NCCL printed a warning nccl-doctor does not know: zz quux" "LOG_NCCL_WARNING title: a message in no NCCL format stays unknown"
finish
