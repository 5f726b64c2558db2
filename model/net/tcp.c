/*
 * tcp.c: one bulk TCP connection: set-up, and the socket owner's side --
 * what recv() and send() do in process context with the socket held
 * (tcp_recvmsg, tcp_cleanup_rbuf, tcp_rcv_space_adjust, release_sock's
 * backlog) -- after Linux's net/ipv4/tcp.c.  tcp.h says what the whole
 * connection imitates; the other concerns are files of their own:
 *   tcp_output.c    the write queue, frames, Nagle/TSO deferral, pacing
 *   tcp_ack.c       the window offered, when ACKs go, the delayed-ACK timer
 *   tcp_input.c     data and ACK arrival, the writer's wakeup
 *   tcp_recovery.c  SACK/FACK recovery and D-SACK undo
 *   tcp_cong.c      congestion-control ops; tcp_reno.c, tcp_cubic.c,
 *                   tcp_bbr.c, tcp_dctcp.c
 *   tcp_freebsd.c   FreeBSD's tcp_output for the FreeBSD sender
 *
 * Sources of the rules, Linux 3.6 unless noted:
 *  - MSS: mtu - 20 (IPv4) - 20 (TCP) - 12 (timestamps option), tcp_mtu_to_mss
 *    and tcp_established_options.
 *  - initial receive window and rcv_mss: tcp_select_initial_window
 *    (tcp_output.c), tcp_initialize_rcv_mss (tcp_input.c).
 *  - buffer autotuning: tcp_rcv_space_adjust (and its 4.19, 6.16 and 6.18
 *    forms: rcvbuf_grow, rcv_space_adjust).
 * Nothing is ever lost: loopback and the clean LAN of the reports drop
 * nothing; what is retransmitted is data overtaken on another backlog.
 */
#include "tcp_impl.h"

static void rcv_space_adjust(struct sim *sim, struct tcp_conn *tc);

/* tcp_win_from_space: the part of a buffer the window may offer.  6.6+
 * (commit dfa2f0483360, "tcp: get rid of sysctl_tcp_adv_win_scale") scales
 * by the payload-to-truesize ratio measured on received skbs; before, by
 * tcp_adv_win_scale. */
int64_t tcp_win_from_space(const struct tcp_conn *tc, int64_t space)
{
	int s = tc->sim->sc->adv_win_scale;
	if (space < 0)
		space = 0;
	if (host_kernel_at_least(tc->rcv_host, 6, 6))
		return space * tc->scaling_ratio >> TCP_RMEM_TO_WIN_SCALE;
	return s <= 0 ? space >> -s : space - (space >> s);
}

/* tcp_space: the window the free buffer allows.  Without prequeue (4.14+
 * here) what waits in the socket's backlog counts as taken, until
 * __release_sock has drained all of it (sk_backlog.len). */
int64_t tcp_space(const struct tcp_conn *tc)
{
	int64_t taken = tc->rmem_alloc;
	if (host_kernel_at_least(tc->rcv_host, 4, 14))
		taken += tc->rx_backlog_bytes;
	return tcp_win_from_space(tc, tc->rcvbuf - taken);
}

/* tcp_space_from_win: its inverse (6.6+; before, the adv_win_scale split) */
int64_t tcp_space_from_win(const struct tcp_conn *tc, int64_t win)
{
	int s = tc->sim->sc->adv_win_scale;
	if (win < 0)
		win = 0;
	if (host_kernel_at_least(tc->rcv_host, 6, 6))
		return (win << TCP_RMEM_TO_WIN_SCALE) / tc->scaling_ratio;
	return s <= 0 ? win << -s : win + win / ((1 << s) - 1);
}

