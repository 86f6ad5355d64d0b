#!/usr/bin/env bash
# The markdown report (--format markdown, --md) of logs and kernel: the
# first screen (the cause, the next step, the problem with its evidence),
# the details in balanced <details> blocks, tables whose every row has the
# header's cell count (a '|' of a log line escaped), no raw control byte,
# secrets planted in a log redacted (URL user information, a high-entropy
# word, the value of a secret's NAME=VALUE) while the text report shows
# them, and the size cap: a log directory of 600 ranks stays under 60,000
# characters, the largest details block left out and said so, the first
# screen whole. tests/cli/mdcheck.py checks the shape.
. "$(dirname "$0")/lib.sh"
MDCHECK="$(dirname "$0")/mdcheck.py"
shape() { # DESCRIPTION [mdcheck options]: the shape of $OUT
	local d=$1
	shift
	if python3 "$MDCHECK" "$OUT" "$@" >"$ND_TMP/shape"; then ok "$d"; else not_ok "$d"; sed 's/^/    /' "$ND_TMP/shape"; fi
}

# the checker first proves it catches each fault on made-up input
printf 'esc \033[31m\n<details><summary>b</summary>\n<details><summary>c</summary>\n\n</details>\n</details>\n</details>\n' >"$ND_TMP/bad.md"
python3 "$MDCHECK" "$ND_TMP/bad.md" --action --max 10 >"$ND_TMP/faults"
printf '<details><summary>a</summary>\n\n| x | y |\n| --- | --- |\n| 1 | 2 | 3 |\n```sh\nls\n' >"$ND_TMP/bad.md"
python3 "$MDCHECK" "$ND_TMP/bad.md" >>"$ND_TMP/faults"
for f in 'raw control' 'more than 10' 'cells, the header has 2' 'no blank line after <summary>' 'never closed' 'a <details> inside another' 'without <details>' 'no .\*\*Do this now'; do
	grep -q "$f" "$ND_TMP/faults" && ok "checker: catches '$f'" || not_ok "checker: misses '$f': $(cat "$ND_TMP/faults")"
done
printf '### x\n\n**Do this now:** y\n\n```sh\nexport A=1\n```\n\n<details><summary>s</summary>\n\n| a \\| b | c |\n| --- | --- |\n\n</details>\n' >"$ND_TMP/good.md"
python3 "$MDCHECK" "$ND_TMP/good.md" --action >"$ND_TMP/faults" && ok "checker: a good document passes" || not_ok "checker: false alarm: $(cat "$ND_TMP/faults")"

# kernel: the worst event first, its next step, the events table
run_nd kernel --md "$ND_FIXTURES/kernel/dmesg.gz"
expect_rc 2 "kernel --md: a problem found"
expect_out '^### nccl-doctor kernel: ' "kernel: the verdict heading"
expect_out '^\*\*Next\*\* \(for `XID_79`\): ' "kernel: the next step for the worst event"
expect_out '^\*\*Problem\*\* \(error\): `XID_79` ' "kernel: the problem"
expect_out '^- .*dmesg\.gz:[0-9]+: `\[boot\+100\.000s\] NVRM: Xid .*79' "kernel: its evidence, the kernel line as code"
expect_out '^<details><summary>Kernel log</summary>$' "kernel: the details in a block"
expect_out '^\| GPU \| device \| event \| count \| first \| last \| detail \|$' "kernel: the events as a markdown table"
shape "kernel: the markdown's shape"

# logs with secrets planted: copied fixture, two lines more in rank 1's log
L="$ND_TMP/logs"
mkdir -p "$L"
cp "$ND_FIXTURES/logs/constructed/bootstrap-hang-2node/"* "$L/"
{
	echo 'node0:4102:4102 [1] NCCL INFO NCCL_TEST_URL set by environment to https://alice:hunter2@10.0.0.1/x'
	printf 'node0:4102:4102 [1] NCCL INFO Xq7bK9mZ2pL4vT8nR3sW6yU1cE5hJ0aDfGiKoMqS a|b `x` \033[31mred\033[0m HF_TOKEN=hf_short\n'
} >>"$L/nccl.node0.4102"
ND_FULL=1 run_nd logs "$L" # the whole text report: where the secrets show
if grep -q 'hunter2' "$OUT" && grep -q 'Xq7bK9mZ2pL4vT8nR3sW6yU1cE5hJ0aDfGiKoMqS' "$OUT" && grep -q 'hf_short' "$OUT"; then
	ok "the planted secrets reach the text report (the test plants them where a report shows them)"
