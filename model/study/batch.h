/*
 * batch: the thread pool of calibrate, validate, compare and --reps: run n
 * independent scenarios on `jobs` threads (each run owns its struct sim, so
 * runs share nothing).  The sweep's engine streams rows to its file in
 * order and keeps its own workers (sweep.c).
 */
#ifndef TCPSIM_BATCH_H
#define TCPSIM_BATCH_H

#include <stdio.h>

#include "err.h"
#include "metrics.h"
#include "scenario.h"

/* One run: tcpsim_run, or a double in tests. */
typedef int (*batch_run_fn)(const struct scenario *sc, struct metrics *out, struct tcpsim_err *err);

/* Run sc[0..n-1] into out[0..n-1] on up to jobs threads and keep every
 * run's own result: errs[i].code is TCPSIM_OK or that run's failure.
 * Returns the number of runs that failed. */
int batch_run_each(batch_run_fn run, const struct scenario *sc, struct metrics *out, int n, int jobs,
		   FILE *progress, struct tcpsim_err *errs);

/* Run sc[0..n-1] into out[0..n-1] on up to jobs threads; progress (may be
 * NULL) gets a "N/M runs simulated" line that worker 0 updates.  The first
 * failure (lowest index) is the result. */
int batch_run(batch_run_fn run, const struct scenario *sc, struct metrics *out, int n, int jobs,
	      FILE *progress, struct tcpsim_err *err);

#endif
