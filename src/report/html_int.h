/* The HTML page's parts (report/html.c: the document, sections, findings;
 * report/html_svg.c: the charts). Private to report/. */
#ifndef ND_REPORT_HTML_INT_H
#define ND_REPORT_HTML_INT_H
#include "model/result.h"
#include "util/strbuf.h"

#include <jansson.h>

/* report_html_escape without flags: the form of nearly every string. */
#define H(o, s) report_html_escape((o), (s), 0)

/* The charts the JSON document holds data for, each as an inline <svg>
 * under an <h2>, onto o: the pairs' status and bandwidth heatmaps (one cell
 * per ordered GPU pair, class "pair", its <title> the tooltip), the fix
 * search's trials as bars, the check's stages on a time line. Nothing when
 * doc has none of them. */
void html_charts(struct strbuf *o, const json_t *doc);

#endif
