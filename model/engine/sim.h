/*
 * sim: the state of one run, and the entities it owns.
 *
 * Everything that changes during a run lives under one struct sim (clock,
 * event queue, hosts, CPUs, tasks, connections, skbs, RNG, counters); every
 * model function takes it first.  tcpsim_run() creates one, runs it and
 * frees it, so runs are independent and may proceed in parallel threads.
 *
 * Ownership: sim owns hosts; a host owns its CPUs; sim owns tasks, conns and
 * the skb pool.  Pointers between entities are borrowed and live as long as
 * the sim.
 *
 * Where the entities live (each file says what of the kernel it imitates;
 * docs/architecture.md draws the layers):
 *   engine/   this struct, the event queue (evq), the random streams (rng),
 *             sim_at / sim_fail / sim_step (sim.c)
 *   kernel/   cpu.c: contexts (hardirq > softirq > process), chunks of work,
 *             accounting, the vectors the layers above register;
 *             sched.c: tasks, run queues, wakeups, IPIs, CFS-like slices
 *   net/      skb.c: skbs, slab pages and page frags; netdev.c: loopback,
 *             veth and the backlog; netdev_nic.c: the NIC; tcp*.c: TCP
 *             by concern (tcp.c lists them)
 *   app/      app.c: netperf and netserver; monitor.c: monitors, kswapd
 *   run.c     sim_init and tcpsim_run: build, warm up, measure, stop
 */
#ifndef TCPSIM_SIM_H
#define TCPSIM_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "evq.h"
#include "metrics.h"
#include "scenario.h"
#include "chargelog.h"
#include "timeline.h"

enum ctx { CTX_HARDIRQ, CTX_SOFTIRQ, CTX_PROCESS, CTX_N };

struct sim;
struct host;
struct cpu;
struct task;
struct tcp_conn;
struct skb;
struct skb_block;
struct netdev_ops;
struct rng;
struct app_state;
struct cpu_vectors;

/* A FIFO of skbs (backlog, write queue, receive queue). */
struct skb_list {
	struct skb *head, *tail;
	uint32_t len;
};

/* Counters the report is made of; snapshotted at the end of warm-up. */
struct counters {
	uint64_t app_bytes;        /* bytes copied to receivers' user space */
	uint64_t data_frames;      /* frames TCP handed to the device (GSO/TSO units) */
	uint64_t data_segs;        /* MSS-sized segments in them */
	uint64_t wire_frames;      /* frames on the wire (NIC) */
	uint64_t acks;             /* pure ACKs sent, of which: */
	uint64_t acks_quick;       /*   in quickack mode */
	uint64_t acks_rx;          /*   at once on receipt (more than one rcv_mss unacked) */
	uint64_t acks_rbuf;        /*   after recv() copied (tcp_cleanup_rbuf) */
	uint64_t acks_delack;      /*   by the delayed-ACK timer */
	uint64_t netrx_softirqs;   /* NET_RX handler runs */
	uint64_t res_ipis, cal_ipis;
	uint64_t hardirqs;         /* device interrupts */
	uint64_t ticks;            /* local timer interrupts on non-idle CPUs */
	uint64_t cs;               /* context switches */
	uint64_t pgalloc, pgfree;  /* 4 KB pages */
	uint64_t gro_merges;
	uint64_t ofo;              /* frames that arrived ahead of rcv_nxt */
	uint64_t recoveries;       /* fast retransmits (entries into recovery) */
	uint64_t retrans_segs;     /* segments retransmitted */
	uint64_t undos;            /* recoveries undone by D-SACK (spurious) */
	uint64_t wakeups;
	uint64_t snd_wakeups;        /* senders woken by freed buffer space */
	uint64_t rcv_wakeups;        /* readers woken by data (sk_data_ready, tcp_prequeue) */
	uint64_t migrations;         /* tasks moved by load balancing */
	uint64_t kswapd_wakes;       /* kswapd woken by a high-order allocation (host.kswapd) */
	uint64_t writes;             /* send()/sendfile() calls that ended */
	uint64_t reads;              /* recv()/read() calls that ended */
	uint64_t pace_irqs;          /* TCP pacing hrtimer expiries (tcp.pacing) */
	uint64_t tsq_throttles;      /* sends TCP Small Queues stopped (TSQ_THROTTLED) */
	uint64_t autocorks;          /* sendmsg pushes held by autocorking (TCPAutoCorking) */
	uint64_t ce_marks;           /* data frames the NIC marked CE (link.ecn_threshold) */
	uint64_t hrtimer_softirqs;   /* HRTIMER softirq runs */
	uint64_t skb_deferred;       /* received skbs freed on their allocating CPU (5.17+) */
	uint64_t wake_no_ipi;        /* remote wakeups of a polling idle CPU: no IPI */
	uint64_t wire_busy_ns[2];    /* NIC: line time used by host h's transmitter */
	uint64_t rps_steered;        /* NIC: skbs queued on another CPU's backlog by RPS/RFS */
	uint64_t backlog_coalesce;   /* data skbs and pure ACKs merged into the socket backlog's tail (TCPBacklogCoalesce, 5.0+) */
	uint64_t rcv_coalesce;       /* data skbs merged into the receive queue's tail (TCPRcvCoalesce) */
	/* the LKP counters above, host by host (the host whose CPU counts
	 * them, as its /proc would): each site that counts a sum counts here too */
	struct host_counters {
		uint64_t netrx_softirqs, res_ipis, cal_ipis, hardirqs, ticks, cs, pgalloc, pgfree, hrtimer_softirqs;
	} host[2];
};

