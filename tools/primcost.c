/*
 * primcost: this machine's primitive costs, the constants a host profile
 * needs and a fit cannot tell apart (a timer interrupt, a wakeup IPI, a
 * syscall, a byte copied), measured directly each session.
 *
 *   primcost [--cpus A,B] [--quick] [--sweep] [-o OUT.csv] [--cfg OUT.cfg]
 *
 * What is measured (CPU A = the sender's, B = the receiver's):
 *   timer_irq         a thread spins on A reading CLOCK_MONOTONIC while a
 *                     timerfd armed on A fires at 20 kHz; the time lost in
 *                     gaps (deltas above 8x the loop's median and 300 ns, below
 *                     500 us), minus the gaps of an equal spin without the
 *                     timer, per local timer interrupt added (LOC of CPU A in
 *                     /proc/interrupts): the hardirq, the hrtimer, the return
 *   wake_idle_waker   a 16-byte pipe write() on A that wakes a reader blocked
 *                     on B while B is idle (300 us after its last run, past
 *                     haltpoll's polling window): the waker's cost, the
 *                     CAL/RES IPI included
 *   wake_idle_latency from that write() to the reader running on B (the
 *                     CLOCK_MONOTONIC stamp in the message)
 *   wake_busy_waker, wake_busy_latency
 *                     the same with a thread spinning on B (the wakeup goes
 *                     to a busy CPU: RES, then wakeup preemption)
 *   wake_same_waker, wake_same_latency
 *                     waker and reader both on A (no IPI; the latency holds
 *                     the context switch)
 *   syscall           getppid() (never cached by glibc), per call
 *   copy_byte         memcpy of a 64 KB buffer into another (both cache-hot),
 *                     per byte
 *   line_xfer         one cache line handed from A to B: a thread on A and one
 *                     on B take turns incrementing a counter alone on its line
 *                     (each spins until the other's increment shows), half a
 *                     round trip -- what a CPU pays for each line of shared
 *                     state (a socket's, an skb's) the other CPU wrote last
 *   idle_poll         how long after the reader blocked a wakeup still finds
 *                     B polling (no IPI, set_nr_if_polling): the waker's cost
 *                     over gaps of 0..200 us from the reader's read() (the
 *                     waker spins meanwhile); the first gap whose cost is above
 *                     the midpoint of the cheapest gap's and the halted one's
 *                     (an upper estimate: it includes the reader's way into
 *                     sleep, about a syscall)
 *   idle_exit         the latency to a halted B (wake_idle_latency) minus the
 *                     latency at the largest gap still inside the window: B's
 *                     exit from halt (host.idle_exit)
 *   ctxsw             one context switch (cost.ctxsw: __schedule's pick and
 *                     switch): two threads on A take turns by sched_yield();
 *                     their CPU time (CLOCK_THREAD_CPUTIME_ID, so another task
 *                     on A does not count) less a syscall (getppid, CPU time) per
 *                     yield, over the switches both threads' RUSAGE_THREAD
 *                     counts
 *   pipe_rw           a 16-byte write() and read() of one pipe on A with no
 *                     reader waiting, per pair
 *   wakeup            one sleep and wakeup on A (cost.wakeup: try_to_wake_up,
 *                     and the sleeper's way off the run queue): two threads on
 *                     A ping-pong 16 bytes through two pipes; their CPU time less
 *                     a pipe_rw per message and a ctxsw per switch, over the
 *                     voluntary switches (each a read() that slept, so one
 *                     wakeup each)
 * With --sweep, each round's gaps are printed after the table (gap, the
 * waker's cost, the latency): where the waker's cost does not fall at the
 * small gaps, B did not poll, and idle_poll and idle_exit are noise.  Then,
 * per gap, the share of wakeups whose waker paid less than the midpoint of
 * a same-CPU and a halted-CPU wakeup (the wakeup found B polling: no IPI),
 * B idling from rest and from a 20 us busy loop, as a reader's CPU does
 * under load.  A KVM
 * guest whose cpuidle-haltpoll has guest_halt_poll_ns = 0, or that has no
 * cpuidle driver at all (current_driver "none"), never polls: the
 * table says so, and --cfg writes idle_poll = 0 and, for idle_exit,
 * wake_idle_latency - wake_busy_latency (the window's edge is noise there)
 * -- with --sweep, the law
 * fitted to the cheap wakeups' shares after a busy loop instead: P(cheap |
 * gap g) = share * exp(-g / mean), least squares over the gaps, the shares
 * pooled over the rounds (host.idle_poll_dist = exp, idle_poll_share,
 * idle_poll = mean; per round too, in the printout).  --fit-cheap refits a
 * recorded sweep's 15 pooled shares without measuring.
 * Each figure is the median over rounds (5, or 3 with --quick) of a round's
 * median (per-event figures) or mean (syscall, copy); min and max over the
 * rounds are written beside it.  Cycles = ns x "cpu MHz" of /proc/cpuinfo
 * (the nominal clock: a VM's guest cannot see turbo).  The whole run takes
 * about 10 s (under 1 s with --quick, for tests: figures then only show
 * the tool works).
 *
 * Output: a table on stdout and, with -o, a CSV (libcsv, every field
 * quoted): primitive, ns, cycles, unit, rounds, min_ns, max_ns, cpus ("A"
 * or, for a wakeup across CPUs, "A->B": waker on A), cpu_mhz, note.  Written to a temporary file renamed over OUT.
 *
 * Exit status: 0 done, 1 cannot measure or write, 2 usage.
 */
#include <csv.h>
#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "csvread.h"
#include "err.h"
#include "outfile.h"
#include "procstat.h"
#include "util.h"

#include "toolopt.h"

#define PROG "primcost"
#define MAX_ROUNDS 5
#define IDLE_GAP_NS 300000.0   /* beyond haltpoll's default 200 us poll window */
#define SWEEP_GAPS 15           /* measure_poll's gaps */
static const double sweep_gaps_us[SWEEP_GAPS] = {0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 100, 200};

static const char usage_text[] =
	"usage: " PROG " [--cpus A,B] [--quick] [--sweep] [-o OUT.csv] [--cfg OUT.cfg]\n"
	"  Measures timer-interrupt, wakeup (idle, busy and same CPU), context-switch, syscall\n"
	"  and copy costs, and the idle CPU's polling window and exit latency, on CPUs A and B\n"
	"  (default 0,1); prints a table, writes OUT.csv with -o and a tcpsim profile\n"
	"  fragment of the primitives with --cfg.\n"
	"  --quick: a run of under a second (for tests).\n"
	"  --sweep: also print each round's polling sweep (gap, waker's cost, latency) and the\n"
	"           share of cheap (no-IPI) wakeups per gap, B idling from rest and from busy,\n"
	"           and fit share * exp(-gap / mean) to it (--cfg: host.idle_poll_dist = exp).\n"
	"  --fit-cheap P0,P1,...: measure nothing; fit share * exp(-gap / mean) to 15 shares in\n"
	"           per cent at the sweep's gaps, 0 1 2 3 4 6 8 12 16 24 32 48 64 100 200 us (a\n"
	"           recorded sweep's all_busy column; the 0 us share is not fitted: such a\n"
	"           wakeup comes before the sleeper blocked), and print the share and the mean.\n"
	"  --fit-cheap-at G:P[:N],...: the same fit to points at any gaps G (us), shares P (per\n"
	"           cent), each weighted by N (e.g. tools/wakeups-live --gaps' histogram).\n"
	"  --fit-cheap-normal G:P[:N],...: the same points, the law share * P(W > gap) with W\n"
	"           normal (host.idle_poll_dist = normal): prints the share, the mean and the sd.\n"
	"  --wake-gaps G1,G2,...: measure only the wakeup A -> B after B idled G us (any gaps,\n"
	"           e.g. past a hypervisor's halt polling): per gap and round, the waker's cost\n"
	"           (its write()) and the latency to the reader running, medians, then the\n"
	"           median over the rounds; B idles from a 20 us busy loop, as under load.\n"
	"  --split-same A.csv[,B.csv,...] --by M.csv: measure nothing; a host's ctxsw and wakeup\n"
	"           (cost keys, cycles) from its recorded primcost CSVs: their sum is the same-CPU\n"
	"           wakeup's latency less a syscall (the mean over the files), split as M.csv's\n"
	"           measured ctxsw and wakeup split theirs.\n";

