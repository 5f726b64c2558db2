/*
 * sweepfile: the files of a sweep, for sweep.c and the merge.
 *
 * OUT.csv is read row by row through libcsv (a pull reader over a push
 * parser); each row keeps its raw text, newline included, so a resume or a
 * merge copies rows byte for byte instead of re-formatting them.  Memory is
 * one row at a time.
 *
 * The sidecar OUT.csv.cfg is a comment block then config_dump() of the base
 * scenario:
 *     # sweep.points = 16
 *     # sweep.reps = 1
 *     # sweep.vary = link.mtu=1500,9000,16436,65536   (canonical values)
 *     # sweep.shard = 2/3                               (only when N > 1)
 *     [run] ...
 * It is an includable .cfg (so `tcpsim run OUT.csv.cfg -s ...` reproduces
 * a row) and it names the sweep: two files belong to one sweep when their
 * sidecars are equal apart from the shard line.
 */
#ifndef TCPSIM_SWEEPFILE_H
#define TCPSIM_SWEEPFILE_H

#include <csv.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "err.h"
#include "sweep.h"

struct sweepfile_row {
	char *raw;        /* the row's line(s) as in the file */
	size_t raw_len, raw_cap;
	char **fields;    /* NUL-terminated, unquoted */
	int n_fields, cap_fields;
	long line;        /* 1-based line where the row starts */
};

/* The message for a last row without its newline (a sweep stopped mid-write). */
#define SWEEPFILE_TORN "the last line is incomplete (an interrupted run): finish it with tcpsim sweep --resume"

struct sweepfile_reader {
	FILE *f;
	char *path;
	struct csv_parser p;
	char *line;
	size_t line_cap;
	long lineno;
	struct sweepfile_row row;
	bool complete;    /* libcsv ended the current row */
	bool torn;        /* the last row had no final newline */
};

int sweepfile_open(struct sweepfile_reader *r, const char *path, struct tcpsim_err *err);
/* Next row into r->row; *got false at the end of the file. */
int sweepfile_next(struct sweepfile_reader *r, bool *got, struct tcpsim_err *err);
void sweepfile_close(struct sweepfile_reader *r);

/* "OUT.csv" -> "OUT.csv.cfg" (malloc'd). */
char *sweepfile_sidecar_path(const char *csv_path);
/* The sidecar's text for shard k/n (malloc'd). */
char *sweepfile_sidecar_text(const struct sweep *sw, int k, int n, size_t *len);
/* The file at path must hold exactly text; else an error naming the first
 * differing line, ending with "<path> <what>". */
int sweepfile_sidecar_check(const char *path, const char *text, size_t len, const char *what,
			    struct tcpsim_err *err);

/* Shared with sweep.c: the CSV header line, and the check of one row
 * against the sweep (fields, point, rep, seed, axis values). */
char *sweep_header_text(const struct sweep *sw, size_t *len);
int sweep_check_row(const struct sweep *sw, const struct sweepfile_row *r, int n_cols,
		    const char *path, uint64_t *point, uint32_t *rep, struct tcpsim_err *err);

#endif
