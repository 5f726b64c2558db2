/*
 * procstat.c: /proc snapshot parsers and deltas (see procstat.h).
 *
 * Formats, as Linux prints them (proc(5); fs/proc/stat.c, softirqs.c,
 * arch/x86/kernel/irq.c arch_show_interrupts, mm/vmstat.c, net/ipv4/proc.c,
 * net/core/net-procfs.c):
 *   stat        "cpu  u n s i iow irq sirq steal guest guest_nice",
 *               "cpuN ...", "intr TOTAL per-irq...", "ctxt N"
 *   softirqs    a header of CPU names, then "NAME: v v ..."
 *   interrupts  a header of CPU names, then "RES: v v ... text"
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
 * In a per-CPU table, the row named `name` ("NET_RX", "RES"): the sum of its
 * first ncols numbers.  `exact` = the row has nothing after them.
 */
static int table_row_sum(const char *text, const char *file, const char *name, int exact,
			 uint64_t *sum, struct tcpsim_err *err)
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
		}
		if (exact && !only_blanks(r))
			return err_set(err, TCPSIM_EUSAGE, "%s:%d: %s: more than %d per-CPU counts",
				       file, it.lineno, name, ncols);
		*sum = t;
		return TCPSIM_OK;
	}
	return err_set(err, TCPSIM_EUSAGE, "%s: no '%s:' line", file, name);
}

int procstat_parse_softirqs(struct procstat_sys *s, const char *text, const char *file,
			    struct tcpsim_err *err)
{
	return table_row_sum(text, file, "NET_RX", 1, &s->netrx_softirqs, err);
}

int procstat_parse_interrupts(struct procstat_sys *s, const char *text, const char *file,
			      struct tcpsim_err *err)
{
	/* x86 names: RES = reschedule IPIs, CAL = function-call IPIs (the
	 * wakelist's since 5.8: kernel/sched/core.c ttwu_queue_wakelist) */
	if (table_row_sum(text, file, "RES", 0, &s->res_ipis, err))
		return err->code;
	return table_row_sum(text, file, "CAL", 0, &s->cal_ipis, err);
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
};

static const struct snmp_want snmp_wanted[] = {
	{"Ip", "OutRequests", offsetof(struct procstat_net, ip_out_requests)},
	{"Tcp", "OutSegs", offsetof(struct procstat_net, tcp_out_segs)},
	{"Tcp", "RetransSegs", offsetof(struct procstat_net, tcp_retrans_segs)},
	{"TcpExt", "TCPOrigDataSent", offsetof(struct procstat_net, tcp_orig_data_sent)},
};

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
				if (strcmp(tok, snmp_wanted[w].column) == 0)
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
					       file, it.lineno, (int)tl, it.buf, snmp_wanted[w].column,
					       val);
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
		if (*(uint64_t *)((char *)n + snmp_wanted[w].offset) == UINT64_MAX)
			return err_set(err, TCPSIM_EUSAGE, "%s: no %s %s counter in %s/%s", dir,
				       snmp_wanted[w].table, snmp_wanted[w].column, dir,
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
	return TCPSIM_OK;
}
