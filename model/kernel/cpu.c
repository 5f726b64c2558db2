/*
 * cpu.c: dispatch, preemption and accounting for one CPU (see cpu.h).
 *
 * Softirq processing follows net_rx_action (net/core/dev.c): one handler
 * run takes up to netdev_budget packets from the backlog and the NAPI list;
 * if work remains it is raised again and counts as another run, as
 * /proc/softirqs counts handler runs, not packets.  The backlog is raised
 * only when it was not already scheduled (enqueue_to_backlog); a run
 * completes it when it takes the last queued packet (process_backlog
 * splices the queue and completes once the batch is the last), so a packet
 * sent in reply while that one is processed raises a new run, which
 * __do_softirq counts again.  Not modelled: the 2-jiffy time limit and the
 * hand-off to ksoftirqd.
 */
#include "cpu.h"

#include <math.h>
#include <stdlib.h>

#include "rng.h"
#include "sched.h"
#include "util.h"

/* cpu.h's lines, as laid out there */
_Static_assert(offsetof(struct cpu, host) == 64 && offsetof(struct cpu, rng) == 128 &&
		       offsetof(struct cpu, acct) == 192 && _Alignof(struct cpu) == 64,
	       "struct cpu: the lines a step reads moved");

void cpu_init(struct sim *sim, struct host *h, struct cpu *c, int id, int ntasks_max, int nconns_max)
{
	c->host = h;
	rng_init(&c->rng, sim->sc->seed, (uint64_t)h->id << 16 | (uint64_t)id);
	c->id = id;
	c->running = -1;
	c->rq = xcalloc((size_t)ntasks_max + 1, sizeof(*c->rq));
	c->timers_cap = (uint32_t)nconns_max + 1;
	c->timers = xcalloc(c->timers_cap, sizeof(*c->timers));
	c->paced = xcalloc(c->timers_cap, sizeof(*c->paced));
	c->napi = xcalloc(8, sizeof(*c->napi));
	c->idle_window = sched_idle_window(c); /* idle from time 0 */
	if (h->speed_sd > 0) {
		/* a stream apart from the cost jitter's (bit 40 set), so a run
		 * with the wander draws the same jitter; started from the
		 * process's stationary law */
		rng_init(&c->speed_rng, sim->sc->seed, (uint64_t)1 << 40 | (uint64_t)h->id << 16 | (uint64_t)id);
		c->speed_x = rng_gaussian(&c->speed_rng, h->speed_sd);
		c->speed_next = h->speed_dt;
		c->speed_f = exp(c->speed_x - h->speed_sd * h->speed_sd / 2);
	}
}

/*
 * The wander of a vCPU's speed (host.speed_sd): x, the log of the factor
 * on its costs, follows an Ornstein-Uhlenbeck process in steps of speed_dt
 * (x' = rho x + sd sqrt(1 - rho^2) N(0, 1), rho = exp(-dt / tau)), moved
 * whenever a charge finds the step passed -- every step taken in turn, so
 * the path is a function of time alone, whatever work the CPU did.  The
 * factor is exp(x - sd^2 / 2), whose mean is 1: the wander leaves the mean
 * cost where it was.  Measured by tools/bin/cpuspeed --wander (two threads
 * timing the same work on two CPUs at once).
 */
double cpu_speed_factor(const struct sim *sim, struct cpu *c)
{
	const struct host *h = c->host;

	if (sim->now >= c->speed_next) {
		do {
			c->speed_x = h->speed_rho * c->speed_x + rng_gaussian(&c->speed_rng, h->speed_inn);
			c->speed_next += h->speed_dt;
		} while (sim->now >= c->speed_next);
		c->speed_f = exp(c->speed_x - h->speed_sd * h->speed_sd / 2);
	}
	return c->speed_f;
}

void cpu_release(struct cpu *c)
{
	free(c->rq);
	free(c->timers);
	free(c->paced);
	free(c->napi);
}

static void chunk_done(struct sim *sim, void *obj, uint64_t arg)
{
	struct cpu *c = obj;
	(void)arg;
	INVARIANT(c->running >= 0, "cpu%d: chunk done while not running", c->id);
	c->running = -1;
	cpu_dispatch(sim, c);
}

/* What became of a step or a chunk (cpu_dispatch goes on after all but
 * CHUNK_QUEUED). */
