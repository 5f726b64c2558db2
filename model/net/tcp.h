/*
 * tcp: one bulk connection, data one way and ACKs the other, after Linux
 * net/ipv4/tcp*.c of the 3.x era.  Sequence numbers are 64-bit byte counts
 * that never wrap.  What later kernels changed follows host.kernel
 * (docs/eras.md): internal pacing, TSO autosizing, TCP Small Queues,
 * BIG TCP's frame sizes, sch_fq's pacing, the bbr and dctcp algorithms
 * with delivery-rate samples and ECN (tcp_output.c, tcp_input.c).
 *
 * Sender (tcp_output.c): the write queue holds skbs of up to the size
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
 * Receiver: in-order data is queued.  Nothing is lost, but frames of one
 * connection sent from two CPUs can overtake each other on loopback (each
 * CPU has its own backlog), so a frame ahead of rcv_nxt waits in the
 * out-of-order queue and is answered at once by a duplicate ACK with a
 * SACK block (and quickack mode), as tcp_data_queue does; data that
 * arrives twice is dropped and D-SACKed.
 *
 * Sender, loss recovery as 3.6 with SACK and FACK: when a duplicate ACK
 * SACKs data so far above snd_una that more than tcp_reordering segments
 * lie between (fackets_out > reordering, tcp_time_to_recover), the hole is
 * taken for lost: fast retransmit of its first fackets_out - reordering
 * segments (at most the hole), ssthresh = cwnd * beta (CUBIC 717/1024,
 * Reno 1/2) and cwnd = ssthresh (where PRR ends).  Recovery ends when
 * snd_una passes high_seq; it is undone (cwnd and ssthresh back) only if
 * every retransmission was D-SACKed by then, or the timestamps show the
 * hole's frame was sent in an earlier jiffy than the retransmission
 * (tcp_packet_delayed).  On loopback the overtaken frame fills the hole
 * microseconds later, before the retransmission's D-SACK and in the same
 * jiffy, so such a spurious retransmit keeps its reduction.  A 3-segment
 * frame overtaking another is enough at MTU 16436 (fackets_out 4 or more);
 * a 1-segment 64 KB frame is not (Linux commit 0cf833aefaa8).  A filled
 * hole that was retransmitted does not raise tp->reordering
 * (tcp_clean_rtx_queue), so the threshold stays tcp.reordering.  sndbuf
 * grows (tcp_new_space) only for a writer that ran out of space and only
 * while fewer than cwnd segments are in flight (tcp_should_expand_sndbuf).
 *
 * The ACK policy is __tcp_ack_snd_check: ACK at once
 * when more than one rcv_mss is unacknowledged and the window would not
 * shrink, or in quickack mode; otherwise arm the delayed-ACK timer.
 * rcv_mss is learnt from the frame's gso_size (tcp_measure_rcv_mss), which
 * is why a 3-segment loopback frame is ACKed at once and a 1-segment one
 * waits for the next.  When a recv() call ends, tcp_cleanup_rbuf ACKs a pending
 * ACK over one rcv_mss or a window that doubled.
 *
 * Socket ownership (tcp_v4_rcv, tcp_prequeue, release_sock; 3.6): a frame
 * for a socket whose task is inside a call on it is not processed by the
 * softirq that received it but queued for that task, which runs the TCP
 * receive work (and the ACKs it sends, and for a writer the transmits the
 * ACKs allow) in its own process context: netserver sleeping in recv()
 * has installed itself as the prequeue reader and is woken by the first
 * frame; one that is copying owns the socket and finds the frames in its
 * backlog at release_sock; a netperf sender inside sendfile() finds its
 * ACKs there when the call ends or before it sleeps for memory.  Only a
 * writer asleep for memory (or between calls) has its ACKs processed in
 * softirq, where the data they release goes out at once and is delivered
 * in the same NET_RX run.
 *
 * The states, drawn as SQLite's pager.c draws its own; each transition
 * names the function that performs it, and tcp_check_conn (tcp.c) asserts
 * the invariants of the state a connection is in after every ACK, send
 * and recv() step.
 *
 * Sender (ca_state):
 *
 *              tcp_sack_check: fackets_out > reordering
 *     +------+ -----------------------------------------> +----------+
 *     | OPEN |                                            | RECOVERY |
 *     +------+ <----------------------------------------- +----------+
 *              tcp_recovery_update: snd_una >= high_seq
 *              (undo_reduction first when the retransmits were spurious)
 *
 *   OPEN:      cong_avoid grows cwnd on each ACK that advances snd_una
 *              while the sender is cwnd-limited (tcp_rcv_ack);
 *              snd_una <= snd_nxt <= write_seq.
 *   RECOVERY:  entered with high_seq = snd_nxt, ssthresh = cc->ssthresh,
 *              cwnd = ssthresh; cwnd does not grow;
 *              snd_una < high_seq <= snd_nxt.
 *   in_cwr:    (OPEN, ECN) an ECE reduced ssthresh and cwnd by cc->ssthresh
 *              (tcp_enter_cwr); no other reduction and no growth until
 *              snd_una reaches cwr_high_seq, the snd_nxt of then;
 *              snd_una <= cwr_high_seq while set.
 *
 * Receiver's ACK (ack_pending, delack_tm):
 *
 *            tcp_rcv_data: less than an rcv_mss unacked, no quickack
 *     +------+ ------------------------> +-------------------+
 *     | IDLE |                           | PENDING, ARMED    |
 *     +------+ <-----------------+       +-------------------+
 *        ^      tcp_send_ack:    |           | tcp_delack_fire (the timer
 *        |      tcp_rcv_data,    |           v  expired: TIMER raised)
 *        |      cleanup_rbuf     |       +-------------------+
 *        +-----------------------+------ | PENDING, FIRED    |
 *          tcp_delack_timer -> tcp_send_ack +-------------------+
 *
 *   IDLE:      !ack_pending and the delayed-ACK timer not armed.
 *   PENDING:   ack_pending, delack_cpu set; ARMED until the timer's event
 *              runs (evq clears it), FIRED until the TIMER softirq sends.
 *   Always:    the timer is armed only while an ACK is pending;
 *              rcv_wup <= rcv_nxt, copied_seq <= rcv_nxt.
 */
