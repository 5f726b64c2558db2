/*
 * import-lkp: an LKP (Linux Kernel Performance, lkp-tests) comparison table
 * -> two recorded runs (model/study/runs.h), the base commit and the new one.
 *
 *   2a6c8c7998f95b1  0cf833aefaa85bbfce3ff7048
 *   ---------------  -------------------------
 *         1233 ~ 4%     +46.4%       1805 ~ 0%   netperf.Throughput_Mbps
 *           10 ~ 0%     -10.0%          9 ~ 0%   vmstat.procs.r
 *
 * Each data line is `value ~ stddev%  [%change]  value ~ stddev%  metric`:
 * the mean over LKP's repeated runs of the base commit, its standard
 * deviation as % of the mean, the change, and the same for the new commit.
 * %change may be absent (no significant change); "~ stddev%" may be absent
 * or written with '±' as newer lkp-tests do.  The header line of commit ids
 * and the dashes line are optional; blank lines are skipped; any other line
 * is an error naming file and line.
 *
 * Which metric is which: the LKP name of each metrics.h column is in
 * metric_table[].lkp_name, and lkp_total says whether LKP reports it as a
 * total over the run (interrupts.*, softirqs.*, proc-vmstat.*: the last
 * /proc snapshot minus the first) or as a mean of per-second samples
 * (vmstat.system.cs and .in) or a per-instance mean (netperf.Throughput_Mbps).
 * Totals are divided by --seconds (the run length; LKP's netperf job runs
 * `-l 300`, the default) to give our per-second columns; means are taken as
 * they are.  stddev% becomes <metric>_cv as a fraction (a scale-free figure,
 * unchanged by the division).  Metrics without a column of ours
 * (slabinfo.*, numa_hit, vmstat.procs.r, ...) are listed on stderr as
 * skipped, which is not an error.  A %change that disagrees with the two
 * values by more than a point is warned about (a sign of a misread line).
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

#define PROG "import-lkp"

static const char usage_text[] =
	"usage: " PROG " -o OUT.csv --source TEXT --base-scenario CFG --new-scenario CFG\n"
	"       [--base-overrides 'sec.key=v;...'] [--new-overrides ...]\n"
	"       [--base-id ID] [--new-id ID] [--seconds S] INPUT\n"
	"  Appends two recorded runs (base and new side of an LKP comparison table in\n"
	"  INPUT, '-' = stdin) to OUT.csv (created if missing).  LKP totals are divided\n"
	"  by S seconds (default 300); ids default to lkp-<commit> from the header line,\n"
	"  or lkp-base / lkp-new.\n";

struct lkp_side {
	double value;
	double stddev_pct; /* NAN if not given */
};

struct lkp_line {
	struct lkp_side side[2];
	double change_pct; /* NAN if absent */
	char metric[128];
};

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* A plain decimal number (no inf/nan/hex); returns the end or NULL. */
static const char *scan_number(const char *p, double *out)
{
	const char *q = p;
	if (*q == '+' || *q == '-')
		q++;
	if (!isdigit((unsigned char)*q) && !(*q == '.' && isdigit((unsigned char)q[1])))
		return NULL;
	char *end;
	errno = 0;
	double v = strtod(p, &end);
	if (end == p || errno == ERANGE || !isfinite(v))
		return NULL;
	*out = v;
	return end;
}

/* "~ 4%", "~17%", "± 4%" or nothing. */
static const char *scan_stddev(const char *p, double *sd, const char **why)
{
	*sd = NAN;
	p = skip_ws(p);
	if (*p == '~')
		p++;
	else if (strncmp(p, "\xc2\xb1", 2) == 0) /* U+00B1 PLUS-MINUS SIGN in UTF-8 */
		p += 2;
	else
		return p;
	const char *q = scan_number(skip_ws(p), sd);
	if (!q || *q != '%') {
		*why = "'~' must be followed by a standard deviation like '4%'";
		return NULL;
	}
	if (*sd < 0) {
		*why = "negative standard deviation";
		return NULL;
	}
	return q + 1;
}

