/*
 * tcp.c: one bulk TCP connection (see tcp.h for what it imitates).
 *
 * Sources of the rules, Linux 3.6 unless noted:
 *  - MSS: mtu - 20 (IPv4) - 20 (TCP) - 12 (timestamps option), tcp_mtu_to_mss
 *    and tcp_established_options.
 *  - size goal: tcp_xmit_size_goal and tcp_bound_to_half_wnd (tcp.c).
 *  - initial receive window and rcv_mss: tcp_select_initial_window
 *    (tcp_output.c), tcp_initialize_rcv_mss (tcp_input.c).
 *  - window selection: __tcp_select_window, tcp_select_window (tcp_output.c);
 *    tcp_win_from_space with tcp_adv_win_scale (tcp.h).
 *  - ACK policy: __tcp_ack_snd_check, tcp_measure_rcv_mss (tcp_input.c),
 *    tcp_cleanup_rbuf (tcp.c), quickack: TCP_MAX_QUICKACKS = 16.
 *  - buffer autotuning: tcp_rcv_space_adjust, tcp_sndbuf_expand (3.16 name;
 *    tcp_new_space in 3.6): sndbuf = 2 * cwnd * per-segment memory.
 *  - write space: sk_stream_write_space wakes a writer once free space is
 *    at least half of what is queued (sk_stream_min_wspace).
 *  - CUBIC: RFC 8312 (C = 0.4, beta = 0.7).
 *  - loss recovery: tcp_time_to_recover, tcp_update_scoreboard (FACK),
 *    tcp_try_undo_recovery, tcp_packet_delayed, tcp_undo_cwr (tcp_input.c);
 *    CUBIC's beta 717/1024 (tcp_cubic.c); tcp_should_expand_sndbuf.
 * Nothing is ever lost: loopback and the clean LAN of the reports drop
 * nothing; what is retransmitted is data overtaken on another backlog.
 */
#include "tcp.h"

#include <math.h>

#include "cpu.h"
#include "netdev.h"
#include "sched.h"
#include "skb.h"
#include "util.h"

#define TCP_MSS_DEFAULT 536
#define TCP_MIN_MSS 88
#define TCP_MAX_QUICKACKS 16
#define TCP_INIT_RCVWND 10

