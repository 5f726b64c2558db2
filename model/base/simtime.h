/*
 * simtime: the one type of simulated time, nanoseconds since the run began
 * (a signed 64-bit count: 292 years), and its units.  Below every layer so
 * that the event queue and the scenario share it without seeing each other.
 */
#ifndef TCPSIM_SIMTIME_H
#define TCPSIM_SIMTIME_H

#include <stdint.h>

typedef int64_t sim_ns;

#define NS_PER_US 1000LL
#define NS_PER_MS 1000000LL
#define NS_PER_S 1000000000LL

/* x rounded to the nearest integer, halves away from zero: llround(x) for
 * |x| < 2^63, inline (llround is a call through the PLT, 2% of a run).
 * x - trunc(x) is exact in double, so the comparison with 0.5 is too. */
static inline sim_ns sim_ns_round(double x)
{
	sim_ns r = (sim_ns)x;
	double frac = x - (double)r;

	/* no branch: which way a step's time rounds is a coin toss */
	return r + (sim_ns)(frac >= 0.5) - (sim_ns)(frac <= -0.5);
}

#endif
