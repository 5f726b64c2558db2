/*
 * tcp_input.c: what arrives, after Linux's net/ipv4/tcp_input.c (3.6):
 *  - data: tcp_data_queue, the out-of-order queue, tcp_measure_rcv_mss,
 *    the reader's wakeup (sk_data_ready).
 *  - ACKs: tcp_ack (snd_una, the window, RTT samples, tcp_clean_rtx_queue),
 *    cong_avoid through the algorithm's ops, tcp_new_space and
 *    tcp_should_expand_sndbuf; sk_stream_write_space wakes a writer once
 *    free space is at least half of what is queued (sk_stream_min_wspace).
 */
#include "tcp_impl.h"

/* x86-64 sizes in 6.x: SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) and
 * SKB_DATA_ALIGN(sizeof(struct sk_buff)); MAX_TCP_HEADER is the build's
 * (mem.max_tcp_header) */
#define TCP_SHINFO_BYTES 320
#define TCP_SKBUFF_BYTES 256

int64_t tcp_sndbuf_want(const struct tcp_conn *tc, double cwnd, double reordering)
{
	/* max(mss_clamp, mss_cache): the peer's MSS, before the options */
	int64_t per_mss = (int64_t)max64(tc->advmss, tc->mss_bytes) + tc->sim->sc->max_tcp_header_bytes + TCP_SHINFO_BYTES;
	int64_t pow2 = 1;
	double nr = fmax(fmax(10, cwnd), reordering + 1);

	while (pow2 < per_mss)
		pow2 <<= 1; /* roundup_pow_of_two */
	return 2 * (int64_t)nr * (pow2 + TCP_SKBUFF_BYTES);
}

/* tcp_rcv_rtt_update: 6.16+ latches a smaller sample at once and smooths
 * only larger TS ones, and those only while nothing waits unread (commits
 * b879dcb1aeec, "tcp: always seek for minimal rtt in tcp_rcv_rtt_update()",
 * and a00f135cd986); 4.19 - 6.15 smooth TS samples (EWMA 1/8)
 * and keep the least window sample. */
static void rcv_rtt_update(struct tcp_conn *tc, int64_t sample_us, bool win_dep)
{
	int64_t old = tc->rcv_rtt_us8, m = sample_us << 3;

	if (host_kernel_at_least(tc->rcv_host, 6, 16)) {
		if (old == 0 || m < old)
			tc->rcv_rtt_us8 = m;
		else if (!win_dep && tc->rcv_nxt == tc->copied_seq)
			tc->rcv_rtt_us8 = old - (old >> 3) + sample_us;
		return;
	}
	if (old == 0)
		tc->rcv_rtt_us8 = m;
	else if (!win_dep)
		tc->rcv_rtt_us8 = old + sample_us - (old >> 3);
	else if (m < old)
		tc->rcv_rtt_us8 = m;
}

/* The receiver's RTT samples from one data frame (4.19+ here):
 *  - tcp_rcv_rtt_measure_ts: the TS option's echo of the receiver's own
 *    TSval on a frame of at least rcv_mss, once per echoed value
 *    (rcv_rtt_last_tsecr), in the TS clock's 1 ms units (TCP_TS_HZ,
 *    4.13+); 4.13 - 6.15 count a 0 ms difference as 1 ms,
 *    6.16+ drop it (commit d59fc95be9d0, "tcp: remove zero TCP TS samples
 *    for autotuning");
 *  - tcp_rcv_rtt_measure (tcp_event_data_recv): the time one advertised
 *    window took to arrive. */