#ifndef TCPSIM_TCP_H
#define TCPSIM_TCP_H

#include "sim.h"
#include "skb.h" /* struct page_frag */

struct tcp_conn;

/* The sender's congestion state (icsk_ca_state; the model has no Disorder,
 * CWR or Loss: nothing is lost, no retransmission timer). */
enum tcp_ca_state { TCP_CA_OPEN, TCP_CA_RECOVERY };

/* A delivery-rate sample (struct rate_sample, net/ipv4/tcp_rate.c, 4.9+):
 * what one ACK tells about the rate data was delivered at. */
struct tcp_rate_sample {
	uint64_t delivered;          /* segments delivered over the interval */
	uint64_t prior_delivered;    /* tp->delivered when the newest acked skb was sent */
	sim_ns interval_ns;          /* max(send elapsed, ACK elapsed); 0: no sample */
	sim_ns rtt_ns;               /* RTT of the newest acked skb; -1: none */
	uint32_t acked_sacked;       /* segments this ACK newly delivered */
	bool is_app_limited;         /* the flight was not limited by cwnd (tcp_rate_check_app_limited) */
};

/* A congestion-control algorithm (struct tcp_congestion_ops): one file
 * each, tcp_reno.c, tcp_cubic.c, tcp_bbr.c, tcp_dctcp.c; tcp_cc_for
 * rejects an incomplete one. */
