/*
 * procstat.c: /proc snapshot parsers and deltas (see procstat.h).
 *
 * Formats, as Linux prints them (proc(5); fs/proc/stat.c, softirqs.c,
 * arch/x86/kernel/irq.c arch_show_interrupts, mm/vmstat.c, net/ipv4/proc.c,
 * net/core/net-procfs.c):
 *   stat        "cpu  u n s i iow irq sirq steal guest guest_nice",
 *               "cpuN ...", "intr TOTAL per-irq...", "ctxt N"
 *   softirqs    a header of CPU names, then "NAME: v v ..." (one column
 *               per possible CPU)
 *   interrupts  a header of CPU names, then "RES: v v ... text" (one column
 *               per online CPU)
 *   vmstat      "name value"
 *   snmp/netstat  line pairs "Table: names..." / "Table: values..."
 *   dev         two header lines, then "name: 8 rx fields, 8 tx fields"
 *   PID/stat    "pid (comm) state ... utime stime ...": utime and stime are
 *               fields 14 and 15 counting pid as 1
 */
#include "procstat.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ------------------------------------------------------------- helpers */

/* Lines of a text, numbered from 1; `buf` holds one line, NUL-terminated. */
struct line_iter {
	const char *p;
	int lineno;
	char buf[8192];
};

static int next_line(struct line_iter *it)
{
	if (!it->p || !*it->p)
		return 0;
	const char *nl = strchr(it->p, '\n');
	size_t len = nl ? (size_t)(nl - it->p) : strlen(it->p);
	if (len >= sizeof(it->buf))
		len = sizeof(it->buf) - 1;   /* /proc lines are far shorter; the cut part is never used */
	memcpy(it->buf, it->p, len);
	it->buf[len] = '\0';
	it->p = nl ? nl + 1 : it->p + strlen(it->p);
	it->lineno++;
	return 1;
}

/* An unsigned decimal at *s (leading blanks skipped); advances *s. */
static int take_u64(const char **s, uint64_t *out)
{
	const char *p = *s;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(p, &end, 10);
	if (errno == ERANGE || (*end && *end != ' ' && *end != '\t' && *end != '\n'))
		return 0;
	*out = v;
	*s = end;
	return 1;
}

static int only_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	return *s == '\0';
}

/* Number of whitespace-separated words in s. */
static int count_words(const char *s)
{
	int n = 0, in = 0;
	for (; *s; s++) {
		int blank = *s == ' ' || *s == '\t' || *s == '\r';
		if (!blank && !in)
			n++;
		in = !blank;
	}
	return n;
}

/* ----------------------------------------------------------- /proc/stat */

static int parse_cpu_line(const char *rest, uint64_t f[PS_CPU_N], const char *file, int line,
			  struct tcpsim_err *err)
{
	int n = 0;
	uint64_t v;
	memset(f, 0, PS_CPU_N * sizeof(f[0]));
	while (n < PS_CPU_N && take_u64(&rest, &v))
		f[n++] = v;
	/* iowait, irq, softirq since 2.5.41, steal since 2.6.11: fewer is an old kernel */
	if (n < 4 || (n < PS_CPU_N && !only_blanks(rest)))
		return err_set(err, TCPSIM_EUSAGE, "%s:%d: cpu line: expected at least 4 tick counts",
			       file, line);
	return TCPSIM_OK;
}

