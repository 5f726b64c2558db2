/*
 * netdev_nic.c: two hosts over a NIC (see netdev_nic.h for what is
 * imitated, and where FreeBSD differs).
 *
 * Events: one per wire frame (the end of its serialisation, when the
 * transmitter takes the next frame), one more per frame when link.delay is
 * not zero (its arrival), one coalescing timer per port.  Of a port's
 * frame end and oldest arrival only the earlier is queued, and the next
 * one that is the next event anyway is taken without a queue entry: a
 * burst of back-to-back frames and their arrivals is one event from the
 * queue (wire_run); the order of events is the same.  The transmitter
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
	uint16_t txq;            /* the TX queue it left from */
	uint32_t len;            /* TCP payload bytes */
	uint64_t seq;            /* data: first byte */
	uint64_t ack_seq;        /* ACK: cumulative ack */
	uint64_t wnd_end;        /* ACK: right edge of the window */
	bool ce;                 /* data: marked Congestion Experienced */
	bool psh;                /* data: PSH (the driver skb's, on its last piece) */
	uint32_t ece_bytes;      /* ACK: the CE-marked bytes it echoes */
	sim_ns ts_at;            /* TS option: TSval (ACK) or TSecr (data), as a time */
	sim_ns ts2_at;           /*   and its other half: TSecr (ACK) or TSval (data) */
	sim_ns arrive_at;        /* in flight: its arrival event's time */
	uint64_t arrive_seq;     /*   and seq */
};

struct nic_pkt_block {
	struct nic_pkt_block *next;
	struct nic_pkt items[PKT_BLOCK];
};

/* One queue pair of a port: TX ring and qdisc, RX ring, interrupt, NAPI. */
struct nic_queue {
	struct nic_port *port;
	int index;
	struct cpu *irq_cpu;     /* its interrupt's CPU (smp_affinity_list) */

	/* transmit */
	struct skb_list qdisc;   /* waiting for room on the TX ring */
	struct skb_list ring;    /* TX ring: completed, then being sent, then waiting */
	uint32_t ring_slots;     /* driver skbs on the ring */
	uint32_t done;           /* ring skbs (from the head) whose frames all left */
	struct skb *next_tx;     /* ring skb the next frame comes from, NULL: none */
	uint32_t next_frame;     /* index of that frame in next_tx */

	/* receive */
	struct nic_pkt *rx_head, *rx_tail;
	uint32_t rx_len;

	/* interrupt */
	bool irq_masked;         /* raised; unmasked when NAPI completes */
	uint32_t rx_events, tx_events;
	sim_ns coal_at;
	struct evq_timer coal_tm;
	struct evq_timer fq_wd;  /* sch_fq's watchdog (qdisc_watchdog): the next departure time */
	sim_ns fq_wd_at;

	/* NAPI */
	bool in_poll;
	int poll_frames;
	struct skb *gro[NIC_GRO_FLOWS]; /* held (merging) skbs, oldest first */
	int ngro;
};

struct nic_port {
	struct host *host;
	struct nic_port *peer;

	/* the transmitter, shared by the queues' TX rings */
	bool busy, paused;
	int tx_cur;              /* queue whose ring the transmitter serves */
	double free_at_ns;       /* when the transmitter is free (exact) */
	double busy_ns;          /* total line time used */
	uint32_t on_wire;        /* frames sent toward the peer, not yet arrived */
	/* the frame on the wire while busy, its end's event key, and whether
	 * that event is queued (else it waits behind fly_head's: wire_run) */
	struct nic_pkt *tx_pkt;
	sim_ns tx_end_at;
	uint64_t tx_end_seq;
	bool tx_queued;
	/* the frames past their line time (link.delay > 0), oldest first, and
	 * whether the oldest one's arrival is queued (else it waits behind the
	 * frame end's) */
	struct nic_pkt *fly_head, *fly_tail;
	bool fly_queued;
	uint64_t backlog_bytes;  /* payload queued (the queues' qdiscs and rings) not yet on the wire */

