/*
 * procstat: snapshots of the kernel counters a live run is measured with,
 * and their deltas (the parsing is model/procstat.[ch]).
 *
 *   procstat snap [--net-only] DIR   copy the /proc files verbatim into DIR
 *   procstat delta BEFORE AFTER      print the differences, one "name value" a line
 *                                    (per CPU too: cpuN_netrx_per_s, ..._cal_per_s)
 *   procstat busy SECONDS            sample /proc/stat over SECONDS; print
 *                                    "busy_pct steal_pct" of the whole machine
 *
 * `snap` writes into DIR.tmp and renames it to DIR when every file is in, so
 * a snapshot is whole or absent.  Without --net-only it copies the
 * system-wide files (stat, softirqs, interrupts, vmstat, the ksoftirqd
 * threads' stat lines, and `time`: CLOCK_MONOTONIC and USER_HZ) and the
 * network namespace's files (snmp, netstat, dev); /proc/net follows the
 * namespace of the process, so run it under `ip netns exec NS`.
 *
 * Exit status: 0 done, 1 a file could not be read or written, 2 bad input
 * or usage.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "procstat.h"
#include "util.h"

#include "toolopt.h"

#define PROG "procstat"

static const char usage_text[] =
	"usage: " PROG " snap [--net-only] DIR\n"
	"       " PROG " delta BEFORE_DIR AFTER_DIR\n"
	"       " PROG " busy SECONDS\n";

static int write_text(const char *dir, const char *name, const char *text, struct tcpsim_err *err)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		return err_set(err, TCPSIM_EIO, "cannot create '%s': %s", path, strerror(errno));
	size_t n = strlen(text);
	int bad = fwrite(text, 1, n, f) != n;
	bad |= fclose(f) != 0;
	if (bad)
		return err_set(err, TCPSIM_EIO, "cannot write '%s'", path);
	return TCPSIM_OK;
}

static int copy_proc(const char *src, const char *dir, const char *name, struct tcpsim_err *err)
{
	char *text = procstat_read_file(src, err);
	if (!text)
		return err->code;
	int rc = write_text(dir, name, text, err);
	free(text);
	return rc;
}

/* The /proc/PID/stat lines of every ksoftirqd/N thread, concatenated. */
static int copy_ksoftirqd(const char *dir, struct tcpsim_err *err)
{
	DIR *d = opendir("/proc");
	if (!d)
		return err_set(err, TCPSIM_EIO, "cannot list /proc: %s", strerror(errno));
	size_t cap = 4096, len = 0;
	char *out = xmalloc(cap);
	out[0] = '\0';
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		char path[300], line[1024];
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue; /* the process ended meanwhile */
		int got = fgets(line, sizeof(line), f) != NULL;
		fclose(f);
		if (!got || !strstr(line, "(ksoftirqd/"))
			continue;
		size_t ll = strlen(line);
		if (len + ll + 2 > cap) {
			cap = 2 * (len + ll + 2);
			out = xrealloc(out, cap);
		}
		memcpy(out + len, line, ll + 1);
		len += ll;
		if (out[len - 1] != '\n') {
			out[len++] = '\n';
			out[len] = '\0';
		}
	}
	closedir(d);
	int rc = write_text(dir, "ksoftirqd", out, err);
	free(out);
	return rc;
}

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int snap(const char *dir, int net_only, struct tcpsim_err *err)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp", dir);
	struct stat st;
	if (stat(dir, &st) == 0)
		return err_set(err, TCPSIM_EUSAGE, "'%s' exists already; a snapshot never overwrites",
			       dir);
	if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
		return err_set(err, TCPSIM_EIO, "cannot create '%s': %s", tmp, strerror(errno));
	int rc = TCPSIM_OK;
	if (!net_only) {
		char t[64];
		snprintf(t, sizeof(t), "%.9f %ld\n", mono_now(), sysconf(_SC_CLK_TCK));
		rc = write_text(tmp, "time", t, err);
		if (!rc)
			rc = copy_proc("/proc/stat", tmp, "stat", err);
		if (!rc)
			rc = copy_proc("/proc/softirqs", tmp, "softirqs", err);
		if (!rc)
			rc = copy_proc("/proc/interrupts", tmp, "interrupts", err);
		if (!rc)
			rc = copy_proc("/proc/vmstat", tmp, "vmstat", err);
	}
	if (!rc)
		rc = copy_proc("/proc/net/snmp", tmp, "snmp", err);
	if (!rc)
		rc = copy_proc("/proc/net/netstat", tmp, "netstat", err);
	if (!rc)
		rc = copy_proc("/proc/net/dev", tmp, "dev", err);
	if (!rc && !net_only)
		rc = copy_ksoftirqd(tmp, err);
	if (!rc && rename(tmp, dir) != 0)
		rc = err_set(err, TCPSIM_EIO, "cannot rename '%s' to '%s': %s", tmp, dir,
			     strerror(errno));
	return rc;
}

