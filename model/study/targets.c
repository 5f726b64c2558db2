/*
 * targets: validation checks from a CSV (see targets.h).  Read through
 * libcsv in strict mode, like the recorded runs (runs.c); the file is
 * small, so it is read whole and parsed in one call.
 */
#include "targets.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "calib.h"
#include "csvread.h"
#include "util.h"

static const char *const kind_names[] = {
	[TARGET_CHANGE] = "change",
	[TARGET_MEDIAN_ABS_ERROR] = "median_abs_error",
	[TARGET_MAX_ABS_ERROR] = "max_abs_error",
	[TARGET_BOTTLENECK] = "bottleneck",
	[TARGET_TRAIN_MEDIAN_ABS_ERROR] = "train_median_abs_error",
	[TARGET_BUSIER_CPU] = "busier_cpu",
};

enum tcol { TC_CHECK, TC_METRIC, TC_RUN, TC_BASE, TC_LIMIT, TC_EXPECT, TC_LACKS, TC_SOURCE, TC_N };

static const char *const col_names[TC_N] = {
	"check", "metric", "run", "base", "limit", "expect", "lacks", "source",
};

struct treader {
	struct target_set *ts;
	struct tcpsim_err *err;
	const char *path;
	int rec_line;
	char **fields;            /* the current record's (csvread's), blanks trimmed */
	int nf;
	int col[TC_N + 8];        /* column index -> enum tcol */
	int ncols;
	int have[TC_N];
};