enum chunk_fate {
	CHUNK_NONE,   /* the step cost nothing: no chunk */
	CHUNK_QUEUED, /* the chunk runs: chunk_done comes from the queue */
	CHUNK_ENDED,  /* its end was the next event anyway: taken at once
		       * (sim_next_inline), the clock is there, c is free */
};

/* Start a chunk of ns.  Only cpu_dispatch calls this, and cpu_dispatch is
 * always its handler's last act (chunk_done, kick_ev, irq_ev), so when the
 * chunk's end is due before anything queued it is the next event and ends
 * here, as chunk_done would end it, without a queue entry: most steps of a
 * poll or a send loop end so (a CPU's next step is nearly always due
 * before anything else). */
static enum chunk_fate chunk_start(struct sim *sim, struct cpu *c, int ctx, sim_ns ns)
{
	INVARIANT(ns > 0, "cpu%d: empty chunk", c->id);
	c->running = ctx;
	c->chunk_end = sim->now + ns;
	if (sim_next_inline(sim, c->chunk_end, 0, chunk_done, c, 0, &c->chunk_tm)) {
		c->running = -1; /* chunk_done's work, before its cpu_dispatch */
		return CHUNK_ENDED;
	}
	evq_timer_arm_lane(&sim->evq, &c->chunk_tm, c->chunk_end, chunk_done, c, 0);
	return CHUNK_QUEUED;
}

/* The charge log (chargelog.h): a step that begins in its window marks
 * the CPU's charges, and its finish logs what each cost and context grew
 * by.  Out of line: a run without the log tests sim->chg twice a step. */
static int cpu_index(const struct sim *sim, const struct cpu *c)
{
	return (c->host->id ? sim->hosts[0].ncpus : 0) + c->id;
}

__attribute__((cold, noinline)) static void chargelog_begin(struct sim *sim, struct cpu *c)
{
	struct chargelog *cl = sim->chg;
	int i = cpu_index(sim, c);
	double *mark = cl->mark + (size_t)i * CTX_N * COST_N;

	cl->open[i] = sim->now >= cl->from && sim->now < cl->to && !cl->truncated;
	if (!cl->open[i])
		return;
	for (int x = 0; x < CTX_N; x++)
		for (int k = 0; k < COST_N; k++)
			mark[x * COST_N + k] = c->acct.cost[k].ctx_ns[x];
}

__attribute__((cold, noinline)) static void chargelog_finish(struct sim *sim, struct cpu *c, sim_ns ns)
{
	struct chargelog *cl = sim->chg;
	int i = cpu_index(sim, c);
	const double *mark = cl->mark + (size_t)i * CTX_N * COST_N;

	if (!cl->open[i])
		return;
	cl->open[i] = false;
	cl->last_t = sim->now;
	for (int x = 0; x < CTX_N; x++)
		for (int k = 0; k < COST_N; k++) {
			double d = c->acct.cost[k].ctx_ns[x] - mark[x * COST_N + k];
			struct charge_row r = {.t = sim->now, .step_ns = ns, .cycles = d * c->host->cfg->ghz,
					       .host = (int16_t)c->host->id, .cpu = (int16_t)c->id,
					       .ctx = (uint8_t)x, .cost = (uint16_t)k};
			if (d > 0 && !chargelog_add(cl, &r))
				return;
		}
}

/* Turn the step's charged time into a chunk. */
static enum chunk_fate step_finish(struct sim *sim, struct cpu *c)
{
	sim_ns ns = sim_ns_round(c->step_ns);

	if (c->step_ns > 0 && ns == 0)
		ns = 1;
	c->step_ns = 0;
	if (__builtin_expect(sim->chg != NULL, 0))
		chargelog_finish(sim, c, ns);
	if (ns == 0)
		return CHUNK_NONE;
	return chunk_start(sim, c, c->step_ctx, ns);
}

static void step_begin(struct sim *sim, struct cpu *c, int ctx)
{
	c->step_ctx = ctx;
	c->step_ns = 0;
	if (__builtin_expect(sim->chg != NULL, 0))
		chargelog_begin(sim, c);
}

