/*
 * live-diff: the same live matrix measured in two sessions, point by point.
 *
 *   live-diff A.csv B.csv [--metrics M1,M2,...] [--where section.key=V1,V2]...
 *
 * A and B are recorded-run CSVs of tools/measure-live (the points' medians
 * and _cv spreads; live-agg).  A point of A is matched with the point of B
 * that has the same id once each file's machine name is taken off (the
 * name is the scenario's file name up to its last '-': "amd-epyc-2cpu-2096"
 * of scenarios/live/amd-epyc-2cpu-2096-lo.cfg), so a machine measured again
 * under another name still matches itself.  Per matched point and metric
 * (default throughput_mbps, cpu_send_pct, cs_per_s, cal_ipis_per_s,
 * netrx_softirqs_per_s, frames_per_s, acks_per_s; docs/output.md names
 * them all) it prints A, B and B's change from A; "moved" marks a change
 * larger than twice the wider of the two spreads (the point's CV in either
 * session).  The summary gives per metric the points compared, the median
 * and largest |change|, and how many moved.  --where keeps the points whose
 * overrides set the key to one of the values (as runs-filter).  Reading
 * goes through model/study/runs.c (libcsv); nothing is written.
 *
 * Exit status: 0 done, 1 no point in common, 2 usage or bad input.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "metrics.h"
#include "runs.h"
#include "toolopt.h"
#include "util.h"

#define PROG "live-diff"
#define MAX_METRICS 16
#define MAX_WHERE 16

static const char usage_text[] = "usage: " PROG " A.csv B.csv [--metrics M1,M2,...] [--where section.key=V1,V2]...\n";

static const char *const default_metrics[] = {"throughput_mbps", "cpu_send_pct", "cs_per_s", "cal_ipis_per_s",
					      "netrx_softirqs_per_s", "frames_per_s", "acks_per_s"};

/* The id without the machine name its scenario's file name carries, or the
 * whole id where it does not start with that name. */
static const char *point_key(const struct recorded_run *r)
{
	const char *base = strrchr(r->scenario, '/');
	const char *dash;
	size_t n;

	base = base ? base + 1 : r->scenario;
	dash = strrchr(base, '-');
	if (!dash)
		return r->id;
	n = (size_t)(dash - base);
	return strncmp(r->id, base, n) == 0 && r->id[n] == '-' ? r->id + n + 1 : r->id;
}

static const struct recorded_run *find_point(const struct run_set *rs, const char *key)
{
	for (int i = 0; i < rs->n; i++)
		if (strcmp(point_key(&rs->runs[i]), key) == 0)
			return &rs->runs[i];
	return NULL;
}

/* A point's spread of one metric: its CV, 0 where none was given. */
static double spread(double cv)
{
	return isfinite(cv) ? fabs(cv) : 0;
}

