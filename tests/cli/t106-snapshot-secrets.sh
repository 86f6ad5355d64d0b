#!/usr/bin/env bash
# snapshot keeps secrets out (issue 10 item 1): the environment is filtered by
# name and credential-looking values are redacted wherever it was read from:
# a sysroot whose proc/self is a link to proc/PID (as on a live machine), the
# live machine itself, and a snapshot of an unpacked snapshot.
. "$(dirname "$0")/lib.sh"
# no_leak ARCHIVE WHAT: none of the planted secret values is in the archive
# (raw bytes, compressed or not, and every unpacked file)
no_leak() {
  local raw="$ND_TMP/raw.tar"
  case "$1" in *.gz) gzip -dc "$1" >"$raw" ;; *) cp "$1" "$raw" ;; esac
  if grep -aqE 'leakcheck|hunter2|s3cr3t' "$raw"; then
    not_ok "$2: a secret is in the archive"; tr "\0" "\n" <"$raw" | grep -aoE "[A-Z_]+=[^ ]*(leakcheck|hunter2|s3cr3t)" | head -3 | sed 's/^/    /'
  else ok "$2: no secret in the archive"; fi
}
unpack() { rm -rf "$2"; mkdir -p "$2"; tar -xf "$1" -C "$2"; }
envfile() { tr '\0' '\n' <"$1"; }

# a live-like sysroot: proc/self -> 4242
fx="$ND_FIXTURES/sysroot/env-traps"
root="$ND_TMP/live-like"
mkdir -p "$root"; cp -r "$fx/." "$root/"
rm -rf "$root/proc/self"; mkdir -p "$root/proc/4242"
cp "$fx/proc/self/limits" "$fx/proc/self/mountinfo" "$root/proc/4242/"
ln -s 4242 "$root/proc/self"
printf '%s\0' \
  'AWS_SECRET_ACCESS_KEY=hunter2-aws' 'HF_TOKEN=hf_leakcheckAbCdEf0123456789' 'GITHUB_TOKEN=leakcheck-gh' \
  'HTTPS_PROXY=http://alice:hunter2@proxy:3128' 'NCCL_DEBUG=INFO' 'NCCL_SOCKET_IFNAME=nosuchif0' \
  'NCCL_IB_PKEY=0x8001' 'CUDA_VISIBLE_DEVICES=GPU-3f2a1b4c-5d6e-7f80-91a2-b3c4d5e6f708,1' \
  'VLLM_API_KEY=s3cr3t' 'VLLM_SERVER_URL=https://bob:s3cr3t@models.example.com/v1' \
  'TORCH_NCCL_ASYNC_ERROR_HANDLING=1' 'TORCH_DISTRIBUTED_DEBUG=DETAIL' 'TORCH_HOME=/data/torch' \
  'VLLM_CACHE_KEYS=Zk9xQ2hQa0t1bGVha2NoZWNrMTIzNDU2Nzg5' 'NCCL_NET_PLUGIN_TAG=leakcheckQ7xP3vR9tK2mW8nB4zH6' \
  'MASTER_ADDR=10.0.0.1' 'MASTER_PORT=29500' 'RANK=3' 'SLURM_PROCID=3' 'SLURM_JOB_ACCOUNT=leakcheck-acct' \
  'PATH=/usr/local/cuda/bin:/usr/bin' 'LD_LIBRARY_PATH=/usr/local/cuda/lib64' 'HOME=/home/alice' \
  'SSH_AUTH_SOCK=/tmp/leakcheck.sock' >"$root/proc/4242/environ"
