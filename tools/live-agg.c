/*
 * live-agg: a repetitions file (tools/live-row) -> recorded runs
 * (model/study/runs.h), one per point: the median of each metric over the
 * point's undisturbed repetitions and its coefficient of variation as the
 * <metric>_cv spread column.
 *
 *   live-agg REPS.csv -o OUT.csv --source TEXT [--note TEXT]
 *   live-agg REPS.csv --need-more [--min-reps N] [--max-reps N] [--cv-max F]
 *            [--max-attempts N]
 *
 * --need-more prints the points that need another repetition, one a line:
 * fewer than --min-reps good ones (3), or fewer than --max-reps (6) while
 * the throughput's CV is above --cv-max (0.05) -- unless the point has used
 * --max-attempts (3 * max-reps) attempts, disturbed ones included.
 *
 * Statistics: the median over the good repetitions (GSL's
 * gsl_stats_median_from_sorted_data) and CV = sample standard deviation /
 * mean (gsl_stats_sd, gsl_stats_mean); no CV from fewer than 2 values.  A
 * point without a good repetition is left out of OUT.csv and named on
 * stderr.  Rows of one point must agree on scenario and overrides.
 *
 * Measured-only columns of the repetitions file (runs.h,
 * runs_column_measured_only: the per-CPU snd_cpu_* / rcv_cpu_* figures,
 * pace_kicks_per_s, writes_per_s, tcpext_*_per_s) are carried into OUT.csv
 * the same way, median and <name>_cv, at the end of each row; tcpsim
 * reads such a file and skips them until a metric of that name exists.
 *
 * Each recorded run's note says what the figures are: the number of
 * repetitions and redone ones, that the kernel counters are system-wide,
 * that CPU is the whole machine's (/proc/stat) with iperf3's own process
 * accounting beside it, the congestion control, and retransmissions.
 *
 * Exit status: 0 done, 1 cannot write, 2 bad input or usage.
 */
#include <csv.h>
#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csvread.h"
#include "err.h"
#include "metrics.h"
#include "outfile.h"
#include "procstat.h"
#include "runs.h"
#include "util.h"

#include "toolopt.h"

#define PROG "live-agg"

static const char usage_text[] =
	"usage: " PROG " REPS.csv -o OUT.csv --source TEXT [--note TEXT]\n"
	"       " PROG " REPS.csv --need-more [--min-reps N] [--max-reps N] [--cv-max F]\n"
	"              [--max-attempts N]\n";

/* Columns read besides the metrics. */
enum { K_POINT, K_SCENARIO, K_OVERRIDES, K_STATUS, K_CC, K_IPERF3_SEND, K_IPERF3_RECV,
       K_RETRANS, K_OTHER, K_DEV, K_N };
static const char *const key_col[K_N] = {
	"point", "scenario", "overrides", "status", "cc_sender", "iperf3_send_cpu_pct",
	"iperf3_recv_cpu_pct", "retrans_per_s", "other_cpu_pct", "dev_packets_per_s",
};

#define MAX_EXTRA 64

struct rep_row {
	char *key[K_N];
	double m[METRIC_N];
	double x[MAX_EXTRA];   /* the measured-only columns, in header order */
	int line;
};

struct reader {
	const char *path;
	struct tcpsim_err *err;
	int rec_line;
	char **f;               /* the record being read (csvread's, borrowed) */
	int nf;
	int ncols, colkey[256], colmetric[256], colextra[256];
	int nextra;
	char *extra_name[MAX_EXTRA];
	struct rep_row *rows;
	int nrows, caprows;
};

static int parse_value(const char *s, double *out)
{
	if (!*s) {
		*out = NAN;
		return 1;
	}
	return parse_finite(s, out);
}

