/*
 * netdev_nic: two hosts over a NIC and a wire (link.type = nic).
 *
 * Host 0 sends data to host 1, host 1 sends the ACKs back; each host has
 * one NIC port, and every frame crosses the wire.  What is imitated, in
 * the order a data frame meets it (Linux 2.6.17-3.x, NAPI drivers, and the
 * Myri10GE NIC of the FreeBSD report):
 *
 *   dev_queue_xmit -> qdisc -> TX ring   the stack charges tx_frame per skb;
 *       without TSO but with GSO the stack cuts the frame into segments
 *       (tx_seg per segment); without checksum offload it sums every byte
 *       (csum_byte).  The qdisc holds what the TX ring (link.tx_ring
 *       driver skbs) cannot.
 *   NIC transmitter -> wire              TSO cuts a frame into MSS-sized
 *       wire frames in the NIC, at no host CPU cost.  A wire frame of an IP
 *       packet of L bytes (at least 46) occupies 8 + 14 + L + 4 + 12 bytes
 *       of line time (preamble and SFD, Ethernet header, FCS, inter-frame
 *       gap: IEEE 802.3 clauses 3-4).  The wire is full duplex: one
 *       transmitter per direction, frames back to back at link.rate, then
 *       link.delay of propagation.
 *   802.3x flow control                  a transmitter pauses while the
 *       peer's RX ring plus the frames on the wire toward it would exceed
 *       link.rx_ring; nothing is ever dropped (both Myri10GE drivers turn
 *       flow control on by default: myri10ge_flow_control, mxge_flow_control).
 *   RX ring -> interrupt coalescing      the first frame (or TX completion)
 *       after the interrupt was enabled starts a timer of rx-usecs
 *       (tx-usecs); the interrupt fires when it expires or when rx-frames
 *       (tx-frames) events have accumulated, on the host's irq_cpu.
 *   hardirq -> NAPI (net_rx_action)      the handler masks the interrupt
 *       and schedules the port's NAPI instance; each poll reaps TX
 *       completions (tx_completion each, freeing the skbs), then takes up
 *       to link.weight frames (rx_seg each) within the softirq's
 *       netdev_budget; a poll that empties the ring completes and unmasks
 *       the interrupt, so an overloaded receiver polls instead of taking
 *       interrupts (no receive livelock, as NAPI intends).
 *   LRO / GRO                            consecutive in-order data frames of
 *       one flow are merged (gro_seg each) into one skb while headers plus
 *       payload stay below offload.gro_max_size, 64 KB before BIG TCP
 *       (skb_gro_receive: p->len + len >= gro_max_size is -E2BIG);
 *       a short segment ends the merge; up to 8 flows are held
 *       (MAX_GRO_SKBS); all are flushed at the end of every poll.  The stack
 *       sees one skb with segs = frames merged and gso_size = the first
 *       frame's payload, so tcp_measure_rcv_mss and the ACK rule work on
 *       the MSS (the Myri10GE LRO sets gso_size for exactly this).  LRO and
 *       GRO are the same mechanism here.
 *   netif_receive_skb -> TCP             netdev_rx(): rx_frame, then tcp_v4_rcv:
 *       rx_tcp (or ack_rx)
 *       per skb delivered, then tcp_rcv.
 *
 * FreeBSD (the report's sender) has no NAPI: mxge takes its interrupt,
 * reaps TX completions and runs the receive path (ether_input .. tcp_input,
 * direct dispatch) from an interrupt thread.  The model runs the same
 * per-frame work through the Linux structure above on both hosts: on a
 * uniprocessor sender the work lands on the same CPU either way, and the
 * budget and weight only matter under a receive load that ACKs never make.
 *
 * Multiple queues (host.queues; Linux 2.6.27+ multiqueue, RSS NICs such as
 * mlx5 or ice): each queue pair has its own TX ring and qdisc, RX ring,
 * interrupt on its own CPU (host.irq_affinity, as smp_affinity_list), NAPI
 * instance, GRO list and coalescing timer (ethtool -C applies to every
 * queue).  The transmitter serves the TX rings round robin, a driver skb at
 * a time; a flow transmits on its hash's queue (skb_tx_hash; no XPS).  A
 * received frame goes to the queue its flow hash picks in the indirection
 * table (RSS; the Toeplitz hash is a fixed mixing of connection, direction
 * and seed), or with aRFS to the queue whose interrupt is on the CPU the
 * flow's reader last ran on (ndo_rx_flow_steer, the driver's cpu_rmap; the
 * filter is moved at once, as if the NIC were told on every read).  After
 * GRO, RPS queues the skb on the backlog of a CPU the flow hash picks and
 * RFS (and aRFS) on the reader's CPU, a function-call IPI waking that
 * CPU's NET_RX (get_rps_cpu, enqueue_to_backlog, net_rps_send_ipi; no
 * rps_flow_cnt limit and no last_qtail check: a reader that moves can
 * reorder a few frames).  802.3x pauses while the next frame's RX queue
 * is full.  With one queue all of this is the single-interrupt NIC above.
 *
 * Not modelled: loss, XPS, DMA and PCI latency (a frame
 * leaves as soon as the transmitter is free), the qdisc's txqueuelen limit,
 * ksoftirqd, TX completions before the last wire frame has left.
 *
 * Ownership: the NIC state (struct nic, in sim->dev_state) owns the wire
 * frames; skbs handed to xmit are owned until their TX completion frees
 * them; skbs built on receive go to TCP.
 */
#ifndef TCPSIM_NETDEV_NIC_H
#define TCPSIM_NETDEV_NIC_H

#include "sim.h"

extern const struct netdev_ops netdev_nic;

/* Ethernet per-frame overhead: preamble+SFD 8, header 14, FCS 4, IFG 12. */
#define NIC_WIRE_OVERHEAD_BYTES 38
/* Smallest Ethernet payload (a 64-byte frame minus header and FCS). */
#define NIC_MIN_PAYLOAD_BYTES 46
/* Most flows LRO/GRO holds at once (MAX_GRO_SKBS, net/core/dev.c). */
#define NIC_GRO_FLOWS 8
/* gro_max_size before BIG TCP (GRO_LEGACY_MAX_SIZE): offload.gro_max_size's default. */
#define NIC_GRO_MAX_BYTES 65536

/* RSS indirection table entries (ETH_RSS_HASH default size of mlx5/ice: 128;
 * ethtool_rxfh_indir_default fills entry i with queue i % queues). */
#define NIC_RSS_INDIR 128

/* The first NIC queue whose interrupt is on host h's CPU cpu, -1 if none
 * (or the path is not the NIC). */
int nic_queue_on_cpu(const struct sim *sim, int host, int cpu);

/* Tests: a data frame of conn tc (len payload bytes from seq) arrives now
 * at host h's NIC, as if it had crossed the wire. */
void nic_inject_rx(struct sim *sim, int host, struct tcp_conn *tc, uint64_t seq, uint32_t len);

#endif
