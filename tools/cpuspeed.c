/*
 * cpuspeed: how fast each CPU runs a fixed piece of work right now -- the
 * canary tools/measure-live reads before and after every run, so that a run
 * made while the host slowed the machine down is known and redone.
 *
 *   cpuspeed [--cpus A,B,...] [--ms N] [--rounds R] [--work W,...] [--together]
 *   cpuspeed --wander S [--bin US] [--cpus A,B,...] [--work W] [--reps N] [--cfg OUT.cfg]
 *
 * On a virtual machine the hypervisor can take a vCPU's time, or share its
 * core, without the guest's steal counter showing it: the 2026-12-01 matrix
 * (validation/live/amd-epyc-2cpu.reps.csv) has some 70 s, 10:11:03 to
 * 10:12:11, in which every run's throughput fell to 0.35-0.6 of its point's
 * median with the sender's CPU 99% busy, steal 0.00-0.02% and no other
 * process busy.  What such a slowdown does to any work shows in a loop whose
 * length is fixed: a chain of dependent 64-bit multiply-adds (an LCG step,
 * Knuth's MMIX constants), which neither the compiler nor the CPU can
 * shorten or overlap, timed by CLOCK_MONOTONIC.
 *
 * Such a chain leaves most of a core idle, so it cannot see a slowdown that
 * comes from sharing the core's other resources (on 2026-12-04 the machine
 * ran one loopback row at two speeds, every kernel and user function 24-51%
 * slower in one, while the chain read the same: validation/live/README.md,
 * "One row, five ways").  --work times other work beside it, each a step of
 * its own:
 *   chain    the dependent chain (the default);
 *   ilp      eight independent chains a step, which the core overlaps (on
 *            this host a step takes about as long as one of the chain's);
 *   copy     memcpy of 4 KB from a 256 KB ring to a 64 KB one (the caches
 *            a socket's copy uses);
 *   syscall  one getppid() system call (a guest's entry and exit, which a
 *            PVM guest's hypervisor does).
 * --together times the CPUs at the same time (a thread pinned on each,
 * every round begun together), as the two ends of a transfer run; without
 * it each CPU is timed in turn with the others left idle.
 *
 * For each CPU (and work): a 1 ms warm-up, then R rounds (default 8) of N ms
 * (default 5) of the loop; the figure is the median round's wall time per
 * step -- a slowdown that lasts shows in it, while a single round hit by a
 * tick, an interrupt or the shell does not (on this VM one 40 ms window in
 * some fifty has a round 30-70% slow, 2026-12-02, nothing else running) --
 * and beside it the slowest round against the median (how uneven the window
 * was).  Lines on stdout, one per CPU and work, in the order given:
 *
 *   cpu A NS_PER_STEP SLOWEST_ROUND_RATIO          (no --work: the chain)
 *   cpu A NS_PER_STEP SLOWEST_ROUND_RATIO WORK     (--work given)
 *
 * --wander S: how each CPU's speed wanders while all run at once, over S
 * seconds (1-20) -- what the model's host.speed_sd and host.speed_tau are
 * (a VM's vCPU shares its physical core with other work, whose load
 * comes and goes).  A thread pinned on each CPU runs the work (--work, one
 * of them; default ilp, since the chain leaves the core's other resources
 * idle and barely sees sharing) in pieces of about 5 us, reading the clock
 * after each.  A piece over 3 times the median is a stop (an interrupt, the
 * hypervisor's own tick), left out of the speed and counted apart.  Per bin
 * of --bin us (50-1000, default 100) a CPU's speed is the median piece's against the
 * run's median piece; from the logs of these speeds, per CPU and for each
 * pair of CPUs (the log of their ratio: how far apart the two ends of a
 * transfer drift):
 *
 *   wander cpu A work W sd SD acf_1ms R tau_ms T stops_pct P bins N
 *   wander pair A B work W sd SD corr C acf_1ms R tau_ms T
 *   model host.speed_sd = SD' host.speed_tau = T'ms
 *
 * SD the s.d. of the log speed (or ratio); R its autocorrelation 1 ms
 * apart; T where its autocorrelation first falls to 1/e (interpolated
 * linearly between bins; "-" if not within a quarter of the run); C the two
 * CPUs' correlation; R and C are "-" where a series has no spread (SD 0:
 * a thread a loaded CPU starved keeps one value).  The model line: the first pair's relative wander split
 * evenly between its two CPUs (SD' = SD / sqrt 2, each CPU's drawn apart in
 * the model), and the correlation time whose exponential gives the pair's
 * R 1 ms apart (T' = -1 ms / ln R), the span of a race between a writer and
 * its reader (a write every 10-100 us); the wander has slower parts too (T
 * above can be hundreds of ms), which one time cannot hold.  What wanders
 * on both CPUs together moves neither end against the other and is left
 * out.  --reps N (1-9) measures N times, one after another, each with its
 * lines; --cfg writes the median of the N model lines (each key's apart)
 * as a profile fragment ([host] speed_sd and speed_tau) for a machine
 * profile to include, tools/measure-live's OUT.wander.cfg.
 *
 * Exit status: 0 done, 1 cannot pin, time or start a thread, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "outfile.h"
#include "util.h"

#include "toolopt.h"

#define PROG "cpuspeed"
#define MAX_CPUS 64
#define MAX_ROUNDS 64
#define MAX_REPS 9 /* --reps */
#define STR_(x) #x
#define STR(x) STR_(x) /* a bound in a message, as the code has it */
#define MAX_WORKS 4
#define COPY_STEP 4096
#define COPY_SRC (256 * 1024)
#define COPY_DST (64 * 1024)

