/*
 * fuzz_runs: the recorded-runs CSV reader (runs_load over csvread.c and
 * libcsv) and its writer.  A set that loads is written with runs_write and
 * must load back equal: the same runs, fields and figures (NaN for NaN).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runs.h"

#include "fuzzutil.h"

static int same_num(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static void check_same(const struct run_set *a, const struct run_set *b)
{
	if (a->n != b->n) {
		fprintf(stderr, "fuzz_runs: %d runs written, %d read back\n", a->n, b->n);
		abort();
	}
	for (int i = 0; i < a->n; i++) {
		const struct recorded_run *x = &a->runs[i], *y = &b->runs[i];
		int same = strcmp(x->id, y->id) == 0 && strcmp(x->source, y->source) == 0 &&
			   strcmp(x->scenario, y->scenario) == 0 && strcmp(x->note, y->note) == 0 &&
			   x->n_ov == y->n_ov;
		for (int k = 0; same && k < x->n_ov; k++)
			same = strcmp(x->ov[k].assignment, y->ov[k].assignment) == 0;
		for (int m = 0; same && m < METRIC_N; m++)
			same = same_num(x->v[m], y->v[m]) && same_num(x->cv[m], y->cv[m]);
		if (!same) {
			fprintf(stderr, "fuzz_runs: run '%s' (row %d) reads back changed\n", x->id, i + 1);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_file("runs.csv", data, size);
	char *out = fuzz_path("out.csv");
	struct run_set rs, back;
	struct tcpsim_err err;

	runs_init(&rs);
	runs_init(&back);
	err_clear(&err);
	if (runs_load(&rs, in, &err) == TCPSIM_OK) {
		if (runs_write(&rs, out, &err) != TCPSIM_OK) {
			fprintf(stderr, "fuzz_runs: cannot write the set read: %s\n", err.msg);
			abort();
		}
		if (runs_load(&back, out, &err) != TCPSIM_OK) {
			fprintf(stderr, "fuzz_runs: the file runs_write wrote does not load: %s\n", err.msg);
			abort();
		}
		check_same(&rs, &back);
	} else if (err.msg[0] == '\0' || rs.n != 0) {
		fprintf(stderr, "fuzz_runs: a failed load left %d runs or no message\n", rs.n);
		abort();
	}
	runs_free(&back);
	runs_free(&rs);
	free(out);
	free(in);
	fuzz_clean();
	return 0;
}
