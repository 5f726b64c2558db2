/*
 * cmd_run, cmd_compare: load scenarios, run the library, print a report.
 *
 * Order of work: parse every argument (bad ones exit 2 before anything
 * runs), load each scenario (defaults, the .cfg file, -s overrides in the
 * order given, cross-key validation), check the output (not an input, and
 * writable: outfile_probe), simulate, format the whole report in memory,
 * and only then write it through outfile.h: stdout, a device or a FIFO get
 * it straight, a file is replaced whole by rename.  So the output is whole
 * or absent, and a failure prints one line on stderr and exits 3.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "calib.h"
#include "cli.h"
#include "config.h"
#include "err.h"
#include "metrics.h"
#include "outfile.h"
#include "report.h"
#include "sweep.h"
#include "tcpsim.h"
#include "util.h"

enum out_format { FMT_TABLE, FMT_CSV, FMT_JSON };

static const char *const format_names[] = {
	[FMT_TABLE] = "table",
	[FMT_CSV] = "csv",
	[FMT_JSON] = "json",
};

/* What the command line asked for.  ov[i] are the -s overrides of cfg[i]. */
struct cli_args {
	const char *cmd;
	int max_cfg;            /* 1 for run, 2 for compare */
	const char *cfg[2];
	int ncfg;
	const char **ov[2];
	int nov[2];
	enum out_format fmt;
	const char *out;        /* NULL or "-": stdout */
	const char *folded;     /* run --folded FILE: folded stacks, or NULL */
	int folded_cpus;        /* run --folded-cpus: a frame per CPU in them */
	const char *timeline;   /* run --timeline FILE: the start, step by step, or NULL */
	int timeline_ms;        /* --timeline-ms (default 10) */
	int timeline_step_us;   /* --timeline-step (default 100) */
	const char *charges;    /* run --charges FILE: each CPU step's charges over a window, or NULL */
	const char *charges_at; /* --charges-at T: the window's start (default 0) */
	int charges_us;         /* --charges-us (default 100) */
	const char *states;     /* run --states T: the run again, its receivers T late, or NULL */
	int reps;               /* compare: runs (seeds) per side */
	int jobs;               /* compare: threads for the runs */
	int help;
};

