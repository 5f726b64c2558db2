/*
 * cmd_calibrate: `tcpsim calibrate RUNS.csv... --fit KEY,... -o PROFILE.cfg`
 * fits cost parameters to recorded runs (model/study/calib.h) and writes the
 * fitted profile; plus the option parsing, loading and tables that
 * `tcpsim validate` shares (calibcli.h).
 *
 * Order of work: every argument is checked, the runs are loaded and their
 * scenarios built (bad input exits 2 before anything is simulated), the
 * output is checked (not an input; a probe file created and removed beside
 * it, so an unwritable -o fails in a moment, not after the fit), the fit
 * runs, the report is formatted in memory and written once to stdout.
 * The profile is written (outfile.h: whole or not at all) only when the
 * fit converged; a write failure exits 3.
 * A fit that does not converge prints the report as far as it got and one
 * error line, writes no profile and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibcli.h"
#include "cli.h"
#include "config.h"
#include "outfile.h"
#include "util.h"

/* ---- shared: options ------------------------------------------------------ */

static int usage_error(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "tcpsim: %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return 2;
}

static int parse_num(const char *cmd, const char *opt, const char *s, double lo, double hi, double *v)
{
	if (!parse_finite(s, v) || !(*v >= lo && *v <= hi)) {
		fprintf(stderr, "tcpsim: %s: %s %s: expected a number from %g to %g\n", cmd, opt, s, lo, hi);
		return 2;
	}
	return 0;
}

