/* nccl-doctor __worker TASK ARGS: the GPU worker process (hidden from help).
 * It is started by run/worker.c with the message pipe on fd 3, runs one task
 * of gpu/tasks.h, and exits. The test-* tasks model a misbehaving worker for
 * the supervisor's tests (stuck in a loop, ignoring SIGTERM, leaving a child
 * behind, crashing, flooding its output). */
#include "cmd/cmd.h"
#include "gpu/tasks.h"
#include "gpu/wmsg.h"
#include "run/ranks.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long long spin_counter;

static int test_task(int argc, char **argv)
{
	const char *t = argv[0];
	if (strcmp(t, "test-ok") == 0) {
		wmsg_stage("working");
		wmsg_result(json_pack("{s:i}", "answer", 42));
		return 0;
	}
	if (strcmp(t, "test-sleep") == 0) {
		long long ms = 1000;
		if (argc > 1)
			parse_ll(argv[1], 10, &ms);
		wmsg_stage("sleeping");
		usleep((useconds_t)ms * 1000);
		wmsg_result(json_pack("{s:I}", "slept_ms", (json_int_t)ms));
		return 0;
	}
	if (strcmp(t, "test-spin") == 0) {
		/* deaf to SIGTERM and never blocking: only SIGKILL ends it */
		signal(SIGTERM, SIG_IGN);
		signal(SIGINT, SIG_IGN);
		wmsg_stage("spinning");
		for (;;)
			spin_counter++;
	}
	if (strcmp(t, "test-spawn") == 0) {
		/* leaves a grandchild in the group that ignores SIGTERM, then hangs */
		pid_t c = fork();
		if (c == 0) {
			signal(SIGTERM, SIG_IGN);
			for (;;)
				pause();
		}
		wmsg_stage("child %d", (int)c);
		signal(SIGTERM, SIG_IGN);
		for (;;)
			pause();
	}
	if (strcmp(t, "test-progress") == 0) {
		/* reports a stage every 100 ms for argv[1] stages, then stops talking */
		long long n = 5;
		if (argc > 1)
			parse_ll(argv[1], 10, &n);
		for (long long i = 0; i < n; i++) {
			wmsg_stage("step %lld", i);
			usleep(100000);
		}
		wmsg_stage("silent");
		for (;;)
			pause();
	}
	if (strcmp(t, "test-crash") == 0) {
		wmsg_stage("about to crash");
		raise(SIGSEGV);
		return 2;
	}
	if (strcmp(t, "test-error") == 0) {
		wmsg_stage("cuInit");
		wmsg_error("cuda", 100, "CUDA_ERROR_NO_DEVICE", "cuInit failed: no CUDA-capable device is detected");
		return 1;
	}
	if (strcmp(t, "test-flood") == 0) {
		/* 4 MiB of output and a 2 MiB line on the message pipe */
		wmsg_stage("flooding");
		char buf[4096];
		memset(buf, 'x', sizeof(buf));
		buf[sizeof(buf) - 1] = '\n';
		for (int i = 0; i < 1024; i++)
			if (write(1, buf, sizeof(buf)) < 0)
				break;
		for (int i = 0; i < 512; i++)
			if (write(3, buf, sizeof(buf) - 1) < 0)
				break;
		if (write(3, "\n", 1) < 0)
			return 1;
		wmsg_result(json_pack("{s:b}", "flooded", 1));
		return 0;
	}
	if (strcmp(t, "test-mute") == 0) {
		/* hangs before its first stage message */
		for (;;)
			pause();
	}
	if (strcmp(t, "test-empty-stage") == 0) {
		/* a stage message with an empty name, then a hang */
		static const char msg[] = "{\"type\":\"stage\",\"stage\":\"\"}\n";
		if (write(3, msg, sizeof(msg) - 1) < 0)
			return 1;
		for (;;)
			pause();
	}
	if (strcmp(t, "test-garbage") == 0) {
		/* binary garbage and half a line on the message pipe */
		static const char junk[] = "\x01\xff\xfe{not json\n{\"type\":\"stage\",\"stage\":\"after junk\"}\n{\"type\":";
		if (write(3, junk, sizeof(junk) - 1) < 0)
			return 1;
		return 0;
	}
	return -1;
}

/* --devices 0,1,..: CUDA ordinals, the rest of the 64 counting on */
struct devices {
	int v[64];
	int n;
};

static int devices_opt(void *target, const char *value, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	struct devices *d = target;
	char *copy = xstrdup(value), *save = NULL;
	int k = 0, rc = 0;
	for (char *t = strtok_r(copy, ",", &save); t && k < 64; t = strtok_r(NULL, ",", &save)) {
		long long v;
		if (parse_ll(t, 10, &v) < 0 || v < 0 || v > 1023) {
			rc = -1;
			break;
		}
		d->v[k++] = (int)v;
	}
	free(copy);
	if (rc == 0 && k == 0)
		rc = -1;
	d->n = k;
	for (; k < 64; k++)
		d->v[k] = k;
	return rc;
}

