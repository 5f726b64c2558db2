/*
 * tcp: one bulk connection, data one way and ACKs the other, after Linux
 * net/ipv4/tcp*.c of the 3.x era.  Sequence numbers are 64-bit byte counts
 * that never wrap.
 *
 * Sender (tcp.c "send side"): the write queue holds skbs of up to the size
 * goal (tcp_xmit_size_goal: as many whole MSS as fit under gso_max_size
 * minus headers, at least one, at most half the peer's largest window;
 * one MSS without GSO/TSO).  tcp_write_xmit sends frames while the
 * congestion window (segments) and the receive window (bytes) allow.  A
 * full frame goes at once (tcp_push_one); a short tail at the end of a
 * send call goes unless Nagle holds it — with Minshall's rule, only while
 * an earlier short segment is unacknowledged — or, for a tail of several
 * segments, tcp_tso_should_defer does (less than a full 64 KB frame and
 * less than a third of the window could go).  sndbuf bounds wmem_queued; a sender over it sleeps until
 * ACKs free a third of it (sk_stream_write_space).
 *
 * The window offered grows with rcv_ssthresh (tcp_grow_window: two advmss
 * per in-order skb while below the clamp and the free space) and never
 * shrinks; an ACK on receipt also needs the window it would offer to be no
 * smaller than the one offered (so unread data defers the ACK to the
 * reader's tcp_cleanup_rbuf or the timer).
 *
 * Receiver: in-order data is queued.  No loss is modelled, but frames of
 * one connection sent from two CPUs can overtake each other on loopback
 * (each CPU has its own backlog), so a frame ahead of rcv_nxt waits in the
 * out-of-order queue and is answered by an immediate duplicate ACK, as
 * tcp_data_queue does; the sender ignores duplicate ACKs (no fast
 * retransmit: nothing was lost).  The ACK policy is __tcp_ack_snd_check: ACK at once
 * when more than one rcv_mss is unacknowledged and the window would not
 * shrink, or in quickack mode; otherwise arm the delayed-ACK timer.
 * rcv_mss is learnt from the frame's gso_size (tcp_measure_rcv_mss), which
 * is why a 3-segment loopback frame is ACKed at once and a 1-segment one
 * waits for the next.  After recv() copies, tcp_cleanup_rbuf ACKs a pending
 * ACK over one rcv_mss or a window that doubled.
 *
 * Receive states: ack idle -> (data, not enough) ACK PENDING + delack armed
 *   -> (more data / copy / timer) ACK sent -> ack idle.
 */
#ifndef TCPSIM_TCP_H
#define TCPSIM_TCP_H

#include "sim.h"

struct tcp_conn;

struct tcp_cc_ops {
	const char *name;
	void (*init)(struct tcp_conn *tc);                          /* required */
	void (*cong_avoid)(struct sim *sim, struct tcp_conn *tc, uint32_t acked_segs); /* required */
};

extern const struct tcp_cc_ops tcp_reno;
extern const struct tcp_cc_ops tcp_cubic;

struct tcp_conn {
	int id;
	struct sim *sim;
	struct host *snd_host, *rcv_host;
	struct task *sender, *receiver;
	const struct tcp_cc_ops *cc;

	/* sender */
	int mss_bytes;               /* mss_now: MTU - IP - TCP - options */
	int size_goal_bytes;
	uint64_t write_seq, snd_una, snd_nxt;
	uint64_t snd_wnd_end;        /* right edge of the peer's window */
	uint64_t snd_sml;            /* end of the last short segment sent (Minshall) */
	uint32_t max_window;         /* largest window the peer advertised */
	struct skb_list wq;          /* write queue: sent-unacked, then unsent */
	struct skb *send_head;       /* first unsent skb in wq */
	int64_t wmem_queued, sndbuf;
	bool sndbuf_locked;          /* SO_SNDBUF set: no autotuning */
	double snd_cwnd;             /* segments */
	double snd_ssthresh;
	bool cwnd_limited;
	double cubic_wmax, cubic_k;  /* CUBIC state (RFC 8312) */
	sim_ns cubic_epoch;
	bool sender_waiting;         /* blocked in sk_stream_wait_memory */
	uint32_t frag_left;          /* bytes left in the socket page frag */
	uint64_t frag_freed;         /* bytes freed not yet making a whole frag */

	/* receiver */
	uint64_t rcv_nxt, rcv_wup, copied_seq;
	uint32_t rcv_wnd;            /* window advertised at rcv_wup */
	int64_t rcv_ssthresh;        /* window growth limit (tcp_grow_window) */
	struct skb_list rq;          /* receive queue */
	struct skb *ofo;             /* out-of-order queue, sorted by seq */
	int64_t rmem_alloc, rcvbuf;
	bool rcvbuf_locked;
	int64_t window_clamp;
	int advmss;
	int rcv_mss;                 /* icsk_ack.rcv_mss */
	int quick;                   /* quickack segments left */
	bool ack_pending;
	struct evq_timer delack_tm;
	struct cpu *delack_cpu;
	bool receiver_waiting;       /* blocked in sk_wait_data */
	uint64_t space_seq;          /* rcvq_space.seq (autotuning) */
	int64_t space_bytes;         /* rcvq_space.space */
	sim_ns space_time;

	/* statistics (whole run) */
	uint64_t frames_sent, acks_sent;
};

void tcp_conn_init(struct sim *sim, struct tcp_conn *tc, int id, struct host *snd, struct host *rcv);

/* Send side, process context on c.  Append up to `bytes` to the tail skb
 * (allocating one if needed); returns bytes appended, 0 when sndbuf is full
 * (the caller then sleeps with tc->sender_waiting set). */
uint32_t tcp_send_append(struct sim *sim, struct cpu *c, struct tcp_conn *tc, uint32_t bytes, bool zerocopy);
/* tcp_push: send what the windows allow; the tail goes too if `push_tail`
 * and Nagle allows. */
void tcp_push(struct sim *sim, struct cpu *c, struct tcp_conn *tc, bool push_tail);

/* Receive side, process context on c: copy up to `max` bytes from the
 * receive queue; returns bytes copied (0: queue empty). */
uint32_t tcp_recv_copy(struct sim *sim, struct cpu *c, struct tcp_conn *tc, uint32_t max);

/* Input, softirq context on c: a data frame or an ACK for tc. */
void tcp_rcv(struct sim *sim, struct cpu *c, struct skb *skb);

/* The delayed-ACK timer fired; runs in softirq context on c. */
void tcp_delack_timer(struct sim *sim, struct cpu *c, struct tcp_conn *tc);

/* Advertised receive window in bytes if an ACK were sent now. */
uint32_t tcp_select_window_now(const struct tcp_conn *tc);

/* FreeBSD tcp_output: send every whole MSS queued now, hold back only a
 * sub-MSS remainder (app.sendfile = freebsd-*; end of tcp.c). */
void tcp_push_whole_mss(struct sim *sim, struct cpu *c, struct tcp_conn *tc);

#endif
