/*
 * evq: the event queue, ordered by (time, seq).
 *
 * seq is an insertion counter, so events at the same nanosecond run in the
 * order they were scheduled: the order is total and deterministic (never by
 * pointer, never random).  The queue owns copies of its events; callers own
 * the objects the events point to.
 *
 * Timers keep at most one queued entry, as the kernel's mod_timer() does
 * (kernel/time/timer.c): re-arming a struct evq_timer to a time no earlier
 * than its queued entry only rewrites the timer (its new seq, time and
 * payload) and leaves the entry where it is; when the entry reaches the top
 * before the timer is due, evq_pop() moves it to the timer's (time, seq) and
 * goes on.  A cancel only clears the timer's seq.  Each arm still takes a
 * fresh seq, so events come out in exactly the order a cancel plus a new
 * push would give.  Re-arming earlier than the queued entry pushes a new
 * entry and the old one is dead; dead entries are skipped on pop and
 * dropped all at once when they are half the queue, so the queue stays
 * within twice the live events plus one entry per timer.  Cancel and re-arm
 * are O(1) (amortized O(log n) for an earlier re-arm); no timer scan is
 * ever needed.
 *
 * Storage (see evq.c for why): a key (t, seq and slot) of a pending event
 * sits in one of three places: a ring of buckets for the near future
 * (bkt[], each bucket a fixed span of time), a 4-ary min-heap (heap[]) for
 * what does not fit there, and front; the rest of each event lives in
 * slots[slot], which stays put while the event is pending.  heap[] and
 * slots[] have cap entries.  A key earlier than all others when it is
 * pushed goes to front: the next step of a CPU is nearly always due
 * before anything else queued, and then its push and pop touch nothing
 * else.  front stays earlier than every other key and each bucket's keys
 * are earlier than the later buckets', so the next event is front's or
 * the earlier of the first bucket's least key and the heap's top, and the
 * order is exactly (t, seq) wherever a key is kept (front_off keeps front
 * empty and turns the other paths around the queue off too, sim.h's
 * sim_next_inline and netdev_nic.c's one queued arrival per direction: the
 * tests compare).
 *
 * Lanes: up to EVQ_LANES timers armed with evq_timer_arm_lane keep their
 * key and event in lane[] instead, and the next event is the earlier of
 * the earliest lane key (lane_min) and the rest's next one.  They are for
 * a CPU's chunk end that is due after another CPU's (or the wire's) next
 * event, and so cannot be taken inline: an arm and a pop of a lane are a
 * store and a scan of a few keys, where a bucket's or the heap's take a
 * slot, the buckets' bookkeeping and the removal.  Lane keys take their
 * seq as any push does, so the order is (t, seq) wherever a key is kept;
 * front_off turns the lanes off too, and so does lanes_max = 0 (set by the
 * caller before the first push: run.c does for a run of more CPUs than
 * lanes, where whichever CPUs' chunk ends hold them is a matter of chance
 * and every pop still pays the comparison with them).
 * Callers read n (entries outside the lanes), pushed, skipped, requeued,
 * fronted and laned and may set front_off and lanes_max before the first
 * push; the rest is the queue's own.
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
	uint64_t seq;   /* seq the timer fires with, 0 when not armed */
	sim_ns t;       /* when it fires, while armed */
	uint64_t qseq;  /* seq of its queued entry's key, 0 when none is queued */
	sim_ns qt;      /* that key's time */
	uint32_t qslot; /* that entry's slot */
};

struct evq_ev {
	sim_ns t;
	uint64_t seq;
	evq_fn fn;
	void *obj;
	uint64_t arg;
	struct evq_timer *timer; /* NULL: not cancellable */
};

/* A pending event's place in the order: t, then seq.  seq and the slot
 * its body sits in share one word, seq << slot_bits | slot, so a key is 16
 * bytes and four of them fill a cache line (evq.c); since seqs are unique,
 * comparing (t, that word) is comparing (t, seq). */
struct evq_key {
	sim_ns t;
	uint64_t seqslot;
};

struct evq_slot {
	evq_fn fn;
	void *obj;
	uint64_t arg; /* while free: index of the next free slot */
	struct evq_timer *timer;
};

/* A lane: a timer's key and event kept beside the rest of the queue. */
#define EVQ_LANES 4
struct evq_lane {
	struct evq_key k;       /* seqslot: seq << slot_bits (no slot) */
	evq_fn fn;
	void *obj;
	uint64_t arg;
	struct evq_timer *tm;
};

