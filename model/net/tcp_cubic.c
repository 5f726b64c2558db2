/*
 * tcp_cubic.c: CUBIC (RFC 8312; Linux's net/ipv4/tcp_cubic.c, without
 * HyStart and the TCP-friendly region).  The window follows
 * W(t) = C (t - K)^3 + W_max from the last reduction, K = cbrt(W_max (1 -
 * beta) / C), t in seconds from the epoch plus one RTT (here twice
 * link.delay); on a loss ssthresh = cwnd * 717/1024 (Linux's beta) and
 * W_max is the window it fell from, reduced further when the window was
 * already below the previous W_max (fast convergence).
 *
 * Two betas: K uses the RFC's 0.7, the reduction Linux's 717/1024, as the
 * model always has; making them one is a change of the model's outputs,
 * not of its layout.
 */
#include "tcp_impl.h"

#define CUBIC_C 0.4                      /* RFC 8312 section 5 */
#define CUBIC_BETA_K 0.7                 /* RFC 8312 beta_cubic, in K */
#define CUBIC_BETA_LOSS (717.0 / 1024.0) /* tcp_cubic.c: beta = 717 of BICTCP_BETA_SCALE */

/* The algorithm's state in tc->cc_priv.cubic: w_max (segments), k (s), the
 * epoch's start (-1: none; a new one starts at the next cong_avoid). */

static void cubic_init(struct tcp_conn *tc)
{
	tc->cc_priv.cubic.wmax = 0;
	tc->cc_priv.cubic.epoch = -1;
}

static void cubic_cong_avoid(struct sim *sim, struct tcp_conn *tc, uint32_t acked)
{
	struct tcp_cubic_priv *ca = &tc->cc_priv.cubic;
	double t, rtt_s, target;
	bool ss;

	tcp_slow_start(tc, acked, &ss);
	if (ss)
		return;
	if (ca->epoch < 0) {
		ca->epoch = sim->now;
		if (ca->wmax < tc->snd_cwnd)
			ca->wmax = tc->snd_cwnd;
		ca->k = cbrt(ca->wmax * (1 - CUBIC_BETA_K) / CUBIC_C);
	}
	rtt_s = (double)(2 * sim->sc->delay_ns) / 1e9;
	t = (double)(sim->now - ca->epoch) / 1e9 + rtt_s;
	target = CUBIC_C * pow(t - ca->k, 3) + ca->wmax; /* RFC 8312 eq. 1 */
	if (target > tc->snd_cwnd)
		tc->snd_cwnd += (target - tc->snd_cwnd) / tc->snd_cwnd * acked;
	else
		tc->snd_cwnd += 0.01 * acked / tc->snd_cwnd;
}

/* bictcp_recalc_ssthresh: the window it fell from (fast convergence), a
 * new epoch, and the reduced threshold. */
static double cubic_ssthresh(struct tcp_conn *tc)
{
	struct tcp_cubic_priv *ca = &tc->cc_priv.cubic;
	double ssthresh = fmax(tc->snd_cwnd * CUBIC_BETA_LOSS, 2);

	ca->wmax = tc->snd_cwnd < ca->wmax ? tc->snd_cwnd * (1 + CUBIC_BETA_LOSS) / 2 : tc->snd_cwnd;
	ca->epoch = -1;
	return ssthresh;
}

const struct tcp_cc_ops tcp_cubic = {
	.name = "cubic", .init = cubic_init, .cong_avoid = cubic_cong_avoid, .ssthresh = cubic_ssthresh};
