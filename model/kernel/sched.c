/*
 * sched.c: tasks on CPUs (see sched.h for what is imitated and the states).
 */
#include "sched.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <string.h>

#include "cpu.h"
#include "util.h"

static sim_ns latency_ns(const struct cpu *c)
{
	return c->host->sim->sc->sched_latency_ns * c->host->sched_factor;
}

static sim_ns min_gran_ns(const struct cpu *c)
{
	return c->host->sim->sc->sched_min_gran_ns * c->host->sched_factor;
}

static sim_ns wakeup_gran_ns(const struct cpu *c)
{
	return c->host->sim->sc->sched_wakeup_gran_ns * c->host->sched_factor;
}

/* EEVDF replaced CFS's wakeup rules in 6.6 (147f3efaa241): a task's
 * request is one base slice (sysctl_sched_base_slice, the old
 * min_granularity, scaled like it), a woken task is placed by its lag with
 * no sleeper credit, and with RUN_TO_PARITY the running task keeps the CPU
 * until its slice is used (update_deadline at the next update_curr: a
 * wakeup or a tick) -- a woken reader waits for the writer's slice. */
static bool eevdf(const struct cpu *c)
{
	return host_kernel_at_least(c->host, 6, 6);
}

static uint32_t nr_running(const struct cpu *c)
{
	return c->nrq + (c->curr ? 1 : 0);
}

static void rq_add(struct cpu *c, struct task *t)
{
	c->rq[c->nrq++] = t;
	t->state = TASK_RUNNABLE;
	t->cpu = c;
}

/* enqueue_entity: a task joining c's queue goes to the head of
 * rq->cfs_tasks, the list the balancer walks first (3.6). */
static void rq_enqueue(struct sim *sim, struct cpu *c, struct task *t)
{
	rq_add(c, t);
	t->enqueued_at = sim->now;
}

static void rq_remove_at(struct cpu *c, uint32_t i)
{
	c->rq[i] = c->rq[--c->nrq];
}

/* Index of the task with the smallest vruntime (ties: lowest id), or -1. */
static int rq_pick(const struct cpu *c)
{
	int best = -1;
	for (uint32_t i = 0; i < c->nrq; i++) {
		const struct task *t = c->rq[i];
		if (best < 0 || t->vruntime_ns < c->rq[best]->vruntime_ns ||
		    (t->vruntime_ns == c->rq[best]->vruntime_ns && t->id < c->rq[best]->id))
			best = (int)i;
	}
	return best;
}

static void update_min_vruntime(struct cpu *c)
{
	double m = c->curr ? c->curr->vruntime_ns : -1;
	for (uint32_t i = 0; i < c->nrq; i++)
		if (m < 0 || c->rq[i]->vruntime_ns < m)
			m = c->rq[i]->vruntime_ns;
	if (m > c->min_vruntime)
		c->min_vruntime = m;
}

static void account_curr(struct sim *sim, struct cpu *c)
{
	if (c->curr) {
		c->curr->vruntime_ns += (double)(sim->now - c->exec_start);
		c->exec_start = sim->now;
	}
}

/* sysctl_sched_migration_cost (3.6): a task that ran this recently is
 * cache-hot and stays where it is unless balancing here failed before. */
#define MIGRATION_COST_NS (500 * 1000)

static bool llc_domains(const struct cpu *c)
{
	return c->host->sim->sc->sched_domains == DOMAINS_LLC;
}

/* The waiting task (the running one never moves) another CPU takes, -1 if
 * none.  sched.domains = host: the one with the largest vruntime, the tail
 * of the queue.  llc, after move_tasks/can_migrate_task (3.6): rq->cfs_tasks
 * is walked from its head, so the most recently enqueued goes first, and a
 * cache-hot one is passed over unless `allow_hot` (*hot_seen then says one
 * was). */