enum prim {
	P_TIMER, P_WAKE_IDLE_WAKER, P_WAKE_IDLE_LAT, P_WAKE_BUSY_WAKER, P_WAKE_BUSY_LAT,
	P_WAKE_SAME_WAKER, P_WAKE_SAME_LAT, P_SYSCALL, P_COPY, P_LINE_XFER, P_IDLE_POLL, P_IDLE_EXIT,
	P_CTXSW, P_PIPE_RW, P_WAKEUP, P_N
};

static const struct {
	const char *name, *unit;
} prim_desc[P_N] = {
	[P_TIMER] = {"timer_irq", "per interrupt"},
	[P_WAKE_IDLE_WAKER] = {"wake_idle_waker", "per wakeup"},
	[P_WAKE_IDLE_LAT] = {"wake_idle_latency", "per wakeup"},
	[P_WAKE_BUSY_WAKER] = {"wake_busy_waker", "per wakeup"},
	[P_WAKE_BUSY_LAT] = {"wake_busy_latency", "per wakeup"},
	[P_WAKE_SAME_WAKER] = {"wake_same_waker", "per wakeup"},
	[P_WAKE_SAME_LAT] = {"wake_same_latency", "per wakeup"},
	[P_SYSCALL] = {"syscall", "per call"},
	[P_COPY] = {"copy_byte", "per byte"},
	[P_LINE_XFER] = {"line_xfer", "per line"},
	[P_IDLE_POLL] = {"idle_poll", "window"},
	[P_IDLE_EXIT] = {"idle_exit", "per wakeup"},
	[P_CTXSW] = {"ctxsw", "per switch"},
	[P_PIPE_RW] = {"pipe_rw", "per write+read"},
	[P_WAKEUP] = {"wakeup", "per wakeup"},
};

/* The whole session: options, the clock rate, the figures per round. */
struct primcost {
	int cpu_a, cpu_b, quick, rounds;
	double mhz;
	double round_ns[P_N][MAX_ROUNDS];
	double sweep_cost[MAX_ROUNDS][SWEEP_GAPS], sweep_lat[MAX_ROUNDS][SWEEP_GAPS]; /* measure_poll's */
	/* --sweep: the share of cheap wakeups per gap, the sleeper idling from
	 * rest and from a busy loop (measure_cheap) */
	double cheap_rest[MAX_ROUNDS][SWEEP_GAPS], cheap_busy[MAX_ROUNDS][SWEEP_GAPS];
	double cheap_window[MAX_ROUNDS]; /* the expected no-IPI window: the share integrated over the gaps */
	int have_cheap;
	int haltpoll_off; /* cpuidle-haltpoll's guest_halt_poll_ns is 0, or no cpuidle driver: no polling */
	int no_driver;    /* cpuidle driver "none": the idle loop halts (default_idle_call) */
	double scale;   /* durations and counts: 1, or 1/20 with --quick */
};

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static double median(double *v, int n)
{
	if (n <= 0)
		return NAN;
	gsl_sort(v, 1, (size_t)n);
	return gsl_stats_median_from_sorted_data(v, 1, (size_t)n);
}

/* ------------------------------------------------------------- timer */

/* Local timer interrupts (LOC) that `cpu` received so far, or -1. */
static double loc_count(int cpu)
{
	struct tcpsim_err err;
	err_clear(&err);
	char *text = procstat_read_file("/proc/interrupts", &err);
	struct procstat_sys *s = xcalloc(1, sizeof(*s));
	double n = -1;
	if (text && !procstat_parse_interrupts(s, text, "/proc/interrupts", &err) &&
	    cpu < s->row_ncpus[PR_LOC])
		n = (double)s->row_n[PR_LOC][cpu];
	free(text);
	free(s);
	return n;
}

/*
 * Spin for `ns` on the current CPU; the time lost in gaps above the
 * threshold and below 500 us (an interrupt took the CPU away; longer gaps
 * are other tasks run in between, not counted), in ns.
 */