static int delta(const char *da, const char *db, struct tcpsim_err *err)
{
	struct procstat_sys *a = xmalloc(sizeof(*a)), *b = xmalloc(sizeof(*b));
	struct procstat_net na, nb;
	struct procstat_sys_delta d;
	int rc = procstat_load_sys(a, da, err);
	if (!rc)
		rc = procstat_load_sys(b, db, err);
	if (!rc)
		rc = procstat_sys_delta(a, b, &d, err);
	if (rc) {
		free(a);
		free(b);
		return rc;
	}
	printf("seconds %.6f\n", d.secs);
	printf("util_pct %.4f\n", d.util_pct);
	for (int c = 0; c < d.ncpus; c++)
		printf("cpu%d_util_pct %.4f\n", c, d.cpu_util_pct[c]);
	for (int c = 0; c < d.ncpus; c++)
		printf("cpu%d_counted_pct %.4f\n", c, d.cpu_counted_pct[c]);
	printf("busy_cpu_s %.4f\nsteal_cpu_s %.4f\n", d.busy_s, d.steal_s);
	if (!isnan(d.ksoftirqd_s))
		printf("ksoftirqd_cpu_s %.4f\n", d.ksoftirqd_s);
	printf("netrx_softirqs_per_s %.3f\nres_ipis_per_s %.3f\ncal_ipis_per_s %.3f\n", d.netrx_per_s,
	       d.res_per_s, d.cal_per_s);
	printf("cs_per_s %.3f\nintr_per_s %.3f\npgalloc_per_s %.3f\npgfree_per_s %.3f\n", d.cs_per_s,
	       d.intr_per_s, d.pgalloc_per_s, d.pgfree_per_s);
	static const char *const row_name[PR_N] = {"netrx", "timer", "hrtimer", "loc", "res", "cal"};
	for (int r = 0; r < PR_N; r++)
		for (int c = 0; c < a->row_ncpus[r]; c++)
			printf("cpu%d_%s_per_s %.3f\n", c, row_name[r], d.row_per_s[r][c]);
	/* the namespace's counters, when both snapshots have them */
	struct tcpsim_err nerr;
	err_clear(&nerr);
	if (!procstat_load_net(&na, da, &nerr) && !procstat_load_net(&nb, db, &nerr)) {
		printf("ns_ip_out_requests %llu\nns_tcp_out_segs %llu\nns_tcp_retrans_segs %llu\n"
		       "ns_tcp_orig_data_sent %llu\n",
		       (unsigned long long)(nb.ip_out_requests - na.ip_out_requests),
		       (unsigned long long)(nb.tcp_out_segs - na.tcp_out_segs),
		       (unsigned long long)(nb.tcp_retrans_segs - na.tcp_retrans_segs),
		       (unsigned long long)(nb.tcp_orig_data_sent - na.tcp_orig_data_sent));
		for (int i = 0; i < PROCSTAT_TCPEXT_N; i++) {
			double v = procstat_tcpext_per_s(&na, &nb, NULL, NULL, i, d.secs);
			if (!isnan(v))
				printf("ns_tcpext_%s_per_s %.3f\n", procstat_tcpext_names[i], v);
		}
		for (int i = 0; i < nb.ndevs; i++) {
			const struct procstat_dev *o = procstat_net_dev(&na, nb.dev[i].name);
			if (o)
				printf("ns_dev_%s_tx_packets %llu\n", nb.dev[i].name,
				       (unsigned long long)(nb.dev[i].tx_packets - o->tx_packets));
		}
	}
	free(a);
	free(b);
	return TCPSIM_OK;
}