int main(int argc, char **argv)
{
	const char *files[2] = {NULL, NULL};
	const char *wkey[MAX_WHERE], *wval[MAX_WHERE];
	char *metric_list = NULL;
	int metric[MAX_METRICS], nm = 0, nw = 0, rc = 0, matched = 0;
	double *chg[MAX_METRICS];
	int nchg[MAX_METRICS] = {0}, moved[MAX_METRICS] = {0};
	struct run_set set[2];
	struct tcpsim_err err = {0};

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--metrics") == 0 && i + 1 < argc) {
			metric_list = argv[++i];
		} else if (strcmp(argv[i], "--where") == 0 && i + 1 < argc) {
			char *eq = strchr(argv[++i], '=');
			if (nw == MAX_WHERE)
				return tool_usage(PROG, usage_text, "too many --where");
			if (!eq || eq == argv[i])
				return tool_usage(PROG, usage_text, "--where takes section.key=V1,V2");
			*eq = '\0';
			wkey[nw] = argv[i];
			wval[nw++] = eq + 1;
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			return tool_usage(PROG, usage_text, "unknown option or missing argument");
		} else if (!files[0]) {
			files[0] = argv[i];
		} else if (!files[1]) {
			files[1] = argv[i];
		} else {
			return tool_usage(PROG, usage_text, "two input files");
		}
	}
	if (!files[1])
		return tool_usage(PROG, usage_text, "two files to compare, A.csv and B.csv");
	if (metric_list) {
		for (char *m = strtok(metric_list, ","); m; m = strtok(NULL, ",")) {
			int k = metric_find(m);
			if (k < 0) {
				fprintf(stderr, PROG ": --metrics: no metric '%s' (docs/output.md names them)\n", m);
				return 2;
			}
			if (nm == MAX_METRICS)
				return tool_usage(PROG, usage_text, "--metrics: at most 16");
			metric[nm++] = k;
		}
		if (nm == 0)
			return tool_usage(PROG, usage_text, "--metrics: none given");
	} else {
		for (size_t j = 0; j < sizeof(default_metrics) / sizeof(default_metrics[0]); j++)
			metric[nm++] = metric_find(default_metrics[j]);
	}

	runs_init(&set[0]);
	runs_init(&set[1]);
	for (int f = 0; f < 2 && !rc; f++) {
		if (runs_load(&set[f], files[f], &err)) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			rc = 2;
		}
	}
	for (int j = 0; j < nm; j++)
		chg[j] = xcalloc((size_t)(set[0].n > 0 ? set[0].n : 1), sizeof(double));
	if (!rc) {
		printf("A: %s\nB: %s\n", files[0], files[1]);
		printf("change = B / A - 1; moved: |change| above twice the wider spread (the point's CV in A or B)\n");
		printf("%-44s %-22s %12s %12s %9s\n", "point", "metric", "A", "B", "change");
	}
	for (int i = 0; !rc && i < set[0].n; i++) {
		const struct recorded_run *a = &set[0].runs[i], *b;
		const char *key = point_key(a);
		int keep = 1;

		for (int w = 0; w < nw && keep; w++)
			keep = runs_overrides_set(a->ov, a->n_ov, wkey[w], wval[w]);
		if (!keep || !(b = find_point(&set[1], key)))
			continue;
		matched++;
		for (int j = 0; j < nm; j++) {
			int k = metric[j];
			double va = a->v[k], vb = b->v[k], c;

			if (!isfinite(va) || !isfinite(vb))
				continue;
			if (va == 0) {
				printf("%-44s %-22s %12.6g %12.6g %9s\n", key, metric_table[k].name, va, vb, vb == 0 ? "0" : "-");
				continue;
			}
			c = vb / va - 1;
			chg[j][nchg[j]++] = fabs(c);
			int mv = fabs(c) > 2 * fmax(spread(a->cv[k]), spread(b->cv[k]));
			moved[j] += mv;
			printf("%-44s %-22s %12.6g %12.6g %+8.1f%%%s\n", key, metric_table[k].name, va, vb, 100 * c,
			       mv ? " moved" : "");
		}
	}
	if (!rc && matched == 0) {
		fprintf(stderr, PROG ": no point of %s is in %s\n", files[0], files[1]);
		rc = 1;
	}
	if (!rc) {
		printf("\nSummary over the %d points in both: |change| per metric\n", matched);
		printf("%-22s %6s %12s %12s %8s\n", "metric", "n", "median", "max", "moved");
		for (int j = 0; j < nm; j++) {
			if (nchg[j] == 0) {
				printf("%-22s %6d %12s %12s %8d\n", metric_table[metric[j]].name, 0, "-", "-", 0);
				continue;
			}
			gsl_sort(chg[j], 1, (size_t)nchg[j]);
			printf("%-22s %6d %11.1f%% %11.1f%% %8d\n", metric_table[metric[j]].name, nchg[j],
			       100 * gsl_stats_median_from_sorted_data(chg[j], 1, (size_t)nchg[j]),
			       100 * chg[j][nchg[j] - 1], moved[j]);
		}
	}
	for (int j = 0; j < nm; j++)
		free(chg[j]);
	runs_free(&set[0]);
	runs_free(&set[1]);
	return rc;
}
