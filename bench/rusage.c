/*
 * rusage: what one whole process cost, for tests/bench.sh.
 *
 *   rusage OUTFILE COMMAND [ARG...]
 *
 * Runs COMMAND (searched in PATH, its stdin, stdout and stderr are this
 * program's), waits for it and writes one line to OUTFILE:
 *
 *   wall_s=W cpu_s=C user_s=U sys_s=S maxrss_kb=K status=X
 *
 * W from CLOCK_MONOTONIC around fork and wait, C = U + S and K (the peak
 * resident set of the command and of the children it waited for) from
 * wait4()'s struct rusage, all at microsecond resolution (GNU time prints
 * hundredths of a second, too coarse for runs of a tenth of a second).
 * X is the command's exit status, or 128 + the signal that ended it.
 * Exits with X; with 127 if COMMAND could not be run, 2 on bad usage or an
 * OUTFILE that cannot be written.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	double t0, t1;
	int wstatus, status;
	pid_t pid;
	FILE *out;

	if (argc < 3) {
		fprintf(stderr, "usage: rusage OUTFILE COMMAND [ARG...]\n");
		return 2;
	}
	out = fopen(argv[1], "w");
	if (!out) {
		fprintf(stderr, "rusage: cannot open '%s': %s\n", argv[1], strerror(errno));
		return 2;
	}
	t0 = mono_s();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "rusage: fork: %s\n", strerror(errno));
		fclose(out);
		return 127;
	}
	if (pid == 0) {
		fclose(out);
		execvp(argv[2], argv + 2);
		fprintf(stderr, "rusage: cannot run '%s': %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &wstatus, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "rusage: wait4: %s\n", strerror(errno));
			fclose(out);
			return 127;
		}
	}
	t1 = mono_s();
	status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
	fprintf(out, "wall_s=%.6f cpu_s=%.6f user_s=%.6f sys_s=%.6f maxrss_kb=%ld status=%d\n", t1 - t0,
		tv_s(ru.ru_utime) + tv_s(ru.ru_stime), tv_s(ru.ru_utime), tv_s(ru.ru_stime), ru.ru_maxrss,
		status);
	if (fclose(out) != 0) {
		fprintf(stderr, "rusage: cannot write '%s': %s\n", argv[1], strerror(errno));
		return 2;
	}
	return status;
}
