/*
 * tcpsim: the library's front door.
 *
 * tcpsim_run() builds a fresh struct sim from a scenario, simulates warm-up
 * and the measured interval, and fills struct metrics.  It keeps no state
 * between calls and touches no globals, so callers may run it from many
 * threads at once (sweeps, calibration).
 */
#ifndef TCPSIM_TCPSIM_H
#define TCPSIM_TCPSIM_H

#include "chargelog.h"
#include "err.h"
#include "metrics.h"
#include "scenario.h"
#include "timeline.h"

int tcpsim_run(const struct scenario *sc, struct metrics *out, struct tcpsim_err *err);
/* tcpsim_run, and the first connection's start recorded into tl (its
 * steps zeroed, t0 -1: timeline.h) */
int tcpsim_run_timeline(const struct scenario *sc, struct metrics *out, struct timeline *tl, struct tcpsim_err *err);
/* tcpsim_run_timeline, and (cc not NULL) each CPU's cycles over the
 * measured interval into cc (metrics.h; cpu_cycles_free releases them),
 * and (cl not NULL: from, to and max_rows set, the rest zeroed) each CPU
 * step's charges in cl's window (chargelog.h; chargelog_free releases
 * them) */
int tcpsim_run_detail(const struct scenario *sc, struct metrics *out, struct timeline *tl, struct cpu_cycles *cc,
		      struct chargelog *cl, struct tcpsim_err *err);

#endif
