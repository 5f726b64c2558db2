/*
 * test_skb: the skb pool (skb.c), whose only job is to hand out skbs that
 * look new and to take them back.
 *
 * The pool is a stack of pointers, last freed first out, and fetches the
 * skbs it will hand out soon (skb_prefetch); a clone is taken without the
 * zeroing a fresh skb gets, since it copies its original whole.  What must
 * hold whatever the pool does inside:
 *  - an skb_alloc'd skb is all zero but what skb_alloc sets, even when
 *    the slot it reuses was left dirty by its last user;
 *  - a clone is its original field for field but for next, orig and refs,
 *    and holds a reference on it;
 *  - the last skb freed is the next handed out, and after more skbs than
 *    one block (so the pool grows, and its stack with it) every skb handed
 *    out is distinct from every other one in use, and all of them come
 *    back and go out again.
 * Run under ASan (make check), a stack that overflows or reads past its
 * top fails here too.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"

#include "config.h"
#include "cpu.h"
#include "sim.h"
#include "skb.h"

struct pool {
	struct scenario sc;
	struct sim sim;
	struct cpu *c;
};

static void pool_begin(struct pool *p)
{
	struct tcpsim_err err = {0};

	config_defaults(&p->sc);
	set(&p->sc, "run.cost_jitter", "0");
	assert_int_equal(sim_init(&p->sim, &p->sc, &err), 0);
	p->c = &p->sim.hosts[0].cpus[0];
}

/* What a new skb of kind is: zero but for skb_alloc's own fields. */
static void expect_new(const struct pool *p, const struct skb *s, enum skb_kind kind)
{
	struct skb want;

	memset(&want, 0, sizeof(want));
	want.kind = (uint8_t)kind;
	want.refs = 1;
	want.alloc_cpu = p->c->id;
	want.alloc_host = p->c->host->id;
	want.truesize = p->sc.skb_overhead_bytes;
	assert_memory_equal(s, &want, sizeof(want));
}

static void test_reused_skb_is_new(void **state)
{
	struct pool p;
	struct skb *s, *t;
	(void)state;

	pool_begin(&p);
	s = skb_alloc(&p.sim, p.c, SKB_DATA);
	expect_new(&p, s, SKB_DATA);
	/* its user leaves every byte dirty, then frees it (no destructor, no
	 * clone: the fields skb_free reads are set as a real one's are) */
	memset(s, 0xa5, sizeof(*s));
	s->destructor = NULL;
	s->orig = NULL;
	s->refs = 1;
	skb_free(&p.sim, p.c, s);
	t = skb_alloc(&p.sim, p.c, SKB_ACK);
	assert_ptr_equal(t, s); /* last freed, first out */
	expect_new(&p, t, SKB_ACK);
	skb_free(&p.sim, p.c, t);
	sim_release(&p.sim);
}

static void test_clone_copies_its_original(void **state)
{
	struct pool p;
	struct skb *orig, *dirty, *clone, want;
	(void)state;

	pool_begin(&p);
	/* the slot the clone will take is left dirty by its last user */
	dirty = skb_alloc(&p.sim, p.c, SKB_ACK);
	orig = skb_alloc(&p.sim, p.c, SKB_DATA);
	memset(dirty, 0x5a, sizeof(*dirty));
	dirty->destructor = NULL;
	dirty->orig = NULL;
	dirty->refs = 1;
	skb_free(&p.sim, p.c, dirty);
	orig->seq = 123456789;
	orig->len = 1448;
	orig->segs = 1;
	orig->sent = true;
	orig->sent_at = 42;
	orig->tx_delivered = 7;
	orig->ts_at = 99;
	clone = skb_clone(&p.sim, orig);
	assert_ptr_equal(clone, dirty);
	assert_int_equal(orig->refs, 2);
	want = *orig;
	want.next = NULL;
	want.orig = orig;
	want.refs = 0;
	assert_memory_equal(clone, &want, sizeof(want));
	skb_free(&p.sim, p.c, clone);
	assert_int_equal(orig->refs, 1);
	skb_free(&p.sim, p.c, orig);
	sim_release(&p.sim);
}

