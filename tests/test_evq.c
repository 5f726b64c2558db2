/*
 * test_evq: the event queue against an oracle.
 *
 * The oracle is a plain array kept sorted by (time, seq), the order evq.h
 * promises (STYLE.md 10: SQLite checks bitvec against a plain array; git's
 * u-prio-queue.c feeds scripted operations).  The oracle keeps timers the
 * simple way, a cancel plus a new push for every re-arm (dead events stay
 * in it, flagged): the queue's in-place re-arm must pop exactly the same
 * events in the same order, while holding far fewer entries (checked: at
 * most twice the live events plus one per timer, plus a small floor), and
 * its evq_peek_time() is never later than the oracle's next live event.
 *
 * Scripted cases pin down the rules one at a time (ties in push order, dead
 * events never surface, a fired timer is disarmed, growth, the near
 * buckets' width following the events' spacing, seqs that use the high
 * bits beside the slot); random cases run
 * many seeds of a fixed xorshift64* generator with times drawn from a small
 * range so that equal times are the rule, not the exception (and once from
 * clusters spread over all 64 bits of sim_ns, sign included), and again
 * with some timers armed into lanes (evq_timer_arm_lane, more of them than
 * lanes) and cancelled either way.  Every pop is
 * compared field by field with the oracle's; a mismatch prints seed, step,
 * field, got and want.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "evq.h"
#include "util.h"

/* ---- deterministic generator: xorshift64* (Vigna 2016, "An experimental
 * exploration of Marsaglia's xorshift generators, scrambled") ---- */
struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [0, n), n > 0; the bias of the modulo is irrelevant here. */
static uint64_t rng_below(struct rng *r, uint64_t n)
{
	return rng_next(r) % n;
}

/* ---- event functions and objects: distinct, so a swapped payload shows ---- */
static void fn_a(struct sim *sim, void *obj, uint64_t arg) { (void)sim; (void)obj; (void)arg; }
static void fn_b(struct sim *sim, void *obj, uint64_t arg) { (void)sim; (void)obj; (void)arg; }
static const evq_fn fns[] = {fn_a, fn_b};

/* ---- the oracle ---- */
struct oev {
	sim_ns t;
	uint64_t seq;
	evq_fn fn;
	void *obj;
	uint64_t arg;
	struct evq_timer *timer;
	bool dead;
};

struct oracle {
	struct oev *a; /* a[head..n) sorted by (t, seq) */
	size_t head, n, cap;
	uint64_t next_seq;
	uint64_t skipped;
	size_t live_plain; /* pending plain pushes */
};

static void oracle_init(struct oracle *o)
{
	o->cap = 64;
	o->a = xmalloc(o->cap * sizeof(*o->a));
	o->head = o->n = 0;
	o->next_seq = 1;
	o->skipped = 0;
	o->live_plain = 0;
}

static void oracle_release(struct oracle *o)
{
	free(o->a);
}

static size_t oracle_len(const struct oracle *o)
{
	return o->n - o->head;
}

/* Insert keeping (t, seq) order: a new seq is larger than every seq held,
 * so it goes after every entry with t <= its t (binary search for that). */
static void oracle_insert(struct oracle *o, const struct oev *e)
{
	size_t i;

	if (o->head > 0 && o->head >= oracle_len(o)) {
		for (size_t j = o->head; j < o->n; j++)
			o->a[j - o->head] = o->a[j];
		o->n -= o->head;
		o->head = 0;
	}
	if (o->n == o->cap) {
		o->cap *= 2;
		o->a = xrealloc(o->a, o->cap * sizeof(*o->a));
	}
	size_t lo = o->head, hi = o->n; /* first index with t > e->t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->a[mid].t > e->t)
			hi = mid;
		else
			lo = mid + 1;
	}
	i = lo;
	/* A plain loop, not memmove: ASan's memmove goes byte by byte. */
	for (size_t j = o->n; j > i; j--)
		o->a[j] = o->a[j - 1];
	o->a[i] = *e;
	o->n++;
}

