/*
 * scenario: every setting of one run, as plain data.
 *
 * A scenario is filled by config.c (defaults, then .cfg files, then -s
 * overrides) and read by the simulator, which never changes it.  Every
 * field here has exactly one row in config.c's key table: name, type,
 * bounds, default, unit, help.  Times are sim_ns (integer nanoseconds),
 * sizes are bytes, rates bits per second.
 *
 * Hosts: host[0] is the sending host (and the only host on loopback);
 * host[1] is the receiving host when link.type = nic.
 */
#ifndef TCPSIM_SCENARIO_H
#define TCPSIM_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cost.h"
#include "simtime.h"


/* loopback and veth: one host, the receive side on the transmitting CPU */
enum link_type { LINK_LOOPBACK, LINK_NIC, LINK_VETH };
enum app_test { APP_TCP_STREAM, APP_TCP_SENDFILE };
enum cc_algo { CC_RENO, CC_CUBIC, CC_BBR, CC_DCTCP };
/* the NIC's root qdisc: a FIFO (pfifo_fast) or sch_fq, which paces each
 * socket at its sk_pacing_rate (3.12+) */
enum qdisc_kind { QDISC_PFIFO_FAST, QDISC_FQ };
/* the application's loop: netperf's (one blocking call per message),
 * iperf3's (a select() before every read() and write()), or iperf 2's,
 * which runs as netperf's: Client::RunTCP and Server::RunTCP make a
 * blocking write() / recv() per buffer, no select() */
enum app_loop { LOOP_NETPERF, LOOP_IPERF3, LOOP_IPERF2 };
/* load balancing domains (sched.c): one over the host, or Linux 3.6's two
 * levels, the CPUs of each last-level cache and then the caches */
enum sched_domains { DOMAINS_HOST, DOMAINS_LLC };
/* sendfile(2) as Linux (tcp_sendpage), FreeBSD before and after the 2006 rewrite (app.c) */
enum sendfile_impl { SENDFILE_LINUX, SENDFILE_FREEBSD_OLD, SENDFILE_FREEBSD_NEW };
/* where a NIC queue's received frames are processed (netdev_nic.h): on the
 * queue's interrupt CPU (RSS alone), on a CPU the flow hash picks (RPS), on
 * the reader's CPU (RFS), or RFS with the NIC choosing the reader's queue (aRFS) */
enum rx_steering { STEER_RSS, STEER_RPS, STEER_RFS, STEER_ARFS };
/* how an idle CPU waits (host.idle): HLT, woken by an interrupt, or MWAIT
 * armed on its thread flags, woken by the write of TIF_NEED_RESCHED */
enum idle_wait { IDLE_HALT, IDLE_MWAIT };
enum idle_poll_dist { POLL_FIXED, POLL_EXP, POLL_NORMAL };
/* when a background task wakes (host.monitor_arrivals): every period at
 * evenly spread phases, or at random (a Poisson process of that mean
 * interval, each task its own stream) */
enum monitor_arrivals { MONITOR_PERIODIC, MONITOR_POISSON };

#define SCENARIO_MAX_CPUS 256
#define SCENARIO_NAME_MAX 64

