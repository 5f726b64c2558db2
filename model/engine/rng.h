/*
 * rng: the run's random stream, the one place that knows the generator.
 *
 * One stream per sim, seeded from run.seed: GSL's MT19937 (gsl_rng_mt19937,
 * seeded with gsl_rng_set) and the ziggurat normal deviate
 * (gsl_ran_gaussian_ziggurat), so the stream is the one every recorded
 * output was made with.  Callers see struct rng and these calls only; a
 * different generator changes this file and nothing else.
 */
#ifndef TCPSIM_RNG_H
#define TCPSIM_RNG_H

#include <stdint.h>

struct rng;

/* A stream seeded with seed (aborts when out of memory). */
struct rng *rng_new(uint64_t seed);
/* Free r (NULL is a no-op). */
void rng_free(struct rng *r);
/* A normal deviate with mean 0 and standard deviation sigma. */
double rng_gaussian(struct rng *r, double sigma);

#endif