/* Sequence-space and memory invariants of both ends (tcp.h). */
void tcp_check_conn(const struct tcp_conn *tc)
{
	INVARIANT(tc->snd_una <= tc->snd_nxt && tc->snd_nxt <= tc->write_seq,
		  "conn %d: snd_una %llu snd_nxt %llu write_seq %llu out of order", tc->id,
		  (unsigned long long)tc->snd_una, (unsigned long long)tc->snd_nxt, (unsigned long long)tc->write_seq);
	INVARIANT(tc->rcv_wup <= tc->rcv_nxt && tc->copied_seq <= tc->rcv_nxt && tc->rcv_nxt <= tc->snd_nxt,
		  "conn %d: receive sequence out of order", tc->id);
	INVARIANT(tc->wmem_queued >= 0 && tc->rmem_alloc >= 0, "conn %d: negative socket memory", tc->id);
	/* the states of tcp.h */
	INVARIANT(tc->ca_state == TCP_CA_OPEN ||
		  (tc->ca_state == TCP_CA_RECOVERY && tc->snd_una < tc->high_seq && tc->high_seq <= tc->snd_nxt),
		  "conn %d: RECOVERY with snd_una %llu high_seq %llu snd_nxt %llu", tc->id,
		  (unsigned long long)tc->snd_una, (unsigned long long)tc->high_seq, (unsigned long long)tc->snd_nxt);
	INVARIANT(!tc->in_cwr || tc->snd_una <= tc->cwr_high_seq, "conn %d: CWR past its window", tc->id);
	INVARIANT(!evq_timer_armed(&tc->delack_tm) || tc->ack_pending,
		  "conn %d: delayed-ACK timer armed with no ACK pending", tc->id);
	INVARIANT(!tc->ack_pending || tc->delack_cpu, "conn %d: ACK pending without a timer CPU", tc->id);
}

/* ------------------------------------------------------------------ */
/* set-up                                                              */

/* tcp_default_init_rwnd (until 4.19): the segments the first window and
 * tcp_fixup_rcvbuf make room for -- 10 of 1460 bytes, fewer (at least 2)
 * for a larger MSS */
static int64_t tcp_default_init_rwnd(const struct tcp_conn *tc)
{
	if (tc->mss_bytes > 1460)
		return max64(1460 * TCP_INIT_RCVWND / tc->mss_bytes, 2);
	return TCP_INIT_RCVWND;
}

