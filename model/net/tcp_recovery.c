/*
 * tcp_recovery.c: loss recovery, after Linux 3.6's tcp_input.c:
 * tcp_time_to_recover with FACK, tcp_update_scoreboard, tcp_retransmit_skb,
 * tcp_try_undo_recovery, tcp_try_undo_dsack, tcp_packet_delayed,
 * tcp_undo_cwr.  The reduction is the algorithm's ssthresh hook.
 */
#include "tcp_impl.h"

/* ------------------------------------------------------------------ */
/* loss recovery (tcp.h)                                               */

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
		r->segs = (uint16_t)tcp_segs_of(tc, n);
		r->gso_size = r->segs > 1 ? (uint32_t)tc->mss_bytes : 0;
		sim->cnt.retrans_segs += r->segs;
		sim->dev->xmit(sim, c, r);
		seq += n;
	}
}

/* tcp_time_to_recover with FACK: more than tcp_reordering segments from
 * snd_una to the highest SACKed byte.  Enter recovery, retransmit the
 * head of the hole, reduce the window. */
void tcp_sack_check(struct sim *sim, struct cpu *c, struct tcp_conn *tc, const struct skb *ack)
{
	uint32_t fackets, lost, hole_segs;
	uint64_t hole_end = ack->sack_lo;

	if (tc->ca_state == TCP_CA_RECOVERY || ack->sack_hi <= tc->snd_una)
		return;
	fackets = tcp_segs_of(tc, ack->sack_hi - tc->snd_una);
	if (fackets <= (uint32_t)sim->sc->reordering)
		return;
	/* the hole: from snd_una to the first byte the receiver holds */
	hole_segs = tcp_segs_of(tc, hole_end - tc->snd_una);
	lost = fackets - (uint32_t)sim->sc->reordering;
	if (lost > hole_segs)
		lost = hole_segs;
	if (lost < 1)
		lost = 1;
	sim->cnt.recoveries++;
	tc->ca_state = TCP_CA_RECOVERY;
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
	tc->snd_ssthresh = tc->cc->ssthresh(tc); /* the algorithm's reduction (tcp_reno.c, tcp_cubic.c) */
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
void tcp_recovery_update(struct sim *sim, struct tcp_conn *tc, const struct skb *ack)
{
	if (ack->dsack && tc->undo_marker && tc->undo_retrans > 0) {
		tc->undo_retrans--;
		if (tc->undo_retrans == 0 && tc->ca_state == TCP_CA_RECOVERY) /* tcp_try_undo_dsack */
			undo_reduction(sim, tc);
	}
	if (tc->ca_state == TCP_CA_RECOVERY && tc->snd_una >= tc->high_seq) {
		sim_ns jiffy = NS_PER_S / tc->snd_host->cfg->hz;
		tc->ca_state = TCP_CA_OPEN;
		if (tc->undo_marker &&
		    (tc->undo_retrans == 0 || (sim->sc->timestamps && tc->hole_sent_at / jiffy < tc->retrans_stamp / jiffy)))
			undo_reduction(sim, tc);
		tc->undo_marker = false; /* a D-SACK in the open state undoes nothing (3.6) */
	}
}
