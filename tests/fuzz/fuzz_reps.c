/*
 * fuzz_reps: the single-runs reader (reps_load over csvread.c and libcsv)
 * against a run set of a few ids, twice over the same set (a second file
 * adds to the first).  A failed load must say why and add nothing; a good
 * one keeps only finite values, each list ascending, and every value of a
 * list lies inside its own range (nearest-run error 0).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reps.h"
#include "util.h"

#include "fuzzutil.h"

static const char *const ids[] = {"s1", "s2", "amd-epyc-2cpu-2096-lo-mtu1500-tso_on-gso_on-send4K", "a"};

static void check(const struct rep_set *r, int n_runs)
{
	for (int i = 0; i < n_runs; i++)
		for (int m = 0; m < METRIC_N; m++) {
			const struct rep_values *rv = reps_of(r, i, m);
			for (int k = 0; rv && k < rv->n; k++) {
				if (!isfinite(rv->v[k]) || (k > 0 && rv->v[k] < rv->v[k - 1]) ||
				    reps_nearest_error_pct(rv, rv->v[k]) != 0) {
					fprintf(stderr, "fuzz_reps: run %d metric %d value %d: %g out of order or range\n",
						i, m, k, rv->v[k]);
					abort();
				}
			}
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_file("reps.csv", data, size);
	struct run_set rs;
	struct rep_set r;
	struct tcpsim_err err;

	runs_init(&rs);
	reps_init(&r);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		err_clear(&err);
		runs_add(&rs, ids[i], "fuzz", "fuzz.cfg", NULL, NULL, &err);
	}
	for (int pass = 0; pass < 2; pass++) {
		int used = r.rows_used;
		err_clear(&err);
		if (reps_load(&r, &rs, in, &err) != TCPSIM_OK) {
			if (err.msg[0] == '\0') {
				fprintf(stderr, "fuzz_reps: reps_load failed without a message\n");
				abort();
			}
			if (r.rows_used != used) {
				fprintf(stderr, "fuzz_reps: a failed load added runs\n");
				abort();
			}
		}
		check(&r, rs.n);
	}
	reps_free(&r);
	runs_free(&rs);
	free(in);
	fuzz_clean();
	return 0;
}