void tcp_conn_init(struct sim *sim, struct tcp_conn *tc, int id, struct host *snd, struct host *rcv)
{
	const struct scenario *sc = sim->sc;
	int ts = sc->timestamps ? TCP_TS_OPT_BYTES : 0;
	int64_t space;

	tc->id = id;
	tc->sim = sim;
	tc->snd_host = snd;
	tc->rcv_host = rcv;
	tc->cc = tcp_cc_for(sc->cc);
	tc->scaling_ratio = TCP_DEFAULT_SCALING_RATIO;

	tc->advmss = sc->mtu_bytes - IP_HDR_BYTES - TCP_HDR_BYTES;
	tc->mss_bytes = tc->advmss - ts;
	INVARIANT(tc->mss_bytes > 0, "mtu %d leaves no payload", sc->mtu_bytes);
	/* since Linux 4.13 TCP always builds GSO frames (commit 0a6b2a1dc2a2,
	 * "tcp: switch to GSO being always on") and a device without GSO
	 * segments them in software; before, GSO off meant MSS-sized skbs */
	if (sc->gso || sc->tso || host_kernel_at_least(snd, 4, 13)) {
		int hdr = seg_hdr_bytes(sc->timestamps);
		int segs = (sc->gso_max_bytes - 1 - hdr) / tc->mss_bytes;
		tc->size_goal_bytes = (segs < 1 ? 1 : segs) * tc->mss_bytes;
	} else {
		tc->size_goal_bytes = tc->mss_bytes;
	}

	/* setsockopt(SO_SNDBUF/SO_RCVBUF) doubles the value (socket(7)) */
	tc->sndbuf_locked = sc->sndbuf_bytes > 0;
	tc->sndbuf = tc->sndbuf_locked ? 2 * sc->sndbuf_bytes : sc->wmem_default;
	tc->rcvbuf_locked = sc->rcvbuf_bytes > 0;
	tc->rcvbuf = tc->rcvbuf_locked ? 2 * sc->rcvbuf_bytes : sc->rmem_default;
	/* tcp_fixup_rcvbuf / tcp_fixup_sndbuf: room for the initial windows
	 * (tcp_fixup_rcvbuf until 4.19: a337531b942b took it out with the
	 * 10-segment first window) */
	{
		int64_t per_seg = tc->advmss + sc->skb_overhead_bytes;
		int64_t init_segs = tcp_default_init_rwnd(tc);
		if (!tc->rcvbuf_locked && tc->rcvbuf < 2 * per_seg * init_segs && !host_kernel_at_least(rcv, 4, 20))
			tc->rcvbuf = min64(2 * per_seg * init_segs, sc->rmem_max);
		if (!tc->sndbuf_locked && tc->sndbuf < per_seg * sc->init_cwnd)
			tc->sndbuf = min64(per_seg * sc->init_cwnd, sc->wmem_max);
		/* 3.13+: tcp_init_buffer_space -> tcp_sndbuf_expand */
		if (!tc->sndbuf_locked && host_kernel_at_least(tc->snd_host, 3, 13))
			tc->sndbuf = max64(tc->sndbuf, min64(tcp_sndbuf_want(tc, sc->init_cwnd, sc->reordering), sc->wmem_max));
	}
	tc->window_clamp = tcp_win_from_space(tc, tc->rcvbuf);
	/* tcp_select_initial_window: the scale that lets the largest buffer
	 * the socket may grow to (tcp_rmem[2], or SO_RCVBUF) be advertised */
	{
		int64_t most = tc->rcvbuf_locked ? tc->rcvbuf : max64(sc->rmem_max, tc->rcvbuf);
		tc->rcv_wscale = 0;
		while (most > 65535 && tc->rcv_wscale < 14) {
			most >>= 1;
			tc->rcv_wscale++;
		}
	}

	tc->snd_cwnd = sc->init_cwnd;
	tc->snd_ssthresh = TCP_SSTHRESH_NONE;
	tc->pacing_needed = sc->pacing;
	tc->ect = tc->cc->needs_ecn; /* tcp_ca_needs_ecn: the SYN asked for ECN */
	tc->cc->init(tc);            /* bbr's sets pacing_needed */
	/* sch_fq's first packet of the socket sets SK_PACING_FQ over whatever
	 * was there (fq_classify): the qdisc paces, TCP's own timer does not */
	if (sc->qdisc == QDISC_FQ && sc->link_type == LINK_NIC && host_kernel_at_least(snd, 3, 12)) {
		tc->pacing_fq = true;
		tc->pacing_needed = false;
	}
	tcp_cap_pacing_rate(tc);

	/* tcp_select_initial_window: until 4.19 at most 10 segments of 1460
	 * to start (TCP_DEFAULT_INIT_RCVWND); since 4.20 (a337531b942b, "tcp:
	 * up initial rmem to 128KB and SYN rwin to around 64KB") the buffer's
	 * whole window, rounded down to the MSS -- 65160 bytes at MSS 1448 with
	 * tcp_rmem[1] = 128 KB -- and until 6.9 at most 65535 (378979e94e95,
	 * "tcp: remove 64 KByte limit for initial tp->rcv_wnd value", lifted it
	 * in 6.10) */
	space = tc->window_clamp;
	if (host_kernel_at_least(rcv, 4, 20)) {
		if (space > tc->mss_bytes)
			space = space / tc->mss_bytes * tc->mss_bytes;
		if (!host_kernel_at_least(rcv, 6, 10))
			space = min64(space, 65535);
	} else {
		space = min64(space, tcp_default_init_rwnd(tc) * tc->mss_bytes);
	}
	tc->rcv_wnd = (uint32_t)space;
	tc->rcv_ssthresh = space;
	tc->snd_wnd_end = tc->rcv_wnd;
	tc->max_window = tc->rcv_wnd;

	/* tcp_initialize_rcv_mss */
	{
		int hint = min64(tc->advmss, tc->mss_bytes);
		hint = (int)min64(hint, tc->rcv_wnd / 2);
		hint = (int)min64(hint, TCP_MSS_DEFAULT);
		tc->rcv_mss = hint < TCP_MIN_MSS ? TCP_MIN_MSS : hint;
	}
	tc->quick = (int)min64(tc->rcv_wnd / (2 * tc->rcv_mss), TCP_MAX_QUICKACKS);
	/* tcp_init_buffer_space: rcvq_space.space starts at the smaller of
	 * rcv_wnd and TCP_INIT_CWND * advmss since 4.19 (041a14d26715; and of
	 * rcv_ssthresh, equal here, since 72d05c00d7ec), which is rcv_wnd
	 * until the initial window grew in 4.20 */
	tc->space_bytes = tc->rcv_wnd;
	if (host_kernel_at_least(rcv, 4, 19))
		tc->space_bytes = min64(tc->space_bytes, TCP_INIT_CWND * (int64_t)tc->advmss);
	tc->space_time = 0;
}