static int on_record(void *ctx, struct csvread_rec *rec, struct tcpsim_err *err)
{
	struct reader *r = ctx;
	r->f = rec->field;
	r->nf = rec->n;
	r->rec_line = rec->line;
	if (r->err->code)
		goto done;
	if (!r->ncols) {
		if (r->nf > 256) {
			err_set(r->err, TCPSIM_EUSAGE, "%s:%d: more than 256 columns", r->path, r->rec_line);
			goto done;
		}
		r->ncols = r->nf;
		for (int i = 0; i < r->nf; i++) {
			r->colkey[i] = -1;
			for (int k = 0; k < K_N; k++)
				if (strcmp(r->f[i], key_col[k]) == 0)
					r->colkey[i] = k;
			r->colmetric[i] = metric_find(r->f[i]);
			r->colextra[i] = -1;
			if (r->colmetric[i] < 0 && runs_column_measured_only(r->f[i])) {
				if (r->nextra == MAX_EXTRA) {
					err_set(r->err, TCPSIM_EUSAGE, "%s:%d: more than %d measured-only columns",
						r->path, r->rec_line, MAX_EXTRA);
					goto done;
				}
				r->extra_name[r->nextra] = xstrdup(r->f[i]);
				r->colextra[i] = r->nextra++;
			}
		}
		for (int k = 0; k < K_N; k++) {
			int found = 0;
			for (int i = 0; i < r->nf; i++)
				found |= r->colkey[i] == k;
			if (!found) {
				err_set(r->err, TCPSIM_EUSAGE, "%s:%d: no column '%s' (not a live-row file?)",
					r->path, r->rec_line, key_col[k]);
				goto done;
			}
		}
		goto done;
	}
	if (r->nf != r->ncols) {
		err_set(r->err, TCPSIM_EUSAGE, "%s:%d: %d fields, the header has %d", r->path,
			r->rec_line, r->nf, r->ncols);
		goto done;
	}
	if (r->nrows == r->caprows) {
		r->caprows = r->caprows ? 2 * r->caprows : 64;
		r->rows = xrealloc(r->rows, (size_t)r->caprows * sizeof(r->rows[0]));
	}
	struct rep_row *row = &r->rows[r->nrows++];
	memset(row, 0, sizeof(*row));
	row->line = r->rec_line;
	for (int i = 0; i < METRIC_N; i++)
		row->m[i] = NAN;
	for (int i = 0; i < MAX_EXTRA; i++)
		row->x[i] = NAN;
	for (int i = 0; i < r->nf; i++) {
		if (r->colextra[i] >= 0 && !parse_value(r->f[i], &row->x[r->colextra[i]])) {
			err_set(r->err, TCPSIM_EUSAGE, "%s:%d: column '%s': '%s' is not a number", r->path,
				r->rec_line, r->extra_name[r->colextra[i]], r->f[i]);
			goto done;
		}
		if (r->colkey[i] >= 0)
			row->key[r->colkey[i]] = xstrdup(r->f[i]);
		if (r->colmetric[i] >= 0 && !parse_value(r->f[i], &row->m[r->colmetric[i]])) {
			err_set(r->err, TCPSIM_EUSAGE, "%s:%d: column '%s': '%s' is not a number", r->path,
				r->rec_line, metric_table[r->colmetric[i]].name, r->f[i]);
			goto done;
		}
	}
	if (!row->key[K_POINT][0])
		err_set(r->err, TCPSIM_EUSAGE, "%s:%d: column 'point' is empty", r->path, r->rec_line);
	else if (strcmp(row->key[K_STATUS], "ok") != 0 && strcmp(row->key[K_STATUS], "disturbed") != 0)
		err_set(r->err, TCPSIM_EUSAGE, "%s:%d: column 'status': '%s' is neither ok nor disturbed",
			r->path, r->rec_line, row->key[K_STATUS]);
done:
	r->f = NULL;
	r->nf = 0;
	return err->code;
}

