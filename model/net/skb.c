/*
 * skb.c: skb pool and page accounting (see skb.h for the memory model).
 */
#include "skb.h"

#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "cpu.h"
#include "sched.h"
#include "util.h"

void skb_list_push(struct skb_list *l, struct skb *s)
{
	s->next = NULL;
	if (l->tail)
		l->tail->next = s;
	else
		l->head = s;
	l->tail = s;
	l->len++;
}

struct skb *skb_list_pop(struct skb_list *l)
{
	struct skb *s = l->head;
	if (!s)
		return NULL;
	l->head = s->next;
	if (!l->head)
		l->tail = NULL;
	l->len--;
	s->next = NULL;
	return s;
}

/* skbs come from blocks owned by the sim and freed all at once at the end,
 * so skbs still queued (or in flight in events) when a run stops are not
 * leaked.  The unused ones are a stack of pointers, last freed first out
 * (the one most likely still in the cache), and not a list threaded
 * through the skbs: an skb deep in the pool was freed long ago and its
 * lines are cold, and a list reaches the next one only by reading this
 * one.  From an array skb_take fetches the skb SKB_AHEAD takes ahead
 * (skb_prefetch), which a writer's burst of allocations -- some 870 when
 * a 4 MB buffer's writer wakes -- needs: one skb ahead is too close.
 * The first two blocks hold SKB_BLOCK skbs; a pool that outgrows them
 * (thousands of skbs queued: 256 loopback pairs queue some 40,000) takes
 * blocks of one 2 MB huge page each (THP, asked for by madvise where the
 * system leaves it to the program), so that its cold skbs do not each
 * miss the TLB as 4 KB pages spread over megabytes do. */
#define SKB_BLOCK 256
#define SKB_HUGE_BYTES ((size_t)2 << 20)
#define SKB_AHEAD 4
struct skb_block {
	struct skb_block *next;
	struct skb items[]; /* each on a cache line's start (skb.h) */
};

_Static_assert(sizeof(struct skb) == 3 * 64 && offsetof(struct skb, sent_at) == 64,
	       "struct skb: three cache lines, the first the one its cold touches read (skb.h)");

/* An unused skb, its contents whatever they were. */
static struct skb *skb_take(struct sim *sim)
{
	if (sim->skb_nfree == 0) {
		bool huge = sim->skb_blocks && sim->skb_blocks->next;
		size_t bytes = huge ? SKB_HUGE_BYTES : sizeof(struct skb_block) + SKB_BLOCK * sizeof(struct skb);
		uint32_t n = (uint32_t)((bytes - sizeof(struct skb_block)) / sizeof(struct skb));
		struct skb_block *b = xaligned_alloc(huge ? SKB_HUGE_BYTES : _Alignof(struct skb_block), bytes);

#ifdef MADV_HUGEPAGE
		if (huge)
			madvise(b, bytes, MADV_HUGEPAGE); /* a hint: without it, 4 KB pages */
#endif
		b->next = sim->skb_blocks;
		sim->skb_blocks = b;
		if (sim->skb_free_cap < n) {
			sim->skb_free_cap = n;
			sim->skb_free = xrealloc(sim->skb_free, n * sizeof(*sim->skb_free));
		}
		for (uint32_t i = n; i-- > 0;) /* items[0] first out */
			sim->skb_free[sim->skb_nfree++] = &b->items[i];
	}
	if (sim->skb_nfree > SKB_AHEAD)
		skb_prefetch(sim->skb_free[sim->skb_nfree - 1 - SKB_AHEAD]);
	return sim->skb_free[--sim->skb_nfree];
}

/* An unused skb, zeroed.  Copied from a zero skb rather than memset:
 * gcc -O2 makes a memset of this size a rep stos, whose start-up costs
 * more than the whole skb's worth of vector stores a copy compiles to. */
static const struct skb skb_zero;

static struct skb *skb_get(struct sim *sim)
{
	struct skb *s = skb_take(sim);
	*s = skb_zero;
	return s;
}

static void skb_put(struct sim *sim, struct skb *s)
{
	if (sim->skb_nfree == sim->skb_free_cap) {
		sim->skb_free_cap *= 2;
		sim->skb_free = xrealloc(sim->skb_free, (size_t)sim->skb_free_cap * sizeof(*sim->skb_free));
	}
	sim->skb_free[sim->skb_nfree++] = s;
}

