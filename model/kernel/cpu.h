/*
 * cpu: one CPU's contexts, work chunks, preemption and accounting.
 *
 * Imitates the Linux execution model: hardirq work preempts softirq and
 * process work at once; softirqs run on the way out of a hardirq or at the
 * end of a process chunk (the local_bh_enable() after a transmit, which is
 * where loopback runs NET_RX); process work runs when neither is pending.
 *
 * Work is done in steps.  A step applies its effects at once and charges
 * its cost (cpu_charge); the CPU is then busy for the charged time before
 * its next step: one chunk.  Only a hardirq interrupts a chunk midway; the
 * interrupted chunk's remaining time is saved per context and resumed.
 *
 * States of a CPU (checked in cpu_dispatch):
 *   running >= 0   a chunk of context `running` executes until chunk_end
 *   running == -1  between chunks: dispatch picks the next step, highest
 *                  context first; with nothing to do the CPU is idle
 * Invariant: at most one saved chunk per context; a hardirq chunk is never
 * saved (hardirqs do not nest here).
 */
#ifndef TCPSIM_CPU_H
#define TCPSIM_CPU_H

#include <stddef.h>

#include "rng.h"
#include "sim.h"

/* IRQ_IPI_WAKE: a wake list's CAL IPI that carries its task (obj): its
 * handler activates it (sched_ttwu_pending) */
enum irq_kind { IRQ_IPI_RES, IRQ_IPI_CAL, IRQ_TICK, IRQ_DEV, IRQ_TIMER_WAKE, IRQ_HRTIMER, IRQ_IPI_WAKE };

struct irq_item {
	uint8_t kind;
	void *obj;
};

#define CPU_IRQ_RING 64

/*
 * Laid out by what a step reads.  With many CPUs nearly every event is
 * another CPU's and finds its struct cold, so what a dispatch reads from
 * the queue's pop of its chunk end to the next chunk's start (chunk_tm,
 * running, the pending work, curr, the step's cost, cpu_charge's stream)
 * fills the first three cache lines, and acct's per-context sums the
 * fourth; the rest is read on the paths that need it.  Every struct cpu
 * starts a cache line (the _Alignas, and host_init's allocation).
 */
struct cpu {
	/* line 0: the chunk in progress */
	_Alignas(64) struct evq_timer chunk_tm;
	int running;                 /* context of the executing chunk, -1 none */
	int step_ctx;                /* context charged by the current step */
	double step_ns;              /* cost of the current step so far */
	struct task *curr;           /* NULL: idle */

	/* line 1: what cpu_dispatch asks before it picks a step */
	struct host *host;
	sim_ns left_ns[CTX_N];       /* saved remainder of a preempted chunk */
	sim_ns chunk_end;
	sim_ns idle_since;
	uint32_t nirq;               /* hardirqs in irq[] */
	uint32_t ntimers;            /* connections in timers[] */
	uint32_t npaced;             /* connections in paced[] */
	bool netrx_pending;
	bool in_netrx;
	/* process context holds softirqs off (local_bh_disable: a socket
	 * owner draining its backlog in release_sock or its prequeue): what
	 * is raised meanwhile runs when it ends (local_bh_enable) */
	bool bh_off;
	bool need_resched;

	/* line 2: the jitter of the costs charged here, this CPU's own
	 * stream (rng.h) */
	struct rng rng;
	uint32_t nrq;                /* tasks in rq */
	int slab_free;               /* free skb objects cached on this CPU (see skb.c) */

	/* line 3 on: accounting */
	struct cpu_acct acct;
	struct cpu_acct mark;        /* acct at the end of warm-up */

	int id;

	/* hardirq */
	struct irq_item irq[CPU_IRQ_RING];
	uint32_t irq_head;

	/* softirq: NET_RX over the backlog and the NAPI list, TIMER over fired timers */
	bool backlog_sched;          /* the backlog's NAPI_STATE_SCHED */
	int netrx_budget;
	struct skb_list backlog;     /* per-CPU input queue (netif_rx) */
	void **napi;                 /* NAPI instances scheduled on this CPU */
	uint32_t nnapi;
	struct tcp_conn **timers;    /* connections whose delayed-ACK timer fired */
	uint32_t timers_cap;
	/* HRTIMER softirq: connections whose pacing timer expired here
	 * (HRTIMER_MODE_ABS_PINNED_SOFT: the CPU that armed it) */
	struct tcp_conn **paced;
	/* skb_attempt_defer_free (5.17+): received skbs allocated here and
	 * freed by a reader elsewhere, released at the next NET_RX run here
	 * (skb_defer_free_flush) */
	struct skb_list defer;

	/* process context: see sched.c */
	struct task **rq;            /* runnable, not running */
	sim_ns exec_start;
	sim_ns slice_end;
	double min_vruntime;
	double load_avg;             /* decayed nr_running, cpu_load[2] (sched.c) */
	/* periodic balancing per domain level (sched.c): 0 the LLC (SMT), 1 the host */
	sim_ns next_balance[2];
	uint32_t balance_ms[2];      /* sd->balance_interval */
	uint32_t balance_failed[2];  /* sd->nr_balance_failed */

