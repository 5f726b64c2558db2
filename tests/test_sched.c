/*
 * test_sched: the 3.6 load balancer and wakeup placement on a built
 * simulation whose run queues the tests arrange by hand (no events run).
 *
 *  - Within a last-level cache (the SMT domain) a CPU pulls from a sibling
 *    on instantaneous loads; the task pulled is the most recently enqueued.
 *  - A cache-hot task (ran within 0.5 ms) stays, until a balance has failed
 *    once (cache_nice_tries 0 within an LLC).
 *  - Across LLCs the groups' decayed loads decide, and the task comes from
 *    the busiest CPU of the busiest group.
 *  - wake_affine's margin is that of the domain spanning both CPUs: 105%
 *    within an LLC, 112% across.
 *  - sched.domains = host keeps one domain: decayed loads, the task with
 *    the largest vruntime, no cache-hot rule, 112% everywhere.
 *  The first four set sched.domains = llc.
 *  - host.kswapd: an order-3 allocation wakes a sleeping kswapd, once.
 *  - host.idle_poll_dist: the poll window per idle entry, fixed or drawn
 *    with P(window > g) = idle_poll_share * exp(-g / idle_poll), or a normal
 *    window of mean idle_poll and s.d. idle_poll_sd at that share.
 *  - host.speed_sd: each CPU's cost factor wanders as an Ornstein-Uhlenbeck
 *    process in its log (s.d., correlation time, mean factor 1), each
 *    CPU's apart, and its path is a function of time alone.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"
#include "fixture.h"

#include "config.h"
#include "cpu.h"
#include "sched.h"
#include "sim.h"
#include "skb.h"

struct fixture {
	struct scenario sc;
	struct sim sim;
	struct tcpsim_err err;
};

/* 4 CPUs in two LLCs of two (an Atom D525's cores), `instances` netperf
 * pairs, every task queued on CPU 0 at time 0 and none running;
 * sched.domains as given. */
static struct fixture *build_domains(const char *instances, const char *domains)
{
	struct fixture *f = test_calloc(1, sizeof(*f));
	config_defaults(&f->sc);
	set(&f->sc, "sched.domains", domains);
	set(&f->sc, "host.cpus", "4");
	set(&f->sc, "host.llc_cpus", "2");
	set(&f->sc, "host.kernel", "3.6");
	set(&f->sc, "app.instances", instances);
	if (sim_init(&f->sim, &f->sc, &f->err))
		fail_msg("sim_init: %s", f->err.msg);
	for (int i = 0; i < f->sim.ntasks; i++)
		sched_start_task(&f->sim, &f->sim.tasks[i], &f->sim.hosts[0].cpus[0]);
	return f;
}

static struct fixture *build(const char *instances)
{
	return build_domains(instances, "llc");
}

static void release(struct fixture *f)
{
	sim_release(&f->sim);
	test_free(f);
}

static struct cpu *cpu(struct fixture *f, int i)
{
	return &f->sim.hosts[0].cpus[i];
}

/* The factor cpu_speed_factor gives CPU i of a 2-CPU host with
 * host.speed_sd = 0.05 and host.speed_tau = 2ms, at n times step_ns apart
 * from 0, into x[] as logs. */
static void speed_path(const char *seed, int i, sim_ns step_ns, int n, double *x)
{
	struct fixture *f = test_calloc(1, sizeof(*f));
	config_defaults(&f->sc);
	set(&f->sc, "host.cpus", "2");
	set(&f->sc, "host.speed_sd", "0.05");
	set(&f->sc, "host.speed_tau", "2ms");
	set(&f->sc, "run.seed", seed);
	if (sim_init(&f->sim, &f->sc, &f->err))
		fail_msg("sim_init: %s", f->err.msg);
	for (int k = 0; k < n; k++) {
		f->sim.now = (sim_ns)k * step_ns;
		x[k] = log(cpu_speed_factor(&f->sim, cpu(f, i)));
	}
	release(f);
}