int procstat_parse_stat(struct procstat_sys *s, const char *text, const char *file,
			struct tcpsim_err *err)
{
	struct line_iter it = {.p = text};
	int have_cpu = 0, have_ctxt = 0, have_intr = 0;
	s->ncpus = 0;
	while (next_line(&it)) {
		const char *l = it.buf;
		if (strncmp(l, "cpu", 3) == 0) {
			const char *rest = l + 3;
			if (*rest == ' ') {
				if (parse_cpu_line(rest, s->cpu, file, it.lineno, err))
					return err->code;
				have_cpu = 1;
				continue;
			}
			char *end;
			long id = strtol(rest, &end, 10);
			if (end == rest || *end != ' ')
				return err_set(err, TCPSIM_EUSAGE, "%s:%d: malformed cpu line '%.40s'",
					       file, it.lineno, l);
			if (id != s->ncpus)
				return err_set(err, TCPSIM_EUSAGE,
					       "%s:%d: cpu%ld out of order (expected cpu%d; offline CPUs "
					       "are not supported)",
					       file, it.lineno, id, s->ncpus);
			if (s->ncpus >= PROCSTAT_MAX_CPUS)
				return err_set(err, TCPSIM_EUSAGE, "%s:%d: more than %d CPUs", file,
					       it.lineno, PROCSTAT_MAX_CPUS);
			if (parse_cpu_line(end, s->cpu_n[s->ncpus], file, it.lineno, err))
				return err->code;
			s->ncpus++;
		} else if (strncmp(l, "ctxt ", 5) == 0) {
			const char *r = l + 5;
			if (!take_u64(&r, &s->ctxt))
				return err_set(err, TCPSIM_EUSAGE, "%s:%d: ctxt: not a count", file,
					       it.lineno);
			have_ctxt = 1;
		} else if (strncmp(l, "intr ", 5) == 0) {
			const char *r = l + 5;
			if (!take_u64(&r, &s->intr))
				return err_set(err, TCPSIM_EUSAGE, "%s:%d: intr: not a count", file,
					       it.lineno);
			have_intr = 1;
		}
	}
	if (!have_cpu || !have_ctxt || !have_intr || s->ncpus == 0)
		return err_set(err, TCPSIM_EUSAGE, "%s: no '%s' line (is this /proc/stat?)", file,
			       !have_cpu ? "cpu" : !have_ctxt ? "ctxt" : !have_intr ? "intr" : "cpu0");
	return TCPSIM_OK;
}

/* ------------------------------------------- softirqs and interrupts */

/* Header "CPU0 CPU1 ...": number of columns, or -1. */
static int cpu_header(const char *l)
{
	int n = count_words(l);
	const char *p = l;
	for (int i = 0; i < n; i++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, "CPU", 3) != 0)
			return -1;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	return n > 0 ? n : -1;
}

/*
 * In a per-CPU table, the row named `name` ("NET_RX", "RES"): its first
 * ncols numbers, summed into *sum (when not NULL) and kept per CPU in
 * per_cpu[0..PROCSTAT_MAX_CPUS) with their count in *ncpus.  `exact` = the
 * row has nothing after them.
 */
static int table_row(const char *text, const char *file, const char *name, int exact,
		     uint64_t *sum, uint64_t *per_cpu, int *ncpus, struct tcpsim_err *err)
{
	struct line_iter it = {.p = text};
	if (!next_line(&it))
		return err_set(err, TCPSIM_EUSAGE, "%s: empty file", file);
	int ncols = cpu_header(it.buf);
	if (ncols < 0)
		return err_set(err, TCPSIM_EUSAGE, "%s:1: expected a header of CPU names (CPU0 CPU1 ...)",
			       file);
	size_t nl = strlen(name);
	while (next_line(&it)) {
		const char *l = it.buf;
		while (*l == ' ')
			l++;
		if (strncmp(l, name, nl) != 0 || l[nl] != ':')
			continue;
		const char *r = l + nl + 1;
		uint64_t v, t = 0;
		for (int c = 0; c < ncols; c++) {
			if (!take_u64(&r, &v))
				return err_set(err, TCPSIM_EUSAGE,
					       "%s:%d: %s: expected %d per-CPU counts, found %d", file,
					       it.lineno, name, ncols, c);
			t += v;
			if (c < PROCSTAT_MAX_CPUS)
				per_cpu[c] = v;
		}
		if (exact && !only_blanks(r))
			return err_set(err, TCPSIM_EUSAGE, "%s:%d: %s: more than %d per-CPU counts",
				       file, it.lineno, name, ncols);
		if (sum)
			*sum = t;
		*ncpus = ncols < PROCSTAT_MAX_CPUS ? ncols : PROCSTAT_MAX_CPUS;
		return TCPSIM_OK;
	}
	return err_set(err, TCPSIM_EUSAGE, "%s: no '%s:' line", file, name);
}