static int usage_error(const char *fmt, const char *arg)
{
	fputs("tcpsim: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return 2;
}

/* Print a library error as one line. */
static void print_err(const struct tcpsim_err *err)
{
	char msg[sizeof(err->msg)];
	snprintf(msg, sizeof(msg), "%s", err->msg[0] ? err->msg : "unknown error");
	for (char *p = msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	fprintf(stderr, "tcpsim: %s\n", msg);
}

static int parse_format(const char *s, enum out_format *fmt)
{
	for (size_t i = 0; i < ARRAY_SIZE(format_names); i++) {
		if (strcmp(s, format_names[i]) == 0) {
			*fmt = (enum out_format)i;
			return 0;
		}
	}
	return usage_error("--format: unknown format '%s' (table, csv or json)", s);
}

/* A whole number 1..max.  0, or -1. */
static int parse_count(const char *s, int max, int *v)
{
	long n;
	if (!parse_long_in(s, 1, max, &n))
		return -1;
	*v = (int)n;
	return 0;
}

static void add_override(struct cli_args *o, int side, const char *assignment)
{
	o->ov[side][o->nov[side]++] = assignment;
}

/* Returns 0, or 2 after printing the error. */
static int parse_args(int argc, char **argv, struct cli_args *o)
{
	int only_files = 0;

	for (int s = 0; s < 2; s++) {
		o->ov[s] = xcalloc((size_t)argc + 1, sizeof(char *));
		o->nov[s] = 0;
	}
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *val = NULL;
		int r;

		if (!only_files && a[0] == '-' && a[1] != '\0') {
			if (strcmp(a, "--") == 0) {
				only_files = 1;
				continue;
			}
			if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
				o->help = 1;
				continue;
			}
			if (strcmp(a, "--folded-cpus") == 0) {
				if (o->max_cfg != 1)
					return usage_error("--folded-cpus: only '%s' writes folded stacks", "tcpsim run");
				o->folded_cpus = 1;
				continue;
			}
			if ((r = cli_option_value(argc, argv, &i, "-s", "--set", &val)) != 0) {
				if (r < 0)
					return usage_error("option '%s' needs an argument (section.key=value)", a);
				if (o->max_cfg == 1)
					add_override(o, 0, val);
				else if (o->ncfg == 0)
					return usage_error("-s %s: comes before any .cfg file; each -s applies to the file named before it", val);
				else
					add_override(o, o->ncfg - 1, val);
				continue;
			}
			if ((r = cli_option_value(argc, argv, &i, NULL, "--format", &val)) != 0) {
				if (r < 0)
					return usage_error("option '%s' needs an argument (table, csv or json)", a);
				if (parse_format(val, &o->fmt))
					return 2;
				continue;
			}
			if ((r = cli_option_value(argc, argv, &i, "-o", "--output", &val)) != 0) {
				if (r < 0)
					return usage_error("option '%s' needs an argument (output file)", a);
				o->out = val;
				continue;
			}
			if ((r = cli_option_value(argc, argv, &i, NULL, "--folded", &val)) != 0) {
				if (r < 0)
					return usage_error("option '%s' needs an argument (folded stacks file)", a);
				if (o->max_cfg != 1)
					return usage_error("--folded: only '%s' writes folded stacks", "tcpsim run");
				o->folded = val;
				continue;
			}
			if ((r = cli_option_value(argc, argv, &i, NULL, "--timeline", &val)) != 0) {
				if (r < 0)
					return usage_error("option '%s' needs an argument (timeline CSV file)", a);
				if (o->max_cfg != 1)
					return usage_error("--timeline: only '%s' records a timeline", "tcpsim run");
				o->timeline = val;
				continue;
			}
			if ((r = cli_option_value(argc, argv, &i, NULL, "--charges", &val)) != 0) {
				if (r < 0)
					return usage_error("option '%s' needs an argument (charge log CSV file)", a);
				if (o->max_cfg != 1)
					return usage_error("--charges: only '%s' logs charges", "tcpsim run");
				o->charges = val;
				continue;
			}
			if ((r = cli_option_value(argc, argv, &i, NULL, "--charges-at", &val)) != 0) {
				if (r < 0)
					return usage_error("option '%s' needs an argument (a time, e.g. 300ms)", a);
				if (o->max_cfg != 1)
					return usage_error("--charges-at: only '%s' logs charges", "tcpsim run");
				o->charges_at = val;
				continue;
			}
			if ((r = cli_option_value(argc, argv, &i, NULL, "--charges-us", &val)) != 0) {
				if (r < 0)
					return usage_error("option '%s' needs an argument (microseconds)", a);
				if (o->max_cfg != 1 || parse_count(val, 10000, &o->charges_us))
					return usage_error("--charges-us %s: expected a whole number of us from 1 to 10000", val);
				continue;
			}
			if ((r = cli_option_value(argc, argv, &i, NULL, "--states", &val)) != 0) {
				if (r < 0)
					return usage_error("option '%s' needs an argument (a time, e.g. 2ms)", a);
				if (o->max_cfg != 1)
					return usage_error("--states: only '%s' runs a scenario twice", "tcpsim run");
				o->states = val;
				continue;
			}
			if ((r = cli_option_value(argc, argv, &i, NULL, "--timeline-ms", &val)) != 0) {
				if (r < 0)
					return usage_error("option '%s' needs an argument (milliseconds)", a);
				if (o->max_cfg != 1 || parse_count(val, 1000, &o->timeline_ms))
					return usage_error("--timeline-ms %s: expected a whole number of ms from 1 to 1000", val);
				continue;
			}
			if ((r = cli_option_value(argc, argv, &i, NULL, "--timeline-step", &val)) != 0) {
				if (r < 0)
					return usage_error("option '%s' needs an argument (microseconds)", a);
				if (o->max_cfg != 1 || parse_count(val, 1000000, &o->timeline_step_us))
					return usage_error("--timeline-step %s: expected a whole number of us from 1 to 1000000", val);
				continue;
			}
			if ((r = cli_option_value(argc, argv, &i, NULL, "--reps", &val)) != 0) {
				if (r < 0)
					return usage_error("option '%s' needs an argument (runs per side)", a);
				if (parse_count(val, 1000, &o->reps))
					return usage_error("--reps %s: expected a whole number from 1 to 1000", val);
				continue;
			}
			if ((r = cli_option_value(argc, argv, &i, "-j", "--jobs", &val)) != 0) {
				if (r < 0)
					return usage_error("option '%s' needs an argument (threads)", a);
				if (parse_count(val, 4096, &o->jobs))
					return usage_error("-j %s: expected a whole number from 1 to 4096", val);
				continue;
			}
			return usage_error("unknown option '%s' (see tcpsim --help)", a);
		}
		if (o->ncfg == o->max_cfg) {
			fprintf(stderr, "tcpsim: %s: unexpected argument '%s' (takes %s)\n", o->cmd, a,
				o->max_cfg == 1 ? "one .cfg file" : "two .cfg files");
			return 2;
		}
		o->cfg[o->ncfg++] = a;
	}
	if (!o->help && o->ncfg < o->max_cfg) {
		fprintf(stderr, "tcpsim: %s: %s (see tcpsim %s --help)\n", o->cmd,
			o->max_cfg == 1 ? "missing scenario file" : "needs two scenario files", o->cmd);
		return 2;
	}
	return 0;
}