static int read_reps(struct reader *r, const char *path, struct tcpsim_err *err)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	r->err = err;
	csvread_file(path, "repetitions", on_record, r, err);
	if (!err->code && !r->ncols)
		err_set(err, TCPSIM_EUSAGE, "%s: empty file", path);
	return err->code;
}

static void free_reps(struct reader *r)
{
	for (int i = 0; i < r->nrows; i++)
		for (int k = 0; k < K_N; k++)
			free(r->rows[i].key[k]);
	free(r->rows);
	for (int i = 0; i < r->nextra; i++)
		free(r->extra_name[i]);
}

/* Median and CV of the finite values in v[0..n) (sorted in place). */
static void stats(double *v, int n, double *median, double *cv)
{
	int m = 0;
	for (int i = 0; i < n; i++)
		if (!isnan(v[i]))
			v[m++] = v[i];
	*median = *cv = NAN;
	if (m == 0)
		return;
	gsl_sort(v, 1, (size_t)m);
	*median = gsl_stats_median_from_sorted_data(v, 1, (size_t)m);
	double mean = gsl_stats_mean(v, 1, (size_t)m);
	if (m >= 2 && mean > 0)
		*cv = gsl_stats_sd_m(v, 1, (size_t)m, mean) / mean;
}

struct point {
	const char *id;
	int first;     /* row index of its first repetition */
	int good, bad;
};

/* The points in order of first appearance. */
static struct point *collect(const struct reader *r, int *np, struct tcpsim_err *err)
{
	struct point *pt = xcalloc((size_t)r->nrows + 1, sizeof(*pt));
	int n = 0;
	for (int i = 0; i < r->nrows; i++) {
		const struct rep_row *row = &r->rows[i];
		int j;
		for (j = 0; j < n; j++)
			if (strcmp(pt[j].id, row->key[K_POINT]) == 0)
				break;
		if (j == n) {
			pt[n].id = row->key[K_POINT];
			pt[n].first = i;
			n++;
		} else {
			const struct rep_row *f = &r->rows[pt[j].first];
			for (int k = K_SCENARIO; k <= K_OVERRIDES; k++)
				if (strcmp(f->key[k], row->key[k]) != 0) {
					err_set(err, TCPSIM_EUSAGE,
						"%s:%d: point '%s': %s '%s' differs from line %d's '%s'", r->path,
						row->line, pt[j].id, key_col[k], row->key[k], f->line, f->key[k]);
					free(pt);
					return NULL;
				}
		}
		if (strcmp(row->key[K_STATUS], "ok") == 0)
			pt[j].good++;
		else
			pt[j].bad++;
	}
	*np = n;
	return pt;
}

/* Values of metric column m (or key column k when m < 0, or measured-only column
 * x when k < 0 too) over the good rows of a point. */
static int gather_x(const struct reader *r, const char *id, int m, int k, int xi, double *v)
{
	int n = 0;
	for (int i = 0; i < r->nrows; i++) {
		const struct rep_row *row = &r->rows[i];
		if (strcmp(row->key[K_POINT], id) != 0 || strcmp(row->key[K_STATUS], "ok") != 0)
			continue;
		double x = NAN;
		if (m >= 0)
			x = row->m[m];
		else if (k < 0)
			x = row->x[xi];
		else if (!parse_value(row->key[k], &x))
			x = NAN;
		v[n++] = x;
	}
	return n;
}

static int gather(const struct reader *r, const char *id, int m, int k, double *v)
{
	return gather_x(r, id, m, k, -1, v);
}

/*
 * Add the measured-only columns to the file runs_write made: per row (in
 * the order of the set, one line each: live-agg's cells hold no line break)
 * the median and the CV of each, as `med`/`cv` give them (nx per run).
 */
