/* Unit tests of analyze/fix_emit: every form of a plan, quoting, sizes, the
 * empty plan, and values a form cannot carry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/fix_emit.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *emit(const struct fix_plan *p, enum fix_form f, struct strbuf *sb)
{
	strbuf_reset(sb);
	assert_int_equal(fix_emit(p, f, sb), 0);
	return strbuf_str(sb);
}

static void test_plan_env(void **state)
{
	(void)state;
	struct fix_plan p = { 0 };
	assert_int_equal(fix_plan_setenv(&p, "NCCL_P2P_LEVEL", "PIX"), 0);
	assert_int_equal(fix_plan_setenv(&p, "NCCL_SOCKET_IFNAME", "=eth0"), 0);
	assert_int_equal(fix_plan_setenv(&p, "NCCL_P2P_LEVEL", "PXB"), 0); /* replaces */
	assert_int_equal(p.nenv, 2);
	assert_string_equal(p.env[0].value, "PXB");
	assert_int_equal(fix_plan_setenv(&p, "1BAD", "x"), -EINVAL);
	assert_int_equal(fix_plan_setenv(&p, "BAD-NAME", "x"), -EINVAL);
	assert_int_equal(fix_plan_setenv(&p, "GOOD", "two\nlines"), -EINVAL);
	assert_int_equal(fix_plan_unsetenv(&p, "NCCL_NVLS_ENABLE"), 0);
	assert_int_equal(fix_plan_unsetenv(&p, "NCCL_NVLS_ENABLE"), 0);
	assert_int_equal(p.nunset, 1);
	for (int i = 0; i < FIX_PLAN_MAX_ENV; i++) {
		char n[16];
		snprintf(n, sizeof(n), "V%d", i);
		fix_plan_setenv(&p, n, "1");
	}
	assert_int_equal(fix_plan_setenv(&p, "ONE_TOO_MANY", "1"), -EINVAL);
}

/* A plan that moves traffic onto SHM (P2P off or its level lowered): the
 * container forms size /dev/shm (a default container's 64 MB kills NCCL
 * with SIGBUS), the shell form on a host says nothing of it; vLLM gets the
 * number of GPUs the plan was tested on. */
static void test_shm_in_containers(void **state)
{
	(void)state;
	struct fix_plan p = { 0 };
	struct strbuf sb;
	strbuf_init(&sb, 1 << 16);
	fix_plan_setenv(&p, "NCCL_P2P_DISABLE", "1");
	p.shm_in_containers = true;
	p.ngpus = 8;
	assert_string_equal(emit(&p, FIX_FORM_SHELL, &sb), "export NCCL_P2P_DISABLE=1\n");
	assert_string_equal(emit(&p, FIX_FORM_DOCKER, &sb), "docker run -e NCCL_P2P_DISABLE=1 --shm-size=16g --gpus all IMAGE COMMAND\n");
	const char *k = emit(&p, FIX_FORM_K8S, &sb);
	assert_non_null(strstr(k, "    mountPath: /dev/shm\n"));
	assert_non_null(strstr(k, "    emptyDir:\n      medium: Memory\n      sizeLimit: 16Gi\n"));
	assert_non_null(strstr(emit(&p, FIX_FORM_VLLM, &sb), "NCCL_P2P_DISABLE=1 vllm serve MODEL --tensor-parallel-size 8\n"));
	p.ipc_host = true; /* --ipc=host shares the host's /dev/shm: no size then */
	assert_string_equal(emit(&p, FIX_FORM_DOCKER, &sb), "docker run -e NCCL_P2P_DISABLE=1 --ipc=host --gpus all IMAGE COMMAND\n");
	strbuf_release(&sb);
}

/* NCCL works as given, only direct copies hang: the environment, docker and
 * Kubernetes forms would be empty and are absent; the vLLM form carries the
 * fix (custom all-reduce off). */