static void free_args(struct cli_args *o)
{
	free(o->ov[0]);
	free(o->ov[1]);
}

/* Defaults, the file, the overrides in order, validation.  0, or 2 after printing. */
static int load_scenario(struct scenario *sc, const char *path, const char *const *ov, int nov)
{
	struct tcpsim_err err = {0};

	if (config_load_with_overrides(sc, path, ov, nov, &err)) {
		print_err(&err);
		return 2;
	}
	return 0;
}

/* ---- output: whole or not at all (outfile.h) ------------------------------ */

/* Before any work: -o OUT is none of the inputs, and can be written.
 * 0, or the exit status after printing. */
static int output_check(const char *path, const char *const *inputs, int n)
{
	struct tcpsim_err err = {0};

	if (!path)
		return 0;
	if (outfile_check_inputs(path, inputs, n, &err) == TCPSIM_OK)
		outfile_probe(path, NULL, &err);
	if (!err.code)
		return 0;
	print_err(&err);
	return cli_exit_status(err.code);
}

/* Write buf whole to path (NULL or "-": stdout).  0, or 3 after printing. */
static int output_commit(const char *path, const char *buf, size_t len)
{
	struct tcpsim_err err = {0};

	if (outfile_write_whole(path ? path : "-", NULL, buf, len, &err) == TCPSIM_OK)
		return 0;
	print_err(&err);
	return cli_exit_status(err.code);
}

/* Close the memory stream; 0 with *buf owned by the caller, or 1. */
static int memstream_done(FILE *ms, int report_rc, char **buf)
{
	if (fclose(ms) != 0 || report_rc != 0) {
		fprintf(stderr, "tcpsim: cannot format the report: %s\n", strerror(errno));
		free(*buf);
		*buf = NULL;
		return 1;
	}
	return 0;
}

/* A side file of run (--folded, --timeline, --charges): side_begin opens
 * a memory stream, the report is formatted into s->f, and side_end
 * commits it whole to path (or nothing, if the report or the write
 * failed); 0, or the exit status. */
struct side_file {
	FILE *f;
	char *buf;
	size_t len;
};

static int side_begin(struct side_file *s)
{
	s->buf = NULL;
	s->len = 0;
	s->f = cli_memstream(&s->buf, &s->len);
	return s->f ? 0 : 1;
}

static int side_end(struct side_file *s, const char *path, int report_rc)
{
	int rc = memstream_done(s->f, report_rc, &s->buf);

	if (rc == 0)
		rc = output_commit(path, s->buf, s->len);
	free(s->buf);
	s->buf = NULL;
	return rc;
}

/* ---- run ------------------------------------------------------------------ */

/* --charges: rows kept at most (some 40 MB); a window that holds more is
 * cut at a step, and the command says where */
#define CHARGES_MAX_ROWS 1000000