struct tcp_cc_ops {
	const char *name;
	void (*init)(struct tcp_conn *tc);                          /* required */
	/* required unless cong_control is set */
	void (*cong_avoid)(struct sim *sim, struct tcp_conn *tc, uint32_t acked_segs);
	/* required: the reduced ssthresh on entering recovery or CWR
	 * (segments); may update the algorithm's private state */
	double (*ssthresh)(struct tcp_conn *tc);
	/* optional: an ACK that acked new data, with its RTT sample
	 * (pkts_acked with ack_sample.rtt_us), before cong_avoid */
	void (*pkts_acked)(struct sim *sim, struct tcp_conn *tc, sim_ns rtt_ns);
	/* optional (bbr): runs on every ACK that delivers data instead of
	 * cong_avoid and tcp_update_pacing_rate, and owns cwnd and the
	 * pacing rate (tcp_cong_control) */
	void (*cong_control)(struct sim *sim, struct tcp_conn *tc, const struct tcp_rate_sample *rs);
	/* optional (dctcp): every ACK that advances snd_una, with the
	 * segments it acked and how many of them the network marked CE
	 * (in_ack_event, CA_ACK_ECE) */
	void (*in_ack_event)(struct sim *sim, struct tcp_conn *tc, uint32_t acked_segs, uint32_t ce_segs);
	/* optional: fewest segments TSO autosizing leaves a frame
	 * (min_tso_segs; default tcp.min_tso_segs) */
	uint32_t (*min_tso_segs)(const struct tcp_conn *tc);
	bool needs_ecn;              /* TCP_CONG_NEEDS_ECN: the flow is ECN-capable (ECT) */
};

extern const struct tcp_cc_ops tcp_reno;
extern const struct tcp_cc_ops tcp_cubic;
extern const struct tcp_cc_ops tcp_bbr;
extern const struct tcp_cc_ops tcp_dctcp;

/* The algorithm for tcp.cc (tcp_cong.c). */
const struct tcp_cc_ops *tcp_cc_for(enum cc_algo algo);

/* Each algorithm's own state (icsk_ca_priv), touched only by its file. */
struct tcp_cubic_priv {
	double wmax, k;              /* W_max (segments), K (s) */
	double origin;               /* bic_origin_point: W(K) (segments) */
	double tcp_cwnd, ack_cnt;    /* the TCP-friendly estimate, segments acked toward its next step */
	sim_ns epoch;                /* start of the current epoch; -1: none */
	/* HyStart (5.6+ hosts): the round (bictcp_hystart_reset), the ACK
	 * train and the delay samples, in ns */
	bool found;
	sim_ns round_start, last_ack, delay_min, curr_rtt;
	uint64_t end_seq;
	int sample_cnt;
};
#define BBR_BW_RTTS 10                /* bbr_bw_rtts: the bandwidth filter's window, in rounds */
struct tcp_bbr_priv {
	int mode;                    /* enum bbr_mode (tcp_bbr.c) */
	double bw_round[BBR_BW_RTTS]; /* per round trip, the most delivered/s seen (segments/s) */
	uint64_t round_count;        /* round trips so far */
	uint64_t next_rtt_delivered; /* tp->delivered that ends the current round */
	bool round_start;
	sim_ns min_rtt_ns;           /* windowed min RTT (bbr_min_rtt_win_sec); -1: none */
	sim_ns min_rtt_stamp;
	double pacing_gain, cwnd_gain;
	int cycle_idx;               /* ProbeBW phase, index into bbr_pacing_gain[] */
	sim_ns cycle_stamp;          /* when the phase began */
	double full_bw;              /* the bandwidth at the last 25% growth (bbr_check_full_bw_reached) */
	int full_bw_cnt;             /* rounds since without 25% growth */
	bool full_bw_reached;
	sim_ns probe_rtt_done_stamp; /* 0: not yet timed */
	bool probe_rtt_round_done;
	double prior_cwnd;           /* cwnd before ProbeRTT (bbr_save_cwnd) */
};
struct tcp_dctcp_priv {
	double alpha;                /* the marked fraction's moving average, 0..1 */
	uint64_t next_seq;           /* snd_nxt when the observation window began */
	uint32_t acked_segs, ce_segs; /* delivered and delivered CE in it */
};
union tcp_cc_priv {
	struct tcp_cubic_priv cubic; /* tcp_cubic.c */
	struct tcp_bbr_priv bbr;     /* tcp_bbr.c */
	struct tcp_dctcp_priv dctcp; /* tcp_dctcp.c */
};

