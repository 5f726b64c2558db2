/*
 * calib: fit cost parameters of a machine profile to recorded runs, and
 * predict recorded runs with or without holding them out of the fit.
 *
 * Scenario of a run.  calib_runs_build() makes each run's base scenario
 * once: config_defaults, config_load(run's scenario path), config_load of
 * an optional profile (validate --profile), the run's overrides column
 * through config_set, config_validate.  An evaluation copies the base,
 * sets the candidate parameters through config_set and validates again.
 * Paths in the scenario column are resolved by runs_scenario_path (beside
 * the CSV and above it, the working directory, the installed data
 * directory).
 *
 * Fit.  Weighted non-linear least squares (GSL multifit_nlinear, trust
 * region with Levenberg-Marquardt steps) on relative errors: one residual
 * r = sqrt(w_metric) * (predicted / measured - 1) per run and measured
 * metric with weight > 0 and measured != 0.  A predicted value that is not
 * finite counts as 0.
 *
 * Bounds.  Only [cost] and [rcost] keys are fitted (positive per-unit
 * costs).  Each parameter p lives in [lo, hi] (default start/100 ..
 * start*100, cut to the key's table maximum) and the solver moves an
 * unbounded u with p = lo * (hi/lo)^sigma(u), sigma the logistic function:
 * a logit between the bounds on a log scale, so equal steps in u are equal
 * relative steps in p in the middle of the range.  A fitted sigma(u) below
 * 0.01 or above 0.99 (within ~5% of lo or hi on the default range) is
 * reported as at its bound.
 *
 * Jacobian.  Forward differences computed here (not GSL's), with a step
 * that changes each parameter by rel_step (default 5%): the simulator is
 * deterministic per seed but piecewise (an event order flips, a batch
 * ends a frame earlier), so differences over a much smaller step measure
 * that granularity rather than the slope.  Common random numbers: every
 * evaluation of a run uses the run's own run.seed, so two evaluations
 * differ only by the parameters.  run.cost_jitter is set to 0 for fitting
 * and prediction unless keep_jitter is set (jitter draws follow the
 * event order, so they add jumps to the response); the output says which.
 *
 * Starts.  With starts = N > 1 the fit first evaluates chisq at the
 * profile's start and N - 1 quasi-random points (a Halton sequence over
 * sigma in (0, 1), i.e. log-uniform between the bounds) in one parallel
 * batch, and runs the solver from the best of them.  The simulator's
 * response can switch regime (who blocks, who is the bottleneck) as a cost
 * moves, so chisq has several valleys and a local method only finds the
 * one it starts in; the scan is deterministic, and the report says which
 * start won.
 *
 * Polish.  With polish = N > 0, a Nelder-Mead simplex (GSL multimin,
 * nmsimplex2) continues from where the Levenberg-Marquardt steps stopped,
 * on chisq(u) alone, for at most N points or until the simplex's size
 * falls below CALIB_POLISH_SIZE.  Its first edges change each parameter by
 * CALIB_POLISH_STEP (20%).  The solver follows a forward-difference slope,
 * and where the simulator's response is a staircase of steady states (a
 * cost moves who waits for whom) that slope points nowhere, so it stops on
 * a plateau; the simplex compares chisq values only and walks off it.  The
 * fit ends at the simplex's best point when its chisq is lower, and the
 * Jacobian of the confidence intervals is taken there.  The simplex
 * evaluates each point at the values the profile will hold (6 significant
 * digits): where a run sits on the edge between two steady states, values
 * 1e-6 apart can give chisq values far apart, and the point reported must
 * be the one that was evaluated.
 *
 * Confidence intervals.  Cov(u) = s^2 (J^T J)^-1 (gsl_multifit_nlinear_covar)
 * with s^2 = chisq / (n - p); the 95% interval u +- t(0.975, n - p) * sd
 * is mapped through the transform, so it is asymmetric in p.  None when
 * n = p; a parameter the runs cannot tell apart from the others (a zero
 * column or a rank-deficient J) is reported as not identifiable.
 *
 * Threads.  Every batch of runs (the f(x) of one point, the p extra points
 * of a Jacobian) runs on `jobs` threads; the run function must be
 * thread-safe (tcpsim_run is).  Results do not depend on jobs.
 *
 * Ownership: struct calib_runs owns its scenarios, struct calib_result and
 * struct calib_validation own their arrays; *_free releases them.  GSL's
 * aborting error handler is turned off (gsl_set_error_handler_off) by
 * calib_fit and every GSL status is checked.
 */
#ifndef TCPSIM_CALIB_H
#define TCPSIM_CALIB_H

#include <stdbool.h>
#include <stdio.h>

#include "batch.h"
#include "err.h"
#include "metrics.h"
#include "reps.h"
#include "runs.h"
#include "scenario.h"