static double spin_lost_ns(double ns, int fd)
{
	enum { PROBE = 4096 };
	static double d[PROBE];
	double t = now_ns(), prev = t;
	for (int i = 0; i < PROBE; i++) {
		double x = now_ns();
		d[i] = x - prev;
		prev = x;
	}
	double thresh = fmax(8 * median(d, PROBE), 300.0);
	double lost = 0, end = now_ns() + ns;
	prev = now_ns();
	uint64_t ticks;
	for (unsigned i = 0; prev < end; i++) {
		/* a timerfd re-arms only when read (timerfd_read): read it every
		 * few microseconds, in both spins, so each period is one interrupt */
		if ((i & 127) == 0 && read(fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
			return NAN;
		double x = now_ns();
		if (x - prev > thresh && x - prev < 500e3)
			lost += x - prev;
		prev = x;
	}
	return lost;
}

/*
 * The cost of one timer interrupt: the time a spinning CPU loses with a
 * 20 kHz timerfd armed on it, minus what it loses without, per local timer
 * interrupt added (/proc/interrupts LOC of that CPU: several expiries can
 * share one interrupt, so interrupts are counted, not expiries).
 */
static int measure_timer(struct primcost *pc, int r, const char **why)
{
	double span = 0.2e9 * pc->scale;
	if (pin(pc->cpu_a) != 0) {
		*why = "cannot pin to CPU A";
		return -1;
	}
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	if (fd < 0) {
		*why = "timerfd_create failed";
		return -1;
	}
	double l0 = loc_count(pc->cpu_a);
	double base = spin_lost_ns(span, fd);
	double l1 = loc_count(pc->cpu_a);
	struct itimerspec its = {.it_interval = {0, 50000}, .it_value = {0, 50000}}; /* 20 kHz */
	timerfd_settime(fd, 0, &its, NULL);
	double l2 = loc_count(pc->cpu_a);
	double lost = spin_lost_ns(span, fd);
	double l3 = loc_count(pc->cpu_a);
	struct itimerspec off = {0};
	timerfd_settime(fd, 0, &off, NULL);
	close(fd);
	if (isnan(base) || isnan(lost)) {
		*why = "cannot read the timerfd";
		return -1;
	}
	if (l0 < 0 || l1 < 0 || l2 < 0 || l3 < 0) {
		*why = "no LOC row for CPU A in /proc/interrupts";
		return -1;
	}
	double added = (l3 - l2) - (l1 - l0);
	if (added < 1) {
		*why = "the timer added no local timer interrupt";
		return -1;
	}
	pc->round_ns[P_TIMER][r] = fmax(lost - base, 0) / added;
	return 0;
}

/* ---------------------------------------------------------- wakeups */

struct pingpong {
	int to_sleeper[2], to_waker[2];
	int sleeper_cpu, iters;
	double *lat;             /* per iteration: write() to the reader running */
	atomic_int hog_stop;
	int hog_cpu;
	/* spin mode (the polling sweep): the sleeper stamps the moment it
	 * calls read() again and bumps blocks; the waker spins on blocks
	 * instead of sleeping on a reply, so a gap counts from the sleeper's
	 * read(), not from a reply the waker would wake up late for */
	int spin;
	atomic_int blocks;
	_Atomic double block_at;
	/* the sleeper spins this long before each read(): its CPU goes idle
	 * straight from a busy loop, as a reader's does under load */
	double busy_before_ns;
};

static void *sleeper(void *arg)
{
	struct pingpong *pp = arg;
	pin(pp->sleeper_cpu);
	for (int i = 0; i < pp->iters; i++) {
		double msg[2];
		if (pp->busy_before_ns > 0) {
			double until = now_ns() + pp->busy_before_ns;
			while (now_ns() < until)
				;
		}
		if (pp->spin) {
			atomic_store(&pp->block_at, now_ns());
			atomic_fetch_add(&pp->blocks, 1);
		}
		if (read(pp->to_sleeper[0], msg, sizeof(msg)) != (ssize_t)sizeof(msg))
			break;
		pp->lat[i] = now_ns() - msg[0];
		char c = 1;
		if (!pp->spin && write(pp->to_waker[1], &c, 1) != 1)
			break;
	}
	return NULL;
}

static void *hog(void *arg)
{
	struct pingpong *pp = arg;
	pin(pp->hog_cpu);
	while (!atomic_load_explicit(&pp->hog_stop, memory_order_relaxed))
		;
	return NULL;
}

/*
 * One round of ping-pong: the waker on A, the sleeper on `cpu`, a spinning
 * hog on `cpu` when `busy`.  Fills the round's waker cost and latency.
 */
static int measure_wake_gap(struct primcost *pc, int cpu, int busy, int spin, double gap_ns, int iters,
			    double busy_before_ns, double cheap_ns, double *cheap_frac, double *waker_ns,
			    double *lat_ns, const char **why);

static int measure_wake(struct primcost *pc, int r, int cpu, int busy, enum prim waker_p,
			enum prim lat_p, const char **why)
{
	int iters = (int)fmax(20, (busy ? 200 : 300) * pc->scale);
	return measure_wake_gap(pc, cpu, busy, 0, cpu == pc->cpu_a ? 0 : IDLE_GAP_NS, iters, 0, 0, NULL,
				&pc->round_ns[waker_p][r], &pc->round_ns[lat_p][r], why);
}

/* The polling window and the exit latency (see the header): one sweep of
 * gaps per round, against that round's halted figures. */
static int measure_poll(struct primcost *pc, int r, const char **why)
{
	const double *gaps_us = sweep_gaps_us;
	enum { NG = SWEEP_GAPS };
	double *cost = pc->sweep_cost[r], *lat = pc->sweep_lat[r], lo = INFINITY;
	double hi_cost = pc->round_ns[P_WAKE_IDLE_WAKER][r], hi_lat = pc->round_ns[P_WAKE_IDLE_LAT][r];
	int iters = (int)fmax(15, 100 * pc->scale), k;

	for (k = 0; k < NG; k++) {
		if (measure_wake_gap(pc, pc->cpu_b, 0, 1, gaps_us[k] * 1000, iters, 0, 0, NULL, &cost[k], &lat[k], why))
			return -1;
		if (cost[k] < lo)
			lo = cost[k];
	}
	for (k = 0; k < NG && cost[k] <= (lo + hi_cost) / 2; k++)
		;
	pc->round_ns[P_IDLE_POLL][r] = k < NG ? gaps_us[k] * 1000 : gaps_us[NG - 1] * 1000;
	pc->round_ns[P_IDLE_EXIT][r] = k > 0 ? fmax(0, hi_lat - lat[k - 1]) : 0;
	return 0;
}

/* --sweep: per gap, the share of wakeups whose waker paid less than the
 * midpoint of a same-CPU and a halted-CPU wakeup (this round's medians) --
 * a wakeup that found B still polling -- with the sleeper idling from rest
 * and from a BUSY_BEFORE_US busy loop. */
#define BUSY_BEFORE_US 20
static int measure_cheap(struct primcost *pc, int r, const char **why)
{
	double cheap_ns = (pc->round_ns[P_WAKE_SAME_WAKER][r] + pc->round_ns[P_WAKE_IDLE_WAKER][r]) / 2, w, l;
	int iters = (int)fmax(15, 100 * pc->scale);

	for (int k = 0; k < SWEEP_GAPS; k++) {
		if (measure_wake_gap(pc, pc->cpu_b, 0, 1, sweep_gaps_us[k] * 1000, iters, 0, cheap_ns,
					&pc->cheap_rest[r][k], &w, &l, why) ||
		    measure_wake_gap(pc, pc->cpu_b, 0, 1, sweep_gaps_us[k] * 1000, iters, BUSY_BEFORE_US * 1000.0,
					cheap_ns, &pc->cheap_busy[r][k], &w, &l, why))
			return -1;
	}
	/* the expected window: the share of cheap wakeups from busy (the
	 * reader's case) integrated over the gaps (trapezoids), in ns */
	pc->cheap_window[r] = 0;
	for (int k = 0; k + 1 < SWEEP_GAPS; k++)
		pc->cheap_window[r] += (pc->cheap_busy[r][k] + pc->cheap_busy[r][k + 1]) / 2 *
				       (sweep_gaps_us[k + 1] - sweep_gaps_us[k]) * 1000;
	pc->have_cheap = 1;
	return 0;
}

/* The sleeper spins busy_before_ns before each read(); with cheap_frac,
 * also the share of wakeups the waker paid less than cheap_ns for. */
static int measure_wake_gap(struct primcost *pc, int cpu, int busy, int spin, double gap_ns, int iters,
			    double busy_before_ns, double cheap_ns, double *cheap_frac, double *waker_ns,
			    double *lat_ns, const char **why)
{
	struct pingpong pp = {.sleeper_cpu = cpu, .hog_cpu = cpu, .spin = spin, .busy_before_ns = busy_before_ns};
	atomic_init(&pp.blocks, 0);
	atomic_init(&pp.block_at, 0.0);
	pp.iters = iters;
	pp.lat = xcalloc((size_t)pp.iters, sizeof(double));
	double *cost = xcalloc((size_t)pp.iters, sizeof(double));
	atomic_init(&pp.hog_stop, 0);
	int rc = -1;
	pthread_t ts, th;
	int have_hog = 0;
	if (pipe(pp.to_sleeper) != 0 || pipe(pp.to_waker) != 0) {
		*why = "pipe failed";
		goto out;
	}
	if (pin(pc->cpu_a) != 0) {
		*why = "cannot pin to CPU A";
		goto close;
	}
	if (busy && pthread_create(&th, NULL, hog, &pp) == 0)
		have_hog = 1;
	if (pthread_create(&ts, NULL, sleeper, &pp) != 0) {
		*why = "pthread_create failed";
		goto stop_hog;
	}
	int done = 0;
	for (; done < pp.iters; done++) {
		/* let the sleeper block and its CPU go idle (or the hog run) */
		double until = now_ns() + gap_ns;
		if (pp.spin) { /* the gap from the sleeper's read() */
			while (atomic_load(&pp.blocks) <= done)
				;
			until = atomic_load(&pp.block_at) + gap_ns;
		}
		while (now_ns() < until)
			;
		double msg[2] = {now_ns(), 0};
		if (write(pp.to_sleeper[1], msg, sizeof(msg)) != (ssize_t)sizeof(msg))
			break;
		cost[done] = now_ns() - msg[0];
		char c;
		if (!pp.spin && read(pp.to_waker[0], &c, 1) != 1)
			break;
	}
	pthread_join(ts, NULL);
	if (done == pp.iters) {
		*waker_ns = median(cost, pp.iters);
		*lat_ns = median(pp.lat, pp.iters);
		if (cheap_frac) {
			int cheap = 0;
			for (int i = 0; i < pp.iters; i++)
				cheap += cost[i] < cheap_ns;
			*cheap_frac = (double)cheap / pp.iters;
		}
		rc = 0;
	} else {
		*why = "the ping-pong broke off";
	}
stop_hog:
	if (have_hog) {
		atomic_store(&pp.hog_stop, 1);
		pthread_join(th, NULL);
	}
close:
	close(pp.to_sleeper[0]);
	close(pp.to_sleeper[1]);
	close(pp.to_waker[0]);
	close(pp.to_waker[1]);
out:
	free(pp.lat);
	free(cost);
	return rc;
}

/* "V1,V2,...": up to max numbers, each within [lo, hi], into out; how
 * many, or -1 (not a number, out of range, too many, empty). */
static int parse_numbers(const char *s, double lo, double hi, double *out, int max)
{
	int n = 0;
	for (;;) {
		char *end;
		errno = 0;
		double v = strtod(s, &end);
		if (end == s || errno || !(v >= lo && v <= hi) || n == max || (*end != ',' && *end != '\0'))
			return -1;
		out[n++] = v;
		if (*end == '\0')
			return n;
		s = end + 1;
	}
}

/* --wake-gaps: the waker's cost and the latency per gap, B idling from a
 * busy loop; rows of gap, then cost and latency per round and their
 * medians over the rounds. */
#define WAKE_GAPS_MAX 64
static int wake_gaps_main(struct primcost *pc, const char *list)
{
	double gaps[WAKE_GAPS_MAX];
	int ng = parse_numbers(list, 0, 1e6, gaps, WAKE_GAPS_MAX);
	if (ng < 1) {
		fprintf(stderr, PROG ": --wake-gaps '%s': expected up to %d gaps in us from 0 to 1000000, "
				    "comma-separated\n", list, WAKE_GAPS_MAX);
		return 2;
	}
	int iters = (int)fmax(15, 60 * pc->scale);
	printf("wakeup %d -> %d after B idled the gap from a %d us busy loop: the waker's write() and the\n"
	       "latency to the reader running, ns (median of %d wakeups per round; last two columns: the\n"
	       "medians over %d rounds)\n%10s",
	       pc->cpu_a, pc->cpu_b, BUSY_BEFORE_US, iters, pc->rounds, "gap_us");
	for (int r = 0; r < pc->rounds; r++)
		printf("  %9s%-2d %9s%-2d", "cost", r, "lat", r);
	printf("  %11s %11s\n", "cost", "latency");
	for (int k = 0; k < ng; k++) {
		double c[MAX_ROUNDS], l[MAX_ROUNDS];
		const char *why = NULL;
		printf("%10g", gaps[k]);
		for (int r = 0; r < pc->rounds; r++) {
			if (measure_wake_gap(pc, pc->cpu_b, 0, 1, gaps[k] * 1000, iters, BUSY_BEFORE_US * 1000.0, 0, NULL,
					     &c[r], &l[r], &why)) {
				fprintf(stderr, "\n" PROG ": %s (CPUs %d and %d)\n", why, pc->cpu_a, pc->cpu_b);
				return 1;
			}
			printf("  %11.0f %11.0f", c[r], l[r]);
		}
		printf("  %11.0f %11.0f\n", median(c, pc->rounds), median(l, pc->rounds));
		fflush(stdout);
	}
	return 0;
}

/* ------------------------------------------------- syscall and copy */

static int measure_syscall_copy(struct primcost *pc, int r, const char **why)
{
	if (pin(pc->cpu_a) != 0) {
		*why = "cannot pin to CPU A";
		return -1;
	}
	long n = (long)(200000 * pc->scale);
	double t0 = now_ns();
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	pc->round_ns[P_SYSCALL][r] = (now_ns() - t0) / (double)n;

	enum { BUF = 64 * 1024 };
	static unsigned char src[BUF], dst[BUF];
	memset(src, r + 1, BUF);
	memcpy(dst, src, BUF); /* warm both */
	long copies = (long)(20000 * pc->scale);
	unsigned sum = 0;
	t0 = now_ns();
	for (long i = 0; i < copies; i++) {
		src[i & (BUF - 1)] = (unsigned char)i;
		memcpy(dst, src, BUF);
		sum += dst[(i * 7) & (BUF - 1)];
	}
	double el = now_ns() - t0;
	if (sum == 0xdeadbeef)
		fputc(' ', stderr); /* keeps the copies observable */
	pc->round_ns[P_COPY][r] = el / ((double)copies * BUF);
	return 0;
}

/* ------------------------------------------------- ctxsw and wakeup */

/* One of two threads on CPU A: n sched_yield()s, or (pipe mode) n 16-byte
 * messages, read from in_fd and written to out_fd (`first` writes first).
 * Each counts its own switches over its loop. */
struct twin {
	int cpu, pipe_mode, first, in_fd, out_fd, failed;
	int out_closed; /* it closed out_fd on failing, so that its twin's read() ends */
	long n;
	atomic_int *go;       /* set once both twins exist (or one could not be made) */
	atomic_int *unpinned; /* a twin could not pin, or was not made: neither runs its loop */
	double cpu_ns; /* the thread's CPU time over its loop */
	long nvcsw, nivcsw;
};

static double thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *twin_run(void *arg)
{
	struct twin *tw = arg;
	struct rusage r0, r1;
	char msg[16] = {0};

	tw->failed = pin(tw->cpu) != 0;
	if (tw->failed)
		atomic_store(tw->unpinned, 1);
	while (!atomic_load(tw->go))
		sched_yield();
	if (atomic_load(tw->unpinned)) {
		tw->failed = 1;
		return NULL;
	}
	getrusage(RUSAGE_THREAD, &r0);
	double c0 = thread_cpu_ns();
	for (long i = 0; i < tw->n && !tw->failed; i++) {
		if (!tw->pipe_mode) {
			sched_yield();
			continue;
		}
		/* the first writes then reads, the other reads then writes; a
		 * failed call ends the loop before it could wait on its twin */
		bool ok = !tw->first || write(tw->out_fd, msg, sizeof(msg)) == (ssize_t)sizeof(msg);
		ok = ok && read(tw->in_fd, msg, sizeof(msg)) == (ssize_t)sizeof(msg);
		ok = ok && (tw->first || write(tw->out_fd, msg, sizeof(msg)) == (ssize_t)sizeof(msg));
		tw->failed = !ok;
	}
	if (tw->failed && tw->pipe_mode) {
		close(tw->out_fd); /* its twin's read() sees the end, not a wait */
		tw->out_closed = 1;
	}
	tw->cpu_ns = thread_cpu_ns() - c0;
	getrusage(RUSAGE_THREAD, &r1);
	tw->nvcsw = r1.ru_nvcsw - r0.ru_nvcsw;
	tw->nivcsw = r1.ru_nivcsw - r0.ru_nivcsw;
	return NULL;
}

/* Two twins on A: their CPU time (ns: the time they held A, whatever else
 * ran there meanwhile), switches and voluntary switches. */
static int run_twins(struct primcost *pc, int pipe_mode, long n, double *span, long *sw, long *vol,
		     const char **why)
{
	int ab[2], ba[2];
	atomic_int go;
	struct twin tw[2] = {{.cpu = pc->cpu_a, .pipe_mode = pipe_mode, .first = 1, .n = n, .go = &go},
			     {.cpu = pc->cpu_a, .pipe_mode = pipe_mode, .first = 0, .n = n, .go = &go}};
	pthread_t th[2];
	int started = 0, rc = -1;
	atomic_int unpinned;

	atomic_init(&unpinned, 0);
	atomic_init(&go, 0);
	tw[0].unpinned = tw[1].unpinned = &unpinned;

	if (pipe(ab) != 0 || pipe(ba) != 0) {
		*why = "pipe failed";
		return -1;
	}
	tw[0].out_fd = ab[1];
	tw[1].in_fd = ab[0];
	tw[1].out_fd = ba[1];
	tw[0].in_fd = ba[0];
	for (; started < 2; started++)
		if (pthread_create(&th[started], NULL, twin_run, &tw[started]) != 0)
			break;
	if (started < 2)
		atomic_store(&unpinned, 1);
	atomic_store(&go, 1);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (started < 2)
		*why = "pthread_create failed";
	else if (tw[0].failed || tw[1].failed)
		*why = "cannot pin to CPU A, or the pipe ping-pong broke off";
	else if (tw[0].nvcsw + tw[0].nivcsw + tw[1].nvcsw + tw[1].nivcsw == 0)
		*why = "two threads on CPU A never switched";
	else {
		*span = tw[0].cpu_ns + tw[1].cpu_ns;
		*sw = tw[0].nvcsw + tw[0].nivcsw + tw[1].nvcsw + tw[1].nivcsw;
		*vol = tw[0].nvcsw + tw[1].nvcsw;
		rc = 0;
	}
	close(ab[0]);
	if (!tw[0].out_closed)
		close(ab[1]);
	close(ba[0]);
	if (!tw[1].out_closed)
		close(ba[1]);
	return rc;
}

/* ctxsw, pipe_rw and wakeup (see the header), each from CPU time: a task
 * that shares A meanwhile does not count. */
static int measure_switch_wake(struct primcost *pc, int r, const char **why)
{
	double span;
	long sw, vol, n = (long)(100000 * pc->scale);
	int fd[2];
	char msg[16] = {0};

	if (pin(pc->cpu_a) != 0) {
		*why = "cannot pin to CPU A";
		return -1;
	}
	/* the syscall each yield is, in CPU time as the yields are */
	double c0 = thread_cpu_ns();
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	double sys_cpu = (thread_cpu_ns() - c0) / (double)n;
	if (run_twins(pc, 0, n, &span, &sw, &vol, why))
		return -1;
	double ctxsw = (span - 2.0 * (double)n * sys_cpu) / (double)sw;
	pc->round_ns[P_CTXSW][r] = ctxsw;

	if (pipe(fd) != 0) {
		*why = "pipe failed";
		return -1;
	}
	c0 = thread_cpu_ns();
	long i = 0;
	for (; i < n; i++)
		if (write(fd[1], msg, sizeof(msg)) != (ssize_t)sizeof(msg) ||
		    read(fd[0], msg, sizeof(msg)) != (ssize_t)sizeof(msg))
			break;
	double rw = (thread_cpu_ns() - c0) / (double)n;
	close(fd[0]);
	close(fd[1]);
	if (i < n) {
		*why = "a pipe write or read failed";
		return -1;
	}
	pc->round_ns[P_PIPE_RW][r] = rw;

	long m = n / 2;
	if (run_twins(pc, 1, m, &span, &sw, &vol, why))
		return -1;
	if (vol == 0) {
		*why = "no read() slept in the pipe ping-pong on CPU A";
		return -1;
	}
	pc->round_ns[P_WAKEUP][r] = (span - 2.0 * (double)m * rw - (double)sw * ctxsw) / (double)vol;
	return 0;
}

/* -------------------------------------------------------- line_xfer */

/* The counter alone on its line: A writes odd values, B even ones. */
struct line_pp {
	_Alignas(64) atomic_long turn;
	char pad[64 - sizeof(atomic_long)];
	long n;
	int cpu;
	int pinned; /* B's pin: 0 done, -1 failed */
};

static void *line_pong(void *arg)
{
	struct line_pp *lp = arg;
	lp->pinned = pin(lp->cpu) == 0 ? 0 : -1;
	atomic_store(&lp->turn, lp->pinned ? -1 : 0); /* B is ready (or failed) */
	if (lp->pinned)
		return NULL;
	for (long i = 0; i < lp->n; i++) {
		while (atomic_load_explicit(&lp->turn, memory_order_acquire) != 2 * i + 1)
			;
		atomic_store_explicit(&lp->turn, 2 * i + 2, memory_order_release);
	}
	return NULL;
}

static int measure_line_xfer(struct primcost *pc, int r, const char **why)
{
	static struct line_pp lp;
	pthread_t th;

	if (pin(pc->cpu_a) != 0) {
		*why = "cannot pin to CPU A";
		return -1;
	}
	lp.n = (long)(200000 * pc->scale);
	lp.cpu = pc->cpu_b;
	atomic_store(&lp.turn, -2);
	if (pthread_create(&th, NULL, line_pong, &lp) != 0) {
		*why = "cannot start a thread";
		return -1;
	}
	while (atomic_load(&lp.turn) == -2)
		;
	if (lp.pinned) {
		pthread_join(th, NULL);
		*why = "cannot pin to CPU B";
		return -1;
	}
	double t0 = now_ns();
	for (long i = 0; i < lp.n; i++) {
		atomic_store_explicit(&lp.turn, 2 * i + 1, memory_order_release);
		while (atomic_load_explicit(&lp.turn, memory_order_acquire) != 2 * i + 2)
			;
	}
	double el = now_ns() - t0;
	pthread_join(th, NULL);
	pc->round_ns[P_LINE_XFER][r] = el / (2.0 * (double)lp.n);
	return 0;
}

/* ------------------------------------------------------------ output */

static double cpuinfo_mhz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	double mhz = NAN;
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "cpu MHz", 7) == 0) {
			const char *c = strchr(line, ':');
			if (c)
				mhz = strtod(c + 1, NULL);
			break;
		}
	if (f)
		fclose(f);
	return mhz > 0 ? mhz : NAN;
}