	struct nic_queue *q;     /* host.queues of them */
	int nq;
	int *queue_of_cpu;       /* first queue whose interrupt is on CPU i, -1: none */
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
static uint32_t slots_of(const struct sim *sim, const struct host *h, const struct skb *skb)
{
	if (netdev_sw_gso(sim, h, skb))
		return skb->segs;
	return 1;
}

static uint32_t frames_of(const struct skb *skb)
{
	return skb->kind == SKB_DATA && skb->segs > 1 ? skb->segs : 1;
}

/* ------------------------------------------------------------------ */
/* queues: RSS, aRFS, RPS/RFS                                          */

/* The flow's receive hash at host h (the NIC's Toeplitz hash of the
 * 4-tuple, skb->hash): a fixed mixing (splitmix64's finaliser) of the
 * connection, the direction and the run's seed, which stands for the
 * ephemeral port the connection happened to get. */
static uint32_t flow_hash(const struct sim *sim, const struct tcp_conn *tc, int h)
{
	uint64_t x = sim->sc->seed * 0x9e3779b97f4a7c15u + (uint64_t)sim->flow_id(tc) * 2u + (uint64_t)h + 1u;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
	return (uint32_t)((x ^ (x >> 31)) >> 32);
}

/* RSS: the indirection table's entry for the hash; ethtool's default
 * table (ethtool_rxfh_indir_default) has NIC_RSS_INDIR entries, entry i
 * pointing at queue i % queues. */
static struct nic_queue *rss_queue(const struct sim *sim, const struct nic_port *p, const struct tcp_conn *tc)
{
	return &p->q[(flow_hash(sim, tc, p->host->id) % NIC_RSS_INDIR) % (uint32_t)p->nq];
}

/* The CPU the socket's owner on this host last ran on, as its recvmsg and
 * sendmsg record it (sock_rps_record_flow): the transport says which. */
static struct cpu *flow_cpu(const struct sim *sim, const struct nic_port *p, const struct tcp_conn *tc)
{
	return sim->flow_cpu(tc, p->host->id);
}

/* The queue a frame of tc arrives on at port p.  aRFS: the NIC's filter
 * sends the flow to the queue whose interrupt is on the reader's CPU (the
 * driver's cpu_rmap), if one is; otherwise RSS. */
static struct nic_queue *rx_queue(const struct sim *sim, const struct nic_port *p, const struct tcp_conn *tc)
{
	if (p->nq == 1)
		return &p->q[0];
	if (p->host->cfg->rx_steering == STEER_ARFS) {
		int qi = p->queue_of_cpu[flow_cpu(sim, p, tc)->id];
		if (qi >= 0)
			return &p->q[qi];
	}
	return rss_queue(sim, p, tc);
}

/* The CPU whose backlog gets a received skb (get_rps_cpu): the poll's own
 * CPU with RSS alone, a CPU of the host by the flow hash with RPS (rps_cpus
 * = every CPU), the reader's CPU with RFS and aRFS. */
static struct cpu *steer_cpu(const struct sim *sim, struct cpu *c, const struct nic_port *p, const struct tcp_conn *tc)
{
	switch (p->host->cfg->rx_steering) {
	case STEER_RSS:
		break;
	case STEER_RPS:
		return &p->host->cpus[flow_hash(sim, tc, p->host->id) % (uint32_t)p->host->ncpus];
	case STEER_RFS:
	case STEER_ARFS:
		return flow_cpu(sim, p, tc);
	}
	return c;
}

/* netif_receive_skb after GRO: the stack on c, or (RPS/RFS) the skb queued
 * on another CPU's backlog (enqueue_to_backlog), which a function-call IPI
 * wakes when its backlog was not yet scheduled (rps_ipi_queued, sent with
 * net_rps_send_ipi). */
static void nic_deliver(struct sim *sim, struct cpu *c, struct nic_queue *q, struct skb *skb)
{
	struct cpu *t = steer_cpu(sim, c, q->port, skb->conn);
	bool scheduled;

	if (t == c) {
		netdev_rx(sim, c, skb);
		return;
	}
	scheduled = t->backlog_sched;
	if (!netdev_backlog_enqueue(sim, t, skb)) {
		sim_fail(sim, "[link] backlog: %d packets overflowed on host %d cpu%d (%s.rx_steering); drops are not "
			      "modelled, raise link.backlog", sim->sc->backlog_max, t->host->id, t->id,
			 t->host->id ? "rhost" : "host");
		return;
	}
	sim->cnt.rps_steered++;
	if (!scheduled) {
		cpu_charge(sim, c, COST_IPI_SEND, c->host->cfg->cost_cycles[COST_IPI_SEND]);
		sim->cnt.cal_ipis++;
		sim->cnt.host[t->host->id].cal_ipis++;
		cpu_raise_irq_at(sim, t, sim->now, IRQ_IPI_CAL);
	}
}

/* ------------------------------------------------------------------ */
/* interrupt coalescing                                                */

static void irq_fire(struct sim *sim, struct nic_queue *q)
{
	evq_timer_cancel(&q->coal_tm);
	q->irq_masked = true;
	q->rx_events = q->tx_events = 0;
	cpu_raise_irq(sim, q->irq_cpu, IRQ_DEV, q);
}

static void coal_ev(struct sim *sim, void *obj, uint64_t arg)
{
	struct nic_queue *q = obj;
	(void)arg;
	q->coal_tm.seq = 0;
	irq_fire(sim, q);
}

/* A received frame (rx) or a TX completion while the interrupt is unmasked. */
static void coal_event(struct sim *sim, struct nic_queue *q, bool rx)
{
	const struct host_cfg *cfg = q->port->host->cfg;
	sim_ns delay = rx ? cfg->rx_coal_ns : cfg->tx_coal_ns;

	if (q->irq_masked)
		return; /* NAPI is polling: it finds the work itself */
	if (rx)
		q->rx_events++;
	else
		q->tx_events++;
	if (delay == 0 || (cfg->rx_coal_frames > 0 && q->rx_events >= (uint32_t)cfg->rx_coal_frames) ||
	    (cfg->tx_coal_frames > 0 && q->tx_events >= (uint32_t)cfg->tx_coal_frames)) {
		irq_fire(sim, q);
		return;
	}
	if (!evq_timer_armed(&q->coal_tm) || sim->now + delay < q->coal_at) {
		q->coal_at = sim->now + delay;
		evq_timer_arm(&sim->evq, &q->coal_tm, q->coal_at, coal_ev, q, 0);
	}
}

/* ------------------------------------------------------------------ */
/* transmit: rings, transmitter, wire                                  */

static void rx_arrive(struct sim *sim, struct nic_port *p, struct nic_pkt *pkt);

static void ring_push(const struct sim *sim, struct nic_queue *q, struct skb *skb)
{
	skb_list_push(&q->ring, skb);
	q->ring_slots += slots_of(sim, q->port->host, skb);
	if (!q->next_tx) {
		q->next_tx = skb;
		q->next_frame = 0;
	}
}

static bool ring_has_room(const struct sim *sim, const struct nic_queue *q, const struct skb *skb)
{
	if (q->ring.len == 0)
		return true;
	/* every skb takes a slot at least: a full ring is known without
	 * reading skb, which at the qdisc's head has waited there since it
	 * was queued and is out of the cache */
	if (q->ring_slots >= (uint32_t)sim->sc->tx_ring)
		return false;
	return q->ring_slots + slots_of(sim, q->port->host, skb) <= (uint32_t)sim->sc->tx_ring;
}

static void tx_end_ev(struct sim *sim, void *obj, uint64_t arg);

/* The TX queue the transmitter takes its next frame from: the current one
 * while it is inside a driver skb, else the next queue with a frame after
 * it, round robin over the rings (one queue: always queue 0).  NULL: none. */
static struct nic_queue *tx_pick(struct nic_port *p)
{
	struct nic_queue *cur = &p->q[p->tx_cur];