static void run_usage(FILE *f)
{
	fputs("usage: tcpsim run FILE.cfg [-s section.key=value]... [--reps N [-j N]] [--format table|csv|json] [-o OUT]\n"
	      "                [--folded FILE [--folded-cpus]] [--timeline FILE [--timeline-ms MS] [--timeline-step US]]\n"
	      "                [--charges FILE [--charges-at T] [--charges-us US]] [--states T]\n"
	      "  -s, --set K=V   override one key after FILE.cfg is read (repeatable, in order)\n"
	      "  --reps N        N runs, seeds sweep_seed(run.seed, 0, rep): the distribution of the\n"
	      "                  figures and of the steady state (Regime) each run settled in; the\n"
	      "                  table shows the run of median throughput in full; csv has a row per run\n"
	      "  -j N            threads for --reps (default: every online CPU)\n"
	      "  --format F      table (netperf/LKP style, default), csv (header + one row) or json\n"
	      "  -o, --output F  write to F (whole or not at all) instead of standard output\n"
	      "  --folded F      also write the CPU time as folded stacks to F (whole or not at all):\n"
	      "                  'role:host;context;category;cost_key cycles' lines for flamegraph.pl\n"
	      "                  or speedscope; categories are Cai et al.'s (docs/output.md); not with --reps\n"
	      "  --folded-cpus   each CPU a frame of its own in them, after its host's: 'role:host;cpuN;...'\n"
	      "                  (a pinned writer's and reader's CPUs apart, as perf profiles them)\n"
	      "  --timeline F    also write the first connection's start to F as CSV (whole or not at all):\n"
	      "                  per --timeline-step US (default 100) for --timeline-ms MS (default 10)\n"
	      "                  from its first data, the data skbs, kB and ACKs its sockets took and the\n"
	      "                  sender's cwnd, ssthresh, srtt, snd_wnd, the receiver's rcv_wnd and rcvbuf,\n"
	      "                  the writer's and reader's calls, the reader's sleeps and wakeups and the\n"
	      "                  IPIs to its CPU (the columns of tools/wakeups-live --startup on a live\n"
	      "                  machine); not with --reps\n"
	      "  --charges F     also write each CPU step's charges to F as CSV (whole or not at all):\n"
	      "                  for the steps that begin in --charges-us US (default 100, at most 10000)\n"
	      "                  from --charges-at T (default 0; e.g. 300ms, past the warm-up the Run\n"
	      "                  line reports), one row per step, context and cost: the step's start\n"
	      "                  (t_us), host, cpu, context, cost (its [cost] key), cycles and the step's\n"
	      "                  whole length (step_us) -- the model's perf script; not with --reps\n"
	      "  --states T      run it again with the receivers starting T after the senders\n"
	      "                  (app.recv_start; e.g. 2ms) and say whether the two settle in one steady\n"
	      "                  state or two (a reader that starts behind its data stays behind where\n"
	      "                  that state holds itself up); table format only, not with --reps\n", f);
}

/* --states: two runs of one scenario, from a start together and from its
 * receivers starting late; one steady state or two (metrics.h,
 * steady_states_apart).  Each run's busiest CPU, per host on a two-host
 * path. */
static void states_line(FILE *f, const char *what, const struct scenario *sc, const struct metrics *m)
{
	int hosts = sc->link_type == LINK_NIC ? 2 : 1;
	fprintf(f, "  %-12s %12.2f Mbit/s  the senders window-limited %5.1f%% of their busy time", what,
		m->v[METRIC_THROUGHPUT_MBPS], m->v[METRIC_SND_RWND_LIMITED_PCT]);
	for (int h = 0; h < hosts; h++) {
		int busiest = 0;
		for (int c = 1; c < sc->host[h].cpus && c < SCENARIO_MAX_CPUS; c++)
			if (m->cpu_busy_pct[h][c] > m->cpu_busy_pct[h][busiest])
				busiest = c;
		fprintf(f, "  %sbusiest CPU %d at %.1f%%", hosts > 1 ? (h ? "receiver's " : "sender's ") : "", busiest,
			m->cpu_busy_pct[h][busiest]);
	}
	fputc('\n', f);
}

static int report_states(FILE *f, const char *late_text, const struct scenario *sc, const struct metrics *m,
			 const struct scenario *lsc, const struct metrics *lm)
{
	bool two = steady_states_apart(m->v, lm->v);

	fprintf(f, "\nSteady states (--states %s: the run again with its receivers starting %s after its senders, "
		   "app.recv_start)\n", late_text, late_text);
	states_line(f, "as given", sc, m);
	states_line(f, "late start", lsc, lm);
	if (two)
		fputs("Two steady states: which one a machine settles in depends on how its run starts (a reader that "
		      "starts\nbehind its data stays behind; docs/calibration.md, \"Two steady states\").\n", f);
	else
		fputs("One steady state: the late start returns to it.\n", f);
	return ferror(f) ? -1 : 0;
}

/* --reps N of one scenario: the distribution of throughput and of the
 * regime over the seeds, after the full report of the median run. */