/* Per-CPU accounting, in ns; snapshotted at the end of warm-up.  A charge
 * (cpu_charge) adds to its context's sum and to its cost's record: the
 * cost's total beside its split by context, 32 bytes that share one cache
 * line. */
struct cpu_acct {
	double ctx_ns[CTX_N];
	struct cost_acct {
		_Alignas(32) double ns;  /* the cost's total */
		double ctx_ns[CTX_N];    /* the same split by context (costcat.h's roles) */
	} cost[COST_N];
	/* what /proc/softirqs and /proc/interrupts count on this CPU */
	double netrx;                /* NET_RX handler runs */
	double hrtimer;              /* HRTIMER softirq runs */
	double res, cal;             /* RES and CAL IPIs taken */
	double loc;                  /* local timer interrupts (ticks and hrtimer expiries) */
};

struct host {
	struct sim *sim;
	int id;
	const struct host_cfg *cfg;
	double ns_per_cycle;
	double speed_sd;           /* host.speed_sd; 0: every CPU at its clock rate */
	double speed_rho;          /* the wander's step: x' = rho x + inn N(0, 1) every speed_dt */
	double speed_inn;
	sim_ns speed_dt;
	int ncpus;
	struct cpu *cpus;
	int sched_factor;          /* 1 + ilog2(min(ncpus, 8)): CFS tunable scaling */
	int kernel_version;        /* host.kernel, parsed: major << 16 | minor (2.0 to 99.999) */
	struct task *kswapd;       /* host.kswapd: the task high-order allocations wake, else NULL */
};

struct sim {
	const struct scenario *sc;
	sim_ns now;
	struct evq evq;
	uint64_t events;
	uint64_t inlined;            /* of them, run by sim_next_inline (no queue entry) */
	sim_ns step_until;           /* the bound of the sim_step in progress */

	struct host hosts[2];
	int nhosts;

	struct task *tasks;
	struct app_state *apps;      /* tasks[i].app = &apps[i] (app.h) */
	int ntasks;
	struct tcp_conn *conns;
	int nconns;

	struct skb **skb_free;       /* pool of unused skb structs: a stack, */
	uint32_t skb_nfree, skb_free_cap; /*   its depth and room (skb.c) */
	struct skb_block *skb_blocks; /* storage of all skbs (skb.c) */