struct host_cfg {
	int cpus;                 /* CPUs (hardware threads) */
	double ghz;               /* clock rate; cycles -> ns */
	int hz;                   /* scheduler tick rate (CONFIG_HZ) */
	int llc_cpus;             /* CPUs per last-level cache; 0 = all share one */
	int64_t cache_bytes;      /* data a CPU's cache holds before the oldest leaves it (cost.recv_copy_cold_byte) */
	char kernel[16];          /* kernel version imitated, e.g. "3.6" */
	char name[SCENARIO_NAME_MAX];
	int monitors;             /* background tasks (LKP's monitors), see app.c */
	sim_ns monitor_period_ns; /* each wakes this often and runs cost.monitor */
	enum monitor_arrivals monitor_arrivals;
	bool kswapd;              /* free memory below the order-3 low watermark (see skb.c) */
	/* an idle CPU (cpuidle, sched.c): for idle_poll_ns after it went idle
	 * it still polls TIF_NEED_RESCHED, so a wakeup needs no IPI
	 * (sched_wake_idle_without_ipi); past that it has halted, and an IPI
	 * reaches a running context only idle_exit_ns later (exit latency: on a
	 * VM the vCPU must be scheduled again) */
	sim_ns idle_poll_ns;
	sim_ns idle_exit_ns;
	/* POLL_EXP, POLL_NORMAL: the poll lasts a different time at each idle
	 * entry, none at a share 1 - idle_poll_share of them and else
	 * exponentially distributed with mean idle_poll_ns, or normally with
	 * mean idle_poll_ns and standard deviation idle_poll_sd_ns (cut at 0)
	 * (sched.c: sched_idle_window) */
	enum idle_poll_dist idle_poll_dist;
	double idle_poll_share;
	sim_ns idle_poll_sd_ns;
	/* IDLE_MWAIT: past idle_poll_ns the CPU waits in MWAIT, still polling
	 * in the scheduler's sense (mwait_idle_with_hints sets
	 * TIF_POLLING_NRFLAG), so a wakeup needs no IPI at any time; it still
	 * runs idle_exit_ns after the flag is written (the C-state's exit) */
	enum idle_wait idle;
	/* a VM guest whose hypervisor polls a halted vCPU (KVM's halt_poll_ns,
	 * kvm_vcpu_halt) for vm_halt_poll_ns after it halted: an IPI meanwhile
	 * costs the sender cost.ipi_send_polled, not ipi_send, and the vCPU
	 * runs vm_halt_poll_exit_ns later, not idle_exit_ns; 0 = no such
	 * polling (sched.c: host_polls_vcpu) */
	sim_ns vm_halt_poll_ns;
	sim_ns vm_halt_poll_exit_ns;
	/* 4.14+: the share of a read()'s cost.syscall charged after the read
	 * takes its socket (tcp_recvmsg -> lock_sock -> tcp_recvmsg_locked:
	 * the read's own kernel code, most of it under the lock), the rest at
	 * its entry, before; 0 = all at the entry (app.c: receiver_step) */
	double recv_locked_share;
	/* a VM guest: an IPI reaches a vCPU that is not halted (running, or on
	 * its way into idle) ipi_latency_ns after it was sent -- the host must
	 * stop the vCPU to inject it; a queued wakeup (wake list) waits for it,
	 * as the IPI's handler activates the task (sched.c: sched_wakeup);
	 * 0 = at once (bare metal, and every profile that does not set it) */
	sim_ns ipi_latency_ns;
	/* a VM whose vCPUs share their physical cores with other work (an
	 * SMT sibling running another guest): each CPU's speed wanders, its
	 * log an Ornstein-Uhlenbeck process of s.d. speed_sd and correlation
	 * time speed_tau_ns, each CPU's apart (cpu.c: cpu_speed_factor); 0 =
	 * a steady speed */
	double speed_sd;
	sim_ns speed_tau_ns;
	double cost_cycles[COST_N]; /* see cost.h */

	/* the host's NIC (link.type = nic; see netdev_nic.h) */
	int irq_cpu;              /* CPU that takes the NIC's interrupt (IRQ affinity) */
	sim_ns rx_coal_ns;        /* ethtool rx-usecs: interrupt delay after a received frame */
	int rx_coal_frames;       /* ethtool rx-frames: interrupt at once after this many; 0 = off */
	sim_ns tx_coal_ns;        /* ethtool tx-usecs, for TX completions */
	int tx_coal_frames;       /* ethtool tx-frames; 0 = off */
	/* multi-queue NIC: queue pairs, each with its own interrupt and NAPI */
	int queues;               /* ethtool -L combined */
	char irq_affinity[SCENARIO_NAME_MAX];   /* queue i's interrupt on the i-th CPU of this list
	                           * (smp_affinity_list syntax); "auto": irq_cpu + i */
	enum rx_steering rx_steering;
};

/* host.irq_affinity = auto: queue i's interrupt on CPU irq_cpu + i. */
static inline bool nic_affinity_auto(const struct host_cfg *hc) { return strcmp(hc->irq_affinity, "auto") == 0; }

struct scenario {
	/* [run] */
	sim_ns duration_ns;       /* longest measured interval */
	sim_ns warmup_ns;         /* simulated, then discarded */
	uint64_t seed;
	sim_ns batch_ns;          /* batch length for the steady-state test */
	int min_batches;          /* batches before an early stop is allowed */
	double ci_target;         /* stop when 95% CI half-width / mean <= this; 0 = never */
	double lkp_seconds;       /* totals are shown as if over this long a run */
	double cost_jitter;       /* relative s.d. of each unit of work's cost */

	/* [host] and [cost]; [rhost] and [rcost] for host[1] (NIC) */
	struct host_cfg host[2];

