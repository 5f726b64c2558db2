/*
 * app.c: netperf's senders and the netserver receive loop (see app.h).
 *
 * Sender step: enter the call (syscall cost), then append one skb's worth:
 * TCP_STREAM copies the bytes (copy cost per byte, and socket page frags,
 * see skb.h); TCP_SENDFILE adds page-cache pages (a cost per page touched,
 * no copy, no page allocation).  When the call's bytes are in, tcp_push
 * sends what the windows allow and the call returns.  A full sndbuf puts
 * the task to sleep until ACKs free space (sk_stream_wait_memory).
 *
 * Receiver step: enter recv() (syscall cost; iperf3's server first waits
 * in a select() that locks nothing, then enters read() as a step of its
 * own), copy one skb's worth out (copy cost per byte); return when
 * recv_size bytes were copied or the queue is empty after copying
 * something; sleep on an empty queue (sk_wait_data; iperf3: in select()).  Software checksumming is charged where the receiving
 * device does not offload it (NIC path with offload.csum off).
 */
#include "app.h"

#include "cpu.h"
#include "sched.h"
#include "skb.h"
#include "tcp.h"
#include "util.h"

/* Entering a send or receive call: the system call, and for iperf3's loop
 * (iperf_run_client/iperf_run_server) the select() it makes first.  The
 * server reads once per stream per select() (iperf_recv); the client writes
 * up to test->multisend = 10 blocks per select() when no rate is set
 * (iperf_send, iperf_defaults in iperf_api.c), and its select() sleeps
 * while the socket is not writable (iperf3_select_sleeps).  Both from 3.0.4 to 3.15
 * (3.16 gives each stream a thread of its own that blocks in its calls,
 * commit 6e75b072).  The server's iperf_recv reads its block with Nread
 * (net.c): read() again, for the rest of the block, until it is in or a
 * read() finds nothing (EAGAIN: the stream sockets are non-blocking); the
 * model's one read() per select() is the shorter loop, and Nread's is
 * held back (validation/live/held-back/iperf3-nread.patch: it does not
 * improve the four live hosts' validation). */
#define IPERF3_MULTISEND 10

/* The first connection's start (run --timeline, timeline.h): a write()
 * or read() call begun, a reader's sleep.  Out of line: a run without a
 * timeline pays one test of sim->tl a call (the inline wrappers below). */
enum start_event { START_WRITE, START_READ, START_SLEEP };

__attribute__((noinline, cold)) static void start_note(struct sim *sim, struct cpu *c, const struct task *t,
							enum start_event ev)
{
	struct timeline_step *s;

	if (t->conn != sim->conns)
		return;
	if (ev == START_SLEEP)
		sim->tl->reader_cpu = c; /* before the first data too: its first wakeup's IPI */
	if ((s = timeline_step_at(sim->tl, sim->now, false)) == NULL)
		return;
	if (ev == START_WRITE)
		s->writes++;
	else if (ev == START_READ)
		s->reads++;
	else
		s->sleeps++;
}

static inline void start_call(struct sim *sim, struct cpu *c, const struct task *t, bool sender)
{
	if (__builtin_expect(sim->tl != NULL, 0))
		start_note(sim, c, t, sender ? START_WRITE : START_READ);
}

static inline void reader_sleeps(struct sim *sim, struct cpu *c, struct task *t)
{
	if (__builtin_expect(sim->tl != NULL, 0))
		start_note(sim, c, t, START_SLEEP);
}

/* iperf3's writer makes a select() before this write: its first, or the
 * first after a burst of IPERF3_MULTISEND or a write that would block */
static bool select_due(const struct task *t)
{
	int since = t->app->sends_since_select;
	return since == 0 || since >= IPERF3_MULTISEND;
}

/* A read()'s cost.syscall (cost.recv_syscall where set): its entry (syscall entry, fdget, vfs_read,
 * sock_recvmsg) before tcp_recvmsg takes the socket, and its own code
 * under lock_sock (tcp_recvmsg_locked's walk of the queue,
 * tcp_rcv_space_adjust, __tcp_cleanup_rbuf, release_sock), host
 * .recv_locked_share of it, charged in the step that takes the socket
 * (4.14+, where the read takes its socket after its entry:
 * locks_after_entry).  On amd-epyc-2cpu-2596 69-76% of the read's
 * syscall-key samples hold the socket, 90-94% of all its samples
 * (tools/wakeups-live --profile, validation/live/README.md). */
