/*
 * evq: near buckets and a 4-ary min-heap of small keys, event bodies kept
 * aside.
 *
 * Shaped for the workload every discrete-event simulator has, the "hold"
 * pattern (pop the earliest event, its handler pushes one or two more;
 * tests/bench_engine.c measures it):
 *
 *  - Most keys are due soon: they go into a ring of buckets by time (see
 *    "The near buckets" below), O(1) both ways; the heap takes the rest.
 *  - heap[] and the buckets hold only keys, 16 bytes: t, and seq with the slot in its low
 *    slot_bits bits (cap is a power of two; when it doubles, every pending
 *    key is rewritten with one bit more); fn, obj, arg and the timer sit in
 *    slots[slot] and never move while the event is pending.  A sift moves
 *    16 bytes per level instead of a whole 48-byte event, and heap + 1 is
 *    aligned to 64 bytes, so the four children of a node, 4i+1 .. 4i+4,
 *    are one cache line (LaMarca & Ladner, below).  seq keeps 64 -
 *    slot_bits bits: 2^44 events at a million pending ones, days of run.
 *    Free slots form a LIFO list threaded through .arg, so the slot a pop
 *    frees is the one the handler's next push takes, still in cache.
 *  - Four children per node (d-heaps: Johnson, "Priority queues with update
 *    and finding minimum spanning trees", IPL 4(3), 1975; 4-ary as the
 *    cache-friendly choice: LaMarca & Ladner, "The influence of caches on
 *    the performance of heaps", JEA 1, 1996): half the levels of a binary
 *    heap.  Children of i are 4i+1 .. 4i+4.
 *  - Pop walks the hole at the root down to a leaf along the smallest
 *    children, then sifts the last key up from there (bottom-up heapsort:
 *    Wegener, TCS 118(1), 1993): the last key nearly always belongs near the
 *    bottom, so this saves the comparison with it on every level.
 *  - A key compares as the 128-bit integer t * 2^64 + seq, which is exactly
 *    the (t, seq) order; the compiler turns it into cmp/sbb and conditional
 *    moves, so choosing among four children costs no mispredicted branch.
 *    (__int128 is a GCC/Clang extension; util.h already assumes those.)
 *
 * How each choice was measured, and the shapes tried and found slower:
 * docs/bench.md, "The event queue, measured".
 */
#include "evq.h"

#include <stdlib.h>

#include "util.h"

#define EVQ_CAP0 1024u
#define EVQ_CAP_MAX (1u << 31)
#define CACHE_LINE 64u
#define EVQ_NB 1024u     /* near buckets, a power of two */
#define EVQ_BK 4u        /* keys per bucket: one cache line */
#define EVQ_SHIFT0 4u    /* first bucket width, 16 ns */
#define EVQ_SHIFT_MAX 40u
#define EVQ_JUDGE 4096u  /* pushes between judgements of the width */

__extension__ typedef __int128 evq_k128;

/* The (t, seq) order as one integer, t * 2^64 + seqslot, built as bits:
 * the arithmetic form makes GCC 12 spill to the stack.  Converting the
 * unsigned value to signed is modulo 2^128 in GCC and Clang
 * (implementation-defined in C11), which is what gives t its sign. */
static inline evq_k128 key_of(const struct evq_key *k)
{
	__extension__ unsigned __int128 hi = (uint64_t)k->t;
	return (evq_k128)(hi << 64 | k->seqslot);
}

static inline uint32_t key_slot(const struct evq *q, const struct evq_key *k)
{
	return (uint32_t)(k->seqslot & (q->cap - 1));
}

static inline uint64_t key_seq(const struct evq *q, const struct evq_key *k)
{
	return k->seqslot >> q->slot_bits;
}

static inline struct evq_key key_make(const struct evq *q, sim_ns t, uint64_t seq, uint32_t slot)
{
	return (struct evq_key){.t = t, .seqslot = seq << q->slot_bits | slot};
}

/* The key of no event, later than every key: an unused bucket key, and
 * heap[0] and bmin while they stand for nothing (an empty heap, no bucketed
 * key), so the pop and the push compare with them without asking first.
 * No event's key is it: its seqslot would need seq >= seq_end. */
static const struct evq_key key_none = {.t = INT64_MAX, .seqslot = UINT64_MAX};

static void bkt_flush(struct evq *q);
static void bkt_init(struct evq *q);

