/* The user's variables of this process and the hits in a worker's output
 * (engine/user_env_run.h). */
#include "engine/user_env_run.h"

#include <stdlib.h>
#include <string.h>

extern char **environ;

void uenv_run_load(struct uenv_run *e)
{
	e->n = 0;
	for (char **p = environ; p && *p && e->n < UENV_RUN_MAX; p++) {
		const char *eq = strchr(*p, '=');
		size_t n = eq ? (size_t)(eq - *p) : 0;
		if (!eq || n >= sizeof(e->name[0]))
			continue;
		memcpy(e->name[e->n], *p, n);
		e->name[e->n][n] = '\0';
		if (!uenv_suspectable(e->name[e->n]))
			continue;
		e->v[e->n] = (struct uenv_var){ e->name[e->n], eq + 1 };
		e->n++;
	}
}

int uenv_run_hits(const struct uenv_run *e, const char *text, struct uenv_hit *out, int max)
{
	if (!e->n || !text || !*text)
		return 0;
	enum { MAXL = 256 };
	char *copy = strdup(text);
	const char **lines = calloc(MAXL, sizeof(*lines));
	int n = 0;
	if (copy && lines) {
		size_t nl = 0;
		char *save = NULL;
		for (char *l = strtok_r(copy, "\n", &save); l && nl < MAXL; l = strtok_r(NULL, "\n", &save))
			lines[nl++] = l;
		n = uenv_implicated(e->v, (size_t)e->n, lines, nl, out, max);
	}
	free(lines);
	free(copy);
	return n;
}
