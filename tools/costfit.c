/*
 * costfit: what a CPU's cycles go to, measured -- a weighted linear fit of
 * each recorded run's busy cycles per second on the events the same run
 * counted (writes, bytes, frames, ACKs, context switches ...), so that a
 * machine's cost per event comes from its own counters, before and apart
 * from any simulation.
 *
 *   costfit RUNS.csv --ghz G [--cpus N] --y COL[,COL...]
 *           --x NAME=COL[*F][@section.key=V1,V2]...
 *           [--scenario PATH] [--where section.key=V1,V2]...
 *           [--unless section.key=V1,V2]...
 *
 * The response of a run is sum(--y columns) / 100 * G * 1e9 cycles per
 * second: the columns are busy percentages of one CPU each (snd_cpu_busy_pct,
 * rcv_cpu_busy_pct), or of the whole machine with --cpus N (cpu_send_pct of
 * an N-CPU host: percent of all N).  Each --x term is a column of events
 * per second, times F if given (throughput_mbps*122.07 is KB/s), and zero
 * in the runs whose overrides do not set section.key to one of V1,V2 when
 * @... is given (a cost that only some runs pay: software GSO segments with
 * offload.tso=off).  Any column of the file may be used, measured-only ones
 * included (runs.h), so the file is read here with csvread, not runs_load.
 *
 * Rows: those whose scenario column equals --scenario (if given), that
 * match every --where and none of the --unless (runs-filter's rules), and
 * have every column the fit uses.  The fit minimises the relative error of
 * each row (weights 1/y^2, GSL's gsl_multifit_wlinear), so a run at 5% busy
 * counts as much as one at 100%.  Printed: each term's cycles per event with
 * a 95% interval (the covariance scaled by the reduced chi-square, since the
 * weights are relative, not measured variances), the median and largest
 * |error| over the rows, and each row's measured and fitted cycles.
 *
 * A term no row exercises, or two that always move together, make the fit
 * singular: GSL then drops directions (the effective rank is printed) and
 * the intervals of those terms are wide; say fewer terms.
 *
 * Exit status: 0 done, 1 fewer rows than terms, 2 bad input or usage.
 */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvread.h"
#include "runs.h"
#include "toolopt.h"
#include "util.h"

#define PROG "costfit"
#define MAX_TERMS 24
#define MAX_COND 16
#define MAX_Y 4

static const char usage_text[] =
	"usage: " PROG " RUNS.csv --ghz G [--cpus N] --y COL[,COL...]\n"
	"               --x NAME=COL[*F][@section.key=V1,V2]... [--scenario PATH]\n"
	"               [--where section.key=V1,V2]... [--unless section.key=V1,V2]...\n";

struct cond {
	char *key;    /* section.key */
	char *values; /* V1,V2 */
};

struct term {
	char *name;
	char *col;
	double factor;
	struct cond only; /* key == NULL: every row */
	int idx;          /* column index */
};

struct row {
	char *id;
	double y;
	double x[MAX_TERMS];
};

struct fit {
	const char *path;
	double ghz;
	int cpus;
	char *ycol[MAX_Y];
	int ny, yidx[MAX_Y];
	struct term t[MAX_TERMS];
	int nt;
	const char *scenario;
	struct cond where[MAX_COND], unless[MAX_COND];
	int nwhere, nunless;
	int idx_id, idx_scenario, idx_overrides;
	struct row *rows;
	int nrows, cap, skipped;
};

static int parse_cond(char *arg, struct cond *c)
{
	char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		return -1;
	*eq = '\0';
	c->key = arg;
	c->values = eq + 1;
	return 0;
}

/* NAME=COL[*F][@section.key=V1,V2] */
static int parse_term(char *arg, struct term *t)
{
	char *eq = strchr(arg, '='), *at, *star;
	if (!eq || eq == arg || !eq[1])
		return -1;
	*eq = '\0';
	t->name = arg;
	t->col = eq + 1;
	t->factor = 1;
	t->only.key = NULL;
	at = strchr(t->col, '@');
	if (at) {
		*at = '\0';
		if (parse_cond(at + 1, &t->only))
			return -1;
	}
	star = strchr(t->col, '*');
	if (star) {
		char *end;
		*star = '\0';
		t->factor = strtod(star + 1, &end);
		if (end == star + 1 || *end || !isfinite(t->factor))
			return -1;
	}
	return *t->col ? 0 : -1;
}

static int find_col(const struct csvread_rec *rec, const char *name)
{
	for (int i = 0; i < rec->n; i++)
		if (strcmp(rec->field[i], name) == 0)
			return i;
	return -1;
}

static int number(const char *s, double *v)
{
	char *end;
	if (!*s)
		return -1;
	*v = strtod(s, &end);
	return (*end || !isfinite(*v)) ? -1 : 0;
}

/* The row's response and terms into r; 0 (counted as left out) when a
 * value is missing or the busy share is zero. */
