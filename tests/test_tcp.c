/*
 * test_tcp: TCP told as stories over a fake link.
 *
 * The fake device captures every skb TCP transmits instead of delivering
 * it; the test plays the network, handing frames to the receiver and ACKs
 * back to the sender itself, and checks what each side does in reply.
 * The stories are the mechanism of Linux commit 0cf833aefaa8 at the level
 * of single frames: with MTU 16436 a 3-segment frame is ACKed at once; with
 * MTU 65536 a 1-segment frame is not, the second one is, and a lone frame
 * is ACKed by the delayed-ACK timer after tcp.ato_min.  And the commit's
 * second claim: a 3-segment frame that overtakes another is enough for a
 * (spurious) fast retransmit and a window reduction; a 64 KB one is not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "cpu.h"
#include "netdev.h"
#include "sim.h"
#include "skb.h"
#include "tcp.h"
#include "app.h"

#define CAP_MAX 64

struct capture {
	struct skb *skb[CAP_MAX];
	sim_ns when[CAP_MAX];
	int n;
};

static void fake_xmit(struct sim *sim, struct cpu *c, struct skb *skb)
{
	struct capture *cap = sim->dev_state;
	assert_true(cap->n < CAP_MAX);
	skb_orphan(sim, c, skb); /* as loopback_xmit: no TCP Small Queues claim */
	cap->when[cap->n] = sim->now;
	cap->skb[cap->n++] = skb;
}

static const struct netdev_ops fake_dev = {.name = "fake", .xmit = fake_xmit};

struct story {
	struct scenario sc;
	struct sim sim;
	struct capture cap;
	struct tcp_conn *tc;
	struct cpu *c;
};

static void story_begin_k(struct story *st, const char *mtu, const char *kernel)
{
	struct tcpsim_err err = {0};

	config_defaults(&st->sc);
	assert_int_equal(config_set(&st->sc, "host.kernel", kernel, "test", &err), 0);
	assert_int_equal(config_set(&st->sc, "link.mtu", mtu, "test", &err), 0);
	assert_int_equal(config_set(&st->sc, "run.cost_jitter", "0", "test", &err), 0);
	assert_int_equal(config_set(&st->sc, "tcp.rcvbuf", "512K", "test", &err), 0);
	assert_int_equal(sim_init(&st->sim, &st->sc, &err), 0);
	memset(&st->cap, 0, sizeof(st->cap));
	st->sim.dev = &fake_dev;
	st->sim.dev_state = &st->cap;
	st->tc = &st->sim.conns[0];
	st->c = &st->sim.hosts[0].cpus[0];
	/* after the handshake and slow start: the receiver (SO_RCVBUF 512K,
	 * doubled, half of it offerable) has grown its window to 256 KB and
	 * advertised it, and quickack mode is over */
	st->tc->rcv_ssthresh = 256 * 1024;
	st->tc->rcv_wnd = 256 * 1024;
	st->tc->snd_wnd_end = 256 * 1024;
	st->tc->max_window = 256 * 1024;
	st->tc->quick = 0;
}

static void story_begin(struct story *st, const char *mtu)
{
	story_begin_k(st, mtu, "3.6");
}

static void story_end(struct story *st)
{
	sim_release(&st->sim);
}

/* Run the event loop until `until` (the CPUs idle: only timers fire). */
static void run_until(struct story *st, sim_ns until)
{
	while (sim_step(&st->sim, until))
		;
	st->sim.now = until;
}

static struct skb *last(struct story *st)
{
	assert_true(st->cap.n > 0);
	return st->cap.skb[st->cap.n - 1];
}

static void test_16k_frame_of_three_segments_is_acked_at_once(void **state)
{
	struct story st;
	struct skb *frame, *ack;
	(void)state;

	story_begin(&st, "16436");
	assert_int_equal(st.tc->mss_bytes, 16384);
	/* the application writes one size goal's worth: TCP sends it as one frame */
	assert_int_equal(tcp_send_append(&st.sim, st.c, st.tc, 3 * 16384, false), 3 * 16384);
	assert_int_equal(st.cap.n, 1);
	frame = last(&st);
	assert_int_equal(frame->kind, SKB_DATA);
	assert_int_equal(frame->len, 49152);
	assert_int_equal(frame->segs, 3);
	assert_int_equal(frame->gso_size, 16384);
	/* the receiver learns rcv_mss = 16384 and, 49152 > 16384 unacked, ACKs now */
	tcp_rcv(&st.sim, st.c, frame);
	assert_int_equal(st.cap.n, 2);
	ack = last(&st);
	assert_int_equal(ack->kind, SKB_ACK);
	assert_true(ack->ack_seq == 49152);
	assert_int_equal(st.tc->rcv_mss, 16384);
	assert_false(st.tc->ack_pending);
	/* the ACK frees the write queue */
	tcp_rcv(&st.sim, st.c, ack);
	assert_true(st.tc->snd_una == 49152);
	assert_int_equal(st.tc->wq.len, 0);
	story_end(&st);
}

