/* Fuzz harness: NCCL RAS's MONITOR stream (probe/ras.h) as a server could
 * send it: the input is fed in chunks of varying size to ras_monitor_feed
 * from the handshake's first answer on (SERVER PROTOCOL, OK, then event
 * lines), and each of its lines also goes to ras_event_parse alone. */
#include "fuzz.h"

#include "probe/ras.h"

#include <stdlib.h>
#include <string.h>

struct tally {
	unsigned sum;
	int dead;
};

static void on_event(void *ctx, const struct ras_event *ev)
{
	struct tally *t = ctx;
	/* every field is a terminated string inside its array */
	t->sum += (unsigned)(strlen(ev->time) + strlen(ev->type) + strlen(ev->host) + strlen(ev->gpus) +
			     strlen(ev->addr) + strlen(ev->details));
	t->dead += ev->kind == RAS_EV_DEAD;
	if (ev->type[0] == '\0' || strlen(ras_ev_kind_name(ev->kind)) == 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ras_monitor m;
	ras_monitor_init(&m);
	m.state = RAS_MON_HELLO;
	struct tally t = { 0 };
	size_t step = size % 7 + 1;
	for (size_t off = 0; off < size; off += step, step = step * 3 % 61 + 1)
		if (ras_monitor_feed(&m, (const char *)data + off, off + step > size ? size - off : step, on_event, &t) < 0)
			break;
	if (m.len >= sizeof(m.line) || m.outlen > sizeof(m.out))
		abort();
	char *s = fz_strdup(data, size);
	for (char *p = s, *nl; p; p = nl) {
		nl = strchr(p, '\n');
		if (nl)
			*nl++ = '\0';
		struct ras_event ev;
		if (ras_event_parse(p, &ev) == 0)
			on_event(&t, &ev);
	}
	free(s);
	return t.sum == 0xdeadbeef && t.dead < 0;
}