static int reps_table(FILE *ms, const struct scenario *scs, const struct metrics *m, int n)
{
	int *order = xcalloc((size_t)n, sizeof(int));
	int counts[4] = {0, 0, 0, 0};
	static const char *const names[4] = {"reader-sleeps", "reader-behind", "mixed", "unknown"};
	int rc, kinds = 0;

	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int i = 1; i < n; i++) /* insertion sort by throughput: n <= 1000 */
		for (int j = i; j > 0 && m[order[j]].v[METRIC_THROUGHPUT_MBPS] < m[order[j - 1]].v[METRIC_THROUGHPUT_MBPS];
		     j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	rc = report_table(ms, &scs[order[n / 2]], &m[order[n / 2]]);
	fprintf(ms, "\nDistribution over %d runs (seeds sweep_seed(run.seed, 0, rep); the report above is the median run's)\n", n);
	fprintf(ms, "  %4s %20s %14s %16s %8s  %s\n", "rep", "seed", "Mbit/s", "regime", "wk/write", "bottleneck");
	for (int i = 0; i < n; i++) {
		double pw;
		const char *rg = regime_name(m[i].v, &pw);
		for (int k = 0; k < 4; k++)
			if (strcmp(rg, names[k]) == 0)
				counts[k]++;
		fprintf(ms, "  %4d %20llu %14.2f %16s %8.3f  %s\n", i, (unsigned long long)scs[i].seed,
			m[i].v[METRIC_THROUGHPUT_MBPS], rg, pw,
			m[i].bottleneck_text[0] ? m[i].bottleneck_text : bottleneck_kind_name(m[i].bottleneck));
	}
	fprintf(ms, "  throughput: min %.2f, median %.2f, max %.2f Mbit/s\n", m[order[0]].v[METRIC_THROUGHPUT_MBPS],
		m[order[n / 2]].v[METRIC_THROUGHPUT_MBPS], m[order[n - 1]].v[METRIC_THROUGHPUT_MBPS]);
	fputs("  regimes:", ms);
	for (int k = 0; k < 4; k++)
		if (counts[k]) {
			fprintf(ms, " %s %d", names[k], counts[k]);
			kinds += k < 2;
		}
	fputc('\n', ms);
	if (kinds > 1)
		fputs("  Two steady states: some runs settled with the readers waiting for data, others with data\n"
		      "  queued and the readers never waiting; read every figure with the regime it belongs to.\n", ms);
	free(order);
	return rc;
}

static int reps_csv(FILE *ms, const struct scenario *scs, const struct metrics *m, int n)
{
	static const char *const cols[] = {"rep", "seed", "regime"};
	if (report_csv_header(ms, cols, 3))
		return -1;
	for (int i = 0; i < n; i++) {
		char rep[16], seed[32];
		double pw;
		snprintf(rep, sizeof(rep), "%d", i);
		snprintf(seed, sizeof(seed), "%llu", (unsigned long long)scs[i].seed);
		const char *vals[3] = {rep, seed, regime_name(m[i].v, &pw)};
		if (report_csv_row(ms, vals, 3, &m[i]))
			return -1;
	}
	return 0;
}

