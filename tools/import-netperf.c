/*
 * import-netperf: netperf's classic TCP_STREAM / TCP_SENDFILE result table
 * (run with -c -C) -> recorded runs (model/study/runs.h), one per data row.
 *
 *   Recv   Send    Send                          Utilization       Service Demand
 *   Socket Socket  Message  Elapsed              Send     Recv     Send    Recv
 *   Size   Size    Size     Time     Throughput  local    remote   local   remote
 *   bytes  bytes   bytes    secs.    10^6bits/s  % S      % S      us/KB   us/KB
 *
 *    87380 393216 393216    10.00      2163.08   100.00   19.35    3.787   1.466
 *
 * This is the layout netperf 2.x prints for the stream tests (netperf's
 * src/nettest_bsd.c, the "tput_fmt_1" header with CPU columns); without
 * -c -C only the first five columns appear, and such tables are read too.
 * Lines before the first header (banner, command line) are ignored; after
 * a header only data rows, blank lines, further headers and label lines
 * ending in ':' (e.g. "With patch + TSO:", kept as the row's note) are
 * allowed -- anything else is an error naming file and line.
 *
 * Mapping (netperf is run on the sender for these tests, so "local" is the
 * sending host and "remote" the receiving one):
 *   Throughput (unit from the units line: 10^3, 10^6 or 10^9 bits/s)
 *                      -> throughput_mbps and throughput_total_mbps (one instance)
 *   Utilization local / remote  -> cpu_send_pct / cpu_recv_pct
 *   Service Demand local / remote -> sd_send_us_per_kb / sd_recv_us_per_kb
 * netperf prints a negative utilisation or service demand when it did not
 * measure one; those cells stay empty.  Socket and message sizes and the
 * elapsed time are settings, not metrics: they go into the note, and the
 * scenario (--scenario/--overrides) must hold them.
 *
 * Exit status: 0 done, 1 the output could not be written, 2 bad input or usage.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "metrics.h"
#include "runs.h"
#include "util.h"

#include "toolopt.h"

#define PROG "import-netperf"
#define MAX_TOK 16

static const char usage_text[] =
	"usage: " PROG " -o OUT.csv --source TEXT --scenario CFG [--scenario CFG]...\n"
	"       [--overrides 'sec.key=v;...']... [--id ID]... [--id-prefix P] INPUT\n"
	"  Appends one recorded run per netperf data row of INPUT ('-' = stdin) to OUT.csv\n"
	"  (created if missing).  --scenario, --overrides and --id are given once for\n"
	"  all rows or once per data row, in order; ids default to PREFIX1, PREFIX2, ...\n"
	"  (prefix 'netperf-').\n";

/* Columns of a data row with CPU figures (-c -C), in order. */
static const char *const col_names[9] = {
	"recv socket size", "send socket size", "send message size", "elapsed time",
	"throughput", "utilization local", "utilization remote",
	"service demand local", "service demand remote",
};

struct strlist {
	char **v;
	int n;
};

static void strlist_add(struct strlist *l, const char *s)
{
	l->v = xrealloc(l->v, (size_t)(l->n + 1) * sizeof(l->v[0]));
	l->v[l->n++] = xstrdup(s);
}