static void put(FILE *f, const char *s, int last)
{
	csv_fwrite(f, s, strlen(s));
	fputc(last ? '\n' : ',', f);
}

static int write_out(const struct primcost *pc, const double *med, const double *lo,
		     const double *hi, const char *path, const char *note)
{
	struct outfile o;
	struct tcpsim_err err = {0};
	if (outfile_open(&o, path, NULL, &err)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return 1;
	}
	FILE *f = o.f;
	static const char *const head[] = {"primitive", "ns",	    "cycles", "unit",    "rounds",
					   "min_ns",	"max_ns", "cpus",   "cpu_mhz", "note"};
	for (size_t i = 0; i < ARRAY_SIZE(head); i++)
		put(f, head[i], i + 1 == ARRAY_SIZE(head));
	for (int p = 0; p < P_N; p++) {
		char c[8][64];
		snprintf(c[0], 64, "%.6g", med[p]);
		if (isnan(pc->mhz))
			c[1][0] = '\0';
		else
			snprintf(c[1], 64, "%.6g", med[p] * pc->mhz / 1000);
		snprintf(c[2], 64, "%d", pc->rounds);
		snprintf(c[3], 64, "%.6g", lo[p]);
		snprintf(c[4], 64, "%.6g", hi[p]);
		int cross = (p >= P_WAKE_IDLE_WAKER && p <= P_WAKE_BUSY_LAT) || p == P_LINE_XFER || p == P_IDLE_POLL ||
			    p == P_IDLE_EXIT;
		if (cross)
			snprintf(c[5], 64, "%d->%d", pc->cpu_a, pc->cpu_b);
		else
			snprintf(c[5], 64, "%d", pc->cpu_a);
		if (isnan(pc->mhz))
			c[6][0] = '\0';
		else
			snprintf(c[6], 64, "%.6g", pc->mhz);
		put(f, prim_desc[p].name, 0);
		put(f, c[0], 0);
		put(f, c[1], 0);
		put(f, prim_desc[p].unit, 0);
		put(f, c[2], 0);
		put(f, c[3], 0);
		put(f, c[4], 0);
		put(f, c[5], 0);
		put(f, c[6], 0);
		put(f, note, 1);
	}
	if (outfile_commit(&o, &err)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return 1;
	}
	return 0;
}