static int add_extra_columns(const char *path, const struct reader *r, const double *med,
			     const double *cv, int nruns, struct tcpsim_err *err)
{
	int nx = r->nextra;
	char *text = procstat_read_file(path, err);
	if (!text)
		return err->code;
	struct outfile o;
	if (outfile_open(&o, path, "recorded runs", err)) {
		free(text);
		return err->code;
	}
	FILE *f = o.f;
	int line = 0;
	for (char *p = text, *nl; *p; p = nl + 1, line++) {
		nl = strchr(p, '\n');
		if (!nl || line > nruns)
			break;
		fwrite(p, 1, (size_t)(nl - p), f);
		for (int pass = 0; pass < 2; pass++)
			for (int i = 0; i < nx; i++) {
				char cell[160];
				double v = line == 0 ? 0 : (pass ? cv : med)[(line - 1) * nx + i];
				if (line == 0)
					snprintf(cell, sizeof(cell), "%s%s", r->extra_name[i], pass ? "_cv" : "");
				else if (isnan(v))
					cell[0] = '\0';
				else
					snprintf(cell, sizeof(cell), "%.6g", v);
				fputc(',', f);
				csv_fwrite(f, cell, strlen(cell));
			}
		fputc('\n', f);
	}
	free(text);
	if (line != nruns + 1) {
		outfile_abort(&o);
		return err_set(err, TCPSIM_EIO, "cannot add the per-CPU columns to '%s' (its rows are not one a line)",
			       path);
	}
	return outfile_commit(&o, err);
}

struct opts {
	const char *out, *source, *note;
	int need_more, min_reps, max_reps, max_attempts;
	double cv_max;
};

static int aggregate(const struct reader *r, const struct opts *o, struct tcpsim_err *err)
{
	int np = 0;
	struct point *pt = collect(r, &np, err);
	if (!pt)
		return err->code;
	double *v = xcalloc((size_t)r->nrows + 1, sizeof(double));
	int nx = r->nextra;
	double *x_med = xcalloc((size_t)(np * nx) + 1, sizeof(double));
	double *x_cv = xcalloc((size_t)(np * nx) + 1, sizeof(double));
	struct run_set rs;
	runs_init(&rs);
	int rc = TCPSIM_OK;
	for (int p = 0; p < np && !rc; p++) {
		const struct rep_row *f = &r->rows[pt[p].first];
		double med, cv;
		if (o->need_more) {
			gather(r, pt[p].id, METRIC_THROUGHPUT_MBPS, -1, v);
			stats(v, pt[p].good, &med, &cv);
			int attempts = pt[p].good + pt[p].bad;
			int wide = !isnan(cv) && cv > o->cv_max;
			if (attempts < o->max_attempts &&
			    (pt[p].good < o->min_reps || (wide && pt[p].good < o->max_reps)))
				printf("%s\n", pt[p].id);
			continue;
		}
		if (pt[p].good == 0) {
			fprintf(stderr, PROG ": point '%s': no undisturbed repetition (%d disturbed); left out\n",
				pt[p].id, pt[p].bad);
			continue;
		}
		double k_med[K_N];
		for (int k = K_IPERF3_SEND; k < K_N; k++) {
			gather(r, pt[p].id, -1, k, v);
			stats(v, pt[p].good, &k_med[k], &cv);
		}
		char note[1024], dev[96] = "";
		if (!isnan(k_med[K_DEV]))
			snprintf(dev, sizeof(dev), "; device packets %.6g/s (after GSO, before GRO)",
				 k_med[K_DEV]);
		snprintf(note, sizeof(note),
			 "median of %d runs (%d disturbed runs redone, median other-CPU %.2g%%); "
			 "softirqs/interrupts/cs/in/pgalloc/pgfree are SYSTEM-WIDE /proc deltas; "
			 "cpu_* = whole-machine busy from /proc/stat (as netperf -c on loopback); "
			 "iperf3's own process accounting (getrusage, %% of one CPU over its test): "
			 "sender %.3g%%, receiver %.3g%%; segs/frames/acks from the test namespaces' "
			 "SNMP counters; cc %s; retrans %.3g/s%s%s%s",
			 pt[p].good, pt[p].bad, k_med[K_OTHER], k_med[K_IPERF3_SEND], k_med[K_IPERF3_RECV],
			 f->key[K_CC][0] ? f->key[K_CC] : "?", k_med[K_RETRANS], dev, o->note ? "; " : "",
			 o->note ? o->note : "");
		struct recorded_run *run = runs_add(&rs, pt[p].id, o->source, f->key[K_SCENARIO],
						    f->key[K_OVERRIDES], note, err);
		if (!run) {
			rc = err->code;
			break;
		}
		for (int m = 0; m < METRIC_N; m++) {
			gather(r, pt[p].id, m, -1, v);
			stats(v, pt[p].good, &run->v[m], &run->cv[m]);
		}
		for (int i = 0; i < nx; i++) {
			gather_x(r, pt[p].id, -1, -1, i, v);
			stats(v, pt[p].good, &x_med[(rs.n - 1) * nx + i], &x_cv[(rs.n - 1) * nx + i]);
		}
	}
	if (!rc && !o->need_more)
		rc = runs_write(&rs, o->out, err);
	if (!rc && !o->need_more && nx > 0)
		rc = add_extra_columns(o->out, r, x_med, x_cv, rs.n, err);
	runs_free(&rs);
	free(x_med);
	free(x_cv);
	free(v);
	free(pt);
	return rc;
}

