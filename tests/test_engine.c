/*
 * test_engine: the event loop with and without its fast paths.
 *
 * evq keeps a key earlier than every pending one beside the heap (evq.h:
 * the next step of a CPU is nearly always such a key) and a few CPUs'
 * chunk ends in lanes beside it (evq.h), and a handler whose
 * last act schedules the very next event runs it itself (sim.h:
 * sim_next_inline; a CPU's next chunk end, a frame's arrival).  That must
 * change nothing but speed: two sims of one scenario, one with all three and
 * one with front_off (none), run the same number of events and every
 * event they run must agree in time, seq, handler and argument (sim.trace
 * hands each over), for NIC runs without link delay, with one frame in
 * flight and with many, and loopback runs with timers, cost jitter and
 * several instances.  Both paths must
 * also have been used, or the comparison proves nothing.
 *
 * Also: sim_ns_round, the inline llround the CPU and NIC round charged
 * time with, against llround itself; and the random streams of rng.h: the
 * normal deviates against the normal law (moments, the tails' mass, a
 * Kolmogorov-Smirnov distance, each with bounds a correct sampler meets
 * with room, while an s.d. 1% off or tails cut at 3.3 s.d. fail), streams reproducible
 * from (seed, stream) and unrelated across both.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include <cmocka.h>

#include "fixture.h"

#include <gsl/gsl_cdf.h>

#include "config.h"
#include "rng.h"
#include "sim.h"
#include "tcpsim.h"

/* Every event a sim ran, in order (sim.trace hands each over). */
struct ev_log {
	struct evq_ev *ev;
	size_t n, cap;
};

static void record(void *ctx, const struct evq_ev *ev)
{
	struct ev_log *l = ctx;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4096;
		l->ev = realloc(l->ev, l->cap * sizeof(*l->ev));
		assert_non_null(l->ev);
	}
	l->ev[l->n++] = *ev;
}

/* Run both sims for about n events (or until they end) and compare them
 * event by event.  a has the front slot, the lanes (in a run of no more
 * CPUs than lanes) and the events handlers take inline (sim_next_inline),
 * b none: one sim_step of a may run several events, so a runs first and b
 * is stepped until it has run as many.  Returns the timers a armed into a
 * lane. */
static uint64_t same_trace(const struct scenario *sc, long n)
{
	uint64_t laned;
	struct sim a, b;
	struct ev_log la = {0}, lb = {0};
	struct tcpsim_err err = {0};
	bool a_ended = false, b_ended = false;

	if (config_validate(sc, &err))
		fail_msg("config_validate: %s", err.msg);
	assert_int_equal(sim_init(&a, sc, &err), 0);
	assert_int_equal(sim_init(&b, sc, &err), 0);
	b.evq.front_off = true;
	a.trace = b.trace = record;
	a.trace_ctx = &la;
	b.trace_ctx = &lb;
	sim_start(&a);
	sim_start(&b);
	while (la.n < (size_t)n && !a_ended)
		a_ended = !sim_step(&a, INT64_MAX);
	while (lb.n < la.n && !b_ended)
		b_ended = !sim_step(&b, INT64_MAX);
	if (a_ended && !b_ended)
		b_ended = !sim_step(&b, INT64_MAX);
	assert_int_equal(a_ended, b_ended);
	assert_int_equal(la.n, lb.n);
	assert_int_equal(a.events, la.n); /* inline events are counted too */
	assert_int_equal(b.events, lb.n);
	for (size_t i = 0; i < la.n; i++) {
		const struct evq_ev *ea = &la.ev[i], *eb = &lb.ev[i];
		if (ea->t != eb->t || ea->seq != eb->seq || ea->fn != eb->fn ||
		    ea->arg != eb->arg)
			fail_msg("event %zu: (t %lld, seq %llu, arg %llu) with the front slot and inline events, "
				 "(t %lld, seq %llu, arg %llu) without", i, (long long)ea->t,
				 (unsigned long long)ea->seq, (unsigned long long)ea->arg, (long long)eb->t,
				 (unsigned long long)eb->seq, (unsigned long long)eb->arg);
	}
	assert_true(la.n > (size_t)n / 2);
	/* both took part (on loopback the inline events are most of what the
	 * slot would take) */
	assert_true(a.evq.fronted > la.n / 1000);
	assert_true(a.inlined > la.n / 20);
	if (a.evq.lanes_max) /* a run of no more CPUs than lanes (run.c) */
		assert_true(a.evq.laned > la.n / 1000);
	assert_int_equal(b.evq.fronted, 0);
	assert_int_equal(b.evq.laned, 0);
	assert_int_equal(b.inlined, 0);
	laned = a.evq.laned;
	free(la.ev);
	free(lb.ev);
	sim_release(&a);
	sim_release(&b);
	return laned;
}

