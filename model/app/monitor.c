/*
 * monitor.c: background tasks, the machine's other residents.
 *
 * A benchmark never has the machine to itself.  LKP runs its monitors
 * (vmstat, proc-vmstat, interrupts, softirqs, slabinfo, meminfo, ...; see
 * lkp-tests' monitors/) beside the job, each waking on a timer about once
 * a second to read /proc.  host.monitors such tasks each wake every
 * host.monitor_period (phases spread evenly), run cost.monitor cycles in
 * process context and sleep again.  With host.monitor_arrivals = poisson
 * each wakes at random instead, the intervals exponential with that mean,
 * drawn from a stream of its own: a machine's other residents (kdamond,
 * kworkers, a daemon's threads) that take a CPU for a millisecond or more
 * now and then, at no fixed phase with the benchmark
 * (validation/live/README.md, "The machine moves between its two states
 * every few tenths of a second").  They are what breaks the symmetry of
 * N identical connection pairs on M CPUs: the run-queue imbalances they
 * cause are what the load balancer and wake_affine react to, so they are
 * a source of migrations and of cross-CPU wakeups (RES IPIs).  Their
 * wakeups come from a timer interrupt on the CPU the task last ran on
 * (hrtimer_wakeup, hardirq context).
 *
 * kswapd (host.kswapd) is the other resident: woken by allocations, not
 * by a timer (skb.c).
 */
#include "app.h"

#include <math.h>

#include "cpu.h"
#include "rng.h"
#include "sched.h"
#include "util.h"

static void monitor_wake_ev(struct sim *sim, void *obj, uint64_t arg)
{
	struct task *t = obj;
	(void)arg;
	cpu_raise_irq(sim, t->cpu, IRQ_TIMER_WAKE, t);
}

static void monitor_arm(struct sim *sim, struct task *t, sim_ns first)
{
	t->app->next_wake = first;
	sim_at(sim, first, monitor_wake_ev, t, 0);
}

/* poisson: an exponential interval of mean monitor_period, at least 1 ns
 * (u in (0, 1]: the top 53 bits of a draw, off 1) */
static sim_ns monitor_interval(struct task *t)
{
	double u = 1.0 - (double)(rng_next(t->app->arrivals) >> 11) * 0x1.0p-53;
	sim_ns d = (sim_ns)llround(-(double)t->host->cfg->monitor_period_ns * log(u));
	return d > 0 ? d : 1;
}

void monitor_start(struct sim *sim, struct task *t, int k)
{
	const struct host_cfg *cfg = t->host->cfg;
	if (cfg->monitor_arrivals == MONITOR_POISSON)
		monitor_arm(sim, t, sim->now + monitor_interval(t));
	else
		monitor_arm(sim, t, cfg->monitor_period_ns * (k + 1) / (cfg->monitors + 1));
}

/* A background task's turn: its first step runs `cost` cycles, its second
 * puts it to sleep (false: it just blocked). */
static bool run_then_sleep(struct sim *sim, struct cpu *c, struct task *t, enum cost_id cost)
{
	if (!t->in_call) {
		cpu_charge(sim, c, cost, c->host->cfg->cost_cycles[cost]);
		t->in_call = true;
		return true;
	}
	t->in_call = false;
	sched_block(sim, c, t);
	return false;
}

static enum app_result monitor_step(struct sim *sim, struct cpu *c, struct task *t)
{
	if (run_then_sleep(sim, c, t, COST_MONITOR))
		return APP_RAN;
	if (c->host->cfg->monitor_arrivals == MONITOR_POISSON) {
		t->app->next_wake = sim->now + monitor_interval(t);
	} else {
		do
			t->app->next_wake += c->host->cfg->monitor_period_ns;
		while (t->app->next_wake <= sim->now);
	}
	sim_at(sim, t->app->next_wake, monitor_wake_ev, t, 0);
	return APP_BLOCK;
}

const struct app_ops app_monitor = {.name = "monitor", .step = monitor_step};

/* kswapd0 (mm/vmscan.c): woken by an allocation that found free memory
 * below its watermark (skb.c, host.kswapd), it runs one pass of
 * cost.kswapd cycles and sleeps again. */
static enum app_result kswapd_step(struct sim *sim, struct cpu *c, struct task *t)
{
	return run_then_sleep(sim, c, t, COST_KSWAPD) ? APP_RAN : APP_BLOCK;
}

const struct app_ops app_kswapd = {.name = "kswapd", .step = kswapd_step};
