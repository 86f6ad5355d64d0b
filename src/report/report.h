/* Renderers of the result model: human text and JSON. */
#ifndef ND_REPORT_REPORT_H
#define ND_REPORT_REPORT_H
#include "model/result.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#define ND_JSON_SCHEMA_VERSION 1

struct render_opts {
	bool json;
	bool color;
};

/* Renders r to out; returns 0, or -EIO when writing failed. */
int report_render(const struct result *r, const struct render_opts *o, FILE *out);
void report_text(const struct result *r, bool color, FILE *out);
/* The JSON document of a result; the caller owns the reference. */
json_t *report_json(const struct result *r);
json_t *report_finding_json(const struct finding *f);

/* ANSI colour helpers for commands that print their own tables. */
const char *color_on(bool color, enum severity s);
const char *color_off(bool color);

#endif