static void test_p2p_only(void **state)
{
	(void)state;
	struct fix_plan p = { 0 };
	struct strbuf sb;
	strbuf_init(&sb, 1 << 16);
	p.p2p_broken = true;
	p.ngpus = 4;
	assert_int_equal(fix_emit(&p, FIX_FORM_SHELL, &sb), -ENODATA);
	assert_int_equal(fix_emit(&p, FIX_FORM_DOCKER, &sb), -ENODATA);
	assert_int_equal(fix_emit(&p, FIX_FORM_K8S, &sb), -ENODATA);
	assert_int_equal(fix_emit(&p, FIX_FORM_TORCHRUN, &sb), -ENODATA);
	assert_int_equal(sb.len, 0);
	assert_non_null(strstr(emit(&p, FIX_FORM_VLLM, &sb), "vllm serve MODEL --tensor-parallel-size 4 --disable-custom-all-reduce\n"));
	/* with an environment to carry, every form is there */
	fix_plan_setenv(&p, "NCCL_P2P_LEVEL", "PIX");
	assert_string_equal(emit(&p, FIX_FORM_SHELL, &sb), "export NCCL_P2P_LEVEL=PIX\n");
	assert_string_equal(emit(&p, FIX_FORM_TORCHRUN, &sb), "NCCL_P2P_LEVEL=PIX torchrun --nproc-per-node 4 SCRIPT\n");
	strbuf_release(&sb);
}

static void test_forms(void **state)
{
	(void)state;
	struct fix_plan p = { 0 };
	struct strbuf sb;
	strbuf_init(&sb, 1 << 16);
	fix_plan_setenv(&p, "NCCL_P2P_LEVEL", "PIX");
	fix_plan_setenv(&p, "NCCL_SOCKET_IFNAME", "=eth0");
	p.shm_bytes = 16ULL << 30;
	p.memlock_unlimited = true;
	p.p2p_broken = true;
	p.cuda_visible_devices = "0,1,2,3";

	assert_string_equal(emit(&p, FIX_FORM_SHELL, &sb),
			    "export NCCL_P2P_LEVEL=PIX\n"
			    "export NCCL_SOCKET_IFNAME==eth0\n"
			    "# /dev/shm must hold 16g: in a container see the docker or kubernetes form; on a host: sudo mount -o remount,size=16g /dev/shm\n");
	assert_string_equal(emit(&p, FIX_FORM_DOCKER, &sb),
			    "docker run -e NCCL_P2P_LEVEL=PIX -e NCCL_SOCKET_IFNAME==eth0 --shm-size=16g --ulimit memlock=-1:-1 --gpus all IMAGE COMMAND\n");
	const char *k = emit(&p, FIX_FORM_K8S, &sb);
	assert_non_null(strstr(k, "env:\n  - name: NCCL_P2P_LEVEL\n    value: \"PIX\"\n"));
	assert_non_null(strstr(k, "mountPath: /dev/shm"));
	assert_non_null(strstr(k, "medium: Memory\n      sizeLimit: 16Gi\n"));
	const char *v = emit(&p, FIX_FORM_VLLM, &sb);
	assert_non_null(strstr(v, "NCCL_P2P_LEVEL=PIX NCCL_SOCKET_IFNAME==eth0 vllm serve MODEL --tensor-parallel-size N --disable-custom-all-reduce\n"));
	assert_non_null(strstr(v, "gpu_p2p_access_cache_for_0,1,2,3.json"));
	assert_string_equal(emit(&p, FIX_FORM_TORCHRUN, &sb),
			    "NCCL_P2P_LEVEL=PIX NCCL_SOCKET_IFNAME==eth0 torchrun --nproc-per-node N SCRIPT\n");
	const char *e = emit(&p, FIX_FORM_ENVFILE, &sb);
	assert_non_null(strstr(e, "\nNCCL_P2P_LEVEL=PIX\nNCCL_SOCKET_IFNAME==eth0\n"));

	/* --ipc=host makes --shm-size moot */
	p.ipc_host = true;
	assert_null(strstr(emit(&p, FIX_FORM_DOCKER, &sb), "--shm-size"));
	assert_non_null(strstr(strbuf_str(&sb), " --ipc=host"));

	/* unset variables */
	struct fix_plan u = { 0 };
	fix_plan_unsetenv(&u, "NCCL_P2P_DISABLE");
	assert_string_equal(emit(&u, FIX_FORM_SHELL, &sb), "unset NCCL_P2P_DISABLE\n");
	assert_string_equal(emit(&u, FIX_FORM_TORCHRUN, &sb), "env -u NCCL_P2P_DISABLE torchrun --nproc-per-node N SCRIPT\n");
	strbuf_release(&sb);
}

