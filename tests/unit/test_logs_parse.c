/* Unit tests of the NCCL log reader (analyze/nccllog*.c): the line grammar of
 * NCCL 2.4 to 2.31 with launcher prefixes, line cleaning, the per-process
 * model (stages, comms, transports, env, back-trace chains) on the real H200
 * captures and constructed interleaved logs, bounded memory, and the analysis
 * (analyze/logs/) on small stories. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/nccllog.h"
#include "model/result.h"
#include "util/linereader.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse(const char *s, struct nl_line *l)
{
	return nccllog_parse_line(s, strlen(s), l);
}

static bool field_is(const char *p, size_t n, const char *want)
{
	return p && n == strlen(want) && memcmp(p, want, n) == 0;
}

static void test_grammar(void **state)
{
	(void)state;
	struct nl_line l;
	/* INFO, all versions */
	assert_int_equal(parse("vm:565:565 [0] NCCL INFO NCCL version 2.28.9+cuda13.0", &l), 1);
	assert_int_equal(l.level, NL_INFO);
	assert_true(field_is(l.host, l.hostlen, "vm"));
	assert_int_equal(l.pid, 565);
	assert_int_equal(l.tid, 565);
	assert_int_equal(l.dev, 0);
	assert_true(field_is(l.msg, l.msglen, "NCCL version 2.28.9+cuda13.0"));
	/* the host name deleted from a paste ("::pid:tid", ":pid:tid"): an unknown host */
	assert_int_equal(parse("::16674:17023 [0] graph/search.cc:703 NCCL WARN XML Import Channel : dev 1 not found.", &l), 1);
	assert_int_equal(l.level, NL_WARN);
	assert_true(field_is(l.host, l.hostlen, "unknown host"));
	assert_int_equal(l.pid, 16674);
	assert_int_equal(l.tid, 17023);
	assert_int_equal(parse(":16674:16674 [0] NCCL INFO Bootstrap : Using eth0:10.1.0.4<0>", &l), 1);
	assert_int_equal(l.pid, 16674);
	/* WARN <= 2.25 */
	assert_int_equal(parse("gpu-node:3312:3312 [2] transport/p2p.cc:189 NCCL WARN Cuda failure 'out of memory'", &l), 1);
	assert_int_equal(l.level, NL_WARN);
	assert_true(field_is(l.src, l.srclen, "transport/p2p.cc"));
	assert_int_equal(l.srcline, 189);
	assert_null(l.func);
	assert_int_equal(l.ts, 0);
	assert_int_equal(l.dev, 2);
	/* WARN 2.26-2.29: timestamp */
	assert_int_equal(parse("[2026-12-02 09:46:16] vm:656:656 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found", &l), 1);
	assert_int_equal(l.level, NL_WARN);
	assert_int_equal(l.ts, 1796204776LL);
	assert_true(field_is(l.src, l.srclen, "bootstrap.cc"));
	/* WARN 2.30+: (function) */
	assert_int_equal(parse("[2026-03-01 10:00:02] gb-node:9001:9001 [0] transport/shm.cc:482 (shmAllocateCuMemHost) NCCL WARN Cuda failure 1 'x'", &l), 1);
	assert_true(field_is(l.func, l.funclen, "shmAllocateCuMemHost"));
	assert_true(field_is(l.src, l.srclen, "transport/shm.cc"));
	assert_int_equal(l.srcline, 482);
	assert_true(field_is(l.msg, l.msglen, "Cuda failure 1 'x'"));
	/* TRACE and CALL */
	assert_int_equal(parse("node:7:9 [3] 1234.567890 ncclProxyProgress:1012 NCCL TRACE progress op", &l), 1);
	assert_int_equal(l.level, NL_TRACE);
	assert_int_equal(l.dev, 3);
	assert_int_equal(parse("node:7:7 NCCL CALL ncclAllReduce(0x1,0x2,4,7,0,0x5,0x6)", &l), 1);
	assert_int_equal(l.level, NL_CALL);
	assert_int_equal(l.pid, 7);
	/* launcher prefixes anywhere before the header */
	assert_int_equal(parse("(VllmWorkerProcess pid=3312) gpu-node:3312:3312 [2] NCCL INFO Using network Socket", &l), 1);
	assert_int_equal(l.ppid, 3312);
	assert_int_equal(parse("(RayWorkerWrapper pid=811, ip=10.0.0.2) ray-node:811:811 [1] NCCL INFO Using network IB", &l), 1);
	assert_int_equal(l.ppid, 811);
	assert_true(field_is(l.host, l.hostlen, "ray-node"));
	assert_int_equal(parse("(VllmWorker rank=1 pid=1410768) h:1410768:1410768 [1] NCCL INFO x", &l), 1);
	assert_int_equal(l.prank, 1);
	assert_int_equal(l.ppid, 1410768);
	assert_int_equal(parse("[1,3]<stdout>:node1:1234:1234 [3] NCCL INFO Using network IB", &l), 1);
	assert_int_equal(l.prank, 3);
	assert_true(field_is(l.host, l.hostlen, "node1"));
	assert_int_equal(parse("[rank5]: node:9:9 [5] NCCL INFO x", &l), 1);
	assert_int_equal(l.prank, 5);
	assert_int_equal(parse("trainer-1  | node:41:41 [0] NCCL INFO x", &l), 1);
	assert_true(field_is(l.host, l.hostlen, "node"));
	assert_int_equal(parse("2025-01-07T10:00:00.000001Z worker-0:77:77 [0] NCCL INFO cudaDriverVersion 12040", &l), 1);
	assert_true(field_is(l.host, l.hostlen, "worker-0"));
	assert_int_equal(parse("Dec 02 10:00:00 gpu1 python3[2211]: gpu1:2211:2211 [0] NCCL INFO x", &l), 1);
	assert_int_equal(l.pid, 2211);
	assert_true(field_is(l.host, l.hostlen, "gpu1"));
	/* not NCCL debug lines */
	assert_int_equal(parse("NCCL version 2.21.5+cuda12.4", &l), 0);
	assert_int_equal(parse("some text NCCL INFO without a header", &l), 0);
	assert_int_equal(parse("[rank0]: torch.distributed.DistBackendError: NCCL error in: x", &l), 0);
	assert_int_equal(l.prank, 0);
	assert_int_equal(parse("", &l), 0);
	assert_int_equal(parse("h:1:2 [x] NCCL INFO bad dev", &l), 0);
	/* a header with its host name deleted is a process of an unknown host
	 * (public case 223 pastes "::16674:17023 [0] ..."), no longer refused */
	assert_int_equal(parse(":1:2 [0] NCCL INFO no host", &l), 1);
	assert_true(field_is(l.host, l.hostlen, "unknown host"));
}

