/*
 * cpuspeed: how fast each CPU runs a fixed piece of work right now -- the
 * canary tools/measure-live reads before and after every run, so that a run
 * made while the host slowed the machine down is known and redone.
 *
 *   cpuspeed [--cpus A,B,...] [--ms N] [--rounds R]
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
 * For each CPU in turn (the process pinned there): a 1 ms warm-up, then R
 * rounds (default 8) of N ms (default 5) of the loop; the figure is the
 * median round's wall time per iteration -- a slowdown that lasts shows in
 * it, while a single round hit by a tick, an interrupt or the shell does
 * not (on this VM one 40 ms window in some fifty has a round 30-70% slow,
 * 2026-12-02, nothing else running) -- and beside it the slowest round
 * against the median (how uneven the window was).  Lines on stdout:
 *
 *   cpu A NS_PER_ITER SLOWEST_ROUND_RATIO
 *
 * Exit status: 0 done, 1 cannot pin or time, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#include "toolopt.h"

#define PROG "cpuspeed"
#define MAX_CPUS 64
#define MAX_ROUNDS 64

static const char usage_text[] =
	"usage: " PROG " [--cpus A,B,...] [--ms N] [--rounds R]\n"
	"  Times a fixed chain of dependent multiply-adds on each CPU (default every online\n"
	"  CPU), R rounds (8) of N ms (5) each, and prints per CPU one line:\n"
	"    cpu A NS_PER_ITER SLOWEST_ROUND_RATIO\n"
	"  the median round's wall time per iteration and the slowest round against it.\n";

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* n steps of x = a x + c mod 2^64; the empty asm keeps each step in a
 * register the next one waits for, so the loop is neither vectorised nor
 * folded */
static uint64_t chain(uint64_t x, long n)
{
	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/* The loop's iterations in about ms milliseconds on this CPU. */
static long iters_for(double ms, uint64_t *sink)
{
	long n = 1000;
	for (;;) {
		double t0 = now_ns();
		*sink ^= chain(*sink, n);
		double dt = now_ns() - t0;
		if (dt > 2e5 || n > (1L << 40))
			return (long)((double)n * ms * 1e6 / dt) + 1;
		n *= 4;
	}
}

static int measure(int cpu, double ms, int rounds, double *ns_per_iter, double *slowest)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		fprintf(stderr, PROG ": cannot run on CPU %d: %s\n", cpu, strerror(errno));
		return 1;
	}
	uint64_t sink = (uint64_t)cpu + 1;
	long n = iters_for(1.0, &sink); /* also the warm-up */
	n = (long)((double)n * ms);
	double dt[MAX_ROUNDS];
	for (int r = 0; r < rounds; r++) {
		double t0 = now_ns();
		sink ^= chain(sink, n);
		dt[r] = now_ns() - t0;
	}
	if (sink == 42) /* keep the result alive; practically never true */
		fputs("", stderr);
	gsl_sort(dt, 1, (size_t)rounds);
	double med = gsl_stats_median_from_sorted_data(dt, 1, (size_t)rounds);
	*ns_per_iter = med / (double)n;
	*slowest = dt[rounds - 1] / med;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"cpus", required_argument, NULL, 'c'}, {"ms", required_argument, NULL, 'm'},
		{"rounds", required_argument, NULL, 'r'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	int cpus[MAX_CPUS], n = 0, rounds = 8;
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
	for (int i = 0; i < n; i++) {
		double ns, worst;
		if (measure(cpus[i], ms, rounds, &ns, &worst))
			return 1;
		printf("cpu %d %.5f %.3f\n", cpus[i], ns, worst);
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