static double mean_of(const double *x, int n)
{
	double s = 0;
	for (int k = 0; k < n; k++)
		s += x[k];
	return s / n;
}

static double corr_of(const double *a, const double *b, int n)
{
	double ma = mean_of(a, n), mb = mean_of(b, n), sab = 0, saa = 0, sbb = 0;
	for (int k = 0; k < n; k++) {
		sab += (a[k] - ma) * (b[k] - mb);
		saa += (a[k] - ma) * (a[k] - ma);
		sbb += (b[k] - mb) * (b[k] - mb);
	}
	return sab / sqrt(saa * sbb);
}

static void test_speed_wander_law(void **state)
{
	enum { N = 40000 }; /* 40 s in 1 ms steps: 20,000 correlation times */
	static double a[N], b[N], fine[2 * N];
	(void)state;
	speed_path("7", 0, NS_PER_MS, N, a);
	speed_path("7", 1, NS_PER_MS, N, b);
	double ma = mean_of(a, N), sa = 0;
	for (int k = 0; k < N; k++)
		sa += (a[k] - ma) * (a[k] - ma);
	sa = sqrt(sa / (N - 1));
	expect_range(sa, 0.05 * 0.93, 0.05 * 1.07, "s.d. of the log factor: host.speed_sd");
	/* the mean factor is 1: E exp(x - sd^2/2) */
	double mf = 0;
	for (int k = 0; k < N; k++)
		mf += exp(a[k]);
	expect_range(mf / N, 0.995, 1.005, "mean factor 1");
	/* 2 ms apart (two steps): correlation exp(-1) */
	expect_range(corr_of(a, a + 2, N - 2), exp(-1) - 0.04, exp(-1) + 0.04, "correlation one tau apart");
	expect_range(corr_of(a, a + 1, N - 1), exp(-0.5) - 0.04, exp(-0.5) + 0.04, "correlation half a tau apart");
	expect_range(fabs(corr_of(a, b, N)), 0, 0.03, "the two CPUs wander apart");
	/* sampled twice as often, the path at the common times is the same */
	speed_path("7", 0, NS_PER_MS / 2, 2 * N, fine);
	int same = 0;
	for (int k = 0; k < N; k++)
		same += fine[2 * k] == a[k];
	expect_range(same, N, N, "the path is a function of time alone");
	speed_path("8", 0, NS_PER_MS, N, b);
	expect_range(fabs(corr_of(a, b, N)), 0, 0.03, "another seed, another path");
}

static void test_llc_pulls_latest_enqueued(void **state)
{
	struct fixture *f = build("3");
	struct task *late = &f->sim.tasks[4];
	(void)state;
	f->sim.now = 10 * NS_PER_MS; /* nobody ran within 0.5 ms */
	late->enqueued_at = 5 * NS_PER_MS;
	sched_tick(&f->sim, cpu(f, 1));
	assert_int_equal(f->sim.cnt.migrations, 1);
	assert_int_equal(cpu(f, 1)->nrq, 1);
	assert_ptr_equal(cpu(f, 1)->rq[0], late);
	assert_ptr_equal(late->cpu, cpu(f, 1));
	assert_int_equal(cpu(f, 0)->nrq, 5);
	release(f);
}

static void test_cache_hot_stays_once(void **state)
{
	struct fixture *f = build("3");
	(void)state;
	f->sim.now = 10 * NS_PER_MS;
	for (int i = 0; i < f->sim.ntasks; i++)
		f->sim.tasks[i].last_ran = f->sim.now - 100 * 1000; /* 0.1 ms ago */
	sched_tick(&f->sim, cpu(f, 1));
	assert_int_equal(f->sim.cnt.migrations, 0);
	assert_int_equal(cpu(f, 1)->balance_failed[0], 1);
	/* the next balance of the (idle) CPU may take a hot task */
	f->sim.now = cpu(f, 1)->next_balance[0];
	sched_tick(&f->sim, cpu(f, 1));
	assert_int_equal(f->sim.cnt.migrations, 1);
	assert_int_equal(cpu(f, 1)->balance_failed[0], 0);
	release(f);
}