/* Parse one data line; on failure *why says what was wrong. */
static int parse_data(const char *s, struct lkp_line *l, const char **why)
{
	const char *p = scan_number(skip_ws(s), &l->side[0].value);
	if (!p) {
		*why = "expected the base value";
		return -1;
	}
	if (!(p = scan_stddev(p, &l->side[0].stddev_pct, why)))
		return -1;
	double x;
	const char *q = scan_number(skip_ws(p), &x);
	if (!q) {
		*why = "truncated: expected %change or the new value";
		return -1;
	}
	l->change_pct = NAN;
	if (*q == '%') {
		l->change_pct = x;
		q = scan_number(skip_ws(q + 1), &l->side[1].value);
		if (!q) {
			*why = "truncated: expected the new value after %change";
			return -1;
		}
	} else {
		l->side[1].value = x;
	}
	if (*q && *q != ' ' && *q != '\t' && *q != '~') {
		*why = "a value runs into other text";
		return -1;
	}
	if (!(p = scan_stddev(q, &l->side[1].stddev_pct, why)))
		return -1;
	p = skip_ws(p);
	size_t n = strcspn(p, " \t\r\n");
	if (n == 0) {
		*why = "truncated: no metric name";
		return -1;
	}
	if (n >= sizeof(l->metric)) {
		*why = "metric name too long";
		return -1;
	}
	if (isdigit((unsigned char)*p) || *p == '+' || *p == '-') {
		*why = "extra number where the metric name should be";
		return -1;
	}
	memcpy(l->metric, p, n);
	l->metric[n] = '\0';
	if (*skip_ws(p + n) && *skip_ws(p + n) != '\r' && *skip_ws(p + n) != '\n') {
		*why = "text after the metric name";
		return -1;
	}
	return 0;
}

static int is_hex_word(const char *s, size_t n)
{
	if (n < 7)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* "commit commit": two abbreviated commit ids. */
static int parse_header(const char *s, char ids[2][64])
{
	const char *p = skip_ws(s);
	for (int k = 0; k < 2; k++) {
		size_t n = strcspn(p, " \t\r\n");
		if (!is_hex_word(p, n) || n >= 64)
			return -1;
		memcpy(ids[k], p, n);
		ids[k][n] = '\0';
		p = skip_ws(p + n);
	}
	return *p && *p != '\r' && *p != '\n' ? -1 : 0;
}

static int is_dashes(const char *s)
{
	int dash = 0;
	for (; *s; s++) {
		if (*s == '-')
			dash = 1;
		else if (!isspace((unsigned char)*s))
			return 0;
	}
	return dash;
}

static int is_blank(const char *s)
{
	for (; *s; s++)
		if (!isspace((unsigned char)*s))
			return 0;
	return 1;
}

struct opts {
	const char *out, *source, *scenario[2], *overrides[2], *id[2];
	double seconds;
};

static int import(FILE *in, const char *path, const struct opts *o, struct run_set *rs,
		  struct tcpsim_err *err)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int line = 0, data = 0, header_seen = 0;
	char commits[2][64] = {"", ""};
	int metric_line[METRIC_N] = {0};
	double v[2][METRIC_N], cv[2][METRIC_N];
	for (int k = 0; k < 2; k++)
		for (int m = 0; m < METRIC_N; m++)
			v[k][m] = cv[k][m] = NAN;
	int rc = TCPSIM_OK;

	while (!rc && (len = getline(&buf, &cap, in)) >= 0) {
		line++;
		if ((size_t)len != strlen(buf)) {
			rc = err_set(err, TCPSIM_EUSAGE, "%s:%d: NUL byte in a text file", path, line);
			break;
		}
		if (is_blank(buf))
			continue;
		if (is_dashes(buf))
			continue;
		if (!data && !header_seen && parse_header(buf, commits) == 0) {
			header_seen = 1;
			continue;
		}
		struct lkp_line l;
		const char *why = NULL;
		const char *p = skip_ws(buf);
		if (!isdigit((unsigned char)*p) && *p != '+' && *p != '-' && *p != '.') {
			buf[strcspn(buf, "\r\n")] = '\0';
			rc = err_set(err, TCPSIM_EUSAGE,
				     "%s:%d: not an LKP comparison line "
				     "('value ~ sd%%  [change%%]  value ~ sd%%  metric'): '%.60s'",
				     path, line, p);
			break;
		}
		if (parse_data(buf, &l, &why)) {
			rc = err_set(err, TCPSIM_EUSAGE, "%s:%d: %s", path, line, why);
			break;
		}
		data++;
		if (!isnan(l.change_pct) && l.side[0].value != 0) {
			double got = (l.side[1].value - l.side[0].value) / l.side[0].value * 100;
			if (fabs(got - l.change_pct) > 1.0)
				fprintf(stderr,
					PROG ": %s:%d: warning: %s: %%change %+.1f%% but the values "
					"give %+.1f%%\n",
					path, line, l.metric, l.change_pct, got);
		}
		int m = -1;
		for (int i = 0; i < METRIC_N; i++)
			if (metric_table[i].lkp_name &&
			    strcmp(metric_table[i].lkp_name, l.metric) == 0)
				m = i;
		if (m < 0) {
			fprintf(stderr, PROG ": %s:%d: skipped '%s' (no tcpsim metric)\n", path, line,
				l.metric);
			continue;
		}
		if (metric_line[m]) {
			rc = err_set(err, TCPSIM_EUSAGE, "%s:%d: '%s' appears twice (also line %d)",
				     path, line, l.metric, metric_line[m]);
			break;
		}
		metric_line[m] = line;
		for (int k = 0; k < 2; k++) {
			if (l.side[k].value < 0) {
				rc = err_set(err, TCPSIM_EUSAGE, "%s:%d: %s: negative %s value", path,
					     line, l.metric, k ? "new" : "base");
				break;
			}
			/* a total over the run -> per second; a mean stays as it is */
			v[k][m] = metric_table[m].lkp_total ? l.side[k].value / o->seconds
							    : l.side[k].value;
			if (!isnan(l.side[k].stddev_pct))
				cv[k][m] = l.side[k].stddev_pct / 100.0;
		}
	}
	if (!rc && ferror(in))
		rc = err_set(err, TCPSIM_EUSAGE, "%s: read error: %s", path, strerror(errno));
	if (!rc && line == 0)
		rc = err_set(err, TCPSIM_EUSAGE, "%s:1: empty file (no LKP comparison table)", path);
	if (!rc && data == 0)
		rc = err_set(err, TCPSIM_EUSAGE, "%s:%d: no LKP comparison lines", path, line);
	free(buf);
	if (rc)
		return rc;

	static const char *const side_name[2] = {"base", "new"};
	for (int k = 0; k < 2; k++) {
		char id[256], note[768];
		if (o->id[k])
			snprintf(id, sizeof(id), "%s", o->id[k]);
		else if (commits[k][0])
			snprintf(id, sizeof(id), "lkp-%s", commits[k]);
		else
			snprintf(id, sizeof(id), "lkp-%s", side_name[k]);
		snprintf(note, sizeof(note),
			 "LKP %s side%s%s, %s; LKP totals divided by %g s; throughput is per "
			 "netperf instance",
			 side_name[k], commits[k][0] ? ", commit " : "", commits[k], path,
			 o->seconds);
		struct recorded_run *r = runs_add(rs, id, o->source, o->scenario[k],
						  o->overrides[k], note, err);
		if (!r)
			return err->code;
		memcpy(r->v, v[k], sizeof(r->v));
		memcpy(r->cv, cv[k], sizeof(r->cv));
	}
	return TCPSIM_OK;
}

