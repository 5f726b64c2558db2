/*
 * tcp_output.c: the sender's output path, after Linux's net/ipv4/tcp.c
 * (tcp_sendmsg's append) and tcp_output.c, 3.6 unless noted:
 *  - size goal: tcp_xmit_size_goal and tcp_bound_to_half_wnd.
 *  - Nagle with Minshall's variant, TSO deferral (tcp_tso_should_defer),
 *    cwnd validation (tcp_cwnd_validate, 4.3+).
 *  - internal pacing (4.13+; EDT 4.20+): tcp_pacing_check, tcp_pace_kick.
 */
#include "tcp_impl.h"

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
void tcp_split_skb(struct sim *sim, struct cpu *c, struct tcp_conn *tc, struct skb *skb, uint32_t len)
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

uint32_t tcp_segs_of(const struct tcp_conn *tc, uint64_t bytes)
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
	cwnd = fmax(tc->snd_cwnd, (double)tcp_segs_of(tc, tc->snd_nxt - tc->snd_una));
	ratio = tc->snd_cwnd < tc->snd_ssthresh / 2 ? sim->sc->pacing_ss_ratio : sim->sc->pacing_ca_ratio;
	tc->pacing_Bps = (double)tc->mss_bytes * ratio / 100.0 * cwnd * 8e6 / (double)tc->srtt_us8;
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
		int64_t in_flight = (int64_t)tcp_segs_of(tc, tc->snd_nxt - tc->snd_una);
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
			tcp_split_skb(sim, c, tc, skb, (uint32_t)limit);
		}
		skb->sent = true;
		skb->sent_at = sim->now;
		tc->snd_nxt = skb->seq + skb->len;
		if (skb->len % (uint32_t)tc->mss_bytes)
			tc->snd_sml = tc->snd_nxt; /* tcp_minshall_update */
		tc->send_head = skb->next;
		clone = skb_clone(sim, skb);
		clone->segs = (uint16_t)tcp_segs_of(tc, skb->len);
		clone->gso_size = clone->segs > 1 ? (uint32_t)tc->mss_bytes : 0; /* skb_shinfo()->gso_size */
		sim->cnt.data_frames++;
		sim->cnt.data_segs += clone->segs;
		pacing_after_send(sim, tc, clone);
		cwnd_validate(tc);
		sim->dev->xmit(sim, c, clone);
	}
}
