/*
 * tcp_bbr.c: BBR v1 as in mainline (net/ipv4/tcp_bbr.c, 4.9+; Cardwell
 * et al., "BBR: Congestion-Based Congestion Control", ACM Queue 2016).
 *
 * A model of the path from the delivery-rate samples (tcp_rate.c; the ACK
 * side is tcp_input.c's rate_sample): the bottleneck bandwidth BtlBw, the
 * most delivered per second over the last BBR_BW_RTTS (10) round trips,
 * and RTprop, the least RTT over bbr_min_rtt_win_sec (10 s).  It paces at
 * pacing_gain x BtlBw (less bbr_pacing_margin_percent, 1%) and caps the
 * window at cwnd_gain x BtlBw x RTprop plus three TSO frames
 * (bbr_quantization_budget).  The modes, as bbr_update_gains sets them:
 *
 *   STARTUP    pacing and cwnd gain 2/ln 2 (bbr_high_gain 2.885) until
 *              BtlBw grew by less than 25% in three rounds
 *              (bbr_check_full_bw_reached);
 *   DRAIN      pacing gain 1/2.885 until what is in flight is one BDP;
 *   PROBE_BW   cwnd gain 2, pacing gain cycling 1.25, 0.75, 1 x 6
 *              (bbr_pacing_gain[]), a phase lasting at least RTprop; the
 *              1.25 phase until inflight reaches 1.25 BDP, the 0.75 one
 *              at most until it fell to one BDP (bbr_is_next_cycle_phase);
 *              entered at a random phase other than 0.75
 *              (CYCLE_LEN - 1 - prandom_u32_max(bbr_cycle_rand));
 *   PROBE_RTT  when RTprop is 10 s old: cwnd 4 (bbr_cwnd_min_target) for
 *              200 ms and one round, then back.
 *
 * bbr_init sets sk_pacing_status to SK_PACING_NEEDED, so without fq the
 * socket paces itself (tcp_output.c's internal pacing, 4.13+).
 * Not modelled: the long-term (policer) bandwidth model (lt_bw), the ACK
 * aggregation allowance (5.1+), packet conservation in loss recovery
 * (nothing is lost on the model's links; ssthresh keeps the window).  The
 * random phase is the connection's id mod 7, so the run's random stream
 * (cost jitter) stays the one it was.
 */
#include <string.h>

#include "tcp_impl.h"

enum bbr_mode { BBR_STARTUP, BBR_DRAIN, BBR_PROBE_BW, BBR_PROBE_RTT };

#define BBR_HIGH_GAIN 2.885              /* 2885 / 1000: 2 / ln 2 */
#define BBR_DRAIN_GAIN (1.0 / 2.885)
#define BBR_CWND_GAIN 2.0
#define BBR_CYCLE_LEN 8
#define BBR_CYCLE_RAND 7
#define BBR_CWND_MIN_TARGET 4            /* segments */
#define BBR_FULL_BW_THRESH 1.25
#define BBR_FULL_BW_CNT 3
#define BBR_MIN_RTT_WIN_NS (10 * NS_PER_S)
#define BBR_PROBE_RTT_NS (200 * NS_PER_MS)
#define BBR_PACING_MARGIN 0.01           /* bbr_pacing_margin_percent */
#define BBR_MIN_TSO_RATE_BPS 1200000.0   /* bbr_min_tso_rate, bit/s */
#define TCP_INIT_CWND 10

static const double bbr_pacing_gain[BBR_CYCLE_LEN] = {1.25, 0.75, 1, 1, 1, 1, 1, 1};

static double bbr_max_bw(const struct tcp_bbr_priv *b)
{
	double m = 0;
	for (int i = 0; i < BBR_BW_RTTS; i++)
		m = fmax(m, b->bw_round[i]);
	return m;
}

/* tcp_packets_in_flight */
static double in_flight(const struct tcp_conn *tc)
{
	return (double)tcp_segs_of(tc, tc->snd_nxt - tc->snd_una);
}

/* bbr_bdp + bbr_quantization_budget (segments) */
static double bbr_inflight(const struct tcp_conn *tc, double bw, double gain)
{
	const struct tcp_bbr_priv *b = &tc->cc_priv.bbr;
	double w;
	uint32_t tso = tcp_tso_segs(tc);

	if (b->min_rtt_ns < 0)
		return TCP_INIT_CWND;
	w = ceil(bw * (double)b->min_rtt_ns / 1e9 * gain);
	w += 3.0 * (tso < 127 ? tso : 127); /* bbr_tso_segs_goal */
	w = 2 * ceil(w / 2);                 /* an even number of segments */
	if (b->mode == BBR_PROBE_BW && b->cycle_idx == 0)
		w += 2;
	return w;
}