/* An allocation of more than one page (a slab of mem.slab_pages, a page
 * frag of mem.frag_pages: order 3).  With host.kswapd the machine's free
 * memory sits below the order-3 low watermark, so the fast path fails and
 * __alloc_pages_slowpath wakes kswapd (wake_all_kswapd -> wakeup_kswapd,
 * which does nothing if kswapd is already awake) before it allocates. */
static void highorder_alloc(struct sim *sim, struct cpu *c, int pages)
{
	struct task *k = c->host->kswapd;
	if (pages > 1 && k && k->state == TASK_SLEEPING) {
		sim->cnt.kswapd_wakes++;
		sched_wakeup(sim, c, k, false);
	}
}

static void slab_alloc(struct sim *sim, struct cpu *c)
{
	const struct scenario *sc = sim->sc;
	if (c->slab_free == 0) {
		highorder_alloc(sim, c, sc->slab_pages);
		sim->cnt.pgalloc += (uint64_t)sc->slab_pages;
		sim->cnt.host[c->host->id].pgalloc += (uint64_t)sc->slab_pages;
		cpu_charge(sim, c, COST_PAGE_ALLOC, c->host->cfg->cost_cycles[COST_PAGE_ALLOC] * sc->slab_pages);
		c->slab_free += sc->slab_objs;
	}
	c->slab_free--;
}

static void slab_free(struct sim *sim, struct cpu *c)
{
	const struct scenario *sc = sim->sc;
	c->slab_free++;
	if (c->slab_free > sc->slab_cpu_objs && c->slab_free >= sc->slab_objs) {
		sim->cnt.pgfree += (uint64_t)sc->slab_pages;
		sim->cnt.host[c->host->id].pgfree += (uint64_t)sc->slab_pages;
		cpu_charge(sim, c, COST_PAGE_FREE, c->host->cfg->cost_cycles[COST_PAGE_FREE] * sc->slab_pages);
		c->slab_free -= sc->slab_objs;
	}
}

bool rx_gso_seg(const struct cpu *c, const struct skb *s)
{
	return s->gso_cut && c->host->cfg->cost_cycles[COST_RX_GSO_SEG] > 0;
}

struct skb *skb_alloc(struct sim *sim, struct cpu *c, enum skb_kind kind)
{
	struct skb *s = skb_get(sim);
	s->kind = (uint8_t)kind;
	s->refs = 1;
	s->alloc_cpu = c->id;
	s->alloc_host = c->host->id;
	s->truesize = sim->sc->skb_overhead_bytes;
	cpu_charge(sim, c, COST_SKB_ALLOC, c->host->cfg->cost_cycles[COST_SKB_ALLOC]);
	slab_alloc(sim, c);
	return s;
}

void skb_touch(struct sim *sim, struct cpu *c, struct skb *s)
{
	double cy = c->host->cfg->cost_cycles[COST_SKB_XCPU];
	int last;

	if (cy <= 0 || s->alloc_host != c->host->id)
		return;
	last = s->line_cpu ? s->line_cpu - 1 : s->alloc_cpu;
	if (last != c->id)
		cpu_charge(sim, c, COST_SKB_XCPU, cy);
	s->line_cpu = c->id + 1;
}

struct skb *skb_clone(struct sim *sim, struct skb *orig)
{
	struct skb *s = skb_take(sim); /* every field is orig's or set here */
	*s = *orig;
	s->next = NULL;
	s->orig = orig;
	s->refs = 0;
	orig->refs++;
	return s;
}

/* Drop a reference to the slab object behind `obj` (an original). */
static void obj_put(struct sim *sim, struct cpu *c, struct skb *obj)
{
	INVARIANT(obj->refs > 0, "skb freed twice");
	if (--obj->refs == 0) {
		cpu_charge(sim, c, COST_SKB_FREE, c->host->cfg->cost_cycles[COST_SKB_FREE]);
		slab_free(sim, c);
		skb_put(sim, obj);
	}
}

void skb_orphan(struct sim *sim, struct cpu *c, struct skb *s)
{
	void (*d)(struct sim *, struct cpu *, struct skb *) = s->destructor;

	s->destructor = NULL;
	if (d)
		d(sim, c, s);
}

