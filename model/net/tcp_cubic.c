/*
 * tcp_cubic.c: CUBIC (RFC 8312; Linux's net/ipv4/tcp_cubic.c).  The window follows
 * W(t) = C (t - K)^3 + W_max from the last reduction, K = cbrt(W_max (1 -
 * beta) / C), t in seconds from the epoch plus one RTT (here twice
 * link.delay); on a loss ssthresh = cwnd * 717/1024 (Linux's beta) and
 * W_max is the window it fell from, reduced further when the window was
 * already below the previous W_max (fast convergence).
 *
 * HyStart (hybrid slow start, Ha and Rhee 2008) on hosts of 5.6 and later,
 * as tcp_cubic.c has it since its microsecond clock (cff04e2da308,
 * ede656e84658): from cwnd 16 on, slow start ends (ssthresh = cwnd) when
 * the ACKs of one round keep coming, no more than 2 ms apart, for longer
 * than delay_min (plus hystart_ack_delay, the time 4 GSO frames take at the
 * pacing rate, at most 1 ms), halved unless the socket paces -- the ACK
 * train -- or when a round's smallest RTT of 8 samples exceeds delay_min
 * by clamp(delay_min / 8, 4 ms, 16 ms).  On loopback the train trips
 * within a few rounds, so the window stays small and the sender's sndbuf
 * (2 x cwnd skbs) with it.  Earlier kernels had a HyStart on a jiffies
 * clock, which the model leaves out.
 *
 * Two betas: K uses the RFC's 0.7, the reduction Linux's 717/1024, as the
 * model always has; making them one is a change of the model's outputs,
 * not of its layout.
 */
#include "tcp_impl.h"

#define CUBIC_C 0.4                      /* RFC 8312 section 5 */
#define CUBIC_BETA_K 0.7                 /* RFC 8312 beta_cubic, in K */
#define CUBIC_BETA_LOSS (717.0 / 1024.0) /* tcp_cubic.c: beta = 717 of BICTCP_BETA_SCALE */
#define CUBIC_BETA_SCALE 15.0            /* beta_scale = 8 * (1024 + 717) / 3 / (1024 - 717) */

/* The algorithm's state in tc->cc_priv.cubic: w_max (segments), k (s), the
 * epoch's start (-1: none; a new one starts at the next cong_avoid). */

#define HYSTART_LOW_WINDOW 16               /* hystart_low_window */
#define HYSTART_ACK_DELTA_NS (2 * NS_PER_MS) /* hystart_ack_delta_us */
#define HYSTART_MIN_SAMPLES 8
#define HYSTART_DELAY_MIN_NS (4 * NS_PER_MS)
#define HYSTART_DELAY_MAX_NS (16 * NS_PER_MS)

static void hystart_reset(const struct sim *sim, struct tcp_conn *tc)
{
	struct tcp_cubic_priv *ca = &tc->cc_priv.cubic;
	ca->round_start = ca->last_ack = sim->now;
	ca->end_seq = tc->snd_nxt;
	ca->curr_rtt = -1;
	ca->sample_cnt = 0;
}

static void cubic_init(struct tcp_conn *tc)
{
	tc->cc_priv.cubic.wmax = 0;
	tc->cc_priv.cubic.epoch = -1;
	tc->cc_priv.cubic.origin = tc->cc_priv.cubic.tcp_cwnd = tc->cc_priv.cubic.ack_cnt = 0;
	tc->cc_priv.cubic.found = false;
	tc->cc_priv.cubic.delay_min = 0;
	tc->cc_priv.cubic.round_start = tc->cc_priv.cubic.last_ack = 0;
	tc->cc_priv.cubic.end_seq = 0;
	tc->cc_priv.cubic.curr_rtt = -1;
	tc->cc_priv.cubic.sample_cnt = 0;
}

