/*
 * netdev: device paths between a transmitting TCP and a receiving one.
 *
 * A path is a const ops table chosen by link.type.  Loopback
 * (drivers/net/loopback.c): loopback_xmit hands the skb, GSO frame and all,
 * to netif_rx on the transmitting CPU, whose NET_RX softirq then runs the
 * receive side; nothing is segmented and GRO is not involved.  With
 * link.delay > 0 delivery is postponed by that much (like netem), which is
 * how the window-bound oracle gets a round trip.
 *
 * veth (drivers/net/veth.c, 5.x-6.x): veth_xmit hands the skb to the peer
 * on the transmitting CPU as loopback does (netif_rx; with GRO on the
 * peer runs in NAPI mode, its poll scheduled on the same CPU); without
 * TSO the frame is cut into MSS-sized segments before it (validate_xmit_skb),
 * and with the peer's GRO on, napi_gro_receive merges them back: the
 * receiving TCP gets the whole frame, each segment costs tx_seg and
 * gro_seg, the poll napi_poll.
 */
#ifndef TCPSIM_NETDEV_H
#define TCPSIM_NETDEV_H

#include "sim.h"

struct netdev_ops {
	const char *name;
	/* Transmit skb from CPU c of its host. Required. */
	void (*xmit)(struct sim *sim, struct cpu *c, struct skb *skb);
	/* Optional: set up per-run device state. */
	void (*init)(struct sim *sim);
	void (*release)(struct sim *sim);
	/* Optional: a NAPI poll scheduled on c; returns true while more work remains. */
	bool (*napi_poll)(struct sim *sim, struct cpu *c, void *napi);
	/* Optional: device hardirq on c. */
	void (*irq)(struct sim *sim, struct cpu *c, void *obj);
};

extern const struct netdev_ops netdev_loopback;
extern const struct netdev_ops netdev_veth;

const struct netdev_ops *netdev_for(const struct scenario *sc);

/* Whether the stack cuts this frame, handed to host h's device, into
 * MSS-sized skbs in software (validate_xmit_skb -> skb_gso_segment): a GSO
 * frame on a device without TSO; and since 6.7 one whose length reaches
 * the device's gso_max_size (gso_features_check, 24ab059d2ebd), which TCP
 * sends from 6.10 on (tcp_grow_skb, tcp_output.c). */
bool netdev_sw_gso(const struct sim *sim, const struct host *h, const struct skb *skb);

/* Receive one skb taken off c's backlog (softirq context): IP and TCP input. */
void netdev_rx(struct sim *sim, struct cpu *c, struct skb *skb);

/* enqueue_to_backlog: queue skb on c's backlog (netif_rx) and raise NET_RX;
 * false when the backlog is full (the caller fails the run: drops are not
 * modelled). */
bool netdev_backlog_enqueue(struct sim *sim, struct cpu *c, struct skb *skb);
/* process_backlog: take one skb off c's backlog and receive it (NET_RX). */
void netdev_process_backlog(struct sim *sim, struct cpu *c);
/* The device's NAPI poll and hardirq, as the CPU's vectors call them. */
bool netdev_napi_poll(struct sim *sim, struct cpu *c, void *napi);
void netdev_irq(struct sim *sim, struct cpu *c, void *obj);

#endif