static void test_64k_one_ack_per_two_frames(void **state)
{
	struct story st;
	struct skb *f1, *f2, *ack;
	(void)state;

	story_begin(&st, "65536");
	assert_int_equal(st.tc->mss_bytes, 65484);
	assert_int_equal(tcp_send_append(&st.sim, st.c, st.tc, 65484, false), 65484);
	assert_int_equal(st.cap.n, 1);
	f1 = last(&st);
	assert_int_equal(f1->segs, 1);
	assert_int_equal(f1->gso_size, 0); /* one segment: not a GSO frame */
	tcp_rcv(&st.sim, st.c, f1);
	/* exactly one rcv_mss unacked: no ACK yet, the delayed ACK is armed */
	assert_int_equal(st.cap.n, 1);
	assert_true(st.tc->ack_pending);
	assert_true(evq_timer_armed(&st.tc->delack_tm));

	assert_int_equal(tcp_send_append(&st.sim, st.c, st.tc, 65484, false), 65484);
	assert_int_equal(st.cap.n, 2);
	f2 = last(&st);
	tcp_rcv(&st.sim, st.c, f2);
	/* two frames unacked: more than one rcv_mss, so the ACK goes now */
	assert_int_equal(st.cap.n, 3);
	ack = last(&st);
	assert_int_equal(ack->kind, SKB_ACK);
	assert_true(ack->ack_seq == 2 * 65484ULL);
	assert_false(st.tc->ack_pending);
	assert_false(evq_timer_armed(&st.tc->delack_tm));
	tcp_rcv(&st.sim, st.c, ack);
	story_end(&st);
}

static void test_lone_frame_acked_by_delack_timer(void **state)
{
	struct story st;
	struct skb *ack;
	(void)state;

	story_begin(&st, "65536");
	tcp_send_append(&st.sim, st.c, st.tc, 65484, false);
	tcp_rcv(&st.sim, st.c, last(&st));
	assert_int_equal(st.cap.n, 1);
	run_until(&st, st.sc.ato_min_ns - 1);
	assert_int_equal(st.cap.n, 1); /* not before the timer */
	run_until(&st, st.sc.ato_min_ns + 1000000);
	assert_int_equal(st.cap.n, 2);
	ack = last(&st);
	assert_int_equal(ack->kind, SKB_ACK);
	assert_true(st.cap.when[1] >= st.sc.ato_min_ns);
	assert_true(st.sim.cnt.acks_delack == 1);
	tcp_rcv(&st.sim, st.c, ack);
	story_end(&st);
}

static void test_nagle_holds_short_tail_while_in_flight(void **state)
{
	struct story st;
	(void)state;

	story_begin(&st, "16436");
	/* a 10 KB write with nothing in flight goes at once */
	tcp_send_append(&st.sim, st.c, st.tc, 10240, false);
	tcp_push(&st.sim, st.c, st.tc, true);
	assert_int_equal(st.cap.n, 1);
	assert_int_equal(last(&st)->len, 10240);
	/* the next one waits: data is in flight */
	tcp_send_append(&st.sim, st.c, st.tc, 10240, false);
	tcp_push(&st.sim, st.c, st.tc, true);
	assert_int_equal(st.cap.n, 1);
	/* nodelay sends it */
	st.sc.nodelay = true;
	tcp_push(&st.sim, st.c, st.tc, true);
	assert_int_equal(st.cap.n, 2);
	assert_int_equal(last(&st)->len, 10240);
	/* deliver both so nothing is left behind */
	tcp_rcv(&st.sim, st.c, st.cap.skb[0]);
	tcp_rcv(&st.sim, st.c, st.cap.skb[1]);
	story_end(&st);
}

static void test_frames_respect_the_receive_window(void **state)
{
	struct story st;
	(void)state;

	story_begin(&st, "16436");
	st.tc->snd_wnd_end = 20000; /* the peer offers 20000 bytes */
	tcp_send_append(&st.sim, st.c, st.tc, 49152, false);
	/* only whole MSS that fit: one segment of 16384 */
	assert_int_equal(st.cap.n, 1);
	assert_int_equal(last(&st)->len, 16384);
	assert_true(st.tc->snd_nxt == 16384);
	tcp_rcv(&st.sim, st.c, st.cap.skb[0]);
	story_end(&st);
}

static void test_unread_data_defers_the_ack_to_the_reader(void **state)
{
	struct story st;
	(void)state;

	story_begin(&st, "16436");
	/* the window has grown to the clamp: any unread data would shrink it */
	st.tc->rcv_ssthresh = st.tc->window_clamp;
	st.tc->rcv_wnd = (uint32_t)st.tc->window_clamp;
	tcp_send_append(&st.sim, st.c, st.tc, 3 * 16384, false);
	tcp_rcv(&st.sim, st.c, last(&st));
	assert_int_equal(st.cap.n, 1); /* __tcp_ack_snd_check: the window would shrink */
	assert_true(st.tc->ack_pending);
	/* recv() copies it; the copy alone sends nothing ... */
	assert_int_equal(tcp_recv_copy(&st.sim, st.c, st.tc, 1 << 20), 16384 * 3);
	assert_int_equal(st.cap.n, 1);
	/* ... the end of the call does: tcp_cleanup_rbuf sends the pending ACK */
	tcp_recv_done(&st.sim, st.c, st.tc, 16384 * 3);
	assert_int_equal(st.cap.n, 2);
	assert_int_equal(last(&st)->kind, SKB_ACK);
	assert_true(st.sim.cnt.acks_rbuf == 1);
	tcp_rcv(&st.sim, st.c, last(&st));
	story_end(&st);
}

