/* Unit tests of the rule container-hostname (analyze/logs/rules/
 * container.c): NCCL hosts named like Docker's containers weigh /dev/shm on
 * one host and the bridge network across hosts, only in a run that failed
 * with no root failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/nccllog.h"
#include "model/result.h"

#include <stdlib.h>
#include <string.h>

static struct result *analyze_lines(const char *const *lines, size_t n)
{
	struct nccllog lg;
	nccllog_init(&lg);
	int f = nccllog_begin_file(&lg, "t.log");
	for (size_t i = 0; i < n; i++) {
		char *b = strdup(lines[i]);
		nccllog_feed(&lg, f, b, strlen(b), i + 1);
		free(b);
	}
	nccllog_end_file(&lg, f, n, 0, 0, false);
	struct result *r = result_new("logs");
	nccllog_analyze(&lg, r);
	nccllog_release(&lg);
	return r;
}

static double conf(const struct result *r, const char *cause)
{
	for (size_t i = 0; i < r->causes->n; i++)
		if (strcmp(r->causes->v[i].cause, cause) == 0)
			return r->causes->v[i].confidence;
	return 0;
}

static bool has_finding(const struct result *r, const char *id)
{
	return result_find(r, id) != NULL;
}

static void test_container_hosts(void **state)
{
	(void)state;
	/* one container, init stops, PyTorch's bare system error */
	static const char *const one[] = {
		"3f2a9c1b7d4e:120:120 [0] NCCL INFO NCCL version 2.18.5+cuda12.1",
		"3f2a9c1b7d4e:121:121 [1] NCCL INFO cudaDriverVersion 12020",
		"RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.5",
	};
	struct result *r = analyze_lines(one, 3);
	assert_true(has_finding(r, "LOG_CONTAINER_HOSTNAME"));
	assert_string_equal(r->causes->v[0].cause, "shm_too_small");
	double with = conf(r, "shm_too_small");
	result_free(r);
	/* the same on a host of an ordinary name: the container adds weight */
	static const char *const plain[] = {
		"gpu-node-1:120:120 [0] NCCL INFO NCCL version 2.18.5+cuda12.1",
		"gpu-node-1:121:121 [1] NCCL INFO cudaDriverVersion 12020",
		one[2],
	};
	r = analyze_lines(plain, 3);
	assert_false(has_finding(r, "LOG_CONTAINER_HOSTNAME"));
	assert_true(conf(r, "shm_too_small") < with);
	result_free(r);
	/* two containers on two hosts: the bridge network */
	static const char *const two[] = {
		"3f2a9c1b7d4e:120:120 [0] NCCL INFO NCCL version 2.18.5+cuda12.1",
		"a07c55e19b2f:98:98 [0] NCCL INFO NCCL version 2.18.5+cuda12.1",
		one[2],
	};
	r = analyze_lines(two, 3);
	assert_true(has_finding(r, "LOG_CONTAINER_HOSTNAME"));
	assert_true(conf(r, "bootstrap_network") >= 0.2);
	result_free(r);
	/* not Docker's names: digits only, upper case, 13 digits */
	static const char *const not_ids[] = {
		"123456789012:120:120 [0] NCCL INFO NCCL version 2.18.5+cuda12.1",
		"3F2A9C1B7D4E:120:120 [0] NCCL INFO NCCL version 2.18.5+cuda12.1",
		"3f2a9c1b7d4e0:120:120 [0] NCCL INFO NCCL version 2.18.5+cuda12.1",
	};
	for (size_t i = 0; i < 3; i++) {
		r = analyze_lines(&not_ids[i], 1);
		assert_false(has_finding(r, "LOG_CONTAINER_HOSTNAME"));
		result_free(r);
	}
	/* a healthy run in a container: the finding, no cause */
	static const char *const ok[] = {
		"3f2a9c1b7d4e:120:120 [0] NCCL INFO NCCL version 2.18.5+cuda12.1",
		"3f2a9c1b7d4e:120:120 [0] NCCL INFO comm 0x55d0 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 1000 commId 0x1 - Init COMPLETE",
		"3f2a9c1b7d4e:120:120 [0] NCCL INFO comm 0x55d0 rank 0 nranks 1 cudaDev 0 busId 1000 - Destroy COMPLETE",
	};
	r = analyze_lines(ok, 3);
	assert_true(has_finding(r, "LOG_CONTAINER_HOSTNAME"));
	assert_true(conf(r, "shm_too_small") == 0);
	result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_container_hosts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