static void strlist_free(struct strlist *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

struct nrow {
	double f[9];
	int nf;
	int line;
	char *label;
	double unit_bps; /* bits/s per throughput unit */
};

struct parse {
	const char *path;
	struct nrow *rows;
	int n, cap;
};

static int split(char *s, char **tok)
{
	int n = 0;
	for (char *t = strtok(s, " \t\r\n"); t; t = strtok(NULL, " \t\r\n"))
		if (n < MAX_TOK)
			tok[n++] = t;
		else
			return MAX_TOK + 1;
	return n;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static int first_token_is(const char *line, const char *word)
{
	while (isspace((unsigned char)*line))
		line++;
	size_t n = strlen(word);
	return strncmp(line, word, n) == 0 && (line[n] == '\0' || isspace((unsigned char)line[n]));
}

/*
 * Read the whole table.  States: before any header, inside a header (until
 * the units line "bytes ..."), after a header (data rows).
 */
static int parse_file(FILE *in, struct parse *p, struct tcpsim_err *err)
{
	enum { BEFORE, HEADER, DATA } st = BEFORE;
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int line = 0, header_line = 0, with_cpu = 0, rows_in_block = 0, nonblank = 0;
	double unit_bps = 1e6;
	char *label = NULL;
	int rc = TCPSIM_OK;

	while (!rc && (len = getline(&buf, &cap, in)) >= 0) {
		line++;
		if ((size_t)len != strlen(buf)) {
			rc = err_set(err, TCPSIM_EUSAGE, "%s:%d: NUL byte in a text file", p->path,
				     line);
			break;
		}
		char *t = trim(buf);
		if (*t)
			nonblank = 1;
		if (first_token_is(t, "Recv")) {
			if (st == DATA && rows_in_block == 0) {
				rc = err_set(err, TCPSIM_EUSAGE,
					     "%s:%d: netperf header without data rows", p->path,
					     header_line);
				break;
			}
			if (st == HEADER) {
				rc = err_set(err, TCPSIM_EUSAGE,
					     "%s:%d: netperf header starts again before its units line",
					     p->path, line);
				break;
			}
			st = HEADER;
			header_line = line;
			with_cpu = strstr(t, "Utilization") != NULL;
			rows_in_block = 0;
			continue;
		}
		if (st == BEFORE)
			continue;
		if (st == HEADER) {
			if (!*t) {
				rc = err_set(err, TCPSIM_EUSAGE,
					     "%s:%d: blank line inside the netperf header", p->path,
					     line);
			} else if (first_token_is(t, "bytes")) {
				char *tok[MAX_TOK + 1];
				int n = split(t, tok);
				if (n < 5) {
					rc = err_set(err, TCPSIM_EUSAGE,
						     "%s:%d: units line has no throughput unit",
						     p->path, line);
				} else if (strcmp(tok[4], "10^6bits/s") == 0) {
					unit_bps = 1e6;
				} else if (strcmp(tok[4], "10^9bits/s") == 0) {
					unit_bps = 1e9;
				} else if (strcmp(tok[4], "10^3bits/s") == 0) {
					unit_bps = 1e3;
				} else {
					rc = err_set(err, TCPSIM_EUSAGE,
						     "%s:%d: throughput unit '%s' not supported "
						     "(netperf -f k, m or g print 10^3/10^6/10^9bits/s)",
						     p->path, line, tok[4]);
				}
				st = DATA;
			} else if (isdigit((unsigned char)*t)) {
				rc = err_set(err, TCPSIM_EUSAGE,
					     "%s:%d: data row before the units line ('bytes bytes ...') "
					     "of the header",
					     p->path, line);
			}
			continue;
		}
		/* st == DATA */
		if (!*t)
			continue;
		size_t tl = strlen(t);
		if (!isdigit((unsigned char)*t) && *t != '-' && *t != '+' && *t != '.') {
			if (t[tl - 1] == ':') {
				free(label);
				t[tl - 1] = '\0';
				label = xstrdup(trim(t));
				continue;
			}
			rc = err_set(err, TCPSIM_EUSAGE,
				     "%s:%d: not a netperf data row, header or label: '%.60s'",
				     p->path, line, t);
			break;
		}
		char *tok[MAX_TOK + 1];
		int want = with_cpu ? 9 : 5;
		int n = split(t, tok);
		if (n < want) {
			rc = err_set(err, TCPSIM_EUSAGE,
				     "%s:%d: truncated data row: %d fields, expected %d (%s ... %s)",
				     p->path, line, n, want, col_names[0], col_names[want - 1]);
			break;
		}
		if (n > want) {
			rc = err_set(err, TCPSIM_EUSAGE,
				     "%s:%d: data row has %s%d fields, expected %d", p->path, line,
				     n > MAX_TOK ? "over " : "", n > MAX_TOK ? MAX_TOK : n, want);
			break;
		}
		struct nrow r = {.nf = n, .line = line, .label = label, .unit_bps = unit_bps};
		label = NULL;
		for (int i = 0; i < n && !rc; i++)
			if (!parse_finite(tok[i], &r.f[i]))
				rc = err_set(err, TCPSIM_EUSAGE,
					     "%s:%d: field %d (%s): '%s' is not a number", p->path,
					     line, i + 1, col_names[i], tok[i]);
		if (!rc && (r.f[4] < 0 || r.f[3] <= 0))
			rc = err_set(err, TCPSIM_EUSAGE,
				     "%s:%d: field %d (%s): '%s' must be %s", p->path, line,
				     r.f[4] < 0 ? 5 : 4, r.f[4] < 0 ? col_names[4] : col_names[3],
				     r.f[4] < 0 ? tok[4] : tok[3],
				     r.f[4] < 0 ? "zero or more" : "positive");
		if (rc) {
			free(r.label);
			break;
		}
		if (p->n == p->cap) {
			p->cap = p->cap ? 2 * p->cap : 8;
			p->rows = xrealloc(p->rows, (size_t)p->cap * sizeof(p->rows[0]));
		}
		p->rows[p->n++] = r;
		rows_in_block++;
	}
	if (!rc && ferror(in))
		rc = err_set(err, TCPSIM_EUSAGE, "%s: read error: %s", p->path, strerror(errno));
	if (!rc && line == 0)
		rc = err_set(err, TCPSIM_EUSAGE, "%s:1: empty file (no netperf output)", p->path);
	if (!rc && !nonblank)
		rc = err_set(err, TCPSIM_EUSAGE, "%s:%d: only blank lines (no netperf output)",
			     p->path, line);
	if (!rc && st == BEFORE)
		rc = err_set(err, TCPSIM_EUSAGE,
			     "%s:%d: no netperf result table (no header line starting with 'Recv')",
			     p->path, line);
	if (!rc && st == HEADER)
		rc = err_set(err, TCPSIM_EUSAGE,
			     "%s:%d: netperf header ends before its units line ('bytes bytes ...')",
			     p->path, header_line);
	if (!rc && st == DATA && rows_in_block == 0)
		rc = err_set(err, TCPSIM_EUSAGE, "%s:%d: netperf header without data rows",
			     p->path, header_line);
	if (!rc && label)
		rc = err_set(err, TCPSIM_EUSAGE, "%s:%d: label '%s' is not followed by a data row",
			     p->path, line, label);
	free(label);
	free(buf);
	return rc;
}

/* The i-th of a repeatable option: one for all rows or one per row. */
static const char *pick(const struct strlist *l, int i)
{
	if (l->n == 0)
		return NULL;
	return l->n == 1 ? l->v[0] : l->v[i];
}

static int check_count(const struct strlist *l, const char *opt, int rows, const char *path,
		       int allow_one, struct tcpsim_err *err)
{
	if (l->n == 0 || l->n == rows || (allow_one && l->n == 1))
		return TCPSIM_OK;
	return err_set(err, TCPSIM_EUSAGE, "%d %s given for %d data row%s in %s (give %s%d)",
		       l->n, opt, rows, rows == 1 ? "" : "s", path, allow_one ? "1 or " : "",
		       rows);
}

static int to_runs(const struct parse *p, const struct strlist *scen, const struct strlist *ovr,
		   const struct strlist *ids, const char *prefix, const char *source,
		   struct run_set *out, struct tcpsim_err *err)
{
	if (check_count(scen, "--scenario", p->n, p->path, 1, err) ||
	    check_count(ovr, "--overrides", p->n, p->path, 1, err) ||
	    check_count(ids, "--id", p->n, p->path, p->n == 1, err))
		return TCPSIM_EUSAGE;
	for (int i = 0; i < p->n; i++) {
		const struct nrow *r = &p->rows[i];
		char id[256], note[512];
		if (ids->n)
			snprintf(id, sizeof(id), "%s", ids->v[i]);
		else
			snprintf(id, sizeof(id), "%s%d", prefix, i + 1);
		snprintf(note, sizeof(note),
			 "%s%snetperf %s:%d: sockets recv %.0f send %.0f bytes, message %.0f bytes, "
			 "%.2f s",
			 r->label ? r->label : "", r->label ? "; " : "", p->path, r->line, r->f[0],
			 r->f[1], r->f[2], r->f[3]);
		struct recorded_run *run =
			runs_add(out, id, source, pick(scen, i), pick(ovr, i), note, err);
		if (!run)
			return err->code;
		double mbps = r->f[4] * r->unit_bps / 1e6;
		run->v[METRIC_THROUGHPUT_MBPS] = mbps;
		run->v[METRIC_THROUGHPUT_TOTAL_MBPS] = mbps;
		if (r->nf == 9) {
			/* negative = netperf did not measure it */
			static const int map[4] = {METRIC_CPU_SEND_PCT, METRIC_CPU_RECV_PCT,
						   METRIC_SD_SEND_US_PER_KB, METRIC_SD_RECV_US_PER_KB};
			for (int k = 0; k < 4; k++)
				if (r->f[5 + k] >= 0)
					run->v[map[k]] = r->f[5 + k];
		}
	}
	return TCPSIM_OK;
}

static int usage(const char *msg)
{
	return tool_usage(PROG, usage_text, msg);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"source", required_argument, NULL, 's'},
		{"scenario", required_argument, NULL, 'c'},
		{"overrides", required_argument, NULL, 'v'},
		{"id", required_argument, NULL, 'i'},
		{"id-prefix", required_argument, NULL, 'p'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct strlist scen = {0}, ovr = {0}, ids = {0};
	const char *out = NULL, *source = NULL, *prefix = "netperf-";
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 's': source = optarg; break;
		case 'c': strlist_add(&scen, optarg); break;
		case 'v': strlist_add(&ovr, optarg); break;
		case 'i': strlist_add(&ids, optarg); break;
		case 'p': prefix = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default:
			return tool_bad_option(PROG, usage_text, argv);
		}
	}
	int status = 0;
	if (!out || !source || scen.n == 0 || optind != argc - 1) {
		status = usage(optind < argc - 1 ? "exactly one INPUT" :
			       !out ? "missing -o OUT.csv" :
			       !source ? "missing --source" :
			       scen.n == 0 ? "missing --scenario" : "missing INPUT");
		goto done;
	}
	const char *path = argv[optind];
	FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	if (!in) {
		fprintf(stderr, PROG ": cannot open '%s': %s\n", path, strerror(errno));
		status = 2;
		goto done;
	}
	struct tcpsim_err err;
	err_clear(&err);
	struct parse p = {.path = strcmp(path, "-") == 0 ? "<stdin>" : path};
	struct run_set rs;
	runs_init(&rs);
	int rc = parse_file(in, &p, &err);
	if (in != stdin)
		fclose(in);
	if (!rc)
		rc = to_runs(&p, &scen, &ovr, &ids, prefix, source, &rs, &err);
	if (!rc)
		rc = runs_append_file(out, &rs, &err);
	if (rc) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		status = rc == TCPSIM_EUSAGE ? 2 : 1;
	}
	for (int i = 0; i < p.n; i++)
		free(p.rows[i].label);
	free(p.rows);
	runs_free(&rs);
done:
	strlist_free(&scen);
	strlist_free(&ovr);
	strlist_free(&ids);
	return status;
}
