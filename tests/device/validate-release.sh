#!/bin/bash
# The release binary on a real GPU machine (issue 31) and the bench paths that
# changed without a GPU (issue 29): run from the repository root with the
# release binary in dist/ (carried: dist/ is git-ignored) and nccl-tests'
# source in .nccl-tests/.
#   REL=dist/nccl-doctor-V-x86_64 [ND_BIN=build/nccl-doctor] OUT=DIR bash tests/device/validate-release.sh
# (ND_BIN: the tree's own build; without it the tree is built there, which
# needs jansson's static library on that machine)
# 1. the release binary needs nothing but glibc (ldd), prints its version;
# 2. its checkup (text, JSON) beside the same tree built here: the same verdict;
# 3. p2p --html with its JSON (tests/cli/htmlcheck.py), check and sys --prom
#    (tests/cli/promcheck.py, the strict text-format reader);
# 4. bench with NCCL_TESTS_SPLIT="MOD 1" and NCCL_TESTS_SPLIT_MASK=0 beside
#    nccl-tests' all_reduce_perf under the same variables; alltoallv with a
#    matrix file beside nccl-tests' alltoallv_perf; the transports captured
#    at init (the marker through the pipe) in bench's JSON.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
: "${OUT:?}" "${REL:?}"
. tests/device/lib.sh
nd_summary "$OUT/summary.txt"
NT=.nccl-tests
( cd "$NT" && timeout 240 make -j16 NCCL_HOME=/usr CUDA_HOME=/usr/local/cuda \
    NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90"; echo "## make exit $?" ) >"$OUT/nccl-tests-build.log" 2>&1 &
nd_binary build-dev 200 || say "FAIL: no build of the tree"
wait
say "release: $("$REL" --version 2>&1 | tr '\n' ' ')"
say "tree: $("$ND_BIN" --version 2>&1 | head -1)"
ldd "$REL" >"$OUT/ldd.txt" 2>&1
check "the release binary needs only glibc's libraries" \
  bash -c "! grep -v -E 'linux-vdso|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|ld-linux' '$OUT/ldd.txt' | grep -q ."

# 2. the checkup
timeout 150 "$REL" >"$OUT/rel-check.txt" 2>"$OUT/rel-check.err"; rc1=$?
timeout 150 "$REL" --json check >"$OUT/rel-check.json" 2>/dev/null
timeout 150 "$ND_BIN" --json check >"$OUT/tree-check.json" 2>/dev/null
v1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$OUT/rel-check.json" 2>&1)
v2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$OUT/tree-check.json" 2>&1)
say "release check: exit $rc1, $(head -1 "$OUT/rel-check.txt"); $(wc -l <"$OUT/rel-check.txt") lines; JSON verdict $v1, the tree's $v2"
check "the release binary's checkup agrees with the tree's" [ "$v1" = "$v2" ]

# 3. the output files
timeout 150 "$REL" p2p --html "$OUT/p2p.html" --json >"$OUT/p2p.json" 2>"$OUT/p2p.err"; say "p2p --html: exit $?"
check "the p2p page is well formed, self-contained and carries the run's JSON" \
  python3 tests/cli/htmlcheck.py "$OUT/p2p.html" --json "$OUT/p2p.json"
timeout 150 "$REL" check --prom "$OUT/check.prom" >/dev/null 2>&1; say "check --prom: exit $?, $(grep -c '^nccl_doctor' "$OUT/check.prom" 2>/dev/null) samples"
timeout 60 "$REL" sys --prom "$OUT/sys.prom" >/dev/null 2>&1; say "sys --prom: exit $?, $(grep -c '^nccl_doctor' "$OUT/sys.prom" 2>/dev/null) samples"
check "the metrics files parse (promcheck.py --each)" python3 tests/cli/promcheck.py --each "$OUT/check.prom" "$OUT/sys.prom"
grep -E '^nccl_doctor_(verdict|build_info|gpu_pcie|p2p|versions)' "$OUT/check.prom" | head -20 >"$OUT/prom-sample.txt"

# 4. bench: split, matrix file, transports
A="-b 8 -e 1M -f 4 -g 1 -n 20 -w 5"
for v in "NCCL_TESTS_SPLIT=MOD 1" "NCCL_TESTS_SPLIT_MASK=0"; do
  tag=${v%%=*}
  env "$v" timeout 90 "$NT/build/all_reduce_perf" $A >"$OUT/nt-$tag.txt" 2>&1; r1=$?
  env "$v" timeout 90 "$REL" bench all_reduce $A >"$OUT/bench-$tag.txt" 2>&1; r2=$?
  say "$v: nccl-tests exit $r1 ($(grep -c '^ *[0-9]' "$OUT/nt-$tag.txt") rows, $(grep 'Avg bus' "$OUT/nt-$tag.txt")), bench exit $r2 ($(grep -c '^ *[0-9]' "$OUT/bench-$tag.txt") rows, $(grep 'Avg bus' "$OUT/bench-$tag.txt"))"
  check "$v: both exit 0 with 0 wrong" bash -c "[ $r1 = 0 ] && [ $r2 = 0 ] && ! grep -q 'Out of bounds values : [1-9]' '$OUT/bench-$tag.txt'"
done
echo 4096 >"$OUT/matrix.txt"
M="-b 4K -e 4K -g 1 -n 20 -w 5"
NCCL_TESTS_ALLTOALLV_MATRIX_FILE="$OUT/matrix.txt" NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY=1 timeout 90 "$NT/build/alltoallv_perf" $M >"$OUT/nt-a2av.txt" 2>&1; r1=$?
NCCL_TESTS_ALLTOALLV_MATRIX_FILE="$OUT/matrix.txt" NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY=1 timeout 90 "$REL" bench alltoallv $M >"$OUT/bench-a2av.txt" 2>&1; r2=$?
say "alltoallv matrix: nccl-tests exit $r1, bench exit $r2; rows: $(grep -E '^ +[0-9]' "$OUT/nt-a2av.txt" | head -1) | $(grep -E '^ +[0-9]' "$OUT/bench-a2av.txt" | head -1)"
check "alltoallv with a matrix file: both exit 0" [ "$r1$r2" = 00 ]
timeout 90 "$REL" --json bench all_reduce -b 8 -e 64K -f 4 >"$OUT/bench.json" 2>/dev/null
tr=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps([(r.get("rank"), r.get("nccl"), r.get("init_s"), r.get("transports"), r.get("status")) for r in d["facts"]["bench"]["ranks"]])[:300])' "$OUT/bench.json" 2>&1)
say "bench JSON transports/ranks: $tr"
say "pass $pass fail $fail"
# the device tool brings back a few files: the rest packed
tar -C "$OUT" -czf /tmp/release-all.tar.gz . && mv /tmp/release-all.tar.gz "$OUT/all.tar.gz"
