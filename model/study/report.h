/*
 * report: one run's metrics as text a person reads (netperf/LKP layout),
 * as CSV and as JSON, and two runs side by side as LKP compares them.
 *
 * The report only formats; it never runs anything and keeps no state.  It
 * writes to the FILE it is given (the CLI hands it an in-memory stream and
 * writes the result once, so output is whole or absent).  Every function
 * returns 0, or -1 if the stream reported a write error.
 *
 * Number formats are part of the contract:
 *  - CSV: every field goes through libcsv's csv_fwrite (so it is quoted);
 *    numbers are printed with "%.6g"; a value that is not finite (a ratio
 *    with a zero denominator) is an empty cell, which recorded-run CSVs
 *    read as "not measured".  Columns: optional extra columns first, then
 *    metric_table[] names in enum order.
 *  - JSON: numbers as doubles (integers for counts and sizes), non-finite
 *    values as null.
 *  - compare: for each metric "base  +x.x%  new  name", LKP names where they
 *    exist (LKP totals shown as totals over sc->lkp_seconds), column names
 *    otherwise.  The change is (new - base) / base; a dash when base is 0
 *    or either value is not finite.  A side given n > 1 runs prints
 *    "mean ~ sd%" (sample standard deviation as % of the mean) like LKP's
 *    repeated runs, and the change column shows "~" instead of a % when
 *    the difference of the means is within the runs' spread (Welch's
 *    t-test at 95%); the JSON then adds "change_exceeds_noise" per column.
 */
#ifndef TCPSIM_REPORT_H
#define TCPSIM_REPORT_H

#include <stdio.h>

#include <jansson.h>

#include "metrics.h"
#include "chargelog.h"
#include "timeline.h"
#include "scenario.h"

/* netperf-style result block, LKP counters, mechanics, CPU profile, bottleneck. */
int report_table(FILE *f, const struct scenario *sc, const struct metrics *m);

/* Header row and one data row: the metric_table names, in order. */
int report_csv(FILE *f, const struct scenario *sc, const struct metrics *m);

/* Header / one row with n extra leading columns (sweeps, compare, validation). */
int report_csv_header(FILE *f, const char *const *extra_cols, int n);
int report_csv_row(FILE *f, const char *const *extra_vals, int n, const struct metrics *m);

/* One JSON object: every metric by name, the run's settings, "cpu" per host. */
int report_json(FILE *f, const struct scenario *sc, const struct metrics *m);

/*
 * Folded stacks, one line per host, context and cost that took CPU time:
 * "ROLE:HOST;CONTEXT;CATEGORY;COST_KEY CYCLES", e.g.
 * "receiver:xeon;softirq;tcp/ip;rx_frame 123456789" -- the cycles over the
 * measured interval, an integer; ROLE is sender, receiver or
 * sender+receiver, CONTEXT hardirq, softirq or process, CATEGORY one of
 * Cai et al.'s (costcat.h).  flamegraph.pl and speedscope read it as is.
 */
int report_folded(FILE *f, const struct scenario *sc, const struct metrics *m);
/* report_folded per CPU: a `cpuN` frame after the host's (cc from
 * tcpsim_run_detail) */
int report_folded_cpus(FILE *f, const struct scenario *sc, const struct cpu_cycles *cc);
/* The start a run recorded (timeline.h) as CSV: a header, then one row per
 * step, the columns of tools/wakeups-live --startup (t_ms at the step's
 * end; the sender's and receiver's values carried from the last step that
 * saw one, empty before any); 0, or -1 if the stream failed. */
int report_timeline(FILE *f, const struct timeline *tl);
/* A charge log (chargelog.h) as CSV: a header, then one row per step,
 * context and cost with cycles charged, in the order the steps ran: t_us
 * (the step's start), host, cpu, context, cost (its [cost] key), cycles
 * (whole) and step_us (the step's whole chunk); 0, or -1 if the stream
 * failed. */
int report_chargelog(FILE *f, const struct chargelog *cl);

/* The same object as a jansson value; the caller owns the reference. */
json_t *report_json_object(const struct scenario *sc, const struct metrics *m);

/*
 * One side of a comparison: a column heading, the scenario (for
 * lkp_seconds) and its runs; n = 1 today, n > 1 for repeated runs.
 */
struct report_side {
	const char *name;
	const struct scenario *sc;
	const struct metrics *runs;
	int n;
};

int report_compare(FILE *f, const struct report_side *base, const struct report_side *nw);

/*
 * The comparison as JSON: {"base": {"name", "runs": [report_json_object...]},
 * "new": {...}, "change_pct": {column name: % or null}}, the change computed
 * from the same values (and means) as report_compare prints.
 */
int report_compare_json(FILE *f, const struct report_side *base, const struct report_side *nw);

/*
 * The value compare prints for metric id of one run: LKP totals become
 * rate * lkp_seconds, everything else is the stored value.
 */
double report_lkp_value(const struct scenario *sc, const struct metrics *m, int id);

/*
 * Percent change from base to nw; returns 0 and leaves *pct alone when it
 * is undefined (base 0, or either value not finite), else 1.
 */
int report_change_pct(double base, double nw, double *pct);

/* The change as compare prints it: "+46.4%", "-85.2%", "0.0%" or "-". */
void report_change_str(double base, double nw, char *buf, size_t n);

#endif