/* A CPU's work on one of the connection's sockets (side 0 the sender's,
 * 1 the receiver's): if another CPU touched it last, the lines it wrote
 * come over (cost.sock_xcpu, the machine's; 0 charges nothing, so that
 * profiles without it run as before). */
void tcp_sock_touch(struct sim *sim, struct cpu *c, struct tcp_conn *tc, int side)
{
	double cy = c->host->cfg->cost_cycles[COST_SOCK_XCPU];

	if (cy <= 0 || tc->sk_cpu[side] == c)
		return; /* no profile but the ones that measured it tracks the lines */
	if (tc->sk_cpu[side])
		cpu_charge(sim, c, COST_SOCK_XCPU, cy);
	tc->sk_cpu[side] = c;
}

/* The TCP work of one data skb, in softirq or from the owner's backlog:
 * cost.rx_tcp, unless it is a segment software GSO cut whose host prices
 * its whole receive as cost.rx_gso_seg (netdev_rx charged it). */
void tcp_charge_rx_tcp(struct sim *sim, struct cpu *c, const struct skb *skb)
{
	if (!rx_gso_seg(c, skb))
		cpu_charge(sim, c, COST_RX_TCP, c->host->cfg->cost_cycles[COST_RX_TCP]);
}

/* ------------------------------------------------------------------ */
/* socket ownership (tcp.h)                                            */

/* The page frags a received data skb holds (skb_shinfo()->nr_frags).  On
 * lo and veth it is the sender's skb: a stream's bytes sit in 32 KB page
 * frags (sk_page_frag, order-3 pages), so it takes one frag and one more
 * each time it crosses a frag's end, 1 + len / 32 KB rounded (an MSS 1, a
 * 64 KB GSO frame 3); sendfile's sit in the file's 4 KB pages.  A NIC's
 * receive buffers hold a segment each.  A merged skb counts what it took in. */
int tcp_rx_frags(const struct tcp_conn *tc, const struct skb *s)
{
	if (s->frags)
		return s->frags;
	if (!s->orig)
		return s->segs > 0 ? s->segs : 1;
	return tc->tx_page_frags ? 1 + (int)((s->len + 16384) / 32768) : 1 + (int)((s->len + 2048) / 4096);
}

/* skb_try_coalesce: skb's data joins tail when their page frags fit in
 * MAX_SKB_FRAGS; the tail takes its bytes, segments and truesize (the
 * callers' tests before it are their own).  False: nothing changed. */
bool tcp_skb_try_coalesce(const struct tcp_conn *tc, struct skb *tail, const struct skb *skb)
{
	int frags = tcp_rx_frags(tc, tail) + tcp_rx_frags(tc, skb);

	if (frags > MAX_SKB_FRAGS)
		return false;
	tail->frags = (uint8_t)frags;
	tail->psh |= skb->psh; /* the tail takes the flags too */
	tail->len += skb->len;
	tail->segs = (uint16_t)(tail->segs + skb->segs > 0xFFFF ? 0xFFFF : tail->segs + skb->segs);
	tail->truesize += (int)skb->len;
	return true;
}

/* tcp_add_backlog's coalescing (Linux 5.0+, commit 4f693b55c3d2, "tcp:
 * implement coalescing on backlog queue"): a data skb that continues the
 * backlog's tail (end_seq == seq) with the same TCP options -- TSval and
 * TSecr, millisecond clocks -- and the same ECN marks joins it when their
 * frags fit in MAX_SKB_FRAGS (skb_try_coalesce; the tail's head data, on
 * lo none, aside).  The owner's __release_sock then does one skb's TCP
 * work for both (one cost.rx_tcp, one ACK decision for the bytes of both);
 * the merged skb's sk_buff is freed at once in this softirq
 * (kfree_skb_partial) and its data's truesize joins the tail's. */
