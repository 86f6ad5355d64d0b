#!/bin/bash
# nccl-doctor logs on the public corpus of real failure logs
# (tests/fixtures/logs/public, docs/logs.md "Accuracy"): the scores of each
# set must not fall below what the rules reached. The sets are scored apart:
# 001-042 (the development set), 043-062 (held-out batch 1, added and scored
# before the rules of round 1), 063-070 (held-out batch 2, scored before the
# rules of round 2), 071-075 (held-out batch 3, scored after both rounds; no
# rule written from it), 076-078 (held-out batch 4, scored before the rules of
# round 3), 079-096 (held-out batch 5, scored after round 3 before any rule
# was written from it), 097-104 (held-out batch 6, scored the same way, after
# batch 5 and with no rule from either), 105-117 (held-out batch 7, gathered
# after round 4 and scored with the round-4 analyser before any rule was
# written from it), 118-126 (held-out batch 8, gathered and scored the same
# way, after batch 7). Round 4 (issue 14) had two parts:
# rules written from the misses of 001-078 before batches 5 and 6 were seen
# (their out-of-sample check: unchanged by it), and rules written from the
# misses of batches 5 and 6 (in sample from then on: docs/logs.md). Round 5
# wrote general rules from the misses left over all six batches (in sample).
# The last lines score 001-078 (the corpus when round 4 began), 001-104 and
# the whole corpus; the whole-corpus gate counts batches 7 and 8, joined
# after round 4 and scored before any rule was written from them. The rules
# written from batch 7's misses (branch logsacc6, docs/logs.md "Rules written
# from batch 7") raised its gate from 23/30 to 76/76 (in sample from then on);
# the line "sets 001-117" keeps the corpus without batch 8. The rules written
# from batch 8's misses (branch logsacc7, docs/logs.md "Rules written from
# batch 8") raised its gate from 55/55 to 88/88 (in sample from then on).
# 127-133 (held-out batch 9, gathered after batch 8 with new queries and
# scored before any rule was written from it: 2/7 with round 5, 2/7 again
# with the batch-8 rules merged): the rules written from its misses (branch
# logsacc8, docs/logs.md "Rules written from batch 9") raised its gate from
# 28/28 to 57/85 (in sample from then on); the whole-corpus gate counts it,
# and the line "cases 001-126" keeps the corpus without it.
# 134-141 (held-out batch 10, gathered after batch 9 with new queries and
# scored before any rule was written from it or from batch 9: 6/8 top-1 and
# top-3): its gate holds that score; the whole-corpus gate counts it (its
# top-3 went from 92% to 91% only because batch 10 joined: 129/141 is
# 91.5%; no earlier case changed), and the line "cases 001-133" keeps the
# corpus without it at the old gate. The rules written from its misses
# (branch logsacc9, docs/logs.md "Rules written from batch 10") raised its
# gate from 75/75 to 87/100 (7/8, 8/8; in sample from then on) and the
# whole corpus to 122/141 (86.5%) top-1, 135/141 (95.7%) top-3.
# 142-144 and 145-147 (held-out batches 11 and 12, gathered after the
# framework-error catalog grew, their sources written in docs/logs.md before
# the tool ran on them: 2/3 and 2/3 top-1 and top-3, no rule written from
# them): their gates hold that score; the whole corpus went to 126/147
# (85.7%) top-1, 139/147 (94.6%) top-3 only because they joined, and the line
# "cases 001-141" keeps the corpus without them at the old gate.
# 148-155 and 156-163 (held-out batches 13 and 14, issue 28's measure,
# gathered for the kinds of paste the corpus had few of, their sources
# written in docs/logs.md before the tool ran on them: 3/8 top-1, 5/8 top-3
# and 5/8, 6/8 at first sight, no rule written from them yet): their gates
# hold that score; the whole corpus went to 134/163 (82.2%) top-1, 150/163
# (92.0%) top-3 only because they joined; 001-147 keeps its old gates
# through the lines of 001-141 and of batches 11 and 12 (no line of its own:
# t48's wall time). The rules then written from their misses (branch
# batch, docs/logs.md "What batches 13 and 14 showed": CUDA errors 36 and
# 803, a bootstrap back-trace without a WARN, p2pCanConnect's INFO lines as
# context) raised their gates to 75/87 (6/8, 7/8) and 75/75 (6/8, 6/8), in
# sample from then on, and the whole corpus to 138/163 (84.7%) top-1,
# 152/163 (93.3%) top-3; 001-147 did not move (126/147, 139/147).
# The generalising round (branch general, docs/logs.md "Generalising round
# (5 December 2026 evening)": a warning the process outlived is context, a
# program's own .cu source names the system libnccl, the release's age for
# a generic CUDA or internal error, ncclRemoteError alone reads the sockets'
# connect before a dead peer) raised batch 14 to 8/8 (159, 163), batch 13
# to 7/8 (153), batch 10 to 8/8 (134), the cases 001-141 to 124/141
# (87.9%), 136/141 (96.5%) (114, 134) and the whole corpus to 143/163
# (87.7%) top-1, 155/163 (95.1%) top-3; no case fell.
# Raise a threshold when the score rises; a case added to the corpus goes
# into a new batch, scored before any rule is written for it.
. "$(dirname "$0")/lib.sh"
# The tool runs once over the whole corpus; every gate below reads that
# ranking (--from-json), the whole corpus's line last.
ALL="$ND_TMP/scores.json"
bash "$(dirname "$0")/corpus-score.sh" --bin "$ND_BIN" -q --json "$ALL" >/dev/null 2>&1
[ -s "$ALL" ] || { not_ok "the corpus could not be scored (no $ALL)"; finish; exit; }
score() { # FROM UNTIL MIN_TOP1 MIN_TOP3 NAME
  local args=(--from-json "$ALL" -q --min-top1 "$3" --min-top3 "$4")
  [ -n "$1" ] && args+=(--from "$1")
  [ -n "$2" ] && args+=(--until "$2")
  local out rc
  out=$(bash "$(dirname "$0")/corpus-score.sh" "${args[@]}" 2>&1)
  rc=$?
  LAST_SCORE=$(echo "$out" | tail -1)
  if [ "$rc" -eq 0 ]; then ok "$5: $(echo "$out" | tail -1)"; else
    not_ok "$5: below top-1 $3% / top-3 $4% (exit $rc): $(echo "$out" | tail -1)"; fi
}
# 037 (one line: an unhandled cuda error repeated across a Ray cluster, a
# bad node) is second since a bare unhandled cuda error ranks a bug of the
# NCCL or driver version first by the corpus's base rates (rules/priors.c;
# 123, 147 and 591 first by the same change): the gates below it by one case
score "" 043 85 97 "development set 001-042"
score 043 063 85 95 "held-out batch 1 (043-062)"
score 063 071 100 100 "held-out batch 2 (063-070)"
score 071 076 80 100 "held-out batch 3 (071-075)"
score 076 079 100 100 "held-out batch 4 (076-078)"
score 079 097 88 100 "held-out batch 5 (079-096)"
score 097 105 87 100 "held-out batch 6 (097-104)"
score "" 079 87 97 "sets 001-078"
score "" 105 87 98 "cases 001-104 (batches 1-6 and the development set)"
score 105 118 76 76 "held-out batch 7 (105-117)"
score 118 127 88 88 "held-out batch 8 (118-126)"
score "" 118 88 96 "sets 001-117"
score 127 134 57 85 "held-out batch 9 (127-133)"
score "" 127 88 96 "cases 001-126"
score 134 142 100 100 "held-out batch 10 (134-141)"
score "" 134 86 95 "cases 001-133"
score 142 145 66 66 "held-out batch 11 (142-144)"
score 145 148 66 66 "held-out batch 12 (145-147)"
score "" 142 87 96 "cases 001-141"
score 148 156 87 87 "held-out batch 13 (148-155)"
score 156 164 100 100 "held-out batch 14 (156-163)"
score "" 164 87 95 "cases 001-163"
# batches 15 and 16 scored at first sight (main at 1194188, after the
# generalising round, no rule written from either batch): 3/8 and 4/8. The
# knowledge written from their misses (branch rules16, docs/logs.md "Rules
# written from batches 15 and 16": XLA's NCCL stub and PyTorch's builds
# without NCCL in the framework catalog, the driver's GPU-fatal RM statuses
# in NVRM lines) raised both to 5/8 (167, 170; 172) and the whole corpus
# from 150/179, 162/179 to 153/179 (85.5%), 165/179 (92.2%); in sample from
# then on; 001-163 did not move.
score 164 172 62 62 "held-out batch 15 (164-171)"
score 172 180 62 62 "held-out batch 16 (172-179)"
# batches 17 and 18 scored at first sight (main at 580cdfb): 2/8 and 4/8.
# The knowledge written from their misses (branch rules18, docs/logs.md
# "Rules written from batches 17 and 18": ncclGetErrorString's 'unknown
# result code', a slow run started with NCCL_TOPO_FILE, Paddle's dlopen of
# the system libnccl, compute-sanitizer's memcheck lines) raised them to
# 4/8 (180, 186) and 6/8 (188, 193); 001-179 stayed at 153/179, 165/179.
# The whole corpus line replaces the line of 001-179 (one pass, not two:
# the corpus takes ~5 s a pass on the loaded machine).
score 180 188 50 50 "held-out batch 17 (180-187)"
score 188 196 75 75 "held-out batch 18 (188-195)"
# batches 19 (196-203) and 20 (204-211) scored at first sight, no rule
# written from either: batch 19 6/8 top-1 (6/8 top-3) and 204-207 0/4 (1/4)
# with main at 661a8db (after rules18); 208-211, gathered next, 1/4 (1/4)
# with main at c78f7c2: batch 20 1/8, the pair 7/16 (43.75 %). Then PT09
# (CUDA error 35, the driver older than the runtime) was made the version
# disagreement CUDA's error table and the framework catalog already called
# it (208): batch 20 2/8, in sample from then on.
score 196 204 75 75 "held-out batch 19 (196-203)"
score 204 212 37 62 "held-out batch 20 (204-211)"
# batches 21 (212-219) and 22 (220-227), gathered by helpers while the
# generalising round of 6 December was written (probing texts of no case,
# /dev/shm's size, a veth on NET/Socket's one line), scored at first sight
# with main at 603550b (after that round and the framework files of fwcat3,
# no rule from either batch): 3/8 and 2/8 top-1 (4/8, 2/8 top-3), 5/16.
# From their misses: a header whose host name was deleted from the paste
# (223), p2p.cc's 'invalid argument' (218), EMFILE (225), aws-ofi-nccl's
# fi_getinfo failure (226): 4/8 and 5/8 in sample. 204 and 210 came up
# with the round (3/8, 5/8 top-3 for batch 20).
score 212 220 50 62 "held-out batch 21 (212-219)"
score 220 228 62 62 "held-out batch 22 (220-227)"
# batches 23 (228-235) and 24 (236-243): 228-230 and 236 gathered at the end
# of 6 December morning and scored at first sight with main at 2d12b92
# (2/3, 0/1); the rest gathered on 6 December from 07:40 and scored at
# first sight with main at 6f158fa (stack frames, Docker host names, RTX 40
# drivers, fwcat4's framework files; no rule from them): 231-235 2/5,
# 237-243 4/7. First sight: 4/8 and 4/8 top-1 and top-3 (8/16, 50 %).
# From their misses: VL06's 'customAllReduce' matched SGLang's
# 'CustomAllreduce is disabled' (238, a false root), peers reached only over
# the network are other hosts (234), IB asked for and not found (235):
# 6/8 and 4/8 in sample.
score 228 236 75 75 "held-out batch 23 (228-235)"
score 236 244 50 50 "held-out batch 24 (236-243)"
# batch 25's first six cases (244-249), gathered at the end of the second
# session of 6 December, scored at first sight with main at b3b04c9 (the
# rules from batches 23 and 24 in, none from batch 25): 2/6 top-1, 3/6 top-3
# 250-251, then batches 26 (252, 256) and 27 (260, 261, 263-266), gathered
# on 6 December from 11:25 (nine helpers; the search budget ran out at
# 11:45, so 26 and 27 are short) and scored at first sight with main at
# 299a482 (host facts of a paste, launcher node counts, fwcat5's DDP files,
# the argument checks as application bugs; no rule from them): 250-251 2/2,
# batch 26 0/2, batch 27 0/6 top-1 (1/6 top-3): 2/10. The build of the
# session's start (479593f) had 3/10: a context row of that session (BN02)
# hid 256's c10d line from the framework catalog, mended in 559b001. From
# the misses: a framework built without NCCL (265, 266), UCX's
# shared-memory FIFO (263): batch 25 4/8, 26 1/2, 27 3/6 in sample.
score 244 252 50 62 "held-out batch 25 (244-251)"
score 252 260 50 50 "held-out batch 26 (252, 256)"
score 260 268 50 66 "held-out batch 27 (260-266)"
# batches 28 (267-273, 276), 29 (277-284) and 30 (285, 288, 291, 292),
# gathered on 6 December from 15:15 by nine helpers and scored at first
# sight with main at 84b8519 (the launchers-and-loader round and the
# network plugins' messages in, none from these cases): 0/8, 3/8 and 2/4
# top-1 (2/8, 3/8, 3/4 top-3); the session-start build (d1c0d0c) the same
# 5/20. From the misses: the function-prefixed headerless WARN (284), rank 0
# late on a store read time-out (267), GPUDirect-TCPX's RxDM (273), the
# stuck watchdog as a hung CUDA call (271): 3/8, 4/8, 2/4 in sample.
score 267 277 37 50 "held-out batch 28 (267-273, 276)"
score 277 285 50 50 "held-out batch 29 (277-284)"
score 285 293 50 75 "held-out batch 30 (285, 288, 291, 292)"
# batches 31 (293-299, 301) and 32 (302, 303, 305-307, 309, 313, 314),
# gathered on 6 December from 19:15 by six helpers at once (the eight
# lowest ids found, then the next eight; 315 is batch 33's first) and
# scored at first sight with main at afa09f7 (the host tools' messages in,
# none from these cases): 5/8 and 4/8 top-1 (6/8, 6/8 top-3), 315 1/1.
# From the misses: PyTorch's store-barrier counts (305 ranks missing on
# one node, 307 a stale store), a framework message wrapped after a
# placeholder (299): 6/8 and 6/8 in sample.
score 293 302 75 87 "held-out batch 31 (293-299, 301)"
score 302 315 75 87 "held-out batch 32 (302-314)"
# batch 33 (315-317, 324, 328, 329; 325-327 set aside before scoring as
# NVSHMEM failures; the search budget ran out at six cases): 315 with the
# batches above, the rest at first sight with main at 6e9edef (the rules
# from batches 31 and 32 in): 3/6 top-1. From the misses: XLA's RET_CHECK
# on a local device ordinal (317, JX02): 4/6 in sample.
score 315 330 66 66 "held-out batch 33 (315-329)"
# batches 34 (334, 335, 340-342, 346, 347, 352) and 35 (358-361, 364, 365,
# 370, 376), gathered on 6 December from 22:30 by six, then three helpers
# with a fresh search budget: at first sight 3/8 and 3/8 top-1 (main at
# e196b2b; 370 and 376 at d395cef). From the misses: a hang in teardown
# after PyTorch's exit warning (342), the bare watchdog wrapper (347), a
# watchdog time-out beside teardown-only NCCL lines (370), an elided
# SeqNum (376), HAMi-core's CUDA interposer (384, batch 36): 5/8 and 5/8
# in sample.
score 334 358 62 75 "held-out batch 34 (334-352)"
score 358 377 62 62 "held-out batch 35 (358-376)"
# batch 36 (377, 378, 382-385; closed short at six, the search budget ran
# out): 2/6 at first sight (main at d395cef); HAMi-core's interposer (384)
# from its misses: 3/6 in sample.
score 377 394 50 50 "held-out batch 36 (377-385)"
# batches 37 (394-398, 402, 410, 411), 38 (412-414, 418-420, 426, 427), 39
# (428, 429, 442-447) and 40 (450-454, short at five), gathered on 7
# December from 03:03 by eight helpers with a fresh search budget: at first
# sight 3/8, 2/8, 7/8 and 4/5 top-1 (main at 4d97c4d). From the misses:
# a vanished /psm_ segment or semaphore (419, 420: SHM02, SHM03), a
# traceback out of set_device (396, 447: PT21), vLLM's local_world_size
# assert (394: VL08), TCPStore's 'host not found' (414: PT22), a ZMQ bind
# (397: ZMQ01, ZMQ02): 6/8, 5/8, 8/8 and 4/5 in sample.
score 394 412 75 75 "held-out batch 37 (394-411)"
score 412 428 62 62 "held-out batch 38 (412-427)"
score 428 450 100 100 "held-out batch 39 (428-447)"
score 450 460 80 80 "held-out batch 40 (450-454)"
# batches 41 (460-463, 468, 469, 476, 477) and 42 (478-482, short at five),
# gathered on 7 December from 03:32 with the rest of the search budget: at
# first sight 2/8 and 1/5 (main at 708cf38). From the misses: a /dev/shm
# name NCCL never makes (460) and wrong data with NCCL_PROTO=LL128 forced
# (463): 4/8 and 1/5 in sample.
score 460 478 50 50 "held-out batch 41 (460-477)"
score 478 484 20 20 "held-out batch 42 (478-482)"
# batches 43 (484, 485, 492-497), 44 (500-503, 508-511), 45 (516-520,
# 524-526) and 46 (527, 528, short at two), gathered on 7 December from
# 06:45 by six helpers with a fresh search budget: at first sight 5/8,
# 3/8, 1/8 and 1/2 (main at e4ee9f2 and d05ce67). From the misses: the
# other gai_strerror texts after 'host not found: ' (493, 494: PT22b),
# CUDA's stream-capture errors (502: S53g), NET/Socket on ib0 without
# libibverbs (509: S21v, ipoib-fallback), an ibv_wc_status name where the
# paste cut 'from peer' (510: S63w): 7/8, 6/8, 1/8 and 1/2 in sample.
score 484 500 87 87 "held-out batch 43 (484-497)"
score 500 516 87 87 "held-out batch 44 (500-511)"
score 516 527 12 12 "held-out batch 45 (516-526)"
score 527 532 50 50 "held-out batch 46 (527-528)"
# batches 47 (532-539), 48 (540-542, 548-551, 556) and 49 (564, short at
# one), gathered on 7 December from 07:16 by five helpers with the rest of
# the search budget: at first sight 6/8, 4/8 and 1/1 (main at 76a0709).
# From the misses: PyTorch's 'Last error:' echo looked up among NCCL's
# messages (541), BFloat16 unsupported by an NCCL before 2.10 (535):
# 7/8, 5/8 and 1/1 in sample.
score 532 540 87 87 "held-out batch 47 (532-539)"
score 540 564 62 62 "held-out batch 48 (540-556)"
score 564 572 100 100 "held-out batch 49 (564)"
# batches 50 (572-574, 588-592), 51 (593, 596-602) and 52 (604-609, 612,
# 613), gathered on 7 December from 10:41 by six helpers with a fresh
# search budget: at first sight 2/8, 0/8 and 5/8 (main at 50a6b28). From
# the misses: c10d's 'does not support <op>' of a backend and an old
# ProcessGroupNCCL (608, 609: framework catalog), a framework module
# without ProcessGroupNCCL (602: NB01p): 2/8, 1/8 and 7/8 in sample; with
# the base rates of a bare 'unhandled cuda error' (591) batch 50 3/8.
score 572 593 37 37 "held-out batch 50 (572-592)"
score 593 604 37 37 "held-out batch 51 (593-602)"
score 604 620 87 87 "held-out batch 52 (604-613)"
# batches 53 (620, 621, 623, 636-640; 622 left out before scoring, kept
# here) and 54 (641, 642, 644-648, short at seven), gathered on 7 December
# from 11:06 by four helpers with the rest of the search budget: at first
# sight 1/8 and 2/7 (main at a2972ac). From the misses: a TCPStore client
# whose server went away (648: PT23): 1/8 and 3/7 in sample.
score 620 641 11 11 "held-out batch 53 (620-640, with 622)"
score 641 652 71 71 "held-out batch 54 (641-648)"
# batch 55 (652, 653, 660, short at three), gathered on 7 December from
# 11:44 with the last of the search budget: at first sight 0/3 (main at
# 8fc7f8b); 668-673 (DDP reducer errors, left out of the batch before
# scoring) 4/6, with the last line of the unfinished-reduction error (670)
# 5/6. Batch 55 has no gate of its own (0/3: a gate of 0 cannot fail); the
# whole corpus's holds its cases.
# In the next session (in sample): a traceback that ends in a program's own
# exception with nothing stronger (600, 645, 647: LOG_PROGRAM_EXCEPTION)
# and Open MPI's srun without Slurm's PMI (593: OMP06): batch 51 3/8,
# batch 54 5/7, the whole corpus 320/457 (70.0%), 344/457 (75.3%).
score 668 "" 83 83 "DDP reducer errors outside the batches (668-673)"
score "" "" 70 75 "whole corpus (001-673)"
# the same corpus as pastes arrive (tests/tools/corpus-distort.py --kind
# mixed: each case quoted "> ", behind a collector's RFC 3339 time, a
# docker compose service "worker-1  | " or `cat -n`'s number): the shape
# costs nothing
python3 "$ND_SRC/tests/tools/corpus-distort.py" --kind mixed "$ND_TMP/mixed" >/dev/null
whole=$LAST_SCORE # the whole corpus's line, scored just above
out=$(bash "$(dirname "$0")/corpus-score.sh" --bin "$ND_BIN" -q --corpus "$ND_TMP/mixed" 2>&1 | tail -1)
[ -n "$out" ] && [ "$out" = "$whole" ] && ok "wrapped pastes (quote, RFC 3339 time, compose service, cat -n) score as the plain ones: $out" ||
  not_ok "wrapped pastes score '$out', the plain ones '$whole'"
finish