/* Trim blanks around a field, in place. */
static void trim(char *f)
{
	char *a = f, *e = f + strlen(f);
	while (*a == ' ' || *a == '\t')
		a++;
	while (e > a && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	memmove(f, a, strlen(a) + 1);
}

static int read_header(struct treader *rd)
{
	rd->ncols = rd->nf;
	for (int c = 0; c < rd->nf; c++) {
		int k = -1;
		for (int t = 0; t < TC_N; t++)
			if (strcmp(rd->fields[c], col_names[t]) == 0)
				k = t;
		if (k < 0)
			return err_set(rd->err, TCPSIM_EUSAGE,
				       "%s:%d: unknown column '%s' (check, metric, run, base, limit, expect, lacks, source)",
				       rd->path, rd->rec_line, rd->fields[c]);
		if (rd->have[k])
			return err_set(rd->err, TCPSIM_EUSAGE, "%s:%d: column '%s' appears twice", rd->path,
				       rd->rec_line, rd->fields[c]);
		rd->have[k] = 1;
		rd->col[c] = k;
	}
	if (!rd->have[TC_CHECK])
		return err_set(rd->err, TCPSIM_EUSAGE, "%s:%d: missing column 'check'", rd->path, rd->rec_line);
	return TCPSIM_OK;
}

static char *dup_or_null(const char *s)
{
	return s && *s ? xstrdup(s) : NULL;
}

static int read_row(struct treader *rd)
{
	const char *v[TC_N] = {0};
	const char *P = rd->path;
	int L = rd->rec_line;
	struct target t = {.metric = -1, .limit = NAN, .expect = BOTTLENECK_NONE, .line = L};
	int kind = -1;

	if (rd->nf != rd->ncols)
		return err_set(rd->err, TCPSIM_EUSAGE, "%s:%d: row has %d fields, header has %d", P, L, rd->nf,
			       rd->ncols);
	for (int c = 0; c < rd->nf; c++)
		v[rd->col[c]] = rd->fields[c];
	for (int k = 0; k < (int)ARRAY_SIZE(kind_names); k++)
		if (v[TC_CHECK] && strcmp(v[TC_CHECK], kind_names[k]) == 0)
			kind = k;
	if (kind < 0) {
		char names[160] = "";
		size_t nk = ARRAY_SIZE(kind_names);
		for (size_t k = 0; k < nk; k++) /* "a, b or c", from the table */
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 k == 0 ? "" : k + 1 == nk ? " or " : ", ", kind_names[k]);
		return err_set(rd->err, TCPSIM_EUSAGE, "%s:%d: column 'check': '%s' is not %s", P, L,
			       v[TC_CHECK] ? v[TC_CHECK] : "", names);
	}
	t.kind = (enum target_kind)kind;
	if (t.kind == TARGET_BUSIER_CPU && v[TC_METRIC] && *v[TC_METRIC])
		return err_set(rd->err, TCPSIM_EUSAGE,
			       "%s:%d: column 'metric': '%s' given to a busier_cpu check, which takes none (it compares "
			       "snd_cpu_busy_pct with rcv_cpu_busy_pct)", P, L, v[TC_METRIC]);
	if (t.kind != TARGET_BOTTLENECK) {
		char *end;
		if (t.kind != TARGET_BUSIER_CPU &&
		    (!v[TC_METRIC] || !*v[TC_METRIC] || (t.metric = metric_find(v[TC_METRIC])) < 0))
			return err_set(rd->err, TCPSIM_EUSAGE, "%s:%d: column 'metric': '%s' is not a metric", P, L,
				       v[TC_METRIC] ? v[TC_METRIC] : "");
		errno = 0;
		t.limit = v[TC_LIMIT] ? strtod(v[TC_LIMIT], &end) : NAN;
		if (!v[TC_LIMIT] || !*v[TC_LIMIT] || *end || errno || !(t.limit >= 0))
			return err_set(rd->err, TCPSIM_EUSAGE, "%s:%d: column 'limit': '%s' is not a number >= 0", P,
				       L, v[TC_LIMIT] ? v[TC_LIMIT] : "");
	}
	if (t.kind == TARGET_CHANGE || t.kind == TARGET_BOTTLENECK) {
		if (!v[TC_RUN] || !*v[TC_RUN])
			return err_set(rd->err, TCPSIM_EUSAGE, "%s:%d: column 'run': empty (a %s check needs a run id)",
				       P, L, kind_names[kind]);
	}
	if (t.kind == TARGET_CHANGE && (!v[TC_BASE] || !*v[TC_BASE]))
		return err_set(rd->err, TCPSIM_EUSAGE, "%s:%d: column 'base': empty (a change check needs a base run id)",
			       P, L);
	if (t.kind == TARGET_BOTTLENECK) {
		int k = bottleneck_kind_find(v[TC_EXPECT]);
		if (k < 0)
			return err_set(rd->err, TCPSIM_EUSAGE,
				       "%s:%d: column 'expect': '%s' is not cpu, wire, window, receiver or none", P, L,
				       v[TC_EXPECT] ? v[TC_EXPECT] : "");
		t.expect = (enum bottleneck_kind)k;
	}
	t.run = dup_or_null(v[TC_RUN]);
	t.base = dup_or_null(v[TC_BASE]);
	t.lacks = xstrdup(v[TC_LACKS] ? v[TC_LACKS] : "");
	t.source = xstrdup(v[TC_SOURCE] ? v[TC_SOURCE] : "");
	rd->ts->t = xrealloc(rd->ts->t, sizeof(*rd->ts->t) * (size_t)(rd->ts->n + 1));
	rd->ts->t[rd->ts->n++] = t;
	return TCPSIM_OK;
}

static int on_record(void *data, struct csvread_rec *rec, struct tcpsim_err *err)
{
	struct treader *rd = data;
	if (rec->n > (int)ARRAY_SIZE(rd->col))
		return err_set(err, TCPSIM_EUSAGE, "%s:%d: too many fields", rd->path, rec->line);
	for (int i = 0; i < rec->n; i++)
		trim(rec->field[i]);
	rd->fields = rec->field;
	rd->nf = rec->n;
	rd->rec_line = rec->line;
	return rd->ncols == 0 ? read_header(rd) : read_row(rd);
}

