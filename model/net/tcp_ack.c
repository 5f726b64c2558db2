/*
 * tcp_ack.c: the receiver's ACK policy, after Linux 3.6:
 *  - window selection: __tcp_select_window, tcp_select_window
 *    (tcp_output.c); tcp_win_from_space with tcp_adv_win_scale, or since
 *    6.6 the measured scaling_ratio (tcp.c).
 *  - when an ACK goes: __tcp_ack_snd_check, quickack (TCP_MAX_QUICKACKS =
 *    16), tcp_send_ack (tcp_output.c), tcp_delack_timer (tcp_timer.c).
 */
#include "tcp_impl.h"

/* ------------------------------------------------------------------ */
/* receiving                                                           */

uint32_t tcp_select_window_now(const struct tcp_conn *tc)
{
	int64_t mss = tc->rcv_mss;
	int64_t free_space = tcp_space(tc);
	int64_t full_space = min64(tc->window_clamp, tcp_win_from_space(tc, tc->rcvbuf));
	int64_t window;

	if (mss > full_space)
		mss = full_space;
	if (free_space < full_space / 2) {
		if (free_space < mss)
			return 0;
		/* a window scaled away (1 << rcv_wscale) never opens by less
		 * than a unit, and none below 1/16 of the buffer's whole window
		 * (tcp_full_space) opens at all: a reader behind its data frees
		 * the window in steps of that size, and each window update ACK
		 * lets the sender send one such step (present in 3.18, not in
		 * 3.6; the model from 4.0, with the scaled window below) */
		if (host_kernel_at_least(tc->rcv_host, 4, 0)) {
			int64_t unit = (int64_t)1 << tc->rcv_wscale;
			free_space = free_space / unit * unit;
			if (free_space < tcp_win_from_space(tc, tc->rcvbuf) / 16 || free_space < mss)
				return 0;
		}
	}
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

void tcp_send_ack(struct sim *sim, struct cpu *c, struct tcp_conn *tc, uint64_t *reason)
{
	(*reason)++;
	tcp_sock_touch(sim, c, tc, 1);
	struct skb *skb = skb_alloc(sim, c, SKB_ACK);
	int64_t cur_win = (int64_t)(tc->rcv_wup + tc->rcv_wnd) - (int64_t)tc->rcv_nxt;
	int64_t new_win = tcp_select_window_now(tc);

	cpu_charge(sim, c, COST_ACK_TX, c->host->cfg->cost_cycles[COST_ACK_TX]);
	if (new_win < cur_win)
		new_win = cur_win; /* never shrink the offered window */
	tc->rcv_wnd = (uint32_t)new_win;
	tc->rcv_wup = tc->rcv_nxt;
	skb->conn = tc;
	skb->ts_at = sim->now; /* its TSval */
	skb->tsecr_at = tc->rcv_ts_recent_at;
	skb->ack_seq = tc->rcv_nxt;
	skb->wnd_end = tc->rcv_nxt + (uint64_t)new_win;
	if (tc->ofo) /* the SACK blocks' reach; the queue is sorted by seq */
		skb->sack_lo = tc->ofo->seq;
	for (const struct skb *o = tc->ofo; o; o = o->next)
		if (o->seq + o->len > skb->sack_hi)
			skb->sack_hi = o->seq + o->len;
	skb->dsack = tc->dsack_pending;
	skb->ece_bytes = tc->ce_rcvd_bytes; /* ECE (DCTCP: how much was marked) */
	tc->ce_rcvd_bytes = 0;
	tc->dsack_pending = false;
	skb->dst_host = tc->snd_host;
	tc->ack_pending = false;
	tc->ack_pushed = 0; /* tcp_event_ack_sent -> inet_csk_clear_xmit_timer: icsk_ack.pending = 0 */
	evq_timer_cancel(&tc->delack_tm);
	if (tc->quick > 0)
		tc->quick--;
	sim->cnt.acks++;
	sim->dev->xmit(sim, c, skb);
}

void tcp_delack_fire(struct sim *sim, void *obj, uint64_t arg)
{
	struct tcp_conn *tc = obj;
	(void)arg;
	cpu_timer_fired(sim, tc->delack_cpu, tc);
}

void tcp_delack_timer(struct sim *sim, struct cpu *c, struct tcp_conn *tc)
{
	if (tc->ack_pending)
		tcp_send_ack(sim, c, tc, &sim->cnt.acks_delack);
}
