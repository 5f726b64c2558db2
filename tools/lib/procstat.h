/*
 * procstat: the kernel's own counters of a live machine, read from /proc
 * snapshots, and their deltas -- the measured side of what the model
 * reports (softirqs.NET_RX, interrupts.RES/CAL, vmstat.system.cs/in,
 * proc-vmstat.pgalloc_normal/pgfree, CPU time, segments/frames/ACKs).
 *
 * A snapshot is a directory of verbatim copies of /proc files, taken back to
 * back by tools/procstat (`procstat snap DIR`), so that a run can be redone
 * from its files and tests need no root and no live kernel:
 *
 *   time        "MONOTONIC_S CLK_TCK" (clock_gettime(CLOCK_MONOTONIC) and
 *               sysconf(_SC_CLK_TCK), written by the snapshot tool)
 *   stat        /proc/stat: cpu lines (USER_HZ ticks), ctxt, intr
 *   softirqs    /proc/softirqs: NET_RX, TIMER, HRTIMER per CPU (handler runs,
 *               not packets)
 *   interrupts  /proc/interrupts: LOC, RES and CAL per CPU (x86 names; the
 *               count of a CPU is what that CPU received)
 *   vmstat      /proc/vmstat: pgalloc_normal, pgfree (4 KB pages)
 *   ksoftirqd   optional: the /proc/PID/stat lines of the ksoftirqd/N threads
 * and, for the network namespace the snapshot was taken in:
 *   snmp        /proc/net/snmp: Ip OutRequests, Tcp OutSegs, RetransSegs
 *   netstat     /proc/net/netstat: TcpExt TCPOrigDataSent, and the TcpExt
 *               counters of procstat_tcpext_names[] where the kernel has them
 *   dev         /proc/net/dev: packets per device
 *
 * Scope, which every report of these figures must say: everything in
 * `stat`, `softirqs`, `interrupts` and `vmstat` is system-wide (all CPUs,
 * all processes, all namespaces); `snmp`, `netstat` and `dev` belong to the
 * reading process's network namespace only (/proc/net is /proc/self/net).
 *
 * Parsing is strict: a malformed line is one error "FILE:LINE: ..." with
 * status TCPSIM_EUSAGE; an unreadable file TCPSIM_EIO.  The structs are
 * plain values (no allocation), so snapshots are copied freely.
 */
#ifndef TCPSIM_PROCSTAT_H
#define TCPSIM_PROCSTAT_H

#include <stdint.h>

#include "err.h"

#define PROCSTAT_MAX_CPUS 256
#define PROCSTAT_MAX_DEVS 16

/* Per-CPU rows kept from softirqs and interrupts (one slot per CPU each). */
enum procstat_row {
	PR_NET_RX,   /* softirqs NET_RX */
	PR_TIMER,    /* softirqs TIMER: timer-wheel softirqs */
	PR_HRTIMER,  /* softirqs HRTIMER: hrtimer softirqs (a pacing timer's tasklet runs in it) */
	PR_LOC,      /* interrupts LOC: local APIC timer interrupts */
	PR_RES,      /* interrupts RES: reschedule IPIs received */
	PR_CAL,      /* interrupts CAL: function-call IPIs received */
	PR_N
};

/*
 * TcpExt counters kept per namespace (/proc/net/netstat), in this order;
 * each is optional (older kernels lack some: TCPBacklogCoalesce is 5.0+).
 */
enum { PROCSTAT_TCPEXT_N = 17 };
extern const char *const procstat_tcpext_names[PROCSTAT_TCPEXT_N];

/* The time columns of a /proc/stat cpu line, in its order (proc(5)). */
enum procstat_cpu_field {
	PS_USER,
	PS_NICE,
	PS_SYSTEM,
	PS_IDLE,
	PS_IOWAIT,
	PS_IRQ,
	PS_SOFTIRQ,
	PS_STEAL,
	PS_CPU_N
};

struct procstat_sys {
	double mono_s;                          /* CLOCK_MONOTONIC at the snapshot */
	long clk_tck;                           /* USER_HZ: ticks per second in stat */
	int ncpus;                              /* cpuN lines of /proc/stat */
	uint64_t cpu[PS_CPU_N];                 /* the "cpu" line */
	uint64_t cpu_n[PROCSTAT_MAX_CPUS][PS_CPU_N];
	uint64_t ctxt;                          /* context switches since boot */
	uint64_t intr;                          /* first number of "intr": all interrupts */
	uint64_t netrx_softirqs;                /* NET_RX, summed over CPUs */
	uint64_t res_ipis, cal_ipis;            /* RES, CAL, summed over CPUs */
	int row_ncpus[PR_N];                    /* columns of each per-CPU row */
	uint64_t row_n[PR_N][PROCSTAT_MAX_CPUS]; /* the rows of enum procstat_row, per CPU */
	uint64_t pgalloc_normal, pgfree;
	int have_ksoftirqd;
	uint64_t ksoftirqd_ticks;               /* utime + stime of every ksoftirqd/N */
};

