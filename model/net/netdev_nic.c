/*
 * netdev_nic.c: two hosts over a NIC (see netdev_nic.h for what is
 * imitated, and where FreeBSD differs).
 *
 * Events: one per wire frame (the end of its serialisation, when the
 * transmitter takes the next frame), one more per frame when link.delay is
 * not zero (its arrival), one coalescing timer per port.  The transmitter
 * keeps its clock in exact (double) nanoseconds so that rounding each
 * event to the integer clock never accumulates: back-to-back frames start
 * where the previous one ended, not where its event was rounded to.
 *
 * Port states (per host):
 *   transmitter: idle -> (tx_kick, a frame on the ring) busy -> (tx_end) idle;
 *     idle and paused while the peer's RX ring is full (802.3x).
 *   interrupt:   unmasked, not armed -> (frame or completion) armed
 *     -> (timer, or rx/tx-frames reached) masked + hardirq raised
 *     -> (NAPI poll empties the RX ring) unmasked.
 *   NAPI:        idle -> (hardirq) scheduled -> polls of at most link.weight
 *     frames, GRO flushed at the end of each -> idle when the ring is empty.
 */
#include "netdev_nic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "netdev.h"
#include "skb.h"
#include "util.h"

#define PKT_BLOCK 512

/* One Ethernet frame: a TCP segment or a pure ACK. */
struct nic_pkt {
	struct nic_pkt *next;
	struct tcp_conn *conn;
	uint8_t kind;            /* SKB_DATA or SKB_ACK */
	bool last;               /* last wire frame of its driver skb */
	uint32_t len;            /* TCP payload bytes */
	uint64_t seq;            /* data: first byte */
	uint64_t ack_seq;        /* ACK: cumulative ack */
	uint64_t wnd_end;        /* ACK: right edge of the window */
};

struct nic_pkt_block {
	struct nic_pkt_block *next;
	struct nic_pkt items[PKT_BLOCK];
};

struct nic_port {
	struct host *host;
	struct nic_port *peer;
	struct cpu *irq_cpu;

	/* transmit */
	struct skb_list qdisc;   /* waiting for room on the TX ring */
	struct skb_list ring;    /* TX ring: completed, then being sent, then waiting */
	uint32_t ring_slots;     /* driver skbs on the ring */
	uint32_t done;           /* ring skbs (from the head) whose frames all left */
	struct skb *next_tx;     /* ring skb the next frame comes from, NULL: none */
	uint32_t next_frame;     /* index of that frame in next_tx */
	bool busy, paused;
	double free_at_ns;       /* when the transmitter is free (exact) */
	double busy_ns;          /* total line time used */
	uint32_t on_wire;        /* frames sent toward the peer, not yet arrived */

	/* receive */
	struct nic_pkt *rx_head, *rx_tail;
	uint32_t rx_len;

	/* interrupt */
	bool irq_masked;         /* raised; unmasked when NAPI completes */
	uint32_t rx_events, tx_events;
	sim_ns coal_at;
	struct evq_timer coal_tm;

	/* NAPI */
	bool in_poll;
	int poll_frames;
	struct skb *gro[NIC_GRO_FLOWS]; /* held (merging) skbs, oldest first */
	int ngro;
};

struct nic {
	struct nic_port port[2];
	struct nic_pkt *free_pkts;
	struct nic_pkt_block *blocks;
	int hdr_bytes;           /* IP + TCP + options per segment */
};

/* ------------------------------------------------------------------ */
/* wire frames                                                         */

static struct nic_pkt *pkt_get(struct nic *nic)
{
	struct nic_pkt *p = nic->free_pkts;
	if (!p) {
		struct nic_pkt_block *b = xmalloc(sizeof(*b));
		b->next = nic->blocks;
		nic->blocks = b;
		for (int i = PKT_BLOCK - 1; i >= 0; i--) {
			b->items[i].next = nic->free_pkts;
			nic->free_pkts = &b->items[i];
		}
		p = nic->free_pkts;
	}
	nic->free_pkts = p->next;
	memset(p, 0, sizeof(*p));
	return p;
}

static void pkt_put(struct nic *nic, struct nic_pkt *p)
{
	p->next = nic->free_pkts;
	nic->free_pkts = p;
}