static int reps_json(FILE *ms, const struct scenario *scs, const struct metrics *m, int n)
{
	fputs("[\n", ms);
	for (int i = 0; i < n; i++) {
		if (report_json(ms, &scs[i], &m[i]))
			return -1;
		fputs(i + 1 < n ? ",\n" : "\n", ms);
	}
	fputs("]\n", ms);
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct cli_args a = {.cmd = "run", .max_cfg = 1, .fmt = FMT_TABLE};
	struct timeline tl = {0};
	struct cpu_cycles cc = {0};
	struct chargelog cl = {0};
	struct side_file sf;
	struct scenario *sc = NULL;
	struct metrics *m = NULL;
	struct tcpsim_err err = {0};
	sim_ns late_ns = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *ms;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc || a.help) {
		if (a.help)
			run_usage(stdout);
		goto done;
	}
	sc = xcalloc(1, sizeof(*sc));
	m = xcalloc(1, sizeof(*m));
	if ((rc = output_check(a.out, a.cfg, a.ncfg)) != 0)
		goto done;
	if (a.folded) {
		if (a.reps > 1) {
			rc = usage_error("--folded: takes the stacks of one run, not of --reps %s", "N");
			goto done;
		}
		if (a.out && strcmp(a.out, a.folded) == 0 && strcmp(a.out, "-") != 0) {
			rc = usage_error("--folded '%s' is the -o file too; name two files", a.folded);
			goto done;
		}
		if ((rc = output_check(a.folded, a.cfg, a.ncfg)) != 0)
			goto done;
	} else if (a.folded_cpus) {
		rc = usage_error("--folded-cpus: only with --folded %s", "FILE");
		goto done;
	}
	if (a.timeline) {
		if (a.reps > 1) {
			rc = usage_error("--timeline: records the start of one run, not of --reps %s", "N");
			goto done;
		}
		if ((a.out && strcmp(a.out, a.timeline) == 0 && strcmp(a.out, "-") != 0) ||
		    (a.folded && strcmp(a.folded, a.timeline) == 0)) {
			rc = usage_error("--timeline '%s' is another output too; name each file once", a.timeline);
			goto done;
		}
		if ((rc = output_check(a.timeline, a.cfg, a.ncfg)) != 0)
			goto done;
		tl.step_ns = (int64_t)(a.timeline_step_us ? a.timeline_step_us : 100) * 1000;
		tl.nsteps = (int)((int64_t)(a.timeline_ms ? a.timeline_ms : 10) * 1000000 / tl.step_ns);
		if (tl.nsteps < 1 || tl.nsteps > 100000) {
			rc = usage_error("--timeline-ms / --timeline-step: %s steps (1 to 100000 allowed)",
					 tl.nsteps < 1 ? "fewer than 1" : "more than 100000");
			goto done;
		}
		tl.t0 = -1;
		tl.steps = xcalloc((size_t)tl.nsteps, sizeof(*tl.steps));
	} else if (a.timeline_ms || a.timeline_step_us) {
		rc = usage_error("--timeline-ms and --timeline-step: only with --timeline %s", "FILE");
		goto done;
	}
	if (a.charges) {
		double at = 0;
		const char *unit;
		struct tcpsim_err terr = {0};
		if (a.reps > 1) {
			rc = usage_error("--charges: logs one run, not --reps %s", "N");
			goto done;
		}
		if ((a.out && strcmp(a.out, a.charges) == 0 && strcmp(a.out, "-") != 0) ||
		    (a.folded && strcmp(a.folded, a.charges) == 0) || (a.timeline && strcmp(a.timeline, a.charges) == 0)) {
			rc = usage_error("--charges '%s' is another output too; name each file once", a.charges);
			goto done;
		}
		if (a.charges_at && config_value_number("run.warmup", a.charges_at, &at, &unit, &terr) != TCPSIM_OK) {
			rc = usage_error("--charges-at %s: expected a time from 0 to 600s (e.g. 300ms)", a.charges_at);
			goto done;
		}
		if ((rc = output_check(a.charges, a.cfg, a.ncfg)) != 0)
			goto done;
		cl.from = (int64_t)at;
		cl.to = cl.from + (int64_t)(a.charges_us ? a.charges_us : 100) * 1000;
		cl.max_rows = CHARGES_MAX_ROWS;
	} else if (a.charges_at || a.charges_us) {
		rc = usage_error("--charges-at and --charges-us: only with --charges %s", "FILE");
		goto done;
	}
	if (a.states) {
		double ns;
		if (a.reps > 1 || a.fmt != FMT_TABLE) {
			rc = usage_error("--states: the table of one run (not --reps, csv or json; for those, "
					 "-s app.recv_start=%s or a sweep over app.recv_start)", a.states);
			goto done;
		}
		if ((rc = cli_late_start(NULL, a.states, &ns)) != 0)
			goto done;
		late_ns = (sim_ns)ns;
	}
	if ((rc = load_scenario(sc, a.cfg[0], a.ov[0], a.nov[0])) != 0)
		goto done;
	if (a.states && sc->recv_start_ns > 0) {
		rc = usage_error("--states: the scenario sets app.recv_start already (%s); leave it 0 to compare the two "
				 "starts", a.cfg[0]);
		goto done;
	}
	if (a.reps > 1) {
		if (a.jobs < 1) {
			long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
			a.jobs = ncpu > 0 ? (int)ncpu : 1;
		}
		struct scenario *scs = xcalloc((size_t)a.reps, sizeof(*scs));
		struct metrics *ms_runs = xcalloc((size_t)a.reps, sizeof(*ms_runs));
		for (int r = 0; r < a.reps; r++) {
			scs[r] = *sc;
			scs[r].seed = sweep_seed(sc->seed, 0, (uint32_t)r);
		}
		if (batch_run(tcpsim_run, scs, ms_runs, a.reps, a.jobs, NULL, &err) != TCPSIM_OK) {
			print_err(&err);
			rc = err.code == TCPSIM_EUSAGE ? 2 : 1;
		} else if ((ms = cli_memstream(&buf, &len)) == NULL) {
			rc = 1;
		} else {
			rc = a.fmt == FMT_CSV ? reps_csv(ms, scs, ms_runs, a.reps)
			   : a.fmt == FMT_JSON ? reps_json(ms, scs, ms_runs, a.reps)
					       : reps_table(ms, scs, ms_runs, a.reps);
			if ((rc = memstream_done(ms, rc, &buf)) == 0)
				rc = output_commit(a.out, buf, len);
		}
		free(scs);
		free(ms_runs);
		goto done;
	}
	if (tcpsim_run_detail(sc, m, a.timeline ? &tl : NULL, a.folded_cpus ? &cc : NULL, a.charges ? &cl : NULL,
			      &err) != TCPSIM_OK) {
		print_err(&err);
		rc = err.code == TCPSIM_EUSAGE ? 2 : 1;
		goto done;
	}
	ms = cli_memstream(&buf, &len);
	if (!ms) {
		rc = 1;
		goto done;
	}
	switch (a.fmt) {
	case FMT_CSV: rc = report_csv(ms, sc, m); break;
	case FMT_JSON: rc = report_json(ms, sc, m); break;
	default: rc = report_table(ms, sc, m); break;
	}
	if (rc == 0 && a.states) {
		struct scenario *lsc = xmalloc(sizeof(*lsc));
		struct metrics *lm = xcalloc(1, sizeof(*lm));
		*lsc = *sc;
		lsc->recv_start_ns = late_ns;
		if (tcpsim_run(lsc, lm, &err) != TCPSIM_OK) {
			print_err(&err);
			rc = err.code == TCPSIM_EUSAGE ? 2 : 1;
			fclose(ms);
			free(lsc);
			free(lm);
			goto done;
		}
		rc = report_states(ms, a.states, sc, m, lsc, lm);
		free(lsc);
		free(lm);
	}
	if ((rc = memstream_done(ms, rc, &buf)) != 0)
		goto done;
	if (a.folded && ((rc = side_begin(&sf)) != 0 ||
			 (rc = side_end(&sf, a.folded, a.folded_cpus ? report_folded_cpus(sf.f, sc, &cc)
								  : report_folded(sf.f, sc, m))) != 0))
		goto done;
	if (a.timeline &&
	    ((rc = side_begin(&sf)) != 0 || (rc = side_end(&sf, a.timeline, report_timeline(sf.f, &tl))) != 0))
		goto done;
	if (a.charges) {
		if ((rc = side_begin(&sf)) != 0 || (rc = side_end(&sf, a.charges, report_chargelog(sf.f, &cl))) != 0)
			goto done;
		if (cl.truncated)
			fprintf(stderr, "tcpsim: --charges: the log holds its first %zu rows, up to the step at %.3f us; "
					"shorten --charges-us for the rest\n", cl.n, (double)cl.last_t / 1e3);
		else if (cl.n == 0)
			fprintf(stderr, "tcpsim: --charges: no step began in the window (the run ended at %.3f s)\n",
				m->warmup_s + m->measured_s);
	}
	rc = output_commit(a.out, buf, len);