struct procstat_dev {
	char name[32];
	uint64_t rx_packets, tx_packets;
};

struct procstat_net {
	uint64_t ip_out_requests;    /* skbs handed to IP: one per TCP frame, GSO or not */
	uint64_t tcp_out_segs;       /* segments sent (a GSO frame counts its segments) */
	uint64_t tcp_retrans_segs;
	uint64_t tcp_orig_data_sent; /* data segments sent for the first time */
	uint64_t tcpext[PROCSTAT_TCPEXT_N]; /* procstat_tcpext_names[]; UINT64_MAX = absent */
	int ndevs;
	struct procstat_dev dev[PROCSTAT_MAX_DEVS];
};

/* Differences of two system snapshots, as rates and shares. */
struct procstat_sys_delta {
	double secs;                 /* monotonic time between the snapshots */
	double cpu_s;                /* CPU capacity of the interval: all ticks / clk_tck */
	double busy_s;               /* user+nice+system+irq+softirq, CPU-seconds */
	double steal_s;
	double ksoftirqd_s;          /* NAN when a snapshot had no ksoftirqd file */
	double util_pct;             /* busy / all ticks, whole machine */
	int ncpus;
	double cpu_util_pct[PROCSTAT_MAX_CPUS];
	/* each CPU's ticks of every kind over the wall clock's: what /proc/stat
	 * counts at all.  Below 100 where time goes to no field, e.g. a NOHZ
	 * CPU's way out of idle: tick_nohz_idle_exit stops the idle clock
	 * before it reprograms the tick, and the idle task's ticks meanwhile are
	 * not shown as idle (fs/proc/stat.c takes idle from the NOHZ clock) */
	double cpu_counted_pct[PROCSTAT_MAX_CPUS];
	double netrx_per_s, res_per_s, cal_per_s, cs_per_s, intr_per_s;
	double pgalloc_per_s, pgfree_per_s;
	double row_per_s[PR_N][PROCSTAT_MAX_CPUS]; /* per-CPU rates of enum procstat_row */
};

/* Parsers of one file's text; `file` names it in errors. */
int procstat_parse_stat(struct procstat_sys *s, const char *text, const char *file,
			struct tcpsim_err *err);
int procstat_parse_softirqs(struct procstat_sys *s, const char *text, const char *file,
			    struct tcpsim_err *err);
int procstat_parse_interrupts(struct procstat_sys *s, const char *text, const char *file,
			      struct tcpsim_err *err);
int procstat_parse_vmstat(struct procstat_sys *s, const char *text, const char *file,
			  struct tcpsim_err *err);
int procstat_parse_ksoftirqd(struct procstat_sys *s, const char *text, const char *file,
			     struct tcpsim_err *err);
int procstat_parse_time(struct procstat_sys *s, const char *text, const char *file,
			struct tcpsim_err *err);
int procstat_parse_snmp(struct procstat_net *n, const char *text, const char *file,
			struct tcpsim_err *err);   /* snmp and netstat share the format */
int procstat_parse_dev(struct procstat_net *n, const char *text, const char *file,
		       struct tcpsim_err *err);

/* Read a snapshot directory (the files listed above). */
int procstat_load_sys(struct procstat_sys *s, const char *dir, struct tcpsim_err *err);
int procstat_load_net(struct procstat_net *n, const char *dir, struct tcpsim_err *err);

/*
 * b minus a.  Refused (TCPSIM_EUSAGE, message naming both) when the
 * snapshots do not fit: b not later than a, different CPU counts or tick
 * rates, or a counter that went backwards (a reboot between them).
 */
int procstat_sys_delta(const struct procstat_sys *a, const struct procstat_sys *b,
		       struct procstat_sys_delta *d, struct tcpsim_err *err);

/*
 * Per second, the TcpExt counter i of procstat_tcpext_names[] between two
 * snapshots of one namespace (plus a second namespace's pair when rx_a and
 * rx_b are not NULL); NAN when a snapshot lacks it or it went backwards.
 */
double procstat_tcpext_per_s(const struct procstat_net *a, const struct procstat_net *b,
			     const struct procstat_net *rx_a, const struct procstat_net *rx_b,
			     int i, double secs);

/* A device of a net snapshot by name, or NULL. */
const struct procstat_dev *procstat_net_dev(const struct procstat_net *n, const char *name);

/* Read a whole file into an xmalloc'd NUL-terminated buffer (NULL + err on failure). */
char *procstat_read_file(const char *path, struct tcpsim_err *err);

#endif