static void test_quoting_and_refusals(void **state)
{
	(void)state;
	struct strbuf sb;
	strbuf_init(&sb, 1 << 16);
	fix_shell_quote(&sb, "it's $HOME");
	assert_string_equal(strbuf_str(&sb), "'it'\\''s $HOME'");
	strbuf_reset(&sb);
	fix_shell_quote(&sb, "");
	assert_string_equal(strbuf_str(&sb), "''");

	struct fix_plan p = { 0 };
	fix_plan_setenv(&p, "NCCL_DEBUG_SUBSYS", "INIT ENV");
	assert_int_equal(fix_emit(&p, FIX_FORM_ENVFILE, &sb), -EINVAL); /* no quoting in env files */
	strbuf_reset(&sb);
	assert_int_equal(fix_emit(&p, FIX_FORM_SHELL, &sb), 0);
	assert_string_equal(strbuf_str(&sb), "export NCCL_DEBUG_SUBSYS='INIT ENV'\n");
	strbuf_reset(&sb);
	assert_int_equal(fix_emit(&p, FIX_FORM_K8S, &sb), 0);
	assert_non_null(strstr(strbuf_str(&sb), "value: \"INIT ENV\""));

	/* an empty plan says nothing needs to change, in every form */
	struct fix_plan none = { 0 };
	for (int f = 0; f < FIX_FORM_COUNT; f++) {
		strbuf_reset(&sb);
		assert_int_equal(fix_emit(&none, (enum fix_form)f, &sb), 0);
		assert_non_null(strstr(strbuf_str(&sb), "nothing to change"));
	}
	/* a small cap is -ENOSPC, not a truncated command */
	struct strbuf tiny;
	strbuf_init(&tiny, 16);
	fix_plan_setenv(&p, "NCCL_P2P_LEVEL", "PIX");
	assert_int_equal(fix_emit(&p, FIX_FORM_DOCKER, &tiny), -ENOSPC);
	strbuf_release(&tiny);
	strbuf_release(&sb);
}

static void test_form_names(void **state)
{
	(void)state;
	enum fix_form f;
	for (int i = 0; i < FIX_FORM_COUNT; i++) {
		assert_int_equal(fix_form_parse(fix_form_name((enum fix_form)i), &f), 0);
		assert_int_equal(f, i);
	}
	assert_int_equal(fix_form_parse("k8s", &f), 0);
	assert_int_equal(f, FIX_FORM_K8S);
	assert_int_equal(fix_form_parse("yaml", &f), -EINVAL);
}

static void test_sizes(void **state)
{
	(void)state;
	struct fix_plan p = { 0 };
	struct strbuf sb;
	strbuf_init(&sb, 4096);
	p.shm_bytes = 512ULL << 20;
	assert_non_null(strstr(emit(&p, FIX_FORM_DOCKER, &sb), "--shm-size=512m"));
	assert_non_null(strstr(emit(&p, FIX_FORM_K8S, &sb), "sizeLimit: 512Mi"));
	p.shm_bytes = (8ULL << 30) + 1; /* rounded up to whole GiB */
	assert_non_null(strstr(emit(&p, FIX_FORM_DOCKER, &sb), "--shm-size=9g"));
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_env),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_p2p_only),
		cmocka_unit_test(test_shm_in_containers),
		cmocka_unit_test(test_quoting_and_refusals),
		cmocka_unit_test(test_form_names),
		cmocka_unit_test(test_sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
