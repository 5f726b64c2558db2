/*
 * metrics: what one run reports, and the table that names it.
 *
 * metric_table[] is the contract shared by --format csv/json, compare,
 * sweeps, recorded runs in validation/ and calibration: column name, the
 * LKP name it corresponds to (if any), unit and help.  Add a metric by
 * adding an enum value and a row; never rename a column.
 *
 * All METRIC_* values are rates over the measured interval (warm-up
 * excluded) or ratios of them.  LKP-style totals are rate * lkp_seconds and
 * are computed by the report, not stored.
 */
#ifndef TCPSIM_METRICS_H
#define TCPSIM_METRICS_H

#include <stdint.h>

#include "cost.h"
#include "costcat.h"
#include "scenario.h"

enum metric_id {
	/* the column contract (the CSV columns, docs/output.md), in this order */
	METRIC_THROUGHPUT_MBPS,       /* mean per instance, 10^6 bit/s */
	METRIC_THROUGHPUT_TOTAL_MBPS, /* all instances */
	METRIC_CPU_SEND_PCT,
	METRIC_CPU_RECV_PCT,
	METRIC_SD_SEND_US_PER_KB,
	METRIC_SD_RECV_US_PER_KB,
	METRIC_NETRX_SOFTIRQS_PER_S,
	METRIC_RES_IPIS_PER_S,
	METRIC_CS_PER_S,
	METRIC_INTR_PER_S,
	METRIC_PGALLOC_PER_S,
	METRIC_PGFREE_PER_S,
	METRIC_SEGS_PER_S,
	METRIC_FRAMES_PER_S,
	METRIC_ACKS_PER_S,
	/* further mechanics */
	METRIC_CAL_IPIS_PER_S,
	METRIC_WIRE_FRAMES_PER_S,
	METRIC_GRO_MERGES_PER_S,
	METRIC_HARDIRQS_PER_S,
	METRIC_SEGS_PER_FRAME,
	METRIC_ACKS_PER_FRAME,
	METRIC_WAKEUPS_PER_S,
	METRIC_SND_WAKEUPS_PER_S,
	METRIC_MIGRATIONS_PER_S,
	METRIC_OFO_PER_S,
	METRIC_ACKS_RX_PER_S,
	METRIC_ACKS_READ_PER_S,
	METRIC_ACKS_DELACK_PER_S,
	METRIC_ACKS_QUICK_PER_S,
	METRIC_RETRANS_SEGS_PER_S,
	METRIC_RECOVERIES_PER_S,
	METRIC_UNDOS_PER_S,
	METRIC_KSWAPD_WAKES_PER_S,
	/* per write, and per CPU by role: the first connection's sender's and
	 * receiver's CPUs (app.send_cpu/recv_cpu when pinned, else where each
	 * last ran); on a NIC run the receiver's is on rhost */
	METRIC_WRITES_PER_S,
	METRIC_READS_PER_S,
	METRIC_RCV_WAKEUPS_PER_S,
	METRIC_HRTIMER_SOFTIRQS_PER_S,
	METRIC_PACE_KICKS_PER_S,
	METRIC_SKB_DEFERRED_PER_S,
	METRIC_WAKE_NO_IPI_PER_S,
	METRIC_SND_CPU_BUSY_PCT,
	METRIC_RCV_CPU_BUSY_PCT,
	METRIC_SND_CPU_NETRX_PER_S,
	METRIC_RCV_CPU_NETRX_PER_S,
	METRIC_SND_CPU_HRTIMER_PER_S,
	METRIC_RCV_CPU_HRTIMER_PER_S,
	METRIC_SND_CPU_LOC_PER_S,
	METRIC_RCV_CPU_LOC_PER_S,
	METRIC_SND_CPU_CAL_PER_S,
	METRIC_RCV_CPU_CAL_PER_S,
	METRIC_SND_CPU_RES_PER_S,
	METRIC_RCV_CPU_RES_PER_S,
	/* NIC: skbs RPS/RFS queued on another CPU's backlog */
	METRIC_RPS_STEERED_PER_S,
	/* tcp_info's rwnd_limited over busy_time, the connections summed */
	METRIC_SND_RWND_LIMITED_PCT,
	/* tcp_add_backlog's merges (5.0+), named as measure-live's TcpExt column */
	METRIC_BACKLOG_COALESCE_PER_S,
	/* tcp_queue_rcv's merges into the receive queue's tail, named as
	 * measure-live's TcpExt column */
	METRIC_RCV_COALESCE_PER_S,
	/* the LKP counters host by host: the sender's host (_send) and the
	 * receiver's (_recv); on a one-host run both are that host's */
	METRIC_NETRX_SOFTIRQS_PER_S_SEND,
	METRIC_NETRX_SOFTIRQS_PER_S_RECV,
	METRIC_RES_IPIS_PER_S_SEND,
	METRIC_RES_IPIS_PER_S_RECV,
	METRIC_CS_PER_S_SEND,
	METRIC_CS_PER_S_RECV,
	METRIC_INTR_PER_S_SEND,
	METRIC_INTR_PER_S_RECV,
	METRIC_PGALLOC_PER_S_SEND,
	METRIC_PGALLOC_PER_S_RECV,
	METRIC_PGFREE_PER_S_SEND,
	METRIC_PGFREE_PER_S_RECV,
	METRIC_CAL_IPIS_PER_S_SEND,
	METRIC_CAL_IPIS_PER_S_RECV,
	METRIC_HRTIMER_SOFTIRQS_PER_S_SEND,
	METRIC_HRTIMER_SOFTIRQS_PER_S_RECV,
	/* CPU time by Cai et al.'s categories (costcat.h), % of the host's busy
	 * time: the sender's host, then the receiver's (rhost); each all
	 * contexts, process context (app), then hardirq + softirq (irq) */
	METRIC_CAT_FIRST,
	METRIC_CAT_LAST = METRIC_CAT_FIRST + 2 * 3 * CAT_N - 1,
	METRIC_N
};