static double read_locked_share(const struct cpu *c)
{
	return host_kernel_at_least(c->host, 4, 14) ? c->host->cfg->recv_locked_share : 0;
}

/* The key a call is priced by: a reader's own (recv_key) where its host
 * sets it, else the one both calls share (key) */
static enum cost_id call_key(const double *cost, bool sender, enum cost_id key, enum cost_id recv_key)
{
	return !sender && cost[recv_key] > 0 ? recv_key : key;
}

/* A call's entry: the application's own code before it (cost.user; a
 * reader's cost.recv_user where set), then a write's whole cost.syscall, a
 * read's cost.recv_syscall (cost.syscall when 0) less the part
 * read_locked_part charges once it holds its socket */
static void call_entry(struct sim *sim, struct cpu *c, bool sender)
{
	const double *cost = c->host->cfg->cost_cycles;
	double part = sender ? 1 : 1 - read_locked_share(c);
	enum cost_id user = call_key(cost, sender, COST_USER, COST_RECV_USER);
	enum cost_id k = call_key(cost, sender, COST_SYSCALL, COST_RECV_SYSCALL);

	if (cost[user] > 0) /* the application's own code before the call */
		cpu_charge(sim, c, user, cost[user]);
	cpu_charge(sim, c, k, part * cost[k]);
}

static void read_locked_part(struct sim *sim, struct cpu *c)
{
	const double *cost = c->host->cfg->cost_cycles;
	enum cost_id k = call_key(cost, false, COST_SYSCALL, COST_RECV_SYSCALL);
	double share = read_locked_share(c);

	if (share > 0)
		cpu_charge(sim, c, k, share * cost[k]);
}

static void call_begin(struct sim *sim, struct cpu *c, struct task *t, bool sender)
{
	const double *cost = c->host->cfg->cost_cycles;
	start_call(sim, c, t, sender);
	call_entry(sim, c, sender);
	if (sim->sc->loop != LOOP_IPERF3)
		return;
	if (sender) {
		if (!select_due(t)) {
			t->app->sends_since_select++;
			return;
		}
		t->app->sends_since_select = 1;
		if (t->app->select_polled) { /* charged before it slept */
			t->app->select_polled = false;
			return;
		}
	}
	cpu_charge(sim, c, COST_POLL, cost[COST_POLL]);
}

/* iperf3's writer makes its select() before a burst of writes
 * (iperf_run_client; call_begin), and tcp_poll reports the socket writable
 * only while sk_stream_is_writeable: the free space at least half of what
 * is queued, so above two thirds of sndbuf, though a write would still go
 * in.  Then select() sleeps (tcp_poll sets SOCK_NOSPACE) until an ACK's
 * sk_stream_write_space finds the socket writable again -- the same test
 * that wakes a writer the full sndbuf stopped (tcp_input.c).  netperf's
 * blocking send() sleeps only when sndbuf is full.  From iperf 3.0.4 to
 * 3.15, whose client sockets are non-blocking in one select() loop. */
static bool iperf3_select_sleeps(struct sim *sim, struct cpu *c, struct task *t)
{
	struct tcp_conn *tc = t->conn;

	if (sim->sc->loop != LOOP_IPERF3 || !select_due(t) || tcp_stream_writeable(tc))
		return false;
	cpu_charge(sim, c, COST_POLL, c->host->cfg->cost_cycles[COST_POLL]);
	t->app->select_polled = true;
	tc->nospace = true;
	tc->sender_waiting = true;
	sched_block(sim, c, t);
	return true;
}

/* The kernel's writer and reader hold their socket (lock_sock) through
 * the copy and transmit of their call and release it (release_sock, which
 * runs the backlog) on the way out; what arrives meanwhile waits in the
 * backlog.  A step's work is charged as one chunk after its effects, so the
 * call's last step releases the socket in the step that follows it, at
 * the end of that chunk.  The kernel has done so in every era; the model
 * does it from 4.14 (no prequeue: on lo the transmitting CPU's softirq
 * does the receive work, and the owner's window decides where a frame's
 * TCP work and its ACK go) and keeps the release at the start of the step
 * for the 3.x profiles, whose costs were made with it (docs/eras.md). */