#define CALIB_MAX_PARAMS 16
#define CALIB_KEY_MAX 64
#define CALIB_DEFAULT_RANGE 100.0   /* default bounds start/100 .. start*100 */
#define CALIB_DEFAULT_STEP 0.05     /* finite-difference step, relative */
#define CALIB_DEFAULT_MAX_ITER 60
#define CALIB_BOUND_SIGMA 0.01      /* sigma(u) below this or above 1 - this: at a bound */
#define CALIB_POLISH_STEP 0.2       /* the simplex's first edges, relative change of p */
#define CALIB_POLISH_SIZE 1e-3      /* simplex size (GSL's, in u) that ends the polish */

typedef batch_run_fn calib_run_fn;

struct calib_param {
	char key[CALIB_KEY_MAX];   /* "cost.copy_byte" */
	double lo, hi;             /* bounds, 0 < lo < start < hi */
	double start;              /* its value in the first run it applies to */
	bool start_varies;         /* runs in scope start from different values */
	/* scope: the parameter is set only in runs whose scope_key has one of
	 * the values (as config_get prints them, '|'-separated); "" = every run */
	char scope_key[CALIB_KEY_MAX];
	char scope_vals[256];
};

/* What is fitted and how. */
struct calib_setup {
	struct calib_param par[CALIB_MAX_PARAMS];
	int n_par;
	double weight[METRIC_N];   /* weight of each metric's relative error; 0: not fitted */
	double rel_step;           /* finite-difference step (relative change of p) */
	int max_iter;
	int starts;                /* >= 1: candidate starts scanned before the solver (below) */
	int polish;                /* > 0: at most this many simplex points after the solver (below) */
	int jobs;                  /* threads, >= 1 */
	bool keep_jitter;          /* false: run.cost_jitter = 0 */
	bool warm;                 /* the start is a fit's result: no step from it lowering chisq is convergence */
	/* non-NULL: a residual is the relative error to the nearest of its
	 * point's single runs (reps.h) where the point has any, not to the
	 * recorded median: a point whose runs settle in two steady states is
	 * met by either (calibrate/validate --fit-to runs) */
	const struct rep_set *fit_runs;
	calib_run_fn run;          /* tcpsim_run, or a double in tests */
	FILE *progress;            /* one line per iteration, or NULL */
	FILE *run_progress;        /* predictions: "N/M runs simulated", redrawn (a terminal), or NULL */
};

/* Defaults: no parameter, weight 1 for every metric, the default step and
 * iterations, one start, one thread, run = tcpsim_run. */
void calib_setup_init(struct calib_setup *cs);

struct calib_runs;

/*
 * "KEY[=LO:HI][@SKEY=V1|V2],...": add parameters.  Each KEY must exist
 * (config_key_exists) and be a [cost]/[rcost] key.  "@SKEY=V1|V2" scopes
 * it: it is set only in the runs whose SKEY has one of the values (e.g.
 * cost.tx_frame@host.name=athlon64-3000-freebsd when the runs have
 * senders of two kinds); the other runs keep their scenario's value.  Its
 * start is its value in the first run in scope, which must be > 0.
 */
int calib_parse_fit(struct calib_setup *cs, const char *list, const struct calib_runs *cr,
		    struct tcpsim_err *err);

/* 1 if parameter p is set in a run whose scenario is sc. */
int calib_param_applies(const struct calib_param *p, const struct scenario *sc);

/* "METRIC=W,...": set weights (>= 0); METRIC "others" sets every metric not named. */
int calib_parse_weights(struct calib_setup *cs, const char *list, struct tcpsim_err *err);

/* The recorded runs as scenarios. */
struct calib_runs {
	const struct run_set *rs;  /* not owned */
	struct scenario *base;     /* [rs->n] */
	FILE *progress;            /* set before calib_runs_build: "N/M scenarios loaded", redrawn, or NULL */
};

int calib_runs_build(struct calib_runs *cr, const struct run_set *rs, const char *profile,
		     bool keep_jitter, struct tcpsim_err *err);
void calib_runs_free(struct calib_runs *cr);

/* One residual of a fit: a run and a metric. */
struct calib_resid {
	int run;                   /* index into the run set */
	int metric;
	double measured, predicted;
	double rel_err;            /* predicted / measured - 1 */
	double weight;
};

struct calib_result {
	int n_par;
	double value[CALIB_MAX_PARAMS];   /* fitted, rounded to 6 significant digits */
	double start_used[CALIB_MAX_PARAMS]; /* where the solver started (the scan's best) */
	int starts_tried;                 /* 1: the profile's start only */
	double chisq_start;               /* chisq at the profile's start (= chisq0 unless scanned) */
	double ci_lo[CALIB_MAX_PARAMS];   /* 95% CI; NAN when there is none */
	double ci_hi[CALIB_MAX_PARAMS];
	int at_bound[CALIB_MAX_PARAMS];   /* -1 lower, +1 upper, 0 inside */
	bool identifiable[CALIB_MAX_PARAMS];
	int n_resid;
	struct calib_resid *resid;        /* at the rounded values */
	int n_runs;                       /* runs fitted */
	int dof;                          /* n_resid - n_par */
	double chisq0, chisq;             /* sum of squared weighted residuals: start, end */
	double chisq_lm;                  /* after the Levenberg-Marquardt steps, before the polish */
	int polish_points;                /* simplex points evaluated (0: no polish) */
	bool polish_moved;                /* the polish found a lower chisq than the solver's */
	char polish_reason[96];           /* why the polish ended */
	double rcond;                     /* reciprocal condition number of J at the end */
	int iterations, evaluations;      /* solver iterations, simulator runs */
	int model_limits;                 /* of the evaluations, runs the model could not follow
					   * (counted as missing predictions) */
	char model_limit_msg[512];        /* the first such run's message */
	bool converged;
	char stop_reason[160];
	double elapsed_s;
};