/* A reader that owned the socket while frames came finds them in its
 * backlog at release_sock, which holds softirqs off until the backlog is
 * empty: the ACKs it sends meanwhile wait on the CPU's input queue. */
static void test_backlog_drain_holds_softirqs(void **state)
{
	struct story st;
	(void)state;

	story_begin(&st, "65536");
	for (int i = 0; i < 3; i++)
		tcp_send_append(&st.sim, st.c, st.tc, 65484, false);
	assert_int_equal(st.cap.n, 3);
	for (int i = 0; i < 3; i++)
		skb_list_push(&st.tc->rx_backlog, st.cap.skb[i]);
	for (int i = 0; i < 3; i++) {
		assert_true(tcp_reader_backlog_one(&st.sim, st.c, st.tc, 0) == 0);
		assert_true(st.c->bh_off);
	}
	assert_int_equal(st.cap.n, 4); /* the second frame's ACK, sent with softirqs off */
	assert_int_equal(last(&st)->kind, SKB_ACK);
	assert_true(tcp_reader_backlog_one(&st.sim, st.c, st.tc, 0) == -1);
	assert_false(st.c->bh_off); /* local_bh_enable */
	story_end(&st);
}

/* tcp_backlog_ack_defer (6.6+): frames that waited in the owner's backlog
 * are ACKed once, by tcp_release_cb after __release_sock, not each at
 * once as __tcp_ack_snd_check finds them due. */
static int backlog_acks(const char *kernel, int *during)
{
	struct story st;
	int n;

	story_begin_k(&st, "16436", kernel);
	for (int i = 0; i < 3; i++)
		tcp_send_append(&st.sim, st.c, st.tc, 3 * 16384, false);
	assert_int_equal(st.cap.n, 3);
	for (int i = 0; i < 3; i++)
		skb_list_push(&st.tc->rx_backlog, st.cap.skb[i]);
	for (int i = 0; i < 3; i++)
		assert_true(tcp_reader_backlog_one(&st.sim, st.c, st.tc, 0) == 0);
	*during = st.cap.n - 3;
	assert_true(tcp_reader_backlog_one(&st.sim, st.c, st.tc, 0) == -1);
	n = st.cap.n - 3;
	for (int i = 3; i < st.cap.n; i++)
		assert_int_equal(st.cap.skb[i]->kind, SKB_ACK);
	story_end(&st);
	return n;
}

static void test_backlog_ack_deferred_since_6_6(void **state)
{
	int during65, during66;
	(void)state;

	/* 6.5: each frame whose receipt finds an ACK due (__tcp_ack_snd_check)
	 * is ACKed from inside the drain: two of the three here */
	assert_int_equal(backlog_acks("6.5", &during65), 2);
	assert_int_equal(during65, 2);
	assert_int_equal(backlog_acks("6.6", &during66), 1);
	assert_int_equal(during66, 0);
}

/* While softirqs are off nothing queued on the CPU's backlog is handled;
 * then one NET_RX run takes both packets: the backlog raised NET_RX once
 * (enqueue_to_backlog schedules it only when not already scheduled). */
static void test_netrx_waits_for_bh_and_raises_once(void **state)
{
	struct story st;
	(void)state;

	story_begin(&st, "65536");
	st.c->bh_off = true;
	for (int i = 0; i < 2; i++) {
		struct skb *ack = skb_alloc(&st.sim, st.c, SKB_ACK);
		ack->conn = st.tc;
		ack->ack_seq = st.tc->snd_una;
		ack->wnd_end = st.tc->snd_wnd_end;
		assert_true(netdev_backlog_enqueue(&st.sim, st.c, ack));
	}
	cpu_kick(&st.sim, st.c);
	run_until(&st, st.sim.now + NS_PER_MS);
	assert_int_equal(st.c->backlog.len, 2);
	assert_true(st.sim.cnt.netrx_softirqs == 0);
	st.c->bh_off = false;
	cpu_kick(&st.sim, st.c);
	run_until(&st, st.sim.now + NS_PER_MS);
	assert_int_equal(st.c->backlog.len, 0);
	assert_true(st.sim.cnt.netrx_softirqs == 1);
	story_end(&st);
}

/* Two frames sent; the second overtakes the first (another CPU's backlog)
 * and the receiver's SACK reaches the sender before the first arrives.
 * Returns the sender's cwnd at the end; *rec and *undo count recoveries
 * and undos.  `gap_ns`: time between sending and the SACK (the jiffy of the
 * retransmission against that of the original decides tcp_packet_delayed). */