static int sys_row(struct procstat_sys *s, const char *text, const char *file, const char *name,
		   int exact, enum procstat_row row, uint64_t *sum, struct tcpsim_err *err)
{
	return table_row(text, file, name, exact, sum, s->row_n[row], &s->row_ncpus[row], err);
}

int procstat_parse_softirqs(struct procstat_sys *s, const char *text, const char *file,
			    struct tcpsim_err *err)
{
	/* TIMER and HRTIMER: kernel/time/timer.c run_timer_softirq and
	 * kernel/time/hrtimer.c hrtimer_run_softirq (HRTIMER_SOFTIRQ since 4.16) */
	if (sys_row(s, text, file, "NET_RX", 1, PR_NET_RX, &s->netrx_softirqs, err) ||
	    sys_row(s, text, file, "TIMER", 1, PR_TIMER, NULL, err))
		return err->code;
	return sys_row(s, text, file, "HRTIMER", 1, PR_HRTIMER, NULL, err);
}

int procstat_parse_interrupts(struct procstat_sys *s, const char *text, const char *file,
			      struct tcpsim_err *err)
{
	/* x86 names: RES = reschedule IPIs, CAL = function-call IPIs (the
	 * wakelist's since 5.8: kernel/sched/core.c ttwu_queue_wakelist),
	 * LOC = local APIC timer interrupts; each column counts what that CPU
	 * received (arch/x86/kernel/irq.c arch_show_interrupts) */
	if (sys_row(s, text, file, "RES", 0, PR_RES, &s->res_ipis, err) ||
	    sys_row(s, text, file, "CAL", 0, PR_CAL, &s->cal_ipis, err))
		return err->code;
	return sys_row(s, text, file, "LOC", 0, PR_LOC, NULL, err);
}

/* --------------------------------------------------------------- vmstat */

int procstat_parse_vmstat(struct procstat_sys *s, const char *text, const char *file,
			  struct tcpsim_err *err)
{
	struct line_iter it = {.p = text};
	int have_alloc = 0, have_free = 0;
	while (next_line(&it)) {
		char name[64];
		const char *sp = strchr(it.buf, ' ');
		if (!sp || (size_t)(sp - it.buf) >= sizeof(name)) {
			if (only_blanks(it.buf))
				continue;
			return err_set(err, TCPSIM_EUSAGE, "%s:%d: expected 'name value'", file,
				       it.lineno);
		}
		memcpy(name, it.buf, (size_t)(sp - it.buf));
		name[sp - it.buf] = '\0';
		uint64_t *dst = strcmp(name, "pgalloc_normal") == 0 ? &s->pgalloc_normal
				: strcmp(name, "pgfree") == 0	 ? &s->pgfree
								 : NULL;
		if (!dst)
			continue;
		const char *r = sp;
		if (!take_u64(&r, dst) || !only_blanks(r))
			return err_set(err, TCPSIM_EUSAGE, "%s:%d: %s: not a count", file, it.lineno,
				       name);
		if (dst == &s->pgfree)
			have_free = 1;
		else
			have_alloc = 1;
	}
	if (!have_alloc || !have_free)
		return err_set(err, TCPSIM_EUSAGE, "%s: no '%s' line", file,
			       have_alloc ? "pgfree" : "pgalloc_normal");
	return TCPSIM_OK;
}

/* ------------------------------------------------------- PID/stat lines */