void skb_free(struct sim *sim, struct cpu *c, struct skb *s)
{
	skb_orphan(sim, c, s);
	if (s->orig) {
		struct skb *o = s->orig;
		skb_put(sim, s);
		obj_put(sim, c, o);
	} else {
		obj_put(sim, c, s);
	}
}

void skb_free_received(struct sim *sim, struct cpu *c, struct skb *s)
{
	struct host *h = c->host;

	if (!host_kernel_at_least(h, 5, 17)) {
		skb_free(sim, c, s);
		return;
	}
	if (s->alloc_host == h->id && s->alloc_cpu != c->id) {
		sim->cnt.skb_deferred++;
		skb_list_push(&h->cpus[s->alloc_cpu].defer, s);
		return;
	}
	cpu_charge(sim, c, COST_SKB_FREE, h->cfg->cost_cycles[COST_SKB_FREE]);
	skb_free(sim, c, s);
}

void skb_defer_flush(struct sim *sim, struct cpu *c)
{
	struct skb *s;
	while ((s = skb_list_pop(&c->defer)) != NULL) {
		cpu_charge(sim, c, COST_SKB_FREE, c->host->cfg->cost_cycles[COST_SKB_FREE]);
		skb_free(sim, c, s);
	}
}

/* The allocator's cycles for one socket page frag (mem.frag_pages pages).
 * Since 3.7 (5640f7685831, "net: use a per task frag allocator")
 * sk_page_frag_refill takes the frag as one compound page of
 * SKB_FRAG_PAGE_ORDER (order 3), one trip through the allocator
 * (get_page_from_freelist; __free_frozen_pages when its last reference
 * goes) for what pgalloc and pgfree count as 8 pages: the frag costs
 * cost.page_alloc (page_free) once.  Before, tcp_sendmsg took order-0
 * pages one at a time: the cost per page.  On intel-xeon-2cpu-2600 the
 * page allocator is 3.8-5.6% of the writer's CPU at 64 KB writes
 * (validation/live/intel-xeon-2cpu-2600.profile.txt), ~64 cycles a 4 KB
 * page. */
static double frag_page_cost(const struct cpu *c, enum cost_id k, int pages)
{
	double per = c->host->cfg->cost_cycles[k];
	return host_kernel_at_least(c->host, 3, 7) ? per : per * pages;
}

void skb_frag_use(struct sim *sim, struct cpu *c, struct page_frag *pf, uint32_t bytes)
{
	const struct scenario *sc = sim->sc;
	uint32_t frag_bytes = (uint32_t)sc->frag_pages * PAGE_BYTES;
	while (bytes > 0) {
		uint32_t n;
		if (pf->left_bytes == 0) {
			highorder_alloc(sim, c, sc->frag_pages);
			sim->cnt.pgalloc += (uint64_t)sc->frag_pages;
			sim->cnt.host[c->host->id].pgalloc += (uint64_t)sc->frag_pages;
			cpu_charge(sim, c, COST_PAGE_ALLOC, frag_page_cost(c, COST_PAGE_ALLOC, sc->frag_pages));
			pf->left_bytes = frag_bytes;
		}
		n = bytes < pf->left_bytes ? bytes : pf->left_bytes;
		pf->left_bytes -= n;
		bytes -= n;
	}
}

void skb_frag_release(struct sim *sim, struct cpu *c, struct page_frag *pf, uint32_t bytes)
{
	const struct scenario *sc = sim->sc;
	uint64_t frag_bytes = (uint64_t)sc->frag_pages * PAGE_BYTES;
	pf->freed_bytes += bytes;
	while (pf->freed_bytes >= frag_bytes) {
		pf->freed_bytes -= frag_bytes;
		sim->cnt.pgfree += (uint64_t)sc->frag_pages;
		sim->cnt.host[c->host->id].pgfree += (uint64_t)sc->frag_pages;
		cpu_charge(sim, c, COST_PAGE_FREE, frag_page_cost(c, COST_PAGE_FREE, sc->frag_pages));
	}
}

void skb_pool_release(struct sim *sim)
{
	struct skb_block *b = sim->skb_blocks;
	while (b) {
		struct skb_block *n = b->next;
		free(b);
		b = n;
	}
	sim->skb_blocks = NULL;
	free(sim->skb_free);
	sim->skb_free = NULL;
	sim->skb_nfree = sim->skb_free_cap = 0;
}
