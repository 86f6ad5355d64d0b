#!/bin/bash
# nccl-doctor logs: the rules of bootstrap and the network between hosts
# (bootstrap.c), each on small constructed lines in the real formats, once
# where it fires and once where it must not (docs/logs.md says which public
# cases motivated each):
#  - Gloo's connectFullMesh, a socket of an unsupported address family;
#  - link-local addresses, Docker bridges and veth pairs in NCCL's socket
#    lists of a failed run;
#  - "internal error" from NCCL 2.18 (network errors in that release);
#  - a connection closed during bootstrap: an NCCL bug before 2.27.3, or the
#    network.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}

echo 'RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error' >"$ND_TMP/gloo.log"
run_nd logs --json "$ND_TMP/gloo.log"
first bootstrap_network "Gloo connectFullMesh: the CPU bootstrap's network"

# link-local socket addresses
printf '%s\n' 'NET/Socket : Using [0]enp73s0:10.1.216.156<0> [1]pod-id-link0:169.254.170.23<0>' \
	'socketPollConnect: connect to 169.254.170.23<...> returned Connection refused, retrying (13/34)' \
	'RuntimeError: NCCL error: remote process exited or there was a network error' >"$ND_TMP/ll.log"
run_nd logs --json "$ND_TMP/ll.log"
first bootstrap_network "a link-local address in NCCL's socket list"
has_finding LOG_SOCKET_LINK_LOCAL "a link-local address: its finding"
printf '%s\n' 'h:1:1 [0] NCCL INFO Bootstrap : Using eth0:169.254.3.4<0>' 'h:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4' >"$ND_TMP/ll2.log"
run_nd logs --json "$ND_TMP/ll2.log"
has_finding LOG_SOCKET_LINK_LOCAL "bootstrap from a link-local address"
printf '%s\n' 'h:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.1.2.3<0>' 'h:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.1.2.3<0>' >"$ND_TMP/ll3.log"
run_nd logs --json "$ND_TMP/ll3.log"
no_finding LOG_SOCKET_LINK_LOCAL "routable addresses are not link-local"

# NET/Socket over Docker bridges and veth pairs (wrapped as pasted), in a failed run
printf '%s\n' 'ncclSystemError: System call (socket, malloc, munmap, etc) failed.' 'INFO NET/Socket : Using' \
	'[0]bond0:192.168.1.161<0>' '[1]br-05ab815fa14e:172.19.0.1<0>' '[2]veth6163fba:fe80::b878:6cff:fe52:abe2%veth6163fba<0>' >"$ND_TMP/br.log"
run_nd logs --json "$ND_TMP/br.log"
first bootstrap_network "sockets spread over Docker bridges and veth in a failed run"
json_check "not any(c['cause'] == 'unknown' for c in d['causes'])" "PyTorch's reading of a result code names no cause"
printf '%s\n' 'h:1:1 [0] NCCL INFO NET/Socket : Using' '[0]eth0:10.0.0.1<0>' '[1]br-05ab815fa14e:172.19.0.1<0>' 'h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 1000 commId 0x5 - Init COMPLETE' >"$ND_TMP/brok.log"
run_nd logs --json "$ND_TMP/brok.log"
json_check "not any(c['cause'] == 'bootstrap_network' for c in d['causes'])" "a bridge in the list of a healthy run names no cause"

# the same list on NCCL's one line, in a run that stopped before init completed
# (no error line: the ranks stop where the network is picked)
v='[0]bond0:172.27.231.79<0> [1]veth8739016:fe80::5804:edff:fe5b:6570%veth8739016<0>'
printf '%s\n' "m5:47324:48509 [0] NCCL INFO Bootstrap : Using bond0:172.27.231.79<0>" "m5:47324:48509 [0] NCCL INFO NET/Socket : Using $v" \
	"m5:47324:48509 [0] NCCL INFO Using network Socket" "m5:47325:48508 [1] NCCL INFO Bootstrap : Using bond0:172.27.231.79<0>" \
	"m5:47325:48508 [1] NCCL INFO NET/Socket : Using $v" "m5:47325:48508 [1] NCCL INFO Using network Socket" >"$ND_TMP/vl.log"
