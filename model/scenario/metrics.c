/*
 * metrics: the table that names every metric (see metrics.h for the
 * contract).  Units of rates end in "/s"; the report prints an LKP total
 * (lkp_total = 1) as rate * lkp_seconds with the unit's "/s" dropped.
 *
 * What the LKP names mean (lkp-tests' stats scripts): interrupts.* and
 * proc-vmstat.* are the last /proc snapshot minus the first, i.e. totals
 * over the run; softirqs.NET_RX counts handler runs from /proc/softirqs,
 * also a total; vmstat.system.cs and .in are means of vmstat's per-second
 * samples; netperf.Throughput_Mbps is the mean over the netperf instances.
 */
#include "metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const struct metric_desc metric_table[METRIC_N] = {
	[METRIC_THROUGHPUT_MBPS] = {"throughput_mbps", "netperf.Throughput_Mbps", 0, "Mbit/s",
		"payload throughput per netperf instance (mean), 10^6 bit/s"},
	[METRIC_THROUGHPUT_TOTAL_MBPS] = {"throughput_total_mbps", NULL, 0, "Mbit/s",
		"payload throughput summed over all instances, 10^6 bit/s"},
	[METRIC_CPU_SEND_PCT] = {"cpu_send_pct", NULL, 0, "%",
		"sending side CPU utilisation (netperf -c): busy time / elapsed over the CPUs it uses"},
	[METRIC_CPU_RECV_PCT] = {"cpu_recv_pct", NULL, 0, "%",
		"receiving side CPU utilisation (netperf -C)"},
	[METRIC_SD_SEND_US_PER_KB] = {"sd_send_us_per_kb", NULL, 0, "us/KB",
		"sender service demand: util%/100 x CPUs x 1e6 / (bytes/s / 1024)"},
	[METRIC_SD_RECV_US_PER_KB] = {"sd_recv_us_per_kb", NULL, 0, "us/KB",
		"receiver service demand, as for the sender"},
	[METRIC_NETRX_SOFTIRQS_PER_S] = {"netrx_softirqs_per_s", "softirqs.NET_RX", 1, "softirqs/s",
		"NET_RX softirq handler runs (not packets), all CPUs"},
	[METRIC_RES_IPIS_PER_S] = {"res_ipis_per_s", "interrupts.RES", 1, "IPIs/s",
		"rescheduling IPIs received, all CPUs"},
	[METRIC_CS_PER_S] = {"cs_per_s", "vmstat.system.cs", 0, "switches/s",
		"context switches, all CPUs"},
	[METRIC_INTR_PER_S] = {"intr_per_s", "vmstat.system.in", 0, "interrupts/s",
		"interrupts of every kind (device, IPI, timer tick), all CPUs"},
	[METRIC_PGALLOC_PER_S] = {"pgalloc_per_s", "proc-vmstat.pgalloc_normal", 1, "pages/s",
		"4 KB pages allocated (an order-3 allocation counts 8)"},
	[METRIC_PGFREE_PER_S] = {"pgfree_per_s", "proc-vmstat.pgfree", 1, "pages/s",
		"4 KB pages freed"},
	[METRIC_SEGS_PER_S] = {"segs_per_s", NULL, 0, "segs/s",
		"TCP data segments (MSS units) sent, all instances"},
	[METRIC_FRAMES_PER_S] = {"frames_per_s", NULL, 0, "frames/s",
		"data skbs through the transmit path (a GSO/TSO frame counts once)"},
	[METRIC_ACKS_PER_S] = {"acks_per_s", NULL, 0, "ACKs/s",
		"pure ACKs sent by the receivers"},
	[METRIC_CAL_IPIS_PER_S] = {"cal_ipis_per_s", "interrupts.CAL", 1, "IPIs/s",
		"function-call IPIs received (wakelist wakeups since Linux 5.8)"},
	[METRIC_WIRE_FRAMES_PER_S] = {"wire_frames_per_s", NULL, 0, "frames/s",
		"Ethernet frames on the wire, data direction (NIC only)"},
	[METRIC_GRO_MERGES_PER_S] = {"gro_merges_per_s", NULL, 0, "merges/s",
		"segments merged into a previous one by LRO/GRO"},
	[METRIC_HARDIRQS_PER_S] = {"hardirqs_per_s", NULL, 0, "hardirqs/s",
		"device hardirqs (NIC only)"},
	[METRIC_SEGS_PER_FRAME] = {"segs_per_frame", NULL, 0, "segs/frame",
		"segs_per_s / frames_per_s: MSS units per transmitted frame"},
	[METRIC_ACKS_PER_FRAME] = {"acks_per_frame", NULL, 0, "ACKs/frame",
		"acks_per_s / frames_per_s"},
	[METRIC_WAKEUPS_PER_S] = {"wakeups_per_s", NULL, 0, "wakeups/s",
		"tasks woken from sleep (data arrived, buffer space freed), all CPUs"},
	[METRIC_SND_WAKEUPS_PER_S] = {"snd_wakeups_per_s", NULL, 0, "wakeups/s",
		"of those, senders woken because ACKs freed send buffer space"},
	[METRIC_MIGRATIONS_PER_S] = {"migrations_per_s", NULL, 0, "migrations/s",
		"tasks moved to another CPU by load balancing or wakeup placement"},
	[METRIC_OFO_PER_S] = {"ofo_per_s", NULL, 0, "frames/s",
		"data frames that arrived ahead of rcv_nxt (overtaken on another CPU's backlog)"},
	[METRIC_ACKS_RX_PER_S] = {"acks_rx_per_s", NULL, 0, "ACKs/s",
		"ACKs sent on receipt: more than one rcv_mss unacknowledged (__tcp_ack_snd_check)"},
	[METRIC_ACKS_READ_PER_S] = {"acks_read_per_s", NULL, 0, "ACKs/s",
		"ACKs sent after recv() copied (tcp_cleanup_rbuf: rcv_mss unacked or window opened)"},
	[METRIC_ACKS_DELACK_PER_S] = {"acks_delack_per_s", NULL, 0, "ACKs/s",
		"ACKs sent by the delayed-ACK timer"},
	[METRIC_ACKS_QUICK_PER_S] = {"acks_quick_per_s", NULL, 0, "ACKs/s",
		"ACKs sent in quickack mode or as duplicate ACKs for out-of-order data"},
	[METRIC_RETRANS_SEGS_PER_S] = {"retrans_segs_per_s", NULL, 0, "segs/s",
		"segments retransmitted (fast retransmit of overtaken data: nothing is lost)"},
	[METRIC_RECOVERIES_PER_S] = {"recoveries_per_s", NULL, 0, "recoveries/s",
		"fast retransmits: entries into recovery, each a congestion window reduction"},
	[METRIC_UNDOS_PER_S] = {"undos_per_s", NULL, 0, "undos/s",
		"recoveries found spurious and undone (D-SACK or timestamps)"},
	[METRIC_KSWAPD_WAKES_PER_S] = {"kswapd_wakes_per_s", NULL, 0, "wakeups/s",
		"kswapd woken by a high-order (slab, page frag) allocation's slow path (host.kswapd)"},
	[METRIC_WRITES_PER_S] = {"writes_per_s", NULL, 0, "calls/s",
		"send()/sendfile() calls completed, all senders"},
	[METRIC_READS_PER_S] = {"reads_per_s", NULL, 0, "calls/s",
		"recv()/read() calls completed, all receivers"},
	[METRIC_RCV_WAKEUPS_PER_S] = {"rcv_wakeups_per_s", NULL, 0, "wakeups/s",
		"readers woken by arriving data; per write, the run's regime (report: Regime)"},
	[METRIC_HRTIMER_SOFTIRQS_PER_S] = {"hrtimer_softirqs_per_s", "softirqs.HRTIMER", 1, "softirqs/s",
		"HRTIMER softirq runs (TCP's pacing timer, tcp.pacing)"},
	[METRIC_PACE_KICKS_PER_S] = {"pace_kicks_per_s", NULL, 0, "interrupts/s",
		"pacing hrtimer expiries: local timer interrupts that tcp_pace_kick ran in"},
	[METRIC_SKB_DEFERRED_PER_S] = {"skb_deferred_per_s", NULL, 0, "skbs/s",
		"received skbs freed on the CPU that allocated them (skb_attempt_defer_free, 5.17+)"},
	[METRIC_WAKE_NO_IPI_PER_S] = {"wake_no_ipi_per_s", NULL, 0, "wakeups/s",
		"remote wakeups of a CPU still polling in idle: no IPI (sched_wake_idle_without_ipi)"},
	[METRIC_SND_CPU_BUSY_PCT] = {"snd_cpu_busy_pct", NULL, 0, "%", "busy share of the sender's CPU"},
	[METRIC_RCV_CPU_BUSY_PCT] = {"rcv_cpu_busy_pct", NULL, 0, "%", "busy share of the receiver's CPU"},
	[METRIC_SND_CPU_NETRX_PER_S] = {"snd_cpu_netrx_per_s", NULL, 0, "softirqs/s", "NET_RX runs on the sender's CPU"},
	[METRIC_RCV_CPU_NETRX_PER_S] = {"rcv_cpu_netrx_per_s", NULL, 0, "softirqs/s", "NET_RX runs on the receiver's CPU"},
	[METRIC_SND_CPU_HRTIMER_PER_S] = {"snd_cpu_hrtimer_per_s", NULL, 0, "softirqs/s", "HRTIMER runs on the sender's CPU"},
	[METRIC_RCV_CPU_HRTIMER_PER_S] = {"rcv_cpu_hrtimer_per_s", NULL, 0, "softirqs/s", "HRTIMER runs on the receiver's CPU"},
	[METRIC_SND_CPU_LOC_PER_S] = {"snd_cpu_loc_per_s", NULL, 0, "interrupts/s",
		"local timer interrupts (ticks, hrtimers) on the sender's CPU"},
	[METRIC_RCV_CPU_LOC_PER_S] = {"rcv_cpu_loc_per_s", NULL, 0, "interrupts/s",
		"local timer interrupts on the receiver's CPU"},
	[METRIC_SND_CPU_CAL_PER_S] = {"snd_cpu_cal_per_s", NULL, 0, "IPIs/s", "CAL IPIs taken by the sender's CPU"},
	[METRIC_RCV_CPU_CAL_PER_S] = {"rcv_cpu_cal_per_s", NULL, 0, "IPIs/s", "CAL IPIs taken by the receiver's CPU"},
	[METRIC_SND_CPU_RES_PER_S] = {"snd_cpu_res_per_s", NULL, 0, "IPIs/s", "RES IPIs taken by the sender's CPU"},
	[METRIC_RCV_CPU_RES_PER_S] = {"rcv_cpu_res_per_s", NULL, 0, "IPIs/s", "RES IPIs taken by the receiver's CPU"},
	[METRIC_RPS_STEERED_PER_S] = {"rps_steered_per_s", NULL, 0, "skbs/s",
		"received skbs RPS/RFS queued on another CPU's backlog (host.rx_steering; nic)"},
	[METRIC_SND_RWND_LIMITED_PCT] = {"snd_rwnd_limited_pct", NULL, 0, "%",
		"share of the senders' busy time (data unsent or unacked) the receiver's window stopped them "
		"(tcp_info tcpi_rwnd_limited / tcpi_busy_time; ss -ti)"},
	[METRIC_BACKLOG_COALESCE_PER_S] = {"tcpext_TCPBacklogCoalesce_per_s", NULL, 0, "skbs/s",
		"data skbs merged into the tail of the socket's backlog while its owner held it (tcp_add_backlog, 5.0+)"},
	[METRIC_RCV_COALESCE_PER_S] = {"tcpext_TCPRcvCoalesce_per_s", NULL, 0, "skbs/s",
		"data skbs merged into the tail of the socket's receive queue (tcp_try_coalesce; the model from 4.0)"},
