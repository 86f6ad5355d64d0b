/* Facts that come from system calls rather than files (statvfs of /dev/shm,
 * the library scan, uid). On the live machine they are measured; under a
 * recorded sysroot they come from <sysroot>/.nccl-doctor/live.json, which
 * `snapshot` writes. */
#ifndef ND_PROBE_LIVE_H
#define ND_PROBE_LIVE_H
#include <jansson.h>

#define LIVE_MANIFEST "/.nccl-doctor/live.json"

/* The recorded manifest (borrowed reference, NULL when live or absent). */
json_t *live_manifest(void);
/* Member of the recorded manifest, NULL when absent (borrowed). */
json_t *live_get(const char *key);
/* Forgets the cached manifest (tests switch sysroots). */
void live_reset(void);

#endif
