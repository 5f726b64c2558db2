/*
 * monitor.c: background tasks, the machine's other residents.
 *
 * A benchmark never has the machine to itself.  LKP runs its monitors
 * (vmstat, proc-vmstat, interrupts, softirqs, slabinfo, meminfo, ...; see
 * lkp-tests' monitors/) beside the job, each waking on a timer about once
 * a second to read /proc.  host.monitors such tasks each wake every
 * host.monitor_period (phases spread evenly), run cost.monitor cycles in
 * process context and sleep again.  They are what breaks the symmetry of
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

#include "cpu.h"
#include "sched.h"
#include "util.h"

static void monitor_wake_ev(struct sim *sim, void *obj, uint64_t arg)
{
	struct task *t = obj;
	(void)arg;
	cpu_raise_irq(sim, t->cpu, IRQ_TIMER_WAKE, t);
}

void monitor_arm(struct sim *sim, struct task *t, sim_ns first)
{
	t->app->next_wake = first;
	sim_at(sim, first, monitor_wake_ev, t, 0);
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
	do
		t->app->next_wake += c->host->cfg->monitor_period_ns;
	while (t->app->next_wake <= sim->now);
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