/* The median over the rounds of the expected no-IPI window (measure_cheap). */
static double cheap_window_median(const struct primcost *pc)
{
	double win[MAX_ROUNDS];
	for (int r = 0; r < pc->rounds; r++)
		win[r] = pc->cheap_window[r];
	return median(win, pc->rounds);
}

/*
 * The cheap share as the model's idle_poll_dist = exp has it (sched.c,
 * sched_idle_window): P(no IPI | gap g) = share * exp(-g / mean).  Fitted
 * by least squares to the share per gap after a busy loop (y[k] at
 * sweep_gaps_us[k]): for a given mean the best share is linear,
 * sum(y e) / sum(e e) with e = exp(-g / mean), so only the mean is searched
 * (GSL's Brent minimizer over log(mean), 0.1 .. 1000 us).  The gap of 0 is
 * left out (FIT_FROM): a wakeup sent as the sleeper enters read() finds it
 * still running, before it blocked -- cheap, but not a wakeup of an idle
 * CPU (the sweep of 22:35 has 73% cheap at 0 us, 1% at 1 us, 31% at 2 us).
 */
#define FIT_FROM 1 /* the first gap fitted: 1 us */
#define FIT_MAX 64 /* points of --fit-cheap-at */
_Static_assert(FIT_MAX >= SWEEP_GAPS, "a sweep's gaps fit in FIT_MAX points");
struct expfit {
	const double *g, *y, *w; /* n points: gap (us), share, weight */
	int n;
	double share;
};

/* Given the law's P(window > g[k]) in e[k], the best share (weighted least
 * squares, linear in it) into x->share; returns the weighted sum of squares. */
static double share_sse(struct expfit *x, const double *e)
{
	double ye = 0, ee = 0, sse = 0;

	for (int k = 0; k < x->n; k++) {
		ye += x->w[k] * x->y[k] * e[k];
		ee += x->w[k] * e[k] * e[k];
	}
	x->share = ee > 0 ? fmin(1, fmax(0, ye / ee)) : 0;
	for (int k = 0; k < x->n; k++) {
		double d = x->share * e[k] - x->y[k];
		sse += x->w[k] * d * d;
	}
	return sse;
}

static double expfit_sse(double log_mean_us, void *arg)
{
	struct expfit *x = arg;
	double mean = exp(log_mean_us), e[FIT_MAX];

	for (int k = 0; k < x->n; k++)
		e[k] = exp(-x->g[k] / mean);
	return share_sse(x, e);
}

/* Fit the n points (gap g[k] us, share y[k], weight w[k]) -> *share,
 * *mean_ns; -1 when it fails. */
