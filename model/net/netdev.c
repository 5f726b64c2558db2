/*
 * netdev.c: the loopback path and the common receive entry (see netdev.h).
 *
 * Loopback, after drivers/net/loopback.c and net/core/dev.c (3.6):
 * dev_queue_xmit -> loopback_xmit -> netif_rx, which queues the skb on the
 * transmitting CPU's softnet backlog and raises NET_RX; the softirq runs
 * when the transmit path re-enables bottom halves, on the same CPU.  The
 * frame crosses as one skb whatever its number of segments (NETIF_F_GSO on
 * lo; no segmentation, no checksum).  GRO is not used: netif_rx does not
 * go through napi_gro_receive.
 *
 * The NIC path (link.type = nic) is netdev_nic.c; both paths hand received
 * skbs to netdev_rx().  Which path a link.type is: netdev_table.c.
 */
#include "netdev.h"

#include "cpu.h"
#include "skb.h"
#include "util.h"

/* netif_rx would drop the frame; the model recovers only from frames that
 * arrive out of order (nothing is lost: no retransmission timer), so a run
 * that overflows the backlog cannot go on. */
static void backlog_overflow(struct sim *sim, struct cpu *c)
{
	sim_fail(sim, "[link] backlog: %d packets overflowed on cpu%d; drops (and timeout retransmission) are not modelled, "
		      "raise link.backlog", sim->sc->backlog_max, c->id);
}

static void lo_deliver(struct sim *sim, void *obj, uint64_t arg)
{
	struct skb *skb = obj;
	struct cpu *c = &skb->dst_host->cpus[arg];
	if (!netdev_backlog_enqueue(sim, c, skb))
		backlog_overflow(sim, c);
	cpu_kick(sim, c);
}

/* lo without TSO (ethtool -K lo tso off): a GSO frame of TCP (built when
 * the device has GSO, and always since 4.13) needs NETIF_F_TSO to cross
 * whole (netif_needs_gso, net_gso_ok), so validate_xmit_skb (6.x;
 * dev_hard_start_xmit in 3.x) cuts it into MSS-sized skbs (skb_segment: a
 * new skb each), and each crosses, and is received, on its own.  So is a
 * frame of gso_max_size or more with TSO on (netdev_sw_gso). */
static void lo_segment(struct sim *sim, struct cpu *c, struct skb *gso,
		       void (*deliver)(struct sim *, struct cpu *, struct skb *))
{
	uint64_t seq = gso->seq, end = gso->seq + gso->len;
	uint32_t mss = gso->gso_size;

	cpu_charge(sim, c, COST_TX_SEG, c->host->cfg->cost_cycles[COST_TX_SEG] * gso->segs);
	while (seq < end) {
		struct skb *seg = skb_alloc(sim, c, SKB_DATA);
		seg->conn = gso->conn;
		seg->dst_host = gso->dst_host;
		seg->seq = seq;
		seg->ts_at = gso->ts_at; /* the TCP header (and its options) copied to each */
		seg->sent_at = gso->sent_at;
		seg->len = (uint32_t)(end - seq < mss ? end - seq : mss);
		seg->segs = 1;
		seg->gso_cut = true;
		seg->psh = gso->psh && seq + seg->len == end; /* tcp_gso_segment: the last keeps PSH */
		seg->truesize += (int)seg->len;
		seq += seg->len;
		deliver(sim, c, seg);
	}
	skb_free(sim, c, gso);
}

bool netdev_sw_gso(const struct sim *sim, const struct host *h, const struct skb *skb)
{
	const struct scenario *sc = sim->sc;

	if (skb->kind != SKB_DATA || skb->segs <= 1)
		return false;
	if (!sc->tso)
		return true;
	/* the length first: it rules out nearly every frame */
	return (int64_t)skb->len + seg_hdr_bytes(sc->timestamps) >= sc->gso_max_bytes && host_kernel_at_least(h, 6, 7);
}

static void lo_deliver_now(struct sim *sim, struct cpu *c, struct skb *skb);
static void lo_deliver_later(struct sim *sim, struct cpu *c, struct skb *skb);

static void lo_xmit(struct sim *sim, struct cpu *c, struct skb *skb)
{
	const struct scenario *sc = sim->sc;

	skb_orphan(sim, c, skb); /* loopback_xmit, veth_xmit: the socket's TSQ claim ends here */
	if (skb->kind == SKB_DATA)
		cpu_charge(sim, c, COST_TX_FRAME, c->host->cfg->cost_cycles[COST_TX_FRAME]);
	if (netdev_sw_gso(sim, c->host, skb))
		lo_segment(sim, c, skb, sc->delay_ns > 0 ? lo_deliver_later : lo_deliver_now);
	else if (sc->delay_ns > 0)
		lo_deliver_later(sim, c, skb);
	else
		lo_deliver_now(sim, c, skb);
	/* every skb of this dev_queue_xmit is on the backlog: its
	 * local_bh_enable runs them in one NET_RX (from a task's send) */
	if (sc->delay_ns == 0)
		cpu_softirq_inline(sim, c);
}

