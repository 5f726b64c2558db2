/*
 * cmd_validate: `tcpsim validate RUNS.csv... [--profile P.cfg] [--fit KEY,...]
 * [--holdout none|loo] [--train-where KEY=V1,V2] [--format table|csv]
 * [--targets T.csv]` predicts recorded runs and prints measured against
 * predicted per run and metric (model/study/calib.h does the fitting and the
 * held-out bookkeeping, model/study/targets.h the checks).
 *
 * Every measured value is printed, whatever the model makes of it: a row
 * whose |error| is above --miss (default 25%) or whose prediction is
 * missing is flagged MISS, never left out.  The summary (median and max
 * |error| per metric) is over the held-out rows when runs were held out,
 * else over all rows, and says which.  Output is formatted in memory and
 * written once (stdout, or -o OUT through outfile.h, checked before any
 * prediction).
 *
 * With --reps, each prediction is also set against the single runs behind
 * its recorded point (model/study/reps.h: measure-live's MACHINE.reps.csv):
 * the runs' range beside the row, the error to the nearest run (0 inside
 * the range), and per metric how many predictions fall inside their runs
 * and the median error to the nearest one.  A point whose runs settle in
 * two steady states has a median between them that no run had; the range
 * and the nearest run say whether the prediction is one of the states.
 *
 * With --states T, each run is predicted a second time with its receivers
 * starting T after its senders (app.recv_start): where the model has two
 * steady states, a reader that starts behind its data finds the other one.
 * The runs where the two predictions part are listed with both beside the
 * measured window-limited share (and how many of the single runs were
 * window-limited); the summary counts them and says which state the
 * measured window points to.  The main table stays the prediction as given.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <csv.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "calibcli.h"
#include "cli.h"
#include "config.h"
#include "reps.h"
#include "sockets.h"
#include "targets.h"
#include "util.h"

static void validate_usage(FILE *f)
{
	fputs("usage: tcpsim validate RUNS.csv... [--profile P.cfg] [--fit KEY[=LO:HI],...]\n"
	      "                       [--holdout none|loo] [--train-where KEY=V1,V2,...]\n"
	      "                       [--weight METRIC=W,...] [--targets T.csv] [--miss PCT]\n"
	      "                       [--format table|csv] [--title TEXT] [-o OUT] [-j N] [--keep-jitter]\n"
	      "                       [--starts N] [--polish N] [--step F] [--max-iter N] [--warm]\n"
	      "                       [--reps REPS.csv]...\n"
	      "                       [--fit-to median|runs] [--states T] [--sockets SOCKETS.txt]\n"
	      "  Predicts each recorded run and prints, per run and measured metric: measured,\n"
	      "  predicted, error % and whether the run was held out of the fit that predicted it;\n"
	      "  then median and max |error| per metric.\n"
	      "  --profile P.cfg     read P.cfg over each run's scenario (before its overrides)\n"
	      "  --fit KEY,...       fit these [cost]/[rcost] keys first (as tcpsim calibrate)\n"
	      "  --holdout loo       one fit per run, without it; that fit predicts it\n"
	      "  --holdout none      one fit on every run (in-sample; default)\n"
	      "  --train-where K=V,. fit on the runs whose key K has one of the values; predict the others\n"
	      "  --targets T.csv     checks to print as met / MISSED (see model/study/targets.h)\n"
	      "  --miss PCT          flag rows with |error| above PCT (default 25)\n"
	      "  --reps REPS.csv     the single runs behind the points (measure-live's MACHINE.reps.csv:\n"
	      "                      'point', 'status' and metric columns; only status ok is used):\n"
	      "                      each row gets its runs' range and the error to the nearest run\n"
	      "                      (0 inside the range); the summary how many fall inside\n"
	      "  --fit-to runs       fit to the nearest single run of each point (see calibrate --help)\n"
	      "  --states T          predict each run again with its receivers starting T late (app.recv_start,\n"
	      "                      e.g. 2ms): list the runs that settle in another steady state, both\n"
	      "                      predictions beside the measured window-limited share (csv: late_predicted,\n"
	      "                      late_error_pct)\n"
	      "  --sockets F.txt     the sender's socket at each run's end (measure-live's MACHINE.sockets.txt:\n"
	      "                      point rep try cwnd ssthresh sndbuf): its send buffer and cwnd beside the\n"
	      "                      model's (and the late start's with --states); table format only\n"
	      "  --seeds N           predict each run N - 1 times more, with run.seed + 1 .. N - 1 (the\n"
	      "                      model's random inputs drawn anew: residents, wander, kept jitter): list\n"
	      "                      the runs whose seeds end in both steady states or differ in the busier\n"
	      "                      CPU, beside the single runs (--reps); table format only; 2 to 32\n"
	      "  --starts N, --polish N, --step F, --max-iter N, --warm: the fit's, as tcpsim calibrate's\n"
	      "  --format csv        id,metric,measured,predicted,error_pct,held_out (with --reps also\n"
	      "                      runs_n,runs_min,runs_max,nearest_run_error_pct)\n"
	      "  A run's scenario path is looked for beside its CSV and above it, in the current\n"
	      "  directory, then in the installed data directory.  On a terminal, stderr counts\n"
	      "  the runs simulated.\n", f);
}

struct row {
	int run, metric;
	double measured, predicted, err_pct;
	bool held_out;
	const struct rep_values *rv; /* the point's single runs, NULL without --reps */
	double near_pct;             /* error to the nearest run, 0 inside their range */
	double late_pred, late_err;  /* --states: the late start's prediction and error (NAN without) */
};