/* Line time of a frame carrying an IP packet of ip_bytes, in ns. */
static double frame_ns(const struct sim *sim, uint32_t ip_bytes)
{
	if (ip_bytes < NIC_MIN_PAYLOAD_BYTES)
		ip_bytes = NIC_MIN_PAYLOAD_BYTES;
	return (double)(ip_bytes + NIC_WIRE_OVERHEAD_BYTES) * 8.0 * 1e9 / sim->sc->rate_bps;
}

/* Driver skbs (ring slots, TX completions) of one skb handed to xmit: a
 * frame the stack segmented in software is that many skbs. */
static uint32_t slots_of(const struct sim *sim, const struct skb *skb)
{
	if (skb->kind == SKB_DATA && !sim->sc->tso && skb->segs > 1)
		return skb->segs;
	return 1;
}

static uint32_t frames_of(const struct skb *skb)
{
	return skb->kind == SKB_DATA && skb->segs > 1 ? skb->segs : 1;
}

/* ------------------------------------------------------------------ */
/* interrupt coalescing                                                */

static void irq_fire(struct sim *sim, struct nic_port *p)
{
	evq_timer_cancel(&p->coal_tm);
	p->irq_masked = true;
	p->rx_events = p->tx_events = 0;
	cpu_raise_irq(sim, p->irq_cpu, IRQ_DEV, p);
}

static void coal_ev(struct sim *sim, void *obj, uint64_t arg)
{
	struct nic_port *p = obj;
	(void)arg;
	p->coal_tm.seq = 0;
	irq_fire(sim, p);
}

/* A received frame (rx) or a TX completion while the interrupt is unmasked. */
static void coal_event(struct sim *sim, struct nic_port *p, bool rx)
{
	const struct host_cfg *cfg = p->host->cfg;
	sim_ns delay = rx ? cfg->rx_coal_ns : cfg->tx_coal_ns;

	if (p->irq_masked)
		return; /* NAPI is polling: it finds the work itself */
	if (rx)
		p->rx_events++;
	else
		p->tx_events++;
	if (delay == 0 || (cfg->rx_coal_frames > 0 && p->rx_events >= (uint32_t)cfg->rx_coal_frames) ||
	    (cfg->tx_coal_frames > 0 && p->tx_events >= (uint32_t)cfg->tx_coal_frames)) {
		irq_fire(sim, p);
		return;
	}
	if (!evq_timer_armed(&p->coal_tm) || sim->now + delay < p->coal_at) {
		p->coal_at = sim->now + delay;
		evq_timer_arm(&sim->evq, &p->coal_tm, p->coal_at, coal_ev, p, 0);
	}
}

/* ------------------------------------------------------------------ */
/* transmit: ring, transmitter, wire                                   */

static void rx_arrive(struct sim *sim, struct nic_port *q, struct nic_pkt *pkt);

static void ring_push(const struct sim *sim, struct nic_port *p, struct skb *skb)
{
	skb_list_push(&p->ring, skb);
	p->ring_slots += slots_of(sim, skb);
	if (!p->next_tx) {
		p->next_tx = skb;
		p->next_frame = 0;
	}
}

static bool ring_has_room(const struct sim *sim, const struct nic_port *p, const struct skb *skb)
{
	return p->ring.len == 0 || p->ring_slots + slots_of(sim, skb) <= (uint32_t)sim->sc->tx_ring;
}

static void tx_end_ev(struct sim *sim, void *obj, uint64_t arg);