void targets_free(struct target_set *ts)
{
	for (int i = 0; i < ts->n; i++) {
		free(ts->t[i].run);
		free(ts->t[i].base);
		free(ts->t[i].lacks);
		free(ts->t[i].source);
	}
	free(ts->t);
	free(ts->file);
	memset(ts, 0, sizeof(*ts));
}

int targets_load(struct target_set *ts, const char *path, struct tcpsim_err *err)
{
	struct tcpsim_err local = {0};
	struct treader rd = {.ts = ts, .err = &local, .path = path};

	memset(ts, 0, sizeof(*ts));
	ts->file = xstrdup(path);
	if (csvread_file(path, "targets", on_record, &rd, &local)) {
		targets_free(ts);
		return err_set(err, local.code, "%s", local.msg);
	}
	return TCPSIM_OK;
}

/* ---- evaluation ------------------------------------------------------------- */

static int find_run(const struct run_set *rs, const char *id)
{
	for (int i = 0; i < rs->n; i++)
		if (strcmp(rs->runs[i].id, id) == 0)
			return i;
	return -1;
}

static double change_pct(double base, double nw)
{
	if (!isfinite(base) || !isfinite(nw) || base == 0)
		return NAN;
	return 100.0 * (nw - base) / base;
}

static void eval_change(const struct target *t, const struct run_set *rs, const struct metrics *pred,
			int ir, int ib, struct target_outcome *o)
{
	const char *name = metric_table[t->metric].name;
	char pm[32], pp[64];

	o->measured = change_pct(rs->runs[ib].v[t->metric], rs->runs[ir].v[t->metric]);
	o->predicted = change_pct(pred[ib].v[t->metric], pred[ir].v[t->metric]);
	o->n = 2;
	o->met = isfinite(o->measured) && isfinite(o->predicted) && fabs(o->predicted - o->measured) <= t->limit;
	if (isfinite(o->measured))
		snprintf(pm, sizeof(pm), "%+.1f%%", o->measured);
	else
		snprintf(pm, sizeof(pm), "not measured");
	if (isfinite(o->predicted))
		snprintf(pp, sizeof(pp), "%+.1f%%", o->predicted);
	else
		snprintf(pp, sizeof(pp), "undefined (base predicted %g)", pred[ib].v[t->metric]);
	if (isfinite(o->measured) && isfinite(o->predicted))
		snprintf(o->text, sizeof(o->text),
			 "change of %s, %s -> %s: measured %s, predicted %s; %.1f points off (limit %g)", name,
			 t->base, t->run, pm, pp, fabs(o->predicted - o->measured), t->limit);
	else
		snprintf(o->text, sizeof(o->text), "change of %s, %s -> %s: measured %s, predicted %s (limit %g points)",
			 name, t->base, t->run, pm, pp, t->limit);
}

static void eval_abs_error(const struct target *t, const struct run_set *rs, const struct metrics *pred,
			   const bool *held_out, struct target_outcome *o)
{
	bool any_held = false, train = t->kind == TARGET_TRAIN_MEDIAN_ABS_ERROR;
	double *e = xcalloc((size_t)(rs->n > 0 ? rs->n : 1), sizeof(double));
	int n = 0;

	for (int i = 0; held_out && i < rs->n; i++)
		any_held |= held_out[i];
	for (int i = 0; i < rs->n; i++) {
		if (any_held && held_out[i] == train)
			continue;
		double err = calib_error_pct(rs->runs[i].v[t->metric], pred[i].v[t->metric]);
		if (isfinite(rs->runs[i].v[t->metric]))
			e[n++] = isfinite(err) ? fabs(err) : INFINITY;
	}
	o->n = n;
	o->measured = NAN;
	if (n > 0) {
		gsl_sort(e, 1, (size_t)n);
		o->predicted = t->kind == TARGET_MAX_ABS_ERROR ? e[n - 1]
							       : gsl_stats_median_from_sorted_data(e, 1, (size_t)n);
	} else {
		o->predicted = NAN;
	}
	o->met = n > 0 && o->predicted <= t->limit;
	char num[32];
	if (n > 0)
		snprintf(num, sizeof(num), "%.1f%%", o->predicted);
	else
		snprintf(num, sizeof(num), "no measured value");
	snprintf(o->text, sizeof(o->text), "%s |error| of %s over %d %s run%s: %s (limit %g%%)",
		 t->kind == TARGET_MAX_ABS_ERROR ? "max" : "median", metric_table[t->metric].name, n,
		 !any_held ? "predicted" : train ? "fitted (in-sample)" : "held-out", n == 1 ? "" : "s", num, t->limit);
	free(e);
}