static void test_nic_same_trace(void **state)
{
	struct scenario sc;
	(void)state;

	config_defaults(&sc);
	set(&sc, "link.type", "nic");
	set(&sc, "link.mtu", "1500");
	set(&sc, "offload.tso", "off");
	set(&sc, "app.instances", "2");
	set(&sc, "tcp.rcvbuf", "4M");
	set(&sc, "run.warmup", "0");
	set(&sc, "run.duration", "50ms");
	same_trace(&sc, 300000);
}

/* The bench's wire work (bench/common.cfg): a host so fast that the wire
 * binds, one segment per frame, a link of `rate` and `delay`. */
static void wire_work(struct scenario *sc, const char *rate, const char *delay)
{
	config_defaults(sc);
	set(sc, "link.type", "nic");
	set(sc, "link.rate", rate);
	set(sc, "link.mtu", "1500");
	set(sc, "link.delay", delay);
	set(sc, "host.ghz", "1000");
	set(sc, "offload.tso", "off");
	set(sc, "offload.gso", "off");
	set(sc, "offload.gro", "off");
	set(sc, "tcp.sndbuf", "4M");
	set(sc, "tcp.rcvbuf", "4M");
	set(sc, "run.warmup", "0");
	set(sc, "run.duration", "50ms");
}

/* With a link delay a frame's arrival is often the next event after its
 * transmitter's (netdev_nic.c takes it inline then). */
static void test_nic_delay_same_trace(void **state)
{
	struct scenario sc;
	(void)state;

	wire_work(&sc, "10Gbit", "1us");
	same_trace(&sc, 300000);
}

/* A long fast wire: some 160 frames in flight each way, of which only the
 * oldest has its arrival pending (netdev_nic.c's wire_run runs or queues
 * the next one's with the key it took at its line time). */
static void test_nic_long_wire_same_trace(void **state)
{
	struct scenario sc;
	(void)state;

	wire_work(&sc, "100Gbit", "20us");
	same_trace(&sc, 300000);
}

/* The bench's 100 Gbit/s wire: some eight frames in flight each way, a
 * frame's end and the oldest arrival one after the other (netdev_nic.c
 * queues only the earlier of a port's two and runs the later inline when
 * it comes next, wire_run). */
static void test_nic_fast_wire_same_trace(void **state)
{
	struct scenario sc;
	(void)state;

	wire_work(&sc, "100Gbit", "1us");
	same_trace(&sc, 300000);
}

/* The bench's hosts of two CPUs (bench/common.cfg): four CPUs in all, so
 * every CPU's chunk end that is not the next event goes to a lane. */
static void test_nic_lanes_same_trace(void **state)
{
	struct scenario sc;
	(void)state;

	wire_work(&sc, "10Gbit", "1us");
	set(&sc, "host.cpus", "2");
	set(&sc, "app.send_cpu", "0");
	set(&sc, "app.recv_cpu", "1");
	assert_true(same_trace(&sc, 300000) > 0);
	wire_work(&sc, "100Gbit", "1us");
	set(&sc, "host.cpus", "2");
	assert_true(same_trace(&sc, 300000) > 0);
}

static void test_loopback_same_trace(void **state)
{
	struct scenario sc;
	(void)state;

	config_defaults(&sc);
	set(&sc, "host.cpus", "8");
	set(&sc, "app.instances", "12");
	set(&sc, "run.warmup", "0");
	set(&sc, "run.duration", "50ms");
	same_trace(&sc, 300000);
}

/* Halves, the doubles next to them, large and negative values, and a
 * sweep of the costs a step sums to (cycles times ns per cycle). */
