#!/usr/bin/env bash
# `sys` over every constructed sysroot fixture: the findings (severity and id)
# must be exactly those in NAME.expect, the JSON must have the documented
# shape, and the exit status must follow the worst finding.
. "$(dirname "$0")/lib.sh"
dir="$ND_FIXTURES/sysroot"
for expect in "$dir"/*.expect; do
  name=$(basename "$expect" .expect)
  run_nd sys --json --sysroot "$dir/$name"
  python3 - "$OUT" >"$ND_TMP/got" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["findings"]:
    print(f["severity"], f["id"])
PY
  if sort "$ND_TMP/got" | diff -u "$expect" - >"$ND_TMP/diff"; then ok "$name: findings as expected"
  else not_ok "$name: findings differ"; sed 's/^/    /' "$ND_TMP/diff"; fi
  json_check 'd["schema_version"] == 4 and d["command"] == "sys" and isinstance(d["facts"], dict) and isinstance(d["findings"], list) and "tool_version" in d' "$name: JSON top level"
  json_check 'all(set(f) >= {"id","severity","cause","title","evidence","fixes"} for f in d["findings"])' "$name: finding shape"
  json_check 'd["summary"]["exit_code"] == (2 if any(f["severity"]=="error" for f in d["findings"]) else 1 if any(f["severity"]=="warning" for f in d["findings"]) else 0)' "$name: summary exit code"
  want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["exit_code"])' "$OUT")
  expect_rc "$want" "$name: exit status follows the worst finding"
  run_nd sys --sysroot "$dir/$name"
  expect_out '^Verdict: ' "$name: text report ends in a verdict"
done

# facts the fixtures were built to show
run_nd sys --json --sysroot "$dir/pcie-4gpu-acs"
json_check 'len(d["facts"]["gpus"]["gpus"]) == 4 and d["facts"]["gpus"]["gpus"][0]["bdf"] == "0000:03:00.0"' "4 GPUs in bus order"
json_check 'd["facts"]["gpus"]["gpus"][0]["link_width"] == 16 and d["facts"]["gpus"]["gpus"][0]["max_link_speed_gts"] == 32.0' "link width and speed"
json_check 'd["facts"]["gpus"]["gpus"][0]["bar1_bytes"] == 128*2**30' "BAR1 size from resource"
json_check 'sorted(b["bdf"] for b in d["facts"]["pcie_bridges"]["bridges"] if b["redirect"] is True) == ["0000:02:08.0","0000:02:10.0","0000:12:08.0","0000:12:10.0"]' "redirecting bridges named"
json_check 'any("setpci -s 0000:02:08.0 ECAP_ACS+0x6.w=0000" in x["text"] for f in d["findings"] for x in f["fixes"])' "setpci command given"
json_check 'any(x["text"].startswith("pci=disable_acs_redir=0000:02:08.0;") for f in d["findings"] for x in f["fixes"])' "kernel parameter given"
run_nd sys --json --sysroot "$dir/unprivileged"
json_check 'all(b["acs"] is None and b["unknown"]["acs"] == "needs root" for b in d["facts"]["pcie_bridges"]["bridges"])' "unprivileged: ACS unknown (needs root), never clear"
run_nd sys --json --sysroot "$dir/docker-small-shm"
json_check 'd["facts"]["container"]["runtime"] == "docker" and d["facts"]["container"]["shm_size"] == 64*2**20' "docker: container and /dev/shm size"
json_check 'd["facts"]["limits"]["memlock"] == 65536' "docker: memlock 64 KiB"
json_check 'any("--shm-size" in x["text"] or "--ipc=host" in x["text"] for f in d["findings"] if f["id"]=="SHM_TOO_SMALL" for x in f["fixes"])' "docker: --ipc=host / --shm-size fix"
run_nd sys --json --sysroot "$dir/iommu-translated"
json_check 'any("iommu=pt" in x["text"] for f in d["findings"] if f["id"]=="IOMMU_TRANSLATED" for x in f["fixes"])' "iommu: GRUB line with iommu=pt"
run_nd sys --json --sysroot "$dir/env-traps"
json_check '{v["name"]: v["source"] for v in d["facts"]["environment"]["variables"]}["NCCL_P2P_LEVEL"] == "/etc/nccl.conf"' "env: nccl.conf settings attributed to the file"
# NVSwitch boards: the fabric manager's facts and findings
run_nd sys --json --sysroot "$dir/hgx-fm-healthy"
json_check 'd["facts"]["fabric"]["nvswitches"] == 4 and d["facts"]["fabric"]["nvswitch_nodes"] == 4 and d["facts"]["fabric"]["nvswitch_fabric"] is True' "hgx: 4 NVSwitches on the bus and in /dev"
json_check 'd["facts"]["fabric"]["fabric_manager_pid"] == 2112 and d["facts"]["fabric"]["fabric_manager_version"] == "570.86.15" and d["facts"]["fabric"]["fabric_manager_enabled"] is True' "hgx: fabric manager running, enabled, version from its log"
run_nd sys --json --sysroot "$dir/hgx-fm-stopped"
json_check '[f for f in d["findings"] if f["id"] == "FABRIC_MANAGER_NOT_RUNNING"][0]["cause"] == "fabric_manager_nvswitch"' "hgx stopped: cause fabric_manager_nvswitch"
json_check 'any("systemctl enable --now nvidia-fabricmanager" in x["text"] for f in d["findings"] if f["id"] == "FABRIC_MANAGER_NOT_RUNNING" for x in f["fixes"])' "hgx stopped: start it"
json_check 'any("nvidia-smi -r" in x["text"] for f in d["findings"] if f["id"] == "FABRIC_MANAGER_NOT_RUNNING" for x in f["fixes"])' "hgx stopped: GPU reset when it had run"
json_check 'any(x["text"] == "export NCCL_NVLS_ENABLE=0" for f in d["findings"] for x in f["fixes"])' "hgx stopped: NCCL_NVLS_ENABLE=0 work-around"
run_nd sys --json --sysroot "$dir/hgx-fm-version-mismatch"
json_check '[f for f in d["findings"] if f["id"] == "FABRIC_MANAGER_VERSION_MISMATCH"][0]["title"] == "fabric manager 570.124.06, driver 570.86.15: they must match exactly"' "hgx mismatch: both versions named"
json_check 'any(x["text"] == "sudo apt-get install nvidia-fabricmanager-570=570.86.15-1" for f in d["findings"] for x in f["fixes"])' "hgx mismatch: the exact package to install"
json_check 'any("incompatible with NVSwitch driver" in e["text"] for f in d["findings"] if f["id"] == "FABRIC_MANAGER_LOG_ERRORS" for e in f["evidence"])' "hgx mismatch: the log's error line as evidence"
# no NVSwitch: a note, no fabric finding
run_nd sys --json --sysroot "$dir/pcie-4gpu-acs"
json_check 'd["facts"]["fabric"]["nvswitch_fabric"] is False and any("no NVSwitch fabric" in n for n in d["facts"]["fabric"]["notes"]) and not any(f["id"].startswith("FABRIC") for f in d["findings"])' "pcie: no NVSwitch fabric, no fabric finding"
# the machine recorded on the real H200
run_nd sys --json --sysroot "$dir/h200-vm"
json_check 'd["facts"]["gpus"]["gpus"][0]["bdf"] == "0000:00:06.0" and d["facts"]["gpus"]["gpus"][0]["name"] == "H200"' "h200: the GPU at 0000:00:06.0"
json_check 'd["facts"]["gpus"]["gpus"][0]["link_speed_gts"] == 32.0 and d["facts"]["gpus"]["gpus"][0]["link_width"] == 16' "h200: Gen5 x16"
json_check 'd["facts"]["gpus"]["gpus"][0]["bar1_bytes"] == 256*2**30' "h200: 256 GiB BAR1 (second BAR: BAR0 is 64-bit here)"
json_check 'd["facts"]["driver"]["version"] == "580.159.04" and d["facts"]["driver"]["kernel_module"] == "open"' "h200: driver 580.159.04, open module"
json_check 'sorted(l["version"].split("+")[0] for l in d["facts"]["nccl_libraries"]["libraries"]) == ["2.28.3","2.28.9"]' "h200: both NCCL copies"
json_check '[l["loaded_by"] for l in d["facts"]["nccl_libraries"]["libraries"] if l["version"].startswith("2.28.9")] == ["PyTorch 2.11.0+cu130"]' "h200: 2.28.9 marked as the copy PyTorch loads"
json_check 'd["facts"]["nccl_libraries"]["frameworks"][0]["via"].startswith("DT_RPATH")' "h200: found through libtorch_cuda.so's DT_RPATH"
json_check 'd["facts"]["host"]["is_vm"] is True and d["facts"]["container"]["runtime"] == "docker"' "h200: VM and container facts"
json_check 'd["facts"]["container"]["shm_size"] == 128*2**30' "h200: /dev/shm 128 GiB"
json_check 'd["facts"]["fabric"]["nvswitch_fabric"] is False and any("no NVSwitch fabric" in n for n in d["facts"]["fabric"]["notes"])' "h200: no NVSwitch fabric"
finish