/* Make room for cap keys and slots, cap a power of two; new slots go on
 * the free list (all old slots are in use: the queue only grows when it is
 * full), and the pending keys take the wider slot field. */
static void evq_grow(struct evq *q, uint32_t cap)
{
	uint32_t bits = 0, old_bits = q->slot_bits;
	struct evq_key *heap;
	void *mem;

	INVARIANT(cap > q->cap && cap <= EVQ_CAP_MAX, "event queue cannot grow past %u entries", q->cap);
	if (q->bkt)
		bkt_flush(q); /* the heap's keys only are rewritten below */
	while ((1u << bits) < cap)
		bits++;
	INVARIANT(q->next_seq <= UINT64_MAX >> bits,
		  "event queue: %llu events scheduled, too many to number beside %u pending ones",
		  (unsigned long long)q->next_seq, cap);
	/* heap + 1 on a cache line's start: heap[0] is the line's last key */
	mem = xmalloc((size_t)(cap + CACHE_LINE / sizeof(*heap)) * sizeof(*heap));
	heap = (struct evq_key *)mem;
	while ((uintptr_t)(heap + 1) % CACHE_LINE)
		heap++;
	for (uint32_t i = 0; i < q->nheap; i++) {
		struct evq_key k = q->heap[i];
		uint64_t slot = k.seqslot & (q->cap - 1);
		heap[i] = (struct evq_key){.t = k.t, .seqslot = (k.seqslot >> old_bits) << bits | slot};
	}
	if (q->front.seqslot) {
		uint64_t slot = q->front.seqslot & (q->cap - 1);
		q->front.seqslot = (q->front.seqslot >> old_bits) << bits | slot;
	}
	for (uint32_t i = 0; i < q->nlane; i++)
		q->lane[i].k.seqslot = (q->lane[i].k.seqslot >> old_bits) << bits;
	if (q->nlane)
		q->lane_min = q->lane[q->lane_min_i].k;
	if (q->nheap == 0)
		heap[0] = key_none;
	free(q->heap_mem);
	q->heap_mem = mem;
	q->heap = heap;
	q->slots = xrealloc(q->slots, (size_t)cap * sizeof(*q->slots));
	for (uint32_t s = q->cap; s < cap; s++)
		q->slots[s].arg = s + 1;
	q->free_slot = q->cap;
	q->cap = cap;
	q->slot_bits = bits;
	q->seq_end = UINT64_MAX >> bits; /* seqs below it fit: seq << bits does not overflow */
}

void evq_init(struct evq *q)
{
	q->heap = NULL;
	q->heap_mem = NULL;
	q->slots = NULL;
	q->n = q->nheap = q->cap = q->slot_bits = 0;
	q->front = (struct evq_key){0};
	q->nlane = q->lane_min_i = 0;
	q->lanes_max = EVQ_LANES;
	q->lane_min = key_none;
	q->front_off = false;
	q->next_seq = 1;
	q->bkt = NULL;
	evq_grow(q, EVQ_CAP0);
	bkt_init(q);
	q->ndead = 0;
	q->pushed = q->skipped = q->requeued = q->fronted = q->laned = 0;
}

void evq_release(struct evq *q)
{
	free(q->heap_mem);
	free(q->slots);
	free(q->bkt_mem);
	free(q->bcnt);
	free(q->bmap);
	q->heap = NULL;
	q->heap_mem = NULL;
	q->slots = NULL;
	q->bkt = NULL;
	q->bkt_mem = NULL;
	q->bcnt = NULL;
	q->bmap = NULL;
	q->nbkt = 0;
	q->n = q->nheap = q->cap = 0;
	q->front.seqslot = 0;
	q->nlane = 0;
	q->lane_min = key_none;
}

/* Put key k at position i or above, moving larger parents down. */
static inline void sift_up(struct evq_key *h, size_t i, struct evq_key k)
{
	evq_k128 kk = key_of(&k);

	while (i > 0) {
		size_t parent = (i - 1) / 4;
		if (!(kk < key_of(&h[parent])))
			break;
		h[i] = h[parent];
		i = parent;
	}
	h[i] = k;
}

static inline uint32_t slot_take(struct evq *q)
{
	uint32_t slot = q->free_slot;
	q->free_slot = (uint32_t)q->slots[slot].arg;
	return slot;
}

static inline void slot_put(struct evq *q, uint32_t slot)
{
	q->slots[slot].arg = q->free_slot;
	q->free_slot = slot;
}