run_nd logs --json "$ND_TMP/vl.log"
has_finding LOG_BOOTSTRAP_VIRTUAL_IF "a veth on NET/Socket's one line: its finding"
json_check "'veth8739016' in json.dumps([f for f in d['findings'] if f['id'] == 'LOG_BOOTSTRAP_VIRTUAL_IF'])" "the veth named in the evidence"
json_check "any(c['cause'] == 'bootstrap_network' for c in d['causes'][:3])" "one host stopped at the network: the network among the first three"
not_first bootstrap_network "one host: it may be a workstation whose ranks never use the network"
sed 's/m5:47325:48508 \[1\]/m6:47325:48508 [0]/' "$ND_TMP/vl.log" >"$ND_TMP/vl2.log"
run_nd logs --json "$ND_TMP/vl2.log"
first bootstrap_network "a veth beside the NIC, ranks on two hosts stopped at the network: the network first"
{ cat "$ND_TMP/vl.log"; echo "m5:47324:48509 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x5 - Init COMPLETE"
  echo "m5:47325:48508 [1] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 2000 commId 0x5 - Init COMPLETE"; } >"$ND_TMP/vlok.log"
run_nd logs --json "$ND_TMP/vlok.log"
no_finding LOG_BOOTSTRAP_VIRTUAL_IF "the same list in a run that completed init: no finding"
printf '%s\n' "m5:47324:48509 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0> [1]ib0:10.1.0.1<0>" "m5:47324:48509 [0] NCCL INFO Using network Socket" >"$ND_TMP/vlno.log"
run_nd logs --json "$ND_TMP/vlno.log"
no_finding LOG_BOOTSTRAP_VIRTUAL_IF "real NICs only: no finding"

printf '%s\n' "box:11:11 [0] include/socket.h:311 WARN Socket creation failed : Address family not supported by protocol" \
  "NCCL failure common.cu:874 'unhandled system error'" >"$ND_TMP/af.log"
run_nd logs --json "$ND_TMP/af.log"
first bootstrap_network "socket of an unsupported address family: no usable interface"

# "internal error" from NCCL 2.18
echo 'torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1333, internal error - please report this issue to the NCCL developers, NCCL version 2.18.1' >"$ND_TMP/ie.log"
run_nd logs --json "$ND_TMP/ie.log"
first bootstrap_network "internal error from NCCL 2.18: a network error in that release"
has_finding LOG_NCCL_218_INTERNAL_ERROR "internal error from NCCL 2.18: its finding"
echo 'torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1333, internal error - please report this issue to the NCCL developers, NCCL version 2.19.3' >"$ND_TMP/ie2.log"
run_nd logs --json "$ND_TMP/ie2.log"
no_finding LOG_NCCL_218_INTERNAL_ERROR "internal error from NCCL 2.19 is not 2.18's"
not_first bootstrap_network "internal error from NCCL 2.19 keeps the code's priors"