static int movable_index(struct sim *sim, const struct cpu *from, const struct cpu *to, bool allow_hot,
			 bool *hot_seen)
{
	bool llc = llc_domains(from);
	int pick = -1;
	for (uint32_t i = 0; i < from->nrq; i++) {
		const struct task *t = from->rq[i], *p = pick >= 0 ? from->rq[pick] : NULL;
		if (t->pinned_cpu >= 0 && t->pinned_cpu != to->id)
			continue;
		if (llc && !allow_hot && sim->now - t->last_ran < MIGRATION_COST_NS) {
			if (hot_seen)
				*hot_seen = true;
			continue;
		}
		if (!p)
			pick = (int)i;
		else if (llc ? t->enqueued_at > p->enqueued_at || (t->enqueued_at == p->enqueued_at && t->id < p->id)
			     : t->vruntime_ns > p->vruntime_ns || (t->vruntime_ns == p->vruntime_ns && t->id > p->id))
			pick = (int)i;
	}
	return pick;
}

static void migrate(struct sim *sim, struct cpu *from, int idx, struct cpu *to)
{
	struct task *t = from->rq[idx];
	/* keep its lag relative to the queue it leaves */
	double lag = t->vruntime_ns - from->min_vruntime;
	rq_remove_at(from, (uint32_t)idx);
	t->vruntime_ns = to->min_vruntime + lag;
	rq_enqueue(sim, to, t);
	sim->cnt.migrations++;
}

/* Newly-idle balancing (idle_balance): pull one waiting task from the
 * busiest CPU of the host; true if pulled. */
static bool pull_task(struct sim *sim, struct cpu *c, uint32_t min_imbalance)
{
	struct host *h = c->host;
	struct cpu *busiest = NULL;
	for (int i = 0; i < h->ncpus; i++) {
		struct cpu *o = &h->cpus[i];
		if (o == c || o->nrq == 0)
			continue;
		if (nr_running(o) < nr_running(c) + min_imbalance)
			continue;
		if (!busiest || nr_running(o) > nr_running(busiest))
			busiest = o;
	}
	if (!busiest)
		return false;
	int idx = movable_index(sim, busiest, c, true, NULL);
	if (idx < 0)
		return false;
	migrate(sim, busiest, idx, c);
	return true;
}

/* Per-state invariants (sched.h) of the tasks a switch moved: curr is
 * RUNNING here, prev (back on the queue if still runnable) is RUNNABLE
 * here or has left; no task is both.  O(1): a scan of the whole queue at
 * every switch cost as much as the switch at thousands of tasks per CPU. */
static void check_switch(const struct cpu *c, const struct task *prev)
{
	if (c->curr)
		INVARIANT(c->curr->state == TASK_RUNNING && c->curr->cpu == c, "cpu%d: curr %s not running here",
			  c->id, c->curr->name);
	if (prev && prev != c->curr && prev->state == TASK_RUNNABLE)
		INVARIANT(prev->cpu == c, "cpu%d: queued task %s is on cpu%d", c->id, prev->name,
			  prev->cpu ? prev->cpu->id : -1);
}

/* __schedule(): put prev back if still runnable, pick next, switch. */
static void schedule(struct sim *sim, struct cpu *c)
{
	struct task *prev = c->curr, *next = NULL;
	int idx;

	account_curr(sim, c);
	c->need_resched = false;
	/* cond_resched_softirq: softirqs back on (they run first) before switching */
	c->bh_off = false;
	if (prev)
		prev->last_ran = sim->now;
	if (prev && prev->state == TASK_RUNNING) {
		rq_add(c, prev);
	}
	c->curr = NULL;
	idx = rq_pick(c);
	if (idx < 0 && pull_task(sim, c, 1))
		idx = rq_pick(c);
	if (idx >= 0) {
		next = c->rq[idx];
		rq_remove_at(c, (uint32_t)idx);
		next->state = TASK_RUNNING;
		next->cpu = c;
	}
	c->curr = next;
	c->exec_start = sim->now;
	if (next) {
		sim_ns period = latency_ns(c);
		uint32_t nr = nr_running(c);
		sim_ns mg = min_gran_ns(c);
		if ((sim_ns)nr * mg > period)
			period = (sim_ns)nr * mg;
		c->slice_end = sim->now + (eevdf(c) ? mg : period / (nr ? nr : 1));
		if (next->sleep_start >= 0) {
			next->sleep_ns += sim->now - next->sleep_start;
			next->sleep_start = -1;
		}
	}
	/* update_min_vruntime: next has the smallest vruntime of the queue
	 * (rq_pick), so the scan gives next's unless it is negative, which the
	 * scan takes for "none yet" */
	if (!next || next->vruntime_ns >= 0 || c->nrq == 0) {
		if (next && next->vruntime_ns > c->min_vruntime)
			c->min_vruntime = next->vruntime_ns;
	} else {
		update_min_vruntime(c);
	}
	check_switch(c, prev);
	if (prev != next) {
		sim->cnt.cs++;
		sim->cnt.host[c->host->id].cs++;
		cpu_charge(sim, c, COST_CTXSW, c->host->cfg->cost_cycles[COST_CTXSW]);
	}
}