static int usage(const char *msg)
{
	return tool_usage(PROG, usage_text, msg);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"source", required_argument, NULL, 's'},
		{"base-scenario", required_argument, NULL, 'a'},
		{"new-scenario", required_argument, NULL, 'b'},
		{"base-overrides", required_argument, NULL, 'c'},
		{"new-overrides", required_argument, NULL, 'd'},
		{"base-id", required_argument, NULL, 'e'},
		{"new-id", required_argument, NULL, 'f'},
		{"seconds", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct opts o = {.seconds = 300};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'o': o.out = optarg; break;
		case 's': o.source = optarg; break;
		case 'a': o.scenario[0] = optarg; break;
		case 'b': o.scenario[1] = optarg; break;
		case 'c': o.overrides[0] = optarg; break;
		case 'd': o.overrides[1] = optarg; break;
		case 'e': o.id[0] = optarg; break;
		case 'f': o.id[1] = optarg; break;
		case 'S': {
			char *end;
			errno = 0;
			o.seconds = strtod(optarg, &end);
			if (end == optarg || *end || errno || !isfinite(o.seconds) || o.seconds <= 0) {
				char m[160];
				snprintf(m, sizeof(m), "--seconds '%.80s': not a positive number", optarg);
				return usage(m);
			}
			break;
		}
		case 'h': fputs(usage_text, stdout); return 0;
		default:
			return tool_bad_option(PROG, usage_text, argv);
		}
	}
	if (!o.out)
		return usage("missing -o OUT.csv");
	if (!o.source)
		return usage("missing --source");
	if (!o.scenario[0] || !o.scenario[1])
		return usage("missing --base-scenario or --new-scenario");
	if (optind != argc - 1)
		return usage(optind < argc ? "exactly one INPUT" : "missing INPUT");
	const char *path = argv[optind];
	int is_stdin = strcmp(path, "-") == 0;
	FILE *in = is_stdin ? stdin : fopen(path, "r");
	if (!in) {
		fprintf(stderr, PROG ": cannot open '%s': %s\n", path, strerror(errno));
		return 2;
	}
	struct tcpsim_err err;
	err_clear(&err);
	struct run_set rs;
	runs_init(&rs);
	int rc = import(in, is_stdin ? "<stdin>" : path, &o, &rs, &err);
	if (!is_stdin)
		fclose(in);
	if (!rc)
		rc = runs_append_file(o.out, &rs, &err);
	runs_free(&rs);
	if (rc) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return rc == TCPSIM_EUSAGE ? 2 : 1;
	}
	return 0;
}