static void test_clean(void **state)
{
	(void)state;
	char s[] = "\x1b[31mvm:1:1 [0]\x1b[0m NCCL\0INFO x\x1b]0;title\x07!";
	size_t len = sizeof(s) - 1;
	bool nul, ansi;
	len = nccllog_clean_line(s, len, &nul, &ansi);
	assert_true(nul);
	assert_true(ansi);
	assert_string_equal(s, "vm:1:1 [0] NCCL INFO x!");
	assert_int_equal(len, strlen(s));
	char t[] = "plain";
	assert_int_equal(nccllog_clean_line(t, 5, &nul, &ansi), 5);
	assert_false(nul || ansi);
	char u[] = "\x1b";
	assert_int_equal(nccllog_clean_line(u, 1, &nul, &ansi), 0);
}

static void feed_file(struct nccllog *lg, const char *path)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	int f = nccllog_begin_file(lg, path);
	struct linereader lr;
	linereader_init(&lr, fd, 65536);
	char *line;
	size_t len;
	while (linereader_next(&lr, &line, &len) > 0)
		nccllog_feed(lg, f, line, len, lr.lineno);
	nccllog_end_file(lg, f, lr.lineno, lr.bytes, lr.truncated_lines, lr.no_newline);
	linereader_release(&lr);
	close(fd);
}

static void feed_str(struct nccllog *lg, int f, const char *s, uint64_t n)
{
	char *b = strdup(s);
	nccllog_feed(lg, f, b, strlen(b), n);
	free(b);
}

