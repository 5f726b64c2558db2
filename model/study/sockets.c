/*
 * sockets: the sender's socket at the end of each recorded run (see
 * sockets.h), a whitespace table read line by line.
 */
#include "sockets.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define SOCK_COLS 6

static const char *const sock_cols[SOCK_COLS] = {"point", "rep", "try", "cwnd", "ssthresh", "sndbuf"};

void sockets_init(struct sock_set *s)
{
	memset(s, 0, sizeof(*s));
}

void sockets_free(struct sock_set *s)
{
	for (int i = 0; s->run && i < s->n_runs; i++)
		free(s->run[i].e);
	free(s->run);
	memset(s, 0, sizeof(*s));
}

const struct sock_runs *sockets_of(const struct sock_set *s, int run)
{
	if (!s->run || run < 0 || run >= s->n_runs || s->run[run].n == 0)
		return NULL;
	return &s->run[run];
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int64_t sockets_sndbuf_median(const struct sock_runs *r, int64_t *lo, int64_t *hi)
{
	int64_t *v, med;
	int n = 0;

	if (lo)
		*lo = -1;
	if (hi)
		*hi = -1;
	if (!r || r->n == 0)
		return -1;
	v = xcalloc((size_t)r->n, sizeof(*v));
	for (int k = 0; k < r->n; k++)
		if (r->e[k].sndbuf > 0)
			v[n++] = r->e[k].sndbuf;
	if (n == 0) {
		free(v);
		return -1;
	}
	qsort(v, (size_t)n, sizeof(*v), cmp_i64);
	med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	if (lo)
		*lo = v[0];
	if (hi)
		*hi = v[n - 1];
	free(v);
	return med;
}

/* A count of column c: a whole number from 1 up, or "-" (-1) where dash_ok. */
static int parse_count(const char *path, int line, int c, const char *s, bool dash_ok, int64_t *out,
		       struct tcpsim_err *err)
{
	long v;

	if (dash_ok && strcmp(s, "-") == 0) {
		*out = -1;
		return TCPSIM_OK;
	}
	if (!parse_long_in(s, 1, 1L << 40, &v))
		return err_set(err, TCPSIM_EUSAGE, "%s:%d: %s: '%s' is not a whole number from 1%s", path, line,
			       sock_cols[c], s, dash_ok ? " (or '-')" : "");
	*out = v;
	return TCPSIM_OK;
}

struct staged {
	int run;
	struct sock_end e;
};

static void add(struct sock_runs *r, struct sock_end e)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 4;
		r->e = xrealloc(r->e, (size_t)r->cap * sizeof(*r->e));
	}
	r->e[r->n++] = e;
}

int sockets_load(struct sock_set *s, const struct run_set *rs, const char *path, struct tcpsim_err *err)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int line = 0, rc = TCPSIM_OK, n_st = 0, cap_st = 0, other = 0;
	bool header = false;
	struct staged *st = NULL;

	if (!f)
		return err_set(err, TCPSIM_EUSAGE, "%s: cannot read it: %s", path, strerror(errno));
	while (rc == TCPSIM_OK && (len = getline(&buf, &cap, f)) >= 0) {
		char *tok[SOCK_COLS + 1], *save = NULL, *p;
		int nt = 0;

		line++;
		if (memchr(buf, '\0', (size_t)len)) {
			rc = err_set(err, TCPSIM_EUSAGE, "%s:%d: a NUL byte: not a sockets table", path, line);
			break;
		}
		for (p = strtok_r(buf, " \t\r\n", &save); p && nt <= SOCK_COLS; p = strtok_r(NULL, " \t\r\n", &save))
			tok[nt++] = p;
		if (nt == 0 || tok[0][0] == '#')
			continue;
		if (nt != SOCK_COLS) {
			rc = err_set(err, TCPSIM_EUSAGE, "%s:%d: %s%d fields, want %d (point rep try cwnd ssthresh sndbuf)",
				     path, line, nt > SOCK_COLS ? "more than " : "", nt > SOCK_COLS ? SOCK_COLS : nt,
				     SOCK_COLS);
			break;
		}
		if (!header) {
			for (int c = 0; c < SOCK_COLS; c++)
				if (strcmp(tok[c], sock_cols[c]) != 0) {
					rc = err_set(err, TCPSIM_EUSAGE,
						     "%s:%d: column %d is '%s', want '%s' (the header: point rep try cwnd "
						     "ssthresh sndbuf, as tools/measure-live writes MACHINE.sockets.txt)",
						     path, line, c + 1, tok[c], sock_cols[c]);
					break;
				}
			header = true;
			continue;
		}
		int64_t rep, try_;
		struct sock_end e;
		if ((rc = parse_count(path, line, 1, tok[1], false, &rep, err)) != TCPSIM_OK ||
		    (rc = parse_count(path, line, 2, tok[2], false, &try_, err)) != TCPSIM_OK ||
		    (rc = parse_count(path, line, 3, tok[3], true, &e.cwnd, err)) != TCPSIM_OK ||
		    (rc = parse_count(path, line, 4, tok[4], true, &e.ssthresh, err)) != TCPSIM_OK ||
		    (rc = parse_count(path, line, 5, tok[5], true, &e.sndbuf, err)) != TCPSIM_OK)
			break;
		const struct recorded_run *run = runs_find(rs, tok[0]);
		if (!run) {
			other++;
			continue;
		}
		if (n_st == cap_st) {
			cap_st = cap_st ? 2 * cap_st : 64;
			st = xrealloc(st, (size_t)cap_st * sizeof(*st));
		}
		st[n_st++] = (struct staged){.run = (int)(run - rs->runs), .e = e};
	}
	if (rc == TCPSIM_OK && ferror(f))
		rc = err_set(err, TCPSIM_EUSAGE, "%s: read error: %s", path, strerror(errno));
	if (rc == TCPSIM_OK && !header)
		rc = err_set(err, TCPSIM_EUSAGE, "%s: no header line (point rep try cwnd ssthresh sndbuf): empty", path);
	fclose(f);
	free(buf);
	if (rc == TCPSIM_OK) {
		if (!s->run) {
			s->n_runs = rs->n;
			s->run = xcalloc((size_t)rs->n, sizeof(*s->run));
		} else if (s->n_runs != rs->n) {
			rc = err_set(err, TCPSIM_EUSAGE, "%s: loaded for a run set of %d runs, this one has %d", path,
				     s->n_runs, rs->n);
		}
	}
	for (int k = 0; rc == TCPSIM_OK && k < n_st; k++)
		add(&s->run[st[k].run], st[k].e);
	if (rc == TCPSIM_OK) {
		s->rows_used += n_st;
		s->rows_other_points += other;
	}
	free(st);
	return rc;
}