static uint64_t oracle_push(struct oracle *o, sim_ns t, evq_fn fn, void *obj, uint64_t arg,
			    struct evq_timer *tm)
{
	struct oev e = {.t = t, .seq = o->next_seq++, .fn = fn, .obj = obj, .arg = arg,
			.timer = tm, .dead = false};
	oracle_insert(o, &e);
	o->live_plain += !tm;
	return e.seq;
}

/* Mark the live event of timer tm (if any) dead. */
static void oracle_kill_timer(struct oracle *o, const struct evq_timer *tm)
{
	for (size_t i = o->head; i < o->n; i++)
		if (o->a[i].timer == tm && !o->a[i].dead)
			o->a[i].dead = true;
}

/* Earliest live event's time, INT64_MAX when none. */
static sim_ns oracle_next_live_time(const struct oracle *o)
{
	for (size_t i = o->head; i < o->n; i++)
		if (!o->a[i].dead)
			return o->a[i].t;
	return INT64_MAX;
}

/* Live events that are not timers' (plain pushes). */
static size_t oracle_live_plain(const struct oracle *o)
{
	return o->live_plain;
}

/* Remove the earliest live event; dead ones before it are dropped and
 * counted, as evq_pop() must. */
static bool oracle_pop(struct oracle *o, struct oev *out)
{
	while (o->head < o->n) {
		struct oev e = o->a[o->head++];
		if (e.dead) {
			o->skipped++;
			continue;
		}
		o->live_plain -= !e.timer;
		*out = e;
		return true;
	}
	return false;
}

/* ---- the harness: one queue, one oracle, timers with expected states ---- */
#define NTIMERS 16
#define NOBJS 8

struct harness {
	struct evq q;
	struct oracle o;
	struct evq_timer tm[NTIMERS];
	uint64_t tm_want[NTIMERS]; /* expected tm[k].seq, 0 = not armed */
	int objs[NOBJS];
	uint64_t seed; /* for messages only */
	unsigned long step;
	sim_ns last_pop_t;
	bool monotone; /* pops must be non-decreasing in time */
};

static void h_init(struct harness *h, uint64_t seed, bool monotone)
{
	memset(h, 0, sizeof(*h));
	evq_init(&h->q);
	oracle_init(&h->o);
	h->seed = seed;
	h->monotone = monotone;
	h->last_pop_t = INT64_MIN;
}

static void h_release(struct harness *h)
{
	evq_release(&h->q);
	oracle_release(&h->o);
}

/* Compare two integers; on mismatch name seed, step and field, and print
 * both values signed and in hex. */
#define CHECK_EQ(h, what, got, want)                                                          \
	do {                                                                                  \
		unsigned long long got_ = (unsigned long long)(got);                          \
		unsigned long long want_ = (unsigned long long)(want);                        \
		if (got_ != want_) {                                                          \
			print_error("seed %llu step %lu: %s: got %lld (0x%llx), want %lld (0x%llx)\n", \
				    (unsigned long long)(h)->seed, (h)->step, what, (long long)got_, \
				    got_, (long long)want_, want_);                           \
			fail();                                                               \
		}                                                                             \
	} while (0)

static int obj_index(const struct harness *h, const void *obj)
{
	for (int i = 0; i < NOBJS; i++)
		if (obj == &h->objs[i])
			return i;
	return -1;
}

static int timer_index(const struct harness *h, const struct evq_timer *tm)
{
	for (int i = 0; i < NTIMERS; i++)
		if (tm == &h->tm[i])
			return i;
	return -1;
}

/* Everything observable without popping must agree with the oracle. */
static void h_check_state(struct harness *h)
{
	size_t bound = 2 * (oracle_live_plain(&h->o) + NTIMERS) + 64;

	if (evq_peek_time(&h->q) > oracle_next_live_time(&h->o))
		CHECK_EQ(h, "peek_time no later than the next live event", evq_peek_time(&h->q),
			 oracle_next_live_time(&h->o));
	if (h->q.n > bound)
		CHECK_EQ(h, "entries within 2 (live + timers) + 64", h->q.n, bound);
	for (int k = 0; k < NTIMERS; k++) {
		CHECK_EQ(h, "timer seq", h->tm[k].seq, h->tm_want[k]);
		CHECK_EQ(h, "timer armed", evq_timer_armed(&h->tm[k]), h->tm_want[k] != 0);
	}
}

