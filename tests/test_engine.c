/*
 * test_engine: the event loop with and without evq's front slot.
 *
 * evq keeps a key earlier than every pending one beside the heap (evq.h:
 * the next step of a CPU is nearly always such a key).  That must change
 * nothing but speed: two sims of one scenario, one with the slot and one
 * with front_off, step side by side and every event they run must agree in
 * time, seq, handler and argument (sim.trace hands each over), for NIC and
 * loopback runs with timers, cost jitter and several instances.  The slot
 * must also have been used, or the comparison proves nothing.
 *
 * Also: sim_ns_round, the inline llround the CPU and NIC round charged
 * time with, against llround itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <math.h>

#include <cmocka.h>

#include "config.h"
#include "sim.h"
#include "tcpsim.h"

static void set(struct scenario *sc, const char *key, const char *val)
{
	struct tcpsim_err err = {0};
	if (config_set(sc, key, val, "test", &err))
		fail_msg("config_set %s=%s: %s", key, val, err.msg);
}

static void record(void *ctx, const struct evq_ev *ev)
{
	*(struct evq_ev *)ctx = *ev;
}

/* Step both sims n events (or until both end) and compare each event. */
static void same_trace(const struct scenario *sc, long n)
{
	struct sim a, b;
	struct evq_ev ea, eb;
	struct tcpsim_err err = {0};
	long i;

	if (config_validate(sc, &err))
		fail_msg("config_validate: %s", err.msg);
	assert_int_equal(sim_init(&a, sc, &err), 0);
	assert_int_equal(sim_init(&b, sc, &err), 0);
	b.evq.front_off = true;
	a.trace = b.trace = record;
	a.trace_ctx = &ea;
	b.trace_ctx = &eb;
	sim_start(&a);
	sim_start(&b);
	for (i = 0; i < n; i++) {
		bool ra = sim_step(&a, INT64_MAX), rb = sim_step(&b, INT64_MAX);
		assert_int_equal(ra, rb);
		if (!ra)
			break;
		if (ea.t != eb.t || ea.seq != eb.seq || ea.fn != eb.fn || ea.arg != eb.arg)
			fail_msg("event %ld: (t %lld, seq %llu, arg %llu) with the front slot, "
				 "(t %lld, seq %llu, arg %llu) without", i, (long long)ea.t,
				 (unsigned long long)ea.seq, (unsigned long long)ea.arg, (long long)eb.t,
				 (unsigned long long)eb.seq, (unsigned long long)eb.arg);
	}
	assert_true(i > n / 2);
	assert_true(a.evq.fronted > (uint64_t)i / 20); /* the slot took part */
	assert_int_equal(b.evq.fronted, 0);
	sim_release(&a);
	sim_release(&b);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_is_llround),
		cmocka_unit_test(test_nic_same_trace),
		cmocka_unit_test(test_loopback_same_trace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