	/* [link] */
	enum link_type link_type;
	int mtu_bytes;
	sim_ns delay_ns;          /* one-way propagation delay */
	double rate_bps;          /* NIC line rate */
	int backlog_max;          /* netdev_max_backlog */
	int netdev_budget;        /* packets per net_rx_action */
	int dev_weight;           /* packets per backlog/NAPI poll */

	/* [offload] */
	bool tso, gso, gro, lro, csum;
	int gso_max_bytes;        /* dev->gso_max_size; above 65536 BIG TCP (IPv4: 6.3+) */
	int gro_max_bytes;        /* dev->gro_max_size; above 65536 BIG TCP (IPv4: 6.3+) */

	/* [tcp] */
	int64_t sndbuf_bytes;     /* 0: autotune */
	int64_t rcvbuf_bytes;     /* 0: autotune */
	int64_t wmem_default, wmem_max;
	int64_t rmem_default, rmem_max;
	bool timestamps;
	int init_cwnd;            /* segments */
	int reordering;           /* tcp_reordering, segments */
	enum cc_algo cc;
	sim_ns delack_min_ns;     /* TCP_DELACK_MIN */
	sim_ns delack_max_ns;     /* TCP_DELACK_MAX */
	sim_ns ato_min_ns;        /* TCP_ATO_MIN */
	bool nodelay;
	int adv_win_scale;        /* tcp_adv_win_scale */
	bool pacing;              /* sk_pacing_status = SK_PACING_NEEDED: TCP paces itself (4.13+) */
	int pacing_ss_ratio;      /* net.ipv4.tcp_pacing_ss_ratio, % */
	int pacing_ca_ratio;      /* net.ipv4.tcp_pacing_ca_ratio, % */
	double max_pacing_bps;    /* SO_MAX_PACING_RATE, bit/s; 0 = none (3.13+) */
	int min_tso_segs;         /* net.ipv4.tcp_min_tso_segs (3.12+) */
	int tso_rtt_log;          /* net.ipv4.tcp_tso_rtt_log (5.18+) */
	int64_t limit_output_bytes; /* net.ipv4.tcp_limit_output_bytes (TSQ, 3.6+); 0 = the era's default */
	int64_t ecn_threshold_bytes; /* [link] the sender's NIC marks ECT frames CE above this queue; 0 = never */
	enum qdisc_kind qdisc;    /* [link] the NIC's root qdisc */

	/* [app] */
	enum app_test test;
	int64_t send_size;
	int64_t recv_size;
	int instances;
	enum app_loop loop;
	int send_cpu;             /* -1: scheduler decides (netperf -T) */
	int recv_cpu;
	sim_ns recv_start_ns;     /* the receivers' first call waits this long (0: at once) */
	sim_ns rcv_ssthresh_clamp_ns; /* from then each receiver's rcv_ssthresh is at its clamp once (0: never) */

	/* [sched] */
	sim_ns sched_latency_ns;          /* sysctl_sched_latency, unscaled */
	sim_ns sched_min_gran_ns;         /* sysctl_sched_min_granularity, unscaled */
	sim_ns sched_wakeup_gran_ns;      /* sysctl_sched_wakeup_granularity, unscaled */
	bool wake_affine;
	enum sched_domains sched_domains;

	/* [mem] */
	int slab_objs;            /* objects per slab of the skb cache */
	int slab_pages;           /* pages per slab (order-3: 8) */
	int slab_cpu_objs;        /* free objects a CPU keeps before releasing a slab */
	int frag_pages;           /* pages in one socket page frag (order-3: 8) */
	int skb_overhead_bytes;   /* truesize - data length */
	int max_tcp_header_bytes; /* MAX_TCP_HEADER: headroom of a TCP skb (a kernel build's) */

	/* Kept by config.c, ignored by the simulator: which [rhost] and
	 * [rcost] keys were set explicitly; the others follow [host] and
	 * [cost].  Bit i of rhost_explicit is the i-th [rhost] key of
	 * config.c's table. */
	uint32_t rhost_explicit;
	bool rcost_explicit[COST_N];

	/* Two hosts over a NIC (netdev_nic.h) and the sender's sendfile */
	int tx_ring;              /* [link] TX ring, driver skbs (TSO frame or segment) */
	int rx_ring;              /* [link] RX ring, wire frames; full = 802.3x PAUSE */
	enum sendfile_impl sendfile; /* [app] whose sendfile(2) the sender runs */

	/* [run] autotuning has settled when the connections' buffers, summed,
	 * moved by at most this fraction since the measurement began; 0: when
	 * none moved at all */
	double settle_frac;
};

#endif