static bool owns_through_step(const struct cpu *c)
{
	return host_kernel_at_least(c->host, 4, 14);
}

/* The owner's own frames are still due on its CPU (4.14+: segments after
 * a GSO frame's first are softirq steps of their own), so it keeps its
 * socket: writer_release, receiver_return. */
static bool own_frames_due(const struct cpu *c)
{
	return owns_through_step(c) && c->backlog.len > 0 && !c->bh_off;
}

/* release_sock runs the ACKs in the backlog, and what they send goes out
 * inside it: dev_queue_xmit's local_bh_enable receives the frame (on lo
 * every segment software GSO cut from it) before __release_sock takes the
 * next skb, and the socket stays owned until the backlog is empty.  The
 * model receives a GSO frame's segments after the first as softirq steps
 * of their own (cpu_softirq_inline, 4.14+); the writer keeps its socket
 * until its CPU has received them, so no frame sent from an ACK on the
 * other CPU meanwhile overtakes them (the kernel queues that ACK in the
 * owner's backlog).  True: released. */
static bool writer_release(struct sim *sim, struct cpu *c, struct task *t)
{
	tcp_writer_release(sim, c, t->conn);
	return !own_frames_due(c);
}

/* tcp_recvmsg takes the socket (lock_sock) only after the read()'s entry:
 * the entry (syscall entry, fdget, sock_recvmsg: cost.syscall less
 * host.recv_locked_share of it, read_locked_share) runs with the socket
 * free, so what arrives meanwhile is the softirq's (a frame's TCP work),
 * not the reader's release_sock.  On the 2695 MHz EPYC
 * guest (validation/live/README.md, "Where the calls hold the socket")
 * tcp_recvmsg_locked is 73-83% of ksys_read's samples; do_syscall_64 adds
 * more outside both.  From 4.14 (with owns_through_step: the 3.x
 * profiles' costs were made with the socket taken at the call's start) the
 * read's entry is a step of its own and the socket is taken at the start
 * of the next.  tcp_sendmsg does the same for write(), and the model does
 * not: its write() charges its entry with the socket held.  Doing so for
 * both calls (validation/live/held-back/lock-after-entry.patch) moves every
 * figure of the reference host away (held-out throughput 22.6%, the
 * busier CPU right in 69 of 96 rows; README, "The reader takes its socket
 * after the call's entry"): the writer's side waits for what the model
 * lacks there. */
static bool locks_after_entry(const struct cpu *c)
{
	return owns_through_step(c);
}

/* A sendfile() writer touches no byte it sends: its page-cache pages
 * (iperf3 -Z sends the same block of its file each time) are written by
 * nobody and were last read by the reader's own copy. */
static bool sends_page_cache(const struct task *writer)
{
	return writer->ops == &app_sendfile_sender;
}

/* n bytes copied whose lines the peer task's CPU touched last (on one
 * host: the writer fills pages the reader read last, the reader copies
 * what the writer wrote): cost.copy_xcpu per byte on top of the copy's
 * own cost, 0 (charging nothing) unless the profile sets it; nothing for
 * the reader of page-cache pages (sends_page_cache). */
static void copy_xcpu(struct sim *sim, struct cpu *c, const struct task *peer, uint32_t n)
{
	double cy = c->host->cfg->cost_cycles[COST_COPY_XCPU];

	if (cy > 0 && peer->host == c->host && peer->cpu != c && !sends_page_cache(peer))
		cpu_charge(sim, c, COST_COPY_XCPU, cy * n);
}

/* The write returns to the application (counted as one write). */
static void writer_done(struct sim *sim, struct task *t)
{
	t->in_call = false;
	sim->cnt.writes++;
}

/* The end of tcp_sendmsg: release_sock (the ACKs in the backlog). */
static void writer_return(struct sim *sim, struct cpu *c, struct task *t)
{
	tcp_writer_release(sim, c, t->conn);
	writer_done(sim, t);
}