/* `__worker ranks --nranks N [--start K] [--devices 0,1,..] [--count C]
 * [--deadline S] [--stage-deadline S]`: not a GPU task but a parent: runs an
 * N-rank communicator test (run/ranks.h) starting only K ranks, and prints
 * the outcome of each rank as JSON on stdout. Used by the device validation
 * (tests/device/validate-gpu.sh); --devices are CUDA ordinals (an internal
 * tool: `bench --gpus` resolves UUIDs and bus ids for users); exit 0 when
 * every started rank succeeded, 2 otherwise. */
static int supervise_ranks(int argc, char **argv, const struct run_opts *opt)
{
	long long nranks = 2, start = 0, count = 1 << 20;
	double deadline = opt_deadline(opt, DEADLINE_RANKS), stage = 0;
	struct devices dv = { .n = 0 };
	const struct opt_spec opts[] = {
		OPT_INT("nranks", 0, &nranks, 1, 64, "ranks of the communicator"),
		OPT_INT("start", 0, &start, 0, 64, "start only this many ranks (0: all)"),
		OPT_CALL("devices", 0, &dv, devices_opt, "a list of CUDA ordinals (0,1,..)", "the device of each rank"),
		OPT_INT("count", 0, &count, 1, 1LL << 40, "elements of the test"),
		OPT_SECONDS_ABOVE("deadline", 0, &deadline, 0, 86400, "deadline of the whole test"),
		OPT_SECONDS("stage-deadline", 0, &stage, 0, 86400, "deadline of one stage"),
		OPT_END(),
	};
	int next, rc = cmd_options("__worker", argc, argv, opts, 0, NULL, &next);
	if (rc >= 0)
		return rc;
	if (next < argc)
		return cmd_usage_error("__worker", "ranks: unexpected argument '%s'", argv[next]);
	int *devices = dv.v;
	bool have_devices = dv.n > 0;
	if (nranks < 1 || nranks > 64 || start < 0 || start > nranks || deadline <= 0)
		return cmd_usage_error("__worker", "ranks: --nranks 1..64, --start 0..N, --deadline > 0");
	struct worker ws[64];
	struct ranks_spec spec = {
		.nranks = (int)nranks, .started = (int)start, .devices = have_devices ? devices : NULL,
		.nccl = opt->nccl, .count = count, .deadline = deadline, .stage_deadline = stage, .grace = 2,
	};
	int r = ranks_run(&spec, ws);
	json_t *out = json_object(), *arr = json_array();
	bool all_ok = r == 0;
	for (int i = 0; i < nranks; i++) {
		json_t *o;
		if (i < (start ? start : nranks)) {
			o = worker_json(&ws[i]);
			json_t *res = json_array_get(ws[i].results, json_array_size(ws[i].results) - 1);
			if (res && !json_object_get(res, "unique_id"))
				json_object_set(o, "result", res);
			if (ws[i].status != WORKER_OK)
				all_ok = false;
		} else {
			o = json_pack("{s:s,s:s}", "status", "not_started", "why", ws[i].why);
		}
		json_object_set_new(o, "rank", json_integer(i));
		json_array_append_new(arr, o);
		worker_release(&ws[i]);
	}
	json_object_set_new(out, "nranks", json_integer(nranks));
	json_object_set_new(out, "ranks", arr);
	char *s = json_dumps(out, JSON_INDENT(2));
	json_decref(out);
	if (s)
		puts(s);
	free(s);
	return all_ok ? 0 : EXIT_PROBLEM;
}

int cmd_worker(int argc, char **argv, const struct run_opts *opt)
{
	if (argc >= 2 && strcmp(argv[1], "ranks") == 0)
		return supervise_ranks(argc - 1, argv + 1, opt);
	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		int n;
		const struct gpu_task *t = gpu_tasks(&n);
		FILE *out = argc < 2 ? stderr : stdout;
		fprintf(out, "usage: nccl-doctor __worker TASK [ARGS]\n\n"
			     "Internal: one GPU task in its own process, reporting JSON lines on fd 3\n"
			     "(ND_WORKER_FD). Started by nccl-doctor itself, with a deadline.\n\ntasks:\n");
		for (int i = 0; i < n; i++)
			fprintf(out, "  %-10s %s\n", t[i].name, t[i].summary);
		fprintf(out, "\nnot a task but a parent: 'ranks --nranks N [--start K] [--devices LIST]\n"
			     "[--count C] [--deadline S]' runs an N-rank communicator test, one worker per\n"
			     "rank, and prints each rank's outcome as JSON. test-* tasks exist for tests.\n");
		return argc < 2 ? EXIT_USAGE : 0;
	}
	wmsg_init();
	const char *task = argv[1];
	if (str_startswith(task, "test-")) {
		int r = test_task(argc - 1, argv + 1);
		if (r >= 0)
			return r;
	}
	const struct gpu_task *t = gpu_task_find(task);
	if (!t) {
		wmsg_stage("start");
		wmsg_error("worker", 0, NULL, "unknown worker task '%s'", task);
		return cmd_usage_error("__worker", "unknown task '%s'", task);
	}
	/* --nccl is a global option (main.c): the task gets it as an argument */
	int r = t->run(argc - 1, argv + 1, opt->nccl);
	return r;
}