static void irq_step(struct sim *sim, struct cpu *c)
{
	struct irq_item it = c->irq[c->irq_head];

	c->irq_head = (c->irq_head + 1) % CPU_IRQ_RING;
	c->nirq--;
	switch ((enum irq_kind)it.kind) {
	case IRQ_IPI_RES:
	case IRQ_IPI_CAL:
		if (it.kind == IRQ_IPI_RES)
			c->acct.res++;
		else
			c->acct.cal++;
		cpu_charge(sim, c, COST_IPI_RECV, c->host->cfg->cost_cycles[COST_IPI_RECV]);
		sched_ipi(sim, c, it.kind);
		break;
	case IRQ_IPI_WAKE: /* a wake list's IPI: RES before 5.8 (scheduler_ipi), CAL since */
		if (host_kernel_at_least(c->host, 5, 8))
			c->acct.cal++;
		else
			c->acct.res++;
		cpu_charge(sim, c, COST_IPI_RECV, c->host->cfg->cost_cycles[COST_IPI_RECV]);
		sched_ttwu_pending(sim, c, it.obj);
		break;
	case IRQ_TICK:
		c->acct.loc++;
		/* the tick is an hrtimer's expiry (tick_sched_timer, run by
		 * hrtimer_interrupt since the high-resolution tick of 2.6.21):
		 * the local timer interrupt's own price, then the scheduler's
		 * work.  4.0+ here; the 3.x profiles priced the whole at tick */
		if (host_kernel_at_least(c->host, 4, 0))
			cpu_charge(sim, c, COST_TIMER_IRQ, c->host->cfg->cost_cycles[COST_TIMER_IRQ]);
		cpu_charge(sim, c, COST_TICK, c->host->cfg->cost_cycles[COST_TICK]);
		sched_tick(sim, c);
		break;
	case IRQ_TIMER_WAKE: /* hrtimer_wakeup of a sleeping task */
		c->acct.loc++;
		cpu_charge(sim, c, COST_TIMER, c->host->cfg->cost_cycles[COST_TIMER]);
		sched_wakeup(sim, c, it.obj, false);
		break;
	case IRQ_HRTIMER: /* a soft hrtimer expired: hrtimer_interrupt raises HRTIMER_SOFTIRQ */
		c->acct.loc++;
		sim->cnt.pace_irqs++;
		cpu_charge(sim, c, COST_TIMER_IRQ, c->host->cfg->cost_cycles[COST_TIMER_IRQ]);
		INVARIANT(c->npaced < c->timers_cap, "cpu%d: pacing timer list full", c->id);
		c->paced[c->npaced++] = it.obj;
		break;
	case IRQ_DEV:
		sim->vec->dev_irq(sim, c, it.obj);
		break;
	}
}

static bool softirq_pending(const struct cpu *c)
{
	return c->ntimers || c->npaced || c->netrx_pending || c->in_netrx;
}

/* One softirq step: a timer, the NET_RX entry, one packet, or the exit. */
static void softirq_step(struct sim *sim, struct cpu *c)
{
	const double *cost = c->host->cfg->cost_cycles;

	if (!c->in_netrx && c->ntimers) {
		struct tcp_conn *tc = c->timers[--c->ntimers];
		cpu_charge(sim, c, COST_TIMER, cost[COST_TIMER]);
		sim->vec->timer(sim, c, tc);
		return;
	}
	if (!c->in_netrx && c->npaced) { /* HRTIMER: __hrtimer_run_queues -> tcp_pace_kick */
		struct tcp_conn *tc = c->paced[0];
		for (uint32_t i = 1; i < c->npaced; i++)
			c->paced[i - 1] = c->paced[i];
		c->npaced--;
		sim->cnt.hrtimer_softirqs++;
		sim->cnt.host[c->host->id].hrtimer_softirqs++;
		c->acct.hrtimer++;
		cpu_charge(sim, c, COST_SOFTIRQ, cost[COST_SOFTIRQ]);
		sim->vec->hrtimer(sim, c, tc);
		return;
	}
	if (!c->in_netrx) {
		/* the backlog raises only with work queued; a NIC's napi_schedule
		 * from a hardirq during a run raises again, and __do_softirq runs
		 * the handler once more even if that run already polled it */
		INVARIANT(c->backlog.len || c->nnapi || sim->sc->link_type == LINK_NIC,
			  "cpu%d: NET_RX raised with nothing queued", c->id);
		c->in_netrx = true;
		c->netrx_pending = false;
		c->netrx_budget = sim->sc->netdev_budget;
		sim->cnt.netrx_softirqs++;
		sim->cnt.host[c->host->id].netrx_softirqs++;
		c->acct.netrx++;
		cpu_charge(sim, c, COST_SOFTIRQ, cost[COST_SOFTIRQ]);
		sim->vec->net_rx_begin(sim, c); /* net_rx_action begins with skb_defer_free_flush (5.17+) */
		return;
	}
	if (c->netrx_budget > 0 && c->backlog.len && !c->netrx_pending) {
		/* 4.14+: a packet alone on the queue whose work sent more (on lo
		 * an ACK that opened the writer's window) has them taken in this
		 * step, as cpu_softirq_inline does: process_backlog runs them
		 * before any other CPU could send what comes after them */
		bool alone = c->backlog.len == 1 && host_kernel_at_least(c->host, 4, 14);
		do {
			c->netrx_budget--;
			sim->vec->process_backlog(sim, c);
		} while (alone && c->backlog.len && c->netrx_budget > 0 && !c->netrx_pending);
		return;
	}
	if (c->netrx_budget > 0 && c->nnapi) {
		void *napi = c->napi[0];
		bool more;
		c->netrx_budget--; /* a poll's packets are charged by the driver */
		more = sim->vec->napi_poll(sim, c, napi);
		if (!more) {
			for (uint32_t i = 1; i < c->nnapi; i++)
				c->napi[i - 1] = c->napi[i];
			c->nnapi--;
		}
		return;
	}
	/* budget spent or nothing left: leave net_rx_action */
	c->in_netrx = false;
	if (c->nnapi || (c->backlog.len && c->backlog_sched))
		c->netrx_pending = true; /* __raise_softirq_irqoff again: another run */
}