/*
 * Linux's sendfile(2) is splice_direct_to_actor: it fills a pipe of 16
 * pages from the page cache (filemap_splice_read: each page's lookup and
 * reference, cost.sendfile_page) with the socket free, then splices the
 * pipe to the socket, and again until the call's bytes are sent.  Since
 * 6.5 one sendmsg(MSG_SPLICE_PAGES) takes the pipe's pages (commit
 * 2dc334f1a63a, "splice, net: Use sendmsg(MSG_SPLICE_PAGES) rather than
 * ->sendpage()"); before, tcp_sendpage took each page, with lock_sock and
 * release_sock around each.  So ACKs that come while the pipe fills are
 * the softirq's, not the backlog's: the machine's TCPBacklogCoalesce is
 * near 0 with sendfile at every send size, and tens of thousands a second
 * with write() at 256 KB (validation/live/amd-epyc-2cpu-2096-1204.csv).
 * The model does so from 4.14 (owns_through_step); earlier profiles keep
 * one hold for the whole call, as their costs were fitted with it.
 */
static uint32_t splice_pipe_bytes(const struct task *t, const struct cpu *c)
{
	if (t->ops != &app_sendfile_sender || !owns_through_step(c))
		return 0;
	return host_kernel_at_least(c->host, 6, 5) ? 16 * PAGE_BYTES : PAGE_BYTES;
}

/* The file's next n bytes taken from the page cache: cost.sendfile_page
 * for each page they touch. */
static void file_pages(struct sim *sim, struct cpu *c, struct task *t, uint64_t n)
{
	uint64_t first = t->app->file_off / PAGE_BYTES, last = (t->app->file_off + n - 1) / PAGE_BYTES;

	cpu_charge(sim, c, COST_SENDFILE_PAGE, c->host->cfg->cost_cycles[COST_SENDFILE_PAGE] * (double)(last - first + 1));
	t->app->file_off += n;
}

/* Fill the pipe from the file, the socket free. */
static void splice_fill(struct sim *sim, struct cpu *c, struct task *t, uint32_t pipe)
{
	int64_t fill = t->app->call_left < (int64_t)pipe ? t->app->call_left : (int64_t)pipe;

	file_pages(sim, c, t, (uint64_t)fill);
	t->app->pipe_bytes = fill;
	t->in_call = false;
}

/* tcp_sendmsg_locked's work per byte it queues, outside the copy: its
 * loop over the size goal's chunks, skb_entail and the write queue's
 * memory accounting (sk_wmem_schedule, sk_mem_charge), and with
 * MSG_SPLICE_PAGES (sendfile since 6.5) skb_splice_from_iter's per page.
 * The writer pays it in its call, with the socket held, whichever CPU
 * transmits the bytes later (an ACK in the other CPU's softirq sends what
 * a window held back); cost.send_byte, cost.send_spliced_byte (0: nothing;
 * all eras). */
static void send_bytes(struct sim *sim, struct cpu *c, uint32_t n, bool sendfile)
{
	const double *cost = c->host->cfg->cost_cycles;
	enum cost_id k = sendfile && cost[COST_SEND_SPLICED_BYTE] > 0 ? COST_SEND_SPLICED_BYTE : COST_SEND_BYTE;

	cpu_charge(sim, c, k, cost[k] * n);
}

static enum app_result sender_step(struct sim *sim, struct cpu *c, struct task *t, bool sendfile)
{
	struct tcp_conn *tc = t->conn;
	const double *cost = c->host->cfg->cost_cycles;
	uint32_t want, n, pipe = sendfile ? splice_pipe_bytes(t, c) : 0;