static double overtaken_story(const char *mtu, const char *reordering, sim_ns gap_ns, uint64_t *rec, uint64_t *undo)
{
	struct story st;
	struct skb *f1, *f2, *sack, *ack, *re = NULL;
	struct tcpsim_err err = {0};
	double cwnd;
	int n;

	story_begin(&st, mtu);
	assert_int_equal(config_set(&st.sc, "tcp.reordering", reordering, "test", &err), 0);
	n = st.tc->size_goal_bytes;
	tcp_send_append(&st.sim, st.c, st.tc, (uint32_t)n, true);
	tcp_send_append(&st.sim, st.c, st.tc, (uint32_t)n, true);
	assert_int_equal(st.cap.n, 2);
	f1 = st.cap.skb[0];
	f2 = st.cap.skb[1];
	cwnd = st.tc->snd_cwnd;
	st.sim.now += gap_ns;
	/* f2 first: out of order, an immediate duplicate ACK with a SACK block */
	tcp_rcv(&st.sim, st.c, f2);
	assert_int_equal(st.cap.n, 3);
	sack = last(&st);
	assert_int_equal(sack->kind, SKB_ACK);
	assert_true(sack->ack_seq == 0);
	assert_true(sack->sack_hi == (uint64_t)2 * n);
	tcp_rcv(&st.sim, st.c, sack);
	if (st.sim.cnt.recoveries) {
		/* fast retransmit of the hole's first segments, window reduced */
		assert_int_equal(st.cap.n, 4);
		re = last(&st);
		assert_true(re->kind == SKB_DATA && re->retrans && re->seq == 0);
		assert_true(st.tc->snd_cwnd < cwnd);
	} else {
		assert_int_equal(st.cap.n, 3);
		assert_true(st.tc->snd_cwnd == cwnd);
	}
	/* the overtaken original fills the hole: everything is ACKed */
	tcp_rcv(&st.sim, st.c, f1);
	ack = last(&st);
	assert_int_equal(ack->kind, SKB_ACK);
	assert_true(ack->ack_seq == (uint64_t)2 * n);
	tcp_rcv(&st.sim, st.c, ack);
	if (re) {
		/* the retransmission arrives as a duplicate: D-SACKed, too late */
		int before = st.cap.n;
		tcp_rcv(&st.sim, st.c, re);
		assert_int_equal(st.cap.n, before + 1);
		ack = last(&st);
		assert_true(ack->dsack);
		tcp_rcv(&st.sim, st.c, ack);
	}
	*rec = st.sim.cnt.recoveries;
	*undo = st.sim.cnt.undos;
	cwnd = st.tc->snd_cwnd;
	story_end(&st);
	return cwnd;
}

static void test_overtaking_3_segment_frame_is_a_spurious_fast_retransmit(void **state)
{
	uint64_t rec, undo;
	double cwnd;
	(void)state;

	/* 16436: 6 segments SACKed/in flight above snd_una, 4 or more > 3 */
	cwnd = overtaken_story("16436", "3", 0, &rec, &undo);
	assert_true(rec == 1 && undo == 0);
	assert_true(cwnd == 10 * 717.0 / 1024.0); /* CUBIC's beta, kept: the D-SACK came after the recovery */
	/* 65536: the overtaking frame is one segment, fackets_out 2 */
	cwnd = overtaken_story("65536", "3", 0, &rec, &undo);
	assert_true(rec == 0 && cwnd == 10);
	/* tcp_reordering raised: the same 16436 story is no loss */
	cwnd = overtaken_story("16436", "127", 0, &rec, &undo);
	assert_true(rec == 0 && cwnd == 10);
	/* sent in one jiffy, retransmitted in the next: the timestamps show
	 * the original was only delayed, and the reduction is undone */
	cwnd = overtaken_story("16436", "3", 5 * 1000 * 1000, &rec, &undo);
	assert_true(rec == 1 && undo == 1 && cwnd == 10);
}

/* An application-limited sender in slow start: 3 frames out with cwnd 4,
 * so the window never stopped a frame.  Until 4.2 the ACK of two of them
 * leaves cwnd alone (the 3.x tcp_is_cwnd_limited); from 4.3 cwnd still
 * grows, by the 2 segments acked, while below twice the 3 in flight. */
static void cwnd_after_two_acked(const char *kernel, double want)
{
	struct story st;
	story_begin_k(&st, "65536", kernel);
	st.tc->snd_cwnd = 4;
	for (int i = 0; i < 3; i++)
		assert_int_equal(tcp_send_append(&st.sim, st.c, st.tc, 65484, false), 65484);
	assert_int_equal(st.cap.n, 3);
	tcp_rcv(&st.sim, st.c, st.cap.skb[0]);
	tcp_rcv(&st.sim, st.c, st.cap.skb[1]);
	assert_int_equal(st.cap.n, 4);
	assert_int_equal(last(&st)->kind, SKB_ACK);
	tcp_rcv(&st.sim, st.c, last(&st));
	if (st.tc->snd_cwnd != want)
		fail_msg("kernel %s: cwnd %g after the ACK, want %g", kernel, st.tc->snd_cwnd, want);
	tcp_rcv(&st.sim, st.c, st.cap.skb[2]);
	story_end(&st);
}

static void test_slow_start_of_an_app_limited_sender(void **state)
{
	(void)state;
	cwnd_after_two_acked("4.2", 4);
	cwnd_after_two_acked("4.3", 6);
}

/* The window a buffer offers (tcp_win_from_space): up to 6.5 the
 * tcp_adv_win_scale split (half at its default 1); since 6.6 the ratio of
 * payload to truesize measured on the first frame whose segment size sets
 * rcv_mss, and the clamp follows it. */