/* sched.domains = host: no LLC level; the task with the largest vruntime
 * moves, hot or not, when the decayed loads differ by 125% and a task. */
static void test_host_domain(void **state)
{
	struct fixture *f = build_domains("3", "host");
	struct task *far = &f->sim.tasks[2];
	(void)state;
	f->sim.now = 10 * NS_PER_MS;
	for (int i = 0; i < f->sim.ntasks; i++)
		f->sim.tasks[i].last_ran = f->sim.now; /* all hot: no matter */
	far->vruntime_ns += 1e6;
	/* instantaneous queues 6 against 0, but no decayed load yet: stays */
	sched_tick(&f->sim, cpu(f, 1));
	assert_int_equal(f->sim.cnt.migrations, 0);
	cpu(f, 0)->load_avg = 6;
	f->sim.now = cpu(f, 1)->next_balance[0];
	sched_tick(&f->sim, cpu(f, 1));
	assert_int_equal(f->sim.cnt.migrations, 1);
	assert_ptr_equal(far->cpu, cpu(f, 1));
	release(f);
}

static void test_across_llc_uses_group_loads(void **state)
{
	struct fixture *f = build("3");
	(void)state;
	f->sim.now = 10 * NS_PER_MS;
	/* CPU 1 holds one task so that CPU 2's own LLC sibling level finds
	 * nothing; LLC {0,1} carries 6 tasks, {2,3} none */
	sched_tick(&f->sim, cpu(f, 1));
	assert_int_equal(cpu(f, 1)->nrq, 1);
	cpu(f, 0)->load_avg = 5;
	cpu(f, 1)->load_avg = 1;
	cpu(f, 2)->load_avg = 0;
	cpu(f, 3)->load_avg = 0;
	sched_tick(&f->sim, cpu(f, 2));
	assert_int_equal(f->sim.cnt.migrations, 2);
	assert_int_equal(cpu(f, 2)->nrq, 1);
	assert_int_equal(cpu(f, 0)->nrq, 4); /* from the busiest CPU of the group */
	release(f);

	/* decayed loads even across the LLCs: nothing moves, however the
	 * instantaneous queues look */
	f = build("3");
	f->sim.now = 10 * NS_PER_MS;
	for (int i = 0; i < 4; i++)
		cpu(f, i)->load_avg = 1.5;
	sched_tick(&f->sim, cpu(f, 2));
	assert_int_equal(f->sim.cnt.migrations, 0);
	release(f);
}

/* A sleeping task last on `prev`, woken (not sync) by `waker`, with nine
 * tasks queued on each: 100 * (9 + 1) > 105 * 9 but <= 112 * 9. */