	if (t->app->releasing) { /* the call's last step is done */
		if (!writer_release(sim, c, t))
			return APP_RAN; /* its segments first, the socket still owned */
		t->app->releasing = false;
		writer_done(sim, t);
		return APP_RAN;
	}
	if (t->app->pipe_release) { /* the pipe's sendmsg is done: release, fill the next */
		if (!writer_release(sim, c, t))
			return APP_RAN;
		t->app->pipe_release = false;
		splice_fill(sim, c, t, pipe);
		return APP_RAN;
	}
	if (t->app->call_left == 0 && !t->in_call && iperf3_select_sleeps(sim, c, t))
		return APP_BLOCK;
	if (pipe && t->app->call_left == 0) { /* a new call: its first pipe */
		call_begin(sim, c, t, true);
		t->app->call_left = sim->sc->send_size;
		splice_fill(sim, c, t, pipe);
		return APP_RAN;
	}
	if (!t->in_call) {
		if (!pipe) {
			call_begin(sim, c, t, true);
			t->app->call_left = sim->sc->send_size;
		}
		t->in_call = true; /* lock_sock */
	}
	want = t->app->call_left > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)t->app->call_left;
	if (pipe && want > t->app->pipe_bytes)
		want = (uint32_t)t->app->pipe_bytes;
	n = tcp_send_append(sim, c, tc, want, sendfile);
	if (n == 0) {
		/* sndbuf full: push what we have; sk_stream_wait_memory releases
		 * the socket (the ACKs in its backlog are processed) and sleeps
		 * if that freed nothing, until ACKs free space */
		tcp_push_sendmsg(sim, c, tc, false); /* flags & ~MSG_MORE */
		if (!writer_release(sim, c, t) || tc->wmem_queued < tc->sndbuf)
			return APP_RAN;
		tc->sender_waiting = true;
		t->app->sends_since_select = 0; /* iperf3: EAGAIN, back to select() */
		sched_block(sim, c, t);
		return APP_BLOCK;
	}
	send_bytes(sim, c, n, sendfile);
	if (pipe) {
		t->app->pipe_bytes -= n; /* its pages were charged when the pipe was filled */
	} else if (sendfile) {
		file_pages(sim, c, t, n);
	} else {
		cpu_charge(sim, c, COST_COPY_BYTE, cost[COST_COPY_BYTE] * n);
		copy_xcpu(sim, c, tc->receiver, n);
		skb_frag_use(sim, c, &tc->frag, n);
	}
	t->app->call_left -= n;
	if (t->app->call_left == 0) {
		tcp_push_sendmsg(sim, c, tc, false);
		if (owns_through_step(c))
			t->app->releasing = true; /* release_sock after this step's copy and transmit */
		else
			writer_return(sim, c, t);
	} else if (pipe && t->app->pipe_bytes == 0) {
		tcp_push_sendmsg(sim, c, tc, true); /* splice_direct_to_actor: SPLICE_F_MORE */
		t->app->pipe_release = true;
	}
	return APP_RAN;
}

static enum app_result stream_step(struct sim *sim, struct cpu *c, struct task *t)
{
	return sender_step(sim, c, t, false);
}

/*
 * FreeBSD's sendfile(2), sys/kern/uipc_syscalls.c, before and after the
 * 2006 rewrite that the report measures ("Much improved sendfile(2) kernel
 * implementation").  Both do the same work per page of the file
 * (vm_page_lookup/grab and wire, sf_buf_alloc, an mbuf with the page as
 * external storage; cost.sendfile_page).  They differ in when they hand
 * data to TCP and when they sleep:
 *
 *  freebsd-old (do_sendfile, FreeBSD 6): one page at a time.  While
 *    sbspace < sb_lowat -- MCLBYTES, 2048, the default soreserve() sets --
 *    sbwait(); then pru_send (tcp_usr_send: sbappendstream + tcp_output)
 *    for that one page.  So tcp_output runs once per page and, with TSO,
 *    sends frames of the 2-3 whole MSS a page completes.
 *  freebsd-new (kern_sendfile after the rewrite): sb_lowat is raised to
 *    sb_hiwat / 2, and the sender sleeps until that much space is free
 *    (or the rest of the file fits); an inner loop then turns as many pages
 *    as the free space holds into one mbuf chain, and one pru_send hands
 *    the chain to the socket: one tcp_output, 64 KB TSO frames.
 *
 * The socket buffer is FreeBSD's: sb_hiwat is SO_SNDBUF as given (not
 * doubled as Linux does; net.inet.tcp.sendspace = 32768 when not set) and
 * space is counted in data bytes.  tcp_input's sowwakeup() wakes the
 * sleeping writer on every ACK that frees data (netdev.c); the writer
 * re-checks its low water mark and may sleep again.  The kernel's
 * tcp_output is tcp_push_whole_mss() (tcp_freebsd.c).
 */
#define BSD_MCLBYTES 2048u          /* sys/param.h; default sb_lowat of a send buffer */
#define BSD_TCP_SENDSPACE 32768     /* net.inet.tcp.sendspace default */