static void test_real_healthy(void **state)
{
	(void)state;
	struct nccllog lg;
	nccllog_init(&lg);
	feed_file(&lg, ND_FIXTURES "/logs/real-h200/torch-1rank-subsys-all.log");
	assert_int_equal(lg.nprocs, 1);
	const struct nl_proc *p = &lg.procs[0];
	assert_string_equal(p->host, "vm");
	assert_int_equal(p->pid, 594);
	assert_string_equal(p->version, "2.28.9+cuda13.0");
	assert_int_equal(p->cuda_driver, 13000);
	assert_string_equal(p->bootstrap_if, "eth0:192.0.2.2<0>");
	assert_string_equal(p->net, "Socket");
	assert_int_equal(p->ncomms, 1);
	const struct nl_comm *c = &p->comms[0];
	assert_string_equal(c->ptr, "0xec95d30");
	assert_string_equal(c->commid, "0xb50468e495b2eb9d");
	assert_int_equal(c->rank, 0);
	assert_int_equal(c->nranks, 1);
	assert_string_equal(c->busid, "60");
	assert_true(c->complete);
	assert_true(c->destroyed);
	assert_int_equal(c->chunksize, 524288);
	assert_true(c->init_total > 0.36 && c->init_total < 0.38);
	assert_int_equal(nl_proc_stage(p), 10); /* "AllReduce: opCount 0" after Init COMPLETE */
	nccllog_release(&lg);

	nccllog_init(&lg);
	feed_file(&lg, ND_FIXTURES "/logs/real-h200/torch-1rank-info.log");
	assert_int_equal(nl_proc_stage(&lg.procs[0]), 9);
	nccllog_release(&lg);
}

static void test_chain_and_env(void **state)
{
	(void)state;
	struct nccllog lg;
	nccllog_init(&lg);
	feed_file(&lg, ND_FIXTURES "/logs/real-h200/torch-dup-gpu-r1.log");
	assert_int_equal(lg.nprocs, 1);
	assert_true(lg.nev >= 1);
	assert_string_equal(lg.ev[0].chain, "init.cc:1582 -> 5, group.cc:76 -> 5, group.cc:537 -> 5, group.cc:743 -> 5, init.cc:2162 -> 5");
	assert_int_equal(lg.ev[0].code, 5);
	assert_int_equal(lg.ev[0].line, 18);
	assert_int_equal(lg.ev[0].ts, 1796204786LL);
	assert_int_equal(nl_proc_stage(&lg.procs[0]), 4);
	nccllog_release(&lg);

	nccllog_init(&lg);
	feed_file(&lg, ND_FIXTURES "/logs/real-h200/torch-all-disabled.log");
	const struct nl_proc *p = &lg.procs[0];
	assert_int_equal(p->nenv, 2);
	assert_string_equal(p->env[0].name, "NCCL_IB_DISABLE");
	assert_string_equal(p->env[0].value, "1");
	assert_string_equal(p->env[1].name, "NCCL_P2P_DISABLE");
	assert_int_equal(lg.orphan_chain, 1); /* "transport/net_ib.cc:852 -> 3" with no WARN */
	assert_int_equal(lg.nev, 1);          /* only the affinity note */
	nccllog_release(&lg);
}

static void test_interleaved_and_transports(void **state)
{
	(void)state;
	struct nccllog lg;
	nccllog_init(&lg);
	feed_file(&lg, ND_FIXTURES "/logs/constructed/vllm-tp4-oom.log");
	assert_int_equal(lg.nprocs, 4);
	for (int i = 0; i < 4; i++) {
		const struct nl_comm *c = nl_proc_main_comm(&lg.procs[i]);
		assert_non_null(c);
		assert_int_equal(c->rank, i);
		assert_int_equal(c->nranks, 4);
		assert_string_equal(c->commid, "0x7a3c91e2b4f01d55");
	}
	assert_string_equal(lg.procs[0].version, "2.21.5+cuda12.4"); /* the bare line between rank 0's lines */
	assert_int_equal(lg.procs[0].ntr, 1);
	assert_int_equal(lg.procs[0].tr[0].peer, 1);
	assert_string_equal(lg.procs[0].tr[0].kind, "P2P/CUMEM");
	assert_int_equal(nl_proc_stage(&lg.procs[0]), 7);
	assert_int_equal(nl_proc_stage(&lg.procs[3]), 5);
	/* the vLLM worker's text lines belong to its process (pid=3312) */
	bool seen = false;
	for (size_t i = 0; i < lg.nev; i++)
		if (strstr(lg.ev[i].text, "unhandled cuda error")) {
			assert_int_equal(lg.procs[lg.ev[i].proc].pid, 3312);
			seen = true;
		}
	assert_true(seen);
	nccllog_release(&lg);
}

