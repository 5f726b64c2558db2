/*
 * tcp_cong.c: congestion control's common part, after Linux's
 * net/ipv4/tcp_cong.c: the algorithm a connection gets (tcp.cc) and slow
 * start (tcp_slow_start: cwnd grows by the segments acked while below
 * ssthresh).  Each algorithm is a const struct tcp_cc_ops in a file of its
 * own (tcp_reno.c, tcp_cubic.c, tcp_bbr.c, tcp_dctcp.c) with its private
 * state in tc->cc_priv.
 */
#include "tcp_impl.h"

void tcp_slow_start(struct tcp_conn *tc, uint32_t acked, bool *in_ss)
{
	*in_ss = tc->snd_cwnd < tc->snd_ssthresh;
	if (*in_ss)
		tc->snd_cwnd += acked;
}

const struct tcp_cc_ops *tcp_cc_for(enum cc_algo algo)
{
	const struct tcp_cc_ops *ops = &tcp_cubic;

	switch (algo) {
	case CC_RENO: ops = &tcp_reno; break;
	case CC_CUBIC: ops = &tcp_cubic; break;
	case CC_BBR: ops = &tcp_bbr; break;
	case CC_DCTCP: ops = &tcp_dctcp; break;
	}
	/* tcp_register_congestion_control: ssthresh and one of cong_avoid
	 * and cong_control */
	INVARIANT(ops->init && ops->ssthresh && (ops->cong_avoid || ops->cong_control),
		  "congestion control '%s': incomplete ops", ops->name);
	return ops;
}