void sched_start_task(struct sim *sim, struct task *t, struct cpu *c)
{
	t->vruntime_ns = c->min_vruntime;
	t->sleep_start = -1;
	t->last_ran = sim->now;
	rq_enqueue(sim, c, t);
	if (!c->curr)
		c->need_resched = true;
	cpu_kick(sim, c);
}

void sched_process_step(struct sim *sim, struct cpu *c)
{
	if (c->curr == NULL || c->need_resched) {
		if (c->curr == NULL && c->nrq == 0 && !pull_task(sim, c, 1)) {
			c->need_resched = false;
			return; /* stay idle */
		}
		schedule(sim, c);
		return;
	}
	struct task *t = c->curr;
	if (t->ops->step(sim, c, t) == APP_BLOCK) {
		INVARIANT(t->state == TASK_SLEEPING, "task %s blocked without sleeping", t->name);
		schedule(sim, c);
	}
}

void sched_block(struct sim *sim, struct cpu *c, struct task *t)
{
	INVARIANT(c->curr == t && t->state == TASK_RUNNING, "task %s blocks but is not running on cpu%d", t->name,
		  c->id);
	t->state = TASK_SLEEPING;
	t->sleep_start = sim->now;
}

/* cpus_share_cache: the same last-level-cache domain (host.llc_cpus). */
static bool share_cache(const struct cpu *a, const struct cpu *b)
{
	int llc = a->host->cfg->llc_cpus;
	return llc <= 0 || a->id / llc == b->id / llc;
}

/* imbalance_pct of the lowest domain spanning both CPUs (3.6 topology:
 * SD_SIBLING_INIT 110 within a last-level cache, SD_CPU_INIT 125 across). */
static int64_t imbalance_pct(const struct cpu *a, const struct cpu *b)
{
	return llc_domains(a) && a->host->cfg->llc_cpus > 1 && share_cache(a, b) ? 110 : 125;
}

/* wake_affine (kernel/sched/fair.c, 3.6) with loads counted in tasks of
 * equal weight: affine when 100 * (this_load + 1) <= (100 + (pct - 100) / 2)
 * * prev_load, pct the imbalance_pct of the domain spanning both. */
static bool wake_affine(const struct cpu *waker, const struct cpu *prev, bool sync)
{
	int64_t this_load = nr_running(waker), prev_load = nr_running(prev);

	if (sync && waker->curr)
		this_load -= 1; /* the waker is about to sleep */
	if (this_load <= 0)
		return true;
	return 100 * (this_load + 1) <= (100 + (imbalance_pct(waker, prev) - 100) / 2) * prev_load;
}

static struct cpu *select_cpu(struct cpu *waker, struct task *t, bool sync)
{
	struct host *h = t->host;
	struct cpu *prev = t->cpu, *target;

	if (t->pinned_cpu >= 0)
		return &h->cpus[t->pinned_cpu];
	target = prev;
	if (waker && waker != prev && waker->host == h && h->sim->sc->wake_affine && wake_affine(waker, prev, sync))
		target = waker;
	/* select_idle_sibling: an idle CPU in the target's LLC */
	if (cpu_is_idle(target))
		return target;
	if (share_cache(prev, target) && cpu_is_idle(prev))
		return prev;
	/* the first idle CPU of target's LLC after it, circularly: the LLC is
	 * the ids [lo, hi), so that is lo .. hi - 1 from target + 1 on */
	int llc = h->cfg->llc_cpus, lo = 0, hi = h->ncpus;
	if (llc > 0) {
		lo = target->id / llc * llc;
		hi = lo + llc < h->ncpus ? lo + llc : h->ncpus;
	}
	for (int id = target->id + 1; id < hi; id++)
		if (cpu_is_idle(&h->cpus[id]))
			return &h->cpus[id];
	for (int id = lo; id <= target->id; id++)
		if (cpu_is_idle(&h->cpus[id]))
			return &h->cpus[id];
	return target;
}