static void h_push(struct harness *h, sim_ns t, int f, int obj, uint64_t arg)
{
	uint64_t want = oracle_push(&h->o, t, fns[f], &h->objs[obj], arg, NULL);
	uint64_t got = evq_push(&h->q, t, fns[f], &h->objs[obj], arg);
	CHECK_EQ(h, "push seq", got, want);
	h->step++;
	h_check_state(h);
}

static void h_arm(struct harness *h, int k, sim_ns t, int f, int obj, uint64_t arg)
{
	oracle_kill_timer(&h->o, &h->tm[k]);
	h->tm_want[k] = oracle_push(&h->o, t, fns[f], &h->objs[obj], arg, &h->tm[k]);
	evq_timer_arm(&h->q, &h->tm[k], t, fns[f], &h->objs[obj], arg);
	h->step++;
	h_check_state(h);
}

static void h_cancel(struct harness *h, int k)
{
	oracle_kill_timer(&h->o, &h->tm[k]);
	h->tm_want[k] = 0;
	evq_timer_cancel(&h->tm[k]);
	h->step++;
	h_check_state(h);
}

/* The same through a lane where one is free (evq_timer_arm_lane: the arm
 * of an unarmed timer without a queued entry), and the cancel that frees
 * it at once: the oracle is the same. */
static void h_arm_lane(struct harness *h, int k, sim_ns t, int f, int obj, uint64_t arg)
{
	oracle_kill_timer(&h->o, &h->tm[k]);
	h->tm_want[k] = oracle_push(&h->o, t, fns[f], &h->objs[obj], arg, &h->tm[k]);
	evq_timer_arm_lane(&h->q, &h->tm[k], t, fns[f], &h->objs[obj], arg);
	h->step++;
	h_check_state(h);
}

static void h_cancel_now(struct harness *h, int k)
{
	oracle_kill_timer(&h->o, &h->tm[k]);
	h->tm_want[k] = 0;
	evq_timer_cancel_now(&h->q, &h->tm[k]);
	h->step++;
	h_check_state(h);
}

/* Pop from both; returns whether an event came out (both must agree). */
static bool h_pop(struct harness *h, struct evq_ev *ev_out)
{
	struct oev want;
	struct evq_ev got;
	bool have_want = oracle_pop(&h->o, &want);
	bool have_got = evq_pop(&h->q, &got);

	CHECK_EQ(h, "pop returned", have_got, have_want);
	if (have_want) {
		CHECK_EQ(h, "pop t", got.t, want.t);
		CHECK_EQ(h, "pop seq", got.seq, want.seq);
		CHECK_EQ(h, "pop fn", got.fn == fn_b, want.fn == fn_b);
		CHECK_EQ(h, "pop obj", obj_index(h, got.obj), obj_index(h, want.obj));
		CHECK_EQ(h, "pop arg", got.arg, want.arg);
		CHECK_EQ(h, "pop timer", timer_index(h, got.timer), timer_index(h, want.timer));
		if (want.timer) {
			int k = timer_index(h, want.timer);
			CHECK_EQ(h, "fired timer was live", h->tm_want[k], want.seq);
			h->tm_want[k] = 0; /* fired: reads as not armed */
		}
		if (h->monotone && got.t < h->last_pop_t) {
			print_error("seed %llu step %lu: time went back: %lld after %lld\n",
				    (unsigned long long)h->seed, h->step, (long long)got.t,
				    (long long)h->last_pop_t);
			fail();
		}
		h->last_pop_t = got.t;
		if (ev_out)
			*ev_out = got;
	}
	h->step++;
	h_check_state(h);
	return have_want;
}

static void h_drain(struct harness *h)
{
	while (h_pop(h, NULL))
		;
	CHECK_EQ(h, "queue empty after drain", h->q.n, 0);
	CHECK_EQ(h, "peek on empty", evq_peek_time(&h->q), INT64_MAX);
}

/* ---- scripted cases ---- */

