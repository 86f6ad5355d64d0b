/* merge's analysis (docs/fleet.md): per-node JSON documents of any command
 * in, one fleet result out: a worst-first node table, the nodes missing
 * from an expected host list, outliers within one hardware class (median
 * and MAD), the findings grouped by cause, the versions that differ across
 * nodes, and the lines a scheduler runs to drain or cordon a node (printed,
 * never run). Pure: the documents are parsed by the command. */
#ifndef ND_ANALYZE_FLEET_H
#define ND_ANALYZE_FLEET_H
#include "model/result.h"
#include "util/hostlist.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* One parsed file: its name (for messages and the node table) and its
 * document, both owned by the caller. */
struct fleet_doc {
	const char *file;
	json_t *doc;
};

struct fleet_opts {
	const struct hostlist *expect; /* --expect-nodes; NULL: none */
	bool drain_degraded;           /* drain DEGRADED and outlier nodes too (--fail-on warning) */
	int schema;                    /* the schema_version read (fleet_doc_check) */
	/* why an expected node sent nothing, in its row and finding
	 * ("never joined the rendezvous within 5 s"); NULL, or NULL from it:
	 * "expected, no result" */
	const char *(*missing_why)(const char *node, void *ctx);
	void *ctx;
};

/* Whether doc is one of our results that merge can read: an object of
 * schema_version schema (report/report.h's ND_JSON_SCHEMA_VERSION) with a
 * command and a node name. Returns 0, or -1 with a
 * one-line reason in why. The node's name goes to *node (borrowed). */
int fleet_doc_check(const json_t *doc, int schema, const char **node, char *why, size_t whysz);

/* The merge of n documents into r (sections, findings, verdict and the
 * JSON members "nodes" and "actions"). Returns the exit status: the worst
 * node's in Nagios order (2 before 3 before 1 before 0; a missing node 3). */
int fleet_merge(struct result *r, const struct fleet_doc *docs, size_t n, const struct fleet_opts *o);

/* The outlier test of one hardware class: x[0..n) measurements where a
 * higher value is better. Sets low[i] for each value more than
 * FLEET_MAD_K x MAD and more than FLEET_FLOOR x median below the median;
 * *median and *mad are the class's. Returns how many were set; 0 when
 * n < 3 (no majority to compare with). */
#define FLEET_MAD_K (3 * 1.4826)
#define FLEET_FLOOR 0.10
size_t fleet_outliers_low(const double *x, size_t n, bool *low, double *median, double *mad);

/* The one-line reason of a run, as a drain records it: "nccl-doctor:
 * VERDICT ID: title" (ID and title: the worst finding; both may be NULL),
 * at most FLEET_REASON_MAX bytes, without characters a shell or a
 * scheduler's quoting would take apart (quotes, backslashes, $, `,
 * control characters). */
#define FLEET_REASON_MAX 160
void fleet_reason(char *buf, size_t bufsz, const char *verdict, const char *id, const char *title);

#endif
