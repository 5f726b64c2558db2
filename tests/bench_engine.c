/*
 * bench_engine: event-queue throughput under the "hold model".
 *
 * The hold model is the classic benchmark for pending-event sets (Jones,
 * "An empirical comparison of priority-queue and event-set
 * implementations", CACM 29(4), 1986): keep N events pending; repeatedly pop
 * the earliest and push one at now + a random increment.  The loop here is
 * the simulator's: evq_pop(), set the clock, call ev.fn(sim, obj, arg); the
 * handler counts and schedules the next event.  sim is NULL, obj is the
 * workload's own context.
 *
 * Increments are uniform in [0, span) with span a power of two (a mask,
 * no division, no log(): the generator must not dominate); the small spans
 * make equal times common, as in the simulator.  The "+timers" case also
 * re-arms one of 64 timers per event at now + 2048 ns, as TCP re-arms its
 * retransmit and delayed-ACK timers on every ACK: the clock moves about
 * 1 ns per event, so in "ref" (a push per arm) some 2000 dead events sit
 * beside the 1000 live ones and its pop must skip them, while evq moves
 * each timer's one entry in place (evq.h); only the live hold events are
 * counted.
 *
 * Each case runs the library's evq and, alternately in the same process,
 * "ref": a plain binary heap of whole 48-byte events (the first evq.c,
 * kept here as the yardstick).  Rounds alternate lib/ref so that machine
 * noise hits both; the median round of each is reported with their ratio
 * (the best beside it: on a shared machine the best flatters).
 *
 * Usage: bench_engine [seconds-per-case [case-name-substring]]
 * (default 1.5 s per case, split over the rounds; all cases)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "evq.h"
#include "util.h"

/* ---- generator: xorshift64* (Vigna 2016), deterministic ---- */
static inline uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- ref: the original binary heap, not inlined (the library is not) ---- */
struct ref_q {
	struct evq_ev *heap;
	uint32_t n, cap;
	uint64_t next_seq;
};

