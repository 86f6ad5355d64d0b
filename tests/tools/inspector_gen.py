#!/usr/bin/env python3
"""Hostile NCCL Inspector dumps for the tests of the Inspector reader
(tests/cli/t165): made in memory, so no big file is kept in the repository.

usage: inspector_gen.py KIND OUT [SIZE]

KIND:
  many-comms   SIZE records (default 4096), each of its own communicator
               that claims 2**20 ranks (the rank list of every one is walked)
  many-units   SIZE records (default 200000) cycling over 4096 (communicator,
               rank) units, so that each record's unit is the farthest one
  huge-numbers records whose numbers are out of every range: 1e300 as a
               rank, a count, a time stamp; ranks of INT_MIN and INT_MAX
  deep-line    records, then one line nested SIZE deep (default 100000)
  good         a small dump of two ranks
"""
import json
import sys


def rec(comm, rank, nranks, sn, host="node-a", pid=4100, ts=1764720000000000, coll="AllReduce", size=16777216,
        bw=360.0, comm_name="TP Group 0", fmt=None):
    r = {"header": {"id": comm, "comm_name": comm_name, "rank": rank, "n_ranks": nranks, "nnodes": 1},
         "metadata": {"inspector_output_format_version": "v4.0", "git_rev": "", "rec_mechanism": "nccl_profiler_interface",
                      "dump_timestamp_us": ts, "hostname": host, "pid": pid},
         "coll_perf": {"coll": coll, "coll_sn": sn, "coll_msg_size_bytes": size, "coll_exec_time_us": 69,
                       "coll_timing_source": "kernel_gpu", "coll_algobw_gbs": 240.0, "coll_busbw_gbs": bw}}
    return json.dumps(r, separators=(",", ":"))


def make(kind, size):
    if kind == "many-comms":
        n = size or 4096
        return "".join(rec("0x%014x" % i, 0, 1 << 20, 1) + "\n" for i in range(n))
    if kind == "many-units":
        n = size or 200000
        return "".join(rec("0x%014x" % (i % 4096), i % 4096 // 2048, 2, i // 4096) + "\n" for i in range(n))
    if kind == "huge-numbers":
        lines = [rec("0x1", 0, 2, 1), rec("0x1", 1, 2, 1)]
        # spaced out, so that jansson (not the fast reader) reads them
        for r in ({"rank": 1e300, "n_ranks": -1e300, "nnodes": 1e300}, {"rank": -2147483648, "n_ranks": 2147483647},
                  {"rank": 2147483647, "n_ranks": 9223372036854775807}, {"rank": 1.5e19, "n_ranks": -9.3e18}):
            d = json.loads(rec("0x2", 0, 2, 1))
            d["header"].update(r)
            d["metadata"]["dump_timestamp_us"] = 1e300
            d["metadata"]["pid"] = -1e300
            d["coll_perf"]["coll_sn"] = 1e300
            d["coll_perf"]["coll_msg_size_bytes"] = -1e300
            lines.append(json.dumps(d))
        for ts, sn in ((9223372036854775807, 9223372036854775807), (-9223372036854775808, -9223372036854775808)):
            lines.append(rec("0x3", 0, 2147483647, sn, ts=ts))
            lines.append(rec("0x3", 1, -2147483648, 0, ts=0))
        return "\n".join(lines) + "\n"
    if kind == "deep-line":
        n = size or 100000
        return rec("0x1", 0, 2, 1) + "\n" + "{" + '"a":[' * n + "]" * n + "}\n"
    if kind == "good":
        return rec("0x1", 0, 2, 1) + "\n" + rec("0x1", 1, 2, 1) + "\n"
    raise SystemExit("inspector_gen.py: unknown kind '%s'" % kind)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    size = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    with open(sys.argv[2], "w") as f:
        f.write(make(sys.argv[1], size))


if __name__ == "__main__":
    main()