else
	not_ok "the planted secrets are not in the text report: the test plants them nowhere visible"
fi
run_nd logs --format markdown "$L"
expect_rc 2 "logs --format markdown: a problem found"
expect_out '^### nccl-doctor logs: ' "logs: the verdict heading"
expect_out '^nccl-doctor [0-9.]+ · [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]+ UTC · NCCL 2\.18\.3\+cuda12\.2$' "logs: version, date and the job's NCCL"
expect_out '^\*\*Most likely cause:\*\* bootstrap network \(interface / address / firewall\) \(`bootstrap_network`\), confidence 0\.[0-9]+$' "logs: the most likely cause, in words"
n=$(awk '/^\*\*Most likely cause/{f=1; next} f && /^- /{c++; next} f && /^$/ && c{exit} END{print c+0}' "$OUT")
if [ "$n" -ge 1 ] && [ "$n" -le 3 ]; then ok "logs: 1 to 3 evidence lines under the cause ($n)"; else not_ok "logs: evidence lines under the cause: $n"; fi
expect_out '^\*\*Next\*\* \(for `LOG_HANG_BOOTSTRAP`\): ' "logs: the next step"
expect_out '^<details><summary>Ranks \(one line per process\)</summary>$' "logs: the ranks in a details block"
expect_out '^\| ❌ bootstrap network \(interface / address / firewall\) \| 0\.' "logs: the cause column in words"
expect_out 'a\\\|b' "logs: a log line's '|' escaped in its cell"
expect_no_out 'hunter2' "logs: URL user information redacted"
expect_no_out 'Xq7bK9mZ2pL4vT8nR3sW6yU1cE5hJ0aDfGiKoMqS' "logs: a high-entropy word redacted"
expect_no_out 'hf_short' "logs: the value of HF_TOKEN=... redacted"
expect_out 'https://\\?<redacted\\?>@10\.0\.0\.1' "logs: the redaction is said where the secret was"
shape "logs: the markdown's shape"
run_nd --md logs "$L"
cp "$OUT" "$ND_TMP/md1"
run_nd logs "$L" --format markdown
if diff <(grep -v UTC "$ND_TMP/md1") <(grep -v UTC "$OUT") >/dev/null; then ok "--md before the command, --format markdown after: one report"; else not_ok "--md and --format markdown differ"; fi

# the size cap: 600 ranks, a details block that would not fit
B="$ND_TMP/big"
mkdir -p "$B"
for i in $(seq 0 599); do
	h=$((i / 8)) p=$((5000 + i)) d=$((i % 8))
	{
		echo "node$h:$p:$p [$d] NCCL INFO Bootstrap : Using eth0:10.1.$((i / 250)).$((i % 250))<0>"
		echo "NCCL version 2.18.3+cuda12.2"
		echo "node$h:$p:$p [$d] NCCL INFO comm 0x55$i rank $i nranks 600 cudaDev $d nvmlDev $d busId ${d}8000 commId 0x3f1d2c4b5a697887 - Init START"
	} >"$B/nccl.node$h.$p"
done
run_nd logs "$B"
size=$(wc -c <"$OUT")
if [ "$size" -gt 60000 ]; then ok "600 ranks: the text report is larger than the cap ($size bytes)"; else not_ok "600 ranks: the text report has only $size bytes: the cap is not tested"; fi
run_nd logs --md "$B"
expect_rc 2 "600 ranks: logs --md"
shape "600 ranks: under 60,000 characters, the shape kept"
expect_out '^[0-9]+ details blocks? left out: run with --json for all$' "600 ranks: the blocks left out are said"
# (every rank stopped at Init START, nothing says why: the cause is unknown, its first candidate named)
expect_out '^\*\*Cause unknown; first candidate:\*\* ' "600 ranks: the first screen is whole"
expect_out '^<details><summary>Findings' "600 ranks: the smaller blocks are kept"
finish
