/*
 * tcp_output.c: the sender's output path, after Linux's net/ipv4/tcp.c
 * (tcp_sendmsg's append) and tcp_output.c, 3.6 unless noted:
 *  - size goal: tcp_xmit_size_goal and tcp_bound_to_half_wnd.
 *  - Nagle with Minshall's variant, TSO deferral (tcp_tso_should_defer),
 *    cwnd validation (tcp_cwnd_validate, 4.3+).
 *  - internal pacing (4.13+; EDT 4.20+): tcp_pacing_check, tcp_pace_kick.
 *  - TSO autosizing (3.12+; by min_rtt 5.18+): tcp_tso_autosize, tcp_tso_segs.
 *  - TCP Small Queues (3.6+): tcp_small_queue_check, tcp_wfree and the
 *    TSQ tasklet (tcp_tsq_handler).
 *  - the delivery-rate sample's send side (tcp_rate_skb_sent, 4.9+).
 */
#include "tcp_impl.h"

/* ------------------------------------------------------------------ */
/* sending                                                             */

/* tcp_current_mss's size goal, from max_window as it is now; kept in the
 * connection (tcp.h: goal_window) until max_window moves. */
static int current_size_goal(struct tcp_conn *tc)
{
	int64_t goal = tc->size_goal_bytes, cutoff;

	if (tc->goal_window == tc->max_window && tc->goal_now_bytes > 0)
		return tc->goal_now_bytes;
	cutoff = tc->max_window > TCP_MSS_DEFAULT ? tc->max_window / 2 : tc->max_window;
	if (cutoff > 0 && goal > cutoff)
		goal = cutoff;
	goal = goal / tc->mss_bytes * tc->mss_bytes;
	tc->goal_window = tc->max_window;
	tc->goal_now_bytes = (int)(goal < tc->mss_bytes ? tc->mss_bytes : goal);
	return tc->goal_now_bytes;
}

uint32_t tcp_send_append(struct sim *sim, struct cpu *c, struct tcp_conn *tc, uint32_t bytes, bool zerocopy)
{
	struct skb *tail = tc->wq.tail;
	int goal = current_size_goal(tc);
	uint32_t n;

	(void)zerocopy;
	tcp_sock_touch(sim, c, tc, 0);
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
	INVARIANT(tail != tc->send_head || tc->send_head_len == 0, "conn %d: send_head_len %u kept for the tail",
		  tc->id, tc->send_head_len);
	tail->len += n;
	tail->truesize += (int)n;
	tail->psh = false; /* tcp_sendmsg_locked: PSH cleared where a write's data goes on */
	tc->wmem_queued += n;
	tc->write_seq += n;
	if (tail->len >= (uint32_t)goal)
		tcp_push(sim, c, tc, false); /* tcp_push_one: a full frame goes now */
	return n;
}

/* Split skb so that it holds `len` bytes; the rest becomes a new unsent skb
 * right after it (tso_fragment). */
void tcp_split_skb(struct sim *sim, struct cpu *c, struct tcp_conn *tc, struct skb *skb, uint32_t len)
{
	struct skb *rest = skb_alloc(sim, c, SKB_DATA);
	uint32_t moved = skb->len - len;

	rest->conn = tc;
	rest->dst_host = skb->dst_host;
	rest->seq = skb->seq + len;
	rest->len = moved;
	rest->truesize += (int)moved;
	rest->psh = skb->psh; /* PSH (and FIN) only in the second part */
	skb->psh = false;
	skb->len = len;
	if (skb == tc->send_head)
		tc->send_head_len = len;
	skb->truesize -= (int)moved;
	tc->wmem_queued += sim->sc->skb_overhead_bytes;
	rest->next = skb->next;
	skb->next = rest;
	if (tc->wq.tail == skb)
		tc->wq.tail = rest;
	tc->wq.len++;
}

uint32_t tcp_segs_of(const struct tcp_conn *tc, uint64_t bytes)
{
	return (uint32_t)((bytes + (uint64_t)tc->mss_bytes - 1) / (uint64_t)tc->mss_bytes);
}

/* sk_pacing_rate in bytes/s: 0 (no estimate yet) is ~0U, unlimited, as
 * sock_init_data leaves it; SO_MAX_PACING_RATE caps it from 3.13. */
