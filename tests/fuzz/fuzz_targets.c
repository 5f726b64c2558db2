/*
 * fuzz_targets: the validation targets CSV reader (targets_load over
 * csvread.c and libcsv), then targets_eval over runs made up for the ids
 * the checks name.  Their figures come from the id's bytes, zero and
 * missing (NaN) included, so the %change and error statistics meet empty,
 * zero and equal sides.  A failed load or evaluation must say why.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets.h"
#include "util.h"

#include "fuzzutil.h"

/* A figure from an id: 0, NaN or a small positive number. */
static double figure(const char *id, int m, int side)
{
	unsigned h = 2166136261u;
	for (const char *p = id; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	h ^= (unsigned)m * 31u + (unsigned)side;
	switch (h % 5) {
	case 0: return 0;
	case 1: return NAN;
	default: return (double)(h % 1000) / 10.0;
	}
}

static void add_run(struct run_set *rs, const char *id)
{
	struct tcpsim_err err;
	struct recorded_run *r;

	if (!id || !*id || runs_find(rs, id))
		return;
	err_clear(&err);
	if (!(r = runs_add(rs, id, "fuzz", "fuzz.cfg", NULL, NULL, &err)))
		return;
	for (int m = 0; m < METRIC_N; m++)
		r->v[m] = figure(id, m, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_file("targets.csv", data, size);
	struct target_set ts;
	struct tcpsim_err err;

	memset(&ts, 0, sizeof(ts));
	err_clear(&err);
	if (targets_load(&ts, in, &err) == TCPSIM_OK) {
		struct run_set rs;
		runs_init(&rs);
		for (int i = 0; i < ts.n; i++) {
			add_run(&rs, ts.t[i].run);
			add_run(&rs, ts.t[i].base);
		}
		struct metrics *pred = xcalloc((size_t)rs.n + 1, sizeof(*pred));
		bool *held = xcalloc((size_t)rs.n + 1, sizeof(*held));
		struct target_outcome *out = xcalloc((size_t)ts.n + 1, sizeof(*out));
		for (int i = 0; i < rs.n; i++) {
			for (int m = 0; m < METRIC_N; m++)
				pred[i].v[m] = figure(rs.runs[i].id, m, 1);
			pred[i].bottleneck = (enum bottleneck_kind)(i % 2);
			held[i] = i % 3 == 0;
		}
		err_clear(&err);
		if (targets_eval(&ts, &rs, pred, held, out, &err) != TCPSIM_OK && err.msg[0] == '\0') {
			fprintf(stderr, "fuzz_targets: targets_eval failed without a message\n");
			abort();
		}
		free(out);
		free(held);
		free(pred);
		runs_free(&rs);
	} else if (err.msg[0] == '\0') {
		fprintf(stderr, "fuzz_targets: targets_load failed without a message\n");
		abort();
	}
	targets_free(&ts);
	free(in);
	fuzz_clean();
	return 0;
}