static int collect_rows(const struct run_set *rs, const struct calib_validation *v, const struct rep_set *reps,
			const struct metrics *late, struct row **out)
{
	int n = 0;
	struct row *r = xcalloc((size_t)rs->n * METRIC_N + 1, sizeof(*r));
	for (int i = 0; i < rs->n; i++)
		for (int m = 0; m < METRIC_N; m++) {
			double meas = rs->runs[i].v[m], pred = v->pred[i].v[m];
			const struct rep_values *rv = reps_of(reps, i, m);
			double lp = late ? late[i].v[m] : NAN;
			if (!isfinite(meas))
				continue;
			r[n++] = (struct row){
				.run = i, .metric = m, .measured = meas, .predicted = pred,
				.err_pct = meas == 0 && pred == 0 ? 0 : calib_error_pct(meas, pred),
				.held_out = v->held_out[i], .rv = rv, .near_pct = reps_nearest_error_pct(rv, pred),
				.late_pred = lp,
				.late_err = !late ? NAN : meas == 0 && lp == 0 ? 0 : calib_error_pct(meas, lp)};
		}
	*out = r;
	return n;
}

static void csv_cell(FILE *f, int first, const char *s)
{
	if (!first)
		fputc(',', f);
	csv_fwrite(f, s, strlen(s));
}

static void csv_num(FILE *f, double v)
{
	char b[32] = "";
	if (isfinite(v))
		snprintf(b, sizeof(b), "%.6g", v);
	csv_cell(f, 0, b);
}

static void render_csv(FILE *f, const struct run_set *rs, const struct row *rows, int n, bool with_reps,
		       bool with_late)
{
	static const char *const cols[] = {"id", "metric", "measured", "predicted", "error_pct", "held_out"};
	static const char *const rcols[] = {"runs_n", "runs_min", "runs_max", "nearest_run_error_pct"};
	static const char *const lcols[] = {"late_predicted", "late_error_pct"};
	for (size_t c = 0; c < ARRAY_SIZE(cols); c++)
		csv_cell(f, c == 0, cols[c]);
	for (size_t c = 0; with_reps && c < ARRAY_SIZE(rcols); c++)
		csv_cell(f, 0, rcols[c]);
	for (size_t c = 0; with_late && c < ARRAY_SIZE(lcols); c++)
		csv_cell(f, 0, lcols[c]);
	fputc('\n', f);
	for (int k = 0; k < n; k++) {
		csv_cell(f, 1, rs->runs[rows[k].run].id);
		csv_cell(f, 0, metric_table[rows[k].metric].name);
		csv_num(f, rows[k].measured);
		csv_num(f, rows[k].predicted);
		csv_num(f, rows[k].err_pct);
		csv_cell(f, 0, rows[k].held_out ? "yes" : "no");
		if (with_reps) {
			const struct rep_values *rv = rows[k].rv;
			csv_num(f, rv ? rv->n : 0);
			csv_num(f, rv ? rv->v[0] : NAN);
			csv_num(f, rv ? rv->v[rv->n - 1] : NAN);
			csv_num(f, rows[k].near_pct);
		}
		if (with_late) {
			csv_num(f, rows[k].late_pred);
			csv_num(f, rows[k].late_err);
		}
		fputc('\n', f);
	}
}

static const char *holdout_text(const struct calib_cli *o, const struct calib_setup *cs)
{
	if (cs->n_par == 0)
		return "no fit in this command (the scenarios' and profile's values predict every run)";
	if (o->holdout && strcmp(o->holdout, "loo") == 0)
		return "leave-one-out: each run is predicted by a fit to all the other runs";
	if (o->train_where)
		return "the runs matching --train-where are fitted (in-sample), all others held out";
	return "none: one fit to every run, every prediction in-sample";
}