static int cheap_exp_fit_at(const double *g, const double *y, const double *w, int n, double *share,
			    double *mean_ns)
{
	struct expfit x = {.g = g, .y = y, .w = w, .n = n};
	gsl_function fn = {.function = expfit_sse, .params = &x};
	double lo = log(0.1), hi = log(1000), m = 0, best = INFINITY;

	/* a start whose value is below both ends, as Brent needs: the best of a grid */
	for (int i = 1; i < 40; i++) {
		double t = lo + (hi - lo) * i / 40, v = expfit_sse(t, &x);
		if (v < best) {
			best = v;
			m = t;
		}
	}
	gsl_set_error_handler_off();
	gsl_min_fminimizer *mz = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
	if (!mz)
		return -1;
	if (gsl_min_fminimizer_set(mz, &fn, m, lo, hi) == GSL_SUCCESS) {
		for (int it = 0; it < 100; it++) {
			if (gsl_min_fminimizer_iterate(mz) != GSL_SUCCESS)
				break;
			m = gsl_min_fminimizer_x_minimum(mz);
			if (gsl_min_test_interval(gsl_min_fminimizer_x_lower(mz), gsl_min_fminimizer_x_upper(mz), 1e-4,
						  0) == GSL_SUCCESS)
				break;
		}
	}
	gsl_min_fminimizer_free(mz); /* m: Brent's, or the grid's best where it could not start */
	expfit_sse(m, &x);
	*share = x.share;
	*mean_ns = exp(m) * 1000;
	return 0;
}

/* Fit y (SWEEP_GAPS shares at the sweep's gaps, the first FIT_FROM left
 * out, equal weights) -> *share, *mean_ns; -1 when it fails. */
static int cheap_exp_fit(const double *y, double *share, double *mean_ns)
{
	static const double ones[SWEEP_GAPS] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
	return cheap_exp_fit_at(sweep_gaps_us + FIT_FROM, y + FIT_FROM, ones, SWEEP_GAPS - FIT_FROM, share,
				mean_ns);
}

static int usage(const char *msg);

/* --fit-cheap: the fit of SWEEP_GAPS comma-separated percentages. */
static int fit_cheap_main(const char *arg)
{
	double y[SWEEP_GAPS], share, mean_ns;

	if (parse_numbers(arg, 0, 100, y, SWEEP_GAPS) != SWEEP_GAPS)
		return usage("--fit-cheap takes 15 comma-separated percentages (0 to 100)");
	for (int k = 0; k < SWEEP_GAPS; k++)
		y[k] /= 100;
	if (cheap_exp_fit(y, &share, &mean_ns))
		return 1;
	printf("share %.3f mean %.0f ns\n", share, mean_ns);
	return 0;
}

/*
 * The normal law (host.idle_poll_dist = normal): P(no IPI | gap g) = share *
 * P(W > g), W normal with mean m and s.d. sd (cut at 0).  For given (m,
 * sd) the best share is linear as above; (m, log sd) are searched with
 * GSL's Nelder-Mead simplex (gsl_multimin_fminimizer_nmsimplex2) from the
 * gap where the share has fallen to half its largest value.
 */
static double normfit_sse(const gsl_vector *v, void *arg)
{
	struct expfit *x = arg;
	double m = gsl_vector_get(v, 0), sd = exp(gsl_vector_get(v, 1)), e[FIT_MAX];

	for (int k = 0; k < x->n; k++)
		e[k] = gsl_cdf_ugaussian_Q((x->g[k] - m) / sd);
	return share_sse(x, e);
}

static int cheap_normal_fit_at(const double *g, const double *y, const double *w, int n, double *share,
			       double *mean_ns, double *sd_ns)
{
	struct expfit x = {.g = g, .y = y, .w = w, .n = n};
	gsl_multimin_function fn = {.f = normfit_sse, .n = 2, .params = &x};
	gsl_vector *v = gsl_vector_alloc(2), *step = gsl_vector_alloc(2);
	gsl_multimin_fminimizer *mz = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, 2);
	double top = 0, half = g[n - 1];
	int rc = -1;

	if (!v || !step || !mz)
		goto out;
	for (int k = 0; k < n; k++)
		top = fmax(top, y[k]);
	for (int k = n - 1; k >= 0; k--)
		if (y[k] >= top / 2) {
			half = g[k];
			break;
		}
	gsl_vector_set(v, 0, half);
	gsl_vector_set(v, 1, log(fmax(half / 4, 0.1)));
	gsl_vector_set(step, 0, fmax(half / 4, 0.5));
	gsl_vector_set(step, 1, 0.5);
	gsl_set_error_handler_off();
	if (gsl_multimin_fminimizer_set(mz, &fn, v, step) != GSL_SUCCESS)
		goto out;
	for (int it = 0; it < 2000; it++) {
		if (gsl_multimin_fminimizer_iterate(mz) != GSL_SUCCESS)
			break;
		if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(mz), 1e-6) == GSL_SUCCESS)
			break;
	}
	normfit_sse(mz->x, &x);
	*share = x.share;
	*mean_ns = gsl_vector_get(mz->x, 0) * 1000;
	*sd_ns = exp(gsl_vector_get(mz->x, 1)) * 1000;
	rc = 0;
out:
	gsl_multimin_fminimizer_free(mz);
	gsl_vector_free(step);
	gsl_vector_free(v);
	return rc;
}

/* --fit-cheap-at G:P[:N],...: the fit of points at any gaps (us), shares
 * in per cent, each weighted by N (default 1). */
static int fit_cheap_at_main(const char *arg, int normal)
{
	double g[FIT_MAX], y[FIT_MAX], w[FIT_MAX], share, mean_ns;
	const char *p = arg;
	int n = 0;
	static const char bad[] = "--fit-cheap-at and --fit-cheap-normal take GAP_US:PERCENT[:WEIGHT],... (2 to 64 points)";

	for (;;) {
		char *end;
		if (n == FIT_MAX)
			return usage(bad);
		errno = 0;
		g[n] = strtod(p, &end);
		if (end == p || errno || *end != ':' || !(g[n] >= 0 && g[n] < 1e6))
			return usage(bad);
		p = end + 1;
		y[n] = strtod(p, &end);
		if (end == p || errno || !(y[n] >= 0 && y[n] <= 100))
			return usage(bad);
		y[n] /= 100;
		w[n] = 1;
		if (*end == ':') {
			p = end + 1;
			w[n] = strtod(p, &end);
			if (end == p || errno || !(w[n] > 0 && w[n] < 1e12))
				return usage(bad);
		}
		n++;
		if (*end == '\0')
			break;
		if (*end != ',')
			return usage(bad);
		p = end + 1;
	}
	if (n < 2)
		return usage(bad);
	if (normal) {
		double sd_ns;
		if (cheap_normal_fit_at(g, y, w, n, &share, &mean_ns, &sd_ns))
			return 1;
		printf("share %.3f mean %.0f ns sd %.0f ns\n", share, mean_ns, sd_ns);
		return 0;
	}
	if (cheap_exp_fit_at(g, y, w, n, &share, &mean_ns))
		return 1;
	printf("share %.3f mean %.0f ns\n", share, mean_ns);
	return 0;
}

/* The fit to the share after a busy loop, pooled over the rounds. */
static int cheap_exp_pooled(const struct primcost *pc, double *share, double *mean_ns)
{
	double y[SWEEP_GAPS] = {0};

	for (int k = 0; k < SWEEP_GAPS; k++) {
		for (int r = 0; r < pc->rounds; r++)
			y[k] += pc->cheap_busy[r][k];
		y[k] /= pc->rounds;
	}
	return cheap_exp_fit(y, share, mean_ns);
}

/*
 * The figures as a tcpsim profile fragment (-c OUT.cfg), for a machine
 * profile to include: the primitives a fit must not move.  ipi_send is
 * what a cross-CPU wakeup of a halted CPU costs the waker beyond a
 * same-CPU one (the IPI's VM exit); timer_irq and syscall as measured; the
 * idle CPU's polling (with --sweep, the law fitted to the cheap shares) and
 * exit latency in ns.
 */
