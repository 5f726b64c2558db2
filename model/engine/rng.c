/* rng.c: the run's random stream over GSL (rng.h says why here only). */
#include "rng.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>

#include "util.h"

struct rng {
	gsl_rng *gsl;
};

struct rng *rng_new(uint64_t seed)
{
	struct rng *r = xcalloc(1, sizeof(*r));
	r->gsl = gsl_rng_alloc(gsl_rng_mt19937);
	INVARIANT(r->gsl, "out of memory (gsl_rng_alloc)");
	gsl_rng_set(r->gsl, (unsigned long)seed);
	return r;
}

void rng_free(struct rng *r)
{
	if (!r)
		return;
	gsl_rng_free(r->gsl);
	free(r);
}

double rng_gaussian(struct rng *r, double sigma)
{
	return gsl_ran_gaussian_ziggurat(r->gsl, sigma);
}
