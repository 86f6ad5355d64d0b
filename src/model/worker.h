/* What a GPU worker's run came to, as data: its status, last stage, time,
 * message, signal, output tail, first error and first result. run/worker.c
 * runs workers and fills this (worker_outcome_of); analyze/ turns it into
 * findings without knowing that a process ran. */
#ifndef ND_MODEL_WORKER_H
#define ND_MODEL_WORKER_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

enum worker_status {
	WORKER_RUNNING,
	WORKER_OK,
	WORKER_ERROR,   /* the task reported an error, or exited non-zero */
	WORKER_HANG,    /* killed at a deadline */
	WORKER_CRASH,   /* died of a signal it was not sent by us */
};

const char *worker_status_name(enum worker_status s); /* "ok", "error", "hang", "crash" */

/* Owns its strings and JSON references (worker_outcome_release). */
struct worker_outcome {
	char task[32];            /* "nvml-topo", "cuda-info" */
	enum worker_status status;
	double elapsed;           /* seconds from start to end */
	int signal;               /* crash: the signal */
	char stage[256];          /* the last stage reported */
	char why[512];            /* hang: which deadline; error: a summary */
	char *tail;               /* what the libraries printed (the last bytes), NULL none */
	json_t *error;            /* the first error message, NULL none */
	json_t *result;           /* the first result's data, NULL none */
	json_t *summary;          /* the worker's JSON summary (worker_json), NULL none */
};

void worker_outcome_release(struct worker_outcome *o);

#endif
