/*
 * cpuspeed: how fast each CPU runs a fixed piece of work right now -- the
 * canary tools/measure-live reads before and after every run, so that a run
 * made while the host slowed the machine down is known and redone.
 *
 *   cpuspeed [--cpus A,B,...] [--ms N] [--rounds R] [--work W,...] [--together]
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
 * Exit status: 0 done, 1 cannot pin, time or start a thread, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#include "toolopt.h"

#define PROG "cpuspeed"
#define MAX_CPUS 64
#define MAX_ROUNDS 64
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
	"  --together: time the CPUs at the same time, not one after another\n";

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

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"cpus", required_argument, NULL, 'c'}, {"ms", required_argument, NULL, 'm'},
		{"rounds", required_argument, NULL, 'r'}, {"work", required_argument, NULL, 'w'},
		{"together", no_argument, NULL, 't'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	int cpus[MAX_CPUS], n = 0, rounds = 8, together = 0, nworks = 0;
	enum work works[MAX_WORKS];
	double ms = 5;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 'c': {
			char *s = optarg, *end;
			for (;;) {
				long v;
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
		case 'm': {
			long v;
			if (!parse_long_in(optarg, 1, 10000, &v))
				return tool_usage(PROG, usage_text, "--ms takes whole milliseconds, 1 to 10000");
			ms = (double)v;
			break;
		}
		case 'r': {
			long v;
			if (!parse_long_in(optarg, 1, MAX_ROUNDS, &v))
				return tool_usage(PROG, usage_text, "--rounds takes 1 to 64");
			rounds = (int)v;
			break;
		}
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
	if (!named)
		works[nworks++] = W_CHAIN;
	struct probe pr[MAX_CPUS];
	int rc = 0;
	for (int i = 0; i < n; i++) {
		pr[i] = (struct probe){.cpu = cpus[i], .ms = ms, .rounds = rounds,
				       .sink = (uint64_t)cpus[i] + 1};
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
	for (int k = 0; k < nworks && rc == 0; k++) {
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
	}
	if (fflush(stdout) != 0)
		rc = 1;
	return rc;
}
