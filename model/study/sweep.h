/*
 * sweep: one scenario run over the cartesian product of config axes, to CSV.
 *
 * An axis is a key of config's table and a list of values ("link.mtu=
 * 1500,9000", "tcp.sndbuf=64K:1M*2", "link.mtu=1500:9000:500").  Each value
 * is checked and canonicalised through config_set/config_get when the axis
 * is added, so the CSV carries the text `tcpsim run -s` takes back.  Points
 * are numbered in mixed radix, the first axis slowest; a point's number
 * depends only on the axes, never on -j, shards or resumption.  Each point
 * runs `reps` times; the seed of (point, rep) is sweep_seed(run.seed,
 * point, rep) and is written in the row, so
 *     tcpsim run OUT.csv.cfg -s KEY=VALUE... -s run.seed=SEED
 * reproduces any row alone.
 *
 * Output: OUT.csv (libcsv): point,rep,seed, one column per axis (named
 * section.key), then report_csv_header()'s metric columns.  The sidecar
 * OUT.csv.cfg holds the base scenario's effective settings (config_dump,
 * an includable .cfg) after a comment block naming the axes, reps and
 * point count; it identifies the sweep for --resume and merge.
 *
 * Engine: -j worker threads take (point, rep) tasks in order; finished rows
 * go through a reorder ring of `window` slots and are written in order by
 * the calling thread, each with one write(2), so OUT.csv is at every
 * moment a whole-row prefix of the final file and is byte-identical for
 * any -j.  Memory is O(jobs + window + values of all axes): points are
 * never materialised (plus one bit per run of the shard when resuming).
 * A shard of more than SWEEP_MAX_RUNS runs is refused up front; the
 * point-by-point pre-check and the runs report progress on o->progress.
 *
 * Stopping: when *stop becomes non-zero no new task starts; tasks in
 * flight finish and are written, so the prefix property holds and --resume
 * continues exactly where it stopped.  The library installs no signal
 * handlers; the CLI turns SIGINT/SIGTERM into *stop.
 *
 * The run function is a parameter (tcpsim_run in production, a
 * deterministic double in tests/test_sweep.c): this module never calls the
 * simulator itself.
 */
#ifndef TCPSIM_SWEEP_H
#define TCPSIM_SWEEP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "metrics.h"
#include "scenario.h"

#define SWEEP_KEY_MAX 64
#define SWEEP_MAX_AXES 16
#define SWEEP_MAX_VALUES 1000000 /* per axis: a typo guard, not a design limit */
/* Runs (points x reps) one sweep_run may own, checked before anything is
 * allocated or checked point by point: at a few ms a run that is days of
 * CPU, and the --resume bitmap stays within 12.5 MB.  Larger sweeps are
 * split with --shard K/N. */
#define SWEEP_MAX_RUNS 100000000ULL

typedef int (*sweep_run_fn)(const struct scenario *sc, struct metrics *out,
			    struct tcpsim_err *err);

struct sweep_axis {
	char key[SWEEP_KEY_MAX]; /* "section.key" */
	int n_values;
	char **values;           /* canonical text, as config_get prints it */
};

struct sweep {
	struct scenario base;    /* effective base settings (a copy) */
	struct sweep_axis axes[SWEEP_MAX_AXES];
	int n_axes;
	int reps;                /* runs per point, >= 1 */
	uint64_t n_points;       /* product of the axes' sizes (1 with no axis) */
};

struct sweep_opts {
	const char *out_path;    /* OUT.csv; the sidecar is OUT.csv.cfg */
	sweep_run_fn run;
	int jobs;                /* worker threads, >= 1 */
	int shard_k, shard_n;    /* this machine runs points with point % n == k - 1 */
	bool resume;             /* continue OUT.csv (started fresh if absent) */
	FILE *progress;          /* done/total, rate, ETA; NULL for silence */
	atomic_int *stop;        /* may be NULL */
	unsigned window;         /* reorder slots; 0 picks 8 * jobs + 8 */
};

struct sweep_stats {
	uint64_t rows_shard;     /* rows this shard owns (points x reps) */
	uint64_t rows_before;    /* found in OUT.csv by --resume */
	uint64_t rows_written;   /* written by this call */
	uint64_t rows_unsettled; /* of them, runs whose buffers never settled */
	bool interrupted;        /* stopped through *stop before the end */
	bool out_of_order;       /* --resume found rows that are not a prefix */
	uint64_t torn_bytes;     /* --resume cut this much torn last line off */
	double elapsed_s;
};

/* Base settings are copied; reps = 1 until the caller changes it. */
void sweep_init(struct sweep *sw, const struct scenario *base);
void sweep_release(struct sweep *sw);

/* Add an axis from "section.key=LIST"; LIST is v1,v2,..., start:stop:step
 * or start:stop*factor (units as config accepts). */
int sweep_add_axis(struct sweep *sw, const char *arg, struct tcpsim_err *err);

/* Deterministic seed of (point, rep): splitmix64 steps over the three. */
uint64_t sweep_seed(uint64_t base_seed, uint64_t point, uint32_t rep);

/* Index into axes[a].values of point's value. */
int sweep_point_value(const struct sweep *sw, uint64_t point, int a);

/* The scenario of (point, rep): base, every axis value, the seed, validated. */
int sweep_point_scenario(const struct sweep *sw, uint64_t point, uint32_t rep,
			 struct scenario *sc, struct tcpsim_err *err);

/* "K/N" with 1 <= K <= N. */
int sweep_parse_shard(const char *arg, int *k, int *n, struct tcpsim_err *err);

/* Run (this shard of) the sweep into o->out_path.  Returns TCPSIM_OK also
 * when stopped through *stop (st->interrupted tells). */
int sweep_run(const struct sweep *sw, const struct sweep_opts *o, struct sweep_stats *st,
	      struct tcpsim_err *err);

/* Merge shard files (each with its sidecar) into out_path and its sidecar:
 * checks they are one sweep and that every (point, rep) is there exactly
 * once; the result is what one machine would have written.  Streams. */
int sweep_merge(const char *out_path, const char *const *in_paths, int n_in,
		struct tcpsim_err *err);

/* Print the named columns ("a,b,c") of a CSV file, tab-separated, one row a
 * line, after a "# a b c" line: input for gnuplot.  The columns in numeric
 * (a list as names, or NULL) that are keys print as numbers in the key's
 * base unit, named in the "#" line: "64K" as 65536, "tcp.sndbuf (bytes)". */
int sweep_columns(const char *csv_path, const char *names, const char *numeric, FILE *out,
		  struct tcpsim_err *err);

#endif