static void test_scaling_ratio_since_6_6(void **state)
{
	struct story st;
	int64_t clamp_65, truesize;
	(void)state;

	story_begin_k(&st, "1500", "6.5");
	tcp_send_append(&st.sim, st.c, st.tc, 3 * 1448, false);
	tcp_push(&st.sim, st.c, st.tc, true);
	tcp_rcv(&st.sim, st.c, last(&st));
	clamp_65 = st.tc->window_clamp;
	assert_true(clamp_65 == st.tc->rcvbuf / 2);
	story_end(&st);

	story_begin_k(&st, "1500", "6.6");
	tcp_send_append(&st.sim, st.c, st.tc, 3 * 1448, false);
	tcp_push(&st.sim, st.c, st.tc, true);
	truesize = last(&st)->truesize;
	tcp_rcv(&st.sim, st.c, last(&st));
	assert_int_equal(st.tc->scaling_ratio, (3 * 1448 * 256) / truesize);
	assert_true(st.tc->window_clamp == st.tc->rcvbuf * st.tc->scaling_ratio / 256);
	assert_true(st.tc->window_clamp > clamp_65); /* 4344 of ~5100 bytes: more than half */
	story_end(&st);
}

/* The receiver's RTT samples from the TS option (tcp_rcv_rtt_measure_ts):
 * an echo of the current millisecond counts as 1 ms up to 6.15 and not at
 * all since 6.16, each echoed value once; the window's arrival time
 * (tcp_rcv_rtt_measure) is what is left on a sub-millisecond path. */
/* tcp_select_initial_window and tcp_init_buffer_space: until 4.19 the
 * first window offered is 10 segments (TCP_DEFAULT_INIT_RCVWND); since
 * 4.20 (a337531b942b) it is the buffer's whole window, rounded down to the
 * MSS and, until 6.9, at most 65535 -- with tcp_rmem[1] = 128 KB, 65160
 * bytes at MSS 1448 -- while autotuning's first measure (rcvq_space.space)
 * stays at 10 advmss (4.19+). */
static void initial_window(const char *kernel, const char *mtu, const char *rmem, uint32_t *rcv_wnd, int64_t *space,
			   int64_t *rcvbuf)
{
	struct scenario sc;
	struct sim sim;
	struct tcpsim_err err = {0};

	config_defaults(&sc);
	assert_int_equal(config_set(&sc, "host.kernel", kernel, "test", &err), 0);
	assert_int_equal(config_set(&sc, "link.mtu", mtu, "test", &err), 0);
	assert_int_equal(config_set(&sc, "tcp.rmem_default", rmem, "test", &err), 0);
	assert_int_equal(config_set(&sc, "tcp.rmem_max", "32M", "test", &err), 0);
	assert_int_equal(sim_init(&sim, &sc, &err), 0);
	*rcv_wnd = sim.conns[0].rcv_wnd;
	*space = sim.conns[0].space_bytes;
	*rcvbuf = sim.conns[0].rcvbuf;
	assert_int_equal(sim.conns[0].rcv_ssthresh, *rcv_wnd);
	sim_release(&sim);
}

static void test_initial_window_since_4_20(void **state)
{
	uint32_t w419, w420, w618, big69, big610, j419, j420;
	int64_t s419, s420, s618, sb, b, b419, b420;
	(void)state;

	initial_window("4.19", "1500", "131072", &w419, &s419, &b);
	initial_window("4.20", "1500", "131072", &w420, &s420, &b);
	initial_window("6.18", "1500", "131072", &w618, &s618, &b);
	assert_int_equal(w419, 10 * 1448);
	assert_int_equal(s419, 10 * 1448);
	assert_int_equal(w420, 45 * 1448);
	assert_int_equal(w618, 45 * 1448);
	assert_int_equal(s420, 10 * 1460);
	assert_int_equal(s618, 10 * 1460);
	/* a larger tcp_rmem[1]: 65535 at most until 6.9, the whole window
	 * (rounded down to the MSS) from 6.10 */
	initial_window("6.9", "1500", "1048576", &big69, &sb, &b);
	initial_window("6.10", "1500", "1048576", &big610, &sb, &b);
	assert_int_equal(big69, 65535);
	assert_int_equal(big610, 524288 / 1448 * 1448);
	/* tcp_fixup_rcvbuf raised a buffer too small for two first windows
	 * (MTU 65536: 2 x 2 segments) until 4.19, and went with a337531b942b */
	initial_window("4.19", "65536", "131072", &j419, &sb, &b419);
	initial_window("4.20", "65536", "131072", &j420, &sb, &b420);
	if (!(b419 > 131072 && b420 == 131072))
		fail_msg("rcvbuf at MTU 65536: 4.19 %lld, 4.20 %lld bytes", (long long)b419, (long long)b420);
}