static double pacing_rate_Bps(const struct tcp_conn *tc)
{
	return tc->pacing_Bps > 0 ? tc->pacing_Bps : 1e300;
}

/*
 * TSO autosizing (tcp_tso_segs, tcp_tso_autosize): the most segments one
 * frame may carry, so that a flow sends a frame about every millisecond
 * of its pacing rate instead of a 64 KB burst every 100 ms.
 *   3.12 - 3.19 (tcp_xmit_size_goal): sk_pacing_rate / 2000 bytes;
 *   4.0 - 5.17: sk_pacing_rate >> sk_pacing_shift (10: ~1 ms);
 *   5.18 -     : plus gso_max_size >> (min_rtt_us >> tcp_tso_rtt_log), so
 *                a flow of min_rtt below 512 us (tso_rtt_log 9) gets full
 *                frames whatever its rate (commit 65466904b015);
 * at most the socket's sk_gso_max_size, the device's gso_max_size less
 * MAX_TCP_HEADER + 1 (tcp_tso_autosize in every era; from 5.19 sk_setup_caps
 * subtracts it), at least min_tso_segs (tcp.min_tso_segs, 2, or
 * the algorithm's: bbr_min_tso_segs).  The model applies the cap where
 * tcp_write_xmit does since 4.0 (the frame, not the skb it is cut from;
 * in 3.12-3.19 it was the skb's size goal: the frames are the same).
 * Before 3.12 there is no cap.
 */
uint32_t tcp_tso_segs(const struct tcp_conn *tc)
{
	const struct scenario *sc = tc->sim->sc;
	double rate = pacing_rate_Bps(tc), bytes;
	int64_t gso = (int64_t)sc->gso_max_bytes - 1 - MAX_TCP_HEADER_BYTES;
	uint32_t min_segs, segs;

	if (!host_kernel_at_least(tc->snd_host, 3, 12))
		return UINT32_MAX;
	min_segs = tc->cc->min_tso_segs ? tc->cc->min_tso_segs(tc) : (uint32_t)sc->min_tso_segs;
	if (!host_kernel_at_least(tc->snd_host, 4, 0)) {
		bytes = rate / 2000.0;
	} else {
		bytes = rate / 1024.0; /* >> sk_pacing_shift */
		if (host_kernel_at_least(tc->snd_host, 5, 18)) {
			int64_t r = (tc->min_rtt_ns > 0 ? tc->min_rtt_ns : 0) / NS_PER_US >> sc->tso_rtt_log;
			if (r < 32) /* BITS_PER_TYPE(sk_gso_max_size) */
				bytes += (double)(gso >> r);
		}
	}
	if (bytes > (double)gso)
		bytes = (double)gso;
	segs = (uint32_t)(bytes / tc->mss_bytes);
	return segs < min_segs ? min_segs : segs;
}

/*
 * TCP Small Queues (tcp_small_queue_check; 3.6, commit 46d3ceabd8d9): a
 * socket stops sending while more than `limit` bytes of its skbs sit in
 * the qdisc or the device, and the TX completion that frees one
 * (tcp_wfree) restarts it through the TSQ tasklet.  The limit:
 *   3.6 - 3.11: tcp_limit_output_bytes;
 *   3.12 -    : max(2 truesize, sk_pacing_rate >> 10), at most
 *               tcp_limit_output_bytes -- except, 5.0 - 6.15, for a
 *               socket that paces (c73e5807e4f6; restored by c4221a8cc3a7).
 * tcp_limit_output_bytes' default: 128 KB, 256 KB from 4.2 (c39c4c6abb89),
 * 1 MB from 5.0 (c73e5807e4f6), 4 MB from 6.16 (9ea3bfa61b09).  Loopback
 * and veth orphan the skb at transmit (skb_orphan), so only a NIC holds
 * it.  A socket with nothing in flight always sends (the skb is the write
 * queue's head; 4.15+: the rtx queue is empty), and since 6.6 one with a
 * single skb in flight too (tcp_rtx_queue_empty_or_single_skb).
 */