/* Start the next wire frame if the transmitter is free. */
static void tx_kick(struct sim *sim, struct nic_port *p)
{
	struct nic *nic = sim->dev_state;
	struct skb *skb = p->next_tx;
	struct nic_pkt *pkt;
	uint32_t mss, off;
	double start, dur;

	if (p->busy || !skb)
		return;
	if (p->peer->rx_len + p->on_wire >= (uint32_t)sim->sc->rx_ring) {
		p->paused = true; /* 802.3x PAUSE from the peer */
		return;
	}
	p->paused = false;
	pkt = pkt_get(nic);
	pkt->conn = skb->conn;
	pkt->kind = skb->kind;
	if (skb->kind == SKB_DATA) {
		/* TSO (or a GSO segment list): MSS-sized pieces of the frame */
		mss = skb->segs > 1 && skb->gso_size ? skb->gso_size : skb->len;
		off = p->next_frame * mss;
		pkt->seq = skb->seq + off;
		pkt->len = skb->len - off < mss ? skb->len - off : mss;
	} else {
		pkt->ack_seq = skb->ack_seq;
		pkt->wnd_end = skb->wnd_end;
	}
	if (++p->next_frame == frames_of(skb)) {
		pkt->last = true;
		p->next_tx = skb->next;
		p->next_frame = 0;
	}
	/* back to back: start where the previous frame ended, unrounded */
	start = p->free_at_ns > (double)sim->now - 1.0 ? p->free_at_ns : (double)sim->now;
	dur = frame_ns(sim, (uint32_t)nic->hdr_bytes + pkt->len);
	p->free_at_ns = start + dur;
	p->busy = true;
	p->busy_ns += dur;
	p->on_wire++;
	sim->cnt.wire_busy_ns[p->host->id] = (uint64_t)sim_ns_round(p->busy_ns);
	if (p->host->id == 0)
		sim->cnt.wire_frames++;
	sim_at(sim, sim_ns_round(p->free_at_ns), tx_end_ev, pkt, (uint64_t)p->host->id);
}

static void arrive_ev(struct sim *sim, void *obj, uint64_t arg)
{
	struct nic *nic = sim->dev_state;
	rx_arrive(sim, &nic->port[arg], obj);
}

static void tx_end_ev(struct sim *sim, void *obj, uint64_t arg)
{
	struct nic *nic = sim->dev_state;
	struct nic_port *p = &nic->port[arg];
	struct nic_pkt *pkt = obj;

	p->busy = false;
	if (pkt->last) {
		p->done++; /* its TX completion is posted */
		coal_event(sim, p, false);
	}
	if (sim->sc->delay_ns > 0)
		sim_at(sim, sim->now + sim->sc->delay_ns, arrive_ev, pkt, (uint64_t)p->peer->host->id);
	else
		rx_arrive(sim, p->peer, pkt);
	tx_kick(sim, p);
}

/* dev_queue_xmit on CPU c: the stack's per-frame work, then qdisc or ring. */
static void nic_xmit(struct sim *sim, struct cpu *c, struct skb *skb)
{
	struct nic *nic = sim->dev_state;
	struct nic_port *p = &nic->port[c->host->id];
	const struct scenario *sc = sim->sc;
	const double *cost = c->host->cfg->cost_cycles;

	if (skb->kind == SKB_DATA) {
		cpu_charge(sim, c, COST_TX_FRAME, cost[COST_TX_FRAME]);
		if (!sc->tso && skb->segs > 1) /* GSO: skb_gso_segment in dev_hard_start_xmit */
			cpu_charge(sim, c, COST_TX_SEG, cost[COST_TX_SEG] * skb->segs);
		if (!sc->csum) /* no NETIF_F_HW_CSUM: the stack sums the payload */
			cpu_charge(sim, c, COST_CSUM_BYTE, cost[COST_CSUM_BYTE] * skb->len);
	}
	if (p->qdisc.len == 0 && ring_has_room(sim, p, skb))
		ring_push(sim, p, skb);
	else
		skb_list_push(&p->qdisc, skb);
	tx_kick(sim, p);
}

/* Reap TX completions on c (in the NAPI poll): free the skbs, refill the
 * ring from the qdisc (netif_wake_queue). */
static void tx_reap(struct sim *sim, struct cpu *c, struct nic_port *p)
{
	const double *cost = c->host->cfg->cost_cycles;

	while (p->done > 0) {
		struct skb *skb = skb_list_pop(&p->ring);
		uint32_t n = slots_of(sim, skb);
		INVARIANT(skb && skb != p->next_tx, "nic%d: completion of an skb not sent", p->host->id);
		p->done--;
		p->ring_slots -= n;
		cpu_charge(sim, c, COST_TX_COMPL, cost[COST_TX_COMPL] * n);
		skb_free(sim, c, skb);
	}
	while (p->qdisc.head && ring_has_room(sim, p, p->qdisc.head))
		ring_push(sim, p, skb_list_pop(&p->qdisc));
	tx_kick(sim, p);
}