static void test_receiver_rtt_samples(void **state)
{
	struct story st;
	(void)state;

	for (int k = 0; k < 2; k++) {
		story_begin_k(&st, "1500", k == 0 ? "6.15" : "6.16");
		st.sim.now = 5 * NS_PER_MS + 100 * NS_PER_US;
		for (int i = 0; i < 4; i++) {
			struct skb *f;
			st.tc->ts_recent_at = 5 * NS_PER_MS + (sim_ns)i; /* the echo of an ACK of this ms */
			tcp_send_append(&st.sim, st.c, st.tc, 1448, false);
			tcp_push(&st.sim, st.c, st.tc, true);
			f = last(&st);
			assert_true(f->ts_at == st.tc->ts_recent_at);
			st.sim.now += 10 * NS_PER_US;
			tcp_rcv(&st.sim, st.c, f);
		}
		if (k == 0)
			assert_true(st.tc->rcv_rtt_us8 == 1000 * 8); /* one sample of 1 ms: the echo's value repeats */
		else
			assert_true(st.tc->rcv_rtt_us8 == 0); /* no TS sample, and no window has arrived yet */
		story_end(&st);
	}
	/* 6.16: an echo 1 ms old is a 1 ms sample; the same echo 3 ms later
	 * is not sampled again (rcv_rtt_last_tsecr) */
	story_begin_k(&st, "1500", "6.16");
	st.tc->ts_recent_at = 5 * NS_PER_MS;
	for (int i = 0; i < 2; i++) {
		st.sim.now = (i == 0 ? 6 : 8) * NS_PER_MS + 100 * NS_PER_US;
		tcp_send_append(&st.sim, st.c, st.tc, 1448, false);
		tcp_push(&st.sim, st.c, st.tc, true);
		tcp_rcv(&st.sim, st.c, last(&st));
		tcp_recv_copy(&st.sim, st.c, st.tc, 1 << 20); /* the queue empty: a larger sample would count */
		assert_true(st.tc->rcv_rtt_us8 == 1000 * 8);
	}
	story_end(&st);
}

/* iperf3's server (iperf_run_server): select() until the socket is
 * readable, then read().  select() holds no socket lock, so a frame that
 * comes meanwhile is the softirq's and is queued; read()'s entry is a step
 * of its own before the copy, and the ACK the copy allows leaves after it. */
/* The reader holds its socket through the copy of its call's last step
 * and releases it in the step after (4.14+ in the model): a frame that
 * arrives meanwhile waits in the backlog, and the release runs it.  The
 * 3.x profiles release at the start of that step. */
static int frame_after_last_copy(const char *kernel)
{
	struct story st;
	struct task *r;
	int in_backlog;

	story_begin_k(&st, "16436", kernel);
	assert_int_equal(config_set(&st.sc, "app.loop", "iperf3", "test", &(struct tcpsim_err){0}), 0);
	assert_int_equal(config_set(&st.sc, "app.recv_size", "48K", "test", &(struct tcpsim_err){0}), 0);
	r = st.tc->receiver;
	assert_true(app_receiver.step(&st.sim, st.c, r) == APP_RAN); /* select() */
	tcp_send_append(&st.sim, st.c, st.tc, 3 * 16384, false);
	tcp_rcv(&st.sim, st.c, last(&st));
	assert_true(app_receiver.step(&st.sim, st.c, r) == APP_RAN); /* read()'s entry */
	assert_true(app_receiver.step(&st.sim, st.c, r) == APP_RAN); /* the copy: all 48 KB */
	assert_true(st.tc->copied_seq == st.tc->rcv_nxt);
	/* a second frame, from the other CPU's softirq, during the copy's time */
	tcp_send_append(&st.sim, st.c, st.tc, 3 * 16384, false);
	tcp_v4_rcv(&st.sim, st.c, last(&st));
	in_backlog = (int)st.tc->rx_backlog.len;
	while (r->in_call)
		app_receiver.step(&st.sim, st.c, r); /* release_sock */
	assert_true(st.tc->rx_backlog.len == 0);
	assert_true(st.tc->rcv_nxt == st.tc->write_seq); /* the frame was taken either way */
	story_end(&st);
	return in_backlog;
}

static void test_owner_holds_the_socket_through_its_last_step(void **state)
{
	(void)state;
	assert_int_equal(frame_after_last_copy("6.5"), 1);
	assert_int_equal(frame_after_last_copy("3.6"), 0);
}

/* A short segment (a write's tail) received after a full one: the ACK it is
 * due waits (less than an rcv_mss unacked), and the read that empties the
 * queue sends it (ICSK_ACK_PUSHED in tcp_cleanup_rbuf), 4.0+ here; on 3.x
 * it waits for the delayed-ACK timer.  Returns the ACKs tcp_recv_done sent;
 * *mss is rcv_mss after a second short segment of the same size. */