int calibcli_parse(int argc, char **argv, struct calib_cli *o)
{
	static const struct {
		const char *shrt, *lng;
		size_t off;
		bool validate_only;
	} str_opts[] = {
		{NULL, "--fit", offsetof(struct calib_cli, fit), false},
		{NULL, "--weight", offsetof(struct calib_cli, weight), false},
		{NULL, "--profile", offsetof(struct calib_cli, profile), false},
		{"-o", "--output", offsetof(struct calib_cli, out), false},
		{NULL, "--holdout", offsetof(struct calib_cli, holdout), true},
		{NULL, "--train-where", offsetof(struct calib_cli, train_where), true},
		{NULL, "--format", offsetof(struct calib_cli, format), true},
		{NULL, "--targets", offsetof(struct calib_cli, targets), true},
		{NULL, "--title", offsetof(struct calib_cli, title), true},
		{NULL, "--states", offsetof(struct calib_cli, states), true},
		{NULL, "--sockets", offsetof(struct calib_cli, sockets), true},
	};
	bool is_validate = strcmp(o->cmd, "validate") == 0;
	int only_files = 0;

	o->files = xcalloc((size_t)argc + 1, sizeof(char *));
	o->reps = xcalloc((size_t)argc + 1, sizeof(char *));
	o->step = CALIB_DEFAULT_STEP;
	o->max_iter = CALIB_DEFAULT_MAX_ITER;
	o->starts = 1;
	o->miss_pct = 25;
	{
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		o->jobs = n > 0 ? (int)n : 1;
	}
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		int r, matched = 0;
		double d;

		if (only_files || a[0] != '-' || a[1] == '\0') {
			o->files[o->n_files++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_files = 1;
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			o->help = true;
			continue;
		}
		if (strcmp(a, "--keep-jitter") == 0) {
			o->keep_jitter = true;
			continue;
		}
		if (strcmp(a, "--warm") == 0) {
			o->warm = true;
			continue;
		}
		if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
			o->verbose = true;
			continue;
		}
		for (size_t k = 0; k < ARRAY_SIZE(str_opts) && !matched; k++) {
			r = cli_option_value(argc, argv, &i, str_opts[k].shrt, str_opts[k].lng, &val);
			if (r < 0)
				return usage_error(o->cmd, "option '%s' needs an argument", a);
			if (r > 0) {
				if (str_opts[k].validate_only && !is_validate)
					return usage_error(o->cmd, "unknown option '%s' (see tcpsim calibrate --help)", a);
				*(const char **)((char *)o + str_opts[k].off) = val;
				matched = 1;
			}
		}
		if (matched)
			continue;
		if ((r = cli_option_value(argc, argv, &i, "-j", "--jobs", &val)) != 0) {
			if (r < 0 || parse_num(o->cmd, "-j", val, 1, 4096, &d))
				return r < 0 ? usage_error(o->cmd, "option '%s' needs an argument", a) : 2;
			o->jobs = (int)d;
			continue;
		}
		if ((r = cli_option_value(argc, argv, &i, NULL, "--step", &val)) != 0) {
			if (r < 0 || parse_num(o->cmd, "--step", val, 1e-4, 0.5, &o->step))
				return r < 0 ? usage_error(o->cmd, "option '%s' needs an argument", a) : 2;
			continue;
		}
		if ((r = cli_option_value(argc, argv, &i, NULL, "--starts", &val)) != 0) {
			if (r < 0 || parse_num(o->cmd, "--starts", val, 1, 100000, &d))
				return r < 0 ? usage_error(o->cmd, "option '%s' needs an argument", a) : 2;
			o->starts = (int)d;
			continue;
		}
		if ((r = cli_option_value(argc, argv, &i, NULL, "--polish", &val)) != 0) {
			if (r < 0 || parse_num(o->cmd, "--polish", val, 0, 100000, &d))
				return r < 0 ? usage_error(o->cmd, "option '%s' needs an argument", a) : 2;
			o->polish = (int)d;
			continue;
		}
		if ((r = cli_option_value(argc, argv, &i, NULL, "--max-iter", &val)) != 0) {
			if (r < 0 || parse_num(o->cmd, "--max-iter", val, 1, 10000, &d))
				return r < 0 ? usage_error(o->cmd, "option '%s' needs an argument", a) : 2;
			o->max_iter = (int)d;
			continue;
		}
		if ((r = cli_option_value(argc, argv, &i, NULL, "--reps", &val)) != 0) {
			if (r < 0)
				return usage_error(o->cmd, "option '%s' needs an argument", a);
			o->reps[o->n_reps++] = val;
			continue;
		}
		if ((r = cli_option_value(argc, argv, &i, NULL, "--fit-to", &val)) != 0) {
			if (r < 0)
				return usage_error(o->cmd, "option '%s' needs an argument", a);
			if (strcmp(val, "runs") != 0 && strcmp(val, "median") != 0)
				return usage_error(o->cmd, "--fit-to %s: expected median or runs", val);
			o->fit_to_runs = strcmp(val, "runs") == 0;
			continue;
		}
		if (is_validate && (r = cli_option_value(argc, argv, &i, NULL, "--seeds", &val)) != 0) {
			if (r < 0 || parse_num(o->cmd, "--seeds", val, 2, SEEDS_MAX, &d))
				return r < 0 ? usage_error(o->cmd, "option '%s' needs an argument", a) : 2;
			if (d != floor(d)) {
				fprintf(stderr, "tcpsim: %s: --seeds %s: expected a whole number from 2 to %d\n", o->cmd, val,
					SEEDS_MAX);
				return 2;
			}
			o->seeds = (int)d;
			continue;
		}
		if (is_validate && (r = cli_option_value(argc, argv, &i, NULL, "--miss", &val)) != 0) {
			if (r < 0 || parse_num(o->cmd, "--miss", val, 0, 1e9, &o->miss_pct))
				return r < 0 ? usage_error(o->cmd, "option '%s' needs an argument", a) : 2;
			continue;
		}
		fprintf(stderr, "tcpsim: %s: unknown option '%s' (see tcpsim %s --help)\n", o->cmd, a, o->cmd);
		return 2;
	}
	if (o->help)
		return 0;
	if (o->n_files == 0)
		return usage_error(o->cmd, "%s (see tcpsim calibrate --help)", "no recorded-run CSV named");
	if (!is_validate && !o->fit)
		return usage_error(o->cmd, "%s", "--fit KEY,... is required (the parameters to fit)");
	if (o->fit_to_runs && o->n_reps == 0)
		return usage_error(o->cmd, "%s", "--fit-to runs needs --reps REPS.csv (the single runs)");
	if (!is_validate && !o->out)
		return usage_error(o->cmd, "%s", "-o PROFILE.cfg is required (where the fitted profile goes)");
	if (is_validate) {
		if (o->holdout && strcmp(o->holdout, "none") != 0 && strcmp(o->holdout, "loo") != 0)
			return usage_error(o->cmd, "--holdout %s: expected none or loo", o->holdout);
		if (o->format && strcmp(o->format, "table") != 0 && strcmp(o->format, "csv") != 0)
			return usage_error(o->cmd, "--format %s: expected table or csv", o->format);
		if (o->holdout && strcmp(o->holdout, "loo") == 0 && o->train_where)
			return usage_error(o->cmd, "%s", "--holdout loo and --train-where exclude each other");
		if (((o->holdout && strcmp(o->holdout, "loo") == 0) || o->train_where) && !o->fit)
			return usage_error(o->cmd, "%s", "holding runs out needs --fit KEY,... (what to fit without them)");
	}
	return 0;
}