static int wake_between(int waker, int prev, const char *domains)
{
	struct fixture *f = build_domains("10", domains);
	struct task *t = &f->sim.tasks[19];
	int got, other = prev == 1 ? 3 : 1;
	for (int i = 0; i < 9; i++) {
		struct task *u = &f->sim.tasks[i];
		/* move tasks 0..8 to `prev` by hand, keep 9..17 on CPU 0 */
		for (uint32_t k = 0; k < cpu(f, 0)->nrq; k++)
			if (cpu(f, 0)->rq[k] == u) {
				cpu(f, 0)->rq[k] = cpu(f, 0)->rq[--cpu(f, 0)->nrq];
				break;
			}
		cpu(f, prev)->rq[cpu(f, prev)->nrq++] = u;
		u->cpu = cpu(f, prev);
	}
	/* task 18 is moved off CPU 0 so that it holds nine; 19 sleeps on prev */
	for (uint32_t k = 0; k < cpu(f, 0)->nrq;)
		if (cpu(f, 0)->rq[k] == &f->sim.tasks[18] || cpu(f, 0)->rq[k] == t)
			cpu(f, 0)->rq[k] = cpu(f, 0)->rq[--cpu(f, 0)->nrq];
		else
			k++;
	/* busy as well: the waker's sibling, so that an affine wakeup is not
	 * sent on to an idle CPU of the waker's LLC (select_idle_sibling) */
	f->sim.tasks[18].cpu = cpu(f, other);
	cpu(f, other)->rq[cpu(f, other)->nrq++] = &f->sim.tasks[18];
	assert_int_equal(cpu(f, 0)->nrq, 9);
	assert_int_equal(cpu(f, prev)->nrq, 9);
	t->state = TASK_SLEEPING;
	t->cpu = cpu(f, prev);
	/* each CPU runs one of its tasks, so none is idle */
	sched_process_step(&f->sim, cpu(f, 0));
	sched_process_step(&f->sim, cpu(f, prev));
	sched_process_step(&f->sim, cpu(f, other));
	assert_non_null(cpu(f, 0)->curr);
	assert_non_null(cpu(f, prev)->curr);
	assert_int_equal(waker, 0);
	sched_wakeup(&f->sim, cpu(f, waker), t, false);
	got = t->cpu->id;
	release(f);
	return got;
}

static void test_wake_affine_margin_by_domain(void **state)
{
	(void)state;
	/* prev in the waker's LLC: 1000 > 945, stays on prev */
	assert_int_equal(wake_between(0, 1, "llc"), 1);
	/* prev in the other LLC: 1000 <= 1008, pulled to the waker */
	assert_int_equal(wake_between(0, 2, "llc"), 0);
	/* one domain over the host: 112% either way */
	assert_int_equal(wake_between(0, 1, "host"), 0);
	assert_int_equal(wake_between(0, 2, "host"), 0);
}

/* host.kswapd: an order-3 allocation (a new slab of the skb cache) wakes
 * kswapd when it sleeps, and only then (wakeup_kswapd checks
 * waitqueue_active); without the key there is no kswapd task. */
static void test_highorder_allocation_wakes_kswapd(void **state)
{
	struct fixture *f = test_calloc(1, sizeof(*f));
	struct task *k;
	struct skb *a, *b;
	(void)state;
	config_defaults(&f->sc);
	set(&f->sc, "host.cpus", "4");
	set(&f->sc, "host.kswapd", "on");
	if (sim_init(&f->sim, &f->sc, &f->err))
		fail_msg("sim_init: %s", f->err.msg);
	k = f->sim.hosts[0].kswapd;
	assert_non_null(k);
	assert_int_equal(k->state, TASK_SLEEPING);
	cpu(f, 2)->slab_free = 0; /* the next skb needs a new slab */
	a = skb_alloc(&f->sim, cpu(f, 2), SKB_ACK);
	assert_true(f->sim.cnt.kswapd_wakes == 1);
	assert_int_equal(k->state, TASK_RUNNABLE);
	assert_true(f->sim.cnt.pgalloc == (uint64_t)f->sc.slab_pages);
	cpu(f, 2)->slab_free = 0;
	b = skb_alloc(&f->sim, cpu(f, 2), SKB_ACK); /* kswapd is awake already */
	assert_true(f->sim.cnt.kswapd_wakes == 1);
	assert_true(f->sim.cnt.pgalloc == 2 * (uint64_t)f->sc.slab_pages);
	skb_free(&f->sim, cpu(f, 2), a);
	skb_free(&f->sim, cpu(f, 2), b);
	release(f);

	f = build("1"); /* host.kswapd off (the default) */
	assert_null(f->sim.hosts[0].kswapd);
	cpu(f, 1)->slab_free = 0;
	skb_free(&f->sim, cpu(f, 1), skb_alloc(&f->sim, cpu(f, 1), SKB_ACK));
	assert_true(f->sim.cnt.kswapd_wakes == 0);
	release(f);
}