/* An idle CPU polls TIF_NEED_RESCHED for a while after it went idle (the
 * idle loop and cpuidle's poll state, before it halts): a wakeup then needs
 * no IPI (set_nr_if_polling, sched_wake_idle_without_ipi).  That while is
 * host.idle_poll at every entry (idle_poll_dist = fixed), or it varies:
 * do_idle polls from its first instruction until call_cpuidle clears the
 * flag (current_clr_polling_and_test), and what lies between, the governor
 * and tick_nohz_idle_stop_tick's timer reprogramming, takes a different
 * time at each entry; some entries halt at once.  A wakeup g after the CPU
 * went idle then finds it polling with the chance idle_poll_share times
 * exp(-g / idle_poll) (exp), or times the chance that a normal window of
 * mean idle_poll and s.d. idle_poll_sd lasts past g (normal: a window of
 * nearly one length, as the reader's CPU under iperf3 shows,
 * tools/wakeups-live --gaps).  The window is drawn once per entry from a
 * Weyl sequence, u_k = frac(1/2 + k / phi) (an evenly spread quasi-random
 * sequence: no random stream is used, so the cost jitter's draws stay as
 * they were, and the share of cheap wakeups follows the parameters
 * smoothly, as calibration's differences want). */
sim_ns sched_idle_window(struct cpu *c)
{
	const struct host_cfg *hc = c->host->cfg;
	double u, share = hc->idle_poll_share;

	if (hc->idle_poll_dist == POLL_FIXED)
		return hc->idle_poll_ns;
	u = 0.5 + 0.6180339887498949 * (double)c->idle_entries++;
	u -= (double)(uint64_t)u;
	if (u >= share || u <= 0)
		return 0;
	if (hc->idle_poll_dist == POLL_NORMAL) {
		double w = (double)hc->idle_poll_ns + (double)hc->idle_poll_sd_ns * gsl_cdf_ugaussian_Pinv(u / share);
		return w > 0 ? (sim_ns)llround(w) : 0;
	}
	return (sim_ns)llround(-(double)hc->idle_poll_ns * log(u / share));
}

static bool idle_polling(const struct sim *sim, const struct cpu *c)
{
	return cpu_is_idle(c) && c->idle_since >= 0 && sim->now - c->idle_since < c->idle_window;
}

/* A VM guest's halted vCPU that its hypervisor still polls: KVM's
 * kvm_vcpu_halt spins up to halt_poll_ns (Linux 4.0+, f7819512996f; grown
 * and shrunk per vCPU since 4.3, aca6ff29c406) before it schedules the
 * vCPU's thread out.  An IPI then needs no host wakeup: the sender's VM
 * exit is short and the vCPU resumes at once; past the window it pays the
 * wakeup of a descheduled thread (tools/bin/primcost --wake-gaps shows the
 * cliff).  The window counts from the guest's idle entry (its own poll,
 * idle_poll, is ~1 us on such hosts). */
static bool host_polls_vcpu(const struct sim *sim, const struct cpu *c)
{
	sim_ns w = c->host->cfg->vm_halt_poll_ns;
	return w > 0 && cpu_is_idle(c) && c->idle_since >= 0 && sim->now - c->idle_since < w;
}

/* Past the poll, a CPU in MWAIT (host.idle = mwait) still has
 * TIF_POLLING_NRFLAG set, armed by mwait_idle_with_hints on its thread
 * flags (3.13+, current_set_polling_and_test): setting TIF_NEED_RESCHED
 * wakes it without an IPI (set_nr_and_not_polling, set_nr_if_polling).
 * One still switching to its idle task gets none from resched_curr
 * either: try_to_wake_up waits out the wakee's p->on_cpu, and do_idle
 * polls from its first instruction.  A wake list's IPI (queued) tests the
 * idle task's flag instead (set_nr_if_polling(rq->idle)), which is clear
 * until the idle task runs, so that one is sent. */