	sim_ns idle_window;          /* how long it polls from idle_since (sched_idle_window) */
	uint64_t idle_entries;       /* idle entries so far: the window's quasi-random index */

	/* host.speed_sd: this CPU's log speed, the factor on its costs, when
	 * the speed next moves, and the stream it moves by (cpu_speed_factor) */
	double speed_x, speed_f;
	sim_ns speed_next;
	struct rng speed_rng;
};

/*
 * The handlers the layers above register when the sim is built (run.c,
 * sim_init), as Linux's open_softirq and request_irq do: the CPU model runs
 * them by vector and names none of them.  All are required.
 */
struct cpu_vectors {
	/* hardirq: the device's interrupt (the NIC's, netdev_irq) */
	void (*dev_irq)(struct sim *sim, struct cpu *c, void *obj);
	/* TIMER_SOFTIRQ: a connection's delayed-ACK timer (tcp_delack_timer) */
	void (*timer)(struct sim *sim, struct cpu *c, struct tcp_conn *tc);
	/* HRTIMER_SOFTIRQ: a connection's pacing timer (tcp_pace_kick) */
	void (*hrtimer)(struct sim *sim, struct cpu *c, struct tcp_conn *tc);
	/* NET_RX_SOFTIRQ, at the entry of a run (skb_defer_flush) */
	void (*net_rx_begin)(struct sim *sim, struct cpu *c);
	/* NET_RX: one packet off c's backlog (netdev_process_backlog) */
	void (*process_backlog)(struct sim *sim, struct cpu *c);
	/* NET_RX: one NAPI poll; true while work remains (netdev_napi_poll) */
	bool (*napi_poll)(struct sim *sim, struct cpu *c, void *napi);
};

void cpu_init(struct sim *sim, struct host *h, struct cpu *c, int id, int ntasks_max, int nconns_max);
void cpu_release(struct cpu *c);
/* host.speed_sd: the factor on c's costs now (its speed's inverse) */
double cpu_speed_factor(const struct sim *sim, struct cpu *c);

/* Charge `cycles` of cost `cost` to the step in progress on c, with the
 * run's cost jitter from c's own stream (inline: some two charges per
 * event). */
static inline void cpu_charge(struct sim *sim, struct cpu *c, enum cost_id cost, double cycles)
{
	double ns, jitter = sim->sc->cost_jitter;

	if (cycles <= 0)
		return;
	ns = cycles * c->host->ns_per_cycle;
	if (__builtin_expect(c->host->speed_sd > 0, 0))
		ns *= cpu_speed_factor(sim, c);
	if (jitter > 0) {
		double f = 1.0 + jitter * rng_gaussian(&c->rng, 1.0);
		ns *= f < 0.05 ? 0.05 : f;
	}
	c->step_ns += ns;
	c->acct.ctx_ns[c->step_ctx] += ns;
	c->acct.cost[cost].ns += ns;
	c->acct.cost[cost].ctx_ns[c->step_ctx] += ns;
}

/* Run the next step(s) on c if it is between chunks.  Only as an event
 * handler's last act: a chunk whose end is the next event anyway ends
 * inside it (sim_next_inline), and the steps after it run. */
void cpu_dispatch(struct sim *sim, struct cpu *c);

/* Ask c to dispatch soon (an event at `now`): safe from another CPU's step. */
void cpu_kick(struct sim *sim, struct cpu *c);
/* Called by a software device (lo, veth) right after it queued a frame on
 * c's backlog: in a process-context step with bottom halves on, run the
 * pending softirqs now, inside the step and charged as softirq time --
 * netif_rx raised NET_RX with BH off and the local_bh_enable that ends
 * dev_queue_xmit runs do_softirq there and then, so each frame a task sends
 * is received before the task sends the next.  Elsewhere (softirq,
 * hardirq, BH off) the frame waits for the running or the next NET_RX. */
void cpu_softirq_inline(struct sim *sim, struct cpu *c);

/* A hardirq for c: preempts whatever chunk runs there. */
void cpu_raise_irq(struct sim *sim, struct cpu *c, enum irq_kind kind, void *obj);

/* TIMER: a connection's delayed-ACK timer fired on c. */
void cpu_timer_fired(struct sim *sim, struct cpu *c, struct tcp_conn *conn);
/* An interrupt without an object (an IPI) that reaches c at time t. */
void cpu_raise_irq_at(struct sim *sim, struct cpu *c, sim_ns t, enum irq_kind kind);
/* Ask c to dispatch at absolute time t. */
void cpu_kick_at(struct sim *sim, struct cpu *c, sim_ns t);
/* NET_RX: schedule a NAPI instance on c (NIC path). */
void cpu_napi_schedule(struct sim *sim, struct cpu *c, void *napi);

static inline bool cpu_is_idle(const struct cpu *c)
{
	return c->curr == NULL && c->running < 0 && c->nirq == 0 && !c->netrx_pending && !c->in_netrx &&
	       c->ntimers == 0 && c->npaced == 0;
}

#endif
