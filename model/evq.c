/*
 * Binary heap over an array; children of i are 2i+1 and 2i+2.  The sift
 * loops move a hole instead of swapping, as git's prio-queue does not but
 * most fast heaps do: one copy per level instead of three.
 */
#include "evq.h"

#include <stdlib.h>

#include "util.h"

static inline bool ev_before(const struct evq_ev *a, const struct evq_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void evq_init(struct evq *q)
{
	q->cap = 1024;
	q->n = 0;
	q->heap = xmalloc(q->cap * sizeof(*q->heap));
	q->next_seq = 1;
	q->pushed = q->skipped = 0;
}

void evq_release(struct evq *q)
{
	free(q->heap);
	q->heap = NULL;
	q->n = q->cap = 0;
}

static void heap_insert(struct evq *q, const struct evq_ev *ev)
{
	uint32_t i;

	if (q->n == q->cap) {
		q->cap *= 2;
		q->heap = xrealloc(q->heap, q->cap * sizeof(*q->heap));
	}
	i = q->n++;
	while (i > 0) {
		uint32_t parent = (i - 1) / 2;
		if (!ev_before(ev, &q->heap[parent]))
			break;
		q->heap[i] = q->heap[parent];
		i = parent;
	}
	q->heap[i] = *ev;
}

uint64_t evq_push(struct evq *q, sim_ns t, evq_fn fn, void *obj, uint64_t arg)
{
	struct evq_ev ev = {.t = t, .seq = q->next_seq++, .fn = fn, .obj = obj, .arg = arg, .timer = NULL};
	heap_insert(q, &ev);
	q->pushed++;
	return ev.seq;
}

void evq_timer_arm(struct evq *q, struct evq_timer *tm, sim_ns t, evq_fn fn, void *obj, uint64_t arg)
{
	struct evq_ev ev = {.t = t, .seq = q->next_seq++, .fn = fn, .obj = obj, .arg = arg, .timer = tm};
	tm->seq = ev.seq;
	heap_insert(q, &ev);
	q->pushed++;
}

static void heap_remove_top(struct evq *q)
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
		if (c + 1 < n && ev_before(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!ev_before(&q->heap[c], &last))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	q->heap[i] = last;
}

bool evq_pop(struct evq *q, struct evq_ev *ev)
{
	while (q->n) {
		*ev = q->heap[0];
		heap_remove_top(q);
		if (ev->timer) {
			if (ev->timer->seq != ev->seq) {
				q->skipped++;
				continue;
			}
			ev->timer->seq = 0; /* fired: no longer armed */
		}
		return true;
	}
	return false;
}