int procstat_parse_ksoftirqd(struct procstat_sys *s, const char *text, const char *file,
			     struct tcpsim_err *err)
{
	struct line_iter it = {.p = text};
	uint64_t total = 0;
	while (next_line(&it)) {
		if (only_blanks(it.buf))
			continue;
		const char *close = strrchr(it.buf, ')');
		if (!close || !strchr(it.buf, '('))
			return err_set(err, TCPSIM_EUSAGE, "%s:%d: expected 'pid (comm) state ...'",
				       file, it.lineno);
		/* after ')': state is field 3; skip to field 14 (utime) */
		const char *r = close + 1;
		while (*r == ' ')
			r++;
		if (!*r || *r == ' ')
			return err_set(err, TCPSIM_EUSAGE, "%s:%d: no state field", file, it.lineno);
		r++; /* the one-letter state */
		uint64_t v = 0, ut = 0, st = 0;
		for (int field = 4; field <= 15; field++) {
			/* fields 4..13 are numbers (tty_nr can be 0; none are negative
			 * for kernel threads except tpgid, -1) */
			while (*r == ' ')
				r++;
			if (*r == '-') {
				r++;
				if (!take_u64(&r, &v))
					return err_set(err, TCPSIM_EUSAGE, "%s:%d: field %d: not a number",
						       file, it.lineno, field);
				continue;
			}
			if (!take_u64(&r, &v))
				return err_set(err, TCPSIM_EUSAGE, "%s:%d: field %d: not a number",
					       file, it.lineno, field);
			if (field == 14)
				ut = v;
			if (field == 15)
				st = v;
		}
		total += ut + st;
	}
	s->ksoftirqd_ticks = total;
	s->have_ksoftirqd = 1;
	return TCPSIM_OK;
}

int procstat_parse_time(struct procstat_sys *s, const char *text, const char *file,
			struct tcpsim_err *err)
{
	double t;
	long tck;
	char extra;
	if (sscanf(text, "%lf %ld %c", &t, &tck, &extra) != 2 || !isfinite(t) || t < 0 || tck <= 0)
		return err_set(err, TCPSIM_EUSAGE,
			       "%s:1: expected 'MONOTONIC_SECONDS CLK_TCK' (e.g. '1234.5 100')", file);
	s->mono_s = t;
	s->clk_tck = tck;
	return TCPSIM_OK;
}

/* ---------------------------------------------------- snmp and netstat */

/* Counters wanted from the table pairs: table, column, where it goes. */
struct snmp_want {
	const char *table, *column;
	size_t offset;
	int optional;
};

/*
 * The TcpExt counters that show where receive work runs and how ACKs go
 * (net/ipv4/proc.c snmp4_net_list; see the counters named in
 * validation/live/README.md): fast-path hits, pure ACKs, backlog
 * coalescing and drops, receive-queue coalescing, delayed ACKs,
 * autocorking, out-of-order queueing, zero-window advertisements.
 */
const char *const procstat_tcpext_names[PROCSTAT_TCPEXT_N] = {
	"TCPHPHits",	    "TCPHPAcks",	"TCPPureAcks", "TCPBacklogCoalesce",
	"TCPBacklogDrop",   "TCPRcvCoalesce",	"DelayedACKs", "TCPAutoCorking",
	"TCPOFOQueue",	    "TCPWantZeroWindowAdv", "TCPToZeroWindowAdv",
	/* loss recovery on a path that only reorders, and how slow start ended */
	"TCPSackRecovery",  "TCPSACKReorder",	"TCPDSACKRecv", "TCPDSACKUndo",
	"TCPHystartTrainDetect", "TCPHystartDelayDetect",
};

