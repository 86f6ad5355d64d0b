#!/usr/bin/env bash
# A flight-recorder dump in one JSON line longer than logs --max-line is
# cut and cannot be read: the headline says so and how to read it whole
# (it said "0 processes, 0 with a communicator: no failure found"). With
# --max-line large enough the same dump is read.
. "$(dirname "$0")/lib.sh"
python3 - "$ND_TMP/big_0.json" <<'PY'
import json, sys
e = [{"collective_seq_id": i, "process_group": ["0", "default_pg"], "profiling_name": "nccl:all_reduce",
      "input_sizes": [[1024]], "input_dtypes": ["Float"], "state": "completed", "is_p2p": False} for i in range(1, 3000)]
json.dump({"version": "2.5", "pg_config": {"0": {"desc": "default_pg", "ranks": "[0, 1]"}}, "entries": e}, open(sys.argv[1], "w"))
PY
run_nd logs "$ND_TMP/big_0.json"
expect_rc 1 "a cut dump: a warning, not a verdict"
expect_out "^NCCL logs: 1 file: the flight-recorder dump '$ND_TMP/big_0\\.json' was cut \\(its line is longer than --max-line\\) and not read: cannot tell; read it whole with 'nccl-doctor logs --max-line 67108864 $ND_TMP/big_0\\.json'\$" "the headline says it was cut and how to read it whole"
expect_no_out "no failure found" "not 'no failure found'"
run_nd logs --max-line 67108864 "$ND_TMP/big_0.json"
expect_no_out "was cut" "read whole with the suggested --max-line"
run_nd --json logs --max-line 67108864 "$ND_TMP/big_0.json"
json_check 'any(f["id"] == "LOG_FR_SUMMARY" and "1 flight-recorder dump" in f["title"] for f in d["findings"])' "the dump is read then"
finish
