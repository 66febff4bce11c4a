/* clock.h — the one monotonic clock every time limit, progress line and report reads.
 * CLOCK_MONOTONIC: never jumps with the wall clock, so deadlines computed from it hold. */
#ifndef AX_CLOCK_H
#define AX_CLOCK_H

#include <stdint.h>

/* Milliseconds since an arbitrary fixed point (boot), for deadlines. */
int64_t ax_clock_ms(void);

/* Seconds, with nanosecond resolution, from the same clock: for measuring durations. */
double ax_clock_s(void);

#endif