static const char usage_text[] =
	"usage: " PROG " [--cpus A,B,...] [--ms N] [--rounds R] [--work W,...] [--together]\n"
	"  Times a fixed piece of work on each CPU (default every online CPU), R rounds (8)\n"
	"  of N ms (5) each, and prints per CPU one line:\n"
	"    cpu A NS_PER_STEP SLOWEST_ROUND_RATIO\n"
	"  the median round's wall time per step and the slowest round against it.\n"
	"  --work chain,ilp,copy,syscall: which work (default chain, a chain of dependent\n"
	"    multiply-adds); given, each line ends with the work's name\n"
	"  --together: time the CPUs at the same time, not one after another\n"
	"  --wander S: how each CPU's speed wanders over S seconds (1-20), all CPUs at once, in\n"
	"    bins of --bin US (50-1000, default 100) microseconds; --work names one work\n"
	"    (default ilp); prints per CPU and pair the s.d. of the log speed and its correlation\n"
	"    time, and the model's host.speed_sd and host.speed_tau; --reps N (1-" STR(MAX_REPS) ") measures N\n"
	"    times, --cfg OUT.cfg writes the median of their model keys as a profile fragment\n";

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

enum work { W_CHAIN, W_ILP, W_COPY, W_SYSCALL };
static const char *const work_name[] = {"chain", "ilp", "copy", "syscall"};

#define LCG(x) ((x) * 6364136223846793005ULL + 1442695040888963407ULL)

/* What one thread times: its CPU, its work, and the buffers copy needs. */
struct probe {
	int cpu;
	enum work work;
	double ms;
	int rounds;
	unsigned char *src, *dst;
	size_t off;
	uint64_t sink;
	pthread_barrier_t *start; /* --together: each round begins on all CPUs at once */
	int *any_err;             /* --together: some thread could not pin itself */
	double ns_per_step, slowest;
	int err;
	/* --wander: seconds to run, and the clock after each piece */
	double wander_s;
	double *ts;
	long nts, cap;
};

/* n steps of the probe's work.  chain: x = a x + c mod 2^64, the empty asm
 * keeping each step in a register the next one waits for, so the loop is
 * neither vectorised nor folded; ilp: eight such chains side by side;
 * copy: 4 KB moved through the rings; syscall: getppid(). */
