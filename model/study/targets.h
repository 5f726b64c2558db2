/*
 * targets: what a validation must show, read from a CSV, checked against
 * measured and predicted runs, each check printed as met or MISSED.
 *
 * A targets CSV (read with libcsv, strict) has a header and one check a
 * row; columns (any order; extra columns are an error):
 *   check   change | median_abs_error | max_abs_error | bottleneck |
 *           train_median_abs_error | busier_cpu
 *   metric  a metrics.h column (change, *_abs_error)
 *   run     a run id (change: the new side; bottleneck: the run)
 *   base    a run id (change: the base side)
 *   limit   change: largest |predicted - measured| %change, in points;
 *           *_abs_error: largest median / max |error| in %;
 *           busier_cpu: the least share of runs, in %, whose busier CPU
 *           (snd_cpu_busy_pct against rcv_cpu_busy_pct) is predicted
 *   expect  bottleneck: cpu | wire | window | receiver | none
 *   lacks   what the model lacks when the check is missed (printed then)
 *   source  where the target comes from (optional)
 *
 * median_abs_error and max_abs_error look at the held-out rows when some
 * run was held out, else at every row; train_median_abs_error at the
 * fitted (in-sample) rows when some were held out, else at every row;
 * busier_cpu at every run that records both CPUs' busy shares.  Errors name file:line and column; run ids are
 * checked against the run set when the checks are evaluated.
 */
#ifndef TCPSIM_TARGETS_H
#define TCPSIM_TARGETS_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"
#include "metrics.h"
#include "runs.h"

enum target_kind {
	TARGET_CHANGE,
	TARGET_MEDIAN_ABS_ERROR,
	TARGET_MAX_ABS_ERROR,
	TARGET_BOTTLENECK,
	TARGET_TRAIN_MEDIAN_ABS_ERROR,
	TARGET_BUSIER_CPU,
};

struct target {
	enum target_kind kind;
	int metric;                   /* -1 when not used */
	char *run, *base;             /* run ids, or NULL */
	double limit;                 /* NAN when not used */
	enum bottleneck_kind expect;
	char *lacks, *source;         /* may be "" */
	int line;
};

struct target_set {
	char *file;
	struct target *t;
	int n;
};

int targets_load(struct target_set *ts, const char *path, struct tcpsim_err *err);
void targets_free(struct target_set *ts);

/* What the runs and predictions give for one check. */
struct target_outcome {
	bool met;
	double measured, predicted;   /* change: %change; *_abs_error: the statistic; NAN if none */
	int n;                        /* rows the statistic is over */
	char text[320];               /* one line: what was checked and the figures */
};

/*
 * Evaluate every check.  pred[i] predicts rs->runs[i]; held_out[i] marks
 * held-out runs (NULL: none).  out[] has ts->n entries.  An id that is not
 * in rs is an error naming the targets file and line.
 */
int targets_eval(const struct target_set *ts, const struct run_set *rs, const struct metrics *pred,
		 const bool *held_out, struct target_outcome *out, struct tcpsim_err *err);

#endif