static bool backlog_coalesce(struct sim *sim, struct cpu *c, struct tcp_conn *tc, struct skb *skb)
{
	struct skb *tail = tc->rx_backlog.tail;

	if (!tail || tail->kind != SKB_DATA || !host_kernel_at_least(tc->rcv_host, 5, 0))
		return false;
	if (tail->seq + tail->len != skb->seq || tail->ce != skb->ce || tail->ect != skb->ect)
		return false;
	/* skb_try_coalesce leaves a tail whose data it does not own: on lo and
	 * veth a frame that crossed whole (TSO) is the sender's clone until the
	 * ACK for it frees the original (skb_cloned), as rcv_coalesce's tail;
	 * the segments software GSO cut are skbs of their own */
	if (skb_cloned(tail))
		return false;
	/* an skb still charged to its sender's TSQ (the model's veth GRO path
	 * delivers it unorphaned) keeps its own truesize for tcp_wfree */
	if (tail->destructor || skb->destructor)
		return false;
	if (sim->sc->timestamps &&
	    (tail->ts_at / NS_PER_MS != skb->ts_at / NS_PER_MS || tail->sent_at / NS_PER_MS != skb->sent_at / NS_PER_MS))
		return false;
	if (!tcp_skb_try_coalesce(tc, tail, skb))
		return false;
	if (skb->gso_size > tail->gso_size)
		tail->gso_size = skb->gso_size;
	tc->rx_backlog_bytes += skb->len; /* the merged data's truesize, as sk_backlog.len grows */
	sim->cnt.backlog_coalesce++;
	skb_free(sim, c, skb);
	return true;
}

/* The same coalescing for pure ACKs (5.0+; the commit's "This also helps
 * if we receive many ACK packets, since GRO does not aggregate them"): a
 * pure ACK continues the tail ACK (both seq == end_seq, the reader sends
 * no data) and joins it when its options are the same bytes -- TSval and
 * TSecr in the same millisecond, the same SACK blocks, no D-SACK -- and
 * its ECE flag is the tail's.  The tail takes the newer cumulative ACK and
 * its window; the writer's __release_sock then does one ACK's work
 * (one cost.ack_rx, one tcp_ack) for both, and this softirq frees the
 * merged skb. */
static bool backlog_coalesce_ack(struct sim *sim, struct cpu *c, struct tcp_conn *tc, struct skb *skb)
{
	struct skb *tail = tc->ack_backlog.tail;

	if (!tail || !host_kernel_at_least(tc->snd_host, 5, 0))
		return false;
	if (tail->dsack || skb->dsack || tail->sack_lo != skb->sack_lo || tail->sack_hi != skb->sack_hi ||
	    (tail->ece_bytes > 0) != (skb->ece_bytes > 0))
		return false;
	if (sim->sc->timestamps &&
	    (tail->ts_at / NS_PER_MS != skb->ts_at / NS_PER_MS || tail->tsecr_at / NS_PER_MS != skb->tsecr_at / NS_PER_MS))
		return false;
	/* the kernel takes the window of the newer cumulative ACK; the model's
	 * tcp_rcv_ack never moves the window's right edge back, so the two
	 * ACKs one after the other would leave the larger: so does the merge
	 * (lo can reorder them: each CPU's backlog queue delivers its own) */
	if (skb->ack_seq > tail->ack_seq)
		tail->ack_seq = skb->ack_seq;
	if (skb->wnd_end > tail->wnd_end)
		tail->wnd_end = skb->wnd_end;
	if (skb->ts_at > tail->ts_at)
		tail->ts_at = skb->ts_at;
	tail->ece_bytes += skb->ece_bytes;
	sim->cnt.backlog_coalesce++;
	skb_free(sim, c, skb);
	return true;
}

bool tcp_defer_to_owner(struct sim *sim, struct cpu *c, struct skb *skb)
{
	struct tcp_conn *tc = skb->conn;

	if (skb->kind == SKB_DATA) {
		if (!tc->receiver->in_call)
			return false;
		/* no prequeue since 4.14 (commit e7942d0633c4): a reader asleep
		 * in sk_wait_data has released the socket, so the softirq does
		 * the TCP work and wakes it (sk_data_ready) */
		if (tc->receiver_waiting && host_kernel_at_least(tc->rcv_host, 4, 14))
			return false;
		if (!tc->receiver_waiting && backlog_coalesce(sim, c, tc, skb))
			return true;
		skb_list_push(&tc->rx_backlog, skb);
		tc->rx_backlog_bytes += skb->truesize; /* sk_add_backlog */
		if (tc->receiver_waiting && tc->rx_backlog.len == 1) { /* tcp_prequeue: wake on the first */
			tc->receiver_waiting = false;
			sim->cnt.rcv_wakeups++;
			tcp_timeline_reader_woken(sim, tc);
			sched_wakeup(sim, c, tc->receiver, true);
		}
		return true;
	}
	/* FreeBSD's tcp_input takes the inpcb lock instead (the sender of the
	 * FreeBSD rows keeps its own model, app.c) */
	if (!tc->owner_backlog || !tc->sender->in_call || tc->sender_waiting)
		return false;
	if (!backlog_coalesce_ack(sim, c, tc, skb))
		skb_list_push(&tc->ack_backlog, skb);
	return true;
}