/* tcp_chrono's states (enum tcp_chrono: TCP_CHRONO_UNSPEC, _BUSY,
 * _RWND_LIMITED; SNDBUF_LIMITED is not kept) */
enum tcp_chrono_type { CHRONO_IDLE, CHRONO_BUSY, CHRONO_RWND };

/* Every struct tcp_conn starts a cache line (the _Alignas, and sim_init's
 * allocation), so the lines a step reads are the same for every
 * connection. */
/* snd_ssthresh until slow start first ends (the kernel's TCP_INFINITE_SSTHRESH:
 * ss -ti prints no ssthresh) */
#define TCP_SSTHRESH_NONE 1e12

struct tcp_conn {
	_Alignas(64) int id;
	uint32_t goal_window;        /* max_window when goal_now_bytes was taken (tcp_output.c) */
	struct sim *sim;
	struct host *snd_host, *rcv_host;
	struct task *sender, *receiver;
	const struct tcp_cc_ops *cc;

	/* socket behaviour, chosen by whoever builds the socket (run.c, after
	 * tcp_conn_init): TCP and the devices read these, never the app */
	bool tx_page_frags;          /* sent data sits in the socket's page frags (tcp_sendmsg's copy;
	                              * sendfile's pages are the page cache's): acked bytes free them */
	bool owner_backlog;          /* Linux's socket lock: an ACK for a writer inside send() waits in
	                              * sk_backlog (FreeBSD's inpcb lock is the app's own model) */
	bool wake_writer_on_ack;     /* FreeBSD's sowwakeup: every ACK that frees send-buffer space
	                              * wakes the writer (tcp_input.c, FreeBSD 6/7) */
	bool rx_csum_on_copy;        /* the device left the checksum to software: recv() verifies it
	                              * while copying (skb_copy_and_csum_datagram; a NIC without
	                              * offload.csum; loopback's frames are CHECKSUM_UNNECESSARY) */

