/*
 * runs: recorded runs -- measured results the model is calibrated and
 * validated against -- and the CSV files that hold them.
 *
 * A recorded-run CSV has one header line and one row per run.  Columns:
 *   id         unique within a set (several files loaded together included)
 *   source     a citation: commit id, or list post title and date
 *   scenario   a .cfg path: absolute, or relative to the CSV's directory or
 *              one above it (the shipped files name scenarios/... from the
 *              top of the tree), else to the current directory, else to
 *              the installed data directory (runs_scenario_path)
 *   overrides  "section.key=value;section.key=value" applied over it
 *   <metric>   one column per metric_table[] name (metrics.h); empty = not
 *              measured
 *   <metric>_cv  optional spread of that metric: coefficient of variation
 *              (stddev / mean, a fraction, not %); empty = not given
 *   note       optional free text
 *   measured-only columns (runs_column_measured_only: snd_cpu_*, rcv_cpu_*,
 *              tcpext_*, pace_kicks_per_s, writes_per_s and their _cv) carry
 *              live figures no metric predicts yet; they are accepted and not
 *              kept (runs_write does not write them back)
 * id, source, scenario and overrides must all be present (overrides may be
 * an empty cell); metric columns may appear in any order and any subset.
 *
 * Reading goes through libcsv in strict mode (quotes must be well formed;
 * csv_fini reports an unterminated quote at end of file).  Every error is
 * one line naming the file, the line where the offending row starts and the
 * column, with status TCPSIM_EUSAGE (TCPSIM_EIO if the file cannot be
 * read).  runs_load() adds nothing to the set unless the whole file is good.
 *
 * Writing (runs_write) goes through libcsv too, and through outfile.h (a
 * temporary file renamed over the target only when complete, or straight
 * into a device or FIFO), so a file is written whole or not at all.  Numbers are written with the fewest
 * digits that read back to the same double.
 *
 * Ownership: the set owns every string and array in it; runs_free() releases
 * them.  A struct recorded_run pointer returned by runs_add() is valid until
 * the next runs_add()/runs_load() on the same set.
 *
 * Overrides are only split here ("tcp.sndbuf=64K" -> key "tcp.sndbuf",
 * value "64K"), never checked against the config key table: the caller
 * (calibrate/validate) checks keys with config_key_exists() and applies
 * them with config_override().
 */
#ifndef TCPSIM_RUNS_H
#define TCPSIM_RUNS_H

#include <stdbool.h>

#include "err.h"
#include "metrics.h"

struct run_override {
	char *assignment;     /* "section.key=value", trimmed: for config_override() */
	char *key;            /* "section.key" */
	char *value;          /* "value" (may be empty) */
};

struct recorded_run {
	char *id;
	char *source;
	char *scenario;       /* .cfg path as written (runs_scenario_path resolves it) */
	char *overrides;      /* as written: "a.b=1;c.d=2" (may be "") */
	char *note;           /* free text, may be "" */
	struct run_override *ov;
	int n_ov;
	double v[METRIC_N];   /* measured value; NAN = not measured */
	double cv[METRIC_N];  /* coefficient of variation (fraction); NAN = not given */
	char *file;           /* file it was read from, or NULL if added by a program */
	int line;             /* line where its row starts (1 = header), 0 if none */
};

struct run_set {
	struct recorded_run *runs;
	int n, cap;
	/* ids -> index into runs, for the duplicate checks (runs.c; a set of
	 * 200k runs must not be O(n^2) to load): open addressing, -1 = empty,
	 * covering runs[0..id_indexed) */
	int *id_index;
	int id_index_cap, id_indexed;
};

void runs_init(struct run_set *rs);
void runs_free(struct run_set *rs);

/* 1 if name is a measured-only column (see above), unless a metric has that name. */
int runs_column_measured_only(const char *name);

/* Read a recorded-run CSV and append its rows to rs (nothing on error). */
int runs_load(struct run_set *rs, const char *path, struct tcpsim_err *err);

/*
 * Append a run with every metric not measured.  id, source and scenario
 * must be non-empty; overrides may be NULL or "".  Returns NULL with err set
 * on a duplicate id or malformed overrides.  Fill r->v[] / r->cv[] after.
 */
struct recorded_run *runs_add(struct run_set *rs, const char *id, const char *source,
			      const char *scenario, const char *overrides, const char *note,
			      struct tcpsim_err *err);

/* The run with this id, or NULL. */
const struct recorded_run *runs_find(const struct run_set *rs, const char *id);

/*
 * The file r->scenario names: an absolute path as it is; a relative one
 * beside r->file and in each directory above it, then in the current
 * directory, then in datadir_path().  The first that exists wins (spelt
 * as written when that is the same file, so messages stay as they were);
 * NULL when none does.  malloc'd.
 */
char *runs_scenario_path(const struct recorded_run *r);

/*
 * Write the whole set to path (outfile.h).  Columns: id, source,
 * scenario, overrides, every contract metric (metrics.h, METRIC_CONTRACT_N)
 * and any further metric some run has, then the _cv columns some run has,
 * then note if some run has one.
 */
int runs_write(const struct run_set *rs, const char *path, struct tcpsim_err *err);

/*
 * For importers: load path if it exists (a missing file is an empty set),
 * append every run of add (a duplicate id is an error naming both), and
 * write the result back whole.  Nothing is written on error.
 */
int runs_append_file(const char *path, const struct run_set *add, struct tcpsim_err *err);

/*
 * Split "section.key=value;section.key=value" into pairs.  Blanks around
 * pieces are dropped, as are empty pieces (a trailing ';').  A piece
 * without '=' or whose key has no '.' between two names is an error whose
 * message starts with `where` (e.g. "runs.csv:3: column 'overrides'").
 * On success *ov is an xmalloc'd array of *n pairs (free with
 * runs_overrides_free), possibly empty.
 */
int runs_overrides_split(const char *text, const char *where, struct run_override **ov,
			 int *n, struct tcpsim_err *err);
void runs_overrides_free(struct run_override *ov, int n);

/* Do the n overrides set key to one of the comma-separated values (compared
 * as text)?  The rule of runs-filter's --where and costfit's conditions. */
bool runs_overrides_set(const struct run_override *ov, int n, const char *key, const char *values);

#endif