static bool wakes_without_ipi(const struct sim *sim, const struct cpu *c, bool queued)
{
	if (idle_polling(sim, c))
		return true;
	if (c->host->cfg->idle != IDLE_MWAIT || !host_kernel_at_least(c->host, 3, 13))
		return false; /* before 3.13 the idle loop cleared TS_POLLING around MWAIT */
	return cpu_is_idle(c) || (!queued && c->curr == NULL && c->running == CTX_PROCESS && c->nirq == 0);
}

/* When a CPU woken now runs its first instruction: a halted one (in HLT
 * or MWAIT past the poll) after its exit latency (host.idle_exit), or
 * host.vm_halt_poll_exit while its hypervisor still polls it. */
static sim_ns wake_time(const struct sim *sim, const struct cpu *c)
{
	if (!cpu_is_idle(c) || idle_polling(sim, c))
		return sim->now;
	return sim->now + (host_polls_vcpu(sim, c) ? c->host->cfg->vm_halt_poll_exit_ns : c->host->cfg->idle_exit_ns);
}

/* Make a woken CPU run at t (wake_time): now if it is running or polls,
 * else after its exit latency. */
static void kick_at_wake(struct sim *sim, struct cpu *c, sim_ns t)
{
	if (t > sim->now)
		cpu_kick_at(sim, c, t);
	else
		cpu_kick(sim, c);
}

/* When an IPI sent now is taken on c: a halted CPU's wake_time, or, on a
 * VM host, host.ipi_latency later on a vCPU that is not halted (the host
 * must stop it to inject the interrupt; 0 on bare metal: at once). */
static sim_ns ipi_arrival(const struct sim *sim, const struct cpu *c)
{
	if (cpu_is_idle(c) && !idle_polling(sim, c))
		return wake_time(sim, c);
	return sim->now + c->host->cfg->ipi_latency_ns;
}

/* An IPI to `to`, or a wakeup of it without one (no_ipi), in the
 * timeline's step where `to` is the first connection's reader's CPU
 * (run --timeline; timeline.h); out of line, as app.c's start_note */
__attribute__((noinline, cold)) static void timeline_ipi_note(struct sim *sim, const struct cpu *to, bool no_ipi)
{
	struct timeline_step *s;

	if (to != sim->tl->reader_cpu || (s = timeline_step_at(sim->tl, sim->now, false)) == NULL)
		return;
	if (no_ipi)
		s->no_ipi++;
	else
		s->ipis++;
}

static inline void timeline_ipi(struct sim *sim, const struct cpu *to, bool no_ipi)
{
	if (__builtin_expect(sim->tl != NULL, 0))
		timeline_ipi_note(sim, to, no_ipi);
}

/* An IPI sent from `from` (charged the send, if a CPU sends it) to `to`: counted. */
static void ipi_account(struct sim *sim, struct cpu *from, struct cpu *to, enum irq_kind kind)
{
	timeline_ipi(sim, to, false);
	if (from) {
		enum cost_id k = host_polls_vcpu(sim, to) ? COST_IPI_SEND_POLLED : COST_IPI_SEND;
		cpu_charge(sim, from, k, from->host->cfg->cost_cycles[k]);
	}
	if (kind == IRQ_IPI_RES) {
		sim->cnt.res_ipis++;
		sim->cnt.host[to->host->id].res_ipis++;
	} else {
		sim->cnt.cal_ipis++;
		sim->cnt.host[to->host->id].cal_ipis++;
	}
}

/* One IPI from `from` to `to`; queued: for a wake list (ttwu_queue_remote,
 * ttwu_queue_wakelist), else resched_curr's. */
static void send_ipi(struct sim *sim, struct cpu *from, struct cpu *to, enum irq_kind kind, bool queued)
{
	if (wakes_without_ipi(sim, to, queued)) {
		sim->cnt.wake_no_ipi++;
		timeline_ipi(sim, to, true);
		kick_at_wake(sim, to, wake_time(sim, to));
		return;
	}
	ipi_account(sim, from, to, kind);
	cpu_raise_irq_at(sim, to, ipi_arrival(sim, to), kind);
}

static void resched_cpu(struct sim *sim, struct cpu *waker, struct cpu *target)
{
	if (target->need_resched)
		return; /* already flagged: no second IPI (resched_curr) */
	target->need_resched = true;
	if (target != waker)
		send_ipi(sim, waker, target, IRQ_IPI_RES, false);
}