static void test_old_versions(void **state)
{
	(void)state;
	struct nccllog lg;
	nccllog_init(&lg);
	int f = nccllog_begin_file(&lg, "old.log");
	/* 2.4: Ring lines, no Init START, busId-less COMPLETE */
	feed_str(&lg, f, "old:10:10 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>", 1);
	feed_str(&lg, f, "NCCL version 2.4.8+cuda10.1", 2);
	feed_str(&lg, f, "old:10:10 [0] NCCL INFO Setting affinity for GPU 0 to ffff", 3);
	feed_str(&lg, f, "old:10:10 [0] NCCL INFO Ring 00 :    0   1", 4);
	feed_str(&lg, f, "old:10:30 [0] NCCL INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC", 5);
	feed_str(&lg, f, "old:10:10 [0] NCCL INFO comm 0x7f3b rank 0 nranks 2 cudaDev 0 nvmlDev 0 - Init COMPLETE", 6);
	assert_int_equal(lg.nprocs, 1);
	const struct nl_proc *p = &lg.procs[0];
	assert_string_equal(p->version, "2.4.8+cuda10.1");
	assert_int_equal(p->ncomms, 1);
	assert_string_equal(p->comms[0].ptr, "0x7f3b");
	assert_true(p->comms[0].complete);
	assert_true(p->comms[0].conn_in_init);
	assert_int_equal(p->comms[0].rank, 0);
	assert_int_equal(p->comms[0].nranks, 2);
	assert_int_equal(p->tr[0].peer, 1);
	assert_string_equal(p->tr[0].kind, "P2P/IPC");
	/* a second communicator of the same process (2.21 form) */
	feed_str(&lg, f, "old:10:10 [0] NCCL INFO ncclCommSplit comm 0x9a rank 1 nranks 4 cudaDev 0 nvmlDev 0 busId 1b000 commId 0x44 - Init START", 7);
	assert_int_equal(p->ncomms, 2);
	assert_int_equal(nl_proc_stage(p), 3);
	assert_int_equal(nl_proc_main_comm(p)->nranks, 4);
	nccllog_release(&lg);
}

static void test_bounded(void **state)
{
	(void)state;
	struct nccllog lg;
	nccllog_init(&lg);
	int f = nccllog_begin_file(&lg, "big.log");
	char buf[256];
	for (int i = 0; i < 200000; i++) {
		snprintf(buf, sizeof(buf), "h%d:%d:%d [0] misc/socket.cc:538 NCCL WARN socketProgress: Connection closed by remote peer x<1>",
			 i % 5000, i % 5000, i % 5000);
		nccllog_feed(&lg, f, buf, strlen(buf), (uint64_t)i + 1);
	}
	assert_int_equal(lg.nprocs, NL_MAX_PROCS);
	assert_true(lg.procs_dropped > 0);
	assert_true(lg.nev <= 2 * NL_MAX_EVIDENCE);
	size_t n;
	kb_nccl_signatures(&n);
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += lg.sigcount[i];
	assert_true(total > 150000);
	nccllog_release(&lg);
}

/* The typed causes of the analysis (model/runs.h), best first. */
static const struct cause_list *analyze(struct nccllog *lg, struct result **rp)
{
	struct result *r = result_new("logs");
	nccllog_analyze(lg, r);
	*rp = r;
	assert_non_null(r->causes);
	assert_non_null(r->ranks);
	return r->causes;
}

static void test_analysis_first_failure(void **state)
{
	(void)state;
	struct nccllog lg;
	nccllog_init(&lg);
	int a = nccllog_begin_file(&lg, "r0.log");
	int b = nccllog_begin_file(&lg, "r1.log");
	/* rank 1's root failure is later in reading order but earlier in time */
	feed_str(&lg, a, "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x5 - Init START", 1);
	feed_str(&lg, a, "[2025-01-01 10:00:09] h:1:1 [0] misc/socket.cc:538 NCCL WARN socketProgress: Connection closed by remote peer h<2>", 2);
	feed_str(&lg, a, "[2025-01-01 10:00:10] h:1:1 [0] transport/p2p.cc:1 NCCL WARN Cuda failure 'unspecified launch failure'", 3);
	feed_str(&lg, b, "h:2:2 [1] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 2000 commId 0x5 - Init START", 1);
	feed_str(&lg, b, "[2025-01-01 10:00:05] h:2:2 [1] transport/shm.cc:1 NCCL WARN Error: failed to extend /dev/shm/nccl-x to 9 bytes", 2);
	struct result *r;
	const struct cause_list *causes = analyze(&lg, &r);
	assert_true(causes->n >= 2);
	assert_true(causes->failed);
	assert_string_equal(causes->v[0].cause, "shm_too_small");
	assert_true(causes->v[0].confidence > causes->v[1].confidence);
	assert_true(causes->v[0].nev >= 1);
	assert_string_equal(causes->v[0].ev[0].file, "r1.log");
	assert_int_equal(causes->v[0].ev[0].line, 2);
	/* the first failure in time is rank 1's, though read second */
	assert_true(causes->have_first);
	assert_string_equal(causes->first_file, "r1.log");
	assert_int_equal(causes->first_line, 2);
	assert_int_equal(result_exit_code(r), 2);
	result_free(r);
	nccllog_release(&lg);
}