void tcp_rcv_rtt_sample(struct sim *sim, struct tcp_conn *tc, const struct skb *skb)
{
	bool v616 = host_kernel_at_least(tc->rcv_host, 6, 16);

	int64_t tsecr_ms = skb->ts_at / NS_PER_MS;

	if (sim->sc->timestamps && skb->ts_at > 0 && tsecr_ms != tc->rcv_rtt_last_tsecr) {
		int64_t delta_ms = sim->now / NS_PER_MS - tsecr_ms;
		tc->rcv_rtt_last_tsecr = tsecr_ms;
		if (delta_ms == 0 && !v616)
			delta_ms = 1;
		if (skb->len >= (uint32_t)tc->rcv_mss && delta_ms > 0)
			rcv_rtt_update(tc, delta_ms * 1000, false);
	}
	if (tc->rcv_rtt_time == 0 || tc->rcv_nxt + skb->len >= tc->rcv_rtt_seq) {
		if (tc->rcv_rtt_time != 0) {
			int64_t us = (sim->now - tc->rcv_rtt_time) / NS_PER_US;
			rcv_rtt_update(tc, us > 0 ? us : 1, true);
		}
		tc->rcv_rtt_seq = tc->rcv_nxt + skb->len + tc->rcv_wnd;
		tc->rcv_rtt_time = sim->now;
	}
}

/* __tcp_grow_window: an skb whose truesize is too big for its payload still
 * grows the window by two rcv_mss while rcv_ssthresh is at most W / 2^k (W
 * half the window tcp_rmem[2] allows), for the first k at which T / 2^(k+1)
 * (as window) fits in the payload.  (Since truesize_adjust, a frag-only skb
 * such as lo's counts only its frags and passes the fast test.) */
static int64_t tcp_grow_window_slow(const struct tcp_conn *tc, const struct skb *skb)
{
	int64_t truesize = tcp_win_from_space(tc, skb->truesize) >> 1;
	int64_t window = tcp_win_from_space(tc, tc->sim->sc->rmem_max) >> 1;

	while (tc->rcv_ssthresh <= window) {
		if (truesize <= (int64_t)skb->len)
			return 2 * (int64_t)tc->rcv_mss;
		truesize >>= 1;
		window >>= 1;
	}
	return 0;
}

/* An in-order skb's sequence space taken: rcv_nxt, rcv_mss, window growth
 * (tcp_event_data_recv). */