/* Since Linux 5.8 (ttwu_queue_wakelist, ttwu_queue_cond) a remote wakeup
 * is queued on the target's wake list and sent as a function-call IPI
 * (CAL) when the target is in another LLC; the target then activates the
 * task and reschedules itself, so no RES follows.  Within one LLC, 5.8 to
 * 5.19 queue only a wakee still descheduling on the target (WF_ON_CPU, not
 * modelled): the waker activates it and sends RES to preempt.  Since 6.0
 * (f3dd3f674555, "sched: Remove the limitation of WF_ON_CPU on wakelist if
 * wakee cpu is idle") a target with nothing to run, !cpu_rq(cpu)->nr_running,
 * takes the wakelist too: idle, or in an interrupt or softirq on its idle
 * task, which is where the model's reader CPU often is (NET_RX of its own
 * ACKs on loopback).  no_task is that test, made before the enqueue. */
static bool use_wakelist(const struct cpu *waker, const struct cpu *target, bool no_task)
{
	if (!waker || waker == target || !host_kernel_at_least(target->host, 5, 8))
		return false;
	return !share_cache(waker, target) || (no_task && host_kernel_at_least(target->host, 6, 0));
}

/* Linux 3.0 to 5.7 (ttwu_queue, sched_feat TTWU_QUEUE, commit 317f394160e9)
 * queue a remote wakeup on the target's wake_list and send it the
 * scheduler IPI, which counts as RES whether or not the wakee preempts;
 * since 3.5 only across last-level caches (commit 518cd6234178, "sched:
 * Only queue remote wakeups when crossing cache boundaries"), within one
 * the waker activates the task itself and sends RES only to preempt. */
static bool use_ttwu_queue(const struct cpu *waker, const struct cpu *target)
{
	const struct host *h = target->host;
	if (!waker || waker == target || !host_kernel_at_least(h, 3, 0) || host_kernel_at_least(h, 5, 8))
		return false;
	return !host_kernel_at_least(h, 3, 5) || !share_cache(waker, target);
}

/* ttwu_do_activate: place t on target's queue (place_entity: a sleeper
 * gets at most half a latency of credit under CFS; none under EEVDF,
 * which keeps only its lag, taken here as none) and tell whether it
 * preempts target's current task. */
static bool ttwu_do_activate(struct sim *sim, struct cpu *target, struct task *t)
{
	double floor_v = target->min_vruntime - (eevdf(target) ? 0.0 : (double)latency_ns(target) / 2);
	bool preempt;

	if (t->cpu != target) { /* migrating: vruntime is relative to the old queue */
		t->vruntime_ns = t->vruntime_ns - t->cpu->min_vruntime + target->min_vruntime;
		sim->cnt.migrations++;
	}
	if (t->vruntime_ns < floor_v)
		t->vruntime_ns = floor_v;
	rq_enqueue(sim, target, t);
	preempt = target->curr == NULL;
	if (!preempt && eevdf(target)) { /* check_preempt_wakeup_fair: pick_eevdf, RUN_TO_PARITY */
		preempt = sim->now >= target->slice_end;
	} else if (!preempt) { /* check_preempt_wakeup */
		struct task *cur = target->curr;
		double cur_v = cur->vruntime_ns + (double)(sim->now - target->exec_start);
		preempt = cur_v - t->vruntime_ns > (double)wakeup_gran_ns(target);
	}
	return preempt;
}

/* The wake list's IPI reaches the target (its id in arg): raised with its
 * task.  With the target's ring full, a pending IPI flushes the list. */
static void wakelist_arrive(struct sim *sim, void *obj, uint64_t arg)
{
	struct task *t = obj;
	struct cpu *target = &t->cpu->host->cpus[arg];

	if (target->nirq == CPU_IRQ_RING)
		sched_ttwu_pending(sim, target, t);
	else
		cpu_raise_irq(sim, target, IRQ_IPI_WAKE, t);
}