static void lo_deliver_later(struct sim *sim, struct cpu *c, struct skb *skb)
{
	sim_at(sim, sim->now + sim->sc->delay_ns, lo_deliver, skb, (uint64_t)c->id);
}

static void lo_deliver_now(struct sim *sim, struct cpu *c, struct skb *skb)
{
	if (!netdev_backlog_enqueue(sim, c, skb))
		backlog_overflow(sim, c);
}


const struct netdev_ops netdev_loopback = {
	.name = "loopback",
	.xmit = lo_xmit,
};

static void veth_xmit(struct sim *sim, struct cpu *c, struct skb *skb)
{
	const struct scenario *sc = sim->sc;
	const double *cost = c->host->cfg->cost_cycles;

	if (netdev_sw_gso(sim, c->host, skb) && sc->gro) {
		/* segmented for the device, merged again by the peer's GRO */
		cpu_charge(sim, c, COST_TX_FRAME, cost[COST_TX_FRAME]);
		cpu_charge(sim, c, COST_TX_SEG, cost[COST_TX_SEG] * skb->segs);
		cpu_charge(sim, c, COST_GRO_SEG, cost[COST_GRO_SEG] * skb->segs);
		cpu_charge(sim, c, COST_NAPI_POLL, cost[COST_NAPI_POLL]);
		sim->cnt.gro_merges += skb->segs - 1u;
		if (sc->delay_ns > 0) {
			lo_deliver_later(sim, c, skb);
		} else {
			lo_deliver_now(sim, c, skb);
			cpu_softirq_inline(sim, c);
		}
		return;
	}
	lo_xmit(sim, c, skb);
}

const struct netdev_ops netdev_veth = {
	.name = "veth",
	.xmit = veth_xmit,
};

void netdev_rx(struct sim *sim, struct cpu *c, struct skb *skb)
{
	/* the IP layer runs here, in the softirq; the transport is the handler
	 * sim_init registered (inet_protos: tcp_v4_rcv).  A pure ACK takes the
	 * same path up to the socket lookup, sk_filter and tcp_add_backlog:
	 * on the live machine the reader's CPU spends 14-18% of its busy time
	 * in the NET_RX of the ACKs it sends at MTU 1500, of it 1.4-2.0% in
	 * tcp_ack (validation/live/amd-epyc-2cpu.profile.txt).  The model
	 * charges it from 4.0 on; its 3.x profiles were fitted with ACKs
	 * paying only ack_rx */
	if (rx_gso_seg(c, skb))
		cpu_charge(sim, c, COST_RX_GSO_SEG, c->host->cfg->cost_cycles[COST_RX_GSO_SEG]);
	else if (skb->kind != SKB_ACK || host_kernel_at_least(c->host, 4, 0))
		cpu_charge(sim, c, COST_RX_FRAME, c->host->cfg->cost_cycles[COST_RX_FRAME]);
	sim->proto_rcv(sim, c, skb);
}

bool netdev_backlog_enqueue(struct sim *sim, struct cpu *c, struct skb *skb)
{
	if (c->backlog.len >= (uint32_t)sim->sc->backlog_max)
		return false;
	skb_list_push(&c->backlog, skb);
	if (!c->backlog_sched) { /* ____napi_schedule: raise NET_RX */
		c->backlog_sched = true;
		c->netrx_pending = true;
	}
	return true;
}

void netdev_process_backlog(struct sim *sim, struct cpu *c)
{
	struct skb *skb = skb_list_pop(&c->backlog);
	/* process_backlog's napi completion (napi->state = 0).  Until 3.18 it
	 * completed as it spliced the last batch off input_pkt_queue, so an
	 * skb sent while that batch ran (on lo, its ACK) raised NET_RX again
	 * and took a run of its own.  Since 3.19 it completes only on finding
	 * the queue empty after the packets: that skb is spliced and run in
	 * the same NET_RX (4.0's form, checked; taken to have come with 3.19's
	 * d75b1ade567f, "net: less interrupt masking in NAPI"). */
	bool early = !host_kernel_at_least(c->host, 3, 19);
	if (early && !c->backlog.len)
		c->backlog_sched = false;
	netdev_rx(sim, c, skb);
	if (!early && !c->backlog.len)
		c->backlog_sched = false;
}

bool netdev_napi_poll(struct sim *sim, struct cpu *c, void *napi)
{
	INVARIANT(sim->dev->napi_poll, "NAPI poll without a handler");
	return sim->dev->napi_poll(sim, c, napi);
}

void netdev_irq(struct sim *sim, struct cpu *c, void *obj)
{
	INVARIANT(sim->dev->irq, "device interrupt without a handler");
	sim->dev->irq(sim, c, obj);
}