# a connection closed during bootstrap (S08 with bootstrap.cc in its back-trace)
bt() {
	printf '%s\n' "[0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.10.1.3<36138>" \
		'[0] NCCL INFO misc/socket.cc:80 -> 6' "[0] NCCL INFO $1 -> 6" '[0] NCCL INFO init.cc:1402 -> 6'
}
bt bootstrap.cc:701 >"$ND_TMP/t4.log"
run_nd logs --json "$ND_TMP/t4.log"
has_finding LOG_BOOTSTRAP_PEER_CLOSED "a closed connection in bootstrap: its finding"
top3 driver_or_kernel_bug "no version 2.27.3+: NCCL's bootstrap bug a candidate"
top3 bootstrap_network "a closed connection in bootstrap: the network a candidate"
{ echo '[0] NCCL INFO NCCL version 2.28.3+cuda12.9'; bt bootstrap.cc:701; } >"$ND_TMP/t4v.log"
run_nd logs --json "$ND_TMP/t4v.log"
has_finding LOG_BOOTSTRAP_PEER_CLOSED "2.28.3: the finding stays"
json_check "not any(c['cause'] == 'driver_or_kernel_bug' and 'LOG_BOOTSTRAP_PEER_CLOSED' in c.get('findings', []) for c in d['causes'])" "2.28.3 has the fix: no NCCL-bug weight from this rule"
bt transport/net.cc:1508 >"$ND_TMP/t4n.log"
run_nd logs --json "$ND_TMP/t4n.log"
no_finding LOG_BOOTSTRAP_PEER_CLOSED "a closed connection in the data path is not bootstrap's"
first peer_died_or_oom "a closed connection in the data path: a dead peer"
# a back-trace through bootstrap.cc that returned an error, no WARN before it
# (misc/socket.cc returns without one): bootstrap failed; not a transport's
# trail (a disabled transport), not a trail after a WARN that names a cause
h='gpu1:2330:2658 [2] NCCL INFO'
printf '%s\n' "$h NCCL version 2.18.3+cuda12.2" "$h misc/socket.cc:567 -> 2" "$h bootstrap.cc:270 -> 2" "$h init.cc:1350 -> 2" >"$ND_TMP/t4o.log"
run_nd logs --json "$ND_TMP/t4o.log"
has_finding LOG_BOOTSTRAP_TRAIL "an orphan back-trace through bootstrap.cc: its finding"
first bootstrap_network "an orphan back-trace through bootstrap.cc: the network first"
printf '%s\n' "$h NCCL version 2.18.3+cuda12.2" "$h transport/p2p.cc:312 -> 2" "$h init.cc:1350 -> 2" >"$ND_TMP/t4p.log"
run_nd logs --json "$ND_TMP/t4p.log"
no_finding LOG_BOOTSTRAP_TRAIL "an orphan back-trace of a transport is not bootstrap's"
# Gloo's own texts (the CPU process group beside NCCL's) and PyTorch 1.x's TCPStore errors
echo "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:83] ifa != nullptr. Unable to find address for: eth0" >"$ND_TMP/gl2.log"
run_nd logs --json "$ND_TMP/gl2.log"
first bootstrap_network "Gloo finds no address for the named interface: the interface setting"
echo "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.0.0.2]:1234" >"$ND_TMP/gl3.log"
run_nd logs --json "$ND_TMP/gl3.log"
first peer_died_or_oom "Gloo's peer closed the connection: that rank died"
echo "RuntimeError: Socket Timeout" >"$ND_TMP/st.log"
run_nd logs --json "$ND_TMP/st.log"
first bootstrap_network "PyTorch 1.x TCPStore's Socket Timeout: the rendezvous"
# rendezvous time-outs of PyTorch 1.x and JAX, a rank killed under mpirun, Horovod's stall
echo "RuntimeError: Timed out initializing process group in store based barrier on rank: 0, for key: store_based_barrier_key:1 (world_size=2, worker_count=1, timeout=0:30:00)" >"$ND_TMP/sbb.log"
run_nd logs --json "$ND_TMP/sbb.log"
first bootstrap_network "PyTorch 1.x store based barrier time-out: a rank never joined"
echo "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: PjRT_Client_Connect. Timed out task names: /job:jax_worker/replica:0/task:1" >"$ND_TMP/jax.log"
run_nd logs --json "$ND_TMP/jax.log"
first bootstrap_network "JAX's coordination barrier time-out: a task never connected"
echo "mpirun noticed that process rank 3 with PID 0 on node node2 exited on signal 9 (Killed)." >"$ND_TMP/sig9.log"
run_nd logs --json "$ND_TMP/sig9.log"
first peer_died_or_oom "a rank killed by SIGKILL under mpirun: a rank died"
echo "[1] W horovod/common/stall_inspector.cc:107] One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 seconds." >"$ND_TMP/hvs.log"
run_nd logs --json "$ND_TMP/hvs.log"
first collective_mismatch_app_bug "Horovod's stall: ranks submit different tensors"
echo "ncclOsSocketTryAccept: Accept failed: Too many open files" >"$ND_TMP/emfile.log"
run_nd logs --json "$ND_TMP/emfile.log"
first bootstrap_network "EMFILE in NCCL's accept: the fd limit"
has_finding LOG_FD_LIMIT "EMFILE: its finding"
finish