static void take_in_order(struct tcp_conn *tc, const struct skb *skb)
{
	uint32_t seg = skb->gso_size ? skb->gso_size : skb->len;
	bool v419 = host_kernel_at_least(tc->rcv_host, 4, 19);

	if (seg > skb->len)
		seg = skb->len;
	if (v419)
		tcp_rcv_rtt_sample(tc->sim, tc, skb);
	tc->rcv_nxt += skb->len;
	if (skb->ce) /* tcp_ecn_check_ce: echoed as ECE on the next ACK */
		tc->ce_rcvd_bytes += skb->len;
	/* tcp_measure_rcv_mss; 6.6+ measures scaling_ratio (payload per
	 * truesize) whenever rcv_mss changes, and the clamp follows */
	int lss = tc->last_seg_size;

	tc->last_seg_size = 0; /* reset at every call */
	if ((int)seg >= tc->rcv_mss) {
		if ((int)seg != tc->rcv_mss && host_kernel_at_least(tc->rcv_host, 6, 6) && skb->truesize > 0) {
			int64_t r = ((int64_t)skb->len << TCP_RMEM_TO_WIN_SCALE) / skb->truesize;
			r = r < 1 ? 1 : r > 255 ? 255 : r;
			if (r != tc->scaling_ratio) {
				tc->scaling_ratio = (int)r;
				tc->window_clamp = tcp_win_from_space(tc, tc->rcvbuf);
				if (tc->window_clamp < tc->space_bytes)
					tc->space_bytes = tc->window_clamp;
			}
		}
		tc->rcv_mss = (int)min64(seg, tc->advmss);
		/* 6.6+ (4720852ed9af, "tcp: fix delayed ACKs for MSS boundary
		 * condition"; in the stable trees from 5.15.134 and 6.1.56): a
		 * segment of a full rcv_mss or more that carries PSH, a write's
		 * end, marks the ACK pushed too, so the read that empties the
		 * queue sends it (tcp_cleanup_rbuf) -- where the write ends on
		 * an MSS boundary (MTU 16436 with 16 KB writes) or its frame is
		 * a GSO skb (len is gso_size: every TSO frame on lo) */
		if (skb->psh && !tc->ack_pushed && host_kernel_at_least(tc->rcv_host, 6, 6))
			tc->ack_pushed = 1;
	} else if (host_kernel_at_least(tc->rcv_host, 4, 0)) {
		/* a segment below rcv_mss (tcp_measure_rcv_mss's other branch):
		 * two of one size in a row make it the new rcv_mss; any other
		 * marks the ACK it is due as pushed, and the read that empties
		 * the queue sends it (tcp_cleanup_rbuf) -- the ACK of a write's
		 * short tail.  The size test counts the TCP header; the tail of
		 * a write carries PSH (tcp_push), so it passes from
		 * TCP_MIN_RCVMSS on (without PSH, from TCP_MIN_MSS: not
		 * modelled).  The kernel has done this in every era; the model
		 * from 4.0 on (the 3.x profiles were fitted without it). */
		int hdr = TCP_HDR_BYTES + (tc->sim->sc->timestamps ? TCP_TS_OPT_BYTES : 0);

		if ((int)seg + hdr >= TCP_MIN_RCVMSS + TCP_HDR_BYTES)
			tc->last_seg_size = (int)seg;
		if (tc->last_seg_size && (int)seg == lss)
			tc->rcv_mss = (int)seg;
		else
			tc->ack_pushed = tc->ack_pushed ? 2 : 1;
	}
	/* tcp.rcv_ssthresh_clamp_at: from then on the receiver is in the state
	 * tcp_grow_window leaves when an skb of 128 bytes or more reaches an
	 * empty receive queue -- rcv_ssthresh at the clamp, less that skb's
	 * truesize, where a frame's receipt can only raise it to the free
	 * space with the frame queued, a frame's truesize under the clamp.
	 * A machine's connection reaches it by chance (a write's tail that
	 * Minshall's Nagle held, merged with the next); set once. */
	if (tc->sim->sc->rcv_ssthresh_clamp_ns > 0 && !tc->rcv_ssthresh_clamped &&
	    tc->sim->now >= tc->sim->sc->rcv_ssthresh_clamp_ns) {
		tc->rcv_ssthresh_clamped = true;
		if (tc->rcv_ssthresh < tc->window_clamp)
			tc->rcv_ssthresh = tc->window_clamp;
	}
	/* tcp_grow_window.  4.19+ here: by the room left under the clamp and
	 * the free space, at least twice the skb's payload (the kernel's form
	 * for a long time before; the 3.x profiles were fitted with 2 advmss),
	 * for every skb the fast or the slow test admits, and each growth asks
	 * for an ACK at once.  So a small frame (a write's tail that Minshall's
	 * Nagle held) raises rcv_ssthresh to within its own truesize of the
	 * clamp, where the live trace has it (amd-epyc-2cpu.trace.txt: 958,978
	 * against a clamp of 959,839), and every later frame's receipt finds
	 * the window would shrink: the reader's read sends the ACKs */
	if (v419) {
		int64_t room = min64(tc->window_clamp, tcp_space(tc)) - tc->rcv_ssthresh;
		if (room > 0 && skb->len >= 128) {
			int64_t incr = tcp_win_from_space(tc, skb->truesize) <= (int64_t)skb->len ? 2 * tc->advmss
												: tcp_grow_window_slow(tc, skb);
			if (incr > 0) {
				tc->rcv_ssthresh += min64(room, max64(incr, 2 * (int64_t)skb->len));
				tc->quick |= 1; /* icsk_ack.quick |= 1: the grown window goes at once */
			}
		}
	} else if (tc->rcv_ssthresh < tc->window_clamp &&
		   tc->rcv_ssthresh < tcp_space(tc) &&
		   tcp_win_from_space(tc, skb->truesize) <= (int64_t)skb->len) {
		tc->rcv_ssthresh = min64(tc->rcv_ssthresh + 2 * tc->advmss, tc->window_clamp);
	}
}