int64_t tcp_reader_backlog_one(struct sim *sim, struct cpu *c, struct tcp_conn *tc, int64_t room)
{
	struct skb *skb = skb_list_pop(&tc->rx_backlog);
	bool direct;
	uint32_t len;

	/* __release_sock and tcp_prequeue_process hold softirqs off from the
	 * first queued frame until the queue is empty: the ACKs they send
	 * wait in the backlog for one NET_RX run */
	/* ... until 4.6: since 4.7 (commit 5413d1babe8f, "net: do not block
	 * BH while processing socket backlog") __release_sock runs with them on */
	c->bh_off = skb != NULL && !host_kernel_at_least(c->host, 4, 7);
	if (!skb) {
		tc->rx_backlog_bytes = 0; /* __release_sock, once the backlog is empty */
		/* tcp_release_cb: the ACK the drain deferred, if still due.
		 * release_sock calls it under spin_lock_bh and clears the
		 * ownership before spin_unlock_bh runs the softirq: the NET_RX
		 * that takes the ACK (and on lo the frame it sends) comes after
		 * the release, so what that frame brings is not the backlog's */
		if (tc->ack_deferred) {
			bool bh_off = c->bh_off;
			tc->ack_deferred = false;
			c->bh_off = true;
			if (tc->rcv_nxt > tc->rcv_wup)
				tcp_send_ack(sim, c, tc, &sim->cnt.acks_rx);
			c->bh_off = bh_off;
		}
		return -1;
	}
	tcp_charge_rx_tcp(sim, c, skb);
	/* the fast path's direct copy: the reader has read everything queued
	 * (copied_seq == rcv_nxt) and the frame fits in what recv() still
	 * wants; removed with the prequeue in 4.14 (ucopy) */
	len = skb->len;
	direct = skb->seq == tc->rcv_nxt && tc->copied_seq == tc->rcv_nxt && (int64_t)len <= room &&
		 !host_kernel_at_least(c->host, 4, 14);
	tc->in_backlog = true;
	tcp_rcv_data(sim, c, tc, skb, direct);
	tc->in_backlog = false;
	if (direct) {
		rcv_space_adjust(sim, tc);
		tcp_check_conn(tc);
	}
	return direct ? (int64_t)len : 0;
}

void tcp_reader_release(struct sim *sim, struct cpu *c, struct tcp_conn *tc)
{
	while (tcp_reader_backlog_one(sim, c, tc, 0) >= 0)
		;
}

void tcp_writer_release(struct sim *sim, struct cpu *c, struct tcp_conn *tc)
{
	struct skb *skb;
	while ((skb = skb_list_pop(&tc->ack_backlog)) != NULL) {
		cpu_charge(sim, c, COST_ACK_RX, c->host->cfg->cost_cycles[COST_ACK_RX]);
		tcp_rcv_ack(sim, c, tc, skb);
	}
	if (tc->tsq_deferred) { /* tcp_release_cb -> tcp_tsq_write */
		tc->tsq_deferred = false;
		tcp_push(sim, c, tc, true);
	}
}

/* tcp_rcvbuf_grow (6.16+; the rule inside tcp_rcv_space_adjust before):
 * a buffer whose window holds twice what the reader took in one receiver
 * RTT (DRS is one RTT late), plus the growth of that amount.
 *  - 4.19 - 6.15: rcvwin = 2 copied + 16 advmss, + 2 rcvwin (copied -
 *    space) / space (commit 041a14d26715, "tcp: start receiver buffer
 *    autotuning sooner");
 *  - 6.16 - 6.17: 2 copied, no cushion, no growth term (commit 65c5287892e9,
 *    "tcp: fix sk_rcvbuf overshoot");
 *  - 6.18+: 2 copied + 2 rcvwin (copied - space) / space (commit
 *    aa251c84636c, "tcp: fix too slow tcp_rcvbuf_grow() action").
 * The window clamp follows the buffer (tcp_win_from_space). */
