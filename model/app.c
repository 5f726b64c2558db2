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
 * Receiver step: enter recv() (syscall cost), copy one skb's worth out
 * (copy cost per byte); return when recv_size bytes were copied or the
 * queue is empty after copying something; sleep on an empty queue
 * (sk_wait_data).  Software checksumming is charged where the receiving
 * device does not offload it (NIC path with offload.csum off).
 */
#include "app.h"

#include "cpu.h"
#include "sched.h"
#include "skb.h"
#include "tcp.h"
#include "util.h"

#define PAGE_BYTES 4096u

static enum app_result sender_step(struct sim *sim, struct cpu *c, struct task *t, bool sendfile)
{
	struct tcp_conn *tc = t->conn;
	const double *cost = c->host->cfg->cost_cycles;
	uint32_t want, n;

	if (!t->in_call) {
		cpu_charge(sim, c, COST_SYSCALL, cost[COST_SYSCALL]);
		t->in_call = true;
		t->call_left = sim->sc->send_size;
		t->calls++;
	}
	want = t->call_left > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)t->call_left;
	n = tcp_send_append(sim, c, tc, want, sendfile);
	if (n == 0) {
		/* sndbuf full: push what we have and sleep until ACKs free space */
		tcp_push(sim, c, tc, true);
		tc->sender_waiting = true;
		sched_block(sim, c, t);
		return APP_BLOCK;
	}
	if (sendfile) {
		uint64_t first = t->file_off / PAGE_BYTES, last = (t->file_off + n - 1) / PAGE_BYTES;
		cpu_charge(sim, c, COST_SENDFILE_PAGE, cost[COST_SENDFILE_PAGE] * (double)(last - first + 1));
		t->file_off += n;
	} else {
		cpu_charge(sim, c, COST_COPY_BYTE, cost[COST_COPY_BYTE] * n);
		skb_frag_use(sim, c, tc, n);
	}
	t->call_left -= n;
	if (t->call_left == 0) {
		tcp_push(sim, c, tc, true);
		t->in_call = false;
	}
	return APP_RAN;
}

static enum app_result stream_step(struct sim *sim, struct cpu *c, struct task *t)
{
	return sender_step(sim, c, t, false);
}

static enum app_result sendfile_step(struct sim *sim, struct cpu *c, struct task *t)
{
	return sender_step(sim, c, t, true);
}

static enum app_result receiver_step(struct sim *sim, struct cpu *c, struct task *t)
{
	struct tcp_conn *tc = t->conn;
	const double *cost = c->host->cfg->cost_cycles;
	int64_t want;
	uint32_t n;

	if (!t->in_call) {
		cpu_charge(sim, c, COST_SYSCALL, cost[COST_SYSCALL]);
		t->in_call = true;
		t->call_done = 0;
		t->calls++;
	}
	want = sim->sc->recv_size - t->call_done;
	n = tcp_recv_copy(sim, c, tc, want > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)want);
	if (n == 0) {
		if (t->call_done > 0) {
			t->in_call = false; /* return what we have */
			return APP_RAN;
		}
		tc->receiver_waiting = true;
		sched_block(sim, c, t);
		return APP_BLOCK;
	}
	cpu_charge(sim, c, COST_COPY_BYTE, cost[COST_COPY_BYTE] * n);
	if (sim->sc->link_type == LINK_NIC && !sim->sc->csum)
		cpu_charge(sim, c, COST_CSUM_BYTE, cost[COST_CSUM_BYTE] * n);
	t->call_done += n;
	if (t->call_done >= sim->sc->recv_size)
		t->in_call = false;
	return APP_RAN;
}

const struct app_ops app_stream_sender = {.name = "netperf TCP_STREAM", .step = stream_step};
const struct app_ops app_sendfile_sender = {.name = "netperf TCP_SENDFILE", .step = sendfile_step};
const struct app_ops app_receiver = {.name = "netserver", .step = receiver_step};