void sched_ttwu_pending(struct sim *sim, struct cpu *c, struct task *t)
{
	INVARIANT(t->state == TASK_WAKING, "task %s activated on cpu%d but not waking", t->name, c->id);
	t->state = TASK_SLEEPING;
	if (ttwu_do_activate(sim, c, t))
		c->need_resched = true; /* wakeup_preempt: resched_curr of this CPU, no IPI */
	cpu_kick(sim, c);
}

void sched_wakeup(struct sim *sim, struct cpu *waker, struct task *t, bool sync)
{
	struct cpu *target;
	bool no_task, queued_res, queued;
	sim_ns runs_at;

	if (t->state != TASK_SLEEPING)
		return;
	sim->cnt.wakeups++;
	if (waker)
		cpu_charge(sim, waker, COST_WAKEUP, waker->host->cfg->cost_cycles[COST_WAKEUP]);
	target = select_cpu(waker, t, sync);
	no_task = nr_running(target) == 0;
	runs_at = wake_time(sim, target);
	queued_res = use_ttwu_queue(waker, target);
	queued = queued_res || use_wakelist(waker, target, no_task);
	/* A wake list is flushed by the target's IPI handler, which activates
	 * the task (sched_ttwu_pending: 3.0+ scheduler_ipi, 5.8+
	 * generic_smp_call_function_single_interrupt).  Where the IPI takes
	 * time to arrive (host.ipi_latency, a VM), the task waits for it on no
	 * run queue. */
	if (queued && target->host->cfg->ipi_latency_ns > 0 && !wakes_without_ipi(sim, target, true)) {
		enum irq_kind kind = queued_res ? IRQ_IPI_RES : IRQ_IPI_CAL;
		ipi_account(sim, waker, target, kind);
		t->state = TASK_WAKING;
		sim_at(sim, ipi_arrival(sim, target), wakelist_arrive, t, (uint64_t)target->id);
		return;
	}
	{
		bool preempt = ttwu_do_activate(sim, target, t);
		/* queued on the target's wake list: the IPI is sent whether or
		 * not the wakee preempts (RES before 5.8, CAL since) */
		if (queued) {
			send_ipi(sim, waker, target, queued_res ? IRQ_IPI_RES : IRQ_IPI_CAL, true);
			if (preempt)
				target->need_resched = true;
		} else if (preempt) {
			resched_cpu(sim, waker, target);
		}
	}
	if (target != waker)
		kick_at_wake(sim, target, runs_at);
}

/* sched.domains = llc: rebalance_domains (3.6) over two levels, the CPUs
 * of one last-level cache (SD_SIBLING_INIT: instantaneous loads, busy_idx
 * 0, imbalance_pct 110, balance_interval 1..2 ms) and the host, whose
 * groups are the LLCs (SD_CPU_INIT: cpu_load[2], imbalance_pct 125, 1..4
 * ms).  The interval is multiplied by busy_factor 64 on a busy CPU,
 * doubles up to its maximum while the domain is balanced and drops back
 * after a pull.  A level balances when its busiest group's load is above
 * ours by imbalance_pct, ours is below the domain's average and the gap is
 * at least one task (find_busiest_group, fix_small_imbalance); then one
 * task comes from the busiest CPU of that group (find_busiest_queue,
 * move_tasks). */
#define BUSY_FACTOR 64

static double level_load(const struct cpu *c, int level)
{
	return level == 0 ? (double)nr_running(c) : c->load_avg;
}

/* Load of the group holding c (a CPU at level 0, its LLC at level 1), per CPU. */
static double group_load(const struct cpu *c, int level)
{
	const struct host *h = c->host;
	double sum = 0;
	int n = 0;
	if (level == 0 || h->cfg->llc_cpus <= 1)
		return level_load(c, level);
	for (int i = 0; i < h->ncpus; i++)
		if (share_cache(&h->cpus[i], c)) {
			sum += level_load(&h->cpus[i], level);
			n++;
		}
	return sum / n;
}

/* The first CPU of each other group in c's domain at this level. */
static bool other_group_leader(const struct cpu *c, const struct cpu *o, int level)
{
	int llc = c->host->cfg->llc_cpus;
	if (o == c)
		return false;
	if (level == 0)
		return llc > 1 && share_cache(c, o);
	return llc <= 1 || (!share_cache(c, o) && o->id % llc == 0);
}