/*
 * The descent below works in byte offsets rather than indices: the child
 * group of the key at offset o starts at 4*o + KEY, one lea, and GCC 12 then
 * keeps every choice in conditional moves (with indices it multiplies by 24
 * and branches on one of the selects: measured 1.7x instead of 2.1x over
 * "ref" in tests/bench_engine.c).
 */
#define KEY ((size_t)sizeof(struct evq_key))

static inline struct evq_key *key_at(struct evq_key *h, size_t off)
{
	return (struct evq_key *)((char *)h + off);
}

/* Offset of the smallest of the four keys starting at offset c.  Which one
 * it is is a coin toss: a branch would mispredict half the time. */
static inline size_t min_of_4(struct evq_key *h, size_t c)
{
	evq_k128 k0 = key_of(key_at(h, c)), k1 = key_of(key_at(h, c + KEY));
	evq_k128 k2 = key_of(key_at(h, c + 2 * KEY)), k3 = key_of(key_at(h, c + 3 * KEY));
	size_t a = c, b = c + 2 * KEY;

	if (k1 < k0) {
		a = c + KEY;
		k0 = k1;
	}
	if (k3 < k2) {
		b = c + 3 * KEY;
		k2 = k3;
	}
	return k2 < k0 ? b : a;
}

/* Fill the hole at heap[0] of the n keys h[0..n) with k: walk the hole down
 * to a leaf along the smallest children, then sift k up from there. */
__attribute__((always_inline)) static inline void fill_root(struct evq_key *h, size_t n, struct evq_key k)
{
	size_t end = n * KEY, i = 0, c; /* byte offsets */

	for (c = KEY; c + 4 * KEY <= end; c = 4 * i + KEY) {
		size_t m = min_of_4(h, c);
		*key_at(h, i) = *key_at(h, m);
		i = m;
	}
	if (c < end) { /* the one node with fewer than four children */
		size_t m = c;
		for (size_t k2 = c + KEY; k2 < end; k2 += KEY)
			if (key_of(key_at(h, k2)) < key_of(key_at(h, m)))
				m = k2;
		*key_at(h, i) = *key_at(h, m);
		i = m;
	}
	sift_up(h, i / KEY, k);
}

/*
 * The near buckets: a ring of EVQ_NB buckets, each 2^bshift ns wide and
 * one cache line of EVQ_BK keys, unsorted.  Bucket bcur holds the keys
 * earlier than bbase + 2^bshift, the one j after it (modulo EVQ_NB) those of
 * [bbase + j 2^bshift, bbase + (j + 1) 2^bshift).  A key goes into its
 * bucket if the ring reaches that far and the bucket has room, else into
 * the heap; so every bucket's keys are earlier than those of the buckets
 * after it, the earliest bucketed key (bmin) is in the first bucket that
 * holds one, and the queue's next key is the earlier of bmin and the
 * heap's top.  Where a key is kept never changes the order, only the
 * cost: an O(1) push and pop for the keys of the near future, which in the
 * hold model and in a CPU's steps are nearly all of them.  (A calendar
 * queue, Brown, CACM 31(10), 1988, without its years: what does not fit
 * goes to the heap.)  Taking bmin moves the ring's start to its bucket;
 * every EVQ_JUDGE pushes (checked after the next pop) the width is judged:
 * halved when too many keys found their bucket full, doubled when too many
 * fell past the ring.
 */
static void bkt_init(struct evq *q)
{
	struct evq_key *b;

	q->bkt_mem = xmalloc((size_t)(EVQ_NB * EVQ_BK + CACHE_LINE / KEY) * KEY);
	b = (struct evq_key *)q->bkt_mem;
	while ((uintptr_t)b % CACHE_LINE)
		b++;
	for (uint32_t i = 0; i < EVQ_NB * EVQ_BK; i++)
		b[i] = key_none;
	q->bkt = b;
	q->bcnt = xcalloc(EVQ_NB, 1);
	q->bmap = xcalloc(EVQ_NB / 64, sizeof(*q->bmap));
	q->nbkt = q->bcur = 0;
	q->bmin = key_none;
	q->bshift = EVQ_SHIFT0;
	q->bbase = q->last_t = 0;
	q->b_offered = q->b_full = q->b_far = 0;
	q->b_judge_at = EVQ_JUDGE;
}

