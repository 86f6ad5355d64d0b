/* Fuzz harness: NVSwitch SXid lines (analyze/sxid_parse.h) one per input
 * line, grouped into events the way the kernel parser groups them (a
 * Severity or Data line continues the newest group of its switch). */
#include "fuzz.h"

#include "analyze/sxid_parse.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fz_strdup(data, size);
	struct sxid_event ev[4];
	int nev = 0;
	unsigned sum = 0;
	for (char *p = s, *nl; p; p = nl) {
		nl = strchr(p, '\n');
		if (nl)
			*nl++ = '\0';
		struct sxid_line l;
		if (!sxid_parse_line(p, &l))
			continue;
		/* text lies inside the line and is text_len long */
		if (l.text_len)
			sum += (unsigned char)l.text[l.text_len - 1];
		sum += (unsigned)strlen(sxid_sev_name(l.sev));
		int k = -1;
		for (int i = 0; i < nev; i++)
			if (sxid_event_continues(&ev[i], &l))
				k = i;
		if (k >= 0) {
			sxid_event_merge(&ev[k], &l);
		} else {
			k = nev < 4 ? nev++ : (int)(sum % 4);
			sxid_event_start(&ev[k], &l);
		}
		if (ev[k].ndata > SXID_DATA_WORDS)
			abort(); /* the stored words never pass the array */
	}
	free(s);
	return sum == 0xdeadbeef; /* keeps sum alive */
}
