/*
 * tcp_dctcp.c: DCTCP (RFC 8257; Linux's net/ipv4/tcp_dctcp.c, 3.18+).
 *
 * The flow is ECN-capable (TCP_CONG_NEEDS_ECN); the bottleneck marks CE
 * above a queue of K bytes (link.ecn_threshold, netdev_nic.c) and the
 * receiver echoes how much was marked (the ACK's ece_bytes: what DCTCP's
 * two-state ACK machine, dctcp_ece_ack_update, conveys exactly).  Once
 * per window of data (dctcp_update_alpha: when snd_una passes the
 * snd_nxt the window began at) the marked fraction F updates
 *
 *     alpha = (1 - g) alpha + g F,    g = 1/16 (dctcp_shift_g = 4),
 *
 * and an ECE reduces the window once per window (tcp_enter_cwr) to
 *
 *     ssthresh = cwnd (1 - alpha / 2)          (dctcp_ssthresh),
 *
 * so a window with every segment marked halves, one with few barely
 * shrinks.  alpha starts at 1 (dctcp_alpha_on_init = DCTCP_MAX_ALPHA).
 * Growth is Reno's (tcp_reno_cong_avoid).  Not modelled: the loss
 * clamp of alpha (dctcp_react_to_loss), the fallback to Reno without ECN.
 */
#include "tcp_impl.h"

#define DCTCP_G (1.0 / 16) /* 2^-dctcp_shift_g */

static void dctcp_init(struct tcp_conn *tc)
{
	struct tcp_dctcp_priv *ca = &tc->cc_priv.dctcp;

	ca->alpha = 1.0;
	ca->next_seq = tc->snd_nxt;
	ca->acked_segs = ca->ce_segs = 0;
}

/* dctcp_update_alpha, from dctcp_cwnd_event / in_ack_event */
static void dctcp_in_ack_event(struct sim *sim, struct tcp_conn *tc, uint32_t acked, uint32_t ce)
{
	struct tcp_dctcp_priv *ca = &tc->cc_priv.dctcp;
	(void)sim;

	ca->acked_segs += acked;
	ca->ce_segs += ce < acked ? ce : acked;
	if (tc->snd_una < ca->next_seq)
		return;
	if (ca->acked_segs > 0)
		ca->alpha = (1 - DCTCP_G) * ca->alpha + DCTCP_G * (double)ca->ce_segs / ca->acked_segs;
	ca->next_seq = tc->snd_nxt;
	ca->acked_segs = ca->ce_segs = 0;
}

static void dctcp_cong_avoid(struct sim *sim, struct tcp_conn *tc, uint32_t acked)
{
	bool ss;
	(void)sim;
	tcp_slow_start(tc, acked, &ss);
	if (!ss)
		tc->snd_cwnd += (double)acked / tc->snd_cwnd; /* tcp_reno_cong_avoid */
}

static double dctcp_ssthresh(struct tcp_conn *tc)
{
	return fmax(tc->snd_cwnd * (1 - tc->cc_priv.dctcp.alpha / 2), 2);
}

const struct tcp_cc_ops tcp_dctcp = {
	.name = "dctcp",
	.init = dctcp_init,
	.cong_avoid = dctcp_cong_avoid,
	.ssthresh = dctcp_ssthresh,
	.in_ack_event = dctcp_in_ack_event,
	.needs_ecn = true,
};
