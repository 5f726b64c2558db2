/*
 * rng: random streams, the one place that knows the generator.
 *
 * One stream per entity that draws (each CPU draws the jitter of the costs
 * it is charged, cpu.c), so a CPU's draws do not depend on what the other
 * CPUs drew before it: a run's jitter follows the work, not the order of
 * events, which is what calibration's finite differences want.  Streams are
 * seeded from run.seed and the entity's number through splitmix64 (Steele,
 * Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA
 * 2014).
 *
 * Uniforms: xoshiro256+ (Blackman & Vigna, "Scrambled linear pseudorandom
 * number generators", ACM TOMS 47(4), 2021), inline.  Normal deviates by
 * inverse transform over a table of RNG_QN normal quantiles made once with
 * GSL (gsl_cdf_ugaussian_Pinv): the top bits of a draw pick one of RNG_QN
 * equally likely intervals, exactly as probable as under the normal law,
 * and the next 41 bits a point in it, uniformly (so the density is the
 * normal's averaged over each interval, 1/1024 of the mass wide); the two
 * outer intervals, beyond +-3.3 s.d., draw from GSL's exact tail
 * (gsl_ran_ugaussian_tail).  Chosen by tests/bench_rng.c over GSL's
 * generators under its ziggurat, with and without a bulk-filled buffer: the
 * ziggurat call itself is most of their cost.  Callers see these calls only.
 */
#ifndef TCPSIM_RNG_H
#define TCPSIM_RNG_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

#define RNG_QBITS 10
#define RNG_QN (1u << RNG_QBITS)

/* What every draw reads (s and q) on 40 bytes; the tails' gsl after them. */
struct rng {
	uint64_t s[4];         /* xoshiro256+ state */
	const double *q;       /* q[k] = the k/RNG_QN quantile of N(0, 1), k = 1 .. RNG_QN - 1 */
	gsl_rng gsl;           /* the same state as a GSL generator (the tails) */
};

/* Stream `stream` of the run seeded with seed (aborts when out of memory). */
struct rng *rng_new(uint64_t seed, uint64_t stream);
/* The same stream in *r, a struct rng the caller owns (embedded where its
 * draws are made: struct cpu); nothing to free. */
void rng_init(struct rng *r, uint64_t seed, uint64_t stream);
/* Free r (NULL is a no-op). */
void rng_free(struct rng *r);
/* A N(0, 1) draw from the outer interval k (0 or RNG_QN - 1). */
double rng_gaussian_tail(struct rng *r, uint32_t k);
/* The uniform generator as a GSL type (tests/bench_rng.c measures it). */
const gsl_rng_type *rng_gsl_type(void);

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s, x = s[0] + s[3], t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = (s[3] << 45) | (s[3] >> 19);
	return x;
}

/* A normal deviate with mean 0 and standard deviation sigma. */
static inline double rng_gaussian(struct rng *r, double sigma)
{
	uint64_t u = rng_next(r);
	uint32_t k = (uint32_t)(u >> (64 - RNG_QBITS));
	/* bits 11 .. 63 - RNG_QBITS: where in the interval (the lowest bits
	 * of xoshiro256+ are its weakest) */
	double f = (double)(u << RNG_QBITS >> 11) * 0x1.0p-53;

	if (k - 1 < RNG_QN - 2)
		return sigma * (r->q[k] + (r->q[k + 1] - r->q[k]) * f);
	return sigma * rng_gaussian_tail(r, k);
}

#endif