static int write_cfg(const struct primcost *pc, const double *med, const char *path, const char *note)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct tcpsim_err err = {0};
	double cyc = pc->mhz / 1000;
	int rc;

	if (!f)
		return 1;
	fprintf(f, "; primitive costs of this machine, measured by tools/bin/primcost on CPUs %d and %d\n"
		   "; (%s); include it from the machine profile.  cpu MHz %.1f.\n",
		pc->cpu_a, pc->cpu_b, note, pc->mhz);
	double share, mean_ns;
	if (pc->have_cheap && cheap_exp_pooled(pc, &share, &mean_ns) == 0)
		fprintf(f, "[host]\n; a wakeup g after the idle CPU went idle still finds it polling (no IPI) with the chance\n"
			   "; share * exp(-g / mean): least squares to the share of cheap wakeups after a busy loop\n"
			   "; per gap from 1 us, pooled over the rounds (a pipe ping-pong: tools/wakeups-live --gaps\n"
			   "; traces the law on a live reader, primcost --fit-cheap-normal fits that)\n"
			   "idle_poll_dist = exp\n"
			   "idle_poll_share = %.3f\n"
			   "idle_poll = %.0fns\n",
			share, mean_ns);
	else if (pc->haltpoll_off)
		fprintf(f, "[host]\n; %s: an idle CPU halts at once and every\n"
			   "; wakeup of it is an IPI (the sweep's estimate of a polling window, %.0f ns, is noise;\n"
			   "; --sweep, or tools/wakeups-live --gaps on a live reader, measures the idle loop's own\n"
			   "; way into HLT)\n"
			   "idle_poll = 0ns\n",
			pc->no_driver ? "no cpuidle driver (none): guest_halt_poll_ns is never used, the idle loop halts"
				      : "cpuidle-haltpoll's guest_halt_poll_ns is 0",
			med[P_IDLE_POLL]);
	else
		fprintf(f, "[host]\n; the reader's CPU polls this long after it went idle (upper estimate), then halts\n"
			   "idle_poll = %.0fns\n",
			med[P_IDLE_POLL]);
	if (pc->haltpoll_off)
		/* no window: the sweep's edge, and so its exit, is noise (0 in
		 * three of five rounds on amd-epyc-2cpu-2596); a halted CPU's
		 * exit is what its wakeup takes over a busy one's */
		fprintf(f, "; wake_idle_latency %.0f ns - wake_busy_latency %.0f ns: a halted CPU's way back\n"
			   "idle_exit = %.0fns\n",
			round(med[P_WAKE_IDLE_LAT]), round(med[P_WAKE_BUSY_LAT]),
			fmax(0, round(med[P_WAKE_IDLE_LAT]) - round(med[P_WAKE_BUSY_LAT])));
	else
		fprintf(f, "idle_exit = %.0fns\n", med[P_IDLE_EXIT]);
	fprintf(f, "\n[cost]\n; wake_idle_waker %.0f ns - wake_same_waker %.0f ns\n", med[P_WAKE_IDLE_WAKER],
		med[P_WAKE_SAME_WAKER]);
	fprintf(f, "ipi_send = %.0f\ntimer_irq = %.0f\nsyscall = %.0f\n",
		fmax(0, med[P_WAKE_IDLE_WAKER] - med[P_WAKE_SAME_WAKER]) * cyc, med[P_TIMER] * cyc, med[P_SYSCALL] * cyc);
	fprintf(f, "; measured, not fitted: ctxsw wakeup\n"
		   "; two threads on CPU %d taking turns by sched_yield(), less a syscall a yield\n"
		   "ctxsw = %.0f\n"
		   "; a pipe ping-pong on CPU %d, less a pipe_rw (%.0f ns) a message and a ctxsw a switch,\n"
		   "; per read() that slept\n"
		   "wakeup = %.0f\n",
		pc->cpu_a, fmax(0, med[P_CTXSW]) * cyc, pc->cpu_a, med[P_PIPE_RW], fmax(0, med[P_WAKEUP]) * cyc);
	if (fclose(f) != 0) {
		free(buf);
		return 1;
	}
	rc = outfile_write_whole(path, NULL, buf, len, &err);
	free(buf);
	if (rc) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return 1;
	}
	return 0;
}

/* ------------------------------------------- --split-same (no measuring) */

/* The cycles of named primitives in one primcost CSV. */
struct pc_rows {
	const char *path;
	const char *const *want;
	int n;
	double cyc[4];
	int have[4];
};

static int pc_row(void *ctx, struct csvread_rec *rec, struct tcpsim_err *err)
{
	struct pc_rows *pr = ctx;
	if (rec->n < 3 || strcmp(rec->field[0], "primitive") == 0)
		return TCPSIM_OK;
	for (int i = 0; i < pr->n; i++) {
		if (strcmp(rec->field[0], pr->want[i]) != 0)
			continue;
		char *end;
		double v = strtod(rec->field[2], &end);
		if (end == rec->field[2] || *end != '\0' || !isfinite(v))
			return err_set(err, TCPSIM_EUSAGE, "%s:%d: %s: cycles '%s' is not a number", pr->path,
				       rec->line, pr->want[i], rec->field[2]);
		pr->cyc[i] = v;
		pr->have[i] = 1;
	}
	return TCPSIM_OK;
}

static int pc_read(const char *path, const char *const *want, int n, double *cyc)
{
	struct pc_rows pr = {.path = path, .want = want, .n = n};
	struct tcpsim_err err = {0};
	if (csvread_file(path, "primcost CSV", pc_row, &pr, &err)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (!pr.have[i]) {
			fprintf(stderr, PROG ": %s: no row '%s' with its cycles\n", path, want[i]);
			return -1;
		}
		cyc[i] = pr.cyc[i];
	}
	return 0;
}

/*
 * --split-same A.csv[,B.csv] --by M.csv: a host's context switch and
 * same-CPU wakeup where only the older primitives were recorded.  Their sum
 * is the host's same-CPU wakeup latency less a syscall (the mean over the
 * files: a session's start and end), split as M.csv (a primcost run that
 * measured ctxsw and wakeup) splits its own; prints profile lines.
 */
static int split_same_main(const char *list, const char *by)
{
	static const char *const same[] = {"wake_same_latency", "syscall"};
	static const char *const parts[] = {"ctxsw", "wakeup"};
	double sum_lat = 0, sum_sys = 0, m[2];
	int files = 0;
	char *copy = xstrdup(list), *save = NULL;
	int rc = 1;

	if (!by) {
		free(copy);
		return usage("--split-same needs --by M.csv (a primcost run with ctxsw and wakeup)");
	}
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		double v[2];
		if (pc_read(tok, same, 2, v))
			goto out;
		sum_lat += v[0];
		sum_sys += v[1];
		files++;
	}
	if (files == 0) {
		usage("--split-same takes A.csv[,B.csv,...]");
		goto out;
	}
	if (pc_read(by, parts, 2, m))
		goto out;
	if (!(m[0] > 0 && m[1] > 0)) {
		fprintf(stderr, PROG ": %s: ctxsw %.0f and wakeup %.0f cycles: both must be above 0 to split by\n", by,
			m[0], m[1]);
		goto out;
	}
	double lat = sum_lat / files, sys = sum_sys / files, d = lat - sys, share = m[0] / (m[0] + m[1]);
	if (!(d > 0)) {
		fprintf(stderr, PROG ": wake_same_latency %.0f - syscall %.0f cycles is not above 0\n", lat, sys);
		goto out;
	}
	printf("; wake_same_latency %.0f - syscall %.0f = %.0f cycles (the mean of %d file%s),\n"
	       "; split as %s splits its ctxsw %.0f and wakeup %.0f (%.0f%% ctxsw)\n"
	       "wakeup = %.0f\nctxsw = %.0f\n",
	       lat, sys, d, files, files == 1 ? "" : "s", by, m[0], m[1], 100 * share, d * (1 - share), d * share);
	rc = 0;
out:
	free(copy);
	return rc;
}