/* Move every bucketed key into the heap. */
static void bkt_flush(struct evq *q)
{
	for (uint32_t b = 0; b < EVQ_NB && q->nbkt; b++) {
		for (uint32_t i = 0; i < q->bcnt[b]; i++) {
			sift_up(q->heap, q->nheap++, q->bkt[b * EVQ_BK + i]);
			q->bkt[b * EVQ_BK + i] = key_none;
			q->nbkt--;
		}
		q->bcnt[b] = 0;
	}
	for (uint32_t w = 0; w < EVQ_NB / 64; w++)
		q->bmap[w] = 0;
	q->bmin = key_none;
}

/* Halve or double the width by what the pushes since the last judgement
 * met.  A change moves every bucketed key to the heap, so the next
 * judgement waits for at least four pushes per pending key: that bounds
 * the moves to a quarter of a heap push per push, even when no width
 * suits (keys both crowded and far apart). */
__attribute__((noinline)) static void bkt_judge(struct evq *q)
{
	uint32_t off = q->b_offered, full = q->b_full, far = q->b_far, shift = q->bshift;

	q->b_offered = q->b_full = q->b_far = 0;
	q->b_judge_at = EVQ_JUDGE;
	if (full > off / 8 && shift > 0)
		shift--;
	else if (far > off / 8 && full < off / 32 && shift < EVQ_SHIFT_MAX)
		shift++;
	else
		return;
	bkt_flush(q);
	q->bshift = shift;
	q->bbase = q->last_t;
	if (q->n > EVQ_JUDGE / 4)
		q->b_judge_at = q->n > UINT32_MAX / 4 ? UINT32_MAX : 4 * q->n;
}

/* Key k into its bucket if it has one with room: true; else false. */
__attribute__((always_inline)) static inline bool bkt_offer(struct evq *q, struct evq_key k)
{
	uint64_t j;
	uint32_t b, at;

	q->b_offered++; /* judged by the pop (bkt_judge), where no key is in hand */
	if (q->nbkt == 0)
		q->bbase = q->last_t; /* empty: any start is right, now is best */
	/* a key earlier than bbase (pushed into the past) is far too: the
	 * unsigned difference is then at least 2^63 */
	j = ((uint64_t)k.t - (uint64_t)q->bbase) >> q->bshift;
	if (j >= EVQ_NB) {
		q->b_far++;
		return false;
	}
	b = (uint32_t)(q->bcur + j) & (EVQ_NB - 1);
	if (q->bcnt[b] == EVQ_BK) {
		q->b_full++;
		return false;
	}
	at = b * EVQ_BK + q->bcnt[b]++;
	q->bkt[at] = k;
	q->bmap[b / 64] |= 1ull << (b % 64);
	q->nbkt++;
	if (key_of(&k) < key_of(&q->bmin)) { /* bmin is key_none when nbkt was 0 */
		q->bmin = k;
		q->bmin_at = at;
	}
	return true;
}

/* The first bucket after b (circularly) that holds a key (nbkt > 0). */
static inline uint32_t bkt_next(const struct evq *q, uint32_t b)
{
	uint32_t w = b / 64;
	uint64_t bits = q->bmap[w] & (~0ull << (b % 64));

	while (!bits) {
		w = (w + 1) % (EVQ_NB / 64);
		bits = q->bmap[w];
	}
	return w * 64 + (uint32_t)__builtin_ctzll(bits);
}

/* bmin := the least of the keys k0 .. k3, at bkt[i0 .. i3] (for three
 * keys, pass the third twice). */
__attribute__((always_inline)) static inline void bkt_set_min(struct evq *q, uint32_t i0, evq_k128 k0,
							      uint32_t i1, evq_k128 k1, uint32_t i2, evq_k128 k2,
							      uint32_t i3, evq_k128 k3)
{
	if (k1 < k0) {
		i0 = i1;
		k0 = k1;
	}
	if (k3 < k2) {
		i2 = i3;
		k2 = k3;
	}
	if (k2 < k0) {
		i0 = i2;
		k0 = k2;
	}
	q->bmin_at = i0;
	q->bmin = (struct evq_key){.t = (sim_ns)(k0 >> 64), .seqslot = (uint64_t)k0};
}

/*
 * Take bmin out; the ring starts at its bucket now.  Each pop waits for
 * the bmin the one before it found, so the next one is found from the
 * line's other keys as read before the stores that take this one out (read
 * after them, by min_of_4, they wait for those stores), and those keys are
 * picked by index, not by a branch on where in its line bmin sits, which
 * is a coin toss.  The key that moves into the hole keeps its index by
 * a select.  A bucket that empties (most do in the hold model, with about
 * one key a bucket) hands over to the next one's line, read by value too:
 * min_of_4 and a load of the key it picks measured 0.95x.
 */