static void bbr_update_gains(struct tcp_bbr_priv *b)
{
	switch (b->mode) {
	case BBR_STARTUP: b->pacing_gain = BBR_HIGH_GAIN; b->cwnd_gain = BBR_HIGH_GAIN; break;
	case BBR_DRAIN: b->pacing_gain = BBR_DRAIN_GAIN; b->cwnd_gain = BBR_HIGH_GAIN; break;
	case BBR_PROBE_BW: b->pacing_gain = bbr_pacing_gain[b->cycle_idx]; b->cwnd_gain = BBR_CWND_GAIN; break;
	case BBR_PROBE_RTT: b->pacing_gain = 1; b->cwnd_gain = 1; break;
	}
}

/* bbr_bw_to_pacing_rate, in bytes/s */
static double bbr_rate_Bps(const struct tcp_conn *tc, double bw, double gain)
{
	return bw * tc->mss_bytes * gain * (1 - BBR_PACING_MARGIN);
}

static void bbr_init(struct tcp_conn *tc)
{
	struct tcp_bbr_priv *b = &tc->cc_priv.bbr;
	double rtt_s = tc->srtt_us8 ? (double)tc->srtt_us8 / 8e6 : 1e-3; /* bbr_init_pacing_rate_from_rtt */

	memset(b, 0, sizeof *b);
	b->mode = BBR_STARTUP;
	b->min_rtt_ns = -1;
	b->next_rtt_delivered = tc->delivered;
	bbr_update_gains(b);
	tc->pacing_Bps = bbr_rate_Bps(tc, tc->snd_cwnd / rtt_s, BBR_HIGH_GAIN);
	tc->pacing_needed = true; /* cmpxchg(sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED) */
}

static void bbr_advance_cycle_phase(struct sim *sim, struct tcp_conn *tc)
{
	struct tcp_bbr_priv *b = &tc->cc_priv.bbr;
	(void)sim;
	b->cycle_idx = (b->cycle_idx + 1) % BBR_CYCLE_LEN;
	b->cycle_stamp = tc->delivered_at;
	bbr_update_gains(b);
}

static void bbr_reset_probe_bw_mode(struct sim *sim, struct tcp_conn *tc)
{
	struct tcp_bbr_priv *b = &tc->cc_priv.bbr;
	b->mode = BBR_PROBE_BW;
	b->cycle_idx = BBR_CYCLE_LEN - 1 - tc->id % BBR_CYCLE_RAND;
	bbr_advance_cycle_phase(sim, tc);
}

static bool bbr_is_next_cycle_phase(struct sim *sim, const struct tcp_conn *tc, const struct tcp_rate_sample *rs)
{
	const struct tcp_bbr_priv *b = &tc->cc_priv.bbr;
	bool full_length = sim->now - b->cycle_stamp > b->min_rtt_ns;
	double prior_inflight = in_flight(tc) + rs->acked_sacked;

	if (b->pacing_gain == 1)
		return full_length;
	if (b->pacing_gain > 1) /* nothing is lost: only inflight ends it early */
		return full_length && prior_inflight >= bbr_inflight(tc, bbr_max_bw(b), b->pacing_gain);
	return full_length || prior_inflight <= bbr_inflight(tc, bbr_max_bw(b), 1);
}

/* bbr_update_bw: the round trips and the max filter */
static void bbr_update_bw(struct tcp_conn *tc, const struct tcp_rate_sample *rs)
{
	struct tcp_bbr_priv *b = &tc->cc_priv.bbr;
	double bw;

	b->round_start = false;
	if (rs->interval_ns <= 0)
		return;
	if (rs->prior_delivered >= b->next_rtt_delivered) {
		b->next_rtt_delivered = tc->delivered;
		b->round_count++;
		b->round_start = true;
		b->bw_round[b->round_count % BBR_BW_RTTS] = 0; /* the oldest round leaves the window */
	}
	bw = (double)rs->delivered * 1e9 / (double)rs->interval_ns;
	if (!rs->is_app_limited || bw >= bbr_max_bw(b)) {
		double *slot = &b->bw_round[b->round_count % BBR_BW_RTTS];
		*slot = fmax(*slot, bw);
	}
}

static void bbr_check_full_bw_reached(struct tcp_conn *tc, const struct tcp_rate_sample *rs)
{
	struct tcp_bbr_priv *b = &tc->cc_priv.bbr;

	if (b->full_bw_reached || !b->round_start || rs->is_app_limited)
		return;
	if (bbr_max_bw(b) >= b->full_bw * BBR_FULL_BW_THRESH) {
		b->full_bw = bbr_max_bw(b);
		b->full_bw_cnt = 0;
		return;
	}
	b->full_bw_reached = ++b->full_bw_cnt >= BBR_FULL_BW_CNT;
}

static void bbr_check_drain(struct sim *sim, struct tcp_conn *tc)
{
	struct tcp_bbr_priv *b = &tc->cc_priv.bbr;

	if (b->mode == BBR_STARTUP && b->full_bw_reached) {
		b->mode = BBR_DRAIN;
		bbr_update_gains(b);
	}
	if (b->mode == BBR_DRAIN && in_flight(tc) <= bbr_inflight(tc, bbr_max_bw(b), 1))
		bbr_reset_probe_bw_mode(sim, tc);
}

