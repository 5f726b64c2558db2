/*
 * datadir: where an installed tcpsim finds its shipped files.
 *
 * `make install` copies scenarios/ and validation/ to $(datadir)/tcpsim and
 * compiles that directory in (TCPSIM_DATADIR, in datadir.c only).  A
 * relative path that names nothing where it is first looked for -- beside
 * a recorded-runs CSV, in the current directory -- is looked for there
 * last, so `tcpsim run scenarios/loopback-64k.cfg` and a CSV naming
 * scenarios/myri10ge/old-tso.cfg work from any directory.  A build that
 * was never installed has the default directory, which may not exist;
 * nothing is found there then.
 */
#ifndef TCPSIM_DATADIR_H
#define TCPSIM_DATADIR_H

#include <stdbool.h>

/* The compiled-in directory, e.g. "/usr/local/share/tcpsim". */
const char *datadir_path(void);

/* path itself when it is absolute or names an existing file; else
 * datadir/path when that exists; else NULL.  Returned string: malloc'd. */
char *datadir_find(const char *path);

/* dir/path, or path alone when it is absolute or dir is empty (malloc'd). */
char *datadir_join(const char *dir, const char *path);

/* path names something stat(2) can see. */
bool datadir_exists(const char *path);

#endif