/* Busy and steal share of the whole machine over `secs`, from /proc/stat. */
static int busy(double secs, struct tcpsim_err *err)
{
	struct procstat_sys *a = xcalloc(1, sizeof(*a)), *b = xcalloc(1, sizeof(*b));
	int rc = TCPSIM_OK;
	char *t = procstat_read_file("/proc/stat", err);
	a->mono_s = mono_now();
	if (t && !(rc = procstat_parse_stat(a, t, "/proc/stat", err))) {
		free(t);
		struct timespec ts = {(time_t)secs, (long)((secs - floor(secs)) * 1e9)};
		nanosleep(&ts, NULL);
		t = procstat_read_file("/proc/stat", err);
		b->mono_s = mono_now();
		if (t)
			rc = procstat_parse_stat(b, t, "/proc/stat", err);
	}
	if (!t)
		rc = err->code;
	free(t);
	if (!rc) {
		uint64_t all = 0, bz = 0;
		for (int i = 0; i < PS_CPU_N; i++)
			all += b->cpu[i] - a->cpu[i];
		bz = (b->cpu[PS_USER] + b->cpu[PS_NICE] + b->cpu[PS_SYSTEM] + b->cpu[PS_IRQ] +
		      b->cpu[PS_SOFTIRQ]) -
		     (a->cpu[PS_USER] + a->cpu[PS_NICE] + a->cpu[PS_SYSTEM] + a->cpu[PS_IRQ] +
		      a->cpu[PS_SOFTIRQ]);
		double steal = (double)(b->cpu[PS_STEAL] - a->cpu[PS_STEAL]);
		printf("%.2f %.2f\n", all ? 100.0 * (double)bz / (double)all : 0.0,
		       all ? 100.0 * steal / (double)all : 0.0);
	}
	free(a);
	free(b);
	return rc;
}

static int usage(const char *msg)
{
	return tool_usage(PROG, usage_text, msg);
}

int main(int argc, char **argv)
{
	struct tcpsim_err err;
	err_clear(&err);
	if (argc < 2)
		return usage("missing command");
	int rc;
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(usage_text, stdout);
		return 0;
	} else if (strcmp(argv[1], "snap") == 0) {
		int net_only = argc == 4 && strcmp(argv[2], "--net-only") == 0;
		if (argc != 3 + net_only)
			return usage("snap takes [--net-only] DIR");
		rc = snap(argv[argc - 1], net_only, &err);
	} else if (strcmp(argv[1], "delta") == 0) {
		if (argc != 4)
			return usage("delta takes BEFORE_DIR AFTER_DIR");
		rc = delta(argv[2], argv[3], &err);
	} else if (strcmp(argv[1], "busy") == 0) {
		char *end;
		double s = argc == 3 ? strtod(argv[2], &end) : NAN;
		if (argc != 3 || end == argv[2] || *end || !(s > 0 && s <= 60))
			return usage("busy takes SECONDS (0 < SECONDS <= 60)");
		rc = busy(s, &err);
	} else {
		char m[128];
		snprintf(m, sizeof(m), "unknown command '%s'", argv[1]);
		return usage(m);
	}
	if (rc) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return rc == TCPSIM_EUSAGE ? 2 : 1;
	}
	return 0;
}
