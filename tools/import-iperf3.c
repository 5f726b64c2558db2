/*
 * import-iperf3: the JSON an iperf3 TCP test prints with --json -> one
 * recorded run (model/study/runs.h).  The JSON is read with jansson.
 *
 * Fields used (iperf3's JSON schema, as iperf 3.x prints it at the end of a
 * test):
 *   end.sum_received.bits_per_second  -> throughput_total_mbps (/ 1e6), and
 *                                        / start.test_start.num_streams ->
 *                                        throughput_mbps (mean per stream,
 *                                        as LKP's per-instance mean)
 *   end.sum_sent.bits_per_second      -> the note only (the sender's count
 *                                        includes bytes still in flight)
 *   end.cpu_utilization_percent.host_total / remote_total
 *                                     -> cpu_send_pct / cpu_recv_pct, by side
 *   retransmits                       -> ignored
 *
 * Which side is which: "host" is the iperf3 process that printed the JSON
 * and "remote" its peer.  The client is the sender unless the test ran
 * with -R (start.test_start.reverse = 1).  The JSON of a client has
 * start.connecting_to, a server's has start.accepted_connection.  So the
 * host is the sender when (client and not reverse) or (server and reverse).
 *
 * Caveat, for whoever compares these with netperf's: iperf3's CPU figures
 * are the iperf3 process's own user+system time (getrusage(RUSAGE_SELF))
 * over wall time, in % of one CPU (iperf's src/iperf_util.c cpu_util()),
 * not a whole-host utilisation: softirq work done on other CPUs is not in
 * them.
 *
 * Errors: invalid JSON names file, line and column (jansson's json_error_t);
 * a missing or mistyped field names the file and the field's path; a JSON
 * with an "error" member (iperf3's report of a failed test) is refused.
 *
 * Exit status: 0 done, 1 the output could not be written, 2 bad input or usage.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "metrics.h"
#include "jsonpath.h"
#include "runs.h"
#include "util.h"

#include "toolopt.h"

#define PROG "import-iperf3"

static const char usage_text[] =
	"usage: " PROG " -o OUT.csv --source TEXT --scenario CFG [--overrides 'sec.key=v;...']\n"
	"       [--id ID] INPUT.json\n"
	"  Appends one recorded run made from iperf3 --json output to OUT.csv (created if\n"
	"  missing).  The id defaults to the file name without .json, prefixed with\n"
	"  'iperf3-' unless it starts with 'iperf3'.\n";

/* An optional integer field with a default. */
static int get_int_opt(json_t *root, const char *file, const char *path, long long dflt,
		       long long *out, struct tcpsim_err *err)
{
	json_t *j = jsonpath_get(root, path);
	*out = dflt;
	if (!j)
		return TCPSIM_OK;
	if (!json_is_integer(j))
		return err_set(err, TCPSIM_EUSAGE, "%s: field '%s' is not an integer", file, path);
	*out = json_integer_value(j);
	return TCPSIM_OK;
}

struct opts {
	const char *out, *source, *scenario, *overrides, *id;
};