static int64_t win_from_space(const struct tcp_conn *tc, int64_t space)
{
	int s = tc->sim->sc->adv_win_scale;
	if (space < 0)
		space = 0;
	return s <= 0 ? space >> -s : space - (space >> s);
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Sequence-space and memory invariants of both ends (tcp.h). */
static void check_conn(const struct tcp_conn *tc)
{
	INVARIANT(tc->snd_una <= tc->snd_nxt && tc->snd_nxt <= tc->write_seq,
		  "conn %d: snd_una %llu snd_nxt %llu write_seq %llu out of order", tc->id,
		  (unsigned long long)tc->snd_una, (unsigned long long)tc->snd_nxt, (unsigned long long)tc->write_seq);
	INVARIANT(tc->rcv_wup <= tc->rcv_nxt && tc->copied_seq <= tc->rcv_nxt && tc->rcv_nxt <= tc->snd_nxt,
		  "conn %d: receive sequence out of order", tc->id);
	INVARIANT(tc->wmem_queued >= 0 && tc->rmem_alloc >= 0, "conn %d: negative socket memory", tc->id);
}

/* ------------------------------------------------------------------ */
/* congestion control                                                  */

static void reno_init(struct tcp_conn *tc) { (void)tc; }

static void slow_start_or(struct tcp_conn *tc, uint32_t acked, bool *in_ss)
{
	*in_ss = tc->snd_cwnd < tc->snd_ssthresh;
	if (*in_ss)
		tc->snd_cwnd += acked;
}

static void reno_cong_avoid(struct sim *sim, struct tcp_conn *tc, uint32_t acked)
{
	bool ss;
	(void)sim;
	slow_start_or(tc, acked, &ss);
	if (!ss)
		tc->snd_cwnd += (double)acked / tc->snd_cwnd; /* +1 MSS per RTT */
}

static void cubic_init(struct tcp_conn *tc)
{
	tc->cubic_wmax = 0;
	tc->cubic_epoch = -1;
}

static void cubic_cong_avoid(struct sim *sim, struct tcp_conn *tc, uint32_t acked)
{
	const double C = 0.4, beta = 0.7;
	double t, rtt_s, target;
	bool ss;

	slow_start_or(tc, acked, &ss);
	if (ss)
		return;
	if (tc->cubic_epoch < 0) {
		tc->cubic_epoch = sim->now;
		if (tc->cubic_wmax < tc->snd_cwnd)
			tc->cubic_wmax = tc->snd_cwnd;
		tc->cubic_k = cbrt(tc->cubic_wmax * (1 - beta) / C);
	}
	rtt_s = (double)(2 * sim->sc->delay_ns) / 1e9;
	t = (double)(sim->now - tc->cubic_epoch) / 1e9 + rtt_s;
	target = C * pow(t - tc->cubic_k, 3) + tc->cubic_wmax; /* RFC 8312 eq. 1 */
	if (target > tc->snd_cwnd)
		tc->snd_cwnd += (target - tc->snd_cwnd) / tc->snd_cwnd * acked;
	else
		tc->snd_cwnd += 0.01 * acked / tc->snd_cwnd;
}

const struct tcp_cc_ops tcp_reno = {.name = "reno", .init = reno_init, .cong_avoid = reno_cong_avoid};
const struct tcp_cc_ops tcp_cubic = {.name = "cubic", .init = cubic_init, .cong_avoid = cubic_cong_avoid};

/* ------------------------------------------------------------------ */
/* set-up                                                              */

void tcp_conn_init(struct sim *sim, struct tcp_conn *tc, int id, struct host *snd, struct host *rcv)
{
	const struct scenario *sc = sim->sc;
	int ts = sc->timestamps ? TCP_TS_OPT_BYTES : 0;
	int64_t space;

	tc->id = id;
	tc->sim = sim;
	tc->snd_host = snd;
	tc->rcv_host = rcv;
	tc->cc = sc->cc == CC_RENO ? &tcp_reno : &tcp_cubic;
	INVARIANT(tc->cc->init && tc->cc->cong_avoid, "incomplete congestion control ops");

	tc->advmss = sc->mtu_bytes - IP_HDR_BYTES - TCP_HDR_BYTES;
	tc->mss_bytes = tc->advmss - ts;
	INVARIANT(tc->mss_bytes > 0, "mtu %d leaves no payload", sc->mtu_bytes);
	/* since Linux 4.13 TCP always builds GSO frames (commit 0a6b2a1dc2a2,
	 * "tcp: switch to GSO being always on") and a device without GSO
	 * segments them in software; before, GSO off meant MSS-sized skbs */
	if (sc->gso || sc->tso || host_kernel_at_least(snd, 4, 13)) {
		int hdr = IP_HDR_BYTES + TCP_HDR_BYTES + ts;
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
	/* tcp_fixup_rcvbuf / tcp_fixup_sndbuf: room for the initial windows */
	{
		int64_t per_seg = tc->advmss + sc->skb_overhead_bytes;
		int64_t init_segs = TCP_INIT_RCVWND;
		if (tc->mss_bytes > 1460)
			init_segs = max64(1460 * TCP_INIT_RCVWND / tc->mss_bytes, 2);
		if (!tc->rcvbuf_locked && tc->rcvbuf < 2 * per_seg * init_segs)
			tc->rcvbuf = min64(2 * per_seg * init_segs, sc->rmem_max);
		if (!tc->sndbuf_locked && tc->sndbuf < per_seg * sc->init_cwnd)
			tc->sndbuf = min64(per_seg * sc->init_cwnd, sc->wmem_max);
	}
	tc->window_clamp = win_from_space(tc, tc->rcvbuf);
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
	tc->snd_ssthresh = 1e12;
	tc->cc->init(tc);

	/* tcp_select_initial_window: at most 10 segments of 1460 to start */
	space = tc->window_clamp;
	{
		int64_t init_segs = TCP_INIT_RCVWND;
		if (tc->mss_bytes > 1460)
			init_segs = max64(1460 * TCP_INIT_RCVWND / tc->mss_bytes, 2);
		space = min64(space, init_segs * tc->mss_bytes);
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
	tc->space_bytes = tc->rcv_wnd;
	tc->space_time = 0;
}

/* ------------------------------------------------------------------ */
/* sending                                                             */

static int current_size_goal(const struct tcp_conn *tc)
{
	int64_t goal = tc->size_goal_bytes;
	int64_t cutoff = tc->max_window > TCP_MSS_DEFAULT ? tc->max_window / 2 : tc->max_window;
	if (cutoff > 0 && goal > cutoff)
		goal = cutoff;
	goal = goal / tc->mss_bytes * tc->mss_bytes;
	return (int)(goal < tc->mss_bytes ? tc->mss_bytes : goal);
}

uint32_t tcp_send_append(struct sim *sim, struct cpu *c, struct tcp_conn *tc, uint32_t bytes, bool zerocopy)
{
	struct skb *tail = tc->wq.tail;
	int goal = current_size_goal(tc);
	uint32_t n;

	(void)zerocopy;
	if (!tail || tail->sent || tail->len >= (uint32_t)goal) {
		if (tc->wmem_queued >= tc->sndbuf) {
			tc->nospace = true;
			return 0; /* !sk_stream_memory_free */
		}
		tail = skb_alloc(sim, c, SKB_DATA);
		tail->conn = tc;
		tail->seq = tc->write_seq;
		tail->dst_host = tc->rcv_host;
		tc->wmem_queued += tail->truesize;
		skb_list_push(&tc->wq, tail);
		if (!tc->send_head)
			tc->send_head = tail;
	}
	n = (uint32_t)goal - tail->len;
	if (n > bytes)
		n = bytes;
	tail->len += n;
	tail->truesize += (int)n;
	tc->wmem_queued += n;
	tc->write_seq += n;
	if (tail->len >= (uint32_t)goal)
		tcp_push(sim, c, tc, false); /* tcp_push_one: a full frame goes now */
	return n;
}

/* Split skb so that it holds `len` bytes; the rest becomes a new unsent skb
 * right after it (tso_fragment). */
static void split_skb(struct sim *sim, struct cpu *c, struct tcp_conn *tc, struct skb *skb, uint32_t len)
{
	struct skb *rest = skb_alloc(sim, c, SKB_DATA);
	uint32_t moved = skb->len - len;

	rest->conn = tc;
	rest->dst_host = skb->dst_host;
	rest->seq = skb->seq + len;
	rest->len = moved;
	rest->truesize += (int)moved;
	skb->len = len;
	skb->truesize -= (int)moved;
	tc->wmem_queued += sim->sc->skb_overhead_bytes;
	rest->next = skb->next;
	skb->next = rest;
	if (tc->wq.tail == skb)
		tc->wq.tail = rest;
	tc->wq.len++;
}

static uint32_t segs_of(const struct tcp_conn *tc, uint64_t bytes)
{
	return (uint32_t)((bytes + (uint64_t)tc->mss_bytes - 1) / (uint64_t)tc->mss_bytes);
}

/* Minshall's Nagle (tcp_nagle_check, tcp_minshall_check): a short segment
 * waits only while data is in flight and an earlier short one is unacked. */
static bool nagle_holds(const struct tcp_conn *tc)
{
	return !tc->sim->sc->nodelay && tc->snd_nxt > tc->snd_una && tc->snd_sml > tc->snd_una;
}

/* Whether the short tail at the end of a send call waits (tcp_write_xmit,
 * 3.6): one segment by Nagle; several by tcp_tso_should_defer, which sends
 * when a full GSO frame or a third of the window (tcp_tso_win_divisor 3)
 * can go and defers otherwise (its two-tick limit is not modelled: the
 * next ACK or write decides again). */
static bool tail_waits(const struct tcp_conn *tc, const struct skb *skb, int64_t quota, int64_t wnd_left)
{
	int64_t limit, chunk;

	if (skb->len <= (uint32_t)tc->mss_bytes)
		return skb->len < (uint32_t)tc->mss_bytes && nagle_holds(tc);
	limit = min64(wnd_left, quota * tc->mss_bytes);
	if (limit >= tc->sim->sc->gso_max_bytes)
		return false;
	chunk = min64((int64_t)(tc->snd_wnd_end - tc->snd_una), (int64_t)tc->snd_cwnd * tc->mss_bytes) / 3;
	return limit < chunk;
}

/*
 * Internal pacing (net/ipv4/tcp_output.c, 4.13+; earliest departure times
 * since 4.20, commit ab408b6dc744): a socket whose sk_pacing_status is
 * SK_PACING_NEEDED -- bbr's init sets it, and tcp_reinit_congestion_control
 * never clears it -- gives every frame a departure time tcp_wstamp_ns and
 * sends nothing before it: tcp_pacing_check arms the socket's hrtimer for
 * it (pinned, soft) and stops tcp_write_xmit.  The timer's expiry is a
 * local timer interrupt (cost.timer_irq) and an HRTIMER softirq on the
 * CPU that armed it (tcp_pace_kick -> tcp_tsq_handler).
 */
static void pace_fire(struct sim *sim, void *obj, uint64_t arg)
{
	struct tcp_conn *tc = obj;
	(void)arg;
	cpu_raise_irq(sim, tc->pace_cpu, IRQ_HRTIMER, tc);
}

static bool pacing_check(struct sim *sim, struct cpu *c, struct tcp_conn *tc)
{
	if (!sim->sc->pacing || !host_kernel_at_least(tc->snd_host, 4, 13) || tc->wstamp_ns <= sim->now)
		return false;
	if (!tc->pace_armed) {
		tc->pace_armed = true;
		tc->pace_cpu = c;
		evq_timer_arm(&sim->evq, &tc->pace_tm, tc->wstamp_ns, pace_fire, tc, 0);
	}
	return true;
}

/* tcp_update_skb_after_send: the next frame departs len / pacing_rate
 * later, less up to half of that as credit for time the sender was late
 * (the first 10 segments go unpaced). */
static void pacing_after_send(struct sim *sim, struct tcp_conn *tc, const struct skb *skb)
{
	sim_ns prior = tc->wstamp_ns;
	if (tc->wstamp_ns < sim->now)
		tc->wstamp_ns = sim->now;
	if (sim->sc->pacing && tc->pacing_Bps > 0 && tc->segs_out >= 10) {
		double wire = (double)skb->len + (double)skb->segs * (IP_HDR_BYTES + TCP_HDR_BYTES + (sim->sc->timestamps ? TCP_TS_OPT_BYTES : 0));
		sim_ns len_ns = (sim_ns)(wire * 1e9 / tc->pacing_Bps);
		sim_ns credit = tc->wstamp_ns - prior;
		tc->wstamp_ns += len_ns - (credit < len_ns / 2 ? credit : len_ns / 2);
	}
	tc->segs_out += skb->segs;
}

/* tcp_rtt_estimator (RFC 6298 as tcp_input.c keeps it, in us times 8) on
 * a sample of `rtt_ns`, then tcp_update_pacing_rate: cwnd * mss / srtt
 * times tcp_pacing_ss_ratio in slow start (cwnd < ssthresh / 2), else
 * tcp_pacing_ca_ratio. */
static void rtt_sample(struct sim *sim, struct tcp_conn *tc, sim_ns rtt_ns)
{
	int64_t m = rtt_ns / NS_PER_US;
	double cwnd, ratio;

	if (m < 1)
		m = 1; /* tcp_mstamp has microsecond granularity */
	if (tc->srtt_us8 == 0) {
		tc->srtt_us8 = m << 3;
	} else {
		m -= tc->srtt_us8 >> 3;
		tc->srtt_us8 += m;
	}
	if (tc->srtt_us8 < 1)
		tc->srtt_us8 = 1;
	cwnd = fmax(tc->snd_cwnd, (double)segs_of(tc, tc->snd_nxt - tc->snd_una));
	ratio = tc->snd_cwnd < tc->snd_ssthresh / 2 ? sim->sc->pacing_ss_ratio : sim->sc->pacing_ca_ratio;
	tc->pacing_Bps = (double)tc->mss_bytes * ratio / 100.0 * cwnd * 8e6 / (double)tc->srtt_us8;
}

/* tcp_cwnd_validate: the most segments in flight over the last window. */
static void cwnd_validate(struct tcp_conn *tc)
{
	uint32_t out = segs_of(tc, tc->snd_nxt - tc->snd_una);
	if (tc->snd_una >= tc->max_packets_seq || out > tc->max_packets_out) {
		tc->max_packets_out = out;
		tc->max_packets_seq = tc->snd_nxt;
	}
}

/* tcp_is_cwnd_limited: the window stopped a full frame, or (since 4.3,
 * commit ca8a22634381) in slow start cwnd is below twice the most
 * segments in flight in the last window, so an application-limited
 * sender's cwnd still doubles up to that. */
static bool is_cwnd_limited(const struct tcp_conn *tc)
{
	if (tc->cwnd_limited)
		return true;
	return host_kernel_at_least(tc->snd_host, 4, 3) && tc->snd_cwnd < tc->snd_ssthresh &&
	       tc->snd_cwnd < 2.0 * tc->max_packets_out;
}

void tcp_pace_kick(struct sim *sim, struct cpu *c, struct tcp_conn *tc)
{
	tc->pace_armed = false;
	/* tcp_tsq_handler: a writer inside send() owns the socket */
	if (tc->sender->in_call && !tc->sender_waiting) {
		tc->tsq_deferred = true;
		return;
	}
	tcp_push(sim, c, tc, true);
}

void tcp_push(struct sim *sim, struct cpu *c, struct tcp_conn *tc, bool push_tail)
{
	struct skb *skb;

	while ((skb = tc->send_head) != NULL) {
		if (pacing_check(sim, c, tc))
			break;
		int64_t in_flight = (int64_t)segs_of(tc, tc->snd_nxt - tc->snd_una);
		int64_t quota = (int64_t)tc->snd_cwnd - in_flight;
		int64_t wnd_left = (int64_t)tc->snd_wnd_end - (int64_t)skb->seq;
		int64_t limit;
		bool is_tail = skb->next == NULL;
		struct skb *clone;

		/* tcp_is_cwnd_limited: the window, not the application, stops a
		 * full-size frame */
		if (quota * tc->mss_bytes < current_size_goal(tc))
			tc->cwnd_limited = true;
		if (quota <= 0)
			break;
		/* a short tail: mid-call it waits for the rest of the call's data
		 * (only full frames go, tcp_push_one); at the end of the call
		 * Nagle or TSO deferral decide */
		if (is_tail && skb->len < (uint32_t)current_size_goal(tc) &&
		    (!push_tail || tail_waits(tc, skb, quota, wnd_left)))
			break;
		if (wnd_left <= 0)
			break;
		limit = min64(min64(skb->len, quota * tc->mss_bytes), wnd_left);
		/* tcp_mss_split_point: the tail's short last segment may wait */
		if (is_tail && limit == (int64_t)skb->len && limit > tc->mss_bytes && limit % tc->mss_bytes &&
		    nagle_holds(tc))
			limit = limit / tc->mss_bytes * tc->mss_bytes;
		if (limit < (int64_t)skb->len) {
			if (limit >= tc->mss_bytes)
				limit = limit / tc->mss_bytes * tc->mss_bytes;
			else if (tc->snd_nxt > tc->snd_una)
				break; /* less than one MSS of window: wait for ACKs (sender SWS avoidance) */
			if (limit == quota * tc->mss_bytes && limit < wnd_left)
				tc->cwnd_limited = true;
			split_skb(sim, c, tc, skb, (uint32_t)limit);
		}
		skb->sent = true;
		skb->sent_at = sim->now;
		tc->snd_nxt = skb->seq + skb->len;
		if (skb->len % (uint32_t)tc->mss_bytes)
			tc->snd_sml = tc->snd_nxt; /* tcp_minshall_update */
		tc->send_head = skb->next;
		clone = skb_clone(sim, skb);
		clone->segs = (uint16_t)segs_of(tc, skb->len);
		clone->gso_size = clone->segs > 1 ? (uint32_t)tc->mss_bytes : 0; /* skb_shinfo()->gso_size */
		sim->cnt.data_frames++;
		sim->cnt.data_segs += clone->segs;
		pacing_after_send(sim, tc, clone);
		cwnd_validate(tc);
		sim->dev->xmit(sim, c, clone);
	}
}

/* ------------------------------------------------------------------ */
/* receiving                                                           */

uint32_t tcp_select_window_now(const struct tcp_conn *tc)
{
	int64_t mss = tc->rcv_mss;
	int64_t free_space = win_from_space(tc, tc->rcvbuf - tc->rmem_alloc);
	int64_t full_space = min64(tc->window_clamp, win_from_space(tc, tc->rcvbuf));
	int64_t window;

	if (mss > full_space)
		mss = full_space;
	if (free_space < full_space / 2 && free_space < mss)
		return 0;
	if (free_space > tc->rcv_ssthresh)
		free_space = tc->rcv_ssthresh;
	/* with window scaling (rcv_wscale > 0: any buffer over 64 KB) the
	 * window is the free space itself, rounded up to the scale
	 * (__tcp_select_window), so data queued unread shrinks it and the ACK
	 * of a frame waits for the reader's tcp_cleanup_rbuf.  The kernel has
	 * done so in every era; the model applies it from 4.0 on and keeps its
	 * earlier MSS-rounded window for the 3.x profiles, whose hand-set and
	 * fitted costs were made with it (docs/eras.md). */
	if (tc->rcv_wscale > 0 && host_kernel_at_least(tc->rcv_host, 4, 0)) {
		int64_t unit = (int64_t)1 << tc->rcv_wscale;
		return (uint32_t)max64((free_space + unit - 1) / unit * unit, 0);
	}
	window = tc->rcv_wnd;
	/* keep the advertised window unless it is off by an MSS or more */
	if (window <= free_space - mss || window > free_space)
		window = mss > 0 ? free_space / mss * mss : free_space;
	else if (mss == full_space && free_space > window + full_space / 2)
		window = free_space;
	return (uint32_t)max64(window, 0);
}

static void send_ack(struct sim *sim, struct cpu *c, struct tcp_conn *tc, uint64_t *reason)
{
	(*reason)++;
	struct skb *skb = skb_alloc(sim, c, SKB_ACK);
	int64_t cur_win = (int64_t)(tc->rcv_wup + tc->rcv_wnd) - (int64_t)tc->rcv_nxt;
	int64_t new_win = tcp_select_window_now(tc);

	cpu_charge(sim, c, COST_ACK_TX, c->host->cfg->cost_cycles[COST_ACK_TX]);
	if (new_win < cur_win)
		new_win = cur_win; /* never shrink the offered window */
	tc->rcv_wnd = (uint32_t)new_win;
	tc->rcv_wup = tc->rcv_nxt;
	skb->conn = tc;
	skb->ack_seq = tc->rcv_nxt;
	skb->wnd_end = tc->rcv_nxt + (uint64_t)new_win;
	if (tc->ofo) /* the SACK blocks' reach; the queue is sorted by seq */
		skb->sack_lo = tc->ofo->seq;
	for (const struct skb *o = tc->ofo; o; o = o->next)
		if (o->seq + o->len > skb->sack_hi)
			skb->sack_hi = o->seq + o->len;
	skb->dsack = tc->dsack_pending;
	tc->dsack_pending = false;
	skb->dst_host = tc->snd_host;
	tc->ack_pending = false;
	evq_timer_cancel(&tc->delack_tm);
	if (tc->quick > 0)
		tc->quick--;
	sim->cnt.acks++;
	sim->dev->xmit(sim, c, skb);
}

static void rcv_space_adjust(struct sim *sim, struct tcp_conn *tc);

static void delack_fire(struct sim *sim, void *obj, uint64_t arg)
{
	struct tcp_conn *tc = obj;
	(void)arg;
	cpu_timer_fired(sim, tc->delack_cpu, tc);
}

void tcp_delack_timer(struct sim *sim, struct cpu *c, struct tcp_conn *tc)
{
	if (tc->ack_pending)
		send_ack(sim, c, tc, &sim->cnt.acks_delack);
}

/* An in-order skb's sequence space taken: rcv_nxt, rcv_mss, window growth
 * (tcp_event_data_recv). */
static void take_in_order(struct tcp_conn *tc, const struct skb *skb)
{
	uint32_t seg = skb->gso_size ? skb->gso_size : skb->len;

	if (seg > skb->len)
		seg = skb->len;
	tc->rcv_nxt += skb->len;
	/* tcp_grow_window */
	if (tc->rcv_ssthresh < tc->window_clamp &&
	    tc->rcv_ssthresh < win_from_space(tc, tc->rcvbuf - tc->rmem_alloc) &&
	    win_from_space(tc, skb->truesize) <= (int64_t)skb->len)
		tc->rcv_ssthresh = min64(tc->rcv_ssthresh + 2 * tc->advmss, tc->window_clamp);
	if ((int)seg >= tc->rcv_mss) /* tcp_measure_rcv_mss */
		tc->rcv_mss = (int)min64(seg, tc->advmss);
}

/* Queue an in-order skb and learn rcv_mss from it. */
static void queue_in_order(struct tcp_conn *tc, struct skb *skb)
{
	tc->rmem_alloc += skb->truesize;
	skb_list_push(&tc->rq, skb);
	take_in_order(tc, skb);
}

static void rcv_data(struct sim *sim, struct cpu *c, struct tcp_conn *tc, struct skb *skb, bool direct)
{
	if (skb->seq + skb->len <= tc->rcv_nxt) {
		/* all of it came before (a retransmission and its overtaken
		 * original): drop it, D-SACK at once (tcp_send_dupack) */
		tc->dsack_pending = true;
		skb_free(sim, c, skb);
		send_ack(sim, c, tc, &sim->cnt.acks_quick);
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
		send_ack(sim, c, tc, &sim->cnt.acks_quick);
		return;
	}
	if (direct) { /* tcp_rcv_established: copied to the reader's iovec, never queued */
		take_in_order(tc, skb);
		tc->copied_seq += skb->len;
		sim->cnt.app_bytes += skb->len;
		skb_free(sim, c, skb);
	} else {
		queue_in_order(tc, skb);
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
		queue_in_order(tc, o);
	}

	if (tc->receiver_waiting) { /* sk_data_ready */
		tc->receiver_waiting = false;
		sim->cnt.rcv_wakeups++;
		sched_wakeup(sim, c, tc->receiver, true);
	}
	/* __tcp_ack_snd_check */
	if (tc->rcv_nxt - tc->rcv_wup > (uint64_t)tc->rcv_mss && tcp_select_window_now(tc) >= tc->rcv_wnd) {
		send_ack(sim, c, tc, &sim->cnt.acks_rx);
	} else if (tc->quick > 0 || tc->ofo || tc->dsack_pending) {
		send_ack(sim, c, tc, &sim->cnt.acks_quick);
	} else if (!tc->ack_pending) {
		sim_ns ato = sim->sc->ato_min_ns;
		if (ato < sim->sc->delack_min_ns)
			ato = sim->sc->delack_min_ns;
		if (ato > sim->sc->delack_max_ns)
			ato = sim->sc->delack_max_ns;
		tc->ack_pending = true;
		tc->delack_cpu = c;
		evq_timer_arm(&sim->evq, &tc->delack_tm, sim->now + ato, delack_fire, tc, 0);
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

/* ------------------------------------------------------------------ */
/* loss recovery (tcp.h)                                               */

static double cc_beta(const struct tcp_conn *tc)
{
	return tc->cc == &tcp_cubic ? 717.0 / 1024.0 : 0.5;
}

/* tcp_retransmit_skb of `len` bytes at snd_una: the write-queue skb is
 * still referenced by its clone in flight, so the copy is a new skb
 * (pskb_copy).  A connection that cannot build GSO frames (size goal one
 * MSS) retransmits one MSS-sized skb per segment. */
static void retransmit(struct sim *sim, struct cpu *c, struct tcp_conn *tc, uint32_t len)
{
	uint64_t seq = tc->snd_una, end = tc->snd_una + len;
	uint32_t most = tc->size_goal_bytes > tc->mss_bytes ? len : (uint32_t)tc->mss_bytes;

	while (seq < end) {
		struct skb *r = skb_alloc(sim, c, SKB_DATA);
		uint32_t n = (uint32_t)min64((int64_t)most, (int64_t)(end - seq));
		r->conn = tc;
		r->dst_host = tc->rcv_host;
		r->seq = seq;
		r->len = n;
		r->truesize += (int)n;
		r->retrans = true;
		r->segs = (uint16_t)segs_of(tc, n);
		r->gso_size = r->segs > 1 ? (uint32_t)tc->mss_bytes : 0;
		sim->cnt.retrans_segs += r->segs;
		sim->dev->xmit(sim, c, r);
		seq += n;
	}
}

/* tcp_time_to_recover with FACK: more than tcp_reordering segments from
 * snd_una to the highest SACKed byte.  Enter recovery, retransmit the
 * head of the hole, reduce the window. */
static void sack_check(struct sim *sim, struct cpu *c, struct tcp_conn *tc, const struct skb *ack)
{
	uint32_t fackets, lost, hole_segs;
	uint64_t hole_end = ack->sack_lo;

	if (tc->in_recovery || ack->sack_hi <= tc->snd_una)
		return;
	fackets = segs_of(tc, ack->sack_hi - tc->snd_una);
	if (fackets <= (uint32_t)sim->sc->reordering)
		return;
	/* the hole: from snd_una to the first byte the receiver holds */
	hole_segs = segs_of(tc, hole_end - tc->snd_una);
	lost = fackets - (uint32_t)sim->sc->reordering;
	if (lost > hole_segs)
		lost = hole_segs;
	if (lost < 1)
		lost = 1;
	sim->cnt.recoveries++;
	tc->in_recovery = true;
	for (const struct skb *s = tc->wq.head; s && s->sent; s = s->next)
		if (s->seq + s->len > tc->snd_una) {
			tc->hole_sent_at = s->sent_at;
			break;
		}
	tc->high_seq = tc->snd_nxt;
	if (!tc->undo_marker) { /* a new episode: remember what undo restores */
		tc->prior_cwnd = tc->snd_cwnd;
		tc->prior_ssthresh = tc->snd_ssthresh;
		tc->undo_retrans = 0;
	}
	tc->undo_marker = true;
	tc->undo_retrans++;
	tc->retrans_stamp = sim->now;
	tc->snd_ssthresh = fmax(tc->snd_cwnd * cc_beta(tc), 2);
	/* CUBIC: the window it fell from (fast convergence), a new epoch */
	tc->cubic_wmax = tc->snd_cwnd < tc->cubic_wmax ? tc->snd_cwnd * (1 + cc_beta(tc)) / 2 : tc->snd_cwnd;
	tc->cubic_epoch = -1;
	tc->snd_cwnd = tc->snd_ssthresh;
	retransmit(sim, c, tc, (uint32_t)min64((int64_t)lost * tc->mss_bytes, (int64_t)(hole_end - tc->snd_una)));
}

/* tcp_undo_cwr: the reduction was spurious. */
static void undo_reduction(struct sim *sim, struct tcp_conn *tc)
{
	sim->cnt.undos++;
	if (tc->snd_cwnd < tc->prior_cwnd)
		tc->snd_cwnd = tc->prior_cwnd;
	if (tc->snd_ssthresh < tc->prior_ssthresh)
		tc->snd_ssthresh = tc->prior_ssthresh;
	tc->undo_marker = false;
	tc->undo_retrans = 0;
}

/* After snd_una moved (or a D-SACK came): leave recovery once high_seq is
 * passed, undoing if every retransmission was D-SACKed or the hole's frame
 * was sent in an earlier jiffy than the retransmission
 * (tcp_try_undo_recovery, tcp_packet_delayed). */
static void recovery_update(struct sim *sim, struct tcp_conn *tc, const struct skb *ack)
{
	if (ack->dsack && tc->undo_marker && tc->undo_retrans > 0) {
		tc->undo_retrans--;
		if (tc->undo_retrans == 0 && tc->in_recovery) /* tcp_try_undo_dsack */
			undo_reduction(sim, tc);
	}
	if (tc->in_recovery && tc->snd_una >= tc->high_seq) {
		sim_ns jiffy = NS_PER_S / tc->snd_host->cfg->hz;
		tc->in_recovery = false;
		if (tc->undo_marker &&
		    (tc->undo_retrans == 0 || (sim->sc->timestamps && tc->hole_sent_at / jiffy < tc->retrans_stamp / jiffy)))
			undo_reduction(sim, tc);
		tc->undo_marker = false; /* a D-SACK in the open state undoes nothing (3.6) */
	}
}

static void rcv_ack(struct sim *sim, struct cpu *c, struct tcp_conn *tc, struct skb *ack)
{
	uint64_t ack_seq = ack->ack_seq;

	if (ack->wnd_end > tc->snd_wnd_end)
		tc->snd_wnd_end = ack->wnd_end;
	if (ack->wnd_end - ack_seq > tc->max_window)
		tc->max_window = (uint32_t)(ack->wnd_end - ack_seq);
	if (ack_seq > tc->snd_una) {
		uint64_t acked = ack_seq - tc->snd_una;
		struct skb *skb;

		tc->snd_una = ack_seq;
		if ((skb = tc->wq.head) != NULL && skb->sent && skb->seq + skb->len <= tc->snd_una)
			rtt_sample(sim, tc, sim->now - skb->sent_at); /* seq_rtt: the first skb it acks */
		while ((skb = tc->wq.head) != NULL && skb->sent && skb->seq + skb->len <= tc->snd_una) {
			skb_list_pop(&tc->wq);
			tc->wmem_queued -= skb->truesize;
			if (tc->tx_page_frags)
				skb_frag_release(sim, c, tc, skb->len);
			skb_free(sim, c, skb);
		}
		if (is_cwnd_limited(tc) && !tc->in_recovery) {
			tc->cc->cong_avoid(sim, tc, segs_of(tc, acked));
			tc->cwnd_limited = false;
		}
		/* tcp_new_space: a writer that ran out of space gets a bigger
		 * sndbuf unless the congestion window is full
		 * (tcp_should_expand_sndbuf) */
		if (tc->nospace && !tc->sndbuf_locked &&
		    (double)segs_of(tc, tc->snd_nxt - tc->snd_una) < tc->snd_cwnd) {
			int64_t per_seg = tc->mss_bytes + sim->sc->skb_overhead_bytes;
			double demanded = fmax(tc->snd_cwnd, sim->sc->reordering + 1);
			int64_t want = 2 * (int64_t)demanded * per_seg;
			if (want > tc->sndbuf)
				tc->sndbuf = min64(want, sim->sc->wmem_max);
		}
		if (tc->sndbuf - tc->wmem_queued >= tc->wmem_queued / 2) { /* sk_stream_write_space */
			tc->nospace = false;
			tcp_wake_writer(sim, c, tc);
		}
	}
	recovery_update(sim, tc, ack);
	if (ack_seq == tc->snd_una)
		sack_check(sim, c, tc, ack);
	skb_free(sim, c, ack);
	tcp_push(sim, c, tc, true); /* tcp_data_snd_check */
	check_conn(tc);
}

void tcp_rcv(struct sim *sim, struct cpu *c, struct skb *skb)
{
	if (skb->kind == SKB_DATA)
		rcv_data(sim, c, skb->conn, skb, false);
	else
		rcv_ack(sim, c, skb->conn, skb);
}

/* ------------------------------------------------------------------ */
/* socket ownership (tcp.h)                                            */

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
		skb_list_push(&tc->rx_backlog, skb);
		if (tc->receiver_waiting && tc->rx_backlog.len == 1) { /* tcp_prequeue: wake on the first */
			tc->receiver_waiting = false;
			sim->cnt.rcv_wakeups++;
			sched_wakeup(sim, c, tc->receiver, true);
		}
		return true;
	}
	/* FreeBSD's tcp_input takes the inpcb lock instead (the sender of the
	 * FreeBSD rows keeps its own model, app.c) */
	if (!tc->owner_backlog || !tc->sender->in_call || tc->sender_waiting)
		return false;
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
	if (!skb)
		return -1;
	cpu_charge(sim, c, COST_RX_TCP, c->host->cfg->cost_cycles[COST_RX_TCP]);
	/* the fast path's direct copy: the reader has read everything queued
	 * (copied_seq == rcv_nxt) and the frame fits in what recv() still
	 * wants; removed with the prequeue in 4.14 (ucopy) */
	len = skb->len;
	direct = skb->seq == tc->rcv_nxt && tc->copied_seq == tc->rcv_nxt && (int64_t)len <= room &&
		 !host_kernel_at_least(c->host, 4, 14);
	rcv_data(sim, c, tc, skb, direct);
	if (direct) {
		rcv_space_adjust(sim, tc);
		check_conn(tc);
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
		rcv_ack(sim, c, tc, skb);
	}
	if (tc->tsq_deferred) { /* tcp_release_cb -> tcp_tsq_write */
		tc->tsq_deferred = false;
		tcp_push(sim, c, tc, true);
	}
}

/* tcp_rcv_space_adjust: grow rcvbuf to twice what the application read in
 * one round trip (measured at most once per jiffy, as 3.x timestamps do). */
static void rcv_space_adjust(struct sim *sim, struct tcp_conn *tc)
{
	const struct scenario *sc = sim->sc;
	sim_ns interval = NS_PER_S / tc->rcv_host->cfg->hz;
	int64_t space;

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
				tc->window_clamp = win_from_space(tc, tc->rcvbuf);
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
		send_ack(sim, c, tc, &sim->cnt.acks_rbuf);
}

uint32_t tcp_recv_copy(struct sim *sim, struct cpu *c, struct tcp_conn *tc, uint32_t max)
{
	struct skb *skb = tc->rq.head;
	uint32_t n;

	if (!skb)
		return 0;
	n = skb->len - skb->consumed;
	if (n > max)
		n = max;
	skb->consumed += n;
	tc->copied_seq += n;
	sim->cnt.app_bytes += n;
	if (skb->consumed == skb->len) {
		skb_list_pop(&tc->rq);
		tc->rmem_alloc -= skb->truesize;
		skb_free_received(sim, c, skb);
	}
	rcv_space_adjust(sim, tc);
	check_conn(tc);
	return n;
}

void tcp_recv_done(struct sim *sim, struct cpu *c, struct tcp_conn *tc, int64_t copied)
{
	cleanup_rbuf(sim, c, tc, copied > UINT32_MAX ? UINT32_MAX : (uint32_t)copied);
	check_conn(tc);
}

/* ------------------------------------------------------------------ */
/* FreeBSD tcp_output, for app.sendfile = freebsd-* (the NIC path's     */
/* sender; app.c is its only caller)                                   */

/*
 * FreeBSD 6/7 tcp_output (sys/netinet/tcp_output.c) sends at once every
 * whole MSS the windows allow -- with TSO as one frame, its length rounded
 * down to whole segments unless that empties the socket buffer -- and
 * holds back only a sub-MSS remainder while data is in flight.  Linux lets
 * a partial tail grow to the size goal first (tcp_push's Nagle/TSO
 * deferral above).  So: split the unsent tail at its last whole MSS and
 * push; the head goes, the remainder waits for more data or the ACKs.
 */
void tcp_push_whole_mss(struct sim *sim, struct cpu *c, struct tcp_conn *tc)
{
	struct skb *tail = tc->wq.tail;
	uint32_t mss = (uint32_t)tc->mss_bytes;
	bool short_tail;

	/* split only when nothing queued before it waits for the window:
	 * FreeBSD cuts frames from the byte stream when it sends them */
	if (tail && !tail->sent && tail == tc->send_head && tail->len > mss) {
		uint32_t whole = tail->len / mss * mss;
		if (whole == tail->len)
			whole -= mss; /* a full last segment stays the tail; it is not short */
		split_skb(sim, c, tc, tail, whole);
	}
	/* the sub-MSS remainder goes only when nothing is in flight: FreeBSD's
	 * Nagle test has no Minshall variant */
	tail = tc->wq.tail;
	short_tail = tail && !tail->sent && tail->len < mss;
	tcp_push(sim, c, tc, !short_tail || tc->snd_nxt == tc->snd_una);
}
