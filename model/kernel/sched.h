/*
 * sched: tasks, run queues and wakeups, after Linux CFS (kernel/sched/fair.c,
 * 3.x era) in the parts that decide a bulk transfer's costs:
 *   - per-CPU run queues ordered by vruntime (ties by task id);
 *   - time slices: period = max(latency, nr * min_granularity), slice =
 *     period / nr, with both tunables scaled by 1 + ilog2(min(ncpus, 8))
 *     (SCHED_TUNABLESCALING_LOG);
 *   - wakeup placement (select_task_rq_fair, wake_affine, 3.6): pinned CPU,
 *     else the waker's CPU when wake_affine finds it balanced — its load
 *     (runnable tasks; minus the waker itself for a sync wakeup) plus the
 *     wakee is at most imbalance_pct/2 above the previous CPU's load
 *     (the lowest domain spanning both: 110 within a last-level cache, so
 *     105%; 125 across, so 112%) — else the previous CPU; then an idle CPU
 *     is preferred when the chosen one is busy (select_idle_sibling);
 *   - wakeup preemption when the woken task's vruntime is ahead of the
 *     current one's by more than the wakeup granularity;
 *   - a cross-CPU reschedule is an IPI (RES); from Linux 5.8 a remote
 *     wakeup into another last-level cache (host.llc_cpus) or onto an idle
 *     CPU goes through the wakelist instead and counts as CAL;
 *   - newly-idle balancing pulls a waiting task; the tick balances two
 *     domain levels, the CPUs of one LLC on instantaneous loads and the
 *     LLCs of the host on decayed ones, never moving the running task nor
 *     (until a balance failed) one that ran within 0.5 ms, and taking the
 *     most recently enqueued first (sched.c, periodic_balance).
 * Not modelled: cgroups, NUMA, nice levels, SMT-aware placement.
 *
 * Task states: RUNNING (a CPU's curr) -> SLEEPING (sched_block) ->
 * RUNNABLE (sched_wakeup: on a run queue) -> RUNNING (sched_schedule).
 * A preempted RUNNING task goes back to RUNNABLE in sched_schedule.
 */
#ifndef TCPSIM_SCHED_H
#define TCPSIM_SCHED_H

#include "sim.h"

/* TASK_WAKING: woken through a wake list whose IPI has not reached the
 * target yet (host.ipi_latency): on no run queue, and a second wakeup
 * finds nothing to do (try_to_wake_up's p->on_rq / TASK_WAKING) */
enum task_state { TASK_RUNNING, TASK_RUNNABLE, TASK_SLEEPING, TASK_WAKING };

/* The program a task runs (app.c, monitor.c): step() runs one step in
 * process context on the task's CPU and returns APP_RAN, or APP_BLOCK after
 * arranging to be woken.  The scheduler calls it; it never names an app. */
enum app_result { APP_RAN, APP_BLOCK };

struct app_state;

struct app_ops {
	const char *name;
	enum app_result (*step)(struct sim *sim, struct cpu *c, struct task *t); /* required */
};

/* The fields a step reads (sched_process_step, the app's step, sched_block)
 * on the first cache line; every struct task starts one (the _Alignas, and
 * sim_init's allocation). */
struct task {
	/* line 0 */
	_Alignas(64) const struct app_ops *ops;
	struct tcp_conn *conn;
	struct app_state *app;      /* the program's own state (app.h), owned by app.c */
	struct cpu *cpu;            /* CPU it runs or last ran on */
	enum task_state state;
	bool in_call;               /* inside a system call on its socket: the socket is
	                             * owned by the user (sock_owned_by_user) */
	int pinned_cpu;             /* -1: any */
	double vruntime_ns;
	struct host *host;
	/* line 1 */
	sim_ns sleep_ns, sleep_start;
	sim_ns last_ran;            /* when it last stopped running (se.exec_start) */
	sim_ns enqueued_at;         /* last enqueue (wakeup, start, migration) */
	int id;
	char name[24];
};

void sched_start_task(struct sim *sim, struct task *t, struct cpu *c);
/* Process-context step on c: run curr's next step, or schedule. */
void sched_process_step(struct sim *sim, struct cpu *c);
/* curr of c blocks (called from its own step). */
void sched_block(struct sim *sim, struct cpu *c, struct task *t);
/* Wake t; `waker` is the CPU whose step does it (charged the cost).  `sync`:
 * the waker is about to sleep (WF_SYNC: sk_data_ready wakes a reader so). */
void sched_wakeup(struct sim *sim, struct cpu *waker, struct task *t, bool sync);
/* Scheduler tick on c (hardirq context). */
void sched_tick(struct sim *sim, struct cpu *c);
/* An IPI arrived on c. */
void sched_ipi(struct sim *sim, struct cpu *c, int irq_kind);
/* A wake list's IPI that carries t (TASK_WAKING) arrived on c: activate t
 * there (sched_ttwu_pending, ttwu_do_activate). */
void sched_ttwu_pending(struct sim *sim, struct cpu *c, struct task *t);
/* How long c, entering idle now, polls before it halts (host.idle_poll,
 * idle_poll_dist, idle_poll_share, idle_poll_sd). */
sim_ns sched_idle_window(struct cpu *c);

#endif
