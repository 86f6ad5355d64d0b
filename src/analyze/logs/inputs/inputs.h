/* The inputs of `logs` other than NCCL's text, each detected by its
 * content, never by its name: PyTorch flight-recorder dumps (JSON here; a
 * pickle comes whole through nccllog_add_pickle), NCCL Inspector dumps
 * (JSON lines, Prometheus text) and ncclras reports (the text report; its
 * -f json document is read by the flight recorder's JSON reader). Their
 * files are in analyze/logs/inputs/, what they read goes into the model of
 * analyze/nccllog.h (lg->fr, lg->insp), and the rules that read it are
 * analyze/logs/rules/flight_recorder.c and inspector.c.
 *
 * The log reader (logs/read/reader.c) knows them only through this table:
 * every line of every input goes, in table order, to each input whose
 * detect() takes it, then to its line(); a line() that returns true claims
 * the line (a record of a dump, no log line) and the walk ends there; the
 * line then does not reach the log reader. At the end of a file each
 * input's end_file(), and release() when the model is emptied or freed. */
#ifndef ND_ANALYZE_LOGS_INPUTS_INPUTS_H
#define ND_ANALYZE_LOGS_INPUTS_INPUTS_H
#include "analyze/nccllog.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nl_input {
	const char *name;
	/* A cheap look at the line s[0..n) (its first bytes, lineno 1) and at
	 * the input's state: whether line() may act on it. Runs on every line. */
	bool (*detect)(const struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno);
	/* The line (not NUL-terminated); true when it belongs to the input. */
	bool (*line)(struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno);
	void (*end_file)(struct nccllog *lg, int file);
	void (*release)(struct nccllog *lg); /* NULL: its state is another input's */
};

/* The table, in the order the reader consults it. */
extern const struct nl_input nl_inputs[];
extern const size_t nl_ninputs;

#endif