#define TCPEXT(i) {"TcpExt", NULL, offsetof(struct procstat_net, tcpext) + (i) * sizeof(uint64_t), 1}
static const struct snmp_want snmp_wanted[] = {
	{"Ip", "OutRequests", offsetof(struct procstat_net, ip_out_requests), 0},
	{"Tcp", "OutSegs", offsetof(struct procstat_net, tcp_out_segs), 0},
	{"Tcp", "RetransSegs", offsetof(struct procstat_net, tcp_retrans_segs), 0},
	{"TcpExt", "TCPOrigDataSent", offsetof(struct procstat_net, tcp_orig_data_sent), 0},
	TCPEXT(0), TCPEXT(1), TCPEXT(2), TCPEXT(3), TCPEXT(4), TCPEXT(5),
	TCPEXT(6), TCPEXT(7), TCPEXT(8), TCPEXT(9), TCPEXT(10), TCPEXT(11),
	TCPEXT(12), TCPEXT(13), TCPEXT(14), TCPEXT(15), TCPEXT(16),
};
#undef TCPEXT
_Static_assert(PROCSTAT_TCPEXT_N == 17, "snmp_wanted[] lists every TcpExt counter kept");

/* The column name of a wanted counter (the TcpExt ones are named by procstat_tcpext_names). */
static const char *want_column(size_t w)
{
	if (snmp_wanted[w].column)
		return snmp_wanted[w].column;
	size_t i = (snmp_wanted[w].offset - offsetof(struct procstat_net, tcpext)) / sizeof(uint64_t);
	return procstat_tcpext_names[i];
}

int procstat_parse_snmp(struct procstat_net *n, const char *text, const char *file,
			struct tcpsim_err *err)
{
	struct line_iter it = {.p = text};
	char names[sizeof(it.buf)];
	int names_line = 0;
	while (next_line(&it)) {
		if (only_blanks(it.buf))
			continue;
		const char *colon = strchr(it.buf, ':');
		if (!colon)
			return err_set(err, TCPSIM_EUSAGE, "%s:%d: expected 'Table: ...'", file,
				       it.lineno);
		if (!names_line) {
			snprintf(names, sizeof(names), "%s", it.buf);
			names_line = it.lineno;
			continue;
		}
		/* the values line: same table name as the names line */
		size_t tl = (size_t)(colon - it.buf);
		if (strncmp(names, it.buf, tl) != 0 || names[tl] != ':')
			return err_set(err, TCPSIM_EUSAGE,
				       "%s:%d: values of table '%.*s' follow the names of another "
				       "(line %d)",
				       file, it.lineno, (int)tl, it.buf, names_line);
		if (count_words(names + tl + 1) != count_words(colon + 1))
			return err_set(err, TCPSIM_EUSAGE,
				       "%s:%d: table '%.*s' has %d names (line %d) but %d values", file,
				       it.lineno, (int)tl, it.buf, count_words(names + tl + 1),
				       names_line, count_words(colon + 1));
		for (size_t w = 0; w < ARRAY_SIZE(snmp_wanted); w++) {
			if (strlen(snmp_wanted[w].table) != tl ||
			    strncmp(snmp_wanted[w].table, it.buf, tl) != 0)
				continue;
			/* column index of the wanted name */
			int col = -1, k = 0;
			char tmp[sizeof(names)];
			snprintf(tmp, sizeof(tmp), "%s", names + tl + 1);
			for (char *save = NULL, *tok = strtok_r(tmp, " \t\r", &save); tok;
			     tok = strtok_r(NULL, " \t\r", &save), k++)
				if (strcmp(tok, want_column(w)) == 0)
					col = k;
			if (col < 0)
				continue;
			const char *r = colon + 1;
			char val[64];
			for (k = 0; k <= col; k++) {
				int len = 0;
				while (*r == ' ' || *r == '\t')
					r++;
				while (*r && *r != ' ' && *r != '\t' && len < (int)sizeof(val) - 1)
					val[len++] = *r++;
				val[len] = '\0';
			}
			const char *vp = val;
			uint64_t v;
			if (!take_u64(&vp, &v) || *vp)
				return err_set(err, TCPSIM_EUSAGE, "%s:%d: %.*s %s: '%s' is not a count",
					       file, it.lineno, (int)tl, it.buf, want_column(w), val);
			*(uint64_t *)((char *)n + snmp_wanted[w].offset) = v;
		}
		names_line = 0;
	}
	if (names_line)
		return err_set(err, TCPSIM_EUSAGE, "%s:%d: table names without a values line", file,
			       names_line);
	return TCPSIM_OK;
}

