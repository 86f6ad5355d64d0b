#!/usr/bin/env bash
# The markdown report (--format markdown, --md) of check and p2p on the
# fake GPUs: the verdict heading, the facts a maintainer asks first
# (version, date, driver, CUDA, GPUs), the action measured to work as a
# ```sh block on the first screen, the most likely cause with at most three
# evidence lines, what was not checked; the details in balanced <details>
# blocks of markdown tables; NCCL variables of the machine's environment
# with a URL password, a secret's name and an escape sequence come out
# redacted and visible; a healthy machine has no action. mdcheck.py checks
# the shape (t631 proves the checker).
. "$(dirname "$0")/lib.sh"
use_fake_gpus
MDCHECK="$(dirname "$0")/mdcheck.py"
shape() { # DESCRIPTION [mdcheck options]: the shape of $OUT
	local d=$1
	shift
	if python3 "$MDCHECK" "$OUT" "$@" >"$ND_TMP/shape"; then ok "$d"; else not_ok "$d"; sed 's/^/    /' "$ND_TMP/shape"; fi
}
first_screen() { # REGEX DESCRIPTION: REGEX is above the first <details>
	local n d
	n=$(grep -nE -- "$1" "$OUT" | head -1 | cut -d: -f1)
	d=$(grep -n '^<details>' "$OUT" | head -1 | cut -d: -f1)
	if [ -n "$n" ] && [ -n "$d" ] && [ "$n" -lt "$d" ]; then ok "$2"; else not_ok "$2 (line ${n:-none}, first <details> ${d:-none})"; head -30 "$OUT" | sed 's/^/    /'; fi
}

# the classic case, NCCL hanging across the switches, in a copy of its
# sysroot whose recorded environment has three NCCL variables more
SR="$ND_TMP/sysroot"
cp -a "$ND_FIXTURES/sysroot/pcie-4gpu-acs" "$SR"
printf 'NCCL_TEST_URL=https://alice:hunter2@10.0.0.1/x\0NCCL_TEST_ESC=a\033[31mb|c\0NCCL_IB_TOKEN=plainsecret\0' >>"$SR/proc/self/environ"
SOURCE_DATE_EPOCH=0 ND_RUN_TIMEOUT=150 NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4-nccl-p2p-hang.json" \
	run_nd check --md --driver --sysroot "$SR" --max-bytes 1M --timeout 3
expect_rc 2 "classic case: exit 2"
expect_out '^### nccl-doctor check: BROKEN$' "the verdict heading"
expect_out '^BROKEN: 4 GPUs, ' "the headline"
expect_out '^nccl-doctor [0-9.]+ · 1970-01-01 00:00 UTC · driver 580\.95\.05 · CUDA 12\.8 · GPUs 4 × NVIDIA H100 PCIe$' \
	"version, date (SOURCE_DATE_EPOCH), driver, CUDA, GPU model and count"
first_screen '^\*\*Do this now:\*\* NCCL_P2P_LEVEL=PIX \(measured to work on 4 GPUs\)$' "the action, measured, on the first screen"
shape "check: the shape, the action as a \`\`\`sh block" --action
first_screen '^export NCCL_P2P_LEVEL=PIX$' "the lines to paste"
first_screen '^\*\*Most likely cause:\*\* P2P over PCIe blocked \(ACS / IOMMU\) \(`p2p_pcie_acs_iommu`\), confidence 0\.[0-9]+$' \
	"the most likely cause in words, its id beside it"
n=$(awk '/^\*\*Most likely cause/{f=1; next} f && /^- /{c++; next} f && /^$/ && c{exit} END{print c+0}' "$OUT")
if [ "$n" -ge 1 ] && [ "$n" -le 3 ]; then ok "1 to 3 evidence lines under the cause ($n)"; else not_ok "evidence lines under the cause: $n"; fi
first_screen '^\*\*Not checked:\*\*$' "what could not be checked"
first_screen "^- kernel: cannot read '/dev/kmsg' in the sysroot" "the kernel stage, and why"
expect_out '^<details><summary>PCIe bridges above GPUs</summary>$' "a section in a details block"
expect_out '^\| BRIDGE \| ID \| ABOVE \| ACS \| ACSCTL \| REDIRECT \| LINK \|$' "its table as a markdown table"
expect_out '^\| ❌ 0000:02:08\.0 \| ' "a bridge with ACS redirect marked"
expect_out '^<details><summary>Findings: 3 errors, ' "the findings in a details block"
expect_out '^#### ERROR `ACS_REDIRECT_ENABLED`$' "a finding"
expect_out '^Cause: P2P over PCIe blocked \(ACS / IOMMU\) \(`p2p_pcie_acs_iommu`\)$' "its cause class in words"
expect_out '^sudo setpci -s 0000:12:10\.0 ECAP_ACS\+0x6\.w=0000$' "its fixes in a fenced block"
expect_out '^\| ❌ P2P over PCIe blocked \(ACS / IOMMU\) \| 0\.' "the causes table in words"
expect_out '^\| NCCL_TEST_URL \| https://\\<redacted\\>@10\.0\.0\.1/x \|' "an NCCL variable's URL password redacted"
expect_out '^\| NCCL_IB_TOKEN \| \\<redacted\\> \|' "a secret's name: its value redacted"
expect_out '^\| NCCL_TEST_ESC \| a\\\\x1b\\\[31mb\\\|c \|' "an escape sequence visible, its '|' escaped"
expect_no_out 'hunter2|plainsecret' "no secret in the report"
expect_out '^<sub>made by nccl-doctor check --format markdown; secrets redacted as in snapshots</sub>$' "the last line says what it is"

# p2p: the top problem's fix as the action
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4-p2p-hang.json" run_nd p2p --quick --format markdown --timeout 3
expect_rc 2 "p2p: exit 2"
expect_out '^### nccl-doctor p2p: ' "p2p: the verdict heading"
expect_out '^nccl-doctor [0-9.]+ · .* UTC · GPUs 4 × NVIDIA H100 PCIe$' "p2p: the GPUs tested"
first_screen '^\*\*Do this now\*\* \(env, for `P2P_HANG`\):$' "p2p: the top problem's fix"
first_screen '^export NCCL_P2P_LEVEL=PXB$' "p2p: as lines to paste"
first_screen '^\*\*Problem\*\* \(error\): `P2P_HANG` transfers hang between 8 GPU pairs' "p2p: the problem"
expect_out '^<details><summary>GPU pairs</summary>$' "p2p: the pairs in a details block"
expect_out '^\| pair \| link \| peer access \| status \| CE \| SM \| NCCL \| detail \|$' "p2p: the pairs table"
shape "p2p: the shape" --action

# healthy: no action, no cause
ND_RUN_TIMEOUT=150 NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/hgx8-healthy.json" \
	run_nd check --md --driver --sysroot "$ND_FIXTURES/sysroot/hgx-fm-healthy" --max-bytes 1M
expect_rc 0 "healthy: exit 0"
expect_out '^### nccl-doctor check: HEALTHY$' "healthy: the verdict heading"
expect_out '· GPUs 8 × ' "healthy: 8 GPUs named"
expect_no_out '^\*\*Do this now|^\*\*Most likely cause|^\*\*Problem' "healthy: no action, no cause, no problem"
shape "healthy: the shape"
finish
