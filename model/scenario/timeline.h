/*
 * timeline: a run's first milliseconds, step by step, as a live machine's
 * tracepoints show them (tools/wakeups-live --startup: tcp:tcp_probe and
 * tcp:tcp_rcvbuf_grow), so that the two starts can be laid side by side.
 *
 * Time 0 is the first data the first connection's receiving socket takes
 * (tcp_rcv_established, where tcp_probe fires); each step counts the data
 * skbs, their bytes and the pure ACKs its sockets took, and keeps the last
 * values the step saw: the sender's cwnd, ssthresh, srtt and snd_wnd as an
 * ACK reaches it (before the ACK is processed, as tcp_probe has them), the
 * receiver's advertised rcv_wnd as data reaches it, and its rcvbuf at
 * each autotuning growth (tcp_rcv_space_adjust, 4.19+; the value before
 * the growth, as the tracepoint reports it).  Each step also counts the
 * two tasks' calls and the reader's sleeps, as syscalls:sys_enter_write,
 * syscalls:sys_enter_read, sched:sched_switch (out in S), sched:sched_wakeup,
 * ipi:ipi_send_cpu and sched:sched_wake_idle_without_ipi show them: the
 * writer's write()s, the reader's read()s, its sleeps and wakeups, and
 * the IPIs sent to the reader's CPU and its wakeups without one.  The
 * caller owns the struct and its steps; the run fills them.
 */
#ifndef TCPSIM_TIMELINE_H
#define TCPSIM_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

/* ssthresh before slow start ends, as the kernel prints it
 * (TCP_INFINITE_SSTHRESH) */
#define TIMELINE_INFINITE_SSTHRESH 2147483647.0

struct timeline_step {
	uint32_t segs;       /* data skbs that reached the receiving socket */
	uint64_t bytes;      /* their payload */
	uint32_t acks;       /* pure ACKs that reached the sending socket */
	bool snd, rcv, grow; /* whether the step saw an ACK, data, a growth */
	double cwnd, ssthresh; /* the sender's at its last ACK in the step (segments) */
	int64_t srtt_us, snd_wnd;
	int64_t rcv_wnd;     /* the receiver's at its last data in the step */
	int64_t rcvbuf;      /* at the last growth in the step, before it (as tcp_rcvbuf_grow reports it) */
	uint32_t writes, reads; /* the writer's write() calls, the reader's read() calls */
	uint32_t sleeps, wakes; /* the reader's */
	uint32_t ipis, no_ipi;  /* IPIs sent to the reader's CPU; its wakeups without one */
};

struct cpu;

struct timeline {
	int64_t step_ns;     /* > 0 */
	int nsteps;          /* > 0 */
	int64_t t0;          /* when the first data arrived; -1 before */
	struct timeline_step *steps; /* nsteps of them, zeroed by the caller */
	const struct cpu *reader_cpu; /* the reader's CPU at its last sleep (its IPIs' target); NULL before */
};

/* The step `now` falls in, or NULL before the first data or past the last
 * step; data: this is data reaching the receiving socket (which starts
 * the timeline). */
struct timeline_step *timeline_step_at(struct timeline *tl, int64_t now, bool data);

#endif
