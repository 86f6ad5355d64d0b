/* Worker outcomes as data: see model/worker.h. */
#include "model/worker.h"

#include <stdlib.h>
#include <string.h>

const char *worker_status_name(enum worker_status s)
{
	switch (s) {
	case WORKER_RUNNING: return "running";
	case WORKER_OK: return "ok";
	case WORKER_ERROR: return "error";
	case WORKER_HANG: return "hang";
	case WORKER_CRASH: return "crash";
	}
	return "unknown";
}

void worker_outcome_release(struct worker_outcome *o)
{
	free(o->tail);
	json_decref(o->error);
	json_decref(o->result);
	json_decref(o->summary);
	memset(o, 0, sizeof(*o));
}
