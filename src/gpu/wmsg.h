/* The worker side of the worker protocol: JSON lines written to the message
 * fd (ND_WORKER_FD, which the parent sets to 3; stdout when unset, for a
 * worker run by hand) of a `nccl-doctor __worker` process. The
 * parent (run/worker.h) reads them; anything the vendor libraries print goes
 * to stdout/stderr instead, which the parent keeps as a tail.
 *
 *   {"type":"stage","stage":"cuInit","t":0.012[,"budget":30]}
 *   {"type":"result","data":{...}}
 *   {"type":"error","stage":"cuInit","lib":"cuda","code":100,
 *    "name":"CUDA_ERROR_NO_DEVICE","message":"..."}
 *
 * "budget" gives this stage its own deadline in seconds (the parent uses it
 * instead of its per-stage default). Writes are whole lines; a failed write
 * (parent gone) makes the worker exit. */
#ifndef ND_GPU_WMSG_H
#define ND_GPU_WMSG_H
#include <jansson.h>

void wmsg_init(void);
/* Announces the stage about to start; the stage name is copied. */
void wmsg_stage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void wmsg_stage_budget(double budget_s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The stage announced last ("" before the first). */
const char *wmsg_current_stage(void);
/* Sends {"type":"result","data":data}; steals the reference. */
void wmsg_result(json_t *data);
/* Sends an error message for the current stage. lib: "cuda", "nvml", "nccl",
 * "loader", "worker"; code/name: the vendor's code (0/NULL when none). */
void wmsg_error(const char *lib, long code, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Sends any message object; steals the reference. */
void wmsg_send(json_t *msg);

#endif