/* tcp_queue_rcv -> tcp_try_coalesce -> skb_try_coalesce (3.5+, commit
 * 1402d366019f; the model from 4.0, the 3.x profiles having been fitted
 * without it): an in-order skb joins the receive queue's tail when their
 * frags fit in MAX_SKB_FRAGS and the tail's data is its own -- not still
 * shared with the sender's unacked original (skb_cloned: on lo and veth
 * the tail is the sender's clone until its ACK frees the original).  The
 * tail's truesize takes the newcomer's data, and the whole of it stays
 * charged (sk_rmem_alloc) until the reader has copied all of it: a reader
 * behind its data frees the window a merged skb at a time, so the window
 * reopens in steps of up to 17 frags.  The newcomer's sk_buff is freed at
 * once in this softirq (kfree_skb_partial). */
static bool rcv_coalesce(struct sim *sim, struct tcp_conn *tc, const struct skb *skb)
{
	struct skb *tail = tc->rq.tail;

	if (!tail || !host_kernel_at_least(tc->rcv_host, 4, 0) || tail->seq + tail->len != skb->seq)
		return false;
	if (skb_cloned(tail))
		return false;
	if (tail->destructor || skb->destructor) /* still charged to its sender (veth's GRO path) */
		return false;
	if (!tcp_skb_try_coalesce(tc, tail, skb))
		return false;
	tc->rmem_alloc += (int64_t)skb->len;
	sim->cnt.rcv_coalesce++;
	return true;
}

/* Queue an in-order skb and learn rcv_mss from it (tcp_event_data_recv,
 * after the queueing); a merged one's sk_buff goes after that. */
static void queue_in_order(struct sim *sim, struct cpu *c, struct tcp_conn *tc, struct skb *skb)
{
	bool merged = rcv_coalesce(sim, tc, skb);

	if (!merged) {
		tc->rmem_alloc += skb->truesize;
		skb_list_push(&tc->rq, skb);
	}
	take_in_order(tc, skb);
	if (merged)
		skb_free(sim, c, skb);
}