static int usage(const char *msg)
{
	return tool_usage(PROG, usage_text, msg);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"cpus", required_argument, NULL, 'c'}, {"quick", no_argument, NULL, 'q'},
		{"sweep", no_argument, NULL, 's'}, {"fit-cheap", required_argument, NULL, 'F'},
		{"fit-cheap-at", required_argument, NULL, 'A'}, {"fit-cheap-normal", required_argument, NULL, 'N'},
		{"output", required_argument, NULL, 'o'}, {"cfg", required_argument, NULL, 'C'},
		{"wake-gaps", required_argument, NULL, 'W'}, {"help", no_argument, NULL, 'h'},
		{"split-same", required_argument, NULL, 'S'}, {"by", required_argument, NULL, 'B'},
		{NULL, 0, NULL, 0},
	};
	struct primcost pc = {.cpu_a = 0, .cpu_b = 1, .rounds = MAX_ROUNDS, .scale = 1};
	const char *out = NULL, *cfg = NULL, *wake_gaps = NULL, *split = NULL, *by = NULL;
	int c, sweep = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'c': {
			long a, b;
			char *comma = strchr(optarg, ',');
			if (!comma)
				return usage("--cpus takes A,B (two CPU numbers)");
			*comma = '\0';
			int ok = parse_long_in(optarg, 0, 4095, &a) && parse_long_in(comma + 1, 0, 4095, &b);
			*comma = ',';
			if (!ok || a == b)
				return usage("--cpus takes A,B: two different CPU numbers");
			pc.cpu_a = (int)a;
			pc.cpu_b = (int)b;
			break;
		}
		case 'q': pc.quick = 1; pc.rounds = 3; pc.scale = 1.0 / 20; break;
		case 's': sweep = 1; break;
		case 'F': return fit_cheap_main(optarg);
		case 'A': return fit_cheap_at_main(optarg, 0);
		case 'N': return fit_cheap_at_main(optarg, 1);
		case 'o': out = optarg; break;
		case 'C': cfg = optarg; break;
		case 'W': wake_gaps = optarg; break;
		case 'S': split = optarg; break;
		case 'B': by = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return tool_bad_option(PROG, usage_text, argv);
		}
	}
	if (optind != argc)
		return usage("unexpected argument");
	if (split)
		return split_same_main(split, by);
	if (by)
		return usage("--by goes with --split-same");
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (pc.cpu_a >= ncpus || pc.cpu_b >= ncpus) {
		fprintf(stderr, PROG ": --cpus %d,%d: this machine has CPUs 0..%ld online\n", pc.cpu_a,
			pc.cpu_b, ncpus - 1);
		return 2;
	}
	pc.mhz = cpuinfo_mhz();
	if (wake_gaps)
		return wake_gaps_main(&pc, wake_gaps);
	const char *why = NULL;
	for (int r = 0; r < pc.rounds; r++) {
		if (measure_syscall_copy(&pc, r, &why) || measure_switch_wake(&pc, r, &why) ||
		    measure_line_xfer(&pc, r, &why) || measure_timer(&pc, r, &why) ||
		    measure_wake(&pc, r, pc.cpu_b, 0, P_WAKE_IDLE_WAKER, P_WAKE_IDLE_LAT, &why) ||
		    measure_wake(&pc, r, pc.cpu_b, 1, P_WAKE_BUSY_WAKER, P_WAKE_BUSY_LAT, &why) ||
		    measure_wake(&pc, r, pc.cpu_a, 0, P_WAKE_SAME_WAKER, P_WAKE_SAME_LAT, &why) ||
		    measure_poll(&pc, r, &why) || (sweep && measure_cheap(&pc, r, &why))) {
			fprintf(stderr, PROG ": %s (CPUs %d and %d)\n", why, pc.cpu_a, pc.cpu_b);
			return 1;
		}
	}
	double med[P_N], lo[P_N], hi[P_N];
	for (int p = 0; p < P_N; p++) {
		double v[MAX_ROUNDS];
		memcpy(v, pc.round_ns[p], sizeof(v));
		med[p] = median(v, pc.rounds);
		lo[p] = v[0];
		hi[p] = v[pc.rounds - 1];
	}
	char cpuidle[64] = "?";
	FILE *f = fopen("/sys/devices/system/cpu/cpuidle/current_driver", "r");
	if (f) {
		if (fgets(cpuidle, sizeof(cpuidle), f))
			cpuidle[strcspn(cpuidle, "\n")] = '\0';
		fclose(f);
	}
	/* a KVM guest's cpuidle-haltpoll polls only up to guest_halt_poll_ns
	 * (0: it never polls, and only the idle loop's way into HLT takes a
	 * wakeup without an IPI); with no cpuidle driver at all the parameter
	 * is never read: do_idle goes to default_idle_call, HLT */
	pc.no_driver = strcmp(cpuidle, "none") == 0;
	pc.haltpoll_off = pc.no_driver;
	char haltpoll[64] = "";
	f = fopen("/sys/module/haltpoll/parameters/guest_halt_poll_ns", "r");
	if (f) {
		char v[32];
		if (fgets(v, sizeof(v), f)) {
			v[strcspn(v, "\n")] = '\0';
			snprintf(haltpoll, sizeof(haltpoll), " (guest_halt_poll_ns %s)", v);
			pc.haltpoll_off |= strcmp(v, "0") == 0;
		}
		fclose(f);
	}
	char note[256];
	snprintf(note, sizeof(note), "%s; cpuidle driver %s%s; cycles at cpu MHz of /proc/cpuinfo",
		 pc.quick ? "--quick (short rounds: shows the tool works, not the machine)"
			  : "median over rounds",
		 cpuidle, haltpoll);
	printf("%-18s %12s %12s  %-11s %s\n", "primitive", "ns", "cycles", "unit", "min..max ns");
	for (int p = 0; p < P_N; p++)
		printf("%-18s %12.4g %12.4g  %-11s %.4g..%.4g\n", prim_desc[p].name, med[p],
		       med[p] * pc.mhz / 1000, prim_desc[p].unit, lo[p], hi[p]);
	printf("(CPUs %d and %d, %d rounds, cpu MHz %.1f, cpuidle %s%s)\n", pc.cpu_a, pc.cpu_b, pc.rounds,
	       pc.mhz, cpuidle, haltpoll);
	if (sweep) {
		printf("\npolling sweep: the wakeup %d -> %d after B idled for the gap (ns)\n%8s", pc.cpu_a, pc.cpu_b,
		       "gap_us");
		for (int r = 0; r < pc.rounds; r++)
			printf("  r%d_waker r%d_latency", r + 1, r + 1);
		printf("\n");
		for (int k = 0; k < SWEEP_GAPS; k++) {
			printf("%8.0f", sweep_gaps_us[k]);
			for (int r = 0; r < pc.rounds; r++)
				printf(" %9.0f %11.0f", pc.sweep_cost[r][k], pc.sweep_lat[r][k]);
			printf("\n");
		}
		printf("\ncheap wakeups: %% of wakeups %d -> %d the waker paid less than the midpoint of a same-CPU and a\n"
		       "halted-CPU wakeup, B idling from rest and from a %d us busy loop (as a reader under load)\n%8s",
		       pc.cpu_a, pc.cpu_b, BUSY_BEFORE_US, "gap_us");
		for (int r = 0; r < pc.rounds; r++)
			printf(" r%d_rest r%d_busy", r + 1, r + 1);
		printf(" all_rest all_busy\n");
		for (int k = 0; k < SWEEP_GAPS; k++) {
			double sr = 0, sb = 0;
			printf("%8.0f", sweep_gaps_us[k]);
			for (int r = 0; r < pc.rounds; r++) {
				printf(" %7.0f %7.0f", 100 * pc.cheap_rest[r][k], 100 * pc.cheap_busy[r][k]);
				sr += pc.cheap_rest[r][k];
				sb += pc.cheap_busy[r][k];
			}
			printf(" %8.0f %8.0f\n", 100 * sr / pc.rounds, 100 * sb / pc.rounds);
		}
		printf("expected no-IPI window after busy (the share integrated over the gaps), per round:");
		for (int r = 0; r < pc.rounds; r++)
			printf(" %.0f", pc.cheap_window[r]);
		printf(" ns; median %.0f ns\n", cheap_window_median(&pc));
		printf("fitted share * exp(-gap / mean) (least squares), per round:");
		for (int r = 0; r < pc.rounds; r++) {
			double sh, mn;
			if (cheap_exp_fit(pc.cheap_busy[r], &sh, &mn) == 0)
				printf(" %.2f/%.0f", sh, mn);
		}
		{
			double sh, mn;
			if (cheap_exp_pooled(&pc, &sh, &mn) == 0)
				printf(" ns; pooled share %.3f, mean %.0f ns\n", sh, mn);
		}
	}
	if (out && write_out(&pc, med, lo, hi, out, note))
		return 1;
	if (cfg && write_cfg(&pc, med, cfg, note))
		return 1;
	return 0;
}
