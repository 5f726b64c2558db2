/*
 * outfile: the one way tcpsim and its tools write a whole output file
 * (reports, profiles, recorded runs, sidecars, merged sweeps, live rows).
 *
 * What the output path names decides how it is written:
 *   - a regular file, or nothing yet: a temporary file beside it
 *     ("PATH.tmp.PID"), fsync, rename over PATH; the file is whole or
 *     untouched, and the temporary is removed on every failure.  A file
 *     that existed keeps its permission bits;
 *   - "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: that
 *     descriptor, written straight through (its offset and append mode
 *     kept, nothing replaced);
 *   - a character device or a FIFO (/dev/null, mkfifo): opened and written
 *     straight through, never replaced (opening a FIFO waits for a reader,
 *     as a shell redirection does);
 *   - a symbolic link: followed to its target, which is then written by the
 *     rules above (the link stays a link; a dangling link creates its
 *     target);
 *   - anything else (a directory, a block device, a socket): refused.
 * Every failure is TCPSIM_EIO with one message "cannot write [WHAT ]'PATH':
 * reason" (the exit status of a write failure, docs/usage.md);
 * "standard output" is named for "-".
 *
 * Before long work a command calls outfile_probe() (the temporary is created
 * and removed in the target's directory, so a read-only or missing directory
 * fails at once) and outfile_check_inputs() (an output that is one of the
 * command's input files is refused: it would be replaced by its own result).
 *
 * Ownership: outfile_open() fills a struct outfile the caller owns; exactly
 * one of outfile_commit() or outfile_abort() releases it.
 */
#ifndef TCPSIM_OUTFILE_H
#define TCPSIM_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "err.h"

struct outfile {
	char *path;       /* as given, for messages */
	char *target;     /* the file the bytes land in (links followed) */
	char *tmp;        /* the temporary renamed over target; NULL when direct */
	char *what;       /* "profile", "recorded runs", or NULL */
	FILE *f;          /* write here between open and commit */
	bool is_stdout;   /* path was "-": messages say "standard output" */
};

/* Open path for writing; o->f takes the bytes.  TCPSIM_OK or TCPSIM_EIO
 * (o released).  what (may be NULL) goes into the messages. */
int outfile_open(struct outfile *o, const char *path, const char *what, struct tcpsim_err *err);

/* Flush, fsync, rename (or flush only, when direct).  Releases o either
 * way; on failure the temporary is removed and the target left as it was. */
int outfile_commit(struct outfile *o, struct tcpsim_err *err);

/* Give up: the temporary removed, the target untouched, o released. */
void outfile_abort(struct outfile *o);

/* outfile_open, write len bytes, outfile_commit. */
int outfile_write_whole(const char *path, const char *what, const void *buf, size_t len,
			struct tcpsim_err *err);

/* Would outfile_open(path) succeed?  For a replaced file the temporary is
 * created and removed; a device or FIFO is checked for write permission
 * only (opening a FIFO would wait for, then disturb, its reader). */
int outfile_probe(const char *path, const char *what, struct tcpsim_err *err);

/* TCPSIM_EUSAGE when the regular file path names (same device and inode,
 * links followed) is one of inputs[0..n-1]; TCPSIM_OK otherwise (also when
 * path does not exist yet or is not a regular file). */
int outfile_check_inputs(const char *path, const char *const *inputs, int n, struct tcpsim_err *err);

#endif