static void steps(struct probe *p, long n)
{
	uint64_t x = p->sink;
	switch (p->work) {
	case W_CHAIN:
		for (long i = 0; i < n; i++) {
			x = LCG(x);
			__asm__ volatile("" : "+r"(x));
		}
		break;
	case W_ILP: {
		/* eight named chains, so that each stays in a register */
		uint64_t a = x, b = x + 1, d = x + 2, e = x + 3, f = x + 4, g = x + 5, h = x + 6, k = x + 7;
		for (long i = 0; i < n; i++) {
			a = LCG(a), b = LCG(b), d = LCG(d), e = LCG(e);
			f = LCG(f), g = LCG(g), h = LCG(h), k = LCG(k);
			__asm__ volatile("" : "+r"(a), "+r"(b), "+r"(d), "+r"(e));
			__asm__ volatile("" : "+r"(f), "+r"(g), "+r"(h), "+r"(k));
		}
		x = a ^ b ^ d ^ e ^ f ^ g ^ h ^ k;
		break;
	}
	case W_COPY:
		for (long i = 0; i < n; i++) {
			memcpy(p->dst + p->off % COPY_DST, p->src + p->off % COPY_SRC, COPY_STEP);
			__asm__ volatile("" : : "r"(p->dst) : "memory");
			p->off += COPY_STEP;
		}
		x ^= p->dst[x % COPY_DST];
		break;
	case W_SYSCALL:
		for (long i = 0; i < n; i++)
			x += (uint64_t)syscall(SYS_getppid);
		break;
	}
	p->sink = x;
}

/* The work's steps in about ms milliseconds on this CPU. */
static long steps_for(struct probe *p, double ms)
{
	long n = 16;
	for (;;) {
		double t0 = now_ns();
		steps(p, n);
		double dt = now_ns() - t0;
		if (dt > 2e5 || n > (1L << 40))
			return (long)((double)n * ms * 1e6 / dt) + 1;
		n *= 4;
	}
}

static void *measure(void *arg)
{
	struct probe *p = arg;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(p->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		fprintf(stderr, PROG ": cannot run on CPU %d: %s\n", p->cpu, strerror(errno));
		p->err = 1;
		if (p->any_err)
			*p->any_err = 1;
	}
	if (p->start) /* every thread reaches it, pinned or not: then all know */
		pthread_barrier_wait(p->start);
	if (p->err || (p->any_err && *p->any_err))
		return NULL;
	long n = steps_for(p, 1.0); /* also the warm-up */
	if (p->wander_s > 0) {
		long piece = n / 200 > 0 ? n / 200 : 1; /* about 5 us */
		if (p->start)
			pthread_barrier_wait(p->start);
		double t = now_ns(), end = t + p->wander_s * 1e9;
		p->ts[0] = t;
		p->nts = 1;
		while (t < end && p->nts < p->cap) {
			steps(p, piece);
			t = now_ns();
			p->ts[p->nts++] = t;
		}
		if (p->sink == 42)
			fputs("", stderr);
		return NULL;
	}
	n = (long)((double)n * p->ms);
	double dt[MAX_ROUNDS];
	for (int r = 0; r < p->rounds; r++) {
		if (p->start)
			pthread_barrier_wait(p->start);
		double t0 = now_ns();
		steps(p, n);
		dt[r] = now_ns() - t0;
	}
	if (p->sink == 42) /* keep the result alive; practically never true */
		fputs("", stderr);
	gsl_sort(dt, 1, (size_t)p->rounds);
	double med = gsl_stats_median_from_sorted_data(dt, 1, (size_t)p->rounds);
	p->ns_per_step = med / (double)n;
	p->slowest = dt[p->rounds - 1] / med;
	return NULL;
}

/* Times one work on every CPU: in turn, or (together) in one thread each,
 * started at one barrier.  0 or 1 (a message said why). */