static int64_t bsd_hiwat(const struct sim *sim)
{
	return sim->sc->sndbuf_bytes > 0 ? sim->sc->sndbuf_bytes : BSD_TCP_SENDSPACE;
}

/* sbspace(&so->so_snd): sb_hiwat - sb_cc, sb_cc = unacknowledged + unsent */
static int64_t bsd_sbspace(const struct sim *sim, const struct tcp_conn *tc)
{
	return bsd_hiwat(sim) - (int64_t)(tc->write_seq - tc->snd_una);
}

static enum app_result bsd_sbwait(struct sim *sim, struct cpu *c, struct task *t)
{
	t->conn->sender_waiting = true;
	sched_block(sim, c, t);
	return APP_BLOCK;
}

static void bsd_call_begin(struct sim *sim, struct cpu *c, struct task *t)
{
	cpu_charge(sim, c, COST_SYSCALL, c->host->cfg->cost_cycles[COST_SYSCALL]);
	t->in_call = true;
	t->app->call_left = sim->sc->send_size;
	t->app->chunk_left = t->app->chunk_ready = 0;
}

/* Bytes of the file from the current offset to the end of its page. */
static uint32_t bsd_page_bytes(const struct task *t, int64_t limit)
{
	int64_t n = PAGE_BYTES - (uint32_t)(t->app->file_off % PAGE_BYTES);
	return (uint32_t)(n < limit ? n : limit);
}

/* sbappendstream: n bytes onto the send queue; returns what went in (less
 * only if the model's own skb accounting is full, see tcp_send_append). */
static uint32_t bsd_append(struct sim *sim, struct cpu *c, struct tcp_conn *tc, uint32_t n)
{
	uint32_t done = 0;
	while (done < n) {
		uint32_t k = tcp_send_append(sim, c, tc, n - done, true);
		if (k == 0)
			break;
		done += k;
	}
	return done;
}

static enum app_result bsd_old_step(struct sim *sim, struct cpu *c, struct task *t)
{
	struct tcp_conn *tc = t->conn;
	uint32_t n, k;

	if (!t->in_call)
		bsd_call_begin(sim, c, t);
	if (bsd_sbspace(sim, tc) < (int64_t)BSD_MCLBYTES)
		return bsd_sbwait(sim, c, t);
	n = bsd_page_bytes(t, t->app->call_left);
	cpu_charge(sim, c, COST_SENDFILE_PAGE, c->host->cfg->cost_cycles[COST_SENDFILE_PAGE]);
	k = bsd_append(sim, c, tc, n);
	t->app->file_off += k;
	t->app->call_left -= k;
	tcp_push_whole_mss(sim, c, tc); /* pru_send -> tcp_output, every page */
	if (k < n)
		return bsd_sbwait(sim, c, t);
	if (t->app->call_left == 0)
		t->in_call = false;
	return APP_RAN;
}

static enum app_result bsd_new_step(struct sim *sim, struct cpu *c, struct task *t)
{
	struct tcp_conn *tc = t->conn;
	uint32_t n, k;

	if (!t->in_call)
		bsd_call_begin(sim, c, t);
	if (t->app->chunk_left == 0 && t->app->chunk_ready == 0) {
		/* outer loop: wait for half the buffer, unless the rest fits */
		int64_t space = bsd_sbspace(sim, tc);
		if (space < t->app->call_left && (space <= 0 || space < bsd_hiwat(sim) / 2))
			return bsd_sbwait(sim, c, t);
		t->app->chunk_left = space < t->app->call_left ? space : t->app->call_left;
	}
	if (t->app->chunk_left > 0) {
		/* inner loop: one more page onto the private mbuf chain */
		n = bsd_page_bytes(t, t->app->chunk_left);
		cpu_charge(sim, c, COST_SENDFILE_PAGE, c->host->cfg->cost_cycles[COST_SENDFILE_PAGE]);
		t->app->file_off += n;
		t->app->chunk_left -= n;
		t->app->chunk_ready += n;
		return APP_RAN;
	}
	/* pru_send of the chain: sbappendstream, then tcp_output sends it as
	 * frames of the size goal (one skb's worth per step) */
	n = t->app->chunk_ready > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)t->app->chunk_ready;
	k = tcp_send_append(sim, c, tc, n, true);
	if (k == 0)
		return bsd_sbwait(sim, c, t);
	t->app->chunk_ready -= k;
	t->app->call_left -= k;
	if (t->app->chunk_ready == 0) {
		tcp_push_whole_mss(sim, c, tc);
		if (t->app->call_left == 0)
			t->in_call = false;
	}
	return APP_RAN;
}