static void rcvbuf_grow(struct tcp_conn *tc, int64_t copied)
{
	const struct scenario *sc = tc->sim->sc;
	int64_t old = tc->space_bytes, rcvwin = 2 * copied, rcvbuf;
	bool v616 = host_kernel_at_least(tc->rcv_host, 6, 16);

	tc->space_bytes = copied;
	if (tc->rcvbuf_locked)
		return;
	if (!v616)
		rcvwin += 16 * (int64_t)tc->advmss;
	if (old > 0 && (!v616 || host_kernel_at_least(tc->rcv_host, 6, 18)))
		rcvwin += 2 * (rcvwin * (copied - old) / old);
	if (v616 && tc->ofo) { /* and what the out-of-order queue holds beyond rcv_nxt */
		const struct skb *o = tc->ofo;
		while (o->next)
			o = o->next;
		rcvwin += (int64_t)(o->seq + o->len - tc->rcv_nxt);
	}
	rcvbuf = min64(tcp_space_from_win(tc, rcvwin), sc->rmem_max);
	if (rcvbuf > tc->rcvbuf) {
		tc->rcvbuf = rcvbuf;
		tc->window_clamp = tcp_win_from_space(tc, rcvbuf);
	}
}

struct timeline_step *tcp_timeline_step(struct sim *sim, const struct tcp_conn *tc, bool data)
{
	if (!sim->tl || tc != &sim->conns[0])
		return NULL;
	return timeline_step_at(sim->tl, sim->now, data);
}

void tcp_timeline_reader_woken_note(struct sim *sim, const struct tcp_conn *tc)
{
	struct timeline_step *ts = tcp_timeline_step(sim, tc, false);

	if (ts)
		ts->wakes++;
}

/* tcp_rcv_space_adjust: once per receiver RTT, grow rcvbuf to what the
 * application read in it.
 *  - before 4.19 here (3.x's rule): twice the bytes read, made a buffer by
 *    the per-segment overhead, measured at most once per jiffy (3.x's
 *    timestamps) or round trip;
 *  - 4.19+: every receiver RTT (rcv_rtt_est, tcp_rcv_rtt_sample), by
 *    rcvbuf_grow; 6.16+ counts only what left the receive queue (commit
 *    ea33537d8292, "tcp: add receive queue awareness in
 *    tcp_rcv_space_adjust()"). */
static void rcv_space_adjust(struct sim *sim, struct tcp_conn *tc)
{
	const struct scenario *sc = sim->sc;
	sim_ns interval = NS_PER_S / tc->rcv_host->cfg->hz;
	int64_t space;

	if (host_kernel_at_least(tc->rcv_host, 4, 19)) {
		int64_t copied;
		if (tc->rcv_rtt_us8 == 0)
			return;
		if (sim->now - tc->space_time < (tc->rcv_rtt_us8 >> 3) * NS_PER_US)
			return;
		copied = (int64_t)(tc->copied_seq - tc->space_seq);
		if (host_kernel_at_least(tc->rcv_host, 6, 16))
			copied -= (int64_t)(tc->rcv_nxt - tc->copied_seq);
		if (copied > tc->space_bytes) {
			struct timeline_step *ts;
			/* tcp:tcp_rcvbuf_grow fires here, with the buffer before the growth */
			if ((ts = tcp_timeline_step(sim, tc, false)) != NULL) {
				ts->grow = true;
				ts->rcvbuf = tc->rcvbuf;
			}
			rcvbuf_grow(tc, copied);
		}
		tc->space_seq = tc->copied_seq;
		tc->space_time = sim->now;
		return;
	}
	if (2 * sc->delay_ns > interval)
		interval = 2 * sc->delay_ns;
	if (sim->now - tc->space_time < interval)
		return;
	space = 2 * (int64_t)(tc->copied_seq - tc->space_seq);
	if (space > tc->space_bytes) {
		tc->space_bytes = space;
		if (!tc->rcvbuf_locked) {
			int64_t rcvmem = tc->advmss + sc->skb_overhead_bytes;
			int64_t want = space * rcvmem / tc->advmss;
			if (want > tc->rcvbuf) {
				tc->rcvbuf = min64(want, sc->rmem_max);
				tc->window_clamp = tcp_win_from_space(tc, tc->rcvbuf);
			}
		}
	}
	tc->space_seq = tc->copied_seq;
	tc->space_time = sim->now;
}

