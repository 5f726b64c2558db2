/*
 * tcp_reno.c: Reno/NewReno congestion avoidance (RFC 5681; Linux's
 * tcp_reno_cong_avoid and tcp_reno_ssthresh): +1 MSS per RTT above
 * ssthresh, half the window on a loss.  No private state.
 */
#include "tcp_impl.h"

static void reno_init(struct tcp_conn *tc) { (void)tc; }

static void reno_cong_avoid(struct sim *sim, struct tcp_conn *tc, uint32_t acked)
{
	bool ss;
	(void)sim;
	tcp_slow_start(tc, acked, &ss);
	if (!ss)
		tc->snd_cwnd += (double)acked / tc->snd_cwnd; /* +1 MSS per RTT */
}

static double reno_ssthresh(struct tcp_conn *tc)
{
	return fmax(tc->snd_cwnd * 0.5, 2);
}

const struct tcp_cc_ops tcp_reno = {
	.name = "reno", .init = reno_init, .cong_avoid = reno_cong_avoid, .ssthresh = reno_ssthresh};