static enum app_result sendfile_step(struct sim *sim, struct cpu *c, struct task *t)
{
	switch (sim->sc->sendfile) {
	case SENDFILE_FREEBSD_OLD:
		return bsd_old_step(sim, c, t);
	case SENDFILE_FREEBSD_NEW:
		return bsd_new_step(sim, c, t);
	case SENDFILE_LINUX:
		break;
	}
	return sender_step(sim, c, t, true);
}

/* The end of tcp_recvmsg: tcp_cleanup_rbuf, then release_sock.  The ACK
 * tcp_cleanup_rbuf sends is received by this CPU's softirq before the call
 * goes on (on lo: netif_rx, run at dev_queue_xmit's local_bh_enable), the
 * socket still owned; where it opens the writer's window, the frame the
 * writer's socket sends from that softirq (tcp_ack -> tcp_data_snd_check),
 * and every segment software GSO cuts from it, comes back in the same
 * NET_RX run and waits in the reader's backlog (tcp_add_backlog, where it
 * merges), for release_sock to take.  The model receives a GSO frame's
 * segments after the first as softirq steps of their own
 * (cpu_softirq_inline), so the reader keeps its socket until its CPU has
 * received them, as writer_release does (own_frames_due).  True:
 * returned. */
static bool receiver_return(struct sim *sim, struct cpu *c, struct task *t)
{
	if (!t->app->cleaned) {
		tcp_recv_done(sim, c, t->conn, t->app->call_done);
		t->app->cleaned = true;
	}
	if (own_frames_due(c))
		return false; /* its ACK's frames first, the socket still owned */
	t->app->cleaned = false;
	tcp_reader_release(sim, c, t->conn);
	t->in_call = false;
	sim->cnt.reads++;
	return true;
}

/* cost.recv_copy_cold_byte (0: nothing) for the n bytes the reader just
 * copied: each was followed by the rest of this copy and the rcv_nxt -
 * copied_seq bytes still unread; those followed by more than the host's
 * cache_bytes left the cache. */
static void recv_copy_cold(struct sim *sim, struct cpu *c, const struct tcp_conn *tc, uint32_t n)
{
	double cy = c->host->cfg->cost_cycles[COST_RECV_COPY_COLD];
	int64_t cold = (int64_t)(tc->rcv_nxt - tc->copied_seq) + (int64_t)n - c->host->cfg->cache_bytes;

	if (cy > 0 && cold > 0)
		cpu_charge(sim, c, COST_RECV_COPY_COLD, cy * (double)(cold < (int64_t)n ? cold : (int64_t)n));
}

/* n bytes copied to the user buffer: the copy (and software checksum)
 * cost; the call returns once recv_size bytes are in (release_sock). */
static void receiver_copied(struct sim *sim, struct cpu *c, struct task *t, uint32_t n)
{
	const double *cost = c->host->cfg->cost_cycles;

	/* bytes a writer's copy wrote cost recv_copy_byte (if set); page-cache
	 * pages nobody writes, recv_copy_spliced_byte (if set); else copy_byte */
	enum cost_id k = sends_page_cache(t->conn->sender) ? COST_RECV_COPY_SPLICED : COST_RECV_COPY_BYTE;

	if (cost[k] <= 0)
		k = COST_COPY_BYTE;
	cpu_charge(sim, c, k, cost[k] * n);
	if (k == COST_RECV_COPY_BYTE)
		recv_copy_cold(sim, c, t->conn, n);
	copy_xcpu(sim, c, t->conn->sender, n);
	if (t->conn->rx_csum_on_copy)
		cpu_charge(sim, c, COST_CSUM_BYTE, cost[COST_CSUM_BYTE] * n);
	t->app->call_done += n;
	if (t->app->call_done >= sim->sc->recv_size) {
		if (owns_through_step(c))
			t->app->releasing = true; /* tcp_cleanup_rbuf and release_sock after the copy */
		else
			receiver_return(sim, c, t);
	}
}