static void bbr_update_min_rtt(struct sim *sim, struct tcp_conn *tc, const struct tcp_rate_sample *rs)
{
	struct tcp_bbr_priv *b = &tc->cc_priv.bbr;
	bool expired = b->min_rtt_ns >= 0 && sim->now > b->min_rtt_stamp + BBR_MIN_RTT_WIN_NS;

	if (rs->rtt_ns >= 0 && (b->min_rtt_ns < 0 || rs->rtt_ns < b->min_rtt_ns || expired)) {
		b->min_rtt_ns = rs->rtt_ns;
		b->min_rtt_stamp = sim->now;
	}
	if (expired && b->mode != BBR_PROBE_RTT) {
		b->mode = BBR_PROBE_RTT;
		bbr_update_gains(b);
		b->prior_cwnd = tc->snd_cwnd; /* bbr_save_cwnd */
		b->probe_rtt_done_stamp = 0;
	}
	if (b->mode != BBR_PROBE_RTT)
		return;
	if (!b->probe_rtt_done_stamp && in_flight(tc) <= BBR_CWND_MIN_TARGET) {
		b->probe_rtt_done_stamp = sim->now + BBR_PROBE_RTT_NS;
		b->probe_rtt_round_done = false;
		b->next_rtt_delivered = tc->delivered;
	} else if (b->probe_rtt_done_stamp) {
		if (b->round_start)
			b->probe_rtt_round_done = true;
		if (b->probe_rtt_round_done && sim->now > b->probe_rtt_done_stamp) { /* bbr_check_probe_rtt_done */
			b->min_rtt_stamp = sim->now;
			tc->snd_cwnd = fmax(tc->snd_cwnd, b->prior_cwnd);
			if (b->full_bw_reached) {
				bbr_reset_probe_bw_mode(sim, tc);
			} else {
				b->mode = BBR_STARTUP;
				bbr_update_gains(b);
			}
		}
	}
}

/* bbr_set_pacing_rate: lower only once the pipe is known full */
static void bbr_set_pacing_rate(struct tcp_conn *tc, double bw, double gain)
{
	double rate = bbr_rate_Bps(tc, bw, gain);

	if (tc->cc_priv.bbr.full_bw_reached || rate > tc->pacing_Bps) {
		tc->pacing_Bps = rate;
		tcp_cap_pacing_rate(tc);
	}
}

static void bbr_set_cwnd(struct tcp_conn *tc, const struct tcp_rate_sample *rs, double bw)
{
	const struct tcp_bbr_priv *b = &tc->cc_priv.bbr;
	double target, cwnd = tc->snd_cwnd;

	if (rs->acked_sacked) {
		target = bbr_inflight(tc, bw, b->cwnd_gain);
		if (b->full_bw_reached)
			cwnd = fmin(cwnd + rs->acked_sacked, target);
		else if (cwnd < target || tc->delivered < TCP_INIT_CWND)
			cwnd += rs->acked_sacked;
		cwnd = fmax(cwnd, BBR_CWND_MIN_TARGET);
	}
	if (b->mode == BBR_PROBE_RTT)
		cwnd = fmin(cwnd, BBR_CWND_MIN_TARGET);
	tc->snd_cwnd = cwnd;
}

/* bbr_main */
static void bbr_cong_control(struct sim *sim, struct tcp_conn *tc, const struct tcp_rate_sample *rs)
{
	struct tcp_bbr_priv *b = &tc->cc_priv.bbr;
	double bw;

	bbr_update_bw(tc, rs);
	if (b->mode == BBR_PROBE_BW && bbr_is_next_cycle_phase(sim, tc, rs))
		bbr_advance_cycle_phase(sim, tc);
	bbr_check_full_bw_reached(tc, rs);
	bbr_check_drain(sim, tc);
	bbr_update_min_rtt(sim, tc, rs);
	bw = bbr_max_bw(b);
	if (bw > 0)
		bbr_set_pacing_rate(tc, bw, b->pacing_gain);
	bbr_set_cwnd(tc, rs, bw);
}

/* bbr_ssthresh: the window is BBR's own (bbr_save_cwnd); no reduction */
static double bbr_ssthresh(struct tcp_conn *tc)
{
	tc->cc_priv.bbr.prior_cwnd = tc->snd_cwnd;
	return tc->snd_cwnd;
}

/* bbr_min_tso_segs: one segment per frame below 1.2 Mbit/s */
static uint32_t bbr_min_tso_segs(const struct tcp_conn *tc)
{
	return tc->pacing_Bps > 0 && tc->pacing_Bps < BBR_MIN_TSO_RATE_BPS / 8 ? 1 : 2;
}

const struct tcp_cc_ops tcp_bbr = {
	.name = "bbr",
	.init = bbr_init,
	.ssthresh = bbr_ssthresh,
	.cong_control = bbr_cong_control,
	.min_tso_segs = bbr_min_tso_segs,
};