	/* sender */
	int mss_bytes;               /* mss_now: MTU - IP - TCP - options */
	int size_goal_bytes;
	/* tcp_output.c's current_size_goal, kept while max_window is
	 * goal_window (0 when not yet taken): it divides, and a push asks it up to
	 * three times */
	int goal_now_bytes;
	uint64_t write_seq, snd_una, snd_nxt;
	uint64_t snd_wnd_end;        /* right edge of the peer's window */
	uint64_t snd_sml;            /* end of the last short segment sent (Minshall) */
	uint32_t max_window;         /* largest window the peer advertised */
	/* send_head->len, or 0: not read yet (tcp_output.c's send_head_len
	 * reads it then); always 0 while send_head is the tail, whose len is
	 * write_seq - snd_nxt.  Most pushes find the windows closed and stop;
	 * with this copy, snd_nxt (send_head->seq) and wq.tail (send_head is
	 * the tail when they are equal) they read no skb, whose line is
	 * cold.  Whoever moves send_head or changes its len sets it. */
	uint32_t send_head_len;
	struct skb_list wq;          /* write queue: sent-unacked, then unsent */
	struct skb *send_head;       /* first unsent skb in wq; its seq is snd_nxt */
	int64_t wmem_queued, sndbuf;
	bool sndbuf_locked;          /* SO_SNDBUF set: no autotuning */
	bool tsq_deferred;           /* TCP_TSQ_DEFERRED: the timer fired while the writer owned the socket */
	double snd_cwnd;             /* segments */
	double snd_ssthresh;
	bool cwnd_limited;
	/* what every push reads besides the windows, here beside them: the
	 * pacing state (see RTT and pacing below) and TCP Small Queues
	 * (tcp_small_queue_check, tcp_wfree; 3.6+) */
	bool pacing_needed;          /* sk_pacing_status = SK_PACING_NEEDED (tcp.pacing, or bbr's init) */
	bool tsq_throttled;          /* TSQ_THROTTLED: stopped by the limit, a TX completion restarts it */
	double pacing_Bps;           /* sk_pacing_rate, bytes/s (tcp_update_pacing_rate) */
	sim_ns wstamp_ns;            /* tcp_wstamp_ns: earliest departure of the next frame */
	int64_t tsq_bytes;           /* sk_wmem_alloc: truesize of sent skbs in the qdisc or device */
	/* tcp_chrono (4.10+, 0f87230d1a6c, 5615f88614a4): how long the socket
	 * had data to send or unacked (busy), and of that how long the
	 * receiver's window stopped tcp_write_xmit (rwnd_limited) -- what
	 * tcp_info's tcpi_busy_time and tcpi_rwnd_limited report (ss -ti) */
	uint8_t chrono;              /* enum tcp_chrono_type */
	bool rwnd_stop;              /* the last tcp_write_xmit stopped at the receiver's window */
	/* ACKs for a writer inside send() (sk_backlog), here where the
	 * writer's every step (tcp_writer_release) and the push read: the
	 * chrono's sums, read only when its state changes, are below */
	struct skb_list ack_backlog;
	uint32_t max_packets_out;    /* most segments in flight in the last window (4.3+) */
	uint64_t max_packets_seq;    /* snd_nxt when max_packets_out was taken */
	sim_ns chrono_start;
	sim_ns chrono_ns[2];         /* time in CHRONO_BUSY, CHRONO_RWND */
	union tcp_cc_priv cc_priv;   /* the algorithm's state (tcp_cubic.c) */
	bool sender_waiting;         /* blocked in sk_stream_wait_memory */
	bool nospace;                /* SOCK_NOSPACE: the writer found sndbuf full */
	/* loss recovery (SACK, FACK, D-SACK undo; tcp_input.c 3.6) */
	enum tcp_ca_state ca_state;  /* icsk_ca_state: the diagram above */
	uint64_t high_seq;           /* snd_nxt when recovery began */
	/* ECN's CWR (below), here where tcp_check_conn reads the states */
	uint64_t cwr_high_seq;       /* CWR: snd_nxt at the last ECE reduction; none until snd_una passes */
	bool in_cwr;
	double prior_cwnd, prior_ssthresh;
	int undo_retrans;            /* retransmissions not yet reported D-SACKed */
	bool undo_marker;            /* a reduction that D-SACKs may still undo */
	sim_ns retrans_stamp;        /* when the first retransmission went */
	sim_ns hole_sent_at;         /* when the frame at snd_una was first sent */
	bool dsack_pending;          /* receiver: the next ACK carries a D-SACK */
	struct page_frag frag;       /* the socket's page frag (skb.c accounts it) */

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
	int rcv_wscale;              /* rx_opt.rcv_wscale: window scale we announced */
	int rcv_mss;                 /* icsk_ack.rcv_mss */
	int quick;                   /* quickack segments left */
	int ack_pushed;              /* icsk_ack.pending: ICSK_ACK_PUSHED (1), PUSHED2 (2) (4.0+ here) */
	int last_seg_size;           /* icsk_ack.last_seg_size */
	bool ack_pending;
	bool in_backlog;             /* receiver: its TCP work runs from __release_sock */
	bool ack_deferred;           /* TCP_ACK_DEFERRED: tcp_release_cb sends it (6.6+) */
	bool rcv_ssthresh_clamped;   /* tcp.rcv_ssthresh_clamp_at has raised rcv_ssthresh to the clamp */
	struct evq_timer delack_tm;
	struct cpu *delack_cpu;
	const struct cpu *sk_cpu[2]; /* the CPU that last touched the sender's [0] and receiver's [1] socket */
	bool receiver_waiting;       /* blocked in sk_wait_data */
	struct skb_list rx_backlog;  /* data for a reader inside recv(): prequeue / sk_backlog */
	int64_t rx_backlog_bytes;    /* sk_backlog.len: truesize added, zeroed when __release_sock is done */
	uint64_t space_seq;          /* rcvq_space.seq (autotuning) */
	int64_t space_bytes;         /* rcvq_space.space */
	sim_ns space_time;
	/* the receiver's RTT estimate (rcv_rtt_est, 4.19+ here): the time a
	 * window took to arrive, and the TS option's ms echo */
	int64_t rcv_rtt_us8;         /* rcv_rtt_est.rtt_us: us times 8; 0 = no sample yet */
	uint64_t rcv_rtt_seq;        /* rcv_rtt_est.seq: the window's end when it started */
	sim_ns rcv_rtt_time;         /* rcv_rtt_est.time; 0 = not started */
	int64_t rcv_rtt_last_tsecr;  /* rcv_rtt_last_tsecr: the TS echo (ms) last sampled */
	sim_ns ts_recent_at;         /* sender: the receiver's newest TSval seen (ts_recent), as a time */
	sim_ns rcv_ts_recent_at;     /* receiver: the newest in-order data's TSval (its ACKs' TSecr) */
	int scaling_ratio;           /* tp->scaling_ratio (6.6+): payload per truesize, of 256 */