static int pushed_story(const char *kernel, int *mss)
{
	struct story st;
	int acks;

	story_begin_k(&st, "1500", kernel);
	/* a first full segment: 6.6+ measures scaling_ratio from it and moves
	 * the clamp, and 4.19+ grows the window under it at once (an ACK) */
	tcp_send_append(&st.sim, st.c, st.tc, 1448, false);
	tcp_push(&st.sim, st.c, st.tc, true);
	tcp_rcv(&st.sim, st.c, last(&st));
	assert_int_equal(tcp_recv_copy(&st.sim, st.c, st.tc, 1 << 20), 1448);
	tcp_recv_done(&st.sim, st.c, st.tc, 1448);
	run_until(&st, st.sim.now + st.sc.delack_max_ns + NS_PER_MS);
	for (int i = 1; i < st.cap.n; i++)
		tcp_rcv(&st.sim, st.c, st.cap.skb[i]); /* its ACKs */
	st.cap.n = 0;
	st.tc->rcv_ssthresh = st.tc->window_clamp; /* unread data shrinks the window: no ACK on receipt */
	st.tc->rcv_wnd = (uint32_t)st.tc->window_clamp;
	tcp_send_append(&st.sim, st.c, st.tc, 1448, false);
	tcp_push(&st.sim, st.c, st.tc, true);
	tcp_rcv(&st.sim, st.c, last(&st));
	assert_int_equal(st.tc->rcv_mss, 1448);
	assert_int_equal(tcp_recv_copy(&st.sim, st.c, st.tc, 1 << 20), 1448);
	tcp_recv_done(&st.sim, st.c, st.tc, 1448); /* one rcv_mss unacked: no ACK */
	assert_int_equal(st.cap.n, 1);
	run_until(&st, st.sim.now + st.sc.delack_max_ns + NS_PER_MS); /* the delayed ACK */
	assert_int_equal(st.cap.n, 2);
	tcp_rcv(&st.sim, st.c, last(&st));

	tcp_send_append(&st.sim, st.c, st.tc, 1000, false);
	tcp_push(&st.sim, st.c, st.tc, true);
	assert_int_equal(st.cap.n, 3);
	tcp_rcv(&st.sim, st.c, last(&st));
	assert_int_equal(st.cap.n, 3); /* 1000 bytes unacked: the ACK is delayed */
	assert_true(st.tc->ack_pending);
	assert_int_equal(tcp_recv_copy(&st.sim, st.c, st.tc, 1 << 20), 1000);
	tcp_recv_done(&st.sim, st.c, st.tc, 1000);
	acks = st.cap.n - 3;
	if (acks)
		tcp_rcv(&st.sim, st.c, last(&st));

	/* two short segments of one size in a row: that size is the new rcv_mss */
	for (int i = 0; i < 2; i++) {
		tcp_send_append(&st.sim, st.c, st.tc, 1000, false);
		st.sc.nodelay = true;
		tcp_push(&st.sim, st.c, st.tc, true);
		tcp_rcv(&st.sim, st.c, st.cap.skb[st.cap.n - 1]);
	}
	*mss = st.tc->rcv_mss;
	story_end(&st);
	return acks;
}

/* tcp_grow_window's slow path (__tcp_grow_window): a frame whose truesize,
 * as window, exceeds its payload still grows rcv_ssthresh (by twice its
 * payload here) while rcv_ssthresh is small against tcp_rmem[2], and each
 * growth asks for an ACK at once (icsk_ack.quick |= 1).  The model applies
 * it from 4.19, with the rest of that era's tcp_grow_window; before, such a
 * frame grows nothing.  Returns rcv_ssthresh's growth; *acks the ACKs the
 * frame's receipt sent. */
static int64_t grow_story(const char *kernel, int *acks)
{
	struct story st;
	struct skb *frame;
	int64_t before, grown;

	story_begin_k(&st, "16436", kernel);
	st.tc->rcv_ssthresh = 128 * 1024; /* below the window last advertised: no ACK on receipt for that */
	before = st.tc->rcv_ssthresh;
	tcp_send_append(&st.sim, st.c, st.tc, 3 * 16384, false);
	frame = last(&st);
	frame->truesize = 4 * frame->len; /* a quarter of it payload */
	tcp_rcv(&st.sim, st.c, frame);
	grown = st.tc->rcv_ssthresh - before;
	*acks = st.cap.n - 1;
	story_end(&st);
	return grown;
}

static void test_costly_frame_grows_window_since_4_19(void **state)
{
	int acks;
	(void)state;
	assert_int_equal(grow_story("4.18", &acks), 0);
	assert_int_equal(acks, 0);
	assert_int_equal(grow_story("4.19", &acks), 2 * 3 * 16384);
	assert_int_equal(acks, 1);
	assert_int_equal(grow_story("6.1", &acks), 2 * 3 * 16384);
	assert_int_equal(acks, 1);
}

static void test_read_emptying_queue_acks_short_segment_since_4_0(void **state)
{
	int mss3, mss4;
	(void)state;
	assert_int_equal(pushed_story("3.18", &mss3), 0);
	assert_int_equal(pushed_story("4.0", &mss4), 1);
	assert_int_equal(pushed_story("6.18", &mss4), 1);
	assert_int_equal(mss3, 1448); /* the model's 3.x: rcv_mss only grows */
	assert_int_equal(mss4, 1000);
}

/* __tcp_select_window below half the buffer: 3.6 offers any free space of
 * an MSS or more; later kernels (3.18 has it) offer none below 1/16 of the
 * buffer's whole window, so a reader behind its data reopens the window
 * in steps of that size.  The buffer here is 1 MB (SO_RCVBUF 512K). */
static uint32_t window_with_free(const char *kernel, int free_parts)
{
	struct story st;
	uint32_t w;

	story_begin_k(&st, "1500", kernel);
	st.tc->rmem_alloc = st.tc->rcvbuf - st.tc->rcvbuf / free_parts;
	w = tcp_select_window_now(st.tc);
	story_end(&st);
	return w;
}

static void test_zero_window_below_a_sixteenth_since_4_0(void **state)
{
	(void)state;
	/* 1/32 of the buffer free: some 16 KB of window, over 11 MSS */
	assert_true(window_with_free("3.6", 32) >= 11 * 1448);
	assert_int_equal(window_with_free("4.0", 32), 0);
	assert_int_equal(window_with_free("6.18", 32), 0);
	/* 1/8 free: above the sixteenth, offered in every era */
	assert_true(window_with_free("3.6", 8) >= 40 * 1448);
	assert_true(window_with_free("4.0", 8) >= 40 * 1448);
	assert_true(window_with_free("6.18", 8) >= 40 * 1448);
}