/* iperf3's server reads a non-blocking socket (O_NONBLOCK on its stream
 * sockets, 3.0.4 - 3.15), and tcp_recvmsg_locked with no timeout (timeo
 * 0) copies the receive queue and, once that is empty with something
 * copied, returns: the `!timeo` break comes before __sk_flush_backlog, so
 * the frames that reached the backlog during the read wait for its
 * release_sock and the next read, where a blocking read (netperf) takes
 * them in and goes on copying.  The model from 4.14 (no prequeue); before,
 * and for netperf, its reader takes its backlog's frames before it copies
 * (the model's simplification of tcp_recvmsg's order). */
static bool reads_nonblocking(const struct sim *sim, const struct cpu *c)
{
	return sim->sc->loop == LOOP_IPERF3 && host_kernel_at_least(c->host, 4, 14);
}

static enum app_result receiver_step(struct sim *sim, struct cpu *c, struct task *t)
{
	struct tcp_conn *tc = t->conn;
	int64_t want;
	uint32_t n;

	if (t->app->releasing) {
		t->app->releasing = !receiver_return(sim, c, t);
		return APP_RAN;
	}
	if (!t->in_call && t->app->entering) {
		t->app->entering = false; /* lock_sock: what arrives from here on waits in the backlog */
		t->in_call = true;
		read_locked_part(sim, c);
	} else if (!t->in_call) {
		if (sim->sc->loop == LOOP_IPERF3) {
			/* iperf_run_server: select() until the socket is readable
			 * (tcp_poll: data queued), then read(); select() holds no
			 * socket lock, so frames meanwhile are the softirq's, and a
			 * reader woken there pays its read() call before it copies
			 * and ACKs */
			if (!t->app->in_select) {
				cpu_charge(sim, c, COST_POLL, c->host->cfg->cost_cycles[COST_POLL]);
				t->app->in_select = true;
				return APP_RAN; /* tcp_poll looks at the end of it */
			}
			if (!tc->rq.head) {
				tc->receiver_waiting = true;
				reader_sleeps(sim, c, t);
				sched_block(sim, c, t);
				return APP_BLOCK;
			}
			t->app->in_select = false;
			start_call(sim, c, t, false);
			call_entry(sim, c, false);
			t->app->call_done = 0;
			if (locks_after_entry(c))
				t->app->entering = true; /* the socket is not ours until the next step */
			else
				t->in_call = true;
			return APP_RAN; /* the copy follows the call's entry */
		}
		call_begin(sim, c, t, false);
		t->app->call_done = 0;
		if (locks_after_entry(c)) {
			t->app->entering = true;
			return APP_RAN;
		}
		t->in_call = true;
	}
	want = sim->sc->recv_size - t->app->call_done;
	/* frames left to us (prequeue, sk_backlog) first: their TCP work is
	 * ours, and one that fits is copied straight into our buffer; a
	 * non-blocking read copies its queue and, that empty with something
	 * copied, returns: the backlog is its release_sock's */
	if (!reads_nonblocking(sim, c) || (!tc->rq.head && t->app->call_done == 0)) {
		int64_t direct = tcp_reader_backlog_one(sim, c, tc, want);
		if (direct >= 0) {
			if (direct > 0)
				receiver_copied(sim, c, t, (uint32_t)direct);
			return APP_RAN;
		}
	}
	n = tcp_recv_copy(sim, c, tc, want > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)want);
	if (n == 0) {
		if (t->app->call_done > 0) {
			t->app->releasing = !receiver_return(sim, c, t); /* return what we have */
			return APP_RAN;
		}
		tcp_recv_done(sim, c, tc, 0); /* before sk_wait_data */
		tc->receiver_waiting = true;
		reader_sleeps(sim, c, t);
		sched_block(sim, c, t);
		return APP_BLOCK;
	}
	receiver_copied(sim, c, t, n);
	return APP_RAN;
}

const struct app_ops app_stream_sender = {.name = "netperf TCP_STREAM", .step = stream_step};
const struct app_ops app_sendfile_sender = {.name = "netperf TCP_SENDFILE", .step = sendfile_step};
const struct app_ops app_receiver = {.name = "netserver", .step = receiver_step};