static int run_work(struct probe *pr, int n, int together)
{
	if (!together) {
		for (int i = 0; i < n; i++) {
			measure(&pr[i]);
			if (pr[i].err)
				return 1;
		}
		return 0;
	}
	pthread_barrier_t start;
	pthread_t th[MAX_CPUS];
	if (pthread_barrier_init(&start, NULL, (unsigned)n) != 0) {
		fprintf(stderr, PROG ": cannot set up the threads' barrier\n");
		return 1;
	}
	int started = 0, err = 0, any_err = 0;
	for (int i = 0; i < n; i++) {
		pr[i].start = &start;
		pr[i].any_err = &any_err;
	}
	for (; started < n; started++)
		if (pthread_create(&th[started], NULL, measure, &pr[started]) != 0)
			break;
	if (started < n) {
		/* the barrier counts n threads: those started would wait for ever */
		fprintf(stderr, PROG ": cannot start a thread for CPU %d\n", pr[started].cpu);
		_exit(1);
	}
	for (int i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		err |= pr[i].err;
	}
	pthread_barrier_destroy(&start);
	return err;
}

/* --wander: one CPU's log speed in each of nb bins of bin_ns from t0:
 * log(median piece of the run / median piece of the bin).  A piece over
 * 3 times the run's median is a stop: left out, its time added to
 * *stop_ns.  A bin with fewer than 3 pieces left takes the value of the
 * bin before (counted in *thin). */
static void wander_bins(const struct probe *p, double t0, double bin_ns, long nb, double *logv,
			double *stop_ns, long *thin)
{
	long n = p->nts - 1, i = 0;
	double *d = xmalloc((size_t)n * sizeof(*d)), *bin = xmalloc((size_t)n * sizeof(*bin));
	for (long k = 0; k < n; k++)
		d[k] = p->ts[k + 1] - p->ts[k];
	memcpy(bin, d, (size_t)n * sizeof(*d));
	gsl_sort(bin, 1, (size_t)n);
	double med = gsl_stats_median_from_sorted_data(bin, 1, (size_t)n);
	*stop_ns = 0;
	*thin = 0;
	while (i < n && p->ts[i + 1] < t0)
		i++;
	for (long b = 0; b < nb; b++) {
		size_t m = 0;
		for (; i < n && p->ts[i + 1] < t0 + (double)(b + 1) * bin_ns; i++) {
			if (d[i] > 3 * med)
				*stop_ns += d[i];
			else
				bin[m++] = d[i];
		}
		if (m >= 3) {
			gsl_sort(bin, 1, m);
			logv[b] = log(med / gsl_stats_median_from_sorted_data(bin, 1, m));
		} else {
			logv[b] = b > 0 ? logv[b - 1] : 0;
			(*thin)++;
		}
	}
	free(d);
	free(bin);
}

/* The lag (in bins) where x's autocorrelation first falls to 1/e,
 * interpolated linearly between the two lags around it; lags tried one by
 * one to 16, then in steps of a sixteenth; NAN if not by max_lag. */
static double corr_time_bins(const double *x, long n, long max_lag)
{
	double prev = 1;
	long prev_lag = 0;
	for (long lag = 1; lag <= max_lag && lag < n - 2; lag += lag < 16 ? 1 : lag / 16) {
		double r = gsl_stats_correlation(x, 1, x + lag, 1, (size_t)(n - lag));
		if (r <= 1 / M_E)
			return (double)prev_lag + (double)(lag - prev_lag) * (prev - 1 / M_E) / (prev - r);
		prev = r;
		prev_lag = lag;
	}
	return NAN;
}

/* " LABEL V" (no LABEL: " V"), V "-" where there is none: no correlation
 * time within the run, or no correlation of a series without spread
 * (every bin the same: a thread that a loaded CPU starved kept one value) */
static void print_value(const char *label, double v)
{
	if (label)
		printf(" %s", label);
	if (isnan(v))
		printf(" -");
	else
		printf(" %.3f", v);
}

