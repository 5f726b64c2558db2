/* rng.c: xoshiro256+ streams seeded by splitmix64, the quantile table and
 * the tails of the normal (rng.h says why). */
#include "rng.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <pthread.h>
#include <stdlib.h>

#include "util.h"

/* splitmix64: the next output of the sequence at *x */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* Four outputs of splitmix64 from seed: never all zero (a bijection of a
 * counter), as xoshiro needs. */
static void state_seed(uint64_t *s, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		s[i] = splitmix64(&seed);
}

/* ---- the generator as a gsl_rng_type, over struct rng's s[] ---- */

static void gsl_set(void *state, unsigned long seed)
{
	state_seed(state, seed);
}

/* rng_next on the state alone (a struct rng's s[] is its first member) */
static uint64_t state_next(void *state)
{
	return rng_next((struct rng *)state);
}

/* The upper 32 bits (GSL's samplers take indices from the low bits). */
static unsigned long gsl_get(void *state)
{
	return (unsigned long)(state_next(state) >> 32);
}

static double gsl_get_double(void *state)
{
	return (double)(state_next(state) >> 11) * 0x1.0p-53;
}

/* size: the whole struct rng, so that GSL's own allocations (the bench)
 * have room for what state_next casts to */
static const gsl_rng_type xoshiro_type = {
	"xoshiro256+", 0xffffffffUL, 0, sizeof(struct rng), gsl_set, gsl_get, gsl_get_double,
};

const gsl_rng_type *rng_gsl_type(void)
{
	return &xoshiro_type;
}

/* ---- the quantile table: made once, read only after ---- */

static double quantiles[RNG_QN + 1];
static pthread_once_t quantiles_once = PTHREAD_ONCE_INIT;

static void quantiles_make(void)
{
	for (uint32_t k = 1; k < RNG_QN; k++)
		quantiles[k] = gsl_cdf_ugaussian_Pinv((double)k / RNG_QN);
}

struct rng *rng_new(uint64_t seed, uint64_t stream)
{
	struct rng *r = xcalloc(1, sizeof(*r));

	rng_init(r, seed, stream);
	return r;
}

void rng_init(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t a = seed, b = stream;

	pthread_once(&quantiles_once, quantiles_make);
	r->q = quantiles;
	/* both through splitmix64: neighbouring seeds and streams give
	 * unrelated states */
	state_seed(r->s, splitmix64(&a) ^ (splitmix64(&b) * 0xD1B54A32D192ED03ULL));
	r->gsl.type = &xoshiro_type;
	r->gsl.state = r;
}

void rng_free(struct rng *r)
{
	free(r);
}

double rng_gaussian_tail(struct rng *r, uint32_t k)
{
	double a = -r->q[1]; /* = q[RNG_QN - 1] */
	double x = gsl_ran_ugaussian_tail(&r->gsl, a);
	return k == 0 ? -x : x;
}