void cpu_softirq_inline(struct sim *sim, struct cpu *c)
{
	int ctx = c->step_ctx;

	if (ctx != CTX_PROCESS || c->bh_off)
		return;
	c->step_ctx = CTX_SOFTIRQ; /* charged as softirq time, within this step */
	/* from 4.14 (the owner holds its socket through its step): only the
	 * first packet within the sender's step; the rest, each a step of its
	 * own right after it, so a reader on another CPU sees the segments of
	 * a GSO frame arrive one after another, not all at one instant.
	 * A frame that packet's own work sent from this softirq (on lo: an
	 * ACK that opened the writer's window, tcp_ack -> tcp_data_snd_check)
	 * is taken in the same step when the packet was alone on the queue
	 * (softirq_step): process_backlog finds it on this CPU's queue before
	 * net_rx_action returns to the task, all while the writer's socket is
	 * still spinlocked or just unlocked.  Left for a step after the task's
	 * whole chunk, it waited there microseconds while the writer, free
	 * in the model though not in the kernel, sent the next frame from
	 * its own CPU, which overtook it: out-of-order data and spurious
	 * fast retransmits the machine does not have (TCPOFOQueue 0-15 a
	 * second on every row of validation/live/amd-epyc-2cpu-2596.csv, the
	 * model up to 4,757 with sendfile). */
	while (softirq_pending(c)) {
		bool pkt = c->in_netrx && c->netrx_budget > 0 && c->backlog.len && !c->netrx_pending;
		softirq_step(sim, c);
		if (pkt && host_kernel_at_least(c->host, 4, 14))
			break;
	}
	c->step_ctx = ctx;
}