static int row_values(struct fit *f, const struct csvread_rec *rec, const struct run_override *ov, int nov,
		      struct row *r)
{
	r->y = 0;
	for (int i = 0; i < f->ny; i++) {
		double v;
		if (f->yidx[i] >= rec->n || number(rec->field[f->yidx[i]], &v)) {
			f->skipped++;
			return 0;
		}
		r->y += v;
	}
	r->y = r->y / 100.0 * f->ghz * 1e9 * (f->cpus > 0 ? f->cpus : 1);
	for (int i = 0; i < f->nt; i++) {
		double v;
		if (f->t[i].idx >= rec->n || number(rec->field[f->t[i].idx], &v)) {
			f->skipped++;
			return 0;
		}
		if (f->t[i].only.key && !runs_overrides_set(ov, nov, f->t[i].only.key, f->t[i].only.values))
			v = 0;
		r->x[i] = v * f->t[i].factor;
	}
	if (!(r->y > 0)) {
		f->skipped++;
		return 0;
	}
	return 1;
}

static int on_record(void *ctx, struct csvread_rec *rec, struct tcpsim_err *err)
{
	struct fit *f = ctx;
	struct row r;
	struct run_override *ov;
	int nov, keep = 1;
	char where[512];

	if (rec->line == 1 || f->idx_id < 0) { /* the header */
		f->idx_id = find_col(rec, "id");
		f->idx_scenario = find_col(rec, "scenario");
		f->idx_overrides = find_col(rec, "overrides");
		if (f->idx_id < 0 || f->idx_scenario < 0 || f->idx_overrides < 0)
			return err_set(err, TCPSIM_EUSAGE, "%s:%d: not a recorded-runs file (needs id, scenario and overrides columns)",
				       f->path, rec->line);
		for (int i = 0; i < f->ny; i++)
			if ((f->yidx[i] = find_col(rec, f->ycol[i])) < 0)
				return err_set(err, TCPSIM_EUSAGE, "%s:%d: --y: no column '%s'", f->path, rec->line, f->ycol[i]);
		for (int i = 0; i < f->nt; i++)
			if ((f->t[i].idx = find_col(rec, f->t[i].col)) < 0)
				return err_set(err, TCPSIM_EUSAGE, "%s:%d: --x %s: no column '%s'", f->path, rec->line,
					       f->t[i].name, f->t[i].col);
		return TCPSIM_OK;
	}
	if (rec->n <= f->idx_id || rec->n <= f->idx_scenario || rec->n <= f->idx_overrides)
		return err_set(err, TCPSIM_EUSAGE, "%s:%d: row has %d fields, fewer than the header's", f->path, rec->line,
			       rec->n);
	if (f->scenario && strcmp(rec->field[f->idx_scenario], f->scenario) != 0)
		return TCPSIM_OK;
	snprintf(where, sizeof(where), "%s:%d: column 'overrides'", f->path, rec->line);
	if (runs_overrides_split(rec->field[f->idx_overrides], where, &ov, &nov, err))
		return err->code;
	for (int i = 0; i < f->nwhere && keep; i++)
		keep = runs_overrides_set(ov, nov, f->where[i].key, f->where[i].values);
	for (int i = 0; i < f->nunless && keep; i++)
		keep = !runs_overrides_set(ov, nov, f->unless[i].key, f->unless[i].values);
	if (keep)
		keep = row_values(f, rec, ov, nov, &r);
	runs_overrides_free(ov, nov);
	if (!keep)
		return TCPSIM_OK;
	if (f->nrows == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->rows = xrealloc(f->rows, (size_t)f->cap * sizeof(*f->rows));
	}
	r.id = xstrdup(rec->field[f->idx_id]);
	f->rows[f->nrows++] = r;
	return TCPSIM_OK;
}