static void test_round_is_llround(void **state)
{
	static const double edge[] = {0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999999999999994,
				      -0.49999999999999994, 4503599627370495.5, 4503599627370497.0,
				      9007199254740993.0, 1e18, -1e18, 1234.5, 0.1, 1e-300};
	uint64_t s = 88172645463325252ULL;
	(void)state;

	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		double x = edge[i];
		for (int k = -2; k <= 2; k++) {
			double y = x;
			for (int j = 0; j < (k < 0 ? -k : k); j++)
				y = nextafter(y, k < 0 ? -INFINITY : INFINITY);
			if (sim_ns_round(y) != llround(y))
				fail_msg("sim_ns_round(%.17g) = %lld, llround %lld", y,
					 (long long)sim_ns_round(y), llround(y));
		}
	}
	for (int i = 0; i < 1000000; i++) {
		double x;
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		x = (double)(s >> 11) / 9007199254740992.0 * 2e6 * ((s & 1) ? 1 : -1);
		if (i % 3 == 0)
			x = floor(x) + 0.5;
		if (sim_ns_round(x) != llround(x))
			fail_msg("sim_ns_round(%.17g) = %lld, llround %lld", x,
				 (long long)sim_ns_round(x), llround(x));
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* 2^20 draws: mean and s.d. within 5 standard errors, the mass beyond
 * +-3.3 s.d. and +-4 s.d. within 5 binomial s.e., and the KS distance of
 * the first 2^16 below 1.95/sqrt(n) (the 0.1% level). */
static void test_gaussian_is_normal(void **state)
{
	enum { N = 1 << 20, NKS = 1 << 16 };
	struct rng *r = rng_new(1, 0);
	double *x = malloc(NKS * sizeof(*x));
	double sum = 0, sum2 = 0, d = 0;
	long beyond33 = 0, beyond4 = 0;
	(void)state;

	assert_non_null(x);
	for (long i = 0; i < N; i++) {
		double v = rng_gaussian(r, 1.0);
		sum += v;
		sum2 += v * v;
		beyond33 += fabs(v) > 3.3;
		beyond4 += fabs(v) > 4.0;
		if (i < NKS)
			x[i] = v;
	}
	double mean = sum / N, sd = sqrt(sum2 / N - mean * mean);
	double p33 = 2 * gsl_cdf_ugaussian_Q(3.3), p4 = 2 * gsl_cdf_ugaussian_Q(4.0);
	if (fabs(mean) > 5 / sqrt(N) || fabs(sd - 1) > 5 / sqrt(2.0 * N))
		fail_msg("mean %.5f sd %.5f of %d draws", mean, sd, N);
	if (fabs(beyond33 - N * p33) > 5 * sqrt(N * p33) || fabs(beyond4 - N * p4) > 5 * sqrt(N * p4) + 1)
		fail_msg("beyond 3.3 s.d.: %ld (expected %.0f); beyond 4: %ld (expected %.1f)", beyond33,
			 N * p33, beyond4, N * p4);
	qsort(x, NKS, sizeof(*x), cmp_double);
	for (long i = 0; i < NKS; i++) {
		double f = gsl_cdf_ugaussian_P(x[i]);
		double e = fmax(fabs(f - (double)i / NKS), fabs((double)(i + 1) / NKS - f));
		d = fmax(d, e);
	}
	if (d > 1.95 / sqrt(NKS))
		fail_msg("Kolmogorov-Smirnov distance %.5f over %d draws", d, NKS);
	/* sigma scales */
	assert_true(rng_gaussian(r, 0.0) == 0.0);
	free(x);
	rng_free(r);
}

static void test_streams(void **state)
{
	struct rng *a = rng_new(7, 3), *b = rng_new(7, 3), *c = rng_new(7, 4), *d = rng_new(8, 3);
	int same_ac = 0, same_ad = 0;
	(void)state;

	for (int i = 0; i < 1000; i++) {
		double xa = rng_gaussian(a, 1.0), xb = rng_gaussian(b, 1.0);
		assert_true(xa == xb); /* reproducible */
		same_ac += xa == rng_gaussian(c, 1.0);
		same_ad += xa == rng_gaussian(d, 1.0);
	}
	assert_int_equal(same_ac, 0);
	assert_int_equal(same_ad, 0);
	rng_free(a);
	rng_free(b);
	rng_free(c);
	rng_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_is_llround),
		cmocka_unit_test(test_gaussian_is_normal),
		cmocka_unit_test(test_streams),
		cmocka_unit_test(test_nic_same_trace),
		cmocka_unit_test(test_nic_delay_same_trace),
		cmocka_unit_test(test_nic_long_wire_same_trace),
		cmocka_unit_test(test_nic_fast_wire_same_trace),
		cmocka_unit_test(test_nic_lanes_same_trace),
		cmocka_unit_test(test_loopback_same_trace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