done:
	chargelog_free(&cl);
	free(tl.steps);
	cpu_cycles_free(&cc);
	free(buf);
	free(sc);
	free(m);
	free_args(&a);
	return rc;
}

/* ---- compare --------------------------------------------------------------- */

/* "dir/loopback-64k.cfg" -> "loopback-64k" */
static char *file_stem(const char *path)
{
	const char *b = strrchr(path, '/');
	char *s = xstrdup(b ? b + 1 : path);
	size_t n = strlen(s);
	if (n > 4 && strcmp(s + n - 4, ".cfg") == 0)
		s[n - 4] = '\0';
	return s;
}

/* "path -s a -s b": how a side was asked for. */
static char *side_spec(const char *path, const char *const *ov, int nov)
{
	size_t n = strlen(path) + 1;
	char *s;
	for (int i = 0; i < nov; i++)
		n += strlen(ov[i]) + 4;
	s = xmalloc(n);
	strcpy(s, path);
	for (int i = 0; i < nov; i++) {
		strcat(s, " -s ");
		strcat(s, ov[i]);
	}
	return s;
}

static void compare_usage(FILE *f)
{
	fputs("usage: tcpsim compare A.cfg [-s section.key=value]... B.cfg [-s section.key=value]...\n"
	      "                      [--reps N] [-j N] [--format table|csv|json] [-o OUT]\n"
	      "  runs both scenarios (A is the base) and prints, per metric, LKP style:\n"
	      "  base value, change in %, new value, name.  Each -s applies to the .cfg before it.\n"
	      "  --reps N   N runs per side, seeds sweep_seed(run.seed, 0, rep) (the same N seeds on\n"
	      "             both sides when their run.seed is the same); values print as mean ~ sd%,\n"
	      "             and a change within the runs' spread (Welch t-test, 95%) prints as ~\n"
	      "  -j N       threads for the runs (default: every online CPU)\n", f);
}