void calibcli_release(struct calib_cli *o)
{
	free(o->files);
	o->files = NULL;
	free(o->reps);
	o->reps = NULL;
}

void calibcli_print_err(const struct tcpsim_err *err)
{
	char msg[sizeof(err->msg)];
	snprintf(msg, sizeof(msg), "%s", err->msg[0] ? err->msg : "unknown error");
	for (char *p = msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	fprintf(stderr, "tcpsim: %s\n", msg);
}

int calibcli_status(int code)
{
	return cli_exit_status(code);
}

int calibcli_load(const struct calib_cli *o, struct run_set *rs, struct rep_set *reps, struct calib_runs *cr,
		  struct calib_setup *cs, struct tcpsim_err *err)
{
	int rc;

	for (int i = 0; i < o->n_files; i++)
		if ((rc = runs_load(rs, o->files[i], err)) != TCPSIM_OK)
			return rc == TCPSIM_EIO ? TCPSIM_EUSAGE : rc;
	if (rs->n == 0)
		return err_set(err, TCPSIM_EUSAGE, "%s: no recorded run in %s", o->cmd, o->files[0]);
	for (int i = 0; i < o->n_reps; i++)
		if ((rc = reps_load(reps, rs, o->reps[i], err)) != TCPSIM_OK)
			return rc == TCPSIM_EIO ? TCPSIM_EUSAGE : rc;
	if ((rc = calib_runs_build(cr, rs, o->profile, o->keep_jitter, err)) != TCPSIM_OK)
		return rc;
	calib_setup_init(cs);
	cs->rel_step = o->step;
	cs->max_iter = o->max_iter;
	cs->starts = o->starts;
	cs->polish = o->polish;
	cs->jobs = o->jobs;
	cs->keep_jitter = o->keep_jitter;
	cs->warm = o->warm;
	cs->progress = o->verbose ? stderr : NULL;
	if (o->weight && (rc = calib_parse_weights(cs, o->weight, err)) != TCPSIM_OK)
		return rc;
	if (o->fit && (rc = calib_parse_fit(cs, o->fit, cr, err)) != TCPSIM_OK)
		return rc;
	cs->fit_runs = o->fit_to_runs ? reps : NULL;
	return TCPSIM_OK;
}

/* ---- shared: tables ------------------------------------------------------------ */

void calibcli_print_method(FILE *f, const struct calib_setup *cs)
{
	fputs("Simulation: every evaluation of a run uses the run's own run.seed (common random numbers)", f);
	if (cs->keep_jitter)
		fputs(";\n  run.cost_jitter as the scenarios set it (--keep-jitter)", f);
	else
		fputs(";\n  run.cost_jitter = 0: its draws follow the event order and would add jumps to the\n"
		      "  response (--keep-jitter keeps the scenarios' value)", f);
	if (cs->n_par > 0)
		fprintf(f, ";\n  Jacobian by forward differences, each parameter stepped by %g%%", 100 * cs->rel_step);
	if (cs->n_par > 0 && cs->polish > 0)
		fprintf(f, ";\n  then a Nelder-Mead simplex on chisq alone (--polish %d: at most %d points, first\n"
			   "  edges %g%%), which walks off the plateaus where the slope points nowhere",
			cs->polish, cs->polish, 100 * CALIB_POLISH_STEP);
	if (cs->n_par > 0 && cs->fit_runs)
		fputs(";\n  fitted to the runs (--fit-to runs): a residual is the relative error to the nearest of\n"
		      "  its point's single runs, where the point has any", f);
	fputs(".\n", f);
}

void calibcli_print_fit(FILE *f, const struct calib_setup *cs, const struct calib_result *res, const char *indent)
{
	fprintf(f, "%s%-22s %12s %12s  %-29s %s\n", indent, "parameter", "start", "fitted", "95% CI", "bounds");
	for (int j = 0; j < cs->n_par; j++) {
		const struct calib_param *p = &cs->par[j];
		char ci[64];
		if (isfinite(res->ci_lo[j]))
			snprintf(ci, sizeof(ci), "[%.6g, %.6g]", res->ci_lo[j], res->ci_hi[j]);
		else
			snprintf(ci, sizeof(ci), "%s", !res->identifiable[j] ? "not identifiable"
						       : res->dof < 1 ? "none (no degree of freedom)" : "none");
		fprintf(f, "%s%-22s %12.6g %12.6g  %-29s %.4g:%.4g%s\n", indent, p->key, res->start_used[j],
			res->value[j], ci, p->lo, p->hi, res->at_bound[j] ? "  <-- AT BOUND" : "");
		if (p->scope_key[0])
			fprintf(f, "%s  (set only in the runs with %s = %s)\n", indent, p->scope_key, p->scope_vals);
		if (p->start_varies)
			fprintf(f, "%s  (its runs start from different values; the fit sets one value in all of them)\n",
				indent);
	}
	if (isfinite(res->rcond) && res->rcond < 1e-4)
		fprintf(f, "%s!!! WARNING: the Jacobian is nearly singular (1/cond %.2g): some parameters trade off\n"
			   "%s    against each other in these runs, so their values and intervals are poorly determined.\n",
			indent, res->rcond, indent);
	for (int j = 0; j < cs->n_par; j++) {
		const struct calib_param *p = &cs->par[j];
		if (res->at_bound[j])
			fprintf(f, "%s!!! WARNING: %s = %.6g is at its %s bound %.4g: the runs push it %s than the\n"
				   "%s    bounds allow, so the model lacks (or misplaces) what this cost stands in for.\n"
				   "%s    Its value and interval mean nothing; widen the bounds (--fit %s=LO:HI) or drop it.\n",
				indent, p->key, res->value[j], res->at_bound[j] < 0 ? "lower" : "upper",
				res->at_bound[j] < 0 ? p->lo : p->hi, res->at_bound[j] < 0 ? "lower" : "higher",
				indent, indent, p->key);
		if (!res->identifiable[j])
			fprintf(f, "%s!!! WARNING: %s is not identifiable from these runs (its column of the Jacobian\n"
				   "%s    is zero or a combination of the others): no run's fitted metrics depend on it alone.\n",
				indent, p->key, indent);
	}
}

/* ---- shared: output --------------------------------------------------------------- */

int calibcli_commit(const char *path, const char *buf, size_t len)
{
	struct tcpsim_err err = {0};

	if (outfile_write_whole(path ? path : "-", NULL, buf, len, &err) == TCPSIM_OK)
		return 0;
	calibcli_print_err(&err);
	return cli_exit_status(err.code);
}

int calibcli_check_output(const struct calib_cli *o)
{
	struct tcpsim_err err = {0};
	const char **in;
	int n = 0;

	if (!o->out)
		return 0;
	in = xcalloc((size_t)o->n_files + 2, sizeof(*in));
	for (int i = 0; i < o->n_files; i++)
		in[n++] = o->files[i];
	if (o->profile)
		in[n++] = o->profile;
	if (o->targets)
		in[n++] = o->targets;
	if (outfile_check_inputs(o->out, in, n, &err) == TCPSIM_OK)
		outfile_probe(o->out, strcmp(o->cmd, "calibrate") == 0 ? "profile" : NULL, &err);
	free(in);
	if (!err.code)
		return 0;
	calibcli_print_err(&err);
	return cli_exit_status(err.code);
}

/* ---- calibrate -------------------------------------------------------------------- */

static void calibrate_usage(FILE *f)
{
	fputs("usage: tcpsim calibrate RUNS.csv... --fit KEY[=LO:HI],... -o PROFILE.cfg\n"
	      "                        [--weight METRIC=W,...] [--profile P.cfg] [-j N]\n"
	      "                        [--step F] [--max-iter N] [--keep-jitter] [--warm] [-v]\n"
	      "                        [--reps REPS.csv... --fit-to median|runs]\n"
	      "  Fits [cost]/[rcost] keys to recorded runs by weighted non-linear least squares on\n"
	      "  relative errors (GSL multifit_nlinear) and writes them as an includable profile.\n"
	      "  --fit KEY,...      keys to fit; bounds LO:HI (default start/100 .. start*100)\n"
	      "  --weight M=W,...   weight of each metric's relative error (default 1; 0 leaves it\n"
	      "                     out of the fit; 'others=W' sets every metric not named)\n"
	      "  --profile P.cfg    read P.cfg over each run's scenario (before its overrides)\n"
	      "  -o PROFILE.cfg     the fitted keys under [cost]/[rcost], with CIs in comments\n"
	      "  -j N               simulator threads (default: every online CPU)\n"
	      "  --step F           finite-difference step, relative (default 0.05)\n"
	      "  --max-iter N       solver iterations before giving up (default 60)\n"
	      "  --starts N         scan N starts (the profile's and N-1 log-uniform quasi-random\n"
	      "                     points within the bounds) and solve from the best (default 1)\n"
	      "  --polish N         then at most N points of a Nelder-Mead simplex on chisq alone, from\n"
	      "                     where the solver stopped (default 0: none); it moves where the\n"
	      "                     simulator's steady states make the slope useless\n"
	      "  --keep-jitter      keep the scenarios' run.cost_jitter (default: 0 while fitting)\n"
	      "  --warm             the profile's values are a fit's result: where no step from them\n"
	      "                     lowers chisq, the fit has converged there (without it, exit 1)\n"
	      "  --reps REPS.csv    the single runs behind the points (measure-live's MACHINE.reps.csv)\n"
	      "  --fit-to runs      each residual is the relative error to the nearest of its point's\n"
	      "                     single runs (a point whose runs settle in two steady states is met\n"
	      "                     by either); median (default): to the recorded value\n"
	      "  -v                 one line per iteration on stderr\n"
	      "Exit status: 0 fitted (warnings about bounds are printed), 1 the fit did not converge\n"
	      "(no profile written), 2 bad input (also: -o is one of the inputs), 3 the profile\n"
	      "cannot be written (checked before fitting, too).\n", f);
}

static void print_residuals(FILE *f, const struct run_set *rs, const struct calib_result *res)
{
	int idw = 3;
	for (int i = 0; i < res->n_resid; i++) {
		int l = (int)strlen(rs->runs[res->resid[i].run].id);
		if (l > idw)
			idw = l;
	}
	fprintf(f, "%-*s  %-22s %14s %14s %9s %7s\n", idw, "run", "metric", "measured", "predicted", "error%",
		"weight");
	for (int i = 0; i < res->n_resid; i++) {
		const struct calib_resid *r = &res->resid[i];
		fprintf(f, "%-*s  %-22s %14.6g %14.6g %+8.1f%% %7.3g\n", idw, rs->runs[r->run].id,
			metric_table[r->metric].name, r->measured, r->predicted, 100 * r->rel_err, r->weight);
	}
}

static void print_header(FILE *f, const struct calib_cli *o, const struct run_set *rs,
			 const struct calib_setup *cs, const struct calib_result *res)
{
	fprintf(f, "tcpsim calibrate: %d parameter%s to %d run%s (", cs->n_par, cs->n_par == 1 ? "" : "s", rs->n,
		rs->n == 1 ? "" : "s");
	for (int i = 0; i < o->n_files; i++)
		fprintf(f, "%s%s", i ? ", " : "", o->files[i]);
	fprintf(f, ")%s%s\n", o->profile ? " with profile " : "", o->profile ? o->profile : "");
	fprintf(f, "%d residuals (run x metric with a measured value and weight > 0), %d degree%s of freedom\n",
		res->n_resid, res->dof, res->dof == 1 ? "" : "s");
	calibcli_print_method(f, cs);
	fprintf(f, "%s after %d iteration%s, %d simulator runs: %s\n",
		res->converged ? "Converged" : "DID NOT CONVERGE", res->iterations, res->iterations == 1 ? "" : "s",
		res->evaluations, res->stop_reason);
	if (res->model_limits > 0)
		fprintf(f, "%d of the %d simulator runs reached a state the model does not follow and counted as missing\n"
			   "predictions (100%% misses), which steers the fit away from their parameters; the first: %s\n",
			res->model_limits, res->evaluations, res->model_limit_msg);
	if (res->starts_tried > 1)
		fprintf(f, "Scanned %d starts: chisq %.6g at the profile's values, %.6g at the best start (solved from there)\n",
			res->starts_tried, res->chisq_start, res->chisq0);
	if (res->polish_points > 0)
		fprintf(f, "Polish: %d simplex points, chisq %.6g after the solver -> %.6g (%s)\n", res->polish_points,
			res->chisq_lm, res->polish_moved ? res->chisq : res->chisq_lm, res->polish_reason);
	fprintf(f, "chisq (sum of squared weighted relative errors) %.6g at the start, %.6g fitted",
		res->chisq0, res->chisq);
	if (res->dof > 0)
		fprintf(f, "; residual s.d. %.3g", sqrt(res->chisq / res->dof));
	if (isfinite(res->rcond))
		fprintf(f, "; 1/cond(J) %.3g", res->rcond);
	fputs("\n\n", f);
}

/* Comment block of the profile: how it was made. */
static char *profile_header(const struct calib_cli *o, const struct run_set *rs, const struct calib_setup *cs,
			    const struct calib_result *res)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fputs("Fitted by `tcpsim calibrate", f);
	for (int i = 0; i < o->n_files; i++)
		fprintf(f, " %s", o->files[i]);
	fprintf(f, " --fit %s", o->fit);
	if (o->weight)
		fprintf(f, " --weight %s", o->weight);
	if (o->profile)
		fprintf(f, " --profile %s", o->profile);
	if (o->keep_jitter)
		fputs(" --keep-jitter", f);
	if (o->warm)
		fputs(" --warm", f);
	if (o->starts > 1)
		fprintf(f, " --starts %d", o->starts);
	if (o->polish > 0)
		fprintf(f, " --polish %d", o->polish);
	fprintf(f, "`.\nRuns:");
	for (int i = 0; i < rs->n; i++)
		fprintf(f, " %s", rs->runs[i].id);
	fprintf(f, "\n%d residuals, %d degrees of freedom, chisq %.4g -> %.4g, %s.\n", res->n_resid, res->dof,
		res->chisq0, res->chisq, res->stop_reason);
	if (res->polish_points > 0)
		fprintf(f, "Polished by %d simplex points: chisq %.4g after the solver -> %.4g (%s).\n", res->polish_points,
			res->chisq_lm, res->polish_moved ? res->chisq : res->chisq_lm, res->polish_reason);
	fprintf(f, "Fitted with run.cost_jitter %s and each run's own run.seed.\n",
		cs->keep_jitter ? "as the scenarios set it" : "= 0");
	fputs("Include it after the machine profile it refines (it sets only the fitted keys).", f);
	fclose(f);
	return buf;
}