static int usage(const char *msg)
{
	return tool_usage(PROG, usage_text, msg);
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	long x;
	if (!parse_long_in(s, lo, hi, &x))
		return 0;
	*out = (int)x;
	return 1;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"output", required_argument, NULL, 'o'}, {"source", required_argument, NULL, 's'},
		{"note", required_argument, NULL, 'n'}, {"need-more", no_argument, NULL, 'N'},
		{"min-reps", required_argument, NULL, 'm'}, {"max-reps", required_argument, NULL, 'M'},
		{"max-attempts", required_argument, NULL, 'A'}, {"cv-max", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	struct opts o = {.min_reps = 3, .max_reps = 6, .max_attempts = 0, .cv_max = 0.05};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'o': o.out = optarg; break;
		case 's': o.source = optarg; break;
		case 'n': o.note = optarg; break;
		case 'N': o.need_more = 1; break;
		case 'm':
			if (!parse_int(optarg, 1, 1000, &o.min_reps))
				return usage("--min-reps takes 1..1000");
			break;
		case 'M':
			if (!parse_int(optarg, 1, 1000, &o.max_reps))
				return usage("--max-reps takes 1..1000");
			break;
		case 'A':
			if (!parse_int(optarg, 1, 100000, &o.max_attempts))
				return usage("--max-attempts takes 1..100000");
			break;
		case 'c': {
			char *end;
			o.cv_max = strtod(optarg, &end);
			if (end == optarg || *end || !(o.cv_max > 0 && o.cv_max < 10))
				return usage("--cv-max takes a fraction (e.g. 0.05)");
			break;
		}
		case 'h': fputs(usage_text, stdout); return 0;
		default:
			return tool_bad_option(PROG, usage_text, argv);
		}
	}
	if (optind != argc - 1)
		return usage(optind < argc ? "exactly one REPS.csv" : "missing REPS.csv");
	if (!o.need_more && (!o.out || !o.source))
		return usage("-o OUT.csv and --source are required (or --need-more)");
	if (o.max_reps < o.min_reps)
		return usage("--max-reps is below --min-reps");
	if (!o.max_attempts)
		o.max_attempts = 3 * o.max_reps;
	struct tcpsim_err err;
	err_clear(&err);
	struct reader r;
	int rc = read_reps(&r, argv[optind], &err);
	if (!rc)
		rc = aggregate(&r, &o, &err);
	free_reps(&r);
	if (rc) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return rc == TCPSIM_EUSAGE ? 2 : 1;
	}
	return 0;
}