static void eval_bottleneck(const struct target *t, const struct metrics *pred, int ir,
			    struct target_outcome *o)
{
	const struct metrics *m = &pred[ir];
	o->n = 1;
	o->measured = o->predicted = NAN;
	o->met = m->bottleneck == t->expect;
	snprintf(o->text, sizeof(o->text), "bottleneck of %s: expected %s, predicted %s (%s)", t->run,
		 bottleneck_kind_name(t->expect), bottleneck_kind_name(m->bottleneck),
		 m->bottleneck_text[0] ? m->bottleneck_text : "no detail");
}

/* The share of runs whose busier CPU the prediction gets right, over the
 * runs that record both CPUs' busy shares. */
static void eval_busier_cpu(const struct target *t, const struct run_set *rs, const struct metrics *pred,
			    struct target_outcome *o)
{
	int known = 0, right = 0;
	for (int i = 0; i < rs->n; i++) {
		const char *mb = metrics_busier_role(rs->runs[i].v), *pb = metrics_busier_role(pred[i].v);
		if (!mb || !pb)
			continue;
		known++;
		right += strcmp(mb, pb) == 0;
	}
	o->n = known;
	o->measured = NAN;
	o->predicted = known > 0 ? 100.0 * right / known : NAN;
	o->met = known > 0 && o->predicted >= t->limit;
	if (known > 0)
		snprintf(o->text, sizeof(o->text), "the busier CPU (sender's or receiver's) predicted right in %d of %d "
			 "runs: %.1f%% (at least %g%%)", right, known, o->predicted, t->limit);
	else
		snprintf(o->text, sizeof(o->text), "the busier CPU: no run records both CPUs' busy shares (at least %g%%)",
			 t->limit);
}

int targets_eval(const struct target_set *ts, const struct run_set *rs, const struct metrics *pred,
		 const bool *held_out, struct target_outcome *out, struct tcpsim_err *err)
{
	for (int k = 0; k < ts->n; k++) {
		const struct target *t = &ts->t[k];
		int ir = -1, ib = -1;
		memset(&out[k], 0, sizeof(out[k]));
		if (t->run && (ir = find_run(rs, t->run)) < 0)
			return err_set(err, TCPSIM_EUSAGE, "%s:%d: column 'run': no run '%s' among the recorded runs",
				       ts->file, t->line, t->run);
		if (t->base && (ib = find_run(rs, t->base)) < 0)
			return err_set(err, TCPSIM_EUSAGE, "%s:%d: column 'base': no run '%s' among the recorded runs",
				       ts->file, t->line, t->base);
		switch (t->kind) {
		case TARGET_CHANGE:
			eval_change(t, rs, pred, ir, ib, &out[k]);
			break;
		case TARGET_MEDIAN_ABS_ERROR:
		case TARGET_MAX_ABS_ERROR:
		case TARGET_TRAIN_MEDIAN_ABS_ERROR:
			eval_abs_error(t, rs, pred, held_out, &out[k]);
			break;
		case TARGET_BUSIER_CPU:
			eval_busier_cpu(t, rs, pred, &out[k]);
			break;
		case TARGET_BOTTLENECK:
			eval_bottleneck(t, pred, ir, &out[k]);
			break;
		}
	}
	return TCPSIM_OK;
}