/* ------------------------------------------------------------------ */
/* receive: ring, LRO/GRO, delivery                                    */

static void rx_arrive(struct sim *sim, struct nic_port *q, struct nic_pkt *pkt)
{
	INVARIANT(q->peer->on_wire > 0, "nic%d: frame arrived that was never sent", q->host->id);
	q->peer->on_wire--;
	pkt->next = NULL;
	if (q->rx_tail)
		q->rx_tail->next = pkt;
	else
		q->rx_head = pkt;
	q->rx_tail = pkt;
	q->rx_len++;
	coal_event(sim, q, true);
}

static struct nic_pkt *rx_pop(struct nic_port *q)
{
	struct nic_pkt *pkt = q->rx_head;
	q->rx_head = pkt->next;
	if (!q->rx_head)
		q->rx_tail = NULL;
	q->rx_len--;
	return pkt;
}

/* The driver builds an skb around a received frame (charged to c). */
static struct skb *skb_of(struct sim *sim, struct cpu *c, const struct nic_pkt *pkt)
{
	struct skb *skb = skb_alloc(sim, c, pkt->kind);
	skb->conn = pkt->conn;
	skb->dst_host = c->host;
	if (pkt->kind == SKB_DATA) {
		skb->seq = pkt->seq;
		skb->len = pkt->len;
		skb->segs = 1;
		skb->truesize += (int)pkt->len;
	} else {
		skb->ack_seq = pkt->ack_seq;
		skb->wnd_end = pkt->wnd_end;
	}
	return skb;
}

/* Hand held skb i to the stack (napi_gro_complete). */
static void gro_flush_one(struct sim *sim, struct cpu *c, struct nic_port *q, int i)
{
	struct skb *skb = q->gro[i];

	for (int j = i + 1; j < q->ngro; j++)
		q->gro[j - 1] = q->gro[j];
	q->ngro--;
	if (skb->segs < 2)
		skb->gso_size = 0; /* a lone segment is not a GSO skb */
	netdev_rx(sim, c, skb);
}

static void gro_flush_all(struct sim *sim, struct cpu *c, struct nic_port *q)
{
	while (q->ngro > 0)
		gro_flush_one(sim, c, q, 0);
}

static int gro_find(const struct nic_port *q, const struct tcp_conn *tc)
{
	for (int i = 0; i < q->ngro; i++)
		if (q->gro[i]->conn == tc)
			return i;
	return -1;
}

/* One frame off the RX ring: merge it (LRO/GRO) or pass it up. */
static void rx_frame(struct sim *sim, struct cpu *c, struct nic_port *q, const struct nic_pkt *pkt)
{
	struct nic *nic = sim->dev_state;
	const struct scenario *sc = sim->sc;
	int i = gro_find(q, pkt->conn);

	if (pkt->kind == SKB_DATA && (sc->gro || sc->lro)) {
		if (i >= 0) {
			struct skb *h = q->gro[i];
			/* same flow, next in sequence, no longer than the first
			 * segment, and the whole below 64 KB (skb_gro_receive) */
			if (h->seq + h->len == pkt->seq && pkt->len <= h->gso_size &&
			    (uint64_t)nic->hdr_bytes + h->len + pkt->len < NIC_GRO_MAX_BYTES && h->segs < UINT16_MAX) {
				h->len += pkt->len;
				h->segs++;
				h->truesize += (int)pkt->len;
				sim->cnt.gro_merges++;
				cpu_charge(sim, c, COST_GRO_SEG, c->host->cfg->cost_cycles[COST_GRO_SEG]);
				if (pkt->len < h->gso_size)
					gro_flush_one(sim, c, q, i); /* a short segment ends the merge */
				return;
			}
			gro_flush_one(sim, c, q, i);
		}
		if (q->ngro == NIC_GRO_FLOWS)
			gro_flush_one(sim, c, q, 0); /* oldest flow out */
		q->gro[q->ngro] = skb_of(sim, c, pkt);
		q->gro[q->ngro]->gso_size = pkt->len;
		q->ngro++;
		return;
	}
	if (i >= 0)
		gro_flush_one(sim, c, q, i); /* keep the flow's order */
	netdev_rx(sim, c, skb_of(sim, c, pkt));
}