static int import(const char *path, const struct opts *o, struct run_set *rs,
		  struct tcpsim_err *err)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return err_set(err, TCPSIM_EUSAGE, "cannot open '%s': %s", path, strerror(errno));
	json_error_t jerr;
	json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	fclose(f);
	if (!root)
		return err_set(err, TCPSIM_EUSAGE, "%s:%d:%d: invalid JSON: %s", path, jerr.line,
			       jerr.column, jerr.text);
	int rc = TCPSIM_OK;
	double recv_bps = 0, cpu_host = 0, cpu_remote = 0;
	long long reverse = 0, streams = 1;
	json_t *e = json_object_get(root, "error");
	json_t *proto = jsonpath_get(root, "start.test_start.protocol");
	if (!json_is_object(root))
		rc = err_set(err, TCPSIM_EUSAGE, "%s: not iperf3 JSON (the top level is not an object)",
			     path);
	else if (e)
		rc = err_set(err, TCPSIM_EUSAGE, "%s: iperf3 reported an error: %s", path,
			     json_is_string(e) ? json_string_value(e) : "(not a string)");
	else if (proto && (!json_is_string(proto) || strcmp(json_string_value(proto), "TCP") != 0))
		rc = err_set(err, TCPSIM_EUSAGE,
			     "%s: field 'start.test_start.protocol' is not \"TCP\" (only TCP tests "
			     "are recorded runs)",
			     path);
	if (!rc)
		rc = jsonpath_number(root, path, "end.sum_received.bits_per_second", &recv_bps, err);
	if (!rc)
		rc = jsonpath_number(root, path, "end.cpu_utilization_percent.host_total", &cpu_host, err);
	if (!rc)
		rc = jsonpath_number(root, path, "end.cpu_utilization_percent.remote_total", &cpu_remote,
				err);
	if (!rc)
		rc = get_int_opt(root, path, "start.test_start.reverse", 0, &reverse, err);
	if (!rc)
		rc = get_int_opt(root, path, "start.test_start.num_streams", 1, &streams, err);
	if (!rc && streams < 1)
		rc = err_set(err, TCPSIM_EUSAGE,
			     "%s: field 'start.test_start.num_streams': %lld is not positive", path,
			     streams);
	int is_client = jsonpath_get(root, "start.connecting_to") != NULL;
	int is_server = jsonpath_get(root, "start.accepted_connection") != NULL;
	if (!rc && is_client == is_server)
		rc = err_set(err, TCPSIM_EUSAGE,
			     "%s: cannot tell client from server output (need exactly one of "
			     "'start.connecting_to' and 'start.accepted_connection')",
			     path);
	double sent_bps = NAN;
	json_t *sj = jsonpath_get(root, "end.sum_sent.bits_per_second");
	if (!rc && sj) {
		if (!json_is_number(sj))
			rc = err_set(err, TCPSIM_EUSAGE,
				     "%s: field 'end.sum_sent.bits_per_second' is not a number", path);
		else
			sent_bps = json_number_value(sj);
	}
	if (rc) {
		json_decref(root);
		return rc;
	}
	int host_sends = is_client ? !reverse : !!reverse;

	char id[256], note[512];
	if (o->id) {
		snprintf(id, sizeof(id), "%s", o->id);
	} else {
		const char *base = strrchr(path, '/');
		base = base ? base + 1 : path;
		size_t n = strlen(base);
		if (n > 5 && strcmp(base + n - 5, ".json") == 0)
			n -= 5;
		int has_prefix = strncmp(base, "iperf3", 6) == 0;
		snprintf(id, sizeof(id), "%s%.*s", has_prefix ? "" : "iperf3-", (int)n, base);
	}
	char sent[64] = "not given";
	if (!isnan(sent_bps))
		snprintf(sent, sizeof(sent), "%.6g Mbit/s", sent_bps / 1e6);
	snprintf(note, sizeof(note),
		 "iperf3 %s output%s, %lld stream%s, %s; sent %s; CPU is iperf3's process time",
		 is_client ? "client" : "server", reverse ? " (reverse)" : "", streams,
		 streams == 1 ? "" : "s", path, sent);
	struct recorded_run *r = runs_add(rs, id, o->source, o->scenario, o->overrides, note, err);
	if (r) {
		double total_mbps = recv_bps / 1e6;
		r->v[METRIC_THROUGHPUT_TOTAL_MBPS] = total_mbps;
		r->v[METRIC_THROUGHPUT_MBPS] = total_mbps / (double)streams;
		r->v[METRIC_CPU_SEND_PCT] = host_sends ? cpu_host : cpu_remote;
		r->v[METRIC_CPU_RECV_PCT] = host_sends ? cpu_remote : cpu_host;
	}
	json_decref(root);
	return r ? TCPSIM_OK : err->code;
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
		{"scenario", required_argument, NULL, 'c'},
		{"overrides", required_argument, NULL, 'v'},
		{"id", required_argument, NULL, 'i'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct opts o = {0};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'o': o.out = optarg; break;
		case 's': o.source = optarg; break;
		case 'c': o.scenario = optarg; break;
		case 'v': o.overrides = optarg; break;
		case 'i': o.id = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default:
			return tool_bad_option(PROG, usage_text, argv);
		}
	}
	if (!o.out)
		return usage("missing -o OUT.csv");
	if (!o.source)
		return usage("missing --source");
	if (!o.scenario)
		return usage("missing --scenario");
	if (optind != argc - 1)
		return usage(optind < argc ? "exactly one INPUT.json" : "missing INPUT.json");
	struct tcpsim_err err;
	err_clear(&err);
	struct run_set rs;
	runs_init(&rs);
	int rc = import(argv[optind], &o, &rs, &err);
	if (!rc)
		rc = runs_append_file(o.out, &rs, &err);
	runs_free(&rs);
	if (rc) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return rc == TCPSIM_EUSAGE ? 2 : 1;
	}
	return 0;
}