/* tcp_space takes what waits in the socket's backlog (sk_backlog.len) from
 * the free buffer as it takes the receive queue (sk_rmem_alloc): frames
 * that reached a reader's backlog while it read are charged to the window
 * before __release_sock queues them.  The model from 4.14 (without
 * prequeue, the backlog is where a reading owner's frames wait).  The
 * buffer here is 1 MB; 1/4 of it free, half of that in the backlog. */
static uint32_t window_with_backlog(const char *kernel, int64_t backlog_bytes)
{
	struct story st;
	uint32_t w;

	story_begin_k(&st, "1500", kernel);
	st.tc->rmem_alloc = st.tc->rcvbuf - st.tc->rcvbuf / 4;
	st.tc->rx_backlog_bytes = backlog_bytes;
	w = tcp_select_window_now(st.tc);
	story_end(&st);
	return w;
}

static void test_backlog_takes_window_since_4_14(void **state)
{
	(void)state;
	int64_t rcvbuf = 1024 * 1024;
	uint32_t free_now = window_with_backlog("6.18", 0);
	/* a quarter free is below half the buffer: the window is that space */
	assert_true(free_now >= 40 * 1448);
	assert_true(window_with_backlog("6.18", rcvbuf / 8) < free_now * 6 / 10);
	assert_true(window_with_backlog("6.18", rcvbuf / 8) > free_now * 4 / 10);
	/* all of it in the backlog: no window */
	assert_int_equal(window_with_backlog("6.18", rcvbuf / 4), 0);
	/* 4.13 (prequeue): the backlog is not counted */
	assert_int_equal(window_with_backlog("4.13", rcvbuf / 8), window_with_backlog("4.13", 0));
}

static void test_iperf3_reader_selects_then_reads(void **state)
{
	struct story st;
	struct task *r;
	uint64_t copied;
	(void)state;

	story_begin_k(&st, "16436", "6.5");
	assert_int_equal(config_set(&st.sc, "app.loop", "iperf3", "test", &(struct tcpsim_err){0}), 0);
	r = st.tc->receiver;
	assert_true(app_receiver.step(&st.sim, st.c, r) == APP_RAN); /* select() */
	assert_false(r->in_call);
	st.tc->rcv_ssthresh = st.tc->window_clamp; /* unread data holds the ACK for the reader */
	st.tc->rcv_wnd = (uint32_t)st.tc->window_clamp;
	tcp_send_append(&st.sim, st.c, st.tc, 3 * 16384, false);
	tcp_rcv(&st.sim, st.c, last(&st));
	assert_true(st.tc->rq.head != NULL); /* queued by the softirq, no backlog */
	assert_true(st.tc->rx_backlog.len == 0);
	copied = st.tc->copied_seq;
	assert_true(app_receiver.step(&st.sim, st.c, r) == APP_RAN); /* read()'s entry */
	assert_false(r->in_call); /* 4.14+: the socket is taken after the entry */
	assert_true(st.tc->copied_seq == copied);
	assert_int_equal(st.cap.n, 1);
	do
		app_receiver.step(&st.sim, st.c, r); /* lock_sock, the copy, then tcp_cleanup_rbuf's ACK */
	while (r->in_call);
	assert_true(st.tc->copied_seq == copied + 3 * 16384);
	assert_int_equal(st.cap.n, 2);
	assert_int_equal(last(&st)->kind, SKB_ACK);
	tcp_rcv(&st.sim, st.c, last(&st));
	story_end(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_16k_frame_of_three_segments_is_acked_at_once),
		cmocka_unit_test(test_64k_one_ack_per_two_frames),
		cmocka_unit_test(test_lone_frame_acked_by_delack_timer),
		cmocka_unit_test(test_nagle_holds_short_tail_while_in_flight),
		cmocka_unit_test(test_frames_respect_the_receive_window),
		cmocka_unit_test(test_unread_data_defers_the_ack_to_the_reader),
		cmocka_unit_test(test_backlog_drain_holds_softirqs),
		cmocka_unit_test(test_netrx_waits_for_bh_and_raises_once),
		cmocka_unit_test(test_overtaking_3_segment_frame_is_a_spurious_fast_retransmit),
		cmocka_unit_test(test_slow_start_of_an_app_limited_sender),
		cmocka_unit_test(test_scaling_ratio_since_6_6),
		cmocka_unit_test(test_receiver_rtt_samples),
		cmocka_unit_test(test_initial_window_since_4_20),
		cmocka_unit_test(test_backlog_ack_deferred_since_6_6),
		cmocka_unit_test(test_owner_holds_the_socket_through_its_last_step),
		cmocka_unit_test(test_iperf3_reader_selects_then_reads),
		cmocka_unit_test(test_read_emptying_queue_acks_short_segment_since_4_0),
		cmocka_unit_test(test_costly_frame_grows_window_since_4_19),
		cmocka_unit_test(test_zero_window_below_a_sixteenth_since_4_0),
		cmocka_unit_test(test_backlog_takes_window_since_4_14),
	};
	return cmocka_run_group_tests_name("tcp stories", tests, NULL, NULL);
}