static void print_fits(FILE *f, const struct run_set *rs, const struct calib_setup *cs,
		       const struct calib_validation *v)
{
	if (v->n_folds == 0)
		return;
	int nz = 0, ones = 0;
	for (int m = 0; m < METRIC_N; m++) {
		nz += cs->weight[m] > 0;
		ones += cs->weight[m] == 1.0;
	}
	if (ones == METRIC_N) {
		fputs("\nFits (weight 1 for every measured metric)\n", f);
	} else {
		fputs("\nFits (weights:", f);
		for (int m = 0; m < METRIC_N; m++)
			if (cs->weight[m] > 0)
				fprintf(f, " %s=%g", metric_table[m].name, cs->weight[m]);
		fprintf(f, "%s)\n", nz < METRIC_N ? "; every other metric 0" : "");
	}
	for (int k = 0; k < v->n_folds; k++) {
		const struct calib_result *r = &v->folds[k];
		int ntr = 0;
		for (int i = 0; i < rs->n; i++)
			ntr += v->fold_train[k][i];
		if (v->n_folds > 1) {
			int left = -1;
			for (int i = 0; i < rs->n; i++)
				if (!v->fold_train[k][i])
					left = i;
			fprintf(f, "  without %s", left >= 0 ? rs->runs[left].id : "?");
		} else {
			fprintf(f, "  fit");
		}
		fprintf(f, " (%d run%s, %d residuals): %s after %d iterations, chisq %.4g -> %.4g; %s\n", ntr,
			ntr == 1 ? "" : "s", r->n_resid, r->converged ? "converged" : "NOT CONVERGED", r->iterations,
			r->chisq0, r->chisq, r->stop_reason);
		if (r->starts_tried > 1)
			fprintf(f, "    (best of %d scanned starts; chisq %.4g at the profile's values)\n", r->starts_tried,
				r->chisq_start);
		if (r->polish_points > 0)
			fprintf(f, "    (polished by %d simplex points: chisq %.4g after the solver -> %.4g; %s)\n",
				r->polish_points, r->chisq_lm, r->polish_moved ? r->chisq : r->chisq_lm, r->polish_reason);
		if (r->model_limits > 0)
			fprintf(f, "    (%d of %d simulator runs reached a state the model does not follow and counted as\n"
				   "     missing predictions; the first: %s)\n",
				r->model_limits, r->evaluations, r->model_limit_msg);
		calibcli_print_fit(f, cs, r, "    ");
	}
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The measured spread of a row's metric as a fraction (its _cv), NAN if
 * the recorded run gives none. */
static double row_cv(const struct run_set *rs, const struct row *r)
{
	return rs->runs[r->run].cv[r->metric];
}

/* A miss the run's own spread explains: |error| within two CVs. */
static bool within_spread(const struct run_set *rs, const struct row *r)
{
	double cv = row_cv(rs, r);
	return isfinite(r->err_pct) && isfinite(cv) && fabs(r->err_pct) <= 200.0 * cv;
}

/* Median and max |error| per metric over the rows `held` selects (held-out
 * rows, training rows, or all of them: -1), with how many lie within
 * their measured spread. */
static void print_summary_of(FILE *f, const struct run_set *rs, const struct row *rows, int n, int held,
			     const char *what, bool with_reps)
{
	double *e = xcalloc((size_t)n + 1, sizeof(double)), *ne = xcalloc((size_t)n + 1, sizeof(double));
	fprintf(f, "\nSummary over the %s rows: |error| per metric\n", what);
	fprintf(f, "%-22s %4s %12s %12s %10s", "metric", "n", "median|err|", "max|err|", "in spread");
	if (with_reps)
		fprintf(f, " %9s %13s", "in runs", "med|to runs|");
	fprintf(f, "  %s\n", "worst run");
	for (int m = 0; m < METRIC_N; m++) {
		int k = 0, worst = -1, in = 0, with_cv = 0, in_runs = 0, nk = 0;
		double wv = -1;
		for (int i = 0; i < n; i++) {
			if (rows[i].metric != m || (held >= 0 && rows[i].held_out != (held == 1)))
				continue;
			double a = isfinite(rows[i].err_pct) ? fabs(rows[i].err_pct) : INFINITY;
			e[k++] = a;
			with_cv += isfinite(row_cv(rs, &rows[i]));
			in += within_spread(rs, &rows[i]);
			if (rows[i].rv) {
				ne[nk++] = isfinite(rows[i].near_pct) ? fabs(rows[i].near_pct) : INFINITY;
				in_runs += rows[i].near_pct == 0;
			}
			if (a > wv) {
				wv = a;
				worst = rows[i].run;
			}
		}
		if (k == 0)
			continue;
		qsort(e, (size_t)k, sizeof(double), cmp_dbl);
		double med = gsl_stats_median_from_sorted_data(e, 1, (size_t)k);
		char sp[24];
		if (with_cv)
			snprintf(sp, sizeof(sp), "%d/%d", in, with_cv);
		else
			snprintf(sp, sizeof(sp), "-");
		fprintf(f, "%-22s %4d %11.1f%% %11.1f%% %10s", metric_table[m].name, k, med, e[k - 1], sp);
		if (with_reps && nk > 0) {
			char ir[24];
			qsort(ne, (size_t)nk, sizeof(double), cmp_dbl);
			snprintf(ir, sizeof(ir), "%d/%d", in_runs, nk);
			fprintf(f, " %9s %12.1f%%", ir, gsl_stats_median_from_sorted_data(ne, 1, (size_t)nk));
		} else if (with_reps) {
			fprintf(f, " %9s %13s", "-", "-");
		}
		fprintf(f, "  %s\n", worst >= 0 ? rs->runs[worst].id : "");
	}
	free(e);
	free(ne);
}

static void print_summary(FILE *f, const struct run_set *rs, const struct row *rows, int n, bool any_held,
			  bool with_reps)
{
	if (!any_held) {
		print_summary_of(f, rs, rows, n, -1, "predicted (none held out)", with_reps);
		return;
	}
	print_summary_of(f, rs, rows, n, 1, "held-out", with_reps);
	print_summary_of(f, rs, rows, n, 0, "training (fitted, in-sample)", with_reps);
}

/* Words of text, the first line already indented by `first` columns, the
 * others by `indent`, lines at most WRAP_COLS wide. */
#define WRAP_COLS 100
static void print_wrapped(FILE *f, const char *text, int first, int indent)
{
	int col = first;
	const char *p = text;
	while (*p) {
		size_t w = strcspn(p, " ");
		if (col > indent && col + 1 + (int)w > WRAP_COLS) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, w, f);
		col += (int)w;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

/* The steady state by the window (metrics.h, window_limited). */
static const char *window_state(double rwnd_pct)
{
	return window_limited(rwnd_pct) ? "the reader behind" : "a frame per write";
}

static double median_of(double *x, int n)
{
	if (n == 0)
		return NAN;
	qsort(x, (size_t)n, sizeof(double), cmp_dbl);
	return gsl_stats_median_from_sorted_data(x, 1, (size_t)n);
}

/* A send buffer in KB, as the report prints it. */
static double kb_of(int64_t bytes)
{
	return (double)bytes / 1024.0;
}

/* --sockets: the sender's socket at the end of each run, the machine's beside
 * the model's as given (and the late start's with --states).  A send buffer
 * only grows, so one the size of the late start's says the run went
 * through the state a late reader finds, whatever it ended in. */
static void print_sockets(FILE *f, const struct calib_cli *o, const struct run_set *rs,
			  const struct calib_validation *v, const struct metrics *late, char *const *late_why,
			  const struct sock_set *socks, int idw)
{
	int shown = 0, within = 0, two = 0, near_late = 0;

	fprintf(f, "\nThe sender's socket at the runs' ends (--sockets %s: ss -tim's cwnd and send buffer just before\n"
		   "each run ended, every attempt's; %d rows used, %d of other points): the buffer only grows\n"
		   "(tcp_sndbuf_expand, with cwnd), so it tells where a run has been%s\n",
		o->sockets, socks->rows_used, socks->rows_other_points,
		late ? "; 'late start' is --states' run, the\nstate a reader behind its data holds" : "");
	for (int i = 0; i < rs->n; i++) {
		const struct sock_runs *sr = sockets_of(socks, i);
		int64_t lo, hi, med, clo = -1, chi = -1;
		char cw[48];
		const struct metrics *pm = &v->pred[i];
		bool has_late = late && !(late_why && late_why[i]);

		if (!sr || (v->no_pred_why && v->no_pred_why[i]))
			continue;
		med = sockets_sndbuf_median(sr, &lo, &hi);
		if (med <= 0)
			continue;
		for (int k = 0; k < sr->n; k++) {
			int64_t c = sr->e[k].cwnd;
			if (c > 0 && (clo < 0 || c < clo))
				clo = c;
			if (c > chi)
				chi = c;
		}
		shown++;
		if (clo > 0)
			snprintf(cw, sizeof(cw), "%" PRId64 "-%" PRId64, clo, chi);
		else
			snprintf(cw, sizeof(cw), "-"); /* ss gave none */
		fprintf(f, "  %-*s  measured %6.0f KB (%.0f-%.0f, %d run%s), cwnd %s; as given %6.0f KB, cwnd %" PRId64, idw,
			rs->runs[i].id, kb_of(med), kb_of(lo), kb_of(hi), sr->n, sr->n == 1 ? "" : "s", cw,
			kb_of(pm->sndbuf_bytes), pm->cwnd_segs);
		/* within 1.5x either way: the same buffer, give or take a cwnd's growth */
		if (pm->sndbuf_bytes > 0 && med <= 1.5 * (double)pm->sndbuf_bytes && (double)pm->sndbuf_bytes <= 1.5 * med)
			within++;
		if (has_late && pm->sndbuf_bytes > 0 && late[i].sndbuf_bytes > 0 && late[i].sndbuf_bytes != pm->sndbuf_bytes) {
			double dg = fabs(log((double)med / (double)pm->sndbuf_bytes));
			double dl = fabs(log((double)med / (double)late[i].sndbuf_bytes));
			two++;
			near_late += dl < dg;
			fprintf(f, "; late start %6.0f KB, cwnd %" PRId64 ": nearer the %s", kb_of(late[i].sndbuf_bytes),
				late[i].cwnd_segs, dl < dg ? "late start's" : "state as given");
		}
		fputc('\n', f);
	}
	fprintf(f, "At %d of %d runs the measured send buffer (the runs' median) is within 1.5x of the one predicted as given",
		within, shown);
	if (two)
		fprintf(f, ";\nwhere the late start's differs (%d run%s), the measured one is nearer the late start's at %d", two,
			two == 1 ? "" : "s", near_late);
	fputs(".\n", f);
}

/* How many of a point's single runs were window-limited (0 without runs). */
static int runs_window_limited(const struct rep_values *rv)
{
	int lim = 0;
	for (int k = 0; rv && k < rv->n; k++)
		lim += window_limited(rv->v[k]);
	return lim;
}

/* --states: the runs whose late start settles in another steady state. */
static void print_states(FILE *f, const struct calib_cli *o, const struct run_set *rs, const struct calib_validation *v,
			 const struct metrics *late, char *const *late_why, const struct rep_set *reps, int idw)
{
	const int T = METRIC_THROUGHPUT_MBPS, W = METRIC_SND_RWND_LIMITED_PCT;
	int n = rs->n, two = 0, wknown = 0, nearer_late = 0, nall = 0, mixed = 0, mixed_two = 0;
	double *eg = xcalloc((size_t)n + 1, sizeof(double)), *el = xcalloc((size_t)n + 1, sizeof(double));
	double *ea = xcalloc((size_t)n + 1, sizeof(double));

	fprintf(f, "\nTwo steady states (--states %s: each run again with its receivers starting %s after its senders,\n"
		   "app.recv_start; a run has two when the late start settles elsewhere: throughput more than %.0f%% apart,\n"
		   "or the sender window-limited from half its busy time in one and not the other)\n",
		o->states, o->states, 100.0 * STATES_APART);
	for (int i = 0; i < n; i++) {
		const double *mv = rs->runs[i].v, *pv = v->pred[i].v, *lv = late[i].v;
		double mt = mv[T], pt = pv[T], lt = lv[T], mw = mv[W], pw = pv[W], lw = lv[W];
		const struct rep_values *rv = reps_of(reps, i, W);
		int lim; /* of the point's single runs, the window-limited */
		bool apart, near_late = false, told = false;

		if ((v->no_pred_why && v->no_pred_why[i]) || late_why[i]) {
			fprintf(f, "  %-*s  no %sprediction: %s\n", idw, rs->runs[i].id, late_why[i] ? "late-start " : "",
				late_why[i] ? late_why[i] : v->no_pred_why[i]);
			continue;
		}
		if (!isfinite(mt) || !isfinite(pt) || !isfinite(lt) || pt <= 0 || mt <= 0)
			continue;
		apart = steady_states_apart(pv, lv);
		lim = runs_window_limited(rv);
		/* the measured window tells the two apart when one of them is
		 * window-limited and the other not */
		told = isfinite(mw) && isfinite(pw) && isfinite(lw) && window_limited(pw) != window_limited(lw);
		near_late = apart && told && fabs(lw - mw) < fabs(pw - mw);
		/* the machine's own two states: single runs on both sides */
		if (rv && lim > 0 && lim < rv->n) {
			mixed++;
			mixed_two += apart;
		}
		/* every run, in the state its measured window points to */
		ea[nall++] = fabs(calib_error_pct(mt, near_late ? lt : pt));
		if (!apart)
			continue;
		eg[two] = fabs(calib_error_pct(mt, pt));
		el[two] = fabs(calib_error_pct(mt, lt));
		two++;
		fprintf(f, "  %s\n", rs->runs[i].id);
		fprintf(f, "      measured    %10.6g Mbit/s", mt);
		if (isfinite(mw)) {
			fprintf(f, ", window-limited %.0f%%", mw);
			if (rv && rv->n > 0)
				fprintf(f, " (single runs: %d of %d window-limited)", lim, rv->n);
		}
		fputc('\n', f);
		fprintf(f, "      as given    %10.6g Mbit/s (%+.1f%%)", pt, calib_error_pct(mt, pt));
		if (isfinite(pw))
			fprintf(f, ", window-limited %.0f%% (%s)", pw, window_state(pw));
		fputc('\n', f);
		fprintf(f, "      late start  %10.6g Mbit/s (%+.1f%%)", lt, calib_error_pct(mt, lt));
		if (isfinite(lw))
			fprintf(f, ", window-limited %.0f%% (%s)", lw, window_state(lw));
		fputc('\n', f);
		if (told) {
			wknown++;
			nearer_late += near_late;
			fprintf(f, "      the measured window is nearer the %s\n", near_late ? "late start's" : "state as given");
		} else if (isfinite(mw) && isfinite(pw) && isfinite(lw)) {
			fputs("      the window does not tell the two apart (both on one side of half the busy time)\n", f);
		}
	}
	fprintf(f, "%d of %d runs have two steady states in the model", two, nall);
	if (wknown)
		fprintf(f, "; the measured window points to the late start's in %d of the %d it tells apart", nearer_late,
			wknown);
	fputs(".\n", f);
	if (mixed)
		fprintf(f, "The single runs settle in both states (some window-limited, some not) at %d points; the model has "
			   "two at %d of them.\n",
			mixed, mixed_two);
	if (two) {
		double mg = median_of(eg, two), ml = median_of(el, two);
		fprintf(f, "Throughput median |error| over those %d: as given %.1f%%, late start %.1f%%.\n", two, mg, ml);
	}
	if (wknown)
		fprintf(f, "Over all %d, each in the state its measured window points to (a state the measurement chose, "
			   "not a prediction): %.1f%%.\n",
			nall, median_of(ea, nall));
	free(eg);
	free(el);
	free(ea);
}

/* 1 where the sender's CPU is the busier in v, 0 the receiver's, -1 unknown
 * (metrics_busier_role's rule) */
static int sender_busier(const double *v)
{
	if (!metrics_busier_role(v))
		return -1;
	return metrics_sender_busier(v[METRIC_SND_CPU_BUSY_PCT], v[METRIC_RCV_CPU_BUSY_PCT]);
}

/* Run i's prediction with run.seed + k: as given (k 0) or --seeds' seed[(k - 1) * n + i]. */
static const double *seed_pred(const struct calib_validation *v, const struct metrics *seed, int n, int i, int k)
{
	return k == 0 ? v->pred[i].v : seed[(size_t)(k - 1) * n + i].v;
}

/* --seeds: the model's runs with other random inputs (seed[k * n + i]: run
 * i with run.seed + k + 1), beside the single runs: which steady state
 * each ends in (the window, metrics.h's window_limited) and which CPU is
 * the busier.  A run is listed where its seeds differ in either. */
static void print_seeds(FILE *f, const struct calib_cli *o, const struct run_set *rs, const struct calib_validation *v,
			const struct metrics *seed, char *const *seed_why, const struct rep_set *reps)
{
	const int T = METRIC_THROUGHPUT_MBPS, W = METRIC_SND_RWND_LIMITED_PCT;
	int n = rs->n, ns = o->seeds, nall = 0, split = 0, mixed = 0, mixed_split = 0;
	int bknown = 0, bright_given = 0, bright_most = 0, bknown_runs = 0, bin = 0;
	double *eg = xcalloc((size_t)n + 1, sizeof(double)), *em = xcalloc((size_t)n + 1, sizeof(double));
	double *tv = xcalloc((size_t)ns, sizeof(double));

	fprintf(f, "\nOther seeds (--seeds %d: each run again with run.seed + 1 .. + %d, the model's random inputs drawn\n"
		   "anew; a run is listed where its seeds end in both steady states (window-limited from half the busy\n"
		   "time in some, not in others) or differ in the busier CPU)\n",
		ns, ns - 1);
	for (int i = 0; i < n; i++) {
		const double *mv = rs->runs[i].v;
		const struct rep_values *rv = reps_of(reps, i, W);
		const char *mb = metrics_busier_role(mv);
		int lim = 0, slim = 0, ssnd = 0, sknown = 0, rsnd = 0, rrcv = 0;
		bool ok = !(v->no_pred_why && v->no_pred_why[i]) && isfinite(mv[T]) && mv[T] > 0;

		for (int k = 0; ok && k < ns - 1; k++)
			ok = !seed_why[(size_t)k * n + i];
		if (!ok)
			continue;
		for (int k = 0; k < ns; k++) {
			const double *pv = seed_pred(v, seed, n, i, k);
			int sb = sender_busier(pv);
			tv[k] = pv[T];
			slim += isfinite(pv[W]) && window_limited(pv[W]);
			if (sb >= 0) {
				sknown++;
				ssnd += sb;
			}
		}
		nall++;
		eg[nall - 1] = fabs(calib_error_pct(mv[T], v->pred[i].v[T]));
		em[nall - 1] = fabs(calib_error_pct(mv[T], median_of(tv, ns)));
		lim = runs_window_limited(rv);
		reps_busier(reps, i, &rsnd, &rrcv);
		if (rv && lim > 0 && lim < rv->n) {
			mixed++;
			mixed_split += slim > 0 && slim < ns;
		}
		if (mb && sknown == ns) {
			bool snd_most = 2 * ssnd > ns, snd_given = sender_busier(v->pred[i].v) == 1;
			bool m_snd = sender_busier(mv) == 1;
			bknown++;
			bright_given += snd_given == m_snd;
			bright_most += 2 * ssnd != ns && snd_most == m_snd;
			if (rsnd + rrcv > 0) {
				/* every CPU a single run had the busier is some seed's */
				bknown_runs++;
				bin += (rsnd == 0 || ssnd > 0) && (rrcv == 0 || ssnd < ns);
			}
		}
		if ((slim == 0 || slim == ns) && (ssnd == 0 || ssnd == sknown))
			continue;
		split += slim > 0 && slim < ns;
		fprintf(f, "  %s\n", rs->runs[i].id);
		fprintf(f, "      measured  %10.6g Mbit/s", mv[T]);
		if (isfinite(mv[W])) {
			fprintf(f, ", window-limited %.0f%%", mv[W]);
			if (rv && rv->n > 0)
				fprintf(f, " (single runs: %d of %d)", lim, rv->n);
		}
		if (mb)
			fprintf(f, ", busier: the %s", mb);
		if (rsnd + rrcv > 0)
			fprintf(f, " (single runs: the sender's in %d of %d)", rsnd, rsnd + rrcv);
		fputc('\n', f);
		fprintf(f, "      seeds     ");
		for (int k = 0; k < ns; k++)
			fprintf(f, "%s%.6g", k ? " " : "", seed_pred(v, seed, n, i, k)[T]);
		fprintf(f, " Mbit/s; window-limited in %d of %d; the sender's CPU the busier in %d of %d\n", slim, ns, ssnd,
			sknown);
	}
	fprintf(f, "%d of %d runs end in both steady states over their %d seeds.\n", split, nall, ns);
	if (mixed)
		fprintf(f, "The single runs settle in both states at %d points; the seeds do at %d of them.\n", mixed,
			mixed_split);
	if (bknown)
		fprintf(f, "The busier CPU: right in %d of %d runs as given (the first seed), in %d by most of the %d seeds "
			   "(a tie counts wrong).\n",
			bright_given, bknown, bright_most, ns);
	if (bknown_runs)
		fprintf(f, "At %d of the %d points whose single runs recorded both CPUs, the seeds have each CPU a single "
			   "run had the busier.\n",
			bin, bknown_runs);
	if (nall)
		fprintf(f, "Throughput median |error|: as given %.1f%%, the seeds' median %.1f%% (over %d runs).\n",
			median_of(eg, nall), median_of(em, nall), nall);
	free(eg);
	free(em);
	free(tv);
}

static void render_table(FILE *f, const struct calib_cli *o, const struct run_set *rs, const struct calib_setup *cs,
			 const struct calib_validation *v, const struct row *rows, int n,
			 const struct target_set *ts, const struct target_outcome *oc, const struct rep_set *reps,
			 const struct metrics *late, char *const *late_why, const struct metrics *seed,
			 char *const *seed_why, const struct sock_set *socks)
{
	bool with_reps = reps->rows_used > 0;
	bool any_held = false;
	int idw = 3, misses = 0;

	for (int i = 0; i < rs->n; i++) {
		any_held |= v->held_out[i];
		if ((int)strlen(rs->runs[i].id) > idw)
			idw = (int)strlen(rs->runs[i].id);
	}
	if (o->title)
		fprintf(f, "%s\n\n", o->title);
	fprintf(f, "tcpsim validate: %d run%s (", rs->n, rs->n == 1 ? "" : "s");
	for (int i = 0; i < o->n_files; i++)
		fprintf(f, "%s%s", i ? ", " : "", o->files[i]);
	fprintf(f, "), profile %s\n", o->profile ? o->profile : "none (each run's scenario as it is)");
	if (cs->n_par > 0) {
		fputs("Fitted:", f);
		for (int j = 0; j < cs->n_par; j++)
			fprintf(f, " %s", cs->par[j].key);
		fputc('\n', f);
	}
	fprintf(f, "Held out: %s\n", holdout_text(o, cs));
	if (with_reps) {
		fputs("Single runs:", f);
		for (int i = 0; i < o->n_reps; i++)
			fprintf(f, "%s %s", i ? "," : "", o->reps[i]);
		fprintf(f, " (%d good runs of these points used, %d not ok skipped, %d of other points)\n",
			reps->rows_used, reps->rows_skipped_status, reps->rows_other_points);
	}
	calibcli_print_method(f, cs);
	print_fits(f, rs, cs, v);

	fprintf(f, "\nPer run and metric (error = predicted / measured - 1; MISS: |error| > %g%% or no prediction)\n",
		o->miss_pct);
	if (with_reps)
		fputs("(runs: the point's good single runs, lowest..highest (how many); to runs: the error to the nearest\n"
		      " of them, 'in' when the prediction lies inside their range)\n", f);
	fprintf(f, "%-*s  %-22s %14s %8s %14s %9s  %-8s", idw, "run", "metric", "measured", "spread", "predicted",
		"error%", "held-out");
	if (with_reps)
		fprintf(f, " %-28s %8s", "runs", "to runs");
	fputc('\n', f);
	for (int k = 0; k < n; k++) {
		const struct row *r = &rows[k];
		char es[24];
		bool miss = !isfinite(r->err_pct) || fabs(r->err_pct) > o->miss_pct;
		misses += miss;
		char sp[24];
		if (isfinite(r->err_pct))
			snprintf(es, sizeof(es), "%+.1f%%", r->err_pct);
		else
			snprintf(es, sizeof(es), "-");
		if (isfinite(row_cv(rs, r)))
			snprintf(sp, sizeof(sp), "+-%.0f%%", 100.0 * row_cv(rs, r));
		else
			snprintf(sp, sizeof(sp), "-");
		fprintf(f, "%-*s  %-22s %14.6g %8s %14.6g %9s  %-8s", idw, rs->runs[r->run].id,
			metric_table[r->metric].name, r->measured, sp, r->predicted, es, r->held_out ? "yes" : "no");
		if (with_reps) {
			char rg[64] = "-", tr[24] = "-";
			if (r->rv)
				snprintf(rg, sizeof(rg), "%.6g..%.6g (%d)", r->rv->v[0], r->rv->v[r->rv->n - 1], r->rv->n);
			if (r->rv && r->near_pct == 0)
				snprintf(tr, sizeof(tr), "in");
			else if (isfinite(r->near_pct))
				snprintf(tr, sizeof(tr), "%+.1f%%", r->near_pct);
			fprintf(f, " %-28s %8s", rg, tr);
		}
		if (miss)
			fputs(r->rv && r->near_pct == 0 ? " MISS (inside the measured runs)"
			      : within_spread(rs, r)	  ? " MISS (within 2 CV of the measured spread)"
							  : " MISS",
			      f);
		fputc('\n', f);
	}
	fprintf(f, "%d of %d rows flagged MISS.\n", misses, n);
	print_summary(f, rs, rows, n, any_held, with_reps);

	fputs("\nPredicted bottleneck per run (and the busier CPU, measured against predicted, where recorded)\n", f);
	{
		int known = 0, right = 0, wknown = 0, wright = 0, rknown = 0, rright = 0;
		for (int i = 0; i < rs->n; i++) {
			const char *mb = metrics_busier_role(rs->runs[i].v), *pb = metrics_busier_role(v->pred[i].v);
			if (v->no_pred_why && v->no_pred_why[i]) {
				fprintf(f, "  %-*s  no prediction: %s\n", idw, rs->runs[i].id, v->no_pred_why[i]);
				continue;
			}
			fprintf(f, "  %-*s  %s\n", idw, rs->runs[i].id,
				v->pred[i].bottleneck_text[0] ? v->pred[i].bottleneck_text
							      : bottleneck_kind_name(v->pred[i].bottleneck));
			if (!v->pred[i].buffers_settled)
				fprintf(f, "  %-*s    warning: autotuning still changed socket buffers during the "
					   "predicted run's measured interval (raise run.duration, or run.settle)\n", idw, "");
			{
				double ppw, mw = rs->runs[i].v[METRIC_WRITES_PER_S], mc = rs->runs[i].v[METRIC_RCV_CPU_CAL_PER_S];
				const char *prg = regime_name(v->pred[i].v, &ppw);
				if (isfinite(mw) && isfinite(mc) && mw > 0)
					fprintf(f, "  %-*s    regime: measured %.3f CAL IPIs on the reader's CPU per write "
						   "(a lower bound of its wakeups), predicted %s (%.3f wakeups per write)\n",
						idw, "", mc / mw, prg, ppw);
			}
			{
				/* the steady state by the window, where the run recorded
				 * tcp_info's share (measure-live's snd_rwnd_limited_pct) */
				double mr = rs->runs[i].v[METRIC_SND_RWND_LIMITED_PCT];
				double pr = v->pred[i].v[METRIC_SND_RWND_LIMITED_PCT];
				if (isfinite(mr) && isfinite(pr)) {
					bool same = window_limited(mr) == window_limited(pr);
					wknown++;
					wright += same;
					fprintf(f, "  %-*s    window: measured %.0f%% of the sender's busy time window-limited (%s), "
						   "predicted %.0f%% (%s) -- %s\n",
						idw, "", mr, window_state(mr), pr, window_state(pr), same ? "right" : "WRONG");
				}
			}
			{
				/* who sends the ACKs: on receipt (the transmitting CPU's
				 * softirq) or the reader, after its copy (tcp_cleanup_rbuf);
				 * on lo and veth the reader's ACK runs its own NET_RX on the
				 * reader's CPU, one per ACK */
				double ma = rs->runs[i].v[METRIC_ACKS_PER_S], mn = rs->runs[i].v[METRIC_RCV_CPU_NETRX_PER_S];
				double pa = v->pred[i].v[METRIC_ACKS_PER_S], pr = v->pred[i].v[METRIC_ACKS_READ_PER_S];
				if (isfinite(ma) && isfinite(mn) && ma > 0 && isfinite(pa) && isfinite(pr) && pa > 0)
					fprintf(f, "  %-*s    ACKs: measured %.2f NET_RX runs on the reader's CPU per ACK "
						   "(about 1: the reader sends them), predicted %.0f%% sent by the reader\n",
						idw, "", mn / ma, 100.0 * pr / pa);
			}
			if (mb && pb) {
				/* the point's single runs (--reps): which CPU was the
				 * busier in each, and whether the prediction's was in any */
				int rs_snd = 0, rs_rcv = 0;
				char single[96] = "";
				if (with_reps)
					reps_busier(reps, i, &rs_snd, &rs_rcv);
				if (rs_snd + rs_rcv > 0) {
					bool in_one = (metrics_sender_busier(v->pred[i].v[METRIC_SND_CPU_BUSY_PCT],
										     v->pred[i].v[METRIC_RCV_CPU_BUSY_PCT])
							       ? rs_snd
							       : rs_rcv) > 0;
					rknown++;
					rright += in_one;
					snprintf(single, sizeof(single), "; single runs: the sender's in %d of %d%s", rs_snd,
						 rs_snd + rs_rcv, in_one ? "" : ", never the predicted");
				}
				known++;
				right += strcmp(mb, pb) == 0;
				fprintf(f, "  %-*s    busier: measured the %s (%.0f%% vs %.0f%%), predicted the %s -- %s%s\n",
					idw, "", mb, rs->runs[i].v[METRIC_SND_CPU_BUSY_PCT],
					rs->runs[i].v[METRIC_RCV_CPU_BUSY_PCT], pb, strcmp(mb, pb) == 0 ? "right" : "WRONG", single);
			}
		}
		if (known)
			fprintf(f, "The busier CPU is right in %d of %d runs.\n", right, known);
		if (rknown)
			fprintf(f, "The predicted busier CPU was the busier in at least one single run at %d of the %d points "
				   "whose single runs recorded both CPUs.\n",
				rright, rknown);
		if (wknown)
			fprintf(f, "The steady state by the window (limited from half the busy time) is right in %d of %d runs.\n",
				wright, wknown);
	}
	if (late)
		print_states(f, o, rs, v, late, late_why, reps, idw);
	if (seed)
		print_seeds(f, o, rs, v, seed, seed_why, reps);
	if (socks->run)
		print_sockets(f, o, rs, v, late, late_why, socks, idw);

	if (ts && ts->n > 0) {
		int met = 0;
		fprintf(f, "\nChecks (%s)\n", ts->file);
		for (int k = 0; k < ts->n; k++) {
			met += oc[k].met;
			fprintf(f, "  [%s] ", oc[k].met ? "met   " : "MISSED");
			print_wrapped(f, oc[k].text, 11, 11);
			if (!oc[k].met && ts->t[k].lacks[0]) {
				char buf[1200];
				snprintf(buf, sizeof(buf), "the model lacks (as far as we can tell): %s", ts->t[k].lacks);
				fputs("           ", f);
				print_wrapped(f, buf, 11, 11);
			}
		}
		fprintf(f, "%d of %d checks met.\n", met, ts->n);
	}
}

int cmd_validate(int argc, char **argv)
{
	struct calib_cli o = {.cmd = "validate"};
	struct run_set rs;
	struct calib_runs cr = {0};
	struct calib_setup cs;
	struct calib_validation v = {0};
	struct target_set ts = {0};
	struct target_outcome *oc = NULL;
	struct tcpsim_err err = {0};
	struct row *rows = NULL;
	struct rep_set reps;
	struct sock_set socks;
	bool *train = NULL;
	struct metrics *late = NULL, *seed = NULL;
	char **late_why = NULL, **seed_why = NULL;
	double late_ns = 0;
	enum calib_holdout ho = CALIB_HOLDOUT_NONE;
	char *buf = NULL;
	size_t len = 0;
	FILE *ms;
	int rc, n;

	runs_init(&rs);
	reps_init(&reps);
	sockets_init(&socks);
	rc = calibcli_parse(argc, argv, &o);
	if (rc || o.help) {
		if (o.help)
			validate_usage(stdout);
		goto done;
	}
	if ((rc = calibcli_check_output(&o)) != 0)
		goto done;
	if (o.states && (rc = cli_late_start("validate", o.states, &late_ns)) != 0)
		goto done;
	if (o.seeds > 1 && o.format && strcmp(o.format, "csv") == 0) {
		fprintf(stderr, "tcpsim: validate: --seeds is for the table format (its section has no csv form)\n");
		rc = 2;
		goto done;
	}
	cr.progress = isatty(STDERR_FILENO) ? stderr : NULL;
	if ((rc = calibcli_load(&o, &rs, &reps, &cr, &cs, &err)) != TCPSIM_OK)
		goto fail;
	cs.run_progress = cr.progress;
	if (o.sockets && (rc = sockets_load(&socks, &rs, o.sockets, &err)) != TCPSIM_OK)
		goto fail;
	if (o.targets && (rc = targets_load(&ts, o.targets, &err)) != TCPSIM_OK) {
		rc = rc == TCPSIM_EIO ? TCPSIM_EUSAGE : rc;
		goto fail;
	}
	if (o.holdout && strcmp(o.holdout, "loo") == 0)
		ho = CALIB_HOLDOUT_LOO;
	if (o.train_where) {
		ho = CALIB_HOLDOUT_TRAIN;
		train = xcalloc((size_t)rs.n, sizeof(bool));
		if ((rc = calib_parse_train_where(&cr, o.train_where, train, &err)) != TCPSIM_OK)
			goto fail;
	}
	if ((rc = calib_validate(&cs, &cr, ho, train, &v, &err)) != TCPSIM_OK)
		goto fail;
	if (o.states) {
		late = xcalloc((size_t)(rs.n > 0 ? rs.n : 1), sizeof(*late));
		late_why = xcalloc((size_t)(rs.n > 0 ? rs.n : 1), sizeof(*late_why));
		if ((rc = calib_predict_late(&cs, &cr, &v, (sim_ns)late_ns, late, late_why, &err)) != TCPSIM_OK)
			goto fail;
	}
	if (o.seeds > 1) {
		size_t ns = (size_t)(o.seeds - 1) * (size_t)(rs.n > 0 ? rs.n : 1);
		seed = xcalloc(ns, sizeof(*seed));
		seed_why = xcalloc(ns, sizeof(*seed_why));
		for (int k = 1; k < o.seeds; k++)
			if ((rc = calib_predict_seed(&cs, &cr, &v, (uint64_t)k, seed + (size_t)(k - 1) * rs.n,
						     seed_why + (size_t)(k - 1) * rs.n, &err)) != TCPSIM_OK)
				goto fail;
	}
	if (ts.n > 0) {
		oc = xcalloc((size_t)ts.n, sizeof(*oc));
		if ((rc = targets_eval(&ts, &rs, v.pred, v.held_out, oc, &err)) != TCPSIM_OK)
			goto fail;
	}
	n = collect_rows(&rs, &v, &reps, late, &rows);
	ms = cli_memstream(&buf, &len);
	if (!ms) {
		rc = 1;
		goto done;
	}
	if (o.format && strcmp(o.format, "csv") == 0)
		render_csv(ms, &rs, rows, n, reps.rows_used > 0, late != NULL);
	else
		render_table(ms, &o, &rs, &cs, &v, rows, n, &ts, oc, &reps, late, late_why, seed, seed_why, &socks);
	if (fclose(ms) != 0) {
		fprintf(stderr, "tcpsim: cannot format the report\n");
		rc = 1;
		goto done;
	}
	rc = calibcli_commit(o.out, buf, len);
	goto done;
fail:
	calibcli_print_err(&err);
	rc = calibcli_status(rc);
done:
	free(buf);
	free(rows);
	free(train);
	free(oc);
	if (late_why)
		for (int i = 0; i < rs.n; i++)
			free(late_why[i]);
	free(late_why);
	free(late);
	if (seed_why)
		for (size_t k = 0; k < (size_t)(o.seeds - 1) * (size_t)rs.n; k++)
			free(seed_why[k]);
	free(seed_why);
	free(seed);
	targets_free(&ts);
	reps_free(&reps);
	sockets_free(&socks);
	calib_validation_free(&v);
	calib_runs_free(&cr);
	runs_free(&rs);
	calibcli_release(&o);
	return rc;
}