void tcp_rcv_data(struct sim *sim, struct cpu *c, struct tcp_conn *tc, struct skb *skb, bool direct)
{
	struct timeline_step *ts;

	tcp_sock_touch(sim, c, tc, 1);
	skb_touch(sim, c, skb);
	if ((ts = tcp_timeline_step(sim, tc, true)) != NULL) {
		ts->segs++; /* tcp_probe: the socket's state as the skb reaches it */
		ts->bytes += skb->len;
		ts->rcv = true;
		ts->rcv_wnd = tc->rcv_wnd;
	}
	if (skb->seq + skb->len <= tc->rcv_nxt) {
		/* all of it came before (a retransmission and its overtaken
		 * original): drop it, D-SACK at once (tcp_send_dupack) */
		tc->dsack_pending = true;
		skb_free(sim, c, skb);
		tcp_send_ack(sim, c, tc, &sim->cnt.acks_quick);
		return;
	}
	if (skb->seq < tc->rcv_nxt) { /* partly old: keep the new part, D-SACK the rest */
		uint32_t cut = (uint32_t)(tc->rcv_nxt - skb->seq);
		tc->dsack_pending = true;
		skb->seq += cut;
		skb->len -= cut;
		direct = false;
	}
	if (skb->seq > tc->rcv_nxt) {
		/* ahead of a frame still in another CPU's backlog: hold it, ACK at
		 * once with a SACK block, and ACK quickly from now on
		 * (tcp_enter_quickack_mode) */
		struct skb **pp = &tc->ofo;
		int64_t q = (int64_t)tc->rcv_wnd / (2 * tc->rcv_mss);
		while (*pp && (*pp)->seq < skb->seq)
			pp = &(*pp)->next;
		skb->next = *pp;
		*pp = skb;
		tc->rmem_alloc += skb->truesize;
		sim->cnt.ofo++;
		q = min64(max64(q, 2), TCP_MAX_QUICKACKS);
		if (tc->quick < q)
			tc->quick = (int)q;
		tcp_send_ack(sim, c, tc, &sim->cnt.acks_quick);
		return;
	}
	/* tcp_store_ts_recent: the TSval its ACKs echo is the one of the first
	 * frame since the last ACK (rcv_nxt == rcv_wup; RFC 7323's
	 * Last.ACK.sent rule) */
	if (skb->seq <= tc->rcv_wup && skb->sent_at > tc->rcv_ts_recent_at)
		tc->rcv_ts_recent_at = skb->sent_at;
	if (direct) { /* tcp_rcv_established: copied to the reader's iovec, never queued */
		take_in_order(tc, skb);
		tc->copied_seq += skb->len;
		sim->cnt.app_bytes += skb->len;
		skb_free(sim, c, skb);
	} else {
		queue_in_order(sim, c, tc, skb);
	}
	while (tc->ofo && tc->ofo->seq <= tc->rcv_nxt) { /* tcp_ofo_queue */
		struct skb *o = tc->ofo;
		tc->ofo = o->next;
		tc->rmem_alloc -= o->truesize;
		if (o->seq + o->len <= tc->rcv_nxt) { /* covered meanwhile */
				tc->dsack_pending = true;
			skb_free(sim, c, o);
			continue;
		}
		if (o->seq < tc->rcv_nxt) {
			uint32_t cut = (uint32_t)(tc->rcv_nxt - o->seq);
			o->seq += cut;
			o->len -= cut;
		}
		queue_in_order(sim, c, tc, o);
	}

	if (tc->receiver_waiting) { /* sk_data_ready */
		tc->receiver_waiting = false;
		sim->cnt.rcv_wakeups++;
		tcp_timeline_reader_woken(sim, tc);
		sched_wakeup(sim, c, tc->receiver, true);
	}
	/* __tcp_ack_snd_check.  Since 6.6 (133c4c0d3717, "tcp: defer regular
	 * ACK while processing socket backlog"; net.ipv4.tcp_backlog_ack_defer
	 * = 1) an ACK due at once while the owner's __release_sock runs this
	 * waits for tcp_release_cb: one ACK for the drain.  An ACK for
	 * out-of-order data or a D-SACK still goes at once. */
	bool rx_now = tc->rcv_nxt - tc->rcv_wup > (uint64_t)tc->rcv_mss && tcp_select_window_now(tc) >= tc->rcv_wnd;
	if ((rx_now || tc->quick > 0) && !tc->ofo && !tc->dsack_pending && tc->in_backlog &&
	    host_kernel_at_least(tc->rcv_host, 6, 6)) {
		tc->ack_deferred = true;
	} else if (rx_now) {
		tcp_send_ack(sim, c, tc, &sim->cnt.acks_rx);
	} else if (tc->quick > 0 || tc->ofo || tc->dsack_pending) {
		tcp_send_ack(sim, c, tc, &sim->cnt.acks_quick);
	} else if (!tc->ack_pending) {
		sim_ns ato = sim->sc->ato_min_ns;
		if (ato < sim->sc->delack_min_ns)
			ato = sim->sc->delack_min_ns;
		if (ato > sim->sc->delack_max_ns)
			ato = sim->sc->delack_max_ns;
		tc->ack_pending = true;
		tc->delack_cpu = c;
		evq_timer_arm(&sim->evq, &tc->delack_tm, sim->now + ato, tcp_delack_fire, tc, 0);
	}
}

void tcp_wake_writer(struct sim *sim, struct cpu *c, struct tcp_conn *tc)
{
	if (!tc->sender_waiting)
		return;
	tc->sender_waiting = false;
	sim->cnt.snd_wakeups++;
	sched_wakeup(sim, c, tc->sender, false);
}

/* tcp_rate_skb_delivered + tcp_rate_gen: the delivery rate of the newest
 * skb this ACK covers (skb), over the longer of its send and ACK
 * intervals (tcp_rate.c, 4.9+). */
static void rate_sample(struct sim *sim, struct tcp_conn *tc, const struct skb *skb, uint32_t acked,
			struct tcp_rate_sample *rs)
{
	sim_ns snd_ns = skb->sent_at - skb->tx_first_at, ack_ns = sim->now - skb->tx_delivered_at;