/* hystart_update */
static void hystart_update(struct sim *sim, struct tcp_conn *tc, sim_ns delay)
{
	struct tcp_cubic_priv *ca = &tc->cc_priv.cubic;

	if (tc->snd_una > ca->end_seq)
		hystart_reset(sim, tc);
	if (sim->now - ca->last_ack <= HYSTART_ACK_DELTA_NS) { /* the ACK train */
		sim_ns threshold = ca->delay_min, ack_delay = NS_PER_MS;
		ca->last_ack = sim->now;
		if (tc->pacing_Bps > 0) { /* hystart_ack_delay */
			double ns = (double)sim->sc->gso_max_bytes * 4 * 1e9 / tc->pacing_Bps;
			if (ns < (double)ack_delay)
				ack_delay = (sim_ns)ns;
		} else {
			ack_delay = 0;
		}
		threshold += ack_delay;
		if (!sim->sc->pacing) /* sk_pacing_status == SK_PACING_NONE */
			threshold >>= 1;
		if (sim->now - ca->round_start > threshold) {
			ca->found = true;
			tc->snd_ssthresh = tc->snd_cwnd;
		}
	}
	if (ca->curr_rtt < 0 || ca->curr_rtt > delay) /* the delay increase */
		ca->curr_rtt = delay;
	if (ca->sample_cnt < HYSTART_MIN_SAMPLES) {
		ca->sample_cnt++;
	} else {
		sim_ns th = ca->delay_min >> 3;
		th = th < HYSTART_DELAY_MIN_NS ? HYSTART_DELAY_MIN_NS : th > HYSTART_DELAY_MAX_NS ? HYSTART_DELAY_MAX_NS : th;
		if (ca->curr_rtt > ca->delay_min + th) {
			ca->found = true;
			tc->snd_ssthresh = tc->snd_cwnd;
		}
	}
}

/* cubictcp_acked */
static void cubic_pkts_acked(struct sim *sim, struct tcp_conn *tc, sim_ns rtt_ns)
{
	struct tcp_cubic_priv *ca = &tc->cc_priv.cubic;
	sim_ns delay = rtt_ns / NS_PER_US * NS_PER_US; /* the sample is in whole microseconds */

	if (!host_kernel_at_least(tc->snd_host, 5, 6) || rtt_ns < 0)
		return;
	/* no delay samples within a second of a reduction */
	if (ca->epoch >= 0 && sim->now - ca->epoch < NS_PER_S && ca->wmax > 0)
		return;
	if (delay < NS_PER_US)
		delay = NS_PER_US;
	if (ca->delay_min == 0 || ca->delay_min > delay)
		ca->delay_min = delay;
	if (!ca->found && tc->snd_cwnd < tc->snd_ssthresh && tc->snd_cwnd >= HYSTART_LOW_WINDOW) {
		if (ca->round_start == 0 && ca->end_seq == 0)
			hystart_reset(sim, tc);
		hystart_update(sim, tc, delay);
	}
}

static void cubic_cong_avoid(struct sim *sim, struct tcp_conn *tc, uint32_t acked)
{
	struct tcp_cubic_priv *ca = &tc->cc_priv.cubic;
	double t, rtt_s, target, inc;
	bool ss;

	tcp_slow_start(tc, acked, &ss);
	if (ss)
		return;
	if (ca->epoch < 0) {
		ca->epoch = sim->now;
		ca->ack_cnt = 0;
		ca->tcp_cwnd = tc->snd_cwnd;
		if (ca->wmax <= tc->snd_cwnd) {
			/* bictcp_update: no reduction to recover from (or above
			 * it already): K = 0, the curve starts at cwnd */
			ca->k = 0;
			ca->origin = tc->snd_cwnd;
		} else {
			ca->k = cbrt(ca->wmax * (1 - CUBIC_BETA_K) / CUBIC_C);
			ca->origin = ca->wmax;
		}
	}
	rtt_s = (double)(2 * sim->sc->delay_ns) / 1e9;
	t = (double)(sim->now - ca->epoch) / 1e9 + rtt_s;
	target = CUBIC_C * pow(t - ca->k, 3) + ca->origin; /* RFC 8312 eq. 1 */
	if (target > tc->snd_cwnd)
		inc = (target - tc->snd_cwnd) / tc->snd_cwnd;
	else
		inc = 0.01 / tc->snd_cwnd;
	/* the TCP-friendly region (tcp_friendliness): what Reno would have,
	 * one segment per cwnd * beta_scale / 8 acked (beta_scale = 15 for
	 * Linux's beta 717/1024); grow toward it when it is ahead */
	ca->ack_cnt += acked;
	{
		double delta = tc->snd_cwnd * CUBIC_BETA_SCALE / 8;
		while (delta > 0 && ca->ack_cnt > delta) {
			ca->ack_cnt -= delta;
			ca->tcp_cwnd += 1;
		}
	}
	if (ca->tcp_cwnd > tc->snd_cwnd && (ca->tcp_cwnd - tc->snd_cwnd) / tc->snd_cwnd > inc)
		inc = (ca->tcp_cwnd - tc->snd_cwnd) / tc->snd_cwnd;
	if (inc > 0.5)
		inc = 0.5; /* ca->cnt >= 2: at most 1.5x per RTT */
	tc->snd_cwnd += inc * acked;
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
	.name = "cubic", .init = cubic_init, .cong_avoid = cubic_cong_avoid, .ssthresh = cubic_ssthresh,
	.pkts_acked = cubic_pkts_acked};
