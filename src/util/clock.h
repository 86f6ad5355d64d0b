/* The one clock for deadlines and elapsed times: monotonic seconds (never
 * jumps with the wall clock). Async-signal-safe (clock_gettime). */
#ifndef ND_UTIL_CLOCK_H
#define ND_UTIL_CLOCK_H

/* Seconds of CLOCK_MONOTONIC, as a double. */
double nd_now_s(void);
/* Seconds of the wall clock since the epoch (CLOCK_REALTIME): a time stamp
 * for others to read, never a deadline. */
double nd_wall_s(void);

#endif
