/* One progress style on stderr (util/progress.h). */
#include "util/progress.h"
#include "util/clock.h"

#include <math.h>
#include <string.h>

bool progress_wanted(bool quiet, bool asked, bool tty)
{
	return !quiet && (asked || tty);
}

void progress_init(struct progress *p, const char *command, double t0, FILE *out)
{
	memset(p, 0, sizeof(*p));
	p->command = command;
	p->t0 = t0;
	p->out = out;
}

void progress_count(struct progress *p, const char *unit, long long total, double now)
{
	p->unit = unit;
	p->total = total > 0 ? total : 0;
	p->done = 0;
	p->t_count = p->t_done = now;
}

void progress_done(struct progress *p, long long done)
{
	done = done < 0 ? 0 : done;
	if (done != p->done)
		p->t_done = nd_now_s();
	p->done = done;
}

void progress_uncount(struct progress *p)
{
	p->unit = NULL;
	p->total = p->done = 0;
}

/* "3/12 pairs", "1.5/12.0 MiB" */
static int counter(char *buf, size_t bufsz, const char *unit, long long done, long long total)
{
	if (unit && strcmp(unit, "bytes") == 0 && total < (1LL << 20))
		return snprintf(buf, bufsz, "%.1f/%.1f KiB", (double)done / 1024.0, (double)total / 1024.0);
	if (unit && strcmp(unit, "bytes") == 0)
		return snprintf(buf, bufsz, "%.1f/%.1f MiB", (double)done / 1048576.0, (double)total / 1048576.0);
	return snprintf(buf, bufsz, "%lld/%lld%s%s", done, total, unit ? " " : "", unit ? unit : "");
}

int progress_format(char *buf, size_t bufsz, const char *command, double elapsed, const char *text,
		    const char *unit, long long done, long long total, double counting, double since)
{
	char cnt[96] = "", eta[48] = "";
	if (total > 0) {
		cnt[0] = ',', cnt[1] = ' ';
		counter(cnt + 2, sizeof(cnt) - 2, unit, done > total ? total : done, total);
		if (done > 0 && done < total && counting > 0) {
			double left = ceil(counting / (double)done * (double)(total - done) - (since > 0 ? since : 0));
			if (left > 120)
				snprintf(eta, sizeof(eta), ", ETA %.0f min", ceil(left / 60));
			else
				snprintf(eta, sizeof(eta), ", ETA %.0f s", left < 1 ? 1 : left);
		}
	}
	if (elapsed < 0)
		elapsed = 0;
	return snprintf(buf, bufsz, "nccl-doctor %s [%5.1fs] %s%s%s", command ? command : "", elapsed, text ? text : "", cnt,
			eta);
}

void progress_vsay(const struct progress *p, const char *fmt, va_list ap)
{
	if (!p || !p->out)
		return;
	char text[512], line[768];
	vsnprintf(text, sizeof(text), fmt, ap);
	/* one line each: a message never breaks the form */
	for (char *c = text; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	double now = nd_now_s();
	progress_format(line, sizeof(line), p->command, now - p->t0, text, p->unit, p->done, p->total,
			p->t_done - p->t_count, now - p->t_done);
	fprintf(p->out, "%s\n", line);
	fflush(p->out);
}

void progress_say(const struct progress *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	progress_vsay(p, fmt, ap);
	va_end(ap);
}
