/* Writing the worker protocol's JSON lines (see wmsg.h). */
#include "gpu/wmsg.h"
#include "util/jsonx.h"
#include "util/text.h"
#include "util/clock.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int msg_fd = -1;
static char stage[256];
static double t0;

void wmsg_init(void)
{
	/* the parent sets ND_WORKER_FD; run by hand, the messages go to stdout */
	const char *e = getenv("ND_WORKER_FD");
	long long fd = 1;
	if (e && (parse_ll(e, 10, &fd) < 0 || fd < 0 || fd > 1023))
		fd = 3;
	msg_fd = (int)fd;
	t0 = nd_now_s();
}

void wmsg_send(json_t *msg)
{
	if (msg_fd < 0)
		wmsg_init();
	char *s = json_dumps(msg, JSON_COMPACT);
	json_decref(msg);
	if (!s)
		return;
	size_t len = strlen(s);
	char *line = malloc(len + 2);
	if (!line) {
		free(s);
		return;
	}
	memcpy(line, s, len);
	line[len] = '\n';
	free(s);
	size_t off = 0;
	while (off < len + 1) {
		ssize_t n = write(msg_fd, line + off, len + 1 - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(3); /* the parent is gone: nobody to report to */
		off += (size_t)n;
	}
	free(line);
}

__attribute__((format(printf, 2, 0))) static void vstage(double budget, const char *fmt, va_list ap)
{
	vsnprintf(stage, sizeof(stage), fmt, ap);
	json_t *m = json_object();
	json_object_set_new(m, "type", json_string("stage"));
	json_object_set_new(m, "stage", json_str_lossy(stage));
	json_object_set_new(m, "t", json_real(nd_now_s() - t0));
	if (budget > 0)
		json_object_set_new(m, "budget", json_real(budget));
	wmsg_send(m);
}

void wmsg_stage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vstage(0, fmt, ap);
	va_end(ap);
}

void wmsg_stage_budget(double budget_s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vstage(budget_s, fmt, ap);
	va_end(ap);
}

const char *wmsg_current_stage(void)
{
	return stage;
}

void wmsg_result(json_t *data)
{
	json_t *m = json_object();
	json_object_set_new(m, "type", json_string("result"));
	json_object_set_new(m, "data", data ? data : json_null());
	wmsg_send(m);
}

void wmsg_error(const char *lib, long code, const char *name, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	json_t *m = json_object();
	json_object_set_new(m, "type", json_string("error"));
	json_object_set_new(m, "stage", json_str_lossy(stage));
	json_object_set_new(m, "lib", json_string(lib ? lib : "worker"));
	json_object_set_new(m, "code", json_integer(code));
	if (name)
		json_object_set_new(m, "name", json_string(name));
	json_object_set_new(m, "message", json_str_lossy(text));
	wmsg_send(m);
}