#define HOST_PAIR(id, col, unit, what)                                                                     \
	[id##_SEND] = {col "_send", NULL, 0, unit, what ", the sender's host"},                              \
	[id##_RECV] = {col "_recv", NULL, 0, unit, what ", the receiver's host (the sender's on one host)"}
	HOST_PAIR(METRIC_NETRX_SOFTIRQS_PER_S, "netrx_softirqs_per_s", "softirqs/s", "NET_RX softirq handler runs"),
	HOST_PAIR(METRIC_RES_IPIS_PER_S, "res_ipis_per_s", "IPIs/s", "rescheduling IPIs received"),
	HOST_PAIR(METRIC_CS_PER_S, "cs_per_s", "switches/s", "context switches"),
	HOST_PAIR(METRIC_INTR_PER_S, "intr_per_s", "interrupts/s", "interrupts of every kind"),
	HOST_PAIR(METRIC_PGALLOC_PER_S, "pgalloc_per_s", "pages/s", "4 KB pages allocated"),
	HOST_PAIR(METRIC_PGFREE_PER_S, "pgfree_per_s", "pages/s", "4 KB pages freed"),
	HOST_PAIR(METRIC_CAL_IPIS_PER_S, "cal_ipis_per_s", "IPIs/s", "function-call IPIs received"),
	HOST_PAIR(METRIC_HRTIMER_SOFTIRQS_PER_S, "hrtimer_softirqs_per_s", "softirqs/s", "HRTIMER softirq runs"),
#undef HOST_PAIR
	/* cat_{send,recv}[_app|_irq]_<category>_pct (costcat.h) */
#define CAT_ROW(s, p, c, name, help) [METRIC_CAT(s, p, c)] = {"cat_" name "_pct", NULL, 0, "%", help}
#define CAT_ROWS(s, p, pre, help)                                                              \
	CAT_ROW(s, p, CAT_DATA_COPY, pre "data_copy", help), CAT_ROW(s, p, CAT_ETC, pre "etc", help), \
	CAT_ROW(s, p, CAT_LOCK, pre "lock", help), CAT_ROW(s, p, CAT_MM, pre "mm", help),            \
	CAT_ROW(s, p, CAT_NETDEV, pre "netdev", help), CAT_ROW(s, p, CAT_SCHED, pre "sched", help),  \
	CAT_ROW(s, p, CAT_SKB, pre "skb", help), CAT_ROW(s, p, CAT_TCPIP, pre "tcpip", help)
	CAT_ROWS(0, 0, "send_", "share of the sender's host's busy CPU time in this category of Cai et al."),
	CAT_ROWS(0, 1, "send_app_", "the same, in process context (applications, system calls)"),
	CAT_ROWS(0, 2, "send_irq_", "the same, in hardirq and softirq context"),
	CAT_ROWS(1, 0, "recv_", "share of the receiver's host's busy CPU time in this category of Cai et al."),
	CAT_ROWS(1, 1, "recv_app_", "the same, in process context (applications, system calls)"),
	CAT_ROWS(1, 2, "recv_irq_", "the same, in hardirq and softirq context"),
#undef CAT_ROWS
#undef CAT_ROW
};

#define SPLIT(id) {id, id##_SEND, id##_RECV}
const struct metric_split metric_splits[METRIC_SPLIT_N] = {
	SPLIT(METRIC_NETRX_SOFTIRQS_PER_S), SPLIT(METRIC_RES_IPIS_PER_S), SPLIT(METRIC_CS_PER_S),
	SPLIT(METRIC_INTR_PER_S), SPLIT(METRIC_PGALLOC_PER_S), SPLIT(METRIC_PGFREE_PER_S),
	SPLIT(METRIC_CAL_IPIS_PER_S), SPLIT(METRIC_HRTIMER_SOFTIRQS_PER_S),
};
#undef SPLIT

const char *regime_name(const double *v, double *per_write)
{
	double w = v[METRIC_WRITES_PER_S], r = v[METRIC_RCV_WAKEUPS_PER_S];
	*per_write = w > 0 ? r / w : 0;
	if (w <= 0)
		return "unknown";
	if (*per_write >= REGIME_SLEEPS)
		return "reader-sleeps";
	if (*per_write < REGIME_AWAKE)
		return "reader-behind";
	return "mixed";
}

bool window_limited(double rwnd_pct)
{
	return rwnd_pct >= WINDOW_LIMITED_PCT;
}

bool steady_states_apart(const double *a, const double *b)
{
	double t = a[METRIC_THROUGHPUT_MBPS], lt = b[METRIC_THROUGHPUT_MBPS];
	double w = a[METRIC_SND_RWND_LIMITED_PCT], lw = b[METRIC_SND_RWND_LIMITED_PCT];
	if (isfinite(t) && isfinite(lt) && t > 0 && fabs(lt / t - 1) > STATES_APART)
		return true;
	return isfinite(w) && isfinite(lw) && window_limited(w) != window_limited(lw);
}

int metric_find(const char *name)
{
	if (!name)
		return -1;
	for (int i = 0; i < METRIC_N; i++)
		if (strcmp(metric_table[i].name, name) == 0)
			return i;
	return -1;
}

static const char *const bottleneck_names[] = {
	[BOTTLENECK_CPU] = "cpu",
	[BOTTLENECK_WIRE] = "wire",
	[BOTTLENECK_WINDOW] = "window",
	[BOTTLENECK_RECEIVER] = "receiver",
	[BOTTLENECK_NONE] = "none",
};

const char *bottleneck_kind_name(enum bottleneck_kind k)
{
	return (unsigned)k < ARRAY_SIZE(bottleneck_names) ? bottleneck_names[k] : "unknown";
}

int bottleneck_kind_find(const char *name)
{
	for (int b = 0; name && b < (int)ARRAY_SIZE(bottleneck_names); b++)
		if (strcmp(name, bottleneck_names[b]) == 0)
			return b;
	return -1;
}

const char *metrics_busier_role(const double *v)
{
	double s = v[METRIC_SND_CPU_BUSY_PCT], r = v[METRIC_RCV_CPU_BUSY_PCT];
	if (!isfinite(s) || !isfinite(r))
		return NULL;
	return metrics_sender_busier(s, r) ? "sender's CPU" : "receiver's CPU";
}

void cpu_cycles_free(struct cpu_cycles *cc)
{
	free(cc->cycles);
	cc->cycles = NULL;
}