run_nd snapshot --sysroot "$root" -o "$ND_TMP/ll.tar"
expect_rc 0 "snapshot of a sysroot whose proc/self is a link"
no_leak "$ND_TMP/ll.tar" "proc/self -> proc/4242"
unpack "$ND_TMP/ll.tar" "$ND_TMP/un"
[ -L "$ND_TMP/un/proc/self" ] && ok "proc/self stays a link" || not_ok "proc/self is not a link in the archive"
e="$ND_TMP/un/proc/4242/environ"
if [ -f "$e" ]; then ok "environment recorded under proc/4242"; else not_ok "no proc/4242/environ in the archive"; fi
for want in 'NCCL_DEBUG=INFO' 'NCCL_SOCKET_IFNAME=nosuchif0' 'NCCL_IB_PKEY=0x8001' \
  'CUDA_VISIBLE_DEVICES=GPU-3f2a1b4c-5d6e-7f80-91a2-b3c4d5e6f708,1' 'TORCH_NCCL_ASYNC_ERROR_HANDLING=1' \
  'TORCH_DISTRIBUTED_DEBUG=DETAIL' 'MASTER_ADDR=10.0.0.1' 'MASTER_PORT=29500' 'RANK=3' 'SLURM_PROCID=3' \
  'PATH=/usr/local/cuda/bin:/usr/bin' 'LD_LIBRARY_PATH=/usr/local/cuda/lib64' 'HOME=/home/alice' \
  'VLLM_API_KEY=<redacted>' 'VLLM_SERVER_URL=https://<redacted>@models.example.com/v1' \
  'VLLM_CACHE_KEYS=<redacted>' 'NCCL_NET_PLUGIN_TAG=<redacted>'; do
  if envfile "$e" | grep -qxF -- "$want"; then ok "kept: $want"; else not_ok "missing: $want"; envfile "$e" | sed 's/^/    env: /' | head -30; fi
done
for gone in AWS_SECRET_ACCESS_KEY HF_TOKEN GITHUB_TOKEN HTTPS_PROXY TORCH_HOME SLURM_JOB_ACCOUNT SSH_AUTH_SOCK; do
  if envfile "$e" | grep -q "^$gone="; then not_ok "$gone kept"; else ok "$gone dropped"; fi
done
# the unpacked archive reads the same to sys
run_nd sys --json --sysroot "$ND_TMP/un"
json_check '"nosuchif0" in json.dumps(d)' "sys sees the kept NCCL variables in the unpacked snapshot"
# re-snapshotting the unpacked archive, with a secret planted again
printf 'NCCL_DEBUG=WARN\0HF_TOKEN=leakcheck-again\0' >>"$e"
run_nd snapshot --sysroot "$ND_TMP/un" -o "$ND_TMP/re.tar.gz"
expect_rc 0 "snapshot of an unpacked snapshot"
no_leak "$ND_TMP/re.tar.gz" "re-snapshot"
# the live machine: the environment of the process itself
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
(cd "$ND_TMP" && env AWS_SECRET_ACCESS_KEY=leakcheck-aws-x HF_TOKEN=leakcheck-hf-y NCCL_DEBUG=INFO \
  NCCL_IB_HCA=mlx5_0 timeout 60 "$ND_BIN" snapshot -o s.tar.gz >"$OUT" 2>"$ERR" </dev/null); RC=$?
expect_rc 0 "live snapshot with secrets in the environment"
no_leak "$ND_TMP/s.tar.gz" "live machine"
rm -rf "$ND_TMP/lu"; mkdir "$ND_TMP/lu"; tar -xzf "$ND_TMP/s.tar.gz" -C "$ND_TMP/lu"
if cat "$ND_TMP"/lu/proc/*/environ 2>/dev/null | tr '\0' '\n' | grep -qx 'NCCL_IB_HCA=mlx5_0'; then
  ok "live: NCCL variables kept"; else not_ok "live: NCCL_IB_HCA not in the recorded environment"; fi
# and a snapshot of that unpacked live snapshot
run_nd snapshot --sysroot "$ND_TMP/lu" -o "$ND_TMP/lre.tar"
expect_rc 0 "snapshot of the unpacked live snapshot"
no_leak "$ND_TMP/lre.tar" "live re-snapshot"
# sys shows the kept variables with the same redaction
for fmt in "" --json; do
  OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
  env VLLM_API_KEY=leakcheck-sys VLLM_SERVER_URL=https://bob:leakcheck@h/v1 NCCL_DEBUG=INFO \
    timeout 60 "$ND_BIN" sys $fmt >"$OUT" 2>"$ERR" </dev/null
  expect_no_out "leakcheck" "sys $fmt: no credential in the report"
  expect_out "NCCL_DEBUG" "sys $fmt: NCCL variables shown"
done
finish