	const struct netdev_ops *dev; /* link.type's path */
	const struct cpu_vectors *vec; /* interrupt and softirq handlers (cpu.h), set by sim_init */
	/* the transport's receive handler (inet_protos; tcp_v4_rcv), set by sim_init */
	void (*proto_rcv)(struct sim *sim, struct cpu *c, struct skb *skb);
	/* what a device's flow steering asks of the transport, set by sim_init:
	 * the connection's number (its 4-tuple, for the RSS hash) and the CPU
	 * its socket's owner on host h last ran on (sock_rps_record_flow) */
	uint32_t (*flow_id)(const struct tcp_conn *tc);
	struct cpu *(*flow_cpu)(const struct tcp_conn *tc, int host);
	void *dev_state;

	/* called with each event sim_step runs, before it runs; NULL: none
	 * (the tests compare runs event by event) */
	void (*trace)(void *ctx, const struct evq_ev *ev);
	void *trace_ctx;
	/* the first connection's start, step by step (timeline.h); NULL: not
	 * recorded */
	struct timeline *tl;
	/* each CPU step's charges over a window (chargelog.h); NULL: not
	 * logged */
	struct chargelog *chg;

	struct counters cnt;
	bool stop;                   /* the run is over (duration or steady) */
	struct tcpsim_err *err;      /* where sim_fail reports; owned by the caller */
};

/* Build hosts, CPUs, connections and tasks for sc (nothing runs yet). */
int sim_init(struct sim *sim, const struct scenario *sc, struct tcpsim_err *err);
/* Start the tasks and the scheduler ticks. */
void sim_start(struct sim *sim);
/* Free everything sim_init made. */
void sim_release(struct sim *sim);

/* Current simulated time. */
static inline sim_ns sim_now(const struct sim *sim) { return sim->now; }

/* The event loop's one step, shared by the run (run.c) and the tests: run
 * the earliest pending event if the queue's head is due by `until`, moving
 * the clock to its time (never backwards) and counting it.  false when
 * nothing is due. */
bool sim_step(struct sim *sim, sim_ns until);

/* Schedule fn(sim, obj, arg) at absolute time t (>= now). */
uint64_t sim_at(struct sim *sim, sim_ns t, evq_fn fn, void *obj, uint64_t arg);

/*
 * The event a handler would schedule as its very last act, run by the
 * handler itself when it is certain to be the next event anyway: t is
 * earlier than every queued key (strictly: at an equal t the order is by
 * seq, and a queued key may have the smaller one), due by the bound of
 * the sim_step in progress, the run not stopped, and tm (the timer it
 * would be armed on, or NULL) has no entry queued.  Then it is taken
 * exactly as a push and a pop would take it: its seq (0: a fresh one, as a
 * push now would take; else one the caller took earlier), the clock moved
 * to t, the event counted and handed to sim.trace; true, and the caller
 * runs what fn(sim, obj, arg) would.  false: nothing changed, schedule it
 * as usual with evq_push_seq when the caller took seq.  Only a handler's last act may use this (nothing
 * it does afterwards could schedule an earlier event); the event order,
 * the seqs and the count are those of the queue's path.  Off with
 * evq.front_off (the tests compare the two).
 */
static inline bool sim_next_inline(struct sim *sim, sim_ns t, uint64_t seq, evq_fn fn, void *obj, uint64_t arg,
				   const struct evq_timer *tm)
{
	struct evq *q = &sim->evq;

	if (q->front_off || sim->stop || t > sim->step_until || t >= evq_peek_time(q) || (tm && tm->qseq))
		return false;
	if (!seq)
		seq = q->next_seq++;
	sim->now = t;
	sim->events++;
	sim->inlined++;
	if (sim->trace) {
		struct evq_ev ev = {.t = t, .seq = seq, .fn = fn, .obj = obj, .arg = arg,
				    .timer = (struct evq_timer *)tm};
		sim->trace(sim->trace_ctx, &ev);
	}
	return true;
}

/* Stop the run with a user-facing error (a setting the model cannot honour). */
void sim_fail(struct sim *sim, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The kernel a host imitates (host.kernel) is at least major.minor
 * (inline, one comparison: the model asks some four times an event). */
static inline bool host_kernel_at_least(const struct host *h, int major, int minor)
{
	return h->kernel_version >= (major << 16 | minor);
}

#endif