static void test_empty(void **state)
{
	struct evq q;
	struct evq_ev ev;
	(void)state;

	evq_init(&q);
	assert_false(evq_pop(&q, &ev));
	assert_int_equal(evq_peek_time(&q), INT64_MAX);
	assert_int_equal(q.n, 0);
	evq_release(&q);
}

static void test_ties_in_push_order(void **state)
{
	struct harness h;
	struct evq_ev ev;
	(void)state;

	h_init(&h, 0, true);
	/* Five events at one time, then earlier and later ones around them. */
	for (int i = 0; i < 5; i++)
		h_push(&h, 100, i & 1, i, (uint64_t)i);
	h_push(&h, 50, 0, 5, 50);
	h_push(&h, 200, 1, 6, 200);
	h_push(&h, 100, 0, 7, 5);

	assert_true(h_pop(&h, &ev));
	assert_int_equal(ev.t, 50);
	for (uint64_t i = 0; i < 6; i++) {
		assert_true(h_pop(&h, &ev));
		assert_int_equal(ev.t, 100);
		assert_int_equal(ev.arg, i); /* push order, not heap order */
	}
	assert_true(h_pop(&h, &ev));
	assert_int_equal(ev.t, 200);
	assert_false(h_pop(&h, &ev));
	h_release(&h);
}

static void test_push_returns_increasing_seq(void **state)
{
	struct evq q;
	struct evq_timer tm = {0};
	(void)state;

	evq_init(&q);
	assert_int_equal(evq_push(&q, 10, fn_a, NULL, 0), 1);
	assert_int_equal(evq_push(&q, 5, fn_a, NULL, 0), 2);
	evq_timer_arm(&q, &tm, 7, fn_b, NULL, 0);
	assert_int_equal(tm.seq, 3);
	assert_int_equal(evq_push(&q, 5, fn_a, NULL, 0), 4);
	assert_int_equal(q.pushed, 4);
	evq_release(&q);
}

static void test_cancelled_timer_never_fires(void **state)
{
	struct harness h;
	struct evq_ev ev;
	(void)state;

	h_init(&h, 0, true);
	h_push(&h, 10, 0, 0, 1);
	h_arm(&h, 0, 5, 1, 1, 2);   /* earliest event, then cancelled */
	h_arm(&h, 1, 10, 1, 2, 3);  /* tie with the plain event, cancelled */
	h_push(&h, 20, 0, 3, 4);
	h_cancel(&h, 0);
	h_cancel(&h, 1);
	assert_false(evq_timer_armed(&h.tm[0]));
	/* Peek still sees the dead event at 5: it is only dropped on pop. */
	assert_int_equal(evq_peek_time(&h.q), 5);

	assert_true(h_pop(&h, &ev));
	assert_int_equal(ev.arg, 1);
	assert_null(ev.timer);
	assert_true(h_pop(&h, &ev));
	assert_int_equal(ev.arg, 4);
	assert_false(h_pop(&h, &ev));
	assert_int_equal(h.q.skipped, 2);
	h_release(&h);
}

static void test_rearm_kills_old_event(void **state)
{
	struct harness h;
	struct evq_ev ev;
	(void)state;

	h_init(&h, 0, true);
	h_arm(&h, 0, 100, 0, 0, 1);
	h_arm(&h, 0, 50, 0, 0, 2);  /* earlier: the 100 one dies */
	h_arm(&h, 0, 70, 0, 0, 3);  /* later than 50: the 50 one dies */
	h_arm(&h, 0, 70, 1, 1, 4);  /* same time again: the first 70 dies */
	h_push(&h, 60, 0, 2, 5);

	assert_true(h_pop(&h, &ev));
	assert_int_equal(ev.arg, 5);
	assert_true(evq_timer_armed(&h.tm[0]));
	assert_true(h_pop(&h, &ev));
	assert_int_equal(ev.t, 70);
	assert_int_equal(ev.arg, 4);
	assert_ptr_equal(ev.timer, &h.tm[0]);
	assert_false(evq_timer_armed(&h.tm[0])); /* fired: not armed */
	assert_false(h_pop(&h, &ev));
	/* only the re-arm to an earlier time queued a second entry (the one at
	 * 100, dropped); the later ones moved the entry at 50 on to 70 once */
	assert_int_equal(h.q.skipped, 1);
	assert_int_equal(h.q.requeued, 1);
	assert_int_equal(h.q.pushed, 3);
	h_release(&h);
}