void cpu_dispatch(struct sim *sim, struct cpu *c)
{
	enum chunk_fate f;

	for (int guard = 0;; guard++) {
		INVARIANT(guard < 1000000, "cpu%d: no progress at t=%lld ns", c->id, (long long)sim->now);
		if (c->running >= 0)
			return;
		if (c->nirq) {
			step_begin(sim, c, CTX_HARDIRQ);
			irq_step(sim, c);
			if ((f = step_finish(sim, c)) == CHUNK_QUEUED)
				return;
			if (f == CHUNK_ENDED)
				guard = 0;
			continue;
		}
		if (c->left_ns[CTX_SOFTIRQ]) {
			f = chunk_start(sim, c, CTX_SOFTIRQ, c->left_ns[CTX_SOFTIRQ]);
			c->left_ns[CTX_SOFTIRQ] = 0;
			if (f == CHUNK_QUEUED)
				return;
			guard = 0;
			continue;
		}
		if (softirq_pending(c) && !c->bh_off) {
			step_begin(sim, c, CTX_SOFTIRQ);
			softirq_step(sim, c);
			if ((f = step_finish(sim, c)) == CHUNK_QUEUED)
				return;
			if (f == CHUNK_ENDED)
				guard = 0;
			continue;
		}
		if (c->left_ns[CTX_PROCESS]) {
			f = chunk_start(sim, c, CTX_PROCESS, c->left_ns[CTX_PROCESS]);
			c->left_ns[CTX_PROCESS] = 0;
			if (f == CHUNK_QUEUED)
				return;
			guard = 0;
			continue;
		}
		step_begin(sim, c, CTX_PROCESS);
		sched_process_step(sim, c);
		/* the first work after idle: do_idle's way out (tick_nohz_idle_exit
		 * restarts the tick NOHZ stopped) before the task runs */
		if (c->idle_since >= 0 && c->step_ns > 0)
			cpu_charge(sim, c, COST_NOHZ_EXIT, c->host->cfg->cost_cycles[COST_NOHZ_EXIT]);
		if ((f = step_finish(sim, c)) != CHUNK_NONE) {
			c->idle_since = -1;
			if (f == CHUNK_QUEUED)
				return;
			guard = 0;
			continue;
		}
		if (c->curr == NULL && c->nirq == 0 && (!softirq_pending(c) || c->bh_off)) {
			if (c->idle_since < 0) {
				c->idle_since = sim->now;
				c->idle_window = sched_idle_window(c);
			}
			return;
		}
	}
}

static void kick_ev(struct sim *sim, void *obj, uint64_t arg)
{
	(void)arg;
	cpu_dispatch(sim, obj);
}

void cpu_kick(struct sim *sim, struct cpu *c)
{
	if (c->running < 0)
		sim_at(sim, sim->now, kick_ev, c, 0);
}

static void irq_ev(struct sim *sim, void *obj, uint64_t arg)
{
	struct cpu *c = obj;
	(void)arg;
	if (c->running >= 0 && c->running != CTX_HARDIRQ) {
		/* preempt: save what is left of the chunk */
		c->left_ns[c->running] = c->chunk_end - sim->now;
		INVARIANT(c->left_ns[c->running] >= 0, "cpu%d: chunk ends in the past", c->id);
		evq_timer_cancel_now(&sim->evq, &c->chunk_tm);
		c->running = -1;
	}
	cpu_dispatch(sim, c);
}

void cpu_kick_at(struct sim *sim, struct cpu *c, sim_ns t)
{
	sim_at(sim, t, kick_ev, c, 0);
}

static void irq_at_ev(struct sim *sim, void *obj, uint64_t arg)
{
	cpu_raise_irq(sim, obj, (enum irq_kind)arg, NULL);
}

void cpu_raise_irq_at(struct sim *sim, struct cpu *c, sim_ns t, enum irq_kind kind)
{
	/* in flight until t: it enters c's ring when it arrives */
	if (t <= sim->now)
		cpu_raise_irq(sim, c, kind, NULL);
	else
		sim_at(sim, t, irq_at_ev, c, (uint64_t)kind);
}

void cpu_raise_irq(struct sim *sim, struct cpu *c, enum irq_kind kind, void *obj)
{
	uint32_t tail;

	if (c->nirq == CPU_IRQ_RING)
		return; /* interrupts coalesce while one is pending */
	tail = (c->irq_head + c->nirq) % CPU_IRQ_RING;
	c->irq[tail].kind = (uint8_t)kind;
	c->irq[tail].obj = obj;
	c->nirq++;
	/* delivered through the queue so that a CPU mid-step is never re-entered */
	sim_at(sim, sim->now, irq_ev, c, 0);
}

void cpu_timer_fired(struct sim *sim, struct cpu *c, struct tcp_conn *conn)
{
	INVARIANT(c->ntimers < c->timers_cap, "cpu%d: timer list full", c->id);
	c->timers[c->ntimers++] = conn;
	cpu_kick(sim, c);
}

void cpu_napi_schedule(struct sim *sim, struct cpu *c, void *napi)
{
	for (uint32_t i = 0; i < c->nnapi; i++)
		if (c->napi[i] == napi)
			return;
	INVARIANT(c->nnapi < 8, "cpu%d: too many NAPI instances", c->id);
	c->napi[c->nnapi++] = napi;
	c->netrx_pending = true;
	(void)sim;
}