static int64_t tsq_limit(const struct tcp_conn *tc, const struct skb *skb)
{
	const struct host *h = tc->snd_host;
	int64_t lob = tc->sim->sc->limit_output_bytes, limit;

	if (lob == 0)
		lob = host_kernel_at_least(h, 6, 16)  ? 4 << 20
		      : host_kernel_at_least(h, 5, 0) ? 1 << 20
		      : host_kernel_at_least(h, 4, 2) ? 256 << 10
						      : 128 << 10;
	if (!host_kernel_at_least(h, 3, 12))
		return lob;
	limit = (int64_t)fmin(fmax(2.0 * skb->truesize, pacing_rate_Bps(tc) / 1024.0), 1e15);
	if (!tc->pacing_needed || !host_kernel_at_least(h, 5, 0) || host_kernel_at_least(h, 6, 16))
		limit = min64(limit, lob);
	return limit;
}

static bool tsq_holds(const struct tcp_conn *tc, const struct skb *skb)
{
	const struct skb *head = tc->wq.head;

	/* nothing of the socket's in the qdisc or device (always so on lo and
	 * veth, which orphan at transmit) is within any limit, which is never
	 * below 0: no need to work it out */
	if (tc->tsq_bytes <= 0 || !host_kernel_at_least(tc->snd_host, 3, 6) || tc->snd_nxt == tc->snd_una)
		return false;
	if (host_kernel_at_least(tc->snd_host, 6, 6) && head && head->sent && (!head->next || !head->next->sent))
		return false;
	if (tc->tsq_bytes <= tsq_limit(tc, skb))
		return false;
	tc->sim->cnt.tsq_throttles++;
	return true;
}

/* tcp_wfree: the device freed (or orphaned) a sent skb.  A throttled
 * socket is restarted by the TSQ tasklet (tcp_tasklet_func ->
 * tcp_tsq_handler), run here in the softirq that freed it (TASKLET_SOFTIRQ
 * follows NET_RX in the same __do_softirq; its own cost is not modelled). */