/* A 2-CPU host whose idle CPUs poll by the given law (NULL: the default
 * of that key); nothing runs. */
static struct fixture *build_idle(const char *dist, const char *poll, const char *sd, const char *share)
{
	struct fixture *f = test_calloc(1, sizeof(*f));
	config_defaults(&f->sc);
	set(&f->sc, "host.cpus", "2");
	set(&f->sc, "host.idle_poll", poll);
	if (dist)
		set(&f->sc, "host.idle_poll_dist", dist);
	if (sd)
		set(&f->sc, "host.idle_poll_sd", sd);
	if (share)
		set(&f->sc, "host.idle_poll_share", share);
	if (sim_init(&f->sim, &f->sc, &f->err))
		fail_msg("sim_init: %s", f->err.msg);
	return f;
}

/* The window of idle_poll_dist = exp over many idle entries: none at a
 * share 1 - idle_poll_share, and past any g at share * exp(-g / mean);
 * fixed is idle_poll every time. */
static void test_idle_window_law(void **state)
{
	struct fixture *f = build_idle("exp", "8us", NULL, "0.4");
	enum { N = 20000 };
	const double mean = 8000, share = 0.4;
	int zero = 0, past[3] = {0};
	const double g[3] = {2000, 8000, 24000};
	double sum = 0;
	(void)state;
	for (int i = 0; i < N; i++) {
		sim_ns w = sched_idle_window(cpu(f, 1));
		assert_true(w >= 0);
		zero += w == 0;
		sum += (double)w;
		for (int k = 0; k < 3; k++)
			past[k] += (double)w > g[k];
	}
	expect_within((double)zero / N, 1 - share, 0.02, "share of entries that halt at once");
	expect_within(sum / (N - zero), mean, 0.03, "mean window of those that poll");
	for (int k = 0; k < 3; k++)
		expect_within((double)past[k] / N, share * exp(-g[k] / mean), 0.03, "P(window > g)");
	release(f);

	/* normal: the window of those that poll has the given mean and s.d. */
	f = build_idle("normal", "9us", "2us", "0.85");
	{
		double s1 = 0, s2 = 0;
		int npoll = 0, past9 = 0, past13 = 0;
		for (int i = 0; i < N; i++) {
			double w = (double)sched_idle_window(cpu(f, 0));
			if (w > 0) {
				npoll++;
				s1 += w;
				s2 += w * w;
			}
			past9 += w > 9000;
			past13 += w > 13000;
		}
		double m = s1 / npoll;
		expect_within((double)npoll / N, 0.85, 0.02, "normal: share of entries that poll");
		expect_within(m, 9000, 0.01, "normal: mean window");
		expect_within(sqrt(s2 / npoll - m * m), 2000, 0.03, "normal: s.d. of the window");
		expect_within((double)past9 / N, 0.85 * 0.5, 0.03, "normal: P(window > mean)");
		expect_within((double)past13 / N, 0.85 * 0.02275, 0.1, "normal: P(window > mean + 2 s.d.)");
	}
	release(f);

	f = build_idle(NULL, "3us", NULL, NULL); /* idle_poll_dist = fixed, the default */
	for (int i = 0; i < 100; i++)
		assert_true(sched_idle_window(cpu(f, 0)) == 3000);
	release(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_llc_pulls_latest_enqueued),
		cmocka_unit_test(test_cache_hot_stays_once),
		cmocka_unit_test(test_across_llc_uses_group_loads),
		cmocka_unit_test(test_host_domain),
		cmocka_unit_test(test_highorder_allocation_wakes_kswapd),
		cmocka_unit_test(test_wake_affine_margin_by_domain),
		cmocka_unit_test(test_idle_window_law),
		cmocka_unit_test(test_speed_wander_law),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