void calib_result_free(struct calib_result *res);

/*
 * Fit cs's parameters to the runs with train[i] true (NULL: all).  On
 * success res holds the fit; a fit that does not converge is TCPSIM_EFIT
 * with res filled as far as it got (res->converged false).
 */
int calib_fit(const struct calib_setup *cs, const struct calib_runs *cr, const bool *train,
	      struct calib_result *res, struct tcpsim_err *err);

/*
 * Predict the runs with mask[i] true (NULL: all) into out[i], with the
 * parameters set to value[] (NULL or cs->n_par == 0: as the scenarios say).
 */
int calib_predict(const struct calib_setup *cs, const struct calib_runs *cr, const bool *mask,
		  const double *value, struct metrics *out, struct tcpsim_err *err);


/*
 * The fitted profile as an includable .cfg: a comment block (header, one
 * line each, then every parameter's start, CI and bound) and the fitted
 * keys under [cost]/[rcost].  Written whole through outfile.h.
 */
int calib_write_profile(const char *path, const struct calib_setup *cs,
			const struct calib_result *res, const char *header, struct tcpsim_err *err);

/* ---- validation: prediction with held-out runs ----------------------- */

enum calib_holdout {
	CALIB_HOLDOUT_NONE,   /* fit (if any parameter) on every run, predict every run */
	CALIB_HOLDOUT_LOO,    /* one fit per run, without it; that fit predicts it */
	CALIB_HOLDOUT_TRAIN,  /* fit on the runs marked train; predict all */
};

struct calib_validation {
	int n_runs;
	struct metrics *pred;        /* [n_runs] */
	char **no_pred_why;          /* [n_runs] NULL, or why the run has no prediction: the
				      * model could not follow it (sim_fail's message;
				      * its metrics are NAN) */
	bool *held_out;              /* [n_runs] run was not in the fit that predicted it */
	int *fold;                   /* [n_runs] fold that predicted it; -1: no fit */
	int n_folds;
	struct calib_result *folds;  /* [n_folds] */
	bool **fold_train;           /* [n_folds][n_runs] runs each fold was fitted to */
};

/*
 * Predict every run.  With no parameter in cs, no fit is made and no run
 * is held out.  train is used with CALIB_HOLDOUT_TRAIN only and must mark
 * at least one run and leave at least one out.
 */
int calib_validate(const struct calib_setup *cs, const struct calib_runs *cr,
		   enum calib_holdout holdout, const bool *train, struct calib_validation *v,
		   struct tcpsim_err *err);
void calib_validation_free(struct calib_validation *v);

/*
 * The other steady state, where a configuration has two: predict every run
 * again with the values calib_validate predicted it with, its receivers
 * starting late_ns after its senders (app.recv_start; a run that sets its
 * own keeps it).  A reader that starts behind its data stays behind where
 * that state holds itself up (the window-update ACKs the reader sends push
 * the writer's queued data from the reader's CPU); where it does not, the
 * run returns to the state calib_validate found.  why as calib_validate's
 * no_pred_why ([n_runs], filled; NULL entries for runs predicted).
 */
int calib_predict_late(const struct calib_setup *cs, const struct calib_runs *cr, const struct calib_validation *v,
		       sim_ns late_ns, struct metrics *out, char **why, struct tcpsim_err *err);

/*
 * The same runs with other random inputs: predict every run again with the
 * values calib_validate predicted it with and its run.seed plus seed_add
 * (the residents' arrivals, the vCPUs' wander and, where kept, the cost
 * jitter are drawn anew).  Where a configuration has two steady states and
 * the model's random events move a run between them, the seeds give the
 * distribution of the state it ends in, as the single runs give the
 * machine's (tcpsim validate --seeds).  why as calib_predict_late's.
 */
int calib_predict_seed(const struct calib_setup *cs, const struct calib_runs *cr, const struct calib_validation *v,
		       uint64_t seed_add, struct metrics *out, char **why, struct tcpsim_err *err);

/*
 * "KEY=V1,V2,...": mark train[i] for the runs whose KEY (after scenario,
 * profile and overrides) has one of the values, compared as config_get
 * prints them (so 64K and 65536 match).
 */
int calib_parse_train_where(const struct calib_runs *cr, const char *arg, bool *train,
			    struct tcpsim_err *err);

/* Relative error in % of a prediction, NAN when undefined. */
double calib_error_pct(double measured, double predicted);

#endif
