/*
 * calibcli: what `tcpsim calibrate` and `tcpsim validate` share -- their
 * options, loading the recorded runs, the parameter and residual tables,
 * and writing a report whole or not at all.  Implemented in
 * cmd_calibrate.c.
 */
#ifndef TCPSIM_CALIBCLI_H
#define TCPSIM_CALIBCLI_H

#include <stdbool.h>
#include <stdio.h>

#include "calib.h"
#include "err.h"
#include "runs.h"

/* validate --seeds N: at most this many (each one more prediction of every run) */
#define SEEDS_MAX 32

struct calib_cli {
	const char *cmd;             /* "calibrate" or "validate" */
	const char **files;          /* recorded-run CSVs */
	int n_files;
	const char *fit;             /* --fit list, or NULL */
	const char *weight;          /* --weight list, or NULL */
	const char *profile;         /* --profile P.cfg */
	const char *out;             /* -o OUT */
	const char *holdout;         /* validate: none | loo */
	const char *train_where;     /* validate: KEY=V1,V2 */
	const char *format;          /* validate: table | csv */
	const char *targets;         /* validate: --targets FILE.csv */
	const char **reps;           /* --reps FILE.csv (repeatable): the single runs */
	int n_reps;
	bool fit_to_runs;            /* --fit-to runs: residuals to the nearest single run */
	const char *title;           /* validate: --title TEXT, first line of the table */
	const char *states;          /* validate: --states T, the late start (app.recv_start) */
	const char *sockets;         /* validate: --sockets FILE, the sender's socket at the runs' ends */
	int seeds;                   /* validate: --seeds N, every run again with run.seed + 1 .. N - 1 */
	double miss_pct;             /* validate: flag rows with |error| above this */
	double step;
	int max_iter;
	int starts;
	int polish;                 /* --polish N: simplex points after the solver, 0 none */
	int jobs;
	bool keep_jitter;
	bool warm;                   /* --warm: the start is a fit's result */
	bool verbose;
	bool help;
};

/* Parse argv (after the subcommand name).  0, or 2 after printing the error. */
int calibcli_parse(int argc, char **argv, struct calib_cli *o);
void calibcli_release(struct calib_cli *o);

/* One error line on stderr, "tcpsim: <message>". */
void calibcli_print_err(const struct tcpsim_err *err);

/* Exit status of a library status: cli_exit_status (cli.h). */
int calibcli_status(int code);

/* Load every file into rs and every --reps file into reps (reps_init'd),
 * build the scenarios, set up cs from the options. */
int calibcli_load(const struct calib_cli *o, struct run_set *rs, struct rep_set *reps, struct calib_runs *cr,
		  struct calib_setup *cs, struct tcpsim_err *err);

/* The parameter table of one fit, and loud warnings (bounds, identifiability). */
void calibcli_print_fit(FILE *f, const struct calib_setup *cs, const struct calib_result *res,
			const char *indent);

/* How the runs were simulated: jitter, seeds, step. */
void calibcli_print_method(FILE *f, const struct calib_setup *cs);

/* Write buf whole to path (outfile.h) or to stdout (path NULL or "-").
 * 0, or 3 after printing. */
int calibcli_commit(const char *path, const char *buf, size_t len);

/* Before any work: -o is none of the input files and can be written (a
 * probe).  0, or the exit status (2 or 3) after printing. */
int calibcli_check_output(const struct calib_cli *o);

#endif
