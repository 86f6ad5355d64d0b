#!/bin/bash
# Device check of issue 16 (NVSwitch fabric) on a real GPU machine. On the
# lent H200 VM (no NVSwitch) it checks that `sys` and `topo` say "no NVSwitch
# fabric" and claim nothing false: no fabric manager or NVLink finding, each
# GPU's fabric state as NVML gives it (compared with `nvidia-smi -q`'s Fabric
# section), the CUDA multicast attribute as a ctypes call of
# cuDeviceGetAttribute(132) gives it, the NVLink count as `nvidia-smi nvlink
# -s` lists it. On an HGX machine the same script compares the fabric
# manager's facts with systemctl and `nv-fabricmanager --version` and prints
# the findings (read them by hand: that is the real-HGX validation). It also
# compiles our NVML/CUDA declarations against the real nvml.h and cuda.h
# (tests/abi, no cmocka needed) and compares every size, offset and constant.
# Run from the repository root:
#
#   OUT=/some/dir bash tests/device/validate-nvswitch.sh         # builds build-nvs/
#   OUT=/some/dir ND_BIN=/path/nccl-doctor bash tests/device/validate-nvswitch.sh
#
# Writes under $OUT: summary.txt (ok/FAIL/info per check), build.log, sys.json,
# sys.txt, topo.json, topo.txt, nvsmi-q.txt, nvsmi-nvlink.txt, cuda-mc.txt,
# abi.txt. Every command has a timeout; about 2 minutes with the build.
# Read-only. NCCL_NVLS_ENABLE=0 stays exported.
set -u
export NCCL_NVLS_ENABLE=0
OUT=${OUT:-/tmp/nd-nvswitch}
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
fails=0
say() { echo "$*" | tee -a "$SUMMARY"; }
pass() { say "ok   $*"; }
fail() { say "FAIL $*"; fails=$((fails + 1)); }
info() { say "info $*"; }
unset NCCL_DOCTOR_LIBRARY_PATH NCCL_DOCTOR_LIBRARY_PATH_ONLY NCCL_DOCTOR_FAKEGPU_SCENARIO NCCL_DOCTOR_SYSROOT
say "# nccl-doctor NVSwitch fabric device check, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), host $(hostname)"

. tests/device/lib.sh
nd_binary build-nvs 240 || { fail "no nccl-doctor binary (see build.log)"; exit 1; }
say "binary: $ND_BIN, GPU: $(timeout 20 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"

# 1. our declarations against the real headers (sizes, offsets, constants, prototypes)
CUINC=${CUDA_INCLUDE:-/usr/local/cuda/include}
if [ -f "$CUINC/nvml.h" ] && [ -f "$CUINC/cuda.h" ]; then
  cat >"$OUT/abi_main.c" <<'C'
#include "abi_list.h"
#include <stdio.h>
#include <string.h>
static int cmp(const char *what, const struct abi_entry *ours, const struct abi_entry *real)
{
	int bad = 0, n = 0;
	for (const struct abi_entry *o = ours; o->what; o++, n++) {
		const struct abi_entry *r = real;
		while (r->what && strcmp(r->what, o->what) != 0)
			r++;
		if (!r->what) { printf("FAIL %s %s: not in the real header's table\n", what, o->what); bad++; }
		else if (r->value != o->value) { printf("FAIL %s %s: ours %lld, real %lld\n", what, o->what, o->value, r->value); bad++; }
	}
	printf("%s: %d entries compared, %d differ\n", what, n, bad);
	return bad;
}
int main(void)
{
	int bad = cmp("cuda", abi_ours_cuda, abi_real_cuda) + cmp("nvml", abi_ours_nvml, abi_real_nvml);
	return bad ? 1 : 0;
}
C
  if timeout 120 cc -std=c11 -D_GNU_SOURCE -w -Werror=incompatible-pointer-types -Isrc -Itests/abi -I"$CUINC" \
       -DND_HAVE_REAL_CUDA="\"$CUINC/cuda.h\"" -DND_HAVE_REAL_NVML="\"$CUINC/nvml.h\"" \
       tests/abi/abi_ours.c tests/abi/abi_real.c "$OUT/abi_main.c" -o "$OUT/abi_check" >"$OUT/abi.txt" 2>&1 &&
     "$OUT/abi_check" >>"$OUT/abi.txt" 2>&1; then
    pass "NVML/CUDA declarations (fabric info, NVLink counters, field values, multicast attribute) equal $CUINC's ($(grep -h 'entries compared' "$OUT/abi.txt" | tr '\n' ' '))"
  else
    fail "declarations differ from $CUINC's headers (or did not compile): see abi.txt"; grep FAIL "$OUT/abi.txt" | head -10 | tee -a "$SUMMARY"
  fi