static void test_fired_timer_can_be_rearmed(void **state)
{
	struct harness h;
	struct evq_ev ev;
	(void)state;

	h_init(&h, 0, true);
	h_arm(&h, 3, 10, 0, 0, 1);
	assert_true(h_pop(&h, &ev));
	assert_false(evq_timer_armed(&h.tm[3]));
	h_arm(&h, 3, 20, 0, 0, 2);
	assert_true(evq_timer_armed(&h.tm[3]));
	h_cancel(&h, 3);
	h_cancel(&h, 3); /* cancelling twice is harmless */
	h_arm(&h, 3, 30, 0, 0, 3);
	assert_true(h_pop(&h, &ev));
	assert_int_equal(ev.arg, 3);
	assert_false(h_pop(&h, &ev));
	h_release(&h);
}

static void test_only_dead_events_left(void **state)
{
	struct harness h;
	struct evq_ev ev;
	(void)state;

	h_init(&h, 0, true);
	for (int k = 0; k < NTIMERS; k++)
		h_arm(&h, k, 40 - k, 0, 0, (uint64_t)k);
	for (int k = 0; k < NTIMERS; k++)
		h_cancel(&h, k);
	assert_false(h_pop(&h, &ev));
	assert_int_equal(h.q.n, 0);
	assert_int_equal(h.q.skipped, NTIMERS);
	assert_int_equal(evq_peek_time(&h.q), INT64_MAX);
	h_release(&h);
}

/*
 * A delayed-ACK timer as TCP keeps it: armed 40 ms ahead on every other
 * segment, cancelled by the ACK ~1 us later, while four plain events keep
 * the clock moving.  Beside the queue under test runs the old scheme on a
 * second queue (a plain push per arm, stale ones skipped by seq): a million
 * re-arms must pop the same events in the same order from both, while the
 * old queue holds some 16,000 dead entries and the new one holds one entry
 * for the timer.
 */
static void test_rearm_million_times_bounded(void **state)
{
	struct evq q, old;
	struct evq_timer tm = {0};
	uint64_t old_live = 0; /* seq of the old scheme's live timer event */
	uint32_t max_n = 0, max_old = 0;
	int fired = 0;
	(void)state;

	evq_init(&q);
	evq_init(&old);
	for (int i = 0; i < 4; i++) {
		evq_push(&q, i, fn_a, NULL, 0);
		evq_push(&old, i, fn_a, NULL, 0);
	}
	for (int i = 0; i < 1000000; i++) {
		struct evq_ev ev, eo;

		assert_true(evq_pop(&q, &ev));
		do
			assert_true(evq_pop(&old, &eo));
		while (eo.fn == fn_b && eo.seq != old_live); /* dead in the old scheme */
		if (ev.t != eo.t || ev.seq != eo.seq || ev.fn != eo.fn) {
			print_error("pop %d: got (%lld, %llu), old scheme (%lld, %llu)\n", i,
				    (long long)ev.t, (unsigned long long)ev.seq, (long long)eo.t,
				    (unsigned long long)eo.seq);
			fail();
		}
		if (ev.fn == fn_b) {
			fired++;
			old_live = 0;
			continue;
		}
		evq_push(&q, ev.t + 2500, fn_a, NULL, 0);
		evq_push(&old, ev.t + 2500, fn_a, NULL, 0);
		if (i >= 900000) { /* the last 10%: armed when idle, never cancelled */
			if (!evq_timer_armed(&tm)) {
				evq_timer_arm(&q, &tm, ev.t + 40000000, fn_b, NULL, 0);
				old_live = evq_push(&old, ev.t + 40000000, fn_b, NULL, 0);
			}
		} else if (i % 2) {
			evq_timer_arm(&q, &tm, ev.t + 40000000, fn_b, NULL, 0);
			old_live = evq_push(&old, ev.t + 40000000, fn_b, NULL, 0);
			assert_int_equal(tm.seq, old_live);
		} else if (i % 8 != 6) {
			evq_timer_cancel(&tm);
			old_live = 0;
		}
		if (q.n > max_n)
			max_n = q.n;
		if (old.n > max_old)
			max_old = old.n;
	}
	assert_true(fired > 0);          /* the last 10% let it fire */
	assert_true(max_n <= 4 + 1);     /* four plain events and the timer's one */
	assert_true(max_old > 10000);    /* what the old scheme held */
	/* the re-arms moved the entry, they did not push: the old scheme
	 * pushed some 450,000 more than the new one */
	assert_true(q.pushed + 400000 < old.pushed);
	assert_true(q.pushed - 1000004 < 1000);
	evq_release(&q);
	evq_release(&old);
}