int procstat_parse_dev(struct procstat_net *n, const char *text, const char *file,
		       struct tcpsim_err *err)
{
	struct line_iter it = {.p = text};
	n->ndevs = 0;
	while (next_line(&it)) {
		if (it.lineno <= 2 || only_blanks(it.buf))
			continue; /* "Inter-|   Receive ..." and "face |bytes ..." */
		const char *l = it.buf;
		while (*l == ' ')
			l++;
		const char *colon = strchr(l, ':');
		if (!colon || colon == l || (size_t)(colon - l) >= sizeof(n->dev[0].name))
			return err_set(err, TCPSIM_EUSAGE, "%s:%d: expected 'device: counters'", file,
				       it.lineno);
		if (n->ndevs == PROCSTAT_MAX_DEVS)
			return err_set(err, TCPSIM_EUSAGE, "%s:%d: more than %d devices", file,
				       it.lineno, PROCSTAT_MAX_DEVS);
		struct procstat_dev *d = &n->dev[n->ndevs];
		memcpy(d->name, l, (size_t)(colon - l));
		d->name[colon - l] = '\0';
		const char *r = colon + 1;
		uint64_t v[16];
		for (int k = 0; k < 16; k++)
			if (!take_u64(&r, &v[k]))
				return err_set(err, TCPSIM_EUSAGE,
					       "%s:%d: %s: expected 16 counters, found %d", file,
					       it.lineno, d->name, k);
		d->rx_packets = v[1];
		d->tx_packets = v[9];
		n->ndevs++;
	}
	return TCPSIM_OK;
}

double procstat_tcpext_per_s(const struct procstat_net *a, const struct procstat_net *b,
			     const struct procstat_net *rx_a, const struct procstat_net *rx_b,
			     int i, double secs)
{
	const struct procstat_net *p[4] = {a, b, rx_a, rx_b};
	int n = rx_a && rx_b ? 4 : 2;
	double t = 0;
	for (int k = 0; k < n; k += 2) {
		uint64_t x = p[k]->tcpext[i], y = p[k + 1]->tcpext[i];
		if (x == UINT64_MAX || y == UINT64_MAX || y < x)
			return NAN;
		t += (double)(y - x);
	}
	return secs > 0 ? t / secs : NAN;
}

const struct procstat_dev *procstat_net_dev(const struct procstat_net *n, const char *name)
{
	for (int i = 0; i < n->ndevs; i++)
		if (strcmp(n->dev[i].name, name) == 0)
			return &n->dev[i];
	return NULL;
}

/* ---------------------------------------------------------- snapshots */

char *procstat_read_file(const char *path, struct tcpsim_err *err)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		err_set(err, TCPSIM_EIO, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 65536, len = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		size_t got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
		if (len < cap - 1)
			break;
		cap *= 2;
		buf = xrealloc(buf, cap);
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		err_set(err, TCPSIM_EIO, "cannot read '%s'", path);
		return NULL;
	}
	buf[len] = '\0';
	if (memchr(buf, '\0', len)) {
		free(buf);
		err_set(err, TCPSIM_EUSAGE, "%s: binary data (a NUL byte)", path);
		return NULL;
	}
	return buf;
}

typedef int (*sys_parser)(struct procstat_sys *, const char *, const char *, struct tcpsim_err *);
typedef int (*net_parser)(struct procstat_net *, const char *, const char *, struct tcpsim_err *);