	/* RTT and pacing (tcp_rtt_estimator; internal pacing, 4.13+; EDT, 4.20+) */
	int64_t srtt_us8;            /* tp->srtt_us: smoothed RTT in us, times 8; 0 = no sample yet */
	uint64_t segs_out;           /* tp->data_segs_out */
	struct evq_timer pace_tm;    /* tp->pacing_timer */
	struct cpu *pace_cpu;        /* where it was armed (HRTIMER_MODE_ABS_PINNED_SOFT) */
	bool pace_armed;
	bool pacing_fq;              /* sk_pacing_status = SK_PACING_FQ: sch_fq paces the socket */
	sim_ns min_rtt_ns;           /* tcp_min_rtt: least RTT sample (TSO autosizing, 5.18+); 0: none */

	/* delivery rate (tcp_rate.c) and ECN (RFC 3168, DCTCP) */
	uint64_t delivered;          /* tp->delivered: segments delivered (acked) */
	sim_ns delivered_at;         /* tp->delivered_mstamp: when delivered last grew */
	sim_ns first_tx_at;          /* tp->first_tx_mstamp: send time of the flight's first skb */
	uint64_t app_limited;        /* tp->app_limited: delivered + in flight when the writer ran dry; 0: no */
	bool ect;                    /* the connection negotiated ECN (the algorithm needs it) */
	uint32_t ce_rcvd_bytes;      /* receiver: CE-marked bytes since the last ACK (echoed as ECE) */
};

void tcp_conn_init(struct sim *sim, struct tcp_conn *tc, int id, struct host *snd, struct host *rcv);

/* Send side, process context on c.  Append up to `bytes` to the tail skb
 * (allocating one if needed); returns bytes appended, 0 when sndbuf is full
 * (the caller then sleeps with tc->sender_waiting set). */
uint32_t tcp_send_append(struct sim *sim, struct cpu *c, struct tcp_conn *tc, uint32_t bytes, bool zerocopy);
/* tcp_push: send what the windows allow; the tail goes too if `push_tail`
 * and Nagle allows. */
void tcp_push(struct sim *sim, struct cpu *c, struct tcp_conn *tc, bool push_tail);
/* tcp_chrono: set after each transmit attempt; read as tcp_info does */
void tcp_chrono_update(struct tcp_conn *tc, sim_ns now);
void tcp_chrono_read(const struct tcp_conn *tc, sim_ns now, sim_ns *busy, sim_ns *rwnd);
/* The push that ends a sendmsg (and the one before it waits for memory):
 * tcp_push, with autocorking (3.14+, f54b311142a9: tcp_should_autocork):
 * a short tail is held while earlier skbs of the socket are still in the
 * qdisc or device (sk_wmem_alloc above the tail's own truesize: only over
 * a NIC, lo and veth orphan at transmit) and the rtx queue is not empty;
 * TSQ_THROTTLED is set so the TX completion (tcp_wfree) pushes it.
 * Unless `more` (MSG_MORE: a splice's pipe with more of the call to come)
 * the unsent tail is marked PSH first (tcp_mark_push). */
void tcp_push_sendmsg(struct sim *sim, struct cpu *c, struct tcp_conn *tc, bool more);

