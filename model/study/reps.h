/*
 * reps: the single runs behind recorded points, for validation against the
 * measured distribution rather than a median and a CV.
 *
 * A reps file is what tools/measure-live writes beside its matrix
 * (MACHINE.reps.csv): one row per run, the point's id in a column "point"
 * (or "id"), its outcome in "status" ("ok" or "disturbed"; a file without
 * the column has only good runs), and any of the recorded-run metric
 * columns (metrics.h's names).  Only "ok" runs of points the run set holds
 * are kept; other points' rows are skipped (a reps file may cover more
 * points than a filtered run set).  An empty cell is a metric that run did
 * not measure; anything else must be a finite number, else the file and
 * line and the column are named.
 */
#ifndef TCPSIM_REPS_H
#define TCPSIM_REPS_H

#include "err.h"
#include "runs.h"

struct rep_values {
	double *v;      /* the good runs' values, ascending after reps_load */
	int n, cap;
};

struct rep_set {
	int n_runs;                 /* the run set's size when loaded */
	struct rep_values *val;     /* [n_runs * METRIC_N]: run i, metric m at i * METRIC_N + m */
	/* [n_runs * 2]: the good runs of run i that recorded both CPUs' busy
	 * shares and had the sender's (2i) or the receiver's (2i + 1) CPU the
	 * busier (a tie is the sender's, as metrics_busier_role) */
	int *busier;
	int rows_used, rows_skipped_status, rows_other_points;
};

void reps_init(struct rep_set *r);
void reps_free(struct rep_set *r);

/* Add the good runs of path's points that rs holds (nothing added on error). */
int reps_load(struct rep_set *r, const struct run_set *rs, const char *path, struct tcpsim_err *err);

/* The good runs of run i's metric m (NULL when none). */
const struct rep_values *reps_of(const struct rep_set *r, int run, int metric);

/* How many good runs of run i had the sender's CPU the busier (*snd) and
 * the receiver's (*rcv); both 0 without such runs. */
void reps_busier(const struct rep_set *r, int run, int *snd, int *rcv);

/* The run nearest to v (rv non-empty). */
double reps_nearest(const struct rep_values *rv, double v);

/*
 * Where a prediction lies against the runs: 0 inside [min, max] (widened
 * by 1e-5 of it: a CSV's 6 significant digits), else its
 * error in % against the nearest run (predicted / nearest - 1); NAN when
 * there are no runs or the prediction is missing.
 */
double reps_nearest_error_pct(const struct rep_values *rv, double predicted);

#endif