/* ------------------------------------------------------------------ */
/* hardirq and NAPI                                                    */

static void nic_irq(struct sim *sim, struct cpu *c, void *obj)
{
	struct nic_port *p = obj;

	cpu_charge(sim, c, COST_HARDIRQ, c->host->cfg->cost_cycles[COST_HARDIRQ]);
	sim->cnt.hardirqs++;
	cpu_napi_schedule(sim, c, p); /* the interrupt stays masked until the poll completes */
}

/* One step of the port's NAPI poll on c: at the start of a poll, reap the
 * TX completions; then one frame off the RX ring.  True while the NAPI
 * instance stays scheduled. */
static bool nic_napi_poll(struct sim *sim, struct cpu *c, void *napi)
{
	struct nic *nic = sim->dev_state;
	struct nic_port *q = napi;

	if (!q->in_poll) {
		q->in_poll = true;
		q->poll_frames = 0;
		cpu_charge(sim, c, COST_NAPI_POLL, c->host->cfg->cost_cycles[COST_NAPI_POLL]);
		tx_reap(sim, c, q);
	}
	if (q->rx_head) {
		struct nic_pkt *pkt = rx_pop(q);
		q->poll_frames++;
		cpu_charge(sim, c, COST_RX_SEG, c->host->cfg->cost_cycles[COST_RX_SEG]);
		rx_frame(sim, c, q, pkt);
		pkt_put(nic, pkt);
		if (q->peer->paused)
			tx_kick(sim, q->peer); /* room on the ring: PAUSE ends */
	}
	if (q->rx_head && q->poll_frames < sim->sc->dev_weight && c->netrx_budget > 0)
		return true; /* this poll goes on */
	gro_flush_all(sim, c, q);
	q->in_poll = false;
	if (q->rx_head)
		return true; /* weight or budget spent: polled again */
	/* napi_complete + unmask: completions posted meanwhile start a delay */
	q->irq_masked = false;
	if (q->done > 0)
		coal_event(sim, q, false);
	return false;
}

/* ------------------------------------------------------------------ */
/* set-up                                                              */

static void nic_init(struct sim *sim)
{
	struct nic *nic = xcalloc(1, sizeof(*nic));

	INVARIANT(sim->nhosts == 2, "nic path needs two hosts, has %d", sim->nhosts);
	nic->hdr_bytes = IP_HDR_BYTES + TCP_HDR_BYTES + (sim->sc->timestamps ? TCP_TS_OPT_BYTES : 0);
	for (int h = 0; h < 2; h++) {
		struct nic_port *p = &nic->port[h];
		struct host *host = &sim->hosts[h];
		INVARIANT(host->cfg->irq_cpu < host->ncpus, "host %d: irq_cpu %d of %d CPUs", h, host->cfg->irq_cpu,
			  host->ncpus);
		p->host = host;
		p->peer = &nic->port[1 - h];
		p->irq_cpu = &host->cpus[host->cfg->irq_cpu];
	}
	sim->dev_state = nic;
}

static void nic_release(struct sim *sim)
{
	struct nic *nic = sim->dev_state;
	struct nic_pkt_block *b;

	if (!nic)
		return;
	b = nic->blocks;
	while (b) {
		struct nic_pkt_block *n = b->next;
		free(b);
		b = n;
	}
	free(nic);
	sim->dev_state = NULL;
}

const struct netdev_ops netdev_nic = {
	.name = "nic",
	.xmit = nic_xmit,
	.init = nic_init,
	.release = nic_release,
	.napi_poll = nic_napi_poll,
	.irq = nic_irq,
};

void nic_inject_rx(struct sim *sim, int host, struct tcp_conn *tc, uint64_t seq, uint32_t len)
{
	struct nic *nic = sim->dev_state;
	struct nic_port *q = &nic->port[host];
	struct nic_pkt *pkt = pkt_get(nic);

	pkt->conn = tc;
	pkt->kind = SKB_DATA;
	pkt->seq = seq;
	pkt->len = len;
	q->peer->on_wire++;
	rx_arrive(sim, q, pkt);
}
