/*
 * sockets: the sender's socket at the end of each recorded run, as
 * tools/measure-live writes it beside its matrix (MACHINE.sockets.txt, from
 * `ss -tim` just before the run ended): cwnd, ssthresh and the send buffer
 * (skmem tb).  A send buffer only grows (tcp_sndbuf_expand) and follows
 * the largest cwnd slow start and congestion avoidance reached, so it tells
 * where a run has been, not only where it ended: a writer that once ran
 * ahead of its reader left a buffer sized for the window it filled.
 *
 * The file is a whitespace table: a header line "point rep try cwnd
 * ssthresh sndbuf", then a line a run attempt; "-" is a value ss did not
 * give (ssthresh before slow start ended).  Lines starting with '#' and
 * blank lines are skipped.  Rows of points the run set does not hold are
 * counted and skipped; every attempt's row is kept (measure-live writes one
 * for disturbed attempts too).  A bad line names the file, the line and the
 * column.
 */
#ifndef TCPSIM_SOCKETS_H
#define TCPSIM_SOCKETS_H

#include <stdint.h>

#include "err.h"
#include "runs.h"

struct sock_end {
	int64_t cwnd;      /* segments; -1: not given */
	int64_t ssthresh;  /* segments; -1: not given (still in slow start) */
	int64_t sndbuf;    /* bytes; -1: not given */
};

struct sock_runs {
	struct sock_end *e;
	int n, cap;
};

struct sock_set {
	int n_runs;             /* the run set's size when loaded */
	struct sock_runs *run;  /* [n_runs] */
	int rows_used, rows_other_points;
};

void sockets_init(struct sock_set *s);
void sockets_free(struct sock_set *s);

/* Add the rows of path's points that rs holds (nothing added on error). */
int sockets_load(struct sock_set *s, const struct run_set *rs, const char *path, struct tcpsim_err *err);

/* Run i's rows (NULL when none). */
const struct sock_runs *sockets_of(const struct sock_set *s, int run);

/* The median of the rows' send buffers that were given (-1 when none), and
 * through *lo and *hi (may be NULL) their least and most. */
int64_t sockets_sndbuf_median(const struct sock_runs *r, int64_t *lo, int64_t *hi);

#endif