#define MANY 700 /* more than two blocks of the pool (SKB_BLOCK, skb.c) */

static int ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(struct skb *const *)a, y = (uintptr_t)*(struct skb *const *)b;
	return x < y ? -1 : x > y;
}

static void test_pool_grows_and_gives_back(void **state)
{
	struct pool p;
	struct skb **s = calloc(MANY, sizeof(*s)), **again = calloc(MANY, sizeof(*again));
	(void)state;

	assert_non_null(s);
	assert_non_null(again);
	pool_begin(&p);
	for (int round = 0; round < 2; round++) {
		struct skb **got = round ? again : s;
		for (int i = 0; i < MANY; i++) {
			got[i] = skb_alloc(&p.sim, p.c, SKB_DATA);
			expect_new(&p, got[i], SKB_DATA);
			got[i]->seq = (uint64_t)i; /* used: the next one must not be it */
		}
		for (int i = 0; i < MANY; i++)
			assert_int_equal(got[i]->seq, (uint64_t)i);
		for (int i = 0; i < MANY; i++)
			skb_free(&p.sim, p.c, got[i]);
	}
	/* the second round reused the first round's skbs, last freed first */
	for (int i = 0; i < MANY; i++)
		assert_ptr_equal(again[i], s[MANY - 1 - i]);
	qsort(s, MANY, sizeof(*s), ptr_cmp);
	for (int i = 1; i < MANY; i++)
		assert_true(s[i - 1] != s[i]);
	free(s);
	free(again);
	sim_release(&p.sim);
}

/* A socket page frag (mem.frag_pages, order 3) is one trip through the
 * page allocator since 3.7 (sk_page_frag_refill): page_alloc and page_free
 * once per frag; before, per 4 KB page.  pgalloc and pgfree count its
 * pages in both eras.  Four frags' worth is used and released; returned:
 * the cycles charged for cost k in units of the host's cost k. */
static double frag_charges(const char *kernel, enum cost_id k, uint64_t *pages)
{
	struct pool p;
	struct page_frag pf = {0};
	struct tcpsim_err err = {0};
	double per, cyc;

	config_defaults(&p.sc);
	set(&p.sc, "run.cost_jitter", "0");
	set(&p.sc, "host.kernel", kernel);
	set(&p.sc, "mem.frag_pages", "8");
	assert_int_equal(sim_init(&p.sim, &p.sc, &err), 0);
	p.c = &p.sim.hosts[0].cpus[0];
	skb_frag_use(&p.sim, p.c, &pf, 4 * 32768);
	skb_frag_release(&p.sim, p.c, &pf, 4 * 32768);
	per = p.c->host->cfg->cost_cycles[k];
	assert_true(per > 0);
	cyc = p.c->acct.cost[k].ns / p.c->host->ns_per_cycle;
	*pages = k == COST_PAGE_ALLOC ? p.sim.cnt.pgalloc : p.sim.cnt.pgfree;
	sim_release(&p.sim);
	return cyc / per;
}

static void test_frag_is_one_allocation_since_3_7(void **state)
{
	(void)state;
	for (int k = COST_PAGE_ALLOC; k <= COST_PAGE_FREE; k++) {
		uint64_t old_pages, new_pages;
		double old_n = frag_charges("3.6", (enum cost_id)k, &old_pages),
		       new_n = frag_charges("6.18", (enum cost_id)k, &new_pages);
		assert_int_equal(old_pages, 32);
		assert_int_equal(new_pages, 32);
		assert_true(fabs(old_n - 32) < 1e-6);
		assert_true(fabs(new_n - 4) < 1e-6);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reused_skb_is_new),
		cmocka_unit_test(test_clone_copies_its_original),
		cmocka_unit_test(test_pool_grows_and_gives_back),
		cmocka_unit_test(test_frag_is_one_allocation_since_3_7),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
