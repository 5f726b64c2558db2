/*
 * csvread: a whole CSV file through libcsv, one call per record.
 *
 * The file is fed to the parser byte by byte so that every record knows
 * the line it starts on (a quoted field may span lines); blank lines
 * between records are skipped.  The caller's function gets each record's
 * fields (NUL-terminated, owned by the reader until the call returns; the
 * function may change them in place) and decides what a header is.  Any
 * error -- the file, the CSV, or one the function sets -- stops the read
 * and names the file and the line.  A file without a single record is an
 * error ("empty file").  A UTF-8 byte-order mark at the start is skipped;
 * a NUL byte anywhere is an error at its line (a cell would otherwise read
 * as its prefix), and so is a record longer than 1 MiB (an input that
 * never ends, such as /dev/zero or an endless pipe, stops there).
 */
#ifndef TCPSIM_CSVREAD_H
#define TCPSIM_CSVREAD_H

#include "err.h"

struct csvread_rec {
	char **field;
	int n;
	int line; /* line the record starts on, from 1 */
};

/* Returns TCPSIM_OK to go on; an error code after setting err stops. */
typedef int (*csvread_fn)(void *ctx, struct csvread_rec *rec, struct tcpsim_err *err);

/* Read path; `what` names the file in I/O errors ("recorded runs"). */
int csvread_file(const char *path, const char *what, csvread_fn fn, void *ctx, struct tcpsim_err *err);

#endif