/* Receive side, process context on c: copy up to `max` bytes from the
 * receive queue; returns bytes copied (0: queue empty). */
uint32_t tcp_recv_copy(struct sim *sim, struct cpu *c, struct tcp_conn *tc, uint32_t max);
/* tcp_cleanup_rbuf, once per recv() call as tcp_recvmsg does (at its end,
 * and before it sleeps): ACK a pending ACK over one rcv_mss, or a window
 * that `copied` bytes opened a lot. */
void tcp_recv_done(struct sim *sim, struct cpu *c, struct tcp_conn *tc, int64_t copied);

/* Input, softirq context on c: a data frame or an ACK for tc. */
void tcp_rcv(struct sim *sim, struct cpu *c, struct skb *skb);
/* The transport's receive handler netdev_rx calls (registered by sim_init
 * as sim->proto_rcv): the socket lookup, the owner's backlog or tcp_rcv,
 * and FreeBSD's sowwakeup for a socket that has wake_writer_on_ack. */
void tcp_v4_rcv(struct sim *sim, struct cpu *c, struct skb *skb);

/* tcp_v4_rcv's choice (softirq on c): true if skb was queued for the
 * socket's owner -- the reader is inside recv() (sleeping: prequeue, woken
 * by the first frame; running or preempted: sk_backlog) or a Linux writer
 * is inside send() and not asleep (sk_backlog) -- and is then processed in
 * that task's process context; false if softirq processes it now. */
bool tcp_defer_to_owner(struct sim *sim, struct cpu *c, struct skb *skb);
/* CPU c works on the sender's (side 0) or receiver's (1) socket: its lines
 * move if another CPU touched it last (cost.sock_xcpu, tcp.c). */
void tcp_sock_touch(struct sim *sim, struct cpu *c, struct tcp_conn *tc, int side);
/* The reader processes one frame of its rx_backlog (tcp_prequeue_process,
 * __release_sock) on c: -1 if there was none; else the bytes it copied
 * straight into the reader's buffer (tcp_rcv_established's direct copy,
 * when the reader had read everything and the frame fits in `room`), 0 if
 * the frame went to the receive queue instead.  The caller charges the
 * copy. */
int64_t tcp_reader_backlog_one(struct sim *sim, struct cpu *c, struct tcp_conn *tc, int64_t room);
/* release_sock by the reader / the writer: process all of its backlog. */
void tcp_reader_release(struct sim *sim, struct cpu *c, struct tcp_conn *tc);
void tcp_writer_release(struct sim *sim, struct cpu *c, struct tcp_conn *tc);

/* Wake a writer asleep in sk_stream_wait_memory or in select() (if it is). */
void tcp_wake_writer(struct sim *sim, struct cpu *c, struct tcp_conn *tc);

/* sk_stream_is_writeable: the free send space at least half of what is
 * queued (sk_stream_min_wspace).  tcp_poll reports the socket writable,
 * and sk_stream_write_space wakes its writer, only then. */
static inline bool tcp_stream_writeable(const struct tcp_conn *tc)
{
	return tc->sndbuf - tc->wmem_queued >= tc->wmem_queued / 2;
}

/* The pacing hrtimer expired (tcp_pace_kick -> tcp_tsq_handler); HRTIMER
 * softirq on c: send what is due, or leave it to the writer that owns the
 * socket (tcp_release_cb). */
void tcp_pace_kick(struct sim *sim, struct cpu *c, struct tcp_conn *tc);

/* The delayed-ACK timer fired; runs in softirq context on c. */
void tcp_delack_timer(struct sim *sim, struct cpu *c, struct tcp_conn *tc);

/* Advertised receive window in bytes if an ACK were sent now. */
uint32_t tcp_select_window_now(const struct tcp_conn *tc);

/* FreeBSD tcp_output: send every whole MSS queued now, hold back only a
 * sub-MSS remainder (app.sendfile = freebsd-*; tcp_freebsd.c). */
void tcp_push_whole_mss(struct sim *sim, struct cpu *c, struct tcp_conn *tc);

#endif