/* The column of side (0 sender, 1 receiver), part (0 all, 1 app, 2 irq), category. */
#define METRIC_CAT(side, part, cat) (METRIC_CAT_FIRST + ((side) * 3 + (part)) * CAT_N + (cat))

/* Number of metrics that form the stable CSV contract (prefix of the enum). */
#define METRIC_CONTRACT_N (METRIC_ACKS_PER_S + 1)

struct metric_desc {
	const char *name;      /* CSV/JSON column */
	const char *lkp_name;  /* LKP/netperf name, or NULL */
	int lkp_total;         /* 1: LKP reports it as a total over the run */
	const char *unit;
	const char *help;
};

extern const struct metric_desc metric_table[METRIC_N];

/*
 * The steady state a bulk run settled in, by how often a reader is woken
 * per write (rcv_wakeups / writes): "reader-sleeps" (at least REGIME_SLEEPS
 * per write: the reader keeps up, empties its queue and waits, so every
 * wakeup -- and its IPI -- is paid), "reader-behind" (below REGIME_AWAKE:
 * data queues up and the reader never waits), "mixed" between, "unknown"
 * with no writes.  A setting near the boundary may settle either way from
 * one seed to the next (tcpsim run --reps N).  *per_write gets the ratio.
 */
#define REGIME_SLEEPS 0.3
#define REGIME_AWAKE 0.05
const char *regime_name(const double *v, double *per_write);

/*
 * The steady state by the window: window-limited (snd_rwnd_limited_pct)
 * from half the senders' busy time up -- the reader behind its data --, a
 * frame or two per write below.  Two runs of one configuration (one from a
 * start together, one with its receivers starting late: app.recv_start,
 * tcpsim run/validate --states) are in two steady states when their
 * throughput is more than STATES_APART apart or one is window-limited and
 * the other not.
 */
#define WINDOW_LIMITED_PCT 50.0
#define STATES_APART 0.05
bool window_limited(double rwnd_pct);
bool steady_states_apart(const double *a, const double *b);

/* Each LKP counter with its sender's-host and receiver's-host metric. */
struct metric_split {
	enum metric_id sum, send, recv;
};
#define METRIC_SPLIT_N 8
extern const struct metric_split metric_splits[METRIC_SPLIT_N];

/* Look a metric up by column name; -1 if unknown. */
int metric_find(const char *name);

enum bottleneck_kind { BOTTLENECK_CPU, BOTTLENECK_WIRE, BOTTLENECK_WINDOW, BOTTLENECK_RECEIVER, BOTTLENECK_NONE };

/* Whether the sender's CPU is the busier of two busy shares: on a tie it
 * is (metrics_busier_role's rule, and the single runs' in reps.c). */
static inline bool metrics_sender_busier(double snd_busy, double rcv_busy)
{
	return snd_busy >= rcv_busy;
}

/* Which role's CPU is the busier in v (snd_cpu_busy_pct against
 * rcv_cpu_busy_pct, the sender's on a tie): "sender's CPU" or "receiver's
 * CPU", NULL when either is not finite. */
const char *metrics_busier_role(const double *v);

/* "cpu", "wire", "window", "receiver", "none"; "unknown" out of range. */
const char *bottleneck_kind_name(enum bottleneck_kind k);
/* The kind with that name, or -1. */
int bottleneck_kind_find(const char *name);

struct metrics {
	double v[METRIC_N];

	/* where the CPU time went: share of all CPU capacity of the host, % */
	double host_cat_pct[2][COST_N];
	double host_ctx_pct[2][3];     /* hardirq, softirq, process */
	double host_ctx_cost_pct[2][3][COST_N]; /* host_cat_pct split by context */
	double cpu_busy_pct[2][SCENARIO_MAX_CPUS];

	/* what the run was: effective settings after autotuning */
	int mss_bytes;
	int size_goal_bytes;
	int64_t sndbuf_bytes, rcvbuf_bytes; /* at the end of the run */
	/* the first connection's sender at the end of the run, in segments, as
	 * ss -ti prints them: cwnd, and ssthresh (0: never set, slow start
	 * not yet left: ss prints none) */
	int64_t cwnd_segs, ssthresh_segs;
	double measured_s;       /* measured interval actually simulated */
	double warmup_s;
	int early_stop;          /* 1: stopped once steady */
	int buffers_settled;     /* 0: autotuning still changed buffers in the measured interval */
	int batches;
	double tput_ci_pct;      /* 95% CI half-width of throughput, % of mean */
	uint64_t events;         /* events executed, warm-up included */

	enum bottleneck_kind bottleneck;
	int bottleneck_host, bottleneck_cpu;
	double bottleneck_util_pct;
	char bottleneck_text[192];
};

/* Each CPU's cycles over the measured interval by context (hardirq,
 * softirq, process) and cost key, for `tcpsim run --folded F --folded-cpus`:
 * the split struct metrics sums per host.  The rows are host 0's CPUs,
 * then host 1's (cpu_cycles_row). */
struct cpu_cycles {
	int nhosts;
	int ncpus[2];
	double (*cycles)[3][COST_N]; /* ncpus[0] + ncpus[1] rows, or NULL */
};

/* The row of CPU i of host h */
static inline double (*cpu_cycles_row(const struct cpu_cycles *cc, int h, int i))[COST_N]
{
	return cc->cycles[(h ? cc->ncpus[0] : 0) + i];
}

void cpu_cycles_free(struct cpu_cycles *cc);

#endif