static int fit_and_print(struct fit *f)
{
	int n = f->nrows, p = f->nt;
	gsl_matrix *X = gsl_matrix_alloc((size_t)n, (size_t)p), *cov = gsl_matrix_alloc((size_t)p, (size_t)p);
	gsl_vector *y = gsl_vector_alloc((size_t)n), *w = gsl_vector_alloc((size_t)n), *c = gsl_vector_alloc((size_t)p);
	gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc((size_t)n, (size_t)p);
	double chisq, *err = xmalloc((size_t)n * sizeof(double)), q;
	size_t rank;

	for (int i = 0; i < n; i++) {
		for (int j = 0; j < p; j++)
			gsl_matrix_set(X, (size_t)i, (size_t)j, f->rows[i].x[j]);
		gsl_vector_set(y, (size_t)i, f->rows[i].y);
		gsl_vector_set(w, (size_t)i, 1.0 / (f->rows[i].y * f->rows[i].y));
	}
	gsl_multifit_wlinear_tsvd(X, w, y, 1e-12, c, cov, &chisq, &rank, ws);
	q = n > p ? gsl_cdf_tdist_Pinv(0.975, (double)(n - p)) * sqrt(chisq / (double)(n - p)) : NAN;

	printf("costfit: %d rows of %s (%d left out: a value missing or zero busy), %d terms, effective rank %zu\n", n,
	       f->path, f->skipped, p, rank);
	printf("response: cycles/s = (");
	for (int i = 0; i < f->ny; i++)
		printf("%s%s", i ? " + " : "", f->ycol[i]);
	printf(") / 100 x %g GHz%s\n\n", f->ghz, f->cpus > 0 ? " x cpus" : "");
	printf("%-12s %-34s %12s  %s\n", "term", "events per second", "cycles", "95% interval");
	for (int j = 0; j < p; j++) {
		double cj = gsl_vector_get(c, (size_t)j), h = q * sqrt(gsl_matrix_get(cov, (size_t)j, (size_t)j));
		char what[160];
		int len = snprintf(what, sizeof(what), "%s", f->t[j].col);
		if (f->t[j].factor != 1 && len < (int)sizeof(what))
			len += snprintf(what + len, sizeof(what) - (size_t)len, " x %g", f->t[j].factor);
		if (f->t[j].only.key && len < (int)sizeof(what))
			snprintf(what + len, sizeof(what) - (size_t)len, " if %s=%s", f->t[j].only.key, f->t[j].only.values);
		printf("%-12s %-34s %12.1f  [%.1f, %.1f]\n", f->t[j].name, what, cj, cj - h, cj + h);
	}
	printf("\n%-60s %14s %14s %8s\n", "run", "measured", "fitted", "error%");
	for (int i = 0; i < n; i++) {
		double pred = 0;
		for (int j = 0; j < p; j++)
			pred += gsl_vector_get(c, (size_t)j) * f->rows[i].x[j];
		err[i] = pred / f->rows[i].y - 1;
		printf("%-60s %14.4g %14.4g %+7.1f%%\n", f->rows[i].id, f->rows[i].y, pred, 100 * err[i]);
		err[i] = fabs(err[i]);
	}
	gsl_sort(err, 1, (size_t)n);
	printf("\n|error| over %d rows: median %.1f%%, max %.1f%%\n", n, 100 * gsl_stats_median_from_sorted_data(err, 1, (size_t)n),
	       100 * err[n - 1]);
	free(err);
	gsl_multifit_linear_free(ws);
	gsl_matrix_free(X);
	gsl_matrix_free(cov);
	gsl_vector_free(y);
	gsl_vector_free(w);
	gsl_vector_free(c);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"ghz", required_argument, NULL, 'g'},	 {"cpus", required_argument, NULL, 'n'},
		{"y", required_argument, NULL, 'y'},	 {"x", required_argument, NULL, 'x'},
		{"scenario", required_argument, NULL, 's'}, {"where", required_argument, NULL, 'w'},
		{"unless", required_argument, NULL, 'u'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct fit f = {.idx_id = -1};
	struct tcpsim_err e = {0};
	int o, rc;

	gsl_set_error_handler_off();
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		char *end;
		switch (o) {
		case 'g':
			f.ghz = strtod(optarg, &end);
			if (*end || !(f.ghz > 0 && f.ghz < 100))
				return tool_usage(PROG, usage_text, "--ghz takes the CPU clock in GHz (0 < G < 100)");
			break;
		case 'n':
			f.cpus = (int)strtol(optarg, &end, 10);
			if (*end || f.cpus < 1 || f.cpus > 4096)
				return tool_usage(PROG, usage_text, "--cpus takes 1..4096");
			break;
		case 'y':
			for (char *tok = strtok(optarg, ","); tok; tok = strtok(NULL, ",")) {
				if (f.ny == MAX_Y)
					return tool_usage(PROG, usage_text, "--y: at most 4 columns");
				f.ycol[f.ny++] = tok;
			}
			break;
		case 'x':
			if (f.nt == MAX_TERMS)
				return tool_usage(PROG, usage_text, "at most 24 --x terms");
			if (parse_term(optarg, &f.t[f.nt]))
				return tool_usage(PROG, usage_text, "--x takes NAME=COLUMN[*FACTOR][@section.key=V1,V2]");
			f.nt++;
			break;
		case 's':
			f.scenario = optarg;
			break;
		case 'w':
		case 'u':
			if ((o == 'w' ? f.nwhere : f.nunless) == MAX_COND)
				return tool_usage(PROG, usage_text, "at most 16 --where and 16 --unless");
			if (parse_cond(optarg, o == 'w' ? &f.where[f.nwhere++] : &f.unless[f.nunless++]))
				return tool_usage(PROG, usage_text, "--where/--unless take section.key=V1,V2");
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return tool_bad_option(PROG, usage_text, argv);
		}
	}
	if (optind != argc - 1)
		return tool_usage(PROG, usage_text, "one recorded-runs file");
	if (!(f.ghz > 0) || f.ny == 0 || f.nt == 0)
		return tool_usage(PROG, usage_text, "--ghz, --y and at least one --x are needed");
	f.path = argv[optind];
	if (csvread_file(f.path, "recorded runs", on_record, &f, &e)) {
		fprintf(stderr, PROG ": %s\n", e.msg);
		rc = 2;
	} else if (f.nrows <= f.nt) {
		fprintf(stderr, PROG ": %d rows of %s match, need more than the %d terms\n", f.nrows, f.path, f.nt);
		rc = 1;
	} else {
		rc = fit_and_print(&f);
	}
	for (int i = 0; i < f.nrows; i++)
		free(f.rows[i].id);
	free(f.rows);
	return rc;
}