/* Re-arms to ever earlier times queue a new entry each: the dead ones are
 * dropped once they are half the heap, and the order stays the oracle's. */
static void test_earlier_rearms_compact(void **state)
{
	struct harness h;
	uint32_t max_n = 0;
	(void)state;

	h_init(&h, 0, true);
	for (int i = 0; i < 200; i++)
		h_push(&h, 1000000 + i, 0, i % NOBJS, (uint64_t)i);
	for (int i = 0; i < 100000; i++) {
		h_arm(&h, i % NTIMERS, 900000 - i, i & 1, i % NOBJS, (uint64_t)i);
		if (h.q.n > max_n)
			max_n = h.q.n;
	}
	assert_true(h.q.skipped > 90000); /* dropped by compaction, not popped */
	assert_true(max_n <= 2 * (200 + NTIMERS) + 64);
	h_drain(&h);
	h_release(&h);
}

/* Fill well past the initial capacity in descending time, so every push
 * sifts to the root, then drain. */
static void test_grows_past_initial_capacity(void **state)
{
	struct harness h;
	uint32_t cap0, total;
	(void)state;

	h_init(&h, 0, true);
	cap0 = h.q.cap;
	assert_true(cap0 > 0);
	total = 4 * cap0 + 3;
	for (uint32_t i = 0; i < total; i++)
		h_push(&h, (sim_ns)(total - i) / 3, (int)(i & 1), (int)(i % NOBJS), i);
	assert_int_equal(h.q.n, total);
	assert_true(h.q.cap >= total);
	h_drain(&h);
	h_release(&h);
}

/* The hold model (pop one, push one at now + [0, span)) with about
 * `pending` events, for `ops` pops; every pop checked against the oracle. */
static void hold_run(struct harness *h, struct rng *r, size_t pending, unsigned long ops, sim_ns span)
{
	sim_ns now = h->last_pop_t == INT64_MIN ? 0 : h->last_pop_t;

	while (oracle_len(&h->o) < pending)
		h_push(h, now + (sim_ns)rng_below(r, (uint64_t)span), 0, 0, 0);
	for (unsigned long i = 0; i < ops; i++) {
		struct evq_ev ev;
		assert_true(h_pop(h, &ev));
		now = ev.t;
		h_push(h, now + (sim_ns)rng_below(r, (uint64_t)span), (int)(i & 1), (int)(i % NOBJS), i);
	}
}

/* The near buckets' width follows the spacing of the events: 300 of them
 * over 4 ms, it grows until the ring's 1024 buckets reach that far (the
 * ring turning over many times on the way); over 4 us, it shrinks back to
 * a few ns and the buckets hold most keys.  The order is the oracle's
 * throughout, across every flush to the heap a change makes. */
static void test_bucket_width_follows_spacing(void **state)
{
	struct harness h;
	struct rng r = {.s = 77};
	(void)state;

	h_init(&h, 77, true);
	hold_run(&h, &r, 300, 50000, (sim_ns)1 << 22);
	assert_true(h.q.bshift >= 10);
	assert_true(h.q.nbkt > h.q.nheap);
	h_drain(&h);
	hold_run(&h, &r, 300, 30000, 4096);
	assert_true(h.q.bshift <= 5);
	assert_true(h.q.nbkt > h.q.nheap);
	h_drain(&h);
	h_release(&h);
}

/* seqs near the top of what fits beside the slot (seq << slot_bits |
 * slot): the order must hold on their high bits, also when the queue
 * grows and every pending key is rewritten with a wider slot field. */
