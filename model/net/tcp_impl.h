/*
 * tcp_impl.h: what the tcp_*.c files share and nothing else includes (as
 * Linux's include/net/tcp.h serves net/ipv4/tcp*.c).  The interface of the
 * connection to the other modules is tcp.h.
 */
#ifndef TCPSIM_TCP_IMPL_H
#define TCPSIM_TCP_IMPL_H

#include <math.h>

#include "cpu.h"
#include "netdev.h"
#include "sched.h"
#include "skb.h"
#include "tcp.h"
#include "util.h"

#define TCP_MSS_DEFAULT 536
#define TCP_MIN_MSS 88
#define TCP_MAX_QUICKACKS 16
#define TCP_INIT_RCVWND 10
#define TCP_INIT_CWND 10 /* include/net/tcp.h: the initial cwnd the kernel sizes buffers for */
#define TCP_RMEM_TO_WIN_SCALE 8
#define TCP_DEFAULT_SCALING_RATIO (1 << (TCP_RMEM_TO_WIN_SCALE - 1)) /* until a frame is measured */
#define MAX_SKB_FRAGS 17 /* skb_shinfo()->frags[]: CONFIG_MAX_SKB_FRAGS's default */

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* tcp.c (set-up and checks) */
int64_t tcp_win_from_space(const struct tcp_conn *tc, int64_t space);
int64_t tcp_space(const struct tcp_conn *tc);
int64_t tcp_space_from_win(const struct tcp_conn *tc, int64_t win);
/* the page frags a received data skb holds (skb_shinfo()->nr_frags), tcp.c */
int tcp_rx_frags(const struct tcp_conn *tc, const struct skb *s);
bool tcp_skb_try_coalesce(const struct tcp_conn *tc, struct skb *tail, const struct skb *skb);
/* a data skb's TCP work: rx_tcp, or nothing for a segment rx_gso_seg prices whole */
void tcp_charge_rx_tcp(struct sim *sim, struct cpu *c, const struct skb *skb);
void tcp_rcv_rtt_sample(struct sim *sim, struct tcp_conn *tc, const struct skb *skb);
void tcp_check_conn(const struct tcp_conn *tc);
/* The timeline step now falls in for tc, or NULL: no timeline, not the
 * first connection, or outside it (data: data reaching the receiving
 * socket, which starts it; timeline.h) */
struct timeline_step *tcp_timeline_step(struct sim *sim, const struct tcp_conn *tc, bool data);
/* tc's reader woken (sched:sched_wakeup), counted in the timeline's step;
 * out of line, a run without a timeline testing sim->tl alone */
__attribute__((cold)) void tcp_timeline_reader_woken_note(struct sim *sim, const struct tcp_conn *tc);
static inline void tcp_timeline_reader_woken(struct sim *sim, const struct tcp_conn *tc)
{
	if (__builtin_expect(sim->tl != NULL, 0))
		tcp_timeline_reader_woken_note(sim, tc);
}

/* tcp_output.c (output) */
void tcp_split_skb(struct sim *sim, struct cpu *c, struct tcp_conn *tc, struct skb *skb, uint32_t len);
uint32_t tcp_segs_of(const struct tcp_conn *tc, uint64_t bytes);
void tcp_rtt_sample(struct sim *sim, struct tcp_conn *tc, sim_ns rtt_ns);
bool tcp_is_cwnd_limited(const struct tcp_conn *tc);
uint32_t tcp_tso_segs(const struct tcp_conn *tc);
void tcp_cap_pacing_rate(struct tcp_conn *tc);
void tcp_tsq_handler(struct sim *sim, struct cpu *c, struct tcp_conn *tc);

/* tcp_ack.c (ACK policy) */
void tcp_send_ack(struct sim *sim, struct cpu *c, struct tcp_conn *tc, uint64_t *reason);
void tcp_delack_fire(struct sim *sim, void *obj, uint64_t arg);

/* tcp_input.c (input) */
void tcp_rcv_data(struct sim *sim, struct cpu *c, struct tcp_conn *tc, struct skb *skb, bool direct);
void tcp_rcv_ack(struct sim *sim, struct cpu *c, struct tcp_conn *tc, struct skb *ack);

/* tcp_recovery.c (recovery) */
void tcp_sack_check(struct sim *sim, struct cpu *c, struct tcp_conn *tc, const struct skb *ack);
void tcp_recovery_update(struct sim *sim, struct tcp_conn *tc, const struct skb *ack);

/* tcp_cong.c: slow start, shared by the algorithms (tcp_slow_start);
 * *in_ss tells whether the window was below ssthresh. */
void tcp_slow_start(struct tcp_conn *tc, uint32_t acked, bool *in_ss);

/* What tcp_sndbuf_expand (3.13+, 6ae705323b71) wants for the sender:
 * 2 x max(TCP_INIT_CWND, cwnd, reordering + 1) skbs of the worst case, one
 * skb per MSS with its head kmalloced from a power-of-two cache: the MSS,
 * MAX_TCP_HEADER (mem.max_tcp_header) and the shared info rounded up. */
int64_t tcp_sndbuf_want(const struct tcp_conn *tc, double cwnd, double reordering);

#endif