	rs->acked_sacked = acked;
	rs->prior_delivered = skb->tx_delivered;
	rs->delivered = tc->delivered - skb->tx_delivered;
	rs->interval_ns = snd_ns > ack_ns ? snd_ns : ack_ns;
	rs->rtt_ns = sim->now - skb->sent_at;
	rs->is_app_limited = skb->tx_app_limited;
	tc->first_tx_at = skb->sent_at; /* the next flight's send interval starts here */
	if (tc->app_limited && tc->delivered > tc->app_limited)
		tc->app_limited = 0;
}

/* ECN at the sender (RFC 3168 tcp_enter_cwr, once per window): an ACK
 * with ECE reduces ssthresh by the algorithm's rule and cwnd to it; no
 * further reduction until snd_una passes what was in flight then. */
static void ecn_rcv_ece(struct tcp_conn *tc)
{
	if (tc->in_cwr || tc->ca_state != TCP_CA_OPEN)
		return;
	tc->snd_ssthresh = tc->cc->ssthresh(tc);
	tc->snd_cwnd = fmax(tc->snd_ssthresh, 2);
	tc->in_cwr = true;
	tc->cwr_high_seq = tc->snd_nxt;
}

void tcp_rcv_ack(struct sim *sim, struct cpu *c, struct tcp_conn *tc, struct skb *ack)
{
	uint64_t ack_seq = ack->ack_seq;
	struct timeline_step *ts;

	tcp_sock_touch(sim, c, tc, 0);
	skb_touch(sim, c, ack);
	if ((ts = tcp_timeline_step(sim, tc, false)) != NULL) {
		ts->acks++; /* tcp_probe: before the ACK is processed */
		ts->snd = true;
		ts->cwnd = tc->snd_cwnd;
		ts->ssthresh = tc->snd_ssthresh >= TIMELINE_INFINITE_SSTHRESH ? TIMELINE_INFINITE_SSTHRESH : tc->snd_ssthresh;
		ts->srtt_us = tc->srtt_us8 >> 3;
		ts->snd_wnd = (int64_t)(tc->snd_wnd_end - tc->snd_una);
	}

	if (ack->ts_at > tc->ts_recent_at) /* tcp_store_ts_recent */
		tc->ts_recent_at = ack->ts_at;
	if (ack->wnd_end > tc->snd_wnd_end)
		tc->snd_wnd_end = ack->wnd_end;
	if (ack->wnd_end - ack_seq > tc->max_window)
		tc->max_window = (uint32_t)(ack->wnd_end - ack_seq);
	if (ack_seq > tc->snd_una) {
		uint64_t acked = ack_seq - tc->snd_una;
		struct skb *skb;

		struct tcp_rate_sample rs = {.rtt_ns = -1};
		uint32_t acked_segs = tcp_segs_of(tc, acked), ce_segs = tcp_segs_of(tc, ack->ece_bytes);

		tc->snd_una = ack_seq;
		if (tc->in_cwr && tc->snd_una >= tc->cwr_high_seq)
			tc->in_cwr = false; /* CWR over: the window of the reduction is acked */
		tc->delivered += acked_segs;
		tc->delivered_at = sim->now;
		if ((skb = tc->wq.head) != NULL && skb->sent && skb->seq + skb->len <= tc->snd_una)
		{
			tcp_rtt_sample(sim, tc, sim->now - skb->sent_at); /* seq_rtt: the first skb it acks */
			if (tc->cc->pkts_acked)
				tc->cc->pkts_acked(sim, tc, sim->now - skb->sent_at);
		}
		while ((skb = tc->wq.head) != NULL && skb->sent && skb->seq + skb->len <= tc->snd_una) {
			if (tc->cc->cong_control && (!skb->next || !skb->next->sent || skb->next->seq + skb->next->len > tc->snd_una))
				rate_sample(sim, tc, skb, acked_segs, &rs); /* the newest skb acked */
			skb_list_pop(&tc->wq);
			/* the new head is what the next ACK frees: sent an RTT
			 * of write queue ago, its lines are long out of the cache;
			 * and the one after it, which the pop after the next
			 * frees (the test below reads the head's link anyway) */
			skb_prefetch(tc->wq.head);
			if (tc->wq.head)
				skb_prefetch(tc->wq.head->next);
			tc->wmem_queued -= skb->truesize;
			if (tc->tx_page_frags)
				skb_frag_release(sim, c, &tc->frag, skb->len);
			skb_free(sim, c, skb);
		}
		if (tc->cc->in_ack_event)
			tc->cc->in_ack_event(sim, tc, acked_segs, ce_segs);
		if (ce_segs && tc->ect)
			ecn_rcv_ece(tc);
		/* before 6.0 the model's limit is the last transmits', cleared
		 * here; 6.0+ keeps it for its window (cwnd_validate_60) */
		bool latch = host_kernel_at_least(tc->snd_host, 6, 0);
		if (tc->cc->cong_control) { /* tcp_cong_control: the algorithm owns cwnd and pacing */
			tc->cc->cong_control(sim, tc, &rs);
			if (!latch)
				tc->cwnd_limited = false;
		} else if (tcp_is_cwnd_limited(tc) && tc->ca_state == TCP_CA_OPEN && !tc->in_cwr) {
			tc->cc->cong_avoid(sim, tc, acked_segs);
			if (!latch)
				tc->cwnd_limited = false;
		}
		/* tcp_new_space: a writer that ran out of space gets a bigger
		 * sndbuf unless the congestion window is full
		 * (tcp_should_expand_sndbuf) */
		if (tc->nospace && !tc->sndbuf_locked &&
		    (double)tcp_segs_of(tc, tc->snd_nxt - tc->snd_una) < tc->snd_cwnd) {
			int64_t per_seg = tc->mss_bytes + sim->sc->skb_overhead_bytes;
			double demanded = fmax(tc->snd_cwnd, sim->sc->reordering + 1);
			int64_t want = host_kernel_at_least(tc->snd_host, 3, 13)
					       ? tcp_sndbuf_want(tc, tc->snd_cwnd, sim->sc->reordering)
					       : 2 * (int64_t)demanded * per_seg;
			if (want > tc->sndbuf)
				tc->sndbuf = min64(want, sim->sc->wmem_max);
		}
		if (tcp_stream_writeable(tc)) { /* sk_stream_write_space */
			tc->nospace = false;
			tcp_wake_writer(sim, c, tc);
		}
	}
	tcp_recovery_update(sim, tc, ack);
	if (ack_seq == tc->snd_una)
		tcp_sack_check(sim, c, tc, ack);
	skb_free(sim, c, ack);
	tcp_push(sim, c, tc, true); /* tcp_data_snd_check */
	tcp_check_conn(tc);
}