int cmd_calibrate(int argc, char **argv)
{
	struct calib_cli o = {.cmd = "calibrate"};
	struct run_set rs;
	struct rep_set reps;
	struct calib_runs cr = {0};
	struct calib_setup cs;
	struct calib_result res = {0};
	struct tcpsim_err err = {0};
	char *buf = NULL, *hdr = NULL;
	size_t len = 0;
	FILE *ms;
	int rc, fit_rc;

	runs_init(&rs);
	reps_init(&reps);
	rc = calibcli_parse(argc, argv, &o);
	if (rc || o.help) {
		if (o.help)
			calibrate_usage(stdout);
		goto done;
	}
	if ((rc = calibcli_check_output(&o)) != 0)
		goto done;
	if ((rc = calibcli_load(&o, &rs, &reps, &cr, &cs, &err)) != TCPSIM_OK) {
		calibcli_print_err(&err);
		rc = calibcli_status(rc);
		goto done;
	}
	fit_rc = calib_fit(&cs, &cr, NULL, &res, &err);
	if (o.verbose)   /* wall time only here: the report itself is deterministic */
		fprintf(stderr, "calibrate: %d simulator runs in %.1f s\n", res.evaluations, res.elapsed_s);
	if (fit_rc != TCPSIM_OK && fit_rc != TCPSIM_EFIT) {
		calibcli_print_err(&err);
		rc = calibcli_status(fit_rc);
		goto done;
	}
	ms = cli_memstream(&buf, &len);
	if (!ms) {
		rc = 1;
		goto done;
	}
	print_header(ms, &o, &rs, &cs, &res);
	calibcli_print_fit(ms, &cs, &res, "");
	fputs("\nResiduals at the fitted values (error = predicted / measured - 1)\n", ms);
	print_residuals(ms, &rs, &res);
	if (fit_rc == TCPSIM_OK)
		fprintf(ms, "\nProfile written to %s\n", o.out);
	else
		fputs("\nNo profile written: the fit did not converge.\n", ms);
	if (fclose(ms) != 0) {
		fprintf(stderr, "tcpsim: cannot format the report\n");
		rc = 1;
		goto done;
	}
	if (fit_rc == TCPSIM_OK) {
		hdr = profile_header(&o, &rs, &cs, &res);
		if (calib_write_profile(o.out, &cs, &res, hdr, &err) != TCPSIM_OK) {
			calibcli_print_err(&err);
			rc = cli_exit_status(err.code);
			goto done;
		}
	}
	rc = calibcli_commit(NULL, buf, len);
	if (fit_rc != TCPSIM_OK) {
		calibcli_print_err(&err);
		rc = 1;
	}
done:
	free(hdr);
	free(buf);
	calib_result_free(&res);
	calib_runs_free(&cr);
	reps_free(&reps);
	runs_free(&rs);
	calibcli_release(&o);
	return rc;
}
