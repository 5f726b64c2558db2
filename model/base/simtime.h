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

#endif