static void test_analysis_stages(void **state)
{
	(void)state;
	/* two ranks of 3 joined, nobody past bootstrap, killed */
	struct nccllog lg;
	nccllog_init(&lg);
	int f = nccllog_begin_file(&lg, "x.log");
	feed_str(&lg, f, "h:1:1 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>", 1);
	feed_str(&lg, f, "h:1:1 [0] NCCL INFO ncclCommInitRankConfig comm 0x1 rank 0 nranks 3 cudaDev 0 nvmlDev 0 busId 1000 commId 0x5 - Init START", 2);
	feed_str(&lg, f, "h:2:2 [1] NCCL INFO ncclCommInitRankConfig comm 0x2 rank 1 nranks 3 cudaDev 1 nvmlDev 1 busId 2000 commId 0x5 - Init START", 3);
	feed_str(&lg, f, "Killed", 4);
	struct result *r;
	const struct cause_list *causes = analyze(&lg, &r);
	assert_true(causes->n >= 1);
	const char *top = causes->v[0].cause;
	assert_true(strcmp(top, "bootstrap_network") == 0 || strcmp(top, "peer_died_or_oom") == 0);
	assert_non_null(result_find(r, "LOG_RANKS_MISSING"));
	assert_non_null(result_find(r, "LOG_HANG_BOOTSTRAP"));
	assert_int_equal(result_exit_code(r), 2);
	assert_int_equal(r->ranks->n, 2);
	assert_string_equal(r->ranks->v[0].stage, "T3");
	assert_int_equal(r->ranks->v[0].rank, 0);
	assert_int_equal(r->ranks->v[0].nranks, 3);
	assert_false(r->ranks->v[0].init_complete);
	result_free(r);
	nccllog_release(&lg);

	/* healthy: no cause, exit 0 */
	nccllog_init(&lg);
	feed_file(&lg, ND_FIXTURES "/logs/real-h200/torch-1rank-trace.log");
	causes = analyze(&lg, &r);
	assert_int_equal(causes->n, 0);
	assert_false(causes->failed);
	assert_int_equal(result_exit_code(r), 0);
	result_free(r);
	nccllog_release(&lg);

	/* nothing at all: a warning, cause unknown */
	nccllog_init(&lg);
	nccllog_begin_file(&lg, "empty.log");
	causes = analyze(&lg, &r);
	assert_non_null(result_find(r, "LOG_NO_NCCL_LINES"));
	assert_int_equal(result_exit_code(r), 1);
	result_free(r);
	nccllog_release(&lg);
}

static void test_analysis_watchdog(void **state)
{
	(void)state;
	struct nccllog lg;
	nccllog_init(&lg);
	int f = nccllog_begin_file(&lg, "wd.log");
	feed_str(&lg, f, "[rank0]:[E1218 20:37:21.4 ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught collective operation timeout: "
			 "WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.", 1);
	feed_str(&lg, f, "[rank1]:[E1218 20:37:21.4 ProcessGroupNCCL.cpp:629] [Rank 1] Watchdog caught collective operation timeout: "
			 "WorkNCCL(SeqNum=8, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.", 2);
	assert_int_equal(lg.nwd, 2);
	assert_int_equal(lg.wd[1].rank, 1);
	assert_int_equal(lg.wd[1].seq, 8);
	assert_string_equal(lg.wd[1].optype, "BROADCAST");
	assert_int_equal(lg.wd[0].timeout_ms, 600000);
	struct result *r;
	const struct cause_list *causes = analyze(&lg, &r);
	assert_true(causes->n >= 1);
	assert_string_equal(causes->v[0].cause, "collective_mismatch_app_bug");
	assert_non_null(result_find(r, "LOG_COLLECTIVE_MISMATCH"));
	assert_null(result_find(r, "LOG_HANG_BEFORE_NCCL")); /* a watchdog means NCCL was up */
	result_free(r);
	nccllog_release(&lg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grammar),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_real_healthy),
		cmocka_unit_test(test_chain_and_env),
		cmocka_unit_test(test_interleaved_and_transports),
		cmocka_unit_test(test_old_versions),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_analysis_first_failure),
		cmocka_unit_test(test_analysis_stages),
		cmocka_unit_test(test_analysis_watchdog),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
