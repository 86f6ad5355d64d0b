#!/bin/bash
# nccl-doctor logs compares the hosts of a job (issue 14 item 8): the NET
# plugin, the interfaces of bootstrap and NET/Socket, the IB devices; one
# hostname with two bootstrap addresses; a bootstrap address on Docker's
# default bridge in a job of several hosts. Fixtures:
# tests/fixtures/logs/hosts (constructed, see its README).
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}
F="$ND_FIXTURES/logs/hosts"

run_nd --json logs "$F/plugin-docker-2node"
expect_rc 2 "two hosts, one with a NET plugin, one bootstrapping from a Docker bridge address"
json_check 'd["causes"][0]["cause"] == "bootstrap_network"' "docker bridge address: bootstrap_network first"
json_check 'any(f["id"] == "LOG_BOOTSTRAP_ADDR_SUSPECT" and "node-b" in f["title"] and "172.17.0.3" in f["title"] for f in d["findings"])' "bridge address: host and address named"
json_check 'any(f["id"] == "LOG_NET_PLUGIN_DIFFERS" and "AWS Libfabric on node-a" in f["title"] and "internal on node-b" in f["title"] for f in d["findings"])' "plugins: both hosts and values named"
json_check 'any(c["cause"] == "ib_rdma_config" and "LOG_NET_PLUGIN_DIFFERS" in c["finding_ids"] for c in d["causes"])' "plugins: counted for ib_rdma_config"

run_nd --json logs "$F/same-hostname-2node"
expect_rc 2 "two containers with one hostname and pid"
json_check 'any(f["id"] == "LOG_HOSTNAME_DUPLICATE" and "10.2.0.21" in f["title"] and "10.2.0.22" in f["title"] for f in d["findings"])' "same hostname: both addresses named"
json_check 'd["causes"][0]["cause"] == "bootstrap_network"' "same hostname: bootstrap_network first"

run_nd --json logs "$F/ib-ifname-2node"
expect_rc 2 "two hosts with different interfaces and HCAs, a collective timed out"
json_check 'any(f["id"] == "LOG_SOCKET_IF_DIFFERS" and "ib0 on node-c" in f["title"] and "eth0 on node-d" in f["title"] for f in d["findings"])' "interfaces: both names named"
json_check 'any(f["id"] == "LOG_IB_HCA_DIFFERS" and "mlx5_0:1/IB [1]mlx5_1:1/IB on node-c" in f["title"] and "[RO]" not in f["title"] for f in d["findings"])' "HCAs: both lists, without the [RO] flag"

# one host: nothing to compare, no host finding
run_nd --json logs "$F/ib-ifname-2node/node-c.log"
json_check 'not any(f["id"] in ("LOG_SOCKET_IF_DIFFERS", "LOG_IB_HCA_DIFFERS", "LOG_NET_PLUGIN_DIFFERS", "LOG_HOSTNAME_DUPLICATE") for f in d["findings"])' "one host: no comparison claimed"
# healthy multi-host fixtures of the suite keep quiet
run_nd --json logs "$ND_FIXTURES/logs/constructed/mpi-nccl-tests-2.7-healthy.log"
expect_rc 0 "a healthy multi-rank log stays healthy"

finish