else
  info "no nvml.h/cuda.h under $CUINC: ABI comparison skipped (set CUDA_INCLUDE)"
fi

# 2. the machine's NVSwitches as sysfs shows them (class 0x0680 of vendor 0x10de)
nsw=0
for d in /sys/bus/pci/devices/*; do
  [ "$(cat "$d/vendor" 2>/dev/null)" = 0x10de ] && case "$(cat "$d/class" 2>/dev/null)" in 0x0680*) nsw=$((nsw + 1)) ;; esac
done
info "NVSwitch PCI functions in sysfs: $nsw; /dev/nvidia-nvswitch nodes: $(ls /dev/nvidia-nvswitch[0-9]* 2>/dev/null | wc -l)"

timeout 60 "$ND_BIN" --json sys >"$OUT/sys.json" 2>"$OUT/sys.err"; rs=$?
timeout 60 "$ND_BIN" --no-color sys >"$OUT/sys.txt" 2>>"$OUT/sys.err"
timeout 90 "$ND_BIN" --json topo >"$OUT/topo.json" 2>"$OUT/topo.err"; rt=$?
timeout 90 "$ND_BIN" --no-color topo >"$OUT/topo.txt" 2>>"$OUT/topo.err"
say "sys exit $rs, topo exit $rt"
timeout 30 nvidia-smi -q >"$OUT/nvsmi-q.txt" 2>&1
timeout 30 nvidia-smi nvlink -s >"$OUT/nvsmi-nvlink.txt" 2>&1

# 3. multicast per CUDA ordinal through ctypes, independent of our worker
timeout 60 python3 - >"$OUT/cuda-mc.txt" 2>&1 <<'PY'
import ctypes
cu = ctypes.CDLL("libcuda.so.1")
r = cu.cuInit(0)
if r != 0:
    print("cuInit", r); raise SystemExit(0)
n = ctypes.c_int(); cu.cuDeviceGetCount(ctypes.byref(n))
for i in range(n.value):
    d = ctypes.c_int(); cu.cuDeviceGet(ctypes.byref(d), i)
    bus = ctypes.create_string_buffer(64); cu.cuDeviceGetPCIBusId(bus, 64, d)
    v = ctypes.c_int(-1); e = cu.cuDeviceGetAttribute(ctypes.byref(v), 132, d)  # CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED
    print(bus.value.decode().lower(), e, v.value)
PY

python3 - "$OUT" "$nsw" >>"$SUMMARY" 2>&1 <<'PY'
import json, re, sys
out, nsw = sys.argv[1], int(sys.argv[2])
bad = 0
def check(ok, what):
    global bad
    print(("ok   " if ok else "FAIL ") + what); bad += 0 if ok else 1
def info(what):
    print("info " + what)
s = json.load(open(out + "/sys.json")); t = json.load(open(out + "/topo.json"))
st = open(out + "/sys.txt").read(); tt = open(out + "/topo.txt").read()
fab = s["facts"].get("fabric", {})
fabric_fids = lambda d: [f["id"] for f in d["findings"] if f["cause"] == "fabric_manager_nvswitch" or f["id"].startswith(("NVLINK_", "NVLS_", "GPU_FABRIC"))]
check(fab.get("nvswitches") == nsw, "sys counts %s NVSwitches, sysfs %d" % (fab.get("nvswitches"), nsw))
tf = t.get("fabric")
check(tf is not None and len(tf["gpus"]) == len(t.get("gpus", [])), "topo has a fabric row per GPU")
if nsw == 0:
    check(fab.get("nvswitch_fabric") is False and "no NVSwitch fabric" in st, "sys says no NVSwitch fabric")
    check(tf is not None and tf["nvswitch_fabric"] is False and "no NVSwitch fabric" in tt, "topo says no NVSwitch fabric")
    check(fabric_fids(s) == [] and fabric_fids(t) == [], "no fabric, NVLink or NVLS finding (sys %s, topo %s)" % (fabric_fids(s), fabric_fids(t)))
else:
    info("NVSwitch machine: sys fabric facts %s" % {k: v for k, v in fab.items() if k != "notes"})
    info("findings: sys %s, topo %s" % (fabric_fids(s), fabric_fids(t)))
# fabric state per GPU against nvidia-smi -q ("Fabric" block: State, Status)
q = open(out + "/nvsmi-q.txt").read()
blocks = re.split(r"\n(?=GPU [0-9A-Fa-f]{8}:)", q)
smi = {}
for b in blocks:
    m = re.match(r"GPU ([0-9A-Fa-f]{8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])", b)
    f = re.search(r"\n\s+Fabric\s*\n\s+State\s+:\s*(.+)\n\s+Status\s+:\s*(.+)", b)
    if m and f:
        smi[m.group(1).lower()[4:]] = (f.group(1).strip(), f.group(2).strip())
names = {"N/A": "not supported", "Not Supported": "not supported", "Not Started": "not started", "In Progress": "in progress", "Completed": "completed"}
for g, fr in zip(t.get("gpus", []), (tf or {}).get("gpus", [])):
    s_state = smi.get((g["bdf"] or "")[-12:].lower())
    info("GPU %d %s: fabric state %s, status %s, error %s; nvidia-smi -q: %s" % (g["index"], g["bdf"], fr["state"], fr["status"], fr["error"], s_state))
    if s_state:
        check(names.get(s_state[0], s_state[0].lower()) == fr["state"], "GPU %d fabric state %s as nvidia-smi's %s" % (g["index"], fr["state"], s_state[0]))
# multicast against ctypes
mc = {}
for line in open(out + "/cuda-mc.txt"):
    p = line.split()
    if len(p) == 3 and ":" in p[0]:
        mc[p[0][-12:]] = (int(p[1]), int(p[2]))
for g, fr in zip(t.get("gpus", []), (tf or {}).get("gpus", [])):
    c = mc.get((g["bdf"] or "")[-12:])
    if c is None:
        info("GPU %d: no ctypes answer (%s)" % (g["index"], open(out + "/cuda-mc.txt").read().strip()[:120]))
        continue
    want = None if c[0] != 0 else bool(c[1])
    check(fr["multicast"] == want, "GPU %d multicast %s, ctypes cuDeviceGetAttribute(132) gives %s (CUresult %d)" % (g["index"], fr["multicast"], c[1], c[0]))
# NVLinks against nvidia-smi nvlink -s
nl = open(out + "/nvsmi-nvlink.txt").read()
links = len(re.findall(r"^\s+Link \d+:", nl, re.M))
ours = sum(x["nvlinks_listed"] or 0 for x in (tf or {}).get("gpus", []))
info("NVLinks: nvidia-smi lists %d link lines, topo %d (nvidia-smi says: %s)" % (links, ours, nl.strip().splitlines()[:2]))
check(links == ours or (links == 0 and ours == 0) or nsw == 0 and ours == 0, "NVLink count agrees with nvidia-smi nvlink -s (%d / %d)" % (ours, links))
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] || fails=$((fails + 1))

# 4. on an NVSwitch machine: the fabric manager as systemd and its binary see it
if [ "$nsw" -gt 0 ]; then
  info "systemctl is-active nvidia-fabricmanager: $(timeout 10 systemctl is-active nvidia-fabricmanager 2>&1)"
  info "systemctl is-enabled nvidia-fabricmanager: $(timeout 10 systemctl is-enabled nvidia-fabricmanager 2>&1)"
  info "nv-fabricmanager --version: $(timeout 10 nv-fabricmanager --version 2>&1 | tr '\n' ' ')"
  info "sys says: $(grep -A12 '^NVSwitch fabric' "$OUT/sys.txt" | tr -s ' ' | tr '\n' ';')"
fi
if python3 -c 'import jsonschema' 2>/dev/null; then
  if python3 tests/tools/validate_json.py docs/schema "$OUT/sys.json" "$OUT/topo.json" >"$OUT/validate.txt" 2>&1; then
    pass "sys and topo JSON validate against docs/schema"
  else fail "schema: $(head -3 "$OUT/validate.txt")"; fi
else
  info "python3 has no jsonschema: schema validation skipped"
fi
say "# $fails failure(s); outputs in $OUT"
[ "$fails" -eq 0 ]
