/*
 * reps: the single runs behind recorded points (see reps.h), read through
 * csvread (libcsv).
 */
#include "reps.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>

#include "csvread.h"
#include "util.h"

struct rreader {
	struct rep_set *r;
	const struct run_set *rs;
	const char *path;
	int id_col, status_col, ncols;
	int *metric_of; /* column -> metric, -1 */
	/* rows parsed into a staging set first: nothing is added on error */
	struct staged {
		int run, metric;
		double v;
	} *st;
	int n_st, cap_st;
	int used, skipped_status, other_points;
};

static int read_header(struct rreader *rd, struct csvread_rec *rec, struct tcpsim_err *err)
{
	rd->ncols = rec->n;
	rd->metric_of = xcalloc((size_t)rec->n, sizeof(int));
	rd->id_col = rd->status_col = -1;
	for (int c = 0; c < rec->n; c++) {
		const char *h = rec->field[c];
		rd->metric_of[c] = metric_find(h);
		if ((strcmp(h, "point") == 0 || strcmp(h, "id") == 0) && rd->id_col < 0)
			rd->id_col = c;
		else if (strcmp(h, "status") == 0)
			rd->status_col = c;
	}
	if (rd->id_col < 0)
		return err_set(err, TCPSIM_EUSAGE, "%s:%d: no column 'point' (or 'id'): not a file of single runs",
			       rd->path, rec->line);
	return TCPSIM_OK;
}

/* One staged value of run `run`: metric -1 is which CPU was the busier
 * (v 0 the sender's, 1 the receiver's). */
static void stage(struct rreader *rd, int run, int metric, double v)
{
	if (rd->n_st == rd->cap_st) {
		rd->cap_st = rd->cap_st ? 2 * rd->cap_st : 256;
		rd->st = xrealloc(rd->st, (size_t)rd->cap_st * sizeof(*rd->st));
	}
	rd->st[rd->n_st++] = (struct staged){.run = run, .metric = metric, .v = v};
}

static int read_rec(void *ctx, struct csvread_rec *rec, struct tcpsim_err *err)
{
	struct rreader *rd = ctx;

	if (!rd->metric_of)
		return read_header(rd, rec, err);
	if (rec->n != rd->ncols)
		return err_set(err, TCPSIM_EUSAGE, "%s:%d: row has %d fields, header has %d", rd->path, rec->line,
			       rec->n, rd->ncols);
	if (rd->status_col >= 0 && strcmp(rec->field[rd->status_col], "ok") != 0) {
		rd->skipped_status++;
		return TCPSIM_OK;
	}
	const struct recorded_run *run = runs_find(rd->rs, rec->field[rd->id_col]);
	if (!run) {
		rd->other_points++;
		return TCPSIM_OK;
	}
	rd->used++;
	double busy[2] = {NAN, NAN}; /* this run's sender's and receiver's CPU */
	for (int c = 0; c < rec->n; c++) {
		double v;
		if (rd->metric_of[c] < 0 || rec->field[c][0] == '\0')
			continue;
		if (!parse_finite(rec->field[c], &v))
			return err_set(err, TCPSIM_EUSAGE, "%s:%d: %s: '%s' is not a number", rd->path, rec->line,
				       metric_table[rd->metric_of[c]].name, rec->field[c]);
		stage(rd, (int)(run - rd->rs->runs), rd->metric_of[c], v);
		if (rd->metric_of[c] == METRIC_SND_CPU_BUSY_PCT || rd->metric_of[c] == METRIC_RCV_CPU_BUSY_PCT)
			busy[rd->metric_of[c] == METRIC_RCV_CPU_BUSY_PCT] = v;
	}
	if (isfinite(busy[0]) && isfinite(busy[1]))
		stage(rd, (int)(run - rd->rs->runs), -1, metrics_sender_busier(busy[0], busy[1]) ? 0 : 1);
	return TCPSIM_OK;
}

void reps_init(struct rep_set *r)
{
	memset(r, 0, sizeof(*r));
}

void reps_free(struct rep_set *r)
{
	for (int i = 0; r->val && i < r->n_runs * METRIC_N; i++)
		free(r->val[i].v);
	free(r->val);
	free(r->busier);
	reps_init(r);
}

int reps_load(struct rep_set *r, const struct run_set *rs, const char *path, struct tcpsim_err *err)
{
	struct rreader rd = {.r = r, .rs = rs, .path = path};
	int rc = csvread_file(path, "single runs", read_rec, &rd, err);

	if (rc == TCPSIM_OK && rd.used == 0)
		rc = err_set(err, TCPSIM_EUSAGE, "%s: no good run of any of the %d recorded points", path, rs->n);
	if (rc == TCPSIM_OK) {
		if (!r->val) {
			r->n_runs = rs->n;
			r->val = xcalloc((size_t)rs->n * METRIC_N, sizeof(*r->val));
			r->busier = xcalloc((size_t)rs->n * 2, sizeof(*r->busier));
		}
		for (int k = 0; k < rd.n_st; k++) {
			if (rd.st[k].metric < 0) {
				r->busier[2 * rd.st[k].run + (int)rd.st[k].v]++;
				continue;
			}
			struct rep_values *rv = &r->val[rd.st[k].run * METRIC_N + rd.st[k].metric];
			if (rv->n == rv->cap) {
				rv->cap = rv->cap ? 2 * rv->cap : 8;
				rv->v = xrealloc(rv->v, (size_t)rv->cap * sizeof(double));
			}
			rv->v[rv->n++] = rd.st[k].v;
		}
		for (int i = 0; i < r->n_runs * METRIC_N; i++)
			if (r->val[i].n > 1)
				gsl_sort(r->val[i].v, 1, (size_t)r->val[i].n);
		r->rows_used += rd.used;
		r->rows_skipped_status += rd.skipped_status;
		r->rows_other_points += rd.other_points;
	}
	free(rd.metric_of);
	free(rd.st);
	return rc;
}

void reps_busier(const struct rep_set *r, int run, int *snd, int *rcv)
{
	*snd = r->busier ? r->busier[2 * run] : 0;
	*rcv = r->busier ? r->busier[2 * run + 1] : 0;
}

const struct rep_values *reps_of(const struct rep_set *r, int run, int metric)
{
	if (!r->val || run < 0 || run >= r->n_runs || metric < 0 || metric >= METRIC_N)
		return NULL;
	return r->val[run * METRIC_N + metric].n > 0 ? &r->val[run * METRIC_N + metric] : NULL;
}

double reps_nearest(const struct rep_values *rv, double v)
{
	double best = rv->v[0];
	for (int i = 1; i < rv->n; i++)
		if (fabs(rv->v[i] - v) < fabs(best - v))
			best = rv->v[i];
	return best;
}

double reps_nearest_error_pct(const struct rep_values *rv, double predicted)
{
	if (!rv || rv->n == 0 || !isfinite(predicted))
		return NAN;
	double lo = rv->v[0], hi = rv->v[rv->n - 1];
	/* inside, up to the last of the 6 digits a CSV of runs carries */
	double tol = 1e-5 * fmax(fabs(lo), fabs(hi));
	if (predicted >= lo - tol && predicted <= hi + tol)
		return 0;
	double near = reps_nearest(rv, predicted);
	if (near == 0)
		return NAN;
	return 100.0 * (predicted / near - 1);
}