static void cleanup_rbuf(struct sim *sim, struct cpu *c, struct tcp_conn *tc, uint32_t copied)
{
	bool time_to_ack = false;

	if (tc->ack_pending && tc->rcv_nxt - tc->rcv_wup > (uint64_t)tc->rcv_mss)
		time_to_ack = true;
	/* this read emptied the queue, and a short segment came since the last
	 * ACK (ICSK_ACK_PUSHED; or PUSHED2: the receiver sends no data, so it
	 * is never in pingpong mode) */
	if (tc->ack_pending && copied > 0 && tc->ack_pushed && tc->rmem_alloc == 0)
		time_to_ack = true;
	if (!time_to_ack && copied > 0) {
		int64_t now_win = (int64_t)(tc->rcv_wup + tc->rcv_wnd) - (int64_t)tc->rcv_nxt;
		if (now_win < 0)
			now_win = 0;
		if (2 * now_win <= tc->window_clamp) {
			int64_t new_win = tcp_select_window_now(tc);
			if (new_win && new_win >= 2 * now_win)
				time_to_ack = true; /* the window opened a lot: tell the sender */
		}
	}
	if (time_to_ack)
		tcp_send_ack(sim, c, tc, &sim->cnt.acks_rbuf);
}

/* skb_copy_datagram_iter -> __skb_datagram_iter copies an skb fragment
 * by fragment (kmap_local_page, hardened usercopy's check_object_size and
 * one copy_to_iter call each): cost.recv_copy_piece (0: nothing) for each
 * of skb's page frags the n bytes from it span, its frags taken as evenly
 * filled.  A segment software GSO cut is one fragment of an MSS, a TSO
 * frame's are the writer's 32 KB page frags (tcp_rx_frags); all eras. */
static void recv_copy_pieces(struct sim *sim, struct cpu *c, const struct tcp_conn *tc, const struct skb *skb,
			     uint32_t n)
{
	double cy = c->host->cfg->cost_cycles[COST_RECV_COPY_PIECE];
	uint64_t frags;

	if (cy <= 0 || n == 0) /* n <= skb->len */
		return;
	frags = (uint64_t)tcp_rx_frags(tc, skb);
	cpu_charge(sim, c, COST_RECV_COPY_PIECE, cy * (double)((frags * n + skb->len - 1) / skb->len));
}

uint32_t tcp_recv_copy(struct sim *sim, struct cpu *c, struct tcp_conn *tc, uint32_t max)
{
	struct skb *skb = tc->rq.head;
	uint32_t n;

	if (!skb)
		return 0;
	/* a copy that empties skb frees it, and a clone's free reads its
	 * original's refs (skb_free): the write-queue skb, sent long ago
	 * and cold.  Its line comes in while this copy is accounted. */
	__builtin_prefetch(skb->orig);
	tcp_sock_touch(sim, c, tc, 1);
	skb_touch(sim, c, skb);
	n = skb->len - skb->consumed;
	if (n > max)
		n = max;
	recv_copy_pieces(sim, c, tc, skb, n);
	skb->consumed += n;
	tc->copied_seq += n;
	sim->cnt.app_bytes += n;
	if (skb->consumed == skb->len) {
		skb_list_pop(&tc->rq);
		/* the reader's next step copies from the new head, queued
		 * long ago: its lines come in while this step finishes */
		skb_prefetch(tc->rq.head);
		tc->rmem_alloc -= skb->truesize;
		skb_free_received(sim, c, skb);
	}
	rcv_space_adjust(sim, tc);
	tcp_check_conn(tc);
	return n;
}

void tcp_recv_done(struct sim *sim, struct cpu *c, struct tcp_conn *tc, int64_t copied)
{
	cleanup_rbuf(sim, c, tc, copied > UINT32_MAX ? UINT32_MAX : (uint32_t)copied);
	tcp_check_conn(tc);
}