void tcp_rcv(struct sim *sim, struct cpu *c, struct skb *skb)
{
	if (skb->kind == SKB_DATA)
		tcp_rcv_data(sim, c, skb->conn, skb, false);
	else
		tcp_rcv_ack(sim, c, skb->conn, skb);
}

/* tcp_v4_rcv: the socket lookup and TCP's share of a received frame (the
 * IP layer's is netdev_rx's), then the owner's backlog or tcp_rcv. */
void tcp_v4_rcv(struct sim *sim, struct cpu *c, struct skb *skb)
{
	const double *cost = c->host->cfg->cost_cycles;
	struct tcp_conn *tc = skb->conn;
	uint64_t una = tc->snd_una;
	bool ack = skb->kind == SKB_ACK;

	/* the socket lookup runs here, in the softirq */
	if (tcp_defer_to_owner(sim, c, skb))
		return; /* the owner's process context does the TCP work */
	if (!ack)
		tcp_charge_rx_tcp(sim, c, skb);
	else
		cpu_charge(sim, c, COST_ACK_RX, cost[COST_ACK_RX]);
	tcp_rcv(sim, c, skb); /* frees an ACK skb */
	/* FreeBSD's tcp_input calls sowwakeup() whenever an ACK drops data from
	 * the send buffer (tcp_input.c, FreeBSD 6/7), which wakes a writer in
	 * sbwait() whatever space it waits for; the writer re-checks its low
	 * water mark itself (app.c).  Linux wakes it only once a third of the
	 * buffer is free (sk_stream_write_space, in tcp_input.c). */
	if (ack && tc->wake_writer_on_ack && tc->snd_una > una)
		tcp_wake_writer(sim, c, tc);
}
