/*
 * bench_rng: the cost of one cost-jitter draw, a normal deviate, for the
 * generators rng.c could use, side by side in one process.
 *
 * cpu_charge draws one N(0, 1) per charge, some two per event; with GSL's
 * MT19937 and gsl_ran_gaussian_ziggurat that was a fifth of a 10 Gbit/s
 * run.  Measured here, each as ns per draw (median of alternating rounds):
 *   - GSL generators under the ziggurat: mt19937 (the old stream), taus2,
 *     gfsr4, ranlxs0, ranlux (the slow end, for scale);
 *   - xoshiro256+ (Blackman & Vigna, "Scrambled linear pseudorandom number
 *     generators", ACM TOMS 47(4), 2021) as a gsl_rng_type, so that GSL's
 *     ziggurat still makes the normal deviate;
 *   - bulk-filled: a buffer of 64 normal draws refilled by the ziggurat in
 *     one loop and read inline (taus2 and xoshiro256+ under it);
 *   - rng.h: xoshiro256+ inline and the inverse transform over its table
 *     of normal quantiles, exact tails from GSL (what the model uses).
 * The sum of the draws is printed so that nothing is optimised away, and
 * the mean and s.d. of each variant's draws as a sanity check.
 *
 * Usage: bench_rng [draws-per-round]   (default 4,000,000; 5 rounds)
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rng.h"
#include "util.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct stats {
	double sum, sum2;
	long n;
};

static inline void acc(struct stats *s, double x)
{
	s->sum += x;
	s->sum2 += x * x;
	s->n++;
}

/* ---- variants ---- */
struct variant {
	const char *name;
	const gsl_rng_type *type; /* GSL + ziggurat; NULL: rng.h */
	int bulk;                 /* through a buffer of 64 */
};

static double run_gsl(const gsl_rng_type *type, long n, struct stats *st)
{
	gsl_rng *r = gsl_rng_alloc(type);
	double t0, t1;

	gsl_rng_set(r, 12345);
	t0 = now_s();
	for (long i = 0; i < n; i++)
		acc(st, gsl_ran_gaussian_ziggurat(r, 1.0));
	t1 = now_s();
	gsl_rng_free(r);
	return (t1 - t0) / (double)n * 1e9;
}

/* a buffer of 64 draws refilled in one loop, read inline */
static double run_bulk(const gsl_rng_type *type, long n, struct stats *st)
{
	gsl_rng *r = gsl_rng_alloc(type);
	double buf[64], t0, t1;
	int pos = 64;

	gsl_rng_set(r, 12345);
	t0 = now_s();
	for (long i = 0; i < n; i++) {
		if (pos == 64) {
			for (int k = 0; k < 64; k++)
				buf[k] = gsl_ran_gaussian_ziggurat(r, 1.0);
			pos = 0;
		}
		acc(st, buf[pos++]);
	}
	t1 = now_s();
	gsl_rng_free(r);
	return (t1 - t0) / (double)n * 1e9;
}

/* rng.h as the model uses it: one stream, inline draws from its buffer */
static double run_lib(long n, struct stats *st)
{
	struct rng *r = rng_new(12345, 0);
	double t0, t1;

	t0 = now_s();
	for (long i = 0; i < n; i++)
		acc(st, rng_gaussian(r, 1.0));
	t1 = now_s();
	rng_free(r);
	return (t1 - t0) / (double)n * 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

#define ROUNDS 5

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4000000;
	const struct variant v[] = {
		{"mt19937 + ziggurat (old)", gsl_rng_mt19937, 0},
		{"taus2 + ziggurat", gsl_rng_taus2, 0},
		{"gfsr4 + ziggurat", gsl_rng_gfsr4, 0},
		{"ranlxs0 + ziggurat", gsl_rng_ranlxs0, 0},
		{"ranlux + ziggurat", gsl_rng_ranlux, 0},
		{"xoshiro256+ + ziggurat", rng_gsl_type(), 0},
		{"taus2 + ziggurat, bulk 64", gsl_rng_taus2, 1},
		{"xoshiro256+ + ziggurat, bulk 64", rng_gsl_type(), 1},
		{"rng.h: xoshiro256+, quantiles", NULL, 0},
	};
	const size_t nv = sizeof(v) / sizeof(v[0]);
	double ns[sizeof(v) / sizeof(v[0])][ROUNDS];
	struct stats st[sizeof(v) / sizeof(v[0])];

	memset(st, 0, sizeof(st));
	if (n <= 0) {
		fprintf(stderr, "usage: bench_rng [draws-per-round]\n");
		return 2;
	}
	for (int round = 0; round < ROUNDS; round++)
		for (size_t k = 0; k < nv; k++)
			ns[k][round] = !v[k].type ? run_lib(n, &st[k])
				       : v[k].bulk ? run_bulk(v[k].type, n, &st[k])
						   : run_gsl(v[k].type, n, &st[k]);
	printf("normal deviates, %d alternating rounds of %ld draws, median ns per draw:\n", ROUNDS, n);
	for (size_t k = 0; k < nv; k++) {
		double mean = st[k].sum / (double)st[k].n;
		double sd = sqrt(st[k].sum2 / (double)st[k].n - mean * mean);
		qsort(ns[k], ROUNDS, sizeof(double), cmp_double);
		printf("  %-32s %6.2f ns  (%.2fx the old)   mean %+.4f sd %.4f\n", v[k].name, ns[k][ROUNDS / 2],
		       ns[0][ROUNDS / 2] / ns[k][ROUNDS / 2], mean, sd);
	}
	return 0;
}