__attribute__((always_inline)) static inline void bkt_take(struct evq *q)
{
	uint32_t at = q->bmin_at, b = at / EVQ_BK, base = b * EVQ_BK, last = base + q->bcnt[b] - 1;
	uint32_t off = (b - q->bcur) & (EVQ_NB - 1);
	/* the line's other three keys, key_none where unused */
	uint32_t i1 = base + (at + 1) % EVQ_BK, i2 = base + (at + 2) % EVQ_BK, i3 = base + (at + 3) % EVQ_BK;
	evq_k128 k1 = key_of(&q->bkt[i1]), k2 = key_of(&q->bkt[i2]), k3 = key_of(&q->bkt[i3]);

	q->bkt[at] = q->bkt[last]; /* the line stays packed */
	q->bkt[last] = key_none;
	q->bcnt[b]--;
	q->bbase = (sim_ns)((uint64_t)q->bbase + ((uint64_t)off << q->bshift));
	q->bcur = b;
	if (--q->nbkt == 0) {
		q->bmap[b / 64] &= ~(1ull << (b % 64));
		q->bmin = key_none;
		return;
	}
	if (last != base) { /* the bucket holds more: its least is next */
		i1 = i1 == last ? at : i1;
		i2 = i2 == last ? at : i2;
		i3 = i3 == last ? at : i3;
		bkt_set_min(q, i1, k1, i2, k2, i3, k3, i3, k3);
		return;
	}
	q->bmap[b / 64] &= ~(1ull << (b % 64));
	base = bkt_next(q, b) * EVQ_BK;
	bkt_set_min(q, base, key_of(&q->bkt[base]), base + 1, key_of(&q->bkt[base + 1]), base + 2,
		    key_of(&q->bkt[base + 2]), base + 3, key_of(&q->bkt[base + 3]));
}

/* Key k into the buckets or the heap. */
__attribute__((always_inline)) static inline void evq_store(struct evq *q, struct evq_key k)
{
	if (!bkt_offer(q, k))
		sift_up(q->heap, q->nheap++, k);
}

/* Key k enters the queue: into the front when it is earlier than every
 * pending key (the old front, if any, goes on), else into the buckets or
 * the heap (evq_store). */
__attribute__((always_inline)) static inline void evq_place(struct evq *q, struct evq_key k)
{
	if (!q->front_off) {
		if (q->front.seqslot == 0) {
			/* key_none stands in for an empty heap or ring */
			if (key_of(&k) < key_of(&q->bmin) && key_of(&k) < key_of(&q->heap[0])) {
				q->front = k;
				q->fronted++;
				return;
			}
		} else if (key_of(&k) < key_of(&q->front)) {
			struct evq_key old = q->front;
			q->front = k;
			q->fronted++;
			k = old;
		}
	}
	evq_store(q, k);
}

static uint32_t evq_insert_grow(struct evq *q, sim_ns t, uint64_t seq, evq_fn fn, void *obj, uint64_t arg,
			       struct evq_timer *tm);

__attribute__((always_inline)) static inline uint32_t evq_insert(struct evq *q, sim_ns t, uint64_t seq, evq_fn fn, void *obj,
				  uint64_t arg, struct evq_timer *tm)
{
	uint32_t slot;

	if (q->n == q->cap) /* a call the arguments need not survive */
		return evq_insert_grow(q, t, seq, fn, obj, arg, tm);
	INVARIANT(seq < q->seq_end, "event queue: seq %llu too large to number beside %u pending events",
		  (unsigned long long)seq, q->cap);
	slot = slot_take(q);
	q->slots[slot] = (struct evq_slot){.fn = fn, .obj = obj, .arg = arg, .timer = tm};
	evq_place(q, key_make(q, t, seq, slot));
	q->n++;
	q->pushed++;
	return slot;
}

__attribute__((noinline)) static uint32_t evq_insert_grow(struct evq *q, sim_ns t, uint64_t seq, evq_fn fn,
							 void *obj, uint64_t arg, struct evq_timer *tm)
{
	evq_grow(q, 2 * q->cap);
	return evq_insert(q, t, seq, fn, obj, arg, tm);
}

