#!/usr/bin/env python3
"""Hostile PyTorch flight-recorder pickles for the tests of the pickle reader
(tests/cli/t160-t164, fuzz seeds): each made in memory from opcodes, so no
big file is kept in the repository.

usage: fr_pickle_gen.py [--no-pad] KIND OUT [SIZE]

A dump made here opens with 16 KiB of control bytes, so that `logs` takes
it for binary data and hands it to the pickle reader (a pickle of mostly
brackets passes for text); --no-pad leaves them out (fuzz seeds).

KIND:
  deep-tuple   a dump whose input_sizes nest TUPLE1 SIZE deep (default
               100000, ~500 KB): the stack stays one deep, the value does not
  deep-list    lists nested SIZE deep the way pickle.dumps writes them
               (default 100000)
  many-dicts   a dump whose input_sizes hold empty dicts, one byte each,
               SIZE bytes of them (default 16 MiB)
  cycle        two lists that hold each other (a memo reference to a list
               still being built), inside a dump's entry
  self-dict    a dict that holds itself under a key, through the memo
  dag          a list shared through the memo at each of SIZE levels
               (default 64): 2**SIZE leaves once expanded
  big-key      an 8 MiB string used as a dict key in SIZE dicts (default
               1000), each use 7 bytes of input
  shared-entries  a dump whose entries are two dicts named over and over
               through the memo, SIZE bytes (default 16 MiB, 2 bytes each)
  memo-unset   LONG_BINGET of a memo index never set
  memo-huge    LONG_BINPUT of index 2**32 - 1 and BINGET of it
  truncated    a small good dump cut in the middle of a BINUNICODE
  beyond       BINUNICODE8 whose length runs past the end of the input
  frames       a good dump as protocol 5 with FRAME opcodes (read: exit 0..2)
  good         a small good dump (protocol 2)
"""
import pickle
import struct
import sys

PROTO = b"\x80"
STOP = b"."
MARK = b"("
EMPTY_DICT = b"}"
EMPTY_LIST = b"]"
APPEND = b"a"
APPENDS = b"e"
SETITEM = b"s"
SETITEMS = b"u"
TUPLE1 = b"\x85"
TUPLE2 = b"\x86"
BINPUT = b"q"
LONG_BINPUT = b"r"
BINGET = b"h"
LONG_BINGET = b"j"
MEMOIZE = b"\x94"


# bytes no text log has, so that `logs` hands the file to the pickle reader
# (util/input.c calls a file with 15 % control bytes in its first 64 KiB binary)
PAD = b"X\x03\x00\x00\x00pad" + b"B" + struct.pack("<I", 16384) + b"\x01" * 16384


def s(text):
    """BINUNICODE"""
    b = text.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def i1(v):
    return b"K" + bytes([v])


def dump_with(field, value_ops):
    """A dump {version, entries: [{collective_seq_id: 1, state: started,
    FIELD: <value_ops>}]} in protocol 2."""
    return (PROTO + b"\x02" + EMPTY_DICT + MARK + PAD + s("version") + s("2.5") + s("entries") + EMPTY_LIST +
            EMPTY_DICT + MARK + s("collective_seq_id") + i1(1) + s("state") + s("started") + s(field) +
            value_ops + SETITEMS + APPEND + SETITEMS + STOP)


def good(proto=2):
    d = {"version": "2.5", "pg_config": {"0": {"desc": "default_pg", "ranks": "[0, 1]"}},
         "entries": [{"collective_seq_id": i, "process_group": ("0", "default_pg"), "profiling_name": "nccl:all_reduce",
                      "input_sizes": [[3, 4]], "input_dtypes": ["Float"], "state": "completed" if i < 3 else "started",
                      "is_p2p": False} for i in range(1, 4)]}
    return pickle.dumps(d, protocol=proto)


def make(kind, size):
    if kind == "deep-tuple":
        n = size or 100000
        return dump_with("input_sizes", EMPTY_LIST + TUPLE1 * n)
    if kind == "deep-list":
        n = size or 100000
        return dump_with("input_sizes", EMPTY_LIST * n + APPEND * (n - 1))
    if kind == "many-dicts":
        n = size or 16 << 20
        n -= n // 1000 * 2 + 64  # a MARK and an APPENDS a thousand
        body = bytearray()
        for k in range(0, n, 1000):
            body += MARK + EMPTY_DICT * min(1000, n - k) + APPENDS
        return dump_with("input_sizes", EMPTY_LIST + bytes(body))
    if kind == "cycle":
        # L0 = [], memo 0; L1 = [L0]; L0.append(L1)
        return dump_with("input_sizes", EMPTY_LIST + BINPUT + b"\x00" + EMPTY_LIST + BINGET + b"\x00" + APPEND + APPEND)
    if kind == "self-dict":
        return dump_with("input_sizes", EMPTY_DICT + BINPUT + b"\x00" + s("me") + BINGET + b"\x00" + SETITEM)
    if kind == "dag":
        # L0 = 1; L(i+1) = (Li, Li), each level 5 bytes
        n = size or 64
        return dump_with("input_sizes", i1(1) + BINPUT + b"\x00" + (BINGET + b"\x00" + TUPLE2 + BINPUT + b"\x00") * n)
    if kind == "big-key":
        n = size or 1000
        key = b"X" + struct.pack("<I", 8 << 20) + b"k" * (8 << 20) + BINPUT + b"\x00"
        ops = EMPTY_LIST + MARK + key + (EMPTY_DICT + BINGET + b"\x00" + i1(1) + SETITEM) * n + APPENDS
        return dump_with("input_dtypes", ops)
    if kind == "shared-entries":
        n = (size or 16 << 20) // 2
        ent = [EMPTY_DICT + MARK + s("collective_seq_id") + i1(seq) + s("state") + s(st) + s("input_sizes") +
               EMPTY_LIST + MARK + i1(3) + i1(4) + APPENDS + SETITEMS + BINPUT + bytes([seq]) for seq, st in
               ((1, "completed"), (2, "started"))]
        refs = bytearray()
        for k in range(0, n, 1000):
            refs += MARK + (BINGET + b"\x01" + BINGET + b"\x02") * (min(1000, n - k) // 2) + APPENDS
        return (PROTO + b"\x02" + EMPTY_DICT + MARK + PAD + s("version") + s("2.5") + s("entries") + EMPTY_LIST +
                MARK + ent[0] + ent[1] + APPENDS + bytes(refs) + SETITEMS + STOP)
    if kind == "memo-unset":
        return dump_with("input_sizes", LONG_BINGET + struct.pack("<I", 123456))
    if kind == "memo-huge":
        return dump_with("input_sizes", EMPTY_LIST + LONG_BINPUT + struct.pack("<I", 0xFFFFFFFF) +
                         LONG_BINGET + struct.pack("<I", 0xFFFFFFFF) + APPEND)
    if kind == "truncated":
        b = good(2)
        at = b.index(b"nccl:all_reduce") + 4
        return b[:at]
    if kind == "beyond":
        return dump_with("input_sizes", b"\x8d" + struct.pack("<Q", 1 << 40) + b"abc")
    if kind == "frames":
        return good(5)
    if kind == "good":
        return good(2)
    raise SystemExit("fr_pickle_gen.py: unknown kind '%s'" % kind)


def main():
    global PAD
    args = sys.argv[1:]
    if args and args[0] == "--no-pad":
        PAD = b""
        args = args[1:]
    if len(args) < 2:
        raise SystemExit(__doc__)
    size = int(args[2]) if len(args) > 2 else 0
    with open(args[1], "wb") as f:
        f.write(make(args[0], size))


if __name__ == "__main__":
    main()
