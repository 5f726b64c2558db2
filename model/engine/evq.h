/*
 * evq: the event queue, a min-heap ordered by (time, seq).
 *
 * seq is an insertion counter, so events at the same nanosecond run in the
 * order they were scheduled: the order is total and deterministic (never by
 * pointer, never random).  The queue owns copies of its events; callers own
 * the objects the events point to.
 *
 * Cancellation marks, it does not search: an event armed through a
 * struct evq_timer is dead once the timer is re-armed or cancelled (the
 * timer's seq no longer matches the event's) and evq_pop() skips it.  So
 * cancel and re-arm are O(1) and no timer scan is ever needed.
 *
 * Storage (see evq.c for why): heap[] holds only the keys (t, seq, slot) of
 * the n pending events; the rest of each event lives in slots[slot], which
 * stays put while the event is pending.  Both arrays have cap entries.
 * Callers read n, pushed and skipped; the rest is the queue's own.
 *
 * Invariant: evq_pop() never returns an event earlier than the previous one
 * (checked by sim_step, engine/sim.c, which owns the clock).
 */
#ifndef TCPSIM_EVQ_H
#define TCPSIM_EVQ_H

#include <stdbool.h>
#include <stdint.h>

#include "simtime.h"

struct sim;
typedef void (*evq_fn)(struct sim *sim, void *obj, uint64_t arg);

struct evq_timer {
	uint64_t seq; /* seq of the live event, 0 when not armed */
};

struct evq_ev {
	sim_ns t;
	uint64_t seq;
	evq_fn fn;
	void *obj;
	uint64_t arg;
	struct evq_timer *timer; /* NULL: not cancellable */
};

struct evq_key {
	sim_ns t;
	uint64_t seq;
	uint32_t slot; /* index into evq.slots */
};

struct evq_slot {
	evq_fn fn;
	void *obj;
	uint64_t arg; /* while free: index of the next free slot */
	struct evq_timer *timer;
};

struct evq {
	struct evq_key *heap;   /* 4-ary min-heap of n keys */
	struct evq_slot *slots; /* event bodies, cap entries */
	uint32_t n, cap;
	uint32_t free_slot;     /* head of the free-slot list */
	uint64_t next_seq;      /* starts at 1; 0 means "not armed" */
	uint64_t pushed;        /* statistics */
	uint64_t skipped;
};

void evq_init(struct evq *q);
void evq_release(struct evq *q);

/* Schedule fn(sim, obj, arg) at time t; returns the event's seq. */
uint64_t evq_push(struct evq *q, sim_ns t, evq_fn fn, void *obj, uint64_t arg);

/* Arm (or re-arm) a cancellable timer: any earlier event of tm dies. */
void evq_timer_arm(struct evq *q, struct evq_timer *tm, sim_ns t, evq_fn fn, void *obj, uint64_t arg);
static inline void evq_timer_cancel(struct evq_timer *tm) { tm->seq = 0; }
static inline bool evq_timer_armed(const struct evq_timer *tm) { return tm->seq != 0; }

/* Remove the earliest live event into *ev; false when the queue is empty. */
bool evq_pop(struct evq *q, struct evq_ev *ev);

/* Time of the earliest event (live or dead), or INT64_MAX when empty. */
static inline sim_ns evq_peek_time(const struct evq *q) { return q->n ? q->heap[0].t : INT64_MAX; }

#endif