static void tcp_wfree(struct sim *sim, struct cpu *c, struct skb *skb)
{
	struct tcp_conn *tc = skb->conn;

	tc->tsq_bytes -= skb->truesize;
	INVARIANT(tc->tsq_bytes >= 0, "conn %d: sk_wmem_alloc below zero", tc->id);
	if (tc->tsq_throttled && c) {
		tc->tsq_throttled = false;
		tcp_tsq_handler(sim, c, tc);
	}
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
static bool tail_waits(const struct tcp_conn *tc, uint32_t len, int64_t quota, int64_t wnd_left)
{
	int64_t limit, chunk, full;

	if (len <= (uint32_t)tc->mss_bytes)
		return len < (uint32_t)tc->mss_bytes && nagle_holds(tc);
	limit = min64(wnd_left, quota * tc->mss_bytes);
	/* a full frame can go: sk_gso_max_size in 3.x, max_segs * mss since
	 * autosizing moved to transmit (4.0) */
	full = host_kernel_at_least(tc->snd_host, 4, 0) ? (int64_t)tcp_tso_segs(tc) * tc->mss_bytes
							 : tc->sim->sc->gso_max_bytes;
	if (limit >= full)
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
	if (!tc->pacing_needed || !host_kernel_at_least(tc->snd_host, 4, 13) || tc->wstamp_ns <= sim->now)
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
	if (tc->pacing_fq) /* skb->skb_mstamp_ns: sch_fq holds the frame until then */
		((struct skb *)skb)->tstamp = tc->wstamp_ns;
	if ((tc->pacing_needed || tc->pacing_fq) && tc->pacing_Bps > 0 && tc->segs_out >= 10) {
		double wire = (double)skb->len + (double)skb->segs * seg_hdr_bytes(sim->sc->timestamps);
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
void tcp_rtt_sample(struct sim *sim, struct tcp_conn *tc, sim_ns rtt_ns)
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
	if (tc->min_rtt_ns == 0 || rtt_ns < tc->min_rtt_ns) /* tcp_update_rtt_min (300 s window: the run) */
		tc->min_rtt_ns = rtt_ns > 0 ? rtt_ns : 1;
	if (tc->cc->cong_control)
		return; /* the algorithm sets the pacing rate (bbr_set_pacing_rate) */
	cwnd = fmax(tc->snd_cwnd, (double)tcp_segs_of(tc, tc->snd_nxt - tc->snd_una));
	ratio = tc->snd_cwnd < tc->snd_ssthresh / 2 ? sim->sc->pacing_ss_ratio : sim->sc->pacing_ca_ratio;
	tc->pacing_Bps = (double)tc->mss_bytes * ratio / 100.0 * cwnd * 8e6 / (double)tc->srtt_us8;
	tcp_cap_pacing_rate(tc);
}

/* sk_pacing_rate = min(rate, sk_max_pacing_rate): SO_MAX_PACING_RATE, 3.13+ */
void tcp_cap_pacing_rate(struct tcp_conn *tc)
{
	double max_Bps = tc->sim->sc->max_pacing_bps / 8.0;

	if (max_Bps > 0 && host_kernel_at_least(tc->snd_host, 3, 13) && (tc->pacing_Bps <= 0 || tc->pacing_Bps > max_Bps))
		tc->pacing_Bps = max_Bps;
}

/* tcp_cwnd_validate: the most segments in flight over the last window. */
static void cwnd_validate(struct tcp_conn *tc)
{
	uint32_t out = tcp_segs_of(tc, tc->snd_nxt - tc->snd_una);
	if (tc->snd_una >= tc->max_packets_seq || out > tc->max_packets_out) {
		tc->max_packets_out = out;
		tc->max_packets_seq = tc->snd_nxt;
	}
}

/* tcp_cwnd_validate since 6.0 (f4ce91ce12a7, "tcp: fix tcp_cwnd_validate()
 * to not forget is_cwnd_limited"), once per tcp_write_xmit that sent or
 * was stopped by cwnd: a window in which a transmit was cwnd-limited stays
 * so until snd_una passes its right edge (cwnd_usage_seq, here
 * max_packets_seq), so every ACK of that window may grow cwnd; a window
 * that was not keeps the most segments it had in flight.  Before 6.0 the
 * model keeps its own rule: the limit seen by the last transmits, cleared
 * by each ACK's cong_avoid. */
static void cwnd_validate_60(struct tcp_conn *tc, bool is_cwnd_limited)
{
	uint32_t out = tcp_segs_of(tc, tc->snd_nxt - tc->snd_una);
	if (tc->snd_una >= tc->max_packets_seq || is_cwnd_limited || (!tc->cwnd_limited && out > tc->max_packets_out)) {
		tc->cwnd_limited = is_cwnd_limited;
		tc->max_packets_out = out;
		tc->max_packets_seq = tc->snd_nxt;
	}
}

/* tcp_is_cwnd_limited: the window stopped a full frame, or (since 4.3,
 * commit ca8a22634381) in slow start cwnd is below twice the most
 * segments in flight in the last window, so an application-limited
 * sender's cwnd still doubles up to that. */
bool tcp_is_cwnd_limited(const struct tcp_conn *tc)
{
	if (tc->cwnd_limited)
		return true;
	return host_kernel_at_least(tc->snd_host, 4, 3) && tc->snd_cwnd < tc->snd_ssthresh &&
	       tc->snd_cwnd < 2.0 * tc->max_packets_out;
}

void tcp_pace_kick(struct sim *sim, struct cpu *c, struct tcp_conn *tc)
{
	tc->pace_armed = false;
	tcp_tsq_handler(sim, c, tc);
}

void tcp_tsq_handler(struct sim *sim, struct cpu *c, struct tcp_conn *tc)
{
	/* a writer inside send() owns the socket: tcp_release_cb sends */
	if (tc->sender->in_call && !tc->sender_waiting) {
		tc->tsq_deferred = true;
		return;
	}
	tcp_push(sim, c, tc, true);
}

/* tcp_rate_skb_sent: the delivery state a later ACK of skb measures from,
 * at the skb's departure time tx_ns. */
static void rate_skb_sent(struct tcp_conn *tc, struct skb *skb, sim_ns tx_ns)
{
	if (tc->snd_nxt == tc->snd_una) { /* nothing in flight: a new flight starts */
		tc->first_tx_at = tx_ns;
		tc->delivered_at = tx_ns;
	}
	skb->tx_first_at = tc->first_tx_at;
	skb->tx_delivered_at = tc->delivered_at;
	skb->tx_delivered = tc->delivered;
	skb->tx_app_limited = tc->app_limited != 0;
}

void tcp_push_sendmsg(struct sim *sim, struct cpu *c, struct tcp_conn *tc, bool more)
{
	struct skb *tail = tc->wq.tail;

	if (!more && tail && !tail->sent)
		tail->psh = true; /* tcp_mark_push: the unsent tail ends the write */

	if (host_kernel_at_least(tc->snd_host, 3, 14) && tail && !tail->sent && tail == tc->send_head &&
	    tail->len < (uint32_t)current_size_goal(tc) && tc->snd_nxt > tc->snd_una && tc->tsq_bytes > 0) {
		if (!tc->tsq_throttled)
			sim->cnt.autocorks++;
		tc->tsq_throttled = true;
		return;
	}
	tcp_push(sim, c, tc, true);
}

/* tcp_chrono_set: close the running interval and start `type`'s. */
static void chrono_set(struct tcp_conn *tc, sim_ns now, enum tcp_chrono_type type)
{
	if (type == tc->chrono)
		return;
	if (tc->chrono != CHRONO_IDLE)
		tc->chrono_ns[tc->chrono - CHRONO_BUSY] += now - tc->chrono_start;
	tc->chrono = type;
	tc->chrono_start = now;
}

/* The chrono after a transmit attempt or an ACK: idle once nothing is
 * unsent or unacked (tcp_chrono_stop with both queues empty), rwnd-limited
 * while the last tcp_write_xmit was stopped by the receiver's window,
 * busy otherwise. */
void tcp_chrono_update(struct tcp_conn *tc, sim_ns now)
{
	if (tc->write_seq == tc->snd_una)
		chrono_set(tc, now, CHRONO_IDLE);
	else
		chrono_set(tc, now, tc->rwnd_stop ? CHRONO_RWND : CHRONO_BUSY);
}

/* The chrono's totals up to now (tcp_get_info_chrono_stats). */
void tcp_chrono_read(const struct tcp_conn *tc, sim_ns now, sim_ns *busy, sim_ns *rwnd)
{
	*busy = tc->chrono_ns[0] + tc->chrono_ns[1];
	*rwnd = tc->chrono_ns[CHRONO_RWND - CHRONO_BUSY];
	if (tc->chrono != CHRONO_IDLE) {
		*busy += now - tc->chrono_start;
		if (tc->chrono == CHRONO_RWND)
			*rwnd += now - tc->chrono_start;
	}
}

/* send_head's len without its skb where the connection knows it: the
 * tail ends at write_seq; another's is the connection's copy (tcp.h),
 * read from the skb when there is none, so of the pushes that stop for
 * the windows after send_head moves only the first reads its line. */
static uint32_t send_head_len(struct tcp_conn *tc)
{
	if (tc->send_head == tc->wq.tail)
		return (uint32_t)(tc->write_seq - tc->snd_nxt);
	if (tc->send_head_len == 0)
		tc->send_head_len = tc->send_head->len;
	return tc->send_head_len;
}

/* The pages a stream's bytes [seq, seq + len) span, pages of `page`
 * bytes from the stream's start: an unsent skb's frags, its bytes being
 * contiguous in them (sendfile's file pages, iperf3's blocks page-aligned;
 * the socket's 32 KB page frags). */
static int tx_pages(uint64_t seq, uint32_t len, uint64_t page)
{
	return len ? (int)((seq + len - 1) / page - seq / page + 1) : 0;
}

/*
 * tcp_grow_skb (6.10+, 8ee602c63520 "tcp: try to send bigger TSO packets"):
 * before tcp_write_xmit sends its head skb, up to `amount` bytes of the next
 * unsent skb move into it (skb_shift of the page frags), and a next skb left
 * empty is freed (tcp_eat_one_skb).  amount fills the skb to the frame's
 * allowance, min(cwnd quota, max_segs) MSS: it merges the short skbs a
 * window-limited sender's splits leave, and where max_segs (tcp_tso_segs)
 * allows more than sendmsg's size goal -- at MTU 65536, min_tso_segs' two
 * segments of 65,483 bytes where the goal is one -- it makes frames of
 * gso_max_size or more, which the stack cuts in software before the
 * device (netdev_sw_gso).  skb_shift moves all of it or nothing: it fails
 * when the frags it would take pass MAX_SKB_FRAGS (a first frag that
 * continues the skb's last page merges into it).  sendfile's skbs hold
 * the file's 4 KB pages, 16 or 17 to a 64 KB skb, so a full one takes no
 * more than a short rest; copied data sits in 32 KB page frags, where the
 * limit binds only past 17 of them, 544 KB (tx_pages).
 */
static void grow_skb(struct sim *sim, struct cpu *c, struct tcp_conn *tc, struct skb *skb, int64_t amount)
{
	struct skb *next = skb->next;
	uint32_t n = (int64_t)next->len < amount ? next->len : (uint32_t)amount;
	uint64_t page = tc->tx_page_frags ? 32768 : 4096, end = skb->seq + skb->len;
	int to = tx_pages(skb->seq, skb->len, page);

	if (to + tx_pages(next->seq, n, page) - ((end - 1) / page == next->seq / page) > MAX_SKB_FRAGS)
		return; /* skb_shift: to == MAX_SKB_FRAGS */

	skb->len += n;
	skb->truesize += (int)n;
	next->seq += n;
	next->len -= n;
	next->truesize -= (int)n;
	if (next->len == 0) {
		skb->psh |= next->psh; /* tcp_eat_one_skb: the flags of the skb eaten */
		skb->next = next->next;
		if (tc->wq.tail == next)
			tc->wq.tail = skb;
		tc->wq.len--;
		tc->wmem_queued -= next->truesize;
		skb_free(sim, c, next);
	}
	tc->send_head_len = skb == tc->wq.tail ? 0 : skb->len;
}

void tcp_push(struct sim *sim, struct cpu *c, struct tcp_conn *tc, bool push_tail)
{
	struct skb *skb;
	bool rwnd_stop = false;
	/* 6.0+: tcp_write_xmit's is_cwnd_limited, for cwnd_validate_60;
	 * before, the limit is the connection's own (cleared by the next ACK) */
	bool latch = host_kernel_at_least(tc->snd_host, 6, 0), is_cwnd_limited = false, sent = false;
	bool *limited = latch ? &is_cwnd_limited : &tc->cwnd_limited;

	while ((skb = tc->send_head) != NULL) {
		if (pacing_check(sim, c, tc))
			break;
		int64_t in_flight = (int64_t)tcp_segs_of(tc, tc->snd_nxt - tc->snd_una);
		int64_t quota = (int64_t)tc->snd_cwnd - in_flight;
		/* send_head starts at snd_nxt; the exits up to the split read
		 * the connection, not the skb (tcp.h: send_head_len) */
		int64_t wnd_left = (int64_t)tc->snd_wnd_end - (int64_t)tc->snd_nxt;
		int64_t limit;
		bool is_tail = skb == tc->wq.tail;
		uint32_t len;
		struct skb *clone;
		sim_ns tx_ns;

		/* tcp_is_cwnd_limited: the window, not the application, stops a
		 * full-size frame */
		if (quota * tc->mss_bytes < current_size_goal(tc))
			*limited = true;
		if (quota <= 0)
			break;
		/* TSO autosizing (tcp_tso_segs): at most max_segs per frame */
		int64_t max_segs = (int64_t)min64(tcp_tso_segs(tc), INT32_MAX);
		if (!is_tail && host_kernel_at_least(tc->snd_host, 6, 10)) {
			int64_t want = min64(quota, max_segs) * tc->mss_bytes - (int64_t)send_head_len(tc);
			if (want > 0) {
				grow_skb(sim, c, tc, skb, want);
				is_tail = skb == tc->wq.tail;
			}
		}
		/* a short tail: mid-call it waits for the rest of the call's data
		 * (only full frames go, tcp_push_one); at the end of the call
		 * Nagle or TSO deferral decide */
		if (is_tail && send_head_len(tc) < (uint32_t)current_size_goal(tc) &&
		    (!push_tail || tail_waits(tc, send_head_len(tc), quota, wnd_left))) {
			/* a deferral the window decides counts as rwnd-limited
			 * (4.20+, 41727549de3e) */
			rwnd_stop = push_tail && wnd_left < quota * tc->mss_bytes && wnd_left <= (int64_t)send_head_len(tc);
			break;
		}
		if (wnd_left <= 0) {
			rwnd_stop = true;
			break;
		}
		if (tsq_holds(tc, skb)) { /* tcp_small_queue_check */
			tc->tsq_throttled = true;
			break;
		}
		len = send_head_len(tc);
		limit = min64(min64(min64(len, quota * tc->mss_bytes), wnd_left), max_segs * tc->mss_bytes);
		/* tcp_mss_split_point: the tail's short last segment may wait */
		if (is_tail && limit == (int64_t)len && limit > tc->mss_bytes && limit % tc->mss_bytes &&
		    nagle_holds(tc))
			limit = limit / tc->mss_bytes * tc->mss_bytes;
		if (limit < (int64_t)len) {
			if (limit >= tc->mss_bytes)
				limit = limit / tc->mss_bytes * tc->mss_bytes;
			else if (tc->snd_nxt > tc->snd_una) {
				rwnd_stop = limit == wnd_left;
				break; /* less than one MSS of window: wait for ACKs (sender SWS avoidance) */
			}
			if (limit == quota * tc->mss_bytes && limit < wnd_left)
				*limited = true;
		}
		/* it sends: what the connection said of the skb is the skb's */
		INVARIANT(skb->seq == tc->snd_nxt && skb->len == len && (skb->next == NULL) == is_tail,
			  "conn %d: send_head seq %llu len %u, snd_nxt %llu send_head_len %u", tc->id,
			  (unsigned long long)skb->seq, skb->len, (unsigned long long)tc->snd_nxt, len);
		if (limit < (int64_t)len)
			tcp_split_skb(sim, c, tc, skb, (uint32_t)limit);
		/* the skb's time (skb_mstamp_ns) is its departure: for a socket
		 * sch_fq paces, the EDT it leaves the qdisc at, so RTT and
		 * delivery-rate samples leave out the pacing wait */
		tx_ns = tc->pacing_fq && tc->wstamp_ns > sim->now ? tc->wstamp_ns : sim->now;
		rate_skb_sent(tc, skb, tx_ns);
		skb->sent = true;
		skb->sent_at = tx_ns;
		tc->snd_nxt = skb->seq + skb->len;
		if (skb->len % (uint32_t)tc->mss_bytes)
			tc->snd_sml = tc->snd_nxt; /* tcp_minshall_update */
		tc->send_head = skb->next;
		tc->send_head_len = 0;
		skb_prefetch(tc->send_head); /* the next ACK's push sends it */
		/* __skb_clone reads the original's header and takes its dataref;
		 * the clone, a copy made here, is this CPU's too (its line_cpu) */
		skb_touch(sim, c, skb);
		clone = skb_clone(sim, skb);
		clone->ts_at = tc->ts_recent_at; /* TSecr: the receiver's newest TSval */
		clone->segs = (uint16_t)tcp_segs_of(tc, skb->len);
		clone->gso_size = clone->segs > 1 ? (uint32_t)tc->mss_bytes : 0; /* skb_shinfo()->gso_size */
		clone->ect = tc->ect;
		if (host_kernel_at_least(tc->snd_host, 3, 6)) { /* skb_set_owner_w(skb, sk), tcp_wfree */
			clone->destructor = tcp_wfree;
			tc->tsq_bytes += clone->truesize;
		}
		sim->cnt.data_frames++;
		sim->cnt.data_segs += clone->segs;
		pacing_after_send(sim, tc, clone);
		if (!latch)
			cwnd_validate(tc);
		sent = true;
		sim->dev->xmit(sim, c, clone);
	}
	if (latch) {
		if ((double)tcp_segs_of(tc, tc->snd_nxt - tc->snd_una) >= tc->snd_cwnd)
			is_cwnd_limited = true;
		if (sent || is_cwnd_limited)
			cwnd_validate_60(tc, is_cwnd_limited);
	}
	/* tcp_rate_check_app_limited: the writer left the window unfilled */
	if (!tc->send_head && (double)tcp_segs_of(tc, tc->snd_nxt - tc->snd_una) < tc->snd_cwnd)
		tc->app_limited = tc->delivered + tcp_segs_of(tc, tc->snd_nxt - tc->snd_una) + 1;
	tc->rwnd_stop = rwnd_stop;
	tcp_chrono_update(tc, sim->now);
}