static int load_one(const char *dir, const char *name, int optional, struct procstat_sys *s,
		    sys_parser ps, struct procstat_net *n, net_parser pn, struct tcpsim_err *err)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (optional) {
		FILE *f = fopen(path, "r");
		if (!f)
			return TCPSIM_OK;
		fclose(f);
	}
	char *text = procstat_read_file(path, err);
	if (!text)
		return err->code;
	int rc = ps ? ps(s, text, path, err) : pn(n, text, path, err);
	free(text);
	return rc;
}

int procstat_load_sys(struct procstat_sys *s, const char *dir, struct tcpsim_err *err)
{
	memset(s, 0, sizeof(*s));
	static const struct {
		const char *name;
		sys_parser parse;
		int optional;
	} files[] = {
		{"time", procstat_parse_time, 0},
		{"stat", procstat_parse_stat, 0},
		{"softirqs", procstat_parse_softirqs, 0},
		{"interrupts", procstat_parse_interrupts, 0},
		{"vmstat", procstat_parse_vmstat, 0},
		{"ksoftirqd", procstat_parse_ksoftirqd, 1},
	};
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		if (load_one(dir, files[i].name, files[i].optional, s, files[i].parse, NULL, NULL, err))
			return err->code;
	return TCPSIM_OK;
}

int procstat_load_net(struct procstat_net *n, const char *dir, struct tcpsim_err *err)
{
	memset(n, 0, sizeof(*n));
	/* all-ones marks "not seen", so a missing counter is told from a zero one */
	for (size_t w = 0; w < ARRAY_SIZE(snmp_wanted); w++)
		*(uint64_t *)((char *)n + snmp_wanted[w].offset) = UINT64_MAX;
	if (load_one(dir, "snmp", 0, NULL, NULL, n, procstat_parse_snmp, err) ||
	    load_one(dir, "netstat", 0, NULL, NULL, n, procstat_parse_snmp, err) ||
	    load_one(dir, "dev", 0, NULL, NULL, n, procstat_parse_dev, err))
		return err->code;
	for (size_t w = 0; w < ARRAY_SIZE(snmp_wanted); w++)
		if (!snmp_wanted[w].optional &&
		    *(uint64_t *)((char *)n + snmp_wanted[w].offset) == UINT64_MAX)
			return err_set(err, TCPSIM_EUSAGE, "%s: no %s %s counter in %s/%s", dir,
				       snmp_wanted[w].table, want_column(w), dir,
				       strcmp(snmp_wanted[w].table, "TcpExt") == 0 ? "netstat" : "snmp");
	return TCPSIM_OK;
}

/* ---------------------------------------------------------------- delta */

static uint64_t busy_ticks(const uint64_t f[PS_CPU_N])
{
	return f[PS_USER] + f[PS_NICE] + f[PS_SYSTEM] + f[PS_IRQ] + f[PS_SOFTIRQ];
}

static uint64_t all_ticks(const uint64_t f[PS_CPU_N])
{
	uint64_t t = 0;
	for (int i = 0; i < PS_CPU_N; i++)
		t += f[i];
	return t;
}