/* One load_balance at `level` for c; true if a task was pulled. */
static bool balance_level(struct sim *sim, struct cpu *c, int level)
{
	struct host *h = c->host;
	double pct = level == 0 ? 110 : 125;
	double this_load = group_load(c, level), max_load = -1, total = this_load;
	int ngroups = 1, idx;
	const struct cpu *group = NULL;
	struct cpu *busiest = NULL;
	bool hot = false;

	for (int i = 0; i < h->ncpus; i++) {
		const struct cpu *o = &h->cpus[i];
		if (!other_group_leader(c, o, level))
			continue;
		double l = group_load(o, level);
		total += l;
		ngroups++;
		if (l > max_load) {
			max_load = l;
			group = o;
		}
	}
	if (!group || this_load >= max_load || this_load * ngroups >= total ||
	    100 * max_load <= pct * this_load || max_load - this_load < 1.0)
		return false;
	for (int i = 0; i < h->ncpus; i++) {
		struct cpu *o = &h->cpus[i];
		bool in_group = level == 0 || h->cfg->llc_cpus <= 1 ? o == group : share_cache(o, group);
		if (in_group && o != c && o->nrq && (!busiest || nr_running(o) > nr_running(busiest)))
			busiest = o;
	}
	if (!busiest)
		return false;
	/* cache_nice_tries: 0 within an LLC, 1 across */
	idx = movable_index(sim, busiest, c, c->balance_failed[level] > (uint32_t)level, &hot);
	if (idx < 0) {
		if (hot)
			c->balance_failed[level]++;
		return false;
	}
	migrate(sim, busiest, idx, c);
	c->balance_failed[level] = 0;
	if (!c->curr)
		c->need_resched = true;
	return true;
}

/* sched.domains = host: one domain over the host, balanced every 64 ms
 * (balance_interval 1 ms * busy_factor) on decayed loads: when the busiest
 * CPU's is more than 125% of ours and at least a task above it, pull one
 * waiting task. */
#define BALANCE_BUSY_NS (64 * NS_PER_MS)
static void host_balance(struct sim *sim, struct cpu *c)
{
	struct host *h = c->host;
	struct cpu *busiest = NULL;
	int idx;

	if (sim->now < c->next_balance[0])
		return;
	c->next_balance[0] = sim->now + BALANCE_BUSY_NS;
	for (int i = 0; i < h->ncpus; i++) {
		struct cpu *o = &h->cpus[i];
		if (o != c && o->nrq && (!busiest || o->load_avg > busiest->load_avg))
			busiest = o;
	}
	if (!busiest || 100 * busiest->load_avg <= 125 * c->load_avg || busiest->load_avg - c->load_avg < 1.0)
		return;
	idx = movable_index(sim, busiest, c, true, NULL);
	if (idx < 0)
		return;
	migrate(sim, busiest, idx, c);
	if (!c->curr)
		c->need_resched = true;
}

static void periodic_balance(struct sim *sim, struct cpu *c)
{
	static const uint32_t max_ms[2] = {2, 4};

	if (!llc_domains(c)) {
		host_balance(sim, c);
		return;
	}

	for (int level = 0; level < 2; level++) {
		if (sim->now < c->next_balance[level])
			continue;
		if (balance_level(sim, c, level) || c->balance_ms[level] == 0)
			c->balance_ms[level] = 1;
		else if (c->balance_ms[level] < max_ms[level])
			c->balance_ms[level] *= 2;
		c->next_balance[level] =
			sim->now + (sim_ns)c->balance_ms[level] * NS_PER_MS * (c->curr ? BUSY_FACTOR : 1);
	}
}

void sched_tick(struct sim *sim, struct cpu *c)
{
	account_curr(sim, c);
	if (c->curr && c->nrq && sim->now >= c->slice_end)
		c->need_resched = true; /* check_preempt_tick */
	/* cpu_load[2]: (3 * old + now) / 4 per tick (update_cpu_load) */
	c->load_avg = (3 * c->load_avg + nr_running(c)) / 4;
	periodic_balance(sim, c);
}

void sched_ipi(struct sim *sim, struct cpu *c, int kind)
{
	(void)sim;
	(void)kind;
	/* need_resched was set by the sender; schedule() runs at the next
	 * process boundary, after any pending softirqs. */
}