struct evq {
	struct evq_key front;   /* earlier than every key in heap; seqslot 0: none */
	uint32_t nlane;         /* lanes in use (lane[0 .. nlane)) */
	uint32_t lanes_max;     /* lanes it may use: EVQ_LANES, or 0 (off) */
	uint32_t lane_min_i;    /* the lane of lane_min */
	struct evq_key lane_min; /* the earliest lane key; key_none (evq.c) while nlane is 0 */
	struct evq_key *heap;   /* 4-ary min-heap of nheap keys (children of i: 4i+1 .. 4i+4);
				 * heap[0] is key_none (evq.c) while nheap is 0 */
	void *heap_mem;         /* heap's allocation (heap + 1 is cache-line aligned) */
	struct evq_slot *slots; /* event bodies, cap entries */
	uint32_t n, nheap, cap; /* n: entries, front included; cap a power of two */
	uint32_t slot_bits;     /* log2(cap): a key's seqslot is seq << slot_bits | slot */
	uint64_t seq_end;       /* seqs that fit beside a slot: below 2^(64 - slot_bits) */
	bool front_off;         /* no front: every key in the buckets or the heap (tests compare) */
	/* the near buckets (evq.c): EVQ_NB lines of EVQ_BK keys, a ring */
	struct evq_key *bkt;    /* bucket b is bkt[b * EVQ_BK ..], unused keys all ones */
	void *bkt_mem;          /* bkt's allocation (bkt is cache-line aligned) */
	uint8_t *bcnt;          /* keys in each bucket */
	uint64_t *bmap;         /* bit b: bucket b holds a key */
	struct evq_key bmin;    /* the earliest bucketed key; key_none while nbkt is 0 */
	uint32_t bmin_at;       /* its index in bkt[] */
	uint32_t bcur;          /* the bucket of [bbase, bbase + 2^bshift) */
	uint32_t nbkt;          /* keys in buckets */
	uint32_t bshift;        /* log2 of a bucket's width in ns */
	sim_ns bbase;           /* start of bucket bcur's time */
	sim_ns last_t;          /* time of the last key taken */
	uint32_t b_offered, b_full, b_far; /* pushes since the width was last judged, */
	uint32_t b_judge_at;    /*   and how many the next judgement waits for */
	uint32_t free_slot;     /* head of the free-slot list */
	uint64_t next_seq;      /* starts at 1; 0 means "not armed" */
	uint32_t ndead;         /* entries of timers re-armed earlier (see above) */
	uint64_t pushed;        /* statistics: keys inserted, */
	uint64_t skipped;       /*   entries dropped unfired (dead or cancelled), */
	uint64_t requeued;      /*   timer entries moved to a later re-arm, */
	uint64_t fronted;       /*   keys that went to front, */
	uint64_t laned;         /*   timers armed into a lane */
	struct evq_lane lane[EVQ_LANES];
};

void evq_init(struct evq *q);
void evq_release(struct evq *q);

/* Schedule fn(sim, obj, arg) at time t; returns the event's seq. */
uint64_t evq_push(struct evq *q, sim_ns t, evq_fn fn, void *obj, uint64_t arg);

/* The seq the next push would take, taken now: evq_push_seq schedules the
 * event later with it, so it keeps the place in the order of events at its
 * time that a push now would have given it. */
static inline uint64_t evq_seq_take(struct evq *q) { return q->next_seq++; }
void evq_push_seq(struct evq *q, sim_ns t, uint64_t seq, evq_fn fn, void *obj, uint64_t arg);

/* Arm (or re-arm) a cancellable timer: any earlier event of tm dies. */
void evq_timer_arm(struct evq *q, struct evq_timer *tm, sim_ns t, evq_fn fn, void *obj, uint64_t arg);
/* The same for a timer that is not armed and has no entry queued (a CPU's
 * chunk end): its key goes into a free lane if there is one (see above),
 * else as evq_timer_arm puts it (inline, the test for a free lane: with
 * lanes off, an arm as before; evq_lane_arm is the rest, out of line). */
void evq_lane_arm(struct evq *q, struct evq_timer *tm, sim_ns t, evq_fn fn, void *obj, uint64_t arg);
static inline void evq_timer_arm_lane(struct evq *q, struct evq_timer *tm, sim_ns t, evq_fn fn, void *obj,
				      uint64_t arg)
{
	if (q->nlane < q->lanes_max)
		evq_lane_arm(q, tm, t, fn, obj, arg);
	else
		evq_timer_arm(q, tm, t, fn, obj, arg);
}
static inline void evq_timer_cancel(struct evq_timer *tm) { tm->seq = 0; }
/* Cancel, and free the timer's lane at once if it has one (a lane's entry
 * of a timer cancelled by evq_timer_cancel is dropped when it comes up). */
void evq_timer_cancel_now(struct evq *q, struct evq_timer *tm);
static inline bool evq_timer_armed(const struct evq_timer *tm) { return tm->seq != 0; }

/* Remove the earliest live event into *ev if it is due by `until`; false
 * when there is none (the queue is empty or its next event is later). */
bool evq_pop_until(struct evq *q, sim_ns until, struct evq_ev *ev);
static inline bool evq_pop(struct evq *q, struct evq_ev *ev) { return evq_pop_until(q, INT64_MAX, ev); }

/* Time of the earliest entry, or INT64_MAX when empty: a lower bound on the
 * next event's time (the entry may be dead, cancelled or moved later). */
static inline sim_ns evq_peek_time(const struct evq *q)
{
	sim_ns t;

	if (q->front.seqslot) {
		t = q->front.t;
	} else {
		t = q->nheap ? q->heap[0].t : INT64_MAX;
		if (q->nbkt && q->bmin.t < t)
			t = q->bmin.t;
	}
	return q->lane_min.t < t ? q->lane_min.t : t; /* INT64_MAX with no lane */
}

#endif