uint64_t evq_push(struct evq *q, sim_ns t, evq_fn fn, void *obj, uint64_t arg)
{
	uint64_t seq = q->next_seq++;
	evq_insert(q, t, seq, fn, obj, arg, NULL);
	return seq;
}

void evq_push_seq(struct evq *q, sim_ns t, uint64_t seq, evq_fn fn, void *obj, uint64_t arg)
{
	INVARIANT(seq > 0 && seq < q->next_seq, "evq_push_seq: seq %llu was never taken", (unsigned long long)seq);
	evq_insert(q, t, seq, fn, obj, arg, NULL);
}

static void evq_drop_dead(struct evq *q);

/*
 * The lanes (evq.h).  lane_min is the least of lane[0 .. nlane), found by
 * a scan of at most EVQ_LANES keys whenever one leaves; a timer is in a
 * lane while it is armed (seq) with no queued entry (qseq 0), a state no
 * other arm leaves it in.
 */
static inline void lane_set_min(struct evq *q)
{
	uint32_t mi = 0;

	if (q->nlane == 0) {
		q->lane_min = key_none;
		return;
	}
	for (uint32_t i = 1; i < q->nlane; i++)
		if (key_of(&q->lane[i].k) < key_of(&q->lane[mi].k))
			mi = i;
	q->lane_min_i = mi;
	q->lane_min = q->lane[mi].k;
}

static inline void lane_remove(struct evq *q, uint32_t i)
{
	q->lane[i] = q->lane[--q->nlane];
	lane_set_min(q);
}

/* Free tm's lane (tm is in one: armed, no queued entry); not the lane of
 * an earlier arm that evq_timer_cancel left behind, which has another seq. */
static void lane_drop_tm(struct evq *q, const struct evq_timer *tm)
{
	for (uint32_t i = 0; i < q->nlane; i++)
		if (q->lane[i].tm == tm && q->lane[i].k.seqslot >> q->slot_bits == tm->seq) {
			lane_remove(q, i);
			return;
		}
	INVARIANT(0, "event queue: an armed timer with no entry and no lane");
}

/* evq_timer_arm_lane's own part, once it saw a free lane.  Out of line:
 * inlined, it grows the CPU's chunk_start past inlining. */
__attribute__((noinline)) void evq_lane_arm(struct evq *q, struct evq_timer *tm, sim_ns t, evq_fn fn, void *obj,
					    uint64_t arg)
{
	struct evq_lane *l;
	uint64_t seq;

	if (q->front_off || q->nlane >= q->lanes_max || tm->seq || tm->qseq) {
		evq_timer_arm(q, tm, t, fn, obj, arg);
		return;
	}
	seq = q->next_seq++;
	INVARIANT(seq < q->seq_end, "event queue: seq %llu too large to number beside %u pending events",
		  (unsigned long long)seq, q->cap);
	tm->seq = seq;
	tm->t = t;
	l = &q->lane[q->nlane];
	*l = (struct evq_lane){.k = key_make(q, t, seq, 0), .fn = fn, .obj = obj, .arg = arg, .tm = tm};
	if (key_of(&l->k) < key_of(&q->lane_min)) { /* key_none while no lane was in use */
		q->lane_min = l->k;
		q->lane_min_i = q->nlane;
	}
	q->nlane++;
	q->laned++;
}

void evq_timer_cancel_now(struct evq *q, struct evq_timer *tm)
{
	if (tm->seq && !tm->qseq)
		lane_drop_tm(q, tm);
	tm->seq = 0;
}

void evq_timer_arm(struct evq *q, struct evq_timer *tm, sim_ns t, evq_fn fn, void *obj, uint64_t arg)
{
	uint64_t seq = q->next_seq++;

	INVARIANT(seq < q->seq_end, "event queue: seq %llu too large to number beside %u pending events",
		  (unsigned long long)seq, q->cap);
	if (tm->seq && !tm->qseq) /* re-armed out of its lane */
		lane_drop_tm(q, tm);
	tm->seq = seq;
	tm->t = t;
	if (tm->qseq && tm->qt <= t) {
		/* mod_timer: the queued entry comes up first and moves on */
		q->slots[tm->qslot] = (struct evq_slot){.fn = fn, .obj = obj, .arg = arg, .timer = tm};
		return;
	}
	bool had_entry = tm->qseq != 0; /* queued later than t: it dies */

	tm->qslot = evq_insert(q, t, seq, fn, obj, arg, tm);
	tm->qseq = seq;
	tm->qt = t;
	if (had_entry && ++q->ndead > q->n / 2 && q->n >= 64)
		evq_drop_dead(q);
}