static void test_large_seqs(void **state)
{
	struct harness h;
	struct rng r = {.s = 5};
	uint64_t seq0 = (uint64_t)1 << 48; /* fits beside up to 2^16 entries */
	(void)state;

	h_init(&h, 5, true);
	assert_int_equal(h.q.cap, 1024);
	h.q.next_seq = h.o.next_seq = seq0;
	for (uint32_t i = 0; i < 3 * 1024; i++)
		h_push(&h, (sim_ns)rng_below(&r, 64), 0, 0, i);
	assert_true(h.q.cap >= 3 * 1024);
	hold_run(&h, &r, 3000, 5000, 64);
	assert_true(h.q.next_seq > seq0);
	h_drain(&h);
	h_release(&h);
}

/* ---- random cases ---- */

/*
 * One random run: keep the pending count near a target that itself moves
 * (so the queue grows and shrinks past its initial capacity), mixing plain
 * pushes, timer arms and re-arms, cancels and pops.  In monotone mode every
 * new time is now + [0, span) as in the simulator; otherwise times are
 * anywhere in [0, span), which tests the heap on arbitrary input.
 */
/* timer_lead: timers are armed that much further ahead.
 * Times far apart in every bit of the 64, sign included: clusters of four
 * consecutive nanoseconds around each base, so ties stay common. */
static const sim_ns wide_bases[] = {
	INT64_MIN, -5000000000LL, -1, 0, 4294967292LL /* 2^32 - 4 */, 4294967296LL,
	300000000000LL /* 300 s */, (sim_ns)1 << 62, INT64_MAX - 3,
};

/* LANE_TIMERS: in a run with lanes, timers 0 .. LANE_TIMERS - 1 are armed
 * with evq_timer_arm_lane (more of them than lanes, so some find none
 * free) and cancelled either way; the others as before, so lanes and the
 * rest's dead and moved entries meet. */
#define LANE_TIMERS 6

static void random_run_lanes(uint64_t seed, bool monotone, unsigned long ops, size_t target_max,
			     sim_ns span, sim_ns timer_lead, bool lanes)
{
	struct harness h;
	struct rng r = {.s = seed * 0x9E3779B97F4A7C15ULL + 1};
	sim_ns now = 0;
	size_t target = 1;

	h_init(&h, seed, monotone);
	for (unsigned long i = 0; i < ops; i++) {
		uint64_t x = rng_below(&r, 100);
		sim_ns t = span > 0 ? (monotone ? now : 0) + (sim_ns)rng_below(&r, (uint64_t)span)
				    : wide_bases[rng_below(&r, ARRAY_SIZE(wide_bases))] +
					      (sim_ns)rng_below(&r, 4);
		int f = (int)rng_below(&r, 2), obj = (int)rng_below(&r, NOBJS);
		uint64_t arg = rng_next(&r);
		bool want_more = oracle_len(&h.o) < target;

		if (i % 997 == 0)
			target = 1 + (size_t)rng_below(&r, target_max);
		if (x < (want_more ? 45u : 25u)) {
			h_push(&h, t, f, obj, arg);
		} else if (x < (want_more ? 65u : 35u)) {
			int k = (int)rng_below(&r, NTIMERS);
			if (lanes && k < LANE_TIMERS) {
				if (h.tm_want[k]) /* as a preempted CPU's chunk end (cpu.c: irq_ev) */
					h_cancel_now(&h, k);
				h_arm_lane(&h, k, t + timer_lead, f, obj, arg);
			} else {
				h_arm(&h, k, t + timer_lead, f, obj, arg);
			}
		} else if (x < (want_more ? 70u : 40u)) {
			int k = (int)rng_below(&r, NTIMERS);
			if (lanes && (arg & 1))
				h_cancel_now(&h, k);
			else
				h_cancel(&h, k);
		} else {
			struct evq_ev ev;
			if (h_pop(&h, &ev))
				now = ev.t;
		}
	}
	if (lanes)
		assert_true(h.q.laned > ops / 1000);
	h_drain(&h);
	CHECK_EQ(&h, "no lane in use after drain", h.q.nlane, 0);
	h_release(&h);
}