/* --wander's report, from the pieces the threads timed (see the top). */
static int wander_report(struct probe *pr, int n, double bin_ns, double *model_sd, double *model_tau_ms)
{
	double t0 = pr[0].ts[0], t1 = pr[0].ts[pr[0].nts - 1];
	for (int i = 1; i < n; i++) {
		t0 = GSL_MAX_DBL(t0, pr[i].ts[0]);
		t1 = GSL_MIN_DBL(t1, pr[i].ts[pr[i].nts - 1]);
	}
	long nb = (long)((t1 - t0) / bin_ns);
	long lag_1ms = (long)(1e6 / bin_ns + 0.5), max_lag = GSL_MIN(nb / 4, (long)(1e9 / bin_ns));
	if (nb < 64) {
		fprintf(stderr, PROG ": --wander: too few bins (%ld) to measure in; a longer run or a smaller --bin\n", nb);
		return 1;
	}
	double **lv = xmalloc((size_t)n * sizeof(*lv)), *r = xmalloc((size_t)nb * sizeof(*r));
	const char *w = work_name[pr[0].work];
	for (int i = 0; i < n; i++) {
		double stop_ns;
		long thin;
		lv[i] = xmalloc((size_t)nb * sizeof(**lv));
		wander_bins(&pr[i], t0, bin_ns, nb, lv[i], &stop_ns, &thin);
		printf("wander cpu %d work %s sd %.4f", pr[i].cpu, w, gsl_stats_sd(lv[i], 1, (size_t)nb));
		print_value("acf_1ms", gsl_stats_correlation(lv[i], 1, lv[i] + lag_1ms, 1, (size_t)(nb - lag_1ms)));
		print_value("tau_ms", corr_time_bins(lv[i], nb, max_lag) * bin_ns / 1e6);
		printf(" stops_pct %.2f bins %ld\n", 100 * stop_ns / (t1 - t0), nb);
		if (thin > nb / 100)
			fprintf(stderr, PROG ": --wander: CPU %d had %ld bins with under 3 pieces (a larger --bin?)\n",
				pr[i].cpu, thin);
	}
	double sd0 = NAN, acf0 = NAN;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			for (long b = 0; b < nb; b++)
				r[b] = lv[j][b] - lv[i][b];
			double sd = gsl_stats_sd(r, 1, (size_t)nb);
			double acf = gsl_stats_correlation(r, 1, r + lag_1ms, 1, (size_t)(nb - lag_1ms));
			printf("wander pair %d %d work %s sd %.4f", pr[i].cpu, pr[j].cpu, w, sd);
			print_value("corr", gsl_stats_correlation(lv[i], 1, lv[j], 1, (size_t)nb));
			print_value("acf_1ms", acf);
			print_value("tau_ms", corr_time_bins(r, nb, max_lag) * bin_ns / 1e6);
			printf("\n");
			if (isnan(sd0)) {
				sd0 = sd;
				acf0 = acf;
			}
		}
	*model_sd = sd0 / M_SQRT2;
	*model_tau_ms = acf0 > 0 && acf0 < 1 ? -1 / log(acf0) : NAN;
	if (isnan(*model_tau_ms)) {
		printf("model host.speed_sd = %.4f host.speed_tau = - (the pair's autocorrelation 1 ms apart is", *model_sd);
		print_value(NULL, acf0);
		printf(")\n");
	} else
		printf("model host.speed_sd = %.4f host.speed_tau = %.3fms\n", *model_sd, *model_tau_ms);
	for (int i = 0; i < n; i++)
		free(lv[i]);
	free(lv);
	free(r);
	return 0;
}

/* The median of the n values of v that are not NaN (NaN if none). */
static double median_of(double *v, int n)
{
	size_t m = 0;
	for (int i = 0; i < n; i++)
		if (!isnan(v[i]))
			v[m++] = v[i];
	if (m == 0)
		return NAN;
	gsl_sort(v, 1, m);
	return gsl_stats_median_from_sorted_data(v, 1, m);
}