	if (p->nq == 1) /* the round robin's one queue, without its division */
		return cur->next_tx ? cur : NULL;
	if (cur->next_tx && cur->next_frame > 0)
		return cur;
	for (int i = 1; i <= p->nq; i++) {
		struct nic_queue *q = &p->q[(p->tx_cur + i) % p->nq];
		if (q->next_tx)
			return q;
	}
	return NULL;
}

/* Start the next wire frame if the transmitter is free: the frame, whose
 * line time ends at sim_ns_round(p->free_at_ns), or NULL.  It schedules
 * nothing (tx_kick does, or tx_end_ev). */
static struct nic_pkt *tx_start(struct sim *sim, struct nic_port *p)
{
	struct nic *nic = sim->dev_state;
	struct nic_queue *q;
	struct skb *skb;
	struct nic_pkt *pkt;
	uint32_t mss, off;
	double start, dur;

	if (p->busy || !(q = tx_pick(p)))
		return NULL;
	skb = q->next_tx;
	if (rx_queue(sim, p->peer, skb->conn)->rx_len + p->on_wire >= (uint32_t)sim->sc->rx_ring) {
		p->paused = true; /* 802.3x PAUSE from the peer */
		return NULL;
	}
	p->paused = false;
	p->tx_cur = q->index;
	pkt = pkt_get(nic);
	pkt->conn = skb->conn;
	pkt->kind = skb->kind;
	pkt->txq = (uint16_t)q->index;
	if (skb->kind == SKB_DATA) {
		/* TSO (or a GSO segment list): MSS-sized pieces of the frame */
		mss = skb->segs > 1 && skb->gso_size ? skb->gso_size : skb->len;
		off = q->next_frame * mss;
		pkt->seq = skb->seq + off;
		pkt->len = skb->len - off < mss ? skb->len - off : mss;
		pkt->ce = skb->ce;
		pkt->psh = skb->psh && off + pkt->len == skb->len;
		p->backlog_bytes -= pkt->len;
		pkt->ts_at = skb->ts_at;
		pkt->ts2_at = skb->sent_at;
	} else {
		pkt->ack_seq = skb->ack_seq;
		pkt->wnd_end = skb->wnd_end;
		pkt->ece_bytes = skb->ece_bytes;
		pkt->ts_at = skb->ts_at;
		pkt->ts2_at = skb->tsecr_at;
	}
	if (++q->next_frame == frames_of(skb)) {
		pkt->last = true;
		q->next_tx = skb->next;
		skb_prefetch(q->next_tx); /* the next frame's */
		q->next_frame = 0;
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
	return pkt;
}

/* Start the next wire frame if the transmitter is free, its end an event. */
static void tx_kick(struct sim *sim, struct nic_port *p)
{
	struct nic_pkt *pkt = tx_start(sim, p);

	if (pkt) {
		p->tx_pkt = pkt;
		p->tx_end_at = sim_ns_round(p->free_at_ns);
		p->tx_end_seq = sim_at(sim, p->tx_end_at, tx_end_ev, pkt, (uint64_t)p->host->id);
		p->tx_queued = true;
	}
}

/*
 * A port's wire events: the end of its frame's line time (tx_end_ev) and
 * the arrival of its oldest frame in flight at the peer (arrive_ev, with
 * link.delay).  Frames arrive in the order they left (one delay, line
 * times in order), so of the frames in flight only the oldest one's
 * arrival is pending, each next one's keeping the key (time, seq) it took
 * at its line time (evq_seq_take: its place among the events at its time
 * is that of a push there).  Of the port's two pending events at most the
 * earlier one needs a queue entry: the later one waits beside the port
 * (tx_queued, fly_queued false) and is due no earlier than that entry, so
 * nothing queued or taken inline can pass it, and wire_run, which the
 * entry's handler ends in, considers it next.  The order of events is that
 * of one queued event per frame end and per arrival (evq.front_off, which
 * the tests compare).
 */
static void arrive_ev(struct sim *sim, void *obj, uint64_t arg);

/* The end of the line time of the port's frame p->tx_pkt: its TX
 * completion, its arrival (at once without link.delay, else its key taken
 * now and the frame queued in flight), the next frame started. */
static void tx_end_one(struct sim *sim, struct nic_port *p)
{
	struct nic_pkt *pkt = p->tx_pkt, *next;

	p->busy = false;
	if (pkt->last) {
		struct nic_queue *q = &p->q[pkt->txq];
		q->done++; /* its TX completion is posted */
		coal_event(sim, q, false);
	}
	if (sim->sc->delay_ns == 0) {
		rx_arrive(sim, p->peer, pkt);
	} else {
		pkt->arrive_at = sim->now + sim->sc->delay_ns;
		pkt->arrive_seq = evq_seq_take(&sim->evq);
		pkt->next = NULL;
		if (p->fly_head) {
			p->fly_tail->next = pkt;
		} else {
			p->fly_head = pkt;
			p->fly_queued = false;
		}
		p->fly_tail = pkt;
	}
	next = tx_start(sim, p);
	if (next) { /* its end takes its seq where tx_kick would push it */
		p->tx_pkt = next;
		p->tx_end_at = sim_ns_round(p->free_at_ns);
		p->tx_end_seq = evq_seq_take(&sim->evq);
		p->tx_queued = false;
	}
}

/* The oldest frame in flight from port p arrives at its peer. */
static void arrive_one(struct sim *sim, struct nic_port *p)
{
	struct nic_pkt *pkt = p->fly_head;

	p->fly_head = pkt->next;
	if (!p->fly_head)
		p->fly_tail = NULL;
	rx_arrive(sim, p->peer, pkt);
}

/* Whether the port's next wire event is its frame's end (else the oldest
 * arrival), by (time, seq); one of them is pending. */
static bool wire_tx_first(const struct nic_port *p)
{
	const struct nic_pkt *a = p->fly_head;

	if (!p->busy)
		return false;
	return !a || p->tx_end_at < a->arrive_at || (p->tx_end_at == a->arrive_at && p->tx_end_seq < a->arrive_seq);
}

/*
 * Run the port's wire event (its frame's end if tx, else its oldest
 * arrival), then its next one while that is the next event anyway
 * (sim_next_inline): a burst of back-to-back frames and their arrivals,
 * with the CPUs between chunks, is so one event from the queue, each
 * frame's end and arrival at its own time, in the order their events
 * would have run.  Then the earlier of the port's pending events is
 * queued unless it is; the later one waits (see above).  The handler's
 * last act.
 */
static void wire_run(struct sim *sim, struct nic_port *p, bool tx)
{
	uint64_t id = (uint64_t)p->host->id, peer = (uint64_t)p->peer->host->id;

	for (;;) {
		struct nic_pkt *a;

		if (tx)
			tx_end_one(sim, p);
		else
			arrive_one(sim, p);
		if (!p->busy && !p->fly_head)
			return;
		tx = wire_tx_first(p);
		a = p->fly_head;
		if (tx) {
			if (p->tx_queued)
				return;
			if (sim_next_inline(sim, p->tx_end_at, p->tx_end_seq, tx_end_ev, p->tx_pkt, id, NULL))
				continue;
			evq_push_seq(&sim->evq, p->tx_end_at, p->tx_end_seq, tx_end_ev, p->tx_pkt, id);
			p->tx_queued = true;
		} else {
			if (p->fly_queued)
				return;
			if (sim_next_inline(sim, a->arrive_at, a->arrive_seq, arrive_ev, a, peer, NULL))
				continue;
			evq_push_seq(&sim->evq, a->arrive_at, a->arrive_seq, arrive_ev, a, peer);
			p->fly_queued = true;
		}
		return;
	}
}

/* A frame arrives at port arg.  With evq.front_off every frame's arrival
 * was queued at its line time (the tests compare the two). */
static void arrive_ev(struct sim *sim, void *obj, uint64_t arg)
{
	struct nic *nic = sim->dev_state;
	struct nic_port *to = &nic->port[arg];
	struct nic_pkt *pkt = obj;

	if (sim->evq.front_off) {
		rx_arrive(sim, to, pkt);
		return;
	}
	INVARIANT(to->peer->fly_head == pkt && to->peer->fly_queued,
		  "nic%d: a frame arrived out of its order on the wire", to->host->id);
	to->peer->fly_queued = false;
	wire_run(sim, to->peer, false);
}

/* The end of port arg's frame's line time.  With evq.front_off each
 * frame's arrival and the next frame's end are queued here, one event
 * each. */
static void tx_end_ev(struct sim *sim, void *obj, uint64_t arg)
{
	struct nic *nic = sim->dev_state;
	struct nic_port *p = &nic->port[arg];
	struct nic_pkt *pkt = obj;

	INVARIANT(p->busy && p->tx_pkt == pkt, "nic%d: the end of a frame not on the wire", p->host->id);
	if (sim->evq.front_off) {
		p->busy = false;
		if (pkt->last) {
			struct nic_queue *q = &p->q[pkt->txq];
			q->done++;
			coal_event(sim, q, false);
		}
		if (sim->sc->delay_ns == 0)
			rx_arrive(sim, p->peer, pkt);
		else
			evq_push_seq(&sim->evq, sim->now + sim->sc->delay_ns, evq_seq_take(&sim->evq), arrive_ev, pkt,
				     (uint64_t)p->peer->host->id);
		tx_kick(sim, p);
		return;
	}
	p->tx_queued = false;
	wire_run(sim, p, true);
}

/*
 * The qdisc's dequeue onto the ring (qdisc_run).  pfifo_fast: in order,
 * while the ring has room.  sch_fq (link.qdisc = fq): the first skb whose
 * departure time (skb->tstamp, set by TCP from its pacing rate: EDT,
 * 4.20+; before, fq spaced each flow at sk_pacing_rate itself, the same
 * times) has come; while none has, the watchdog is armed for the
 * earliest (its hrtimer's interrupt cost is not modelled).  A flow's
 * skbs keep their order (their times only grow); other flows pass it.
 */
static void fq_watchdog(struct sim *sim, void *obj, uint64_t arg);

static void qdisc_run(struct sim *sim, struct nic_queue *q)
{
	sim_ns next = -1;

	if (sim->sc->qdisc != QDISC_FQ) {
		while (q->qdisc.head && ring_has_room(sim, q, q->qdisc.head)) {
			ring_push(sim, q, skb_list_pop(&q->qdisc));
			skb_prefetch(q->qdisc.head); /* the next TX completion's */
		}
		return;
	}
	for (struct skb *prev = NULL, *skb = q->qdisc.head, *nx; skb; skb = nx) {
		nx = skb->next;
		if (skb->tstamp > sim->now) {
			if (next < 0 || skb->tstamp < next)
				next = skb->tstamp;
			prev = skb;
			continue;
		}
		if (!ring_has_room(sim, q, skb))
			return; /* the TX completion that makes room runs this again */
		if (prev)
			prev->next = nx;
		else
			q->qdisc.head = nx;
		if (q->qdisc.tail == skb)
			q->qdisc.tail = prev;
		q->qdisc.len--;
		skb->next = NULL;
		ring_push(sim, q, skb);
	}
	if (next >= 0 && (!evq_timer_armed(&q->fq_wd) || next < q->fq_wd_at))
		evq_timer_arm(&sim->evq, &q->fq_wd, q->fq_wd_at = next, fq_watchdog, q, 0);
}

static void fq_watchdog(struct sim *sim, void *obj, uint64_t arg)
{
	struct nic_queue *q = obj;
	(void)arg;
	qdisc_run(sim, q);
	tx_kick(sim, q->port);
}

/* dev_queue_xmit on CPU c: the stack's per-frame work, then the flow's TX
 * queue (netdev_pick_tx without XPS: skb_tx_hash, the flow's hash over the
 * queues, here its RSS queue), its qdisc or ring. */
static void nic_xmit(struct sim *sim, struct cpu *c, struct skb *skb)
{
	struct nic *nic = sim->dev_state;
	struct nic_port *p = &nic->port[c->host->id];
	struct nic_queue *q = p->nq == 1 ? &p->q[0] : rss_queue(sim, p, skb->conn);
	const struct scenario *sc = sim->sc;
	const double *cost = c->host->cfg->cost_cycles;

	if (skb->kind == SKB_DATA) {
		cpu_charge(sim, c, COST_TX_FRAME, cost[COST_TX_FRAME]);
		if (netdev_sw_gso(sim, c->host, skb)) /* GSO: skb_gso_segment in validate_xmit_skb */
			cpu_charge(sim, c, COST_TX_SEG, cost[COST_TX_SEG] * skb->segs);
		if (!sc->csum) /* no NETIF_F_HW_CSUM: the stack sums the payload */
			cpu_charge(sim, c, COST_CSUM_BYTE, cost[COST_CSUM_BYTE] * skb->len);
		/* ECN marking at the bottleneck queue (RED with min = max = K,
		 * as DCTCP's switches are set): an ECT frame that finds more
		 * than link.ecn_threshold bytes ahead of it is marked CE */
		if (skb->ect && sc->ecn_threshold_bytes > 0 && p->backlog_bytes > (uint64_t)sc->ecn_threshold_bytes) {
			skb->ce = true;
			sim->cnt.ce_marks++;
		}
		p->backlog_bytes += skb->len;
	}
	if (sc->qdisc == QDISC_FQ) {
		skb_list_push(&q->qdisc, skb);
		qdisc_run(sim, q);
	} else if (q->qdisc.len == 0 && ring_has_room(sim, q, skb)) {
		ring_push(sim, q, skb);
	} else {
		skb_list_push(&q->qdisc, skb);
	}
	tx_kick(sim, p);
}

/* Reap the queue's TX completions on c (in its NAPI poll): free the skbs,
 * refill the ring from the qdisc (netif_tx_wake_queue). */
static void tx_reap(struct sim *sim, struct cpu *c, struct nic_queue *q)
{
	const double *cost = c->host->cfg->cost_cycles;

	while (q->done > 0) {
		struct skb *skb = skb_list_pop(&q->ring);
		uint32_t n = slots_of(sim, q->port->host, skb);
		INVARIANT(skb && skb != q->next_tx, "nic%d queue %d: completion of an skb not sent", q->port->host->id,
			  q->index);
		q->done--;
		q->ring_slots -= n;
		cpu_charge(sim, c, COST_TX_COMPL, cost[COST_TX_COMPL] * n);
		skb_free(sim, c, skb);
	}
	qdisc_run(sim, q);
	tx_kick(sim, q->port);
}

/* ------------------------------------------------------------------ */
/* receive: rings, LRO/GRO, delivery                                   */

static void rx_arrive(struct sim *sim, struct nic_port *p, struct nic_pkt *pkt)
{
	struct nic_queue *q = rx_queue(sim, p, pkt->conn);

	INVARIANT(p->peer->on_wire > 0, "nic%d: frame arrived that was never sent", p->host->id);
	p->peer->on_wire--;
	pkt->next = NULL;
	if (q->rx_tail)
		q->rx_tail->next = pkt;
	else
		q->rx_head = pkt;
	q->rx_tail = pkt;
	q->rx_len++;
	coal_event(sim, q, true);
}

static struct nic_pkt *rx_pop(struct nic_queue *q)
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
	skb->ts_at = pkt->ts_at;
	if (pkt->kind == SKB_DATA) {
		skb->seq = pkt->seq;
		skb->len = pkt->len;
		skb->segs = 1;
		skb->truesize += (int)pkt->len;
		skb->ce = pkt->ce;
		skb->psh = pkt->psh;
		skb->sent_at = pkt->ts2_at;
	} else {
		skb->ack_seq = pkt->ack_seq;
		skb->wnd_end = pkt->wnd_end;
		skb->ece_bytes = pkt->ece_bytes;
		skb->tsecr_at = pkt->ts2_at;
	}
	return skb;
}

/* Hand held skb i to the stack (napi_gro_complete). */
static void gro_flush_one(struct sim *sim, struct cpu *c, struct nic_queue *q, int i)
{
	struct skb *skb = q->gro[i];

	for (int j = i + 1; j < q->ngro; j++)
		q->gro[j - 1] = q->gro[j];
	q->ngro--;
	if (skb->segs < 2)
		skb->gso_size = 0; /* a lone segment is not a GSO skb */
	nic_deliver(sim, c, q, skb);
}

static void gro_flush_all(struct sim *sim, struct cpu *c, struct nic_queue *q)
{
	while (q->ngro > 0)
		gro_flush_one(sim, c, q, 0);
}

static int gro_find(const struct nic_queue *q, const struct tcp_conn *tc)
{
	for (int i = 0; i < q->ngro; i++)
		if (q->gro[i]->conn == tc)
			return i;
	return -1;
}

/* One frame off the RX ring: merge it (LRO/GRO) or pass it up. */
static void rx_frame(struct sim *sim, struct cpu *c, struct nic_queue *q, const struct nic_pkt *pkt)
{
	struct nic *nic = sim->dev_state;
	const struct scenario *sc = sim->sc;
	int i = gro_find(q, pkt->conn);

	if (pkt->kind == SKB_DATA && (sc->gro || sc->lro)) {
		if (i >= 0) {
			struct skb *h = q->gro[i];
			/* same flow, next in sequence, no longer than the first
			 * segment, and the whole below gro_max_size (skb_gro_receive;
			 * 64 KB before BIG TCP) */
			if (h->seq + h->len == pkt->seq && pkt->len <= h->gso_size && pkt->ce == h->ce &&
			    (uint64_t)nic->hdr_bytes + h->len + pkt->len < (uint64_t)sc->gro_max_bytes && h->segs < UINT16_MAX) {
				h->len += pkt->len;
				h->segs++;
				h->psh |= pkt->psh; /* tcp_gro_receive: PSH kept in the merged header */
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
	nic_deliver(sim, c, q, skb_of(sim, c, pkt));
}

/* ------------------------------------------------------------------ */
/* hardirq and NAPI                                                    */

static void nic_irq(struct sim *sim, struct cpu *c, void *obj)
{
	struct nic_queue *q = obj;

	cpu_charge(sim, c, COST_HARDIRQ, c->host->cfg->cost_cycles[COST_HARDIRQ]);
	sim->cnt.hardirqs++;
	sim->cnt.host[c->host->id].hardirqs++;
	cpu_napi_schedule(sim, c, q); /* the interrupt stays masked until the poll completes */
}

/* One step of the queue's NAPI poll on c: at the start of a poll, reap the
 * TX completions; then one frame off the RX ring.  True while the NAPI
 * instance stays scheduled. */
static bool nic_napi_poll(struct sim *sim, struct cpu *c, void *napi)
{
	struct nic *nic = sim->dev_state;
	struct nic_queue *q = napi;
	struct nic_port *p = q->port;

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
		if (p->peer->paused)
			tx_kick(sim, p->peer); /* room on the ring: PAUSE ends */
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

/* Queue i's interrupt CPU: the i-th CPU of host.irq_affinity (reused from
 * the start when the list is shorter), else irq_cpu + i.  config_validate
 * has checked the list. */
static void port_init(struct nic_port *p, struct host *host)
{
	const struct host_cfg *cfg = host->cfg;
	int *list = xcalloc((size_t)host->ncpus, sizeof(*list)), n = 0, bad = 0;

	if (!nic_affinity_auto(cfg))
		n = cpulist_parse(cfg->irq_affinity, host->ncpus, list, &bad);
	INVARIANT(n >= 0, "host %d: irq_affinity '%s' not checked", host->id, cfg->irq_affinity);
	INVARIANT(cfg->irq_cpu < host->ncpus, "host %d: irq_cpu %d of %d CPUs", host->id, cfg->irq_cpu, host->ncpus);
	p->host = host;
	p->nq = cfg->queues > 0 ? cfg->queues : 1;
	p->q = xcalloc((size_t)p->nq, sizeof(*p->q));
	p->queue_of_cpu = xmalloc((size_t)host->ncpus * sizeof(*p->queue_of_cpu));
	for (int i = 0; i < host->ncpus; i++)
		p->queue_of_cpu[i] = -1;
	for (int i = 0; i < p->nq; i++) {
		struct nic_queue *q = &p->q[i];
		int cpu = n > 0 ? list[i % n] : (cfg->irq_cpu + i) % host->ncpus;
		q->port = p;
		q->index = i;
		q->irq_cpu = &host->cpus[cpu];
		if (p->queue_of_cpu[cpu] < 0)
			p->queue_of_cpu[cpu] = i;
	}
	free(list);
}

static void nic_init(struct sim *sim)
{
	struct nic *nic = xcalloc(1, sizeof(*nic));

	INVARIANT(sim->nhosts == 2, "nic path needs two hosts, has %d", sim->nhosts);
	nic->hdr_bytes = seg_hdr_bytes(sim->sc->timestamps);
	for (int h = 0; h < 2; h++) {
		port_init(&nic->port[h], &sim->hosts[h]);
		nic->port[h].peer = &nic->port[1 - h];
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
	for (int h = 0; h < 2; h++) {
		free(nic->port[h].q);
		free(nic->port[h].queue_of_cpu);
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

int nic_queue_on_cpu(const struct sim *sim, int host, int cpu)
{
	const struct nic *nic = sim->dev_state;

	if (sim->dev != &netdev_nic || !nic || host < 0 || host > 1 || cpu < 0 || cpu >= sim->hosts[host].ncpus)
		return -1;
	return nic->port[host].queue_of_cpu[cpu];
}

void nic_inject_rx(struct sim *sim, int host, struct tcp_conn *tc, uint64_t seq, uint32_t len)
{
	struct nic *nic = sim->dev_state;
	struct nic_port *p = &nic->port[host];
	struct nic_pkt *pkt = pkt_get(nic);

	pkt->conn = tc;
	pkt->kind = SKB_DATA;
	pkt->seq = seq;
	pkt->len = len;
	pkt->psh = false;
	p->peer->on_wire++;
	rx_arrive(sim, p, pkt);
}