/* Drop heap[0]. */
__attribute__((noinline)) static void remove_top(struct evq *q)
{
	size_t n = --q->nheap;

	if (n == 0) {
		q->heap[0] = key_none;
		return;
	}
	fill_root(q->heap, n, q->heap[n]);
	/* The next pop reads the new top's slot, which for a large queue was
	 * written long ago: fetch it while the handler runs (3-5% at N=100000
	 * in tests/bench_engine.c, no change at N=1000). */
	__builtin_prefetch(&q->slots[key_slot(q, &q->heap[0])]);
}

/* A queued entry whose timer has since queued a newer one. */
static inline bool key_dead(const struct evq *q, const struct evq_key *k)
{
	const struct evq_timer *tm = q->slots[key_slot(q, k)].timer;
	return tm && tm->qseq != key_seq(q, k);
}

/* Drop every dead entry and rebuild the heap (Floyd's bottom-up build,
 * O(n)); the order of what is left is that of its keys, unchanged. */
static void evq_drop_dead(struct evq *q)
{
	struct evq_key *h = q->heap;
	size_t n = 0;

	bkt_flush(q);
	if (q->front.seqslot && key_dead(q, &q->front)) {
		slot_put(q, key_slot(q, &q->front));
		q->skipped++;
		q->front.seqslot = 0;
	}
	for (size_t i = 0; i < q->nheap; i++) {
		if (key_dead(q, &h[i])) {
			slot_put(q, key_slot(q, &h[i]));
			q->skipped++;
		} else {
			h[n++] = h[i];
		}
	}
	q->nheap = (uint32_t)n;
	q->n = q->nheap + (q->front.seqslot != 0);
	q->ndead = 0;
	if (n == 0)
		h[0] = key_none;
	for (size_t i = n / 4 + 1; i-- > 0;) {
		struct evq_key k = h[i];
		size_t j = i;
		for (;;) {
			size_t m = 4 * j + 1;
			if (m >= n)
				break;
			for (size_t c = m + 1; c < m + 4 && c < n; c++)
				if (key_of(&h[c]) < key_of(&h[m]))
					m = c;
			if (!(key_of(&h[m]) < key_of(&k)))
				break;
			h[j] = h[m];
			j = m;
		}
		h[j] = k;
	}
}

/* Take the earliest key k (the front's, or the heap's top) out. */
__attribute__((always_inline)) static inline void take_first(struct evq *q, const struct evq_key *k)
{
	q->n--;
	q->last_t = k->t;
	if (k == &q->front)
		q->front.seqslot = 0;
	else if (k == &q->bmin)
		bkt_take(q);
	else
		remove_top(q);
}

/* The first key is the entry (slot, seq) of a timer that is not due with
 * it: drop the entry (the timer was re-armed earlier or cancelled) or move
 * it to the timer's later (time, seq).  Out of line: rarer than a fire. */
__attribute__((noinline)) static void timer_entry_passed(struct evq *q, const struct evq_key *first,
							 struct evq_timer *tm, uint32_t slot, uint64_t seq)
{
	if (tm->qseq != seq) { /* re-armed earlier since */
		q->ndead--;
		q->skipped++;
		slot_put(q, slot);
		take_first(q, first);
	} else if (tm->seq == 0) { /* cancelled */
		tm->qseq = 0;
		q->skipped++;
		slot_put(q, slot);
		take_first(q, first);
	} else { /* re-armed later: move on to it */
		take_first(q, first);
		tm->qseq = tm->seq;
		tm->qt = tm->t;
		evq_place(q, key_make(q, tm->t, tm->seq, slot));
		q->n++;
		q->requeued++;
	}
}

/* The first key of the queue due by `until`, or NULL. */
__attribute__((always_inline)) static inline const struct evq_key *first_key(const struct evq *q, sim_ns until)
{
	const struct evq_key *first;

	if (q->front.seqslot)
		first = &q->front;
	else if (q->n) /* key_none stands in for an empty heap or ring */
		first = key_of(&q->heap[0]) < key_of(&q->bmin) ? &q->heap[0] : &q->bmin;
	else
		return NULL;
	return first->t > until ? NULL : first;
}

