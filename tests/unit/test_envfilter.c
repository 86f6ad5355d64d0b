/* Unit tests of util/envfilter: which variables a snapshot keeps, which
 * values it redacts (names, URL user information, high-entropy words), and
 * that a recording made through util/sysroot never holds a raw environment,
 * whatever the path it was read under. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "util/envfilter.h"
#include "util/strbuf.h"
#include "util/sysroot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool keep(const char *n)
{
	return envfilter_keep_name(n, strlen(n));
}

static void test_keep_names(void **state)
{
	(void)state;
	const char *yes[] = { "NCCL_DEBUG", "NCCL_IB_HCA", "CUDA_VISIBLE_DEVICES", "TORCH_NCCL_BLOCKING_WAIT",
			      "TORCH_DISTRIBUTED_DEBUG", "VLLM_HOST_IP", "RANK", "LOCAL_RANK", "WORLD_SIZE",
			      "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
			      "SLURM_PROCID", "SLURM_JOB_ID", "SLURM_LOCALID", "PATH", "LD_LIBRARY_PATH", "PYTHONPATH",
			      "HOME", "CONDA_PREFIX", "VIRTUAL_ENV", "SUDO_USER", "KUBERNETES_SERVICE_HOST" };
	const char *no[] = { "AWS_SECRET_ACCESS_KEY", "HF_TOKEN", "GITHUB_TOKEN", "HTTPS_PROXY", "TORCH_HOME",
			     "SLURM_JOB_ACCOUNT", "SSH_AUTH_SOCK", "NCCL", "RANKS", "PATHS", "OPENAI_API_KEY",
			     "KUBERNETES_SERVICE_PORT", "PWD", "USER", "" };
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!keep(yes[i]))
			fail_msg("%s should be kept", yes[i]);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		if (keep(no[i]))
			fail_msg("%s should be dropped", no[i]);
	}
}

static void test_secret_names(void **state)
{
	(void)state;
	const char *yes[] = { "VLLM_API_KEY", "NCCL_TOKEN", "VLLM_secret_x", "CUDA_PASSWORD", "VLLM_AUTH",
			      "VLLM_CREDENTIALS_FILE", "PMI_KEY" };
	const char *no[] = { "NCCL_IB_PKEY", "NCCL_KEYS_DIR_", "VLLM_TOKENIZER", "NCCL_PASSTHRU", "MASTER_ADDR" };
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!envfilter_secret_name(yes[i], strlen(yes[i])))
			fail_msg("%s should count as a secret name", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (envfilter_secret_name(no[i], strlen(no[i])))
			fail_msg("%s should not count as a secret name", no[i]);
}

static char *redact(const char *v)
{
	struct strbuf sb = STRBUF_INIT;
	envfilter_redact_value(v, strlen(v), &sb);
	return strbuf_detach(&sb);
}

static void test_redact_values(void **state)
{
	(void)state;
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "https://bob:pw@host.example.com/v1", "https://<redacted>@host.example.com/v1" },
		{ "http://tok@h:80,http://h2/x@y", "http://<redacted>@h:80,http://h2/x@y" },
		{ "10.0.0.1:29500", "10.0.0.1:29500" },
		{ "/usr/local/cuda-13.0/lib64:/opt/venv/lib/python3.12/site-packages/nvidia/nccl/lib",
		  "/usr/local/cuda-13.0/lib64:/opt/venv/lib/python3.12/site-packages/nvidia/nccl/lib" },
		{ "GPU-3f2a1b4c-5d6e-7f80-91a2-b3c4d5e6f708,1", "GPU-3f2a1b4c-5d6e-7f80-91a2-b3c4d5e6f708,1" },
		{ "sk_Q7xP3vR9tK2mW8nB4zH6jL0", "<redacted>" },
		{ "x:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08:y", "x:<redacted>:y" },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1" },
		{ "mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1", "mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1" },
		{ "", "" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = redact(cases[i].in);
		if (strcmp(got, cases[i].out) != 0)
			fail_msg("'%s' -> '%s', wanted '%s'", cases[i].in, got, cases[i].out);
		free(got);
	}
}

static void test_apply(void **state)
{
	(void)state;
	static const char env[] = "HF_TOKEN=abc\0NCCL_DEBUG=INFO\0VLLM_API_KEY=x\0=odd\0NOEQUALS\0RANK=1";
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(envfilter_apply(env, sizeof(env) - 1, &sb), 3);
	static const char want[] = "NCCL_DEBUG=INFO\0VLLM_API_KEY=<redacted>\0RANK=1\0";
	assert_int_equal(sb.len, sizeof(want) - 1);
	assert_memory_equal(sb.buf, want, sb.len);
	strbuf_release(&sb);
	assert_true(envfilter_is_environ_path("/proc/self/environ"));
	assert_true(envfilter_is_environ_path("/proc/4242/task/4243/environ"));
	assert_false(envfilter_is_environ_path("/proc/self/environment"));
}

/* Through the recorder: a tree whose proc/self links to proc/77. */
static void test_recording(void **state)
{
	(void)state;
	char dir[] = "/tmp/nd-envf.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char p[512];
	snprintf(p, sizeof(p), "%s/proc/77", dir);
	snprintf(p, sizeof(p), "%s/proc", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/proc/77", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/proc/self", dir);
	assert_int_equal(symlink("77", p), 0);
	snprintf(p, sizeof(p), "%s/proc/77/environ", dir);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fwrite("AWS_SECRET_ACCESS_KEY=zz\0NCCL_DEBUG=INFO\0", 1, 41, f);
	fclose(f);
	assert_int_equal(sysroot_set(dir), 0);
	sr_record_start();
	char *data;
	size_t len;
	assert_int_equal(sr_read_file("/proc/self/environ", &data, &len, 65536), 0);
	assert_int_equal(len, 41); /* the reader itself sees everything */
	free(data);
	sr_record_add_file("/proc/self/environ", "HF_TOKEN=y\0", 11);
	sr_record_stop();
	size_t n;
	const struct sr_rec *r = sr_record_entries(&n);
	int environs = 0;
	for (size_t i = 0; i < n; i++) {
		if (r[i].type != SR_REC_FILE || !envfilter_is_environ_path(r[i].path))
			continue;
		environs++;
		assert_null(memmem(r[i].data, r[i].len, "AWS", 3));
		assert_null(memmem(r[i].data, r[i].len, "HF_TOKEN", 8));
	}
	assert_int_equal(environs, 2); /* /proc/77/environ and /proc/self/environ */
	sr_record_clear();
	sysroot_set(NULL);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* Random environments: no crash, the output is NUL-separated NAME=VALUE
 * entries of kept names only, never longer than the cap allows. */
static void test_random(void **state)
{
	(void)state;
	srand(11);
	static const char alphabet[] = "AZaz09_=:/@.-+ \x01\xff\0NCCL_CUDA_RANK_KEY_TOKEN://";
	char buf[512];
	for (int iter = 0; iter < 20000; iter++) {
		size_t n = (size_t)(rand() % (int)sizeof(buf));
		for (size_t i = 0; i < n; i++)
			buf[i] = alphabet[rand() % (int)(sizeof(alphabet) - 1)];
		struct strbuf sb;
		strbuf_init(&sb, 4 * n + 65536);
		int kept = envfilter_apply(buf, n, &sb);
		assert_true(kept >= 0);
		int entries = 0;
		for (size_t i = 0; i < sb.len;) {
			const char *e = sb.buf + i;
			size_t l = strnlen(e, sb.len - i);
			const char *eq = memchr(e, '=', l);
			assert_non_null(eq);
			assert_true(envfilter_keep_name(e, (size_t)(eq - e)));
			entries++;
			i += l + 1;
		}
		assert_int_equal(entries, kept);
		strbuf_release(&sb);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keep_names),   cmocka_unit_test(test_secret_names), cmocka_unit_test(test_redact_values),
		cmocka_unit_test(test_apply),        cmocka_unit_test(test_recording),    cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