int procstat_sys_delta(const struct procstat_sys *a, const struct procstat_sys *b,
		       struct procstat_sys_delta *d, struct tcpsim_err *err)
{
	memset(d, 0, sizeof(*d));
	if (!(b->mono_s > a->mono_s))
		return err_set(err, TCPSIM_EUSAGE,
			       "snapshots: the second (%.6f s) is not later than the first (%.6f s)",
			       b->mono_s, a->mono_s);
	if (a->ncpus != b->ncpus || a->clk_tck != b->clk_tck)
		return err_set(err, TCPSIM_EUSAGE,
			       "snapshots: %d vs %d CPUs, %ld vs %ld ticks/s: not the same machine "
			       "state",
			       a->ncpus, b->ncpus, a->clk_tck, b->clk_tck);
	struct {
		const char *name;
		uint64_t x, y;
	} mono[] = {
		{"ctxt", a->ctxt, b->ctxt},
		{"intr", a->intr, b->intr},
		{"NET_RX", a->netrx_softirqs, b->netrx_softirqs},
		{"RES", a->res_ipis, b->res_ipis},
		{"CAL", a->cal_ipis, b->cal_ipis},
		{"pgalloc_normal", a->pgalloc_normal, b->pgalloc_normal},
		{"pgfree", a->pgfree, b->pgfree},
		{"cpu ticks", all_ticks(a->cpu), all_ticks(b->cpu)},
	};
	for (size_t i = 0; i < ARRAY_SIZE(mono); i++)
		if (mono[i].y < mono[i].x)
			return err_set(err, TCPSIM_EUSAGE,
				       "snapshots: %s went backwards (%llu -> %llu): a reboot between them?",
				       mono[i].name, (unsigned long long)mono[i].x,
				       (unsigned long long)mono[i].y);
	double secs = b->mono_s - a->mono_s, tck = (double)a->clk_tck;
	double all = (double)(all_ticks(b->cpu) - all_ticks(a->cpu));
	d->secs = secs;
	d->ncpus = a->ncpus;
	d->cpu_s = all / tck;
	d->busy_s = (double)(busy_ticks(b->cpu) - busy_ticks(a->cpu)) / tck;
	d->steal_s = (double)(b->cpu[PS_STEAL] - a->cpu[PS_STEAL]) / tck;
	d->util_pct = all > 0 ? 100.0 * d->busy_s * tck / all : 0;
	for (int c = 0; c < a->ncpus; c++) {
		double ca = (double)(all_ticks(b->cpu_n[c]) - all_ticks(a->cpu_n[c]));
		double cb = (double)busy_ticks(b->cpu_n[c]) - (double)busy_ticks(a->cpu_n[c]);
		d->cpu_util_pct[c] = ca > 0 ? 100.0 * cb / ca : 0;
		d->cpu_counted_pct[c] = 100.0 * ca / (secs * tck);
	}
	d->ksoftirqd_s = a->have_ksoftirqd && b->have_ksoftirqd
				 ? ((double)b->ksoftirqd_ticks - (double)a->ksoftirqd_ticks) / tck
				 : NAN;
	d->netrx_per_s = (double)(b->netrx_softirqs - a->netrx_softirqs) / secs;
	d->res_per_s = (double)(b->res_ipis - a->res_ipis) / secs;
	d->cal_per_s = (double)(b->cal_ipis - a->cal_ipis) / secs;
	d->cs_per_s = (double)(b->ctxt - a->ctxt) / secs;
	d->intr_per_s = (double)(b->intr - a->intr) / secs;
	d->pgalloc_per_s = (double)(b->pgalloc_normal - a->pgalloc_normal) / secs;
	d->pgfree_per_s = (double)(b->pgfree - a->pgfree) / secs;
	static const char *const row_name[PR_N] = {"NET_RX", "TIMER", "HRTIMER", "LOC", "RES", "CAL"};
	for (int r = 0; r < PR_N; r++) {
		if (a->row_ncpus[r] != b->row_ncpus[r])
			return err_set(err, TCPSIM_EUSAGE, "snapshots: %s has %d vs %d CPU columns",
				       row_name[r], a->row_ncpus[r], b->row_ncpus[r]);
		for (int c = 0; c < a->row_ncpus[r]; c++) {
			if (b->row_n[r][c] < a->row_n[r][c])
				return err_set(err, TCPSIM_EUSAGE,
					       "snapshots: %s of CPU %d went backwards (%llu -> %llu)",
					       row_name[r], c, (unsigned long long)a->row_n[r][c],
					       (unsigned long long)b->row_n[r][c]);
			d->row_per_s[r][c] = (double)(b->row_n[r][c] - a->row_n[r][c]) / secs;
		}
	}
	return TCPSIM_OK;
}