/* --cfg: the median model keys of the reps as a profile fragment. */
static int wander_cfg(const char *path, const struct probe *pr, int n, double wander_s, double bin_us, int reps,
		      double *sd, double *tau_ms)
{
	struct outfile o;
	struct tcpsim_err err = {0};
	double msd = median_of(sd, reps), mtau = median_of(tau_ms, reps);
	if (outfile_open(&o, path, "profile fragment", &err)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return 1;
	}
	fprintf(o.f, "; how the vCPUs' speeds wander, measured by tools/bin/cpuspeed --wander %g --bin %g --work %s on CPUs",
		wander_s, bin_us, work_name[pr[0].work]);
	for (int i = 0; i < n; i++)
		fprintf(o.f, "%s%d", i ? "," : " ", pr[i].cpu);
	fprintf(o.f, "\n; (the median of %d runs' model lines); include it from the machine profile\n[host]\n", reps);
	fprintf(o.f, "speed_sd = %.4f\n", msd);
	if (isnan(mtau))
		fprintf(o.f, "; no run's pair had an autocorrelation 1 ms apart in (0, 1): speed_tau left at its default\n");
	else
		fprintf(o.f, "speed_tau = %.3fms\n", mtau);
	if (outfile_commit(&o, &err)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"cpus", required_argument, NULL, 'c'}, {"ms", required_argument, NULL, 'm'},
		{"rounds", required_argument, NULL, 'r'}, {"work", required_argument, NULL, 'w'},
		{"together", no_argument, NULL, 't'}, {"help", no_argument, NULL, 'h'},
		{"wander", required_argument, NULL, 'W'}, {"bin", required_argument, NULL, 'b'},
		{"reps", required_argument, NULL, 'n'}, {"cfg", required_argument, NULL, 'C'},
		{NULL, 0, NULL, 0},
	};
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	int cpus[MAX_CPUS], n = 0, rounds = 8, together = 0, nworks = 0;
	enum work works[MAX_WORKS];
	double ms = 5, wander_s = 0, bin_us = 100;
	int c, reps = 1;
	long v;
	const char *cfg = NULL;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 'c': {
			char *s = optarg, *end;
			for (;;) {
				end = strchr(s, ',');
				if (end)
					*end = '\0';
				int ok = parse_long_in(s, 0, ncpus - 1, &v);
				if (end)
					*end = ',';
				if (!ok || n == MAX_CPUS)
					return tool_usage(PROG, usage_text,
							  "--cpus takes online CPU numbers separated by commas");
				cpus[n++] = (int)v;
				if (!end)
					break;
				s = end + 1;
			}
			break;
		}
		case 'w': {
			nworks = 0;
			for (char *s = optarg;;) {
				size_t len = strcspn(s, ",");
				int w = -1;
				for (int k = 0; k < MAX_WORKS; k++)
					if (strlen(work_name[k]) == len && strncmp(s, work_name[k], len) == 0)
						w = k;
				if (w < 0)
					return tool_usage(PROG, usage_text,
							  "--work takes chain, ilp, copy or syscall, separated by commas");
				if (nworks == MAX_WORKS)
					return tool_usage(PROG, usage_text, "--work takes at most 4 works");
				works[nworks++] = (enum work)w;
				if (s[len] == '\0')
					break;
				s += len + 1;
			}
			break;
		}
		case 't': together = 1; break;
		case 'm':
			if (!parse_long_in(optarg, 1, 10000, &v))
				return tool_usage(PROG, usage_text, "--ms takes whole milliseconds, 1 to 10000");
			ms = (double)v;
			break;
		case 'r':
			if (!parse_long_in(optarg, 1, MAX_ROUNDS, &v))
				return tool_usage(PROG, usage_text, "--rounds takes 1 to " STR(MAX_ROUNDS));
			rounds = (int)v;
			break;
		case 'W':
			if (!parse_long_in(optarg, 1, 20, &v))
				return tool_usage(PROG, usage_text, "--wander takes whole seconds, 1 to 20");
			wander_s = (double)v;
			break;
		case 'b':
			if (!parse_long_in(optarg, 50, 1000, &v))
				return tool_usage(PROG, usage_text, "--bin takes whole microseconds, 50 to 1000");
			bin_us = (double)v;
			break;
		case 'n':
			if (!parse_long_in(optarg, 1, MAX_REPS, &v))
				return tool_usage(PROG, usage_text, "--reps takes 1 to " STR(MAX_REPS));
			reps = (int)v;
			break;
		case 'C': cfg = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return tool_bad_option(PROG, usage_text, argv);
		}
	}
	if (optind != argc)
		return tool_usage(PROG, usage_text, "unexpected argument");
	if (n == 0)
		for (long i = 0; i < ncpus && n < MAX_CPUS; i++)
			cpus[n++] = (int)i;
	int named = nworks > 0;
	if (wander_s > 0 && nworks > 1)
		return tool_usage(PROG, usage_text, "--wander times one work: --work names one");
	if (wander_s > 0 && n < 2)
		return tool_usage(PROG, usage_text, "--wander needs two CPUs or more (--cpus)");
	if (wander_s == 0 && (reps > 1 || cfg))
		return tool_usage(PROG, usage_text, "--reps and --cfg go with --wander");
	if (cfg) { /* a directory that cannot take the file fails now, not after the runs */
		struct tcpsim_err err = {0};
		if (outfile_probe(cfg, "profile fragment", &err)) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			return 1;
		}
	}
	if (!named)
		works[nworks++] = wander_s > 0 ? W_ILP : W_CHAIN;
	struct probe pr[MAX_CPUS];
	int rc = 0;
	for (int i = 0; i < n; i++) {
		pr[i] = (struct probe){.cpu = cpus[i], .ms = ms, .rounds = rounds,
				       .sink = (uint64_t)cpus[i] + 1, .wander_s = wander_s};
		if (wander_s > 0) {
			/* a piece is about 5 us: room for pieces twice as fast */
			pr[i].cap = (long)(wander_s * 4e5) + 1024;
			pr[i].ts = malloc((size_t)pr[i].cap * sizeof(*pr[i].ts));
			if (!pr[i].ts) {
				fprintf(stderr, PROG ": out of memory\n");
				rc = 1;
			}
		}
		pr[i].src = malloc(COPY_SRC);
		pr[i].dst = malloc(COPY_DST);
		if (!pr[i].src || !pr[i].dst) {
			fprintf(stderr, PROG ": out of memory\n");
			rc = 1;
		} else {
			memset(pr[i].src, 0x5a, COPY_SRC);
			memset(pr[i].dst, 0, COPY_DST);
		}
	}
	if (wander_s > 0 && rc == 0) { /* all CPUs at once, reps times */
		double sd[MAX_REPS], tau[MAX_REPS];
		for (int i = 0; i < n; i++)
			pr[i].work = works[0];
		for (int r = 0; r < reps && rc == 0; r++) {
			rc = run_work(pr, n, 1);
			if (rc == 0)
				rc = wander_report(pr, n, bin_us * 1e3, &sd[r], &tau[r]);
		}
		if (rc == 0 && cfg)
			rc = wander_cfg(cfg, pr, n, wander_s, bin_us, reps, sd, tau);
	}
	for (int k = 0; k < nworks && rc == 0 && wander_s == 0; k++) {
		for (int i = 0; i < n; i++)
			pr[i].work = works[k];
		if (run_work(pr, n, together)) {
			rc = 1;
			break;
		}
		for (int i = 0; i < n; i++) {
			printf("cpu %d %.5f %.3f", pr[i].cpu, pr[i].ns_per_step, pr[i].slowest);
			printf(named ? " %s\n" : "\n", work_name[works[k]]);
		}
	}
	for (int i = 0; i < n; i++) {
		free(pr[i].src);
		free(pr[i].dst);
		free(pr[i].ts);
	}
	if (fflush(stdout) != 0)
		rc = 1;
	return rc;
}