static inline bool ref_before(const struct evq_ev *a, const struct evq_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void ref_init(struct ref_q *q)
{
	q->cap = 1024;
	q->n = 0;
	q->heap = xmalloc(q->cap * sizeof(*q->heap));
	q->next_seq = 1;
}

static void ref_release(struct ref_q *q)
{
	free(q->heap);
}

static void ref_insert(struct ref_q *q, const struct evq_ev *ev)
{
	uint32_t i;

	if (q->n == q->cap) {
		q->cap *= 2;
		q->heap = xrealloc(q->heap, q->cap * sizeof(*q->heap));
	}
	i = q->n++;
	while (i > 0) {
		uint32_t parent = (i - 1) / 2;
		if (!ref_before(ev, &q->heap[parent]))
			break;
		q->heap[i] = q->heap[parent];
		i = parent;
	}
	q->heap[i] = *ev;
}

__attribute__((noinline)) static uint64_t ref_push(struct ref_q *q, sim_ns t, evq_fn fn, void *obj,
						   uint64_t arg)
{
	struct evq_ev ev = {.t = t, .seq = q->next_seq++, .fn = fn, .obj = obj, .arg = arg, .timer = NULL};
	ref_insert(q, &ev);
	return ev.seq;
}

__attribute__((noinline)) static void ref_timer_arm(struct ref_q *q, struct evq_timer *tm, sim_ns t,
						    evq_fn fn, void *obj, uint64_t arg)
{
	struct evq_ev ev = {.t = t, .seq = q->next_seq++, .fn = fn, .obj = obj, .arg = arg, .timer = tm};
	tm->seq = ev.seq;
	ref_insert(q, &ev);
}

static void ref_remove_top(struct ref_q *q)
{
	struct evq_ev last;
	uint32_t i = 0, n;

	n = --q->n;
	if (n == 0)
		return;
	last = q->heap[n];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && ref_before(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!ref_before(&q->heap[c], &last))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	q->heap[i] = last;
}

__attribute__((noinline)) static bool ref_pop(struct ref_q *q, struct evq_ev *ev)
{
	while (q->n) {
		*ev = q->heap[0];
		ref_remove_top(q);
		if (ev->timer) {
			if (ev->timer->seq != ev->seq)
				continue;
			ev->timer->seq = 0;
		}
		return true;
	}
	return false;
}

/* ---- the hold workload, instantiated once per queue ---- */
struct hold_case {
	const char *name;
	uint32_t n_pending;
	uint32_t span_log2;  /* increments uniform in [0, 2^span_log2) ns */
	uint32_t n_timers;   /* 0, or timers re-armed one per event */
	sim_ns timer_ns;     /* re-arm distance */
};

#define NTIMERS_MAX 64
#define CHUNK (1u << 16) /* events between clock reads */

/*
 * HOLD_VARIANT(P, QT, INIT, RELEASE, PUSH, ARM, POP) defines
 * P##_hold_round(case, seconds, &events) -> events per second, for a queue
 * of type QT driven by the given functions.  One macro so that lib and ref
 * run the very same workload code.
 */
#define HOLD_VARIANT(P, QT, INIT, RELEASE, PUSH, ARM, POP)                                  \
	struct P##_hold {                                                                   \
		QT q;                                                                       \
		uint64_t rng;                                                               \
		sim_ns now;                                                                 \
		uint64_t fired, timer_fired;                                                \
		uint64_t span_mask;                                                         \
		uint32_t n_timers;                                                          \
		sim_ns timer_ns;                                                            \
		struct evq_timer timers[NTIMERS_MAX];                                       \
	};                                                                                  \
	static void P##_timer_fire(struct sim *sim, void *obj, uint64_t arg)                \
	{                                                                                   \
		struct P##_hold *h = obj;                                                   \
		(void)sim;                                                                  \
		(void)arg;                                                                  \
		h->timer_fired++;                                                           \
	}                                                                                   \
	static void P##_fire(struct sim *sim, void *obj, uint64_t arg)                      \
	{                                                                                   \
		struct P##_hold *h = obj;                                                   \
		uint64_t x = rng_next(&h->rng);                                             \
		(void)sim;                                                                  \
		h->fired++;                                                                 \
		PUSH(&h->q, h->now + (sim_ns)(x & h->span_mask), P##_fire, h, arg + 1);     \
		if (h->n_timers)                                                            \
			ARM(&h->q, &h->timers[(x >> 32) % h->n_timers], h->now + h->timer_ns, \
			    P##_timer_fire, h, arg);                                        \
	}                                                                                   \
	static double P##_hold_round(const struct hold_case *c, double seconds,             \
				     uint64_t *events)                                      \
	{                                                                                   \
		struct P##_hold *h = xcalloc(1, sizeof(*h));                                \
		struct evq_ev ev;                                                           \
		double t0, t1;                                                              \
		uint64_t warm;                                                              \
                                                                                            \
		INIT(&h->q);                                                                \
		h->rng = 0x853C49E6748FEA9BULL;                                             \
		h->span_mask = (1ull << c->span_log2) - 1;                                  \
		h->n_timers = c->n_timers;                                                  \
		h->timer_ns = c->timer_ns;                                                  \
		for (uint32_t i = 0; i < c->n_pending; i++)                                 \
			PUSH(&h->q, (sim_ns)(rng_next(&h->rng) & h->span_mask), P##_fire, h, 0); \
		/* warm up into the steady-state time distribution */                       \
		warm = 4ull * c->n_pending + CHUNK;                                         \
		while (h->fired < warm && POP(&h->q, &ev)) {                                \
			h->now = ev.t;                                                      \
			ev.fn(NULL, ev.obj, ev.arg);                                        \
		}                                                                           \
		h->fired = 0;                                                               \
		t0 = now_s();                                                               \
		do {                                                                        \
			for (uint32_t i = 0; i < CHUNK; i++) {                              \
				if (!POP(&h->q, &ev))                                       \
					abort();                                            \
				h->now = ev.t;                                              \
				ev.fn(NULL, ev.obj, ev.arg);                                \
			}                                                                   \
			t1 = now_s();                                                       \
		} while (t1 - t0 < seconds);                                                \
		*events = h->fired;                                                         \
		RELEASE(&h->q);                                                             \
		free(h);                                                                    \
		return (double)*events / (t1 - t0);                                         \
	}

static void lib_arm(struct evq *q, struct evq_timer *tm, sim_ns t, evq_fn fn, void *obj, uint64_t arg)
{
	evq_timer_arm(q, tm, t, fn, obj, arg);
}

HOLD_VARIANT(lib, struct evq, evq_init, evq_release, evq_push, lib_arm, evq_pop)
HOLD_VARIANT(ref, struct ref_q, ref_init, ref_release, ref_push, ref_timer_arm, ref_pop)

/* name, N pending, log2 of the increment span, timers, re-arm distance */
static const struct hold_case cases[] = {
	{"hold N=1000", 1000, 11, 0, 0},
	{"hold N=100000", 100000, 17, 0, 0},
	{"hold N=1000 +timers", 1000, 11, 64, 2048},
};

#define ROUNDS 5 /* odd: the median is a round's */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	double per_case = argc > 1 ? atof(argv[1]) : 1.5;
	const char *only = argc > 2 ? argv[2] : NULL;

	if (per_case <= 0) {
		fprintf(stderr, "usage: bench_engine [seconds-per-case [case-name-substring]]\n");
		return 2;
	}
	printf("engine hold model, %d alternating rounds of %.2f s per variant, median round (best):\n",
	       ROUNDS, per_case / (2 * ROUNDS));
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		const struct hold_case *c = &cases[k];
		double r_lib[ROUNDS], r_ref[ROUNDS];
		uint64_t n_lib = 0, n_ref = 0, n;

		if (only && !strstr(c->name, only))
			continue;
		for (int round = 0; round < ROUNDS; round++) {
			r_lib[round] = lib_hold_round(c, per_case / (2 * ROUNDS), &n);
			n_lib += n;
			r_ref[round] = ref_hold_round(c, per_case / (2 * ROUNDS), &n);
			n_ref += n;
		}
		qsort(r_lib, ROUNDS, sizeof(r_lib[0]), cmp_double);
		qsort(r_ref, ROUNDS, sizeof(r_ref[0]), cmp_double);
		printf("%-22s evq %7.2f Mev/s   ref %7.2f Mev/s   evq/ref %.2f   "
		       "(best %.2f / %.2f; %llu + %llu events)\n",
		       c->name, r_lib[ROUNDS / 2] / 1e6, r_ref[ROUNDS / 2] / 1e6, r_lib[ROUNDS / 2] / r_ref[ROUNDS / 2],
		       r_lib[ROUNDS - 1] / 1e6, r_ref[ROUNDS - 1] / 1e6, (unsigned long long)n_lib,
		       (unsigned long long)n_ref);
	}
	return 0;
}