static int compare_render(FILE *ms, enum out_format fmt, struct report_side side[2],
			  char *spec[2], const struct scenario *scs)
{
	static const char *const cols[] = {"side", "scenario", "rep", "seed"};
	int ncol = side[0].n > 1 ? 4 : 2;

	switch (fmt) {
	case FMT_CSV:
		if (report_csv_header(ms, cols, ncol))
			return -1;
		for (int s = 0; s < 2; s++)
			for (int r = 0; r < side[s].n; r++) {
				char rep[16], seed[32];
				snprintf(rep, sizeof(rep), "%d", r);
				snprintf(seed, sizeof(seed), "%llu",
					 (unsigned long long)scs[s * side[s].n + r].seed);
				const char *vals[4] = {s == 0 ? "base" : "new", spec[s], rep, seed};
				if (report_csv_row(ms, vals, ncol, &side[s].runs[r]))
					return -1;
			}
		return 0;
	case FMT_JSON:
		return report_compare_json(ms, &side[0], &side[1]);
	default:
		fprintf(ms, "base: %s\nnew:  %s\n\n", spec[0], spec[1]);
		return report_compare(ms, &side[0], &side[1]);
	}
}

int cmd_compare(int argc, char **argv)
{
	struct cli_args a = {.cmd = "compare", .max_cfg = 2, .fmt = FMT_TABLE};
	struct scenario *sc = NULL, *scs = NULL;
	struct metrics *m = NULL;
	struct tcpsim_err err = {0};
	char *spec[2] = {NULL, NULL}, *stem[2] = {NULL, NULL};
	char *buf = NULL;
	size_t len = 0;
	FILE *ms;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc || a.help) {
		if (a.help)
			compare_usage(stdout);
		goto done;
	}
	if (a.reps < 1)
		a.reps = 1;
	if (a.jobs < 1) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		a.jobs = ncpu > 0 ? (int)ncpu : 1;
	}
	sc = xcalloc(2, sizeof(*sc));
	scs = xcalloc(2 * (size_t)a.reps, sizeof(*scs));
	m = xcalloc(2 * (size_t)a.reps, sizeof(*m));
	if ((rc = output_check(a.out, a.cfg, a.ncfg)) != 0)
		goto done;
	for (int s = 0; s < 2; s++)
		if ((rc = load_scenario(&sc[s], a.cfg[s], a.ov[s], a.nov[s])) != 0)
			goto done;

	/* side s, rep r at s * reps + r; one run per side keeps the scenario's own seed */
	for (int s = 0; s < 2; s++)
		for (int r = 0; r < a.reps; r++) {
			scs[s * a.reps + r] = sc[s];
			if (a.reps > 1)
				scs[s * a.reps + r].seed = sweep_seed(sc[s].seed, 0, (uint32_t)r);
		}
	if (batch_run(tcpsim_run, scs, m, 2 * a.reps, a.jobs, NULL, &err) != TCPSIM_OK) {
		print_err(&err);
		rc = err.code == TCPSIM_EUSAGE ? 2 : 1;
		goto done;
	}

	struct report_side side[2];
	for (int s = 0; s < 2; s++) {
		spec[s] = side_spec(a.cfg[s], a.ov[s], a.nov[s]);
		stem[s] = file_stem(a.cfg[s]);
	}
	for (int s = 0; s < 2; s++)
		side[s] = (struct report_side){
			.name = strcmp(stem[0], stem[1]) ? stem[s] : s == 0 ? "base" : "new",
			.sc = &sc[s],
			.runs = &m[s * a.reps],
			.n = a.reps,
		};
	ms = cli_memstream(&buf, &len);
	if (!ms) {
		rc = 1;
		goto done;
	}
	rc = compare_render(ms, a.fmt, side, spec, scs);
	if ((rc = memstream_done(ms, rc, &buf)) != 0)
		goto done;
	rc = output_commit(a.out, buf, len);
done:
	free(buf);
	for (int s = 0; s < 2; s++) {
		free(spec[s]);
		free(stem[s]);
	}
	free(sc);
	free(scs);
	free(m);
	free_args(&a);
	return rc;
}