static void random_run_lead(uint64_t seed, bool monotone, unsigned long ops, size_t target_max,
			    sim_ns span, sim_ns timer_lead)
{
	random_run_lanes(seed, monotone, ops, target_max, span, timer_lead, false);
}

static void random_run(uint64_t seed, bool monotone, unsigned long ops, size_t target_max,
		       sim_ns span)
{
	random_run_lead(seed, monotone, ops, target_max, span, 0);
}

static void test_random_monotone_ties(void **state)
{
	(void)state;
	/* span 4: most events share their time with several others */
	for (uint64_t seed = 1; seed <= 12; seed++)
		random_run(seed, true, 20000, 3000, 4);
}

static void test_random_monotone_spread(void **state)
{
	(void)state;
	for (uint64_t seed = 101; seed <= 106; seed++)
		random_run(seed, true, 20000, 3000, 1000);
}

static void test_random_arbitrary_times(void **state)
{
	(void)state;
	for (uint64_t seed = 201; seed <= 212; seed++)
		random_run(seed, false, 20000, 3000, 16);
}

/* span 0: times from wide_bases, so order must hold on all 64 bits of t. */
static void test_random_wide_times(void **state)
{
	(void)state;
	for (uint64_t seed = 701; seed <= 706; seed++)
		random_run(seed, false, 20000, 3000, 0);
}

/* Small queues: every path near the root and the leaves, many seeds. */
/* Timers re-armed mostly later than their entry, as TCP's are: the entry
 * is moved along many times before it fires or dies. */
static void test_random_mostly_later(void **state)
{
	(void)state;
	for (uint64_t seed = 801; seed <= 806; seed++)
		random_run_lead(seed, true, 20000, 200, 100, 5000);
}

static void test_random_small(void **state)
{
	(void)state;
	for (uint64_t seed = 301; seed <= 600; seed++)
		random_run(seed, seed & 1, 400, 9, 3);
}

/* Lanes (evq.h) among the rest: ties, spread, arbitrary and wide times,
 * timers moved along, small queues, and the growth that rewrites every
 * key's seq field, lanes' included. */
static void test_random_lanes(void **state)
{
	(void)state;
	for (uint64_t seed = 901; seed <= 906; seed++)
		random_run_lanes(seed, true, 20000, 3000, 4, 0, true);
	for (uint64_t seed = 911; seed <= 914; seed++)
		random_run_lanes(seed, true, 20000, 3000, 1000, 0, true);
	for (uint64_t seed = 921; seed <= 924; seed++)
		random_run_lanes(seed, false, 20000, 3000, 16, 0, true);
	for (uint64_t seed = 931; seed <= 934; seed++)
		random_run_lanes(seed, false, 20000, 3000, 0, 0, true);
	for (uint64_t seed = 941; seed <= 944; seed++)
		random_run_lanes(seed, true, 20000, 200, 100, 5000, true);
	for (uint64_t seed = 951; seed <= 1050; seed++)
		random_run_lanes(seed, seed & 1, 400, 9, 3, 0, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_ties_in_push_order),
		cmocka_unit_test(test_push_returns_increasing_seq),
		cmocka_unit_test(test_cancelled_timer_never_fires),
		cmocka_unit_test(test_rearm_kills_old_event),
		cmocka_unit_test(test_fired_timer_can_be_rearmed),
		cmocka_unit_test(test_only_dead_events_left),
		cmocka_unit_test(test_rearm_million_times_bounded),
		cmocka_unit_test(test_earlier_rearms_compact),
		cmocka_unit_test(test_grows_past_initial_capacity),
		cmocka_unit_test(test_bucket_width_follows_spacing),
		cmocka_unit_test(test_large_seqs),
		cmocka_unit_test(test_random_monotone_ties),
		cmocka_unit_test(test_random_monotone_spread),
		cmocka_unit_test(test_random_arbitrary_times),
		cmocka_unit_test(test_random_wide_times),
		cmocka_unit_test(test_random_mostly_later),
		cmocka_unit_test(test_random_small),
		cmocka_unit_test(test_random_lanes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
