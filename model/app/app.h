/*
 * app: the programs netperf runs, as tasks.
 *
 * The sender loops on send() (TCP_STREAM: copies send_size bytes of user
 * memory into the socket) or sendfile() (TCP_SENDFILE: hands page-cache
 * pages to the socket without a copy).  The receiver (netserver) loops on
 * recv(recv_size): it blocks when the queue is empty and returns with what
 * it has once it copied something (SO_RCVLOWAT = 1).
 *
 * An app is a const ops table; step() runs one step in process context on
 * the task's CPU: it charges its cost and returns APP_RAN, or APP_BLOCK
 * after arranging to be woken.
 */
#ifndef TCPSIM_APP_H
#define TCPSIM_APP_H

#include "sched.h" /* struct app_ops: what a task runs */

struct rng;

/* A program's own state, one per task (sim_init allocates them; each
 * task's `app` points to its own), each on a cache line of its own. */
struct app_state {
	_Alignas(64) int64_t call_left; /* sender: bytes left in this send call */
	int64_t call_done;          /* receiver: bytes copied in this recv call */
	int sends_since_select;     /* iperf3's sender: write()s since its last select() */
	bool in_select;             /* iperf3's receiver: in select(), its read() not begun */
	bool releasing;             /* the call's last step ran: release_sock and return next */
	bool entering;              /* the call's entry ran, lock_sock next (locks_after_entry) */
	bool cleaned;               /* receiver: tcp_cleanup_rbuf ran, its ACK's frames still due here */
	uint64_t file_off;          /* sendfile: offset in the file */
	sim_ns next_wake;           /* monitor: next timer wakeup */
	int64_t chunk_left;         /* FreeBSD sendfile: bytes still to map in this chunk */
	int64_t chunk_ready;        /* ... mapped, not yet handed to the socket */
	int64_t pipe_bytes;         /* Linux sendfile (4.14+): bytes in its pipe, not yet spliced to the socket */
	bool pipe_release;          /* ... the pipe's sendmsg ran: release_sock, then the next fill */
	bool select_polled;         /* iperf3's sender: its select() ran and slept, the write() is next */
	struct rng *arrivals;       /* monitor, host.monitor_arrivals = poisson: its wakeups' stream */
};

extern const struct app_ops app_stream_sender;
extern const struct app_ops app_sendfile_sender;
extern const struct app_ops app_receiver;
extern const struct app_ops app_monitor; /* monitor.c */
extern const struct app_ops app_kswapd;  /* monitor.c */

/* Start background monitor task t, the k-th of its host's: its first
 * wakeup (periodic: at phase (k + 1) / (monitors + 1) of the period). */
void monitor_start(struct sim *sim, struct task *t, int k);

#endif