/* Take the first key out as the event *ev (its timer, if any, fired). */
__attribute__((always_inline)) static inline void pop_first(struct evq *q, const struct evq_key *first,
							    struct evq_ev *ev)
{
	uint32_t slot = key_slot(q, first);
	const struct evq_slot *s = &q->slots[slot];

	*ev = (struct evq_ev){.t = first->t, .seq = key_seq(q, first), .fn = s->fn, .obj = s->obj, .arg = s->arg,
			      .timer = s->timer};
	slot_put(q, slot);
	take_first(q, first);
	if (q->b_offered >= q->b_judge_at)
		bkt_judge(q);
}

/* Whether key `first` fires: a plain event's, or the entry of timer tm
 * armed with this very key, which is then no longer armed. */
__attribute__((always_inline)) static inline bool key_fires(const struct evq *q, const struct evq_key *first,
							    struct evq_timer *tm)
{
	uint64_t seq;

	if (!tm)
		return true;
	seq = key_seq(q, first);
	if (tm->qseq != seq || tm->seq != seq)
		return false;
	tm->seq = tm->qseq = 0; /* fired: no longer armed */
	return true;
}

/* Whether the earliest lane key comes first: due by `until` and before
 * `first`, the rest's first key due by `until` (NULL: none).  Lanes in use. */
static inline bool lane_first(const struct evq *q, const struct evq_key *first, sim_ns until)
{
	return q->lane_min.t <= until && (!first || key_of(&q->lane_min) < key_of(first));
}

static bool pop_lane(struct evq *q, sim_ns until, struct evq_ev *ev);

/* evq_pop_until once the first key (first, due by `until`) is a timer
 * entry that does not fire as armed: each in turn is dropped or moves on
 * (timer_entry_passed), until a key fires and its event comes out, or a
 * lane's key is first. */
__attribute__((noinline)) static bool pop_timers(struct evq *q, sim_ns until, const struct evq_key *first,
						 struct evq_ev *ev)
{
	for (;;) {
		uint32_t slot = key_slot(q, first);
		struct evq_timer *tm = q->slots[slot].timer;

		if (key_fires(q, first, tm)) {
			pop_first(q, first, ev);
			return true;
		}
		timer_entry_passed(q, first, tm, slot, key_seq(q, first));
		first = first_key(q, until);
		if (q->nlane && lane_first(q, first, until))
			return pop_lane(q, until, ev);
		if (!first)
			return false;
	}
}

/* The pop once the lanes' key is not first: first, the rest's first key
 * due by `until` (NULL: none). */
__attribute__((always_inline)) static inline bool pop_rest(struct evq *q, sim_ns until,
							   const struct evq_key *first, struct evq_ev *ev)
{
	if (!first)
		return false;
	if (!key_fires(q, first, q->slots[key_slot(q, first)].timer))
		return pop_timers(q, until, first, ev);
	pop_first(q, first, ev);
	return true;
}

/* The pop when the earliest lane key is first: its event comes out if its
 * timer fires with it; a lane whose timer was cancelled (evq_timer_cancel)
 * or re-armed since is dropped, and the pop goes on.  Out of line, as
 * pop_timers: evq_pop_until calls neither of them back, so it stays
 * inline in the event loop. */
__attribute__((noinline)) static bool pop_lane(struct evq *q, sim_ns until, struct evq_ev *ev)
{
	const struct evq_key *first;

	do {
		struct evq_lane l = q->lane[q->lane_min_i];
		uint64_t seq = l.k.seqslot >> q->slot_bits;

		lane_remove(q, q->lane_min_i);
		q->last_t = l.k.t;
		if (l.tm->seq == seq && !l.tm->qseq) {
			l.tm->seq = 0; /* fired: no longer armed */
			*ev = (struct evq_ev){.t = l.k.t, .seq = seq, .fn = l.fn, .obj = l.obj, .arg = l.arg,
					      .timer = l.tm};
			return true;
		}
		q->skipped++;
		first = first_key(q, until);
	} while (q->nlane && lane_first(q, first, until));
	return pop_rest(q, until, first, ev);
}

/* The plain event's path, and a timer's that fires as armed (a CPU's
 * queued chunk end, most of a wire run's pops): nothing in it has to
 * outlive a call. */
bool evq_pop_until(struct evq *q, sim_ns until, struct evq_ev *ev)
{
	const struct evq_key *first = first_key(q, until);

	if (q->nlane && lane_first(q, first, until))
		return pop_lane(q, until, ev);
	return pop_rest(q, until, first, ev);
}
