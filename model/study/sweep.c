/*
 * Sweep engine: axes, points, seeds, the worker pool and --resume.
 * The files (sidecar, CSV rows, merge, columns) are in sweepfile.c.
 *
 * Threads (pthreads).  The calling thread is the writer; o->jobs workers take tasks
 * (point, rep) in order under e->mu.  Task number `seq` lives in slot
 * seq % window.  A worker may take seq only while seq < n_written + window,
 * so at most `window` finished rows wait in memory for a slower earlier
 * one.  Slot states: FREE -> BUSY (worker took it) -> DONE (row or error
 * stored) -> FREE (writer wrote it).  Only the writer touches the file.
 */
#include "sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "outfile.h"
#include "report.h"
#include "sweepfile.h"
#include "units.h"
#include "util.h"

/* ---- seeds ----------------------------------------------------------------- */

/*
 * splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014; constants as in Vigna's public-domain
 * splitmix64): a bijective mixer, so distinct inputs give distinct,
 * well-spread outputs.
 */
static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* 63 bits, so the seed is also a valid signed 64-bit number everywhere. */
uint64_t sweep_seed(uint64_t base_seed, uint64_t point, uint32_t rep)
{
	uint64_t h = splitmix64(base_seed);
	h = splitmix64(h ^ point);
	h = splitmix64(h ^ (uint64_t)rep);
	return h >> 1;
}

/* ---- axes ------------------------------------------------------------------ */

void sweep_init(struct sweep *sw, const struct scenario *base)
{
	memset(sw, 0, sizeof(*sw));
	sw->base = *base;
	sw->reps = 1;
	sw->n_points = 1;
}

static void axis_release(struct sweep_axis *ax)
{
	for (int i = 0; i < ax->n_values; i++)
		free(ax->values[i]);
	free(ax->values);
	ax->values = NULL;
	ax->n_values = 0;
}

void sweep_release(struct sweep *sw)
{
	for (int a = 0; a < sw->n_axes; a++)
		axis_release(&sw->axes[a]);
	sw->n_axes = 0;
	sw->n_points = 1;
}

/* An axis being built: values appended one by one. */
struct axis_build {
	const struct scenario *base;
	const char *arg;   /* the whole --vary argument, for messages */
	struct sweep_axis *ax;
	int cap;
};

/* Set text on a copy of base and read the canonical text back. */
static int value_canon(const struct axis_build *b, const char *text, char *out, size_t n,
		       struct tcpsim_err *err)
{
	struct scenario sc = *b->base;
	char where[SWEEP_KEY_MAX + 16];

	snprintf(where, sizeof(where), "--vary %s", b->ax->key);
	if (config_set(&sc, b->ax->key, text, where, err) != TCPSIM_OK)
		return err->code ? err->code : TCPSIM_EUSAGE;
	if (config_get(&sc, b->ax->key, out, n) < 0)
		return err_set(err, TCPSIM_EUSAGE, "--vary %s: cannot print value '%s'", b->ax->key, text);
	return TCPSIM_OK;
}

static int axis_push(struct axis_build *b, const char *text, struct tcpsim_err *err)
{
	char canon[256];
	int rc;

	if (b->ax->n_values >= SWEEP_MAX_VALUES)
		return err_set(err, TCPSIM_EUSAGE, "--vary %s: more than %d values", b->arg,
			       SWEEP_MAX_VALUES);
	if ((rc = value_canon(b, text, canon, sizeof(canon), err)) != TCPSIM_OK)
		return rc;
	if (b->ax->n_values == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 8;
		b->ax->values = xrealloc(b->ax->values, (size_t)b->cap * sizeof(char *));
	}
	b->ax->values[b->ax->n_values++] = xstrdup(canon);
	return TCPSIM_OK;
}

/*
 * The number in config_get's canonical notation, in the key's base unit:
 * bytes (64K, 1M, 1G: powers of 1024), nanoseconds (ns, us, ms, s), bit/s
 * (Kbit, Mbit, Gbit), or a plain number.  *is_time tells that a time
 * suffix was seen (a bare number of a time key is in the key's own unit,
 * which need not be ns).
 */
static bool canon_number(const char *text, double *x, bool *is_time)
{
	char *end;
	double mult;
	bool t;

	errno = 0;
	*x = strtod(text, &end);
	if (end == text || errno || !isfinite(*x))
		return false;
	if (!units_canonical(end, &mult, &t))
		return false;
	*x *= mult;
	*is_time = *is_time || t;
	return true;
}

/* A bound: a legal value of the key, as a number in the key's base unit. */
static int range_number(struct axis_build *b, const char *text, const char *what, double *x,
			bool *is_time, struct tcpsim_err *err)
{
	char canon[256];
	int rc;

	if (*text == '\0')
		return err_set(err, TCPSIM_EUSAGE, "--vary %s: empty %s", b->arg, what);
	if ((rc = value_canon(b, text, canon, sizeof(canon), err)) != TCPSIM_OK)
		return rc;
	if (!canon_number(canon, x, is_time))
		return err_set(err, TCPSIM_EUSAGE,
			       "--vary %s: %s '%s' is not a number; a range needs a numeric key (give a list v1,v2,...)",
			       b->arg, what, text);
	return TCPSIM_OK;
}

/*
 * A step is read like a value of the key (so a bare step is in the key's
 * own unit, as in a .cfg).  A step below the key's minimum (mtu steps of
 * 1) is read directly: with a unit suffix, or bare for keys that are not
 * times.
 */
static int range_step(struct axis_build *b, const char *text, double *x, bool key_is_time,
		      struct tcpsim_err *err)
{
	struct tcpsim_err e1 = {0};
	bool is_time = false;

	if (range_number(b, text, "step", x, &is_time, &e1) == TCPSIM_OK)
		return TCPSIM_OK;
	if (canon_number(text, x, &is_time) && (is_time || !key_is_time || *x == 0))
		return TCPSIM_OK;
	if (canon_number(text, x, &is_time))
		return err_set(err, TCPSIM_EUSAGE, "--vary %s: step '%s' is not a value of %s; give it with a unit (ns, us, ms, s)",
			       b->arg, text, b->ax->key);
	*err = e1;
	return err->code;
}

/* Text of a generated value: integers exactly, others with 12 digits; time
 * keys in ns (their bare unit may be another). */
static void number_text(double v, bool is_time, char *buf, size_t n)
{
	double r = nearbyint(v);
	if (fabs(v - r) <= 1e-9 * fmax(1.0, fabs(v)) && fabs(r) < 9e15)
		snprintf(buf, n, "%.0f%s", r, is_time ? "ns" : "");
	else
		snprintf(buf, n, "%.12g%s", v, is_time ? "ns" : "");
}

/* Push a generated value; one a key cannot hold (an integer key given
 * 5062.5 by a geometric range) is rounded to the nearest integer. */
static int range_push(struct axis_build *b, double v, bool is_time, struct tcpsim_err *err)
{
	char text[64];
	struct tcpsim_err e1 = {0};

	number_text(v, is_time, text, sizeof(text));
	if (axis_push(b, text, &e1) == TCPSIM_OK)
		return TCPSIM_OK;
	if (nearbyint(v) != v) {
		snprintf(text, sizeof(text), "%.0f%s", nearbyint(v), is_time ? "ns" : "");
		if (axis_push(b, text, err) == TCPSIM_OK)
			return TCPSIM_OK;
		return err->code;
	}
	*err = e1;
	return err->code;
}

static int parse_range(struct axis_build *b, const char *list, struct tcpsim_err *err)
{
	char *s = xstrdup(list);
	char *c1 = strchr(s, ':');
	char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	char *star = c1 ? strchr(c1 + 1, '*') : NULL;
	double start, stop, step, v;
	bool is_time = false;
	int rc = TCPSIM_OK;

	*c1 = '\0';
	if (c2 && strchr(c2 + 1, ':')) {
		rc = err_set(err, TCPSIM_EUSAGE, "--vary %s: too many ':' (start:stop:step or start:stop*factor)", b->arg);
		goto out;
	}
	if (c2 && star) {
		rc = err_set(err, TCPSIM_EUSAGE, "--vary %s: give a step (start:stop:step) or a factor (start:stop*factor), not both", b->arg);
		goto out;
	}
	if (!c2 && !star) {
		rc = err_set(err, TCPSIM_EUSAGE, "--vary %s: a range is start:stop:step or start:stop*factor", b->arg);
		goto out;
	}
	if (c2)
		*c2 = '\0';
	else
		*star = '\0';
	if ((rc = range_number(b, s, "start", &start, &is_time, err)) ||
	    (rc = range_number(b, c1 + 1, "stop", &stop, &is_time, err)))
		goto out;
	if (start > stop) {
		rc = err_set(err, TCPSIM_EUSAGE, "--vary %s: start is above stop", b->arg);
		goto out;
	}
	if (c2) {
		if ((rc = range_step(b, c2 + 1, &step, is_time, err)))
			goto out;
		if (!(step > 0)) {
			rc = err_set(err, TCPSIM_EUSAGE, "--vary %s: step must be > 0", b->arg);
			goto out;
		}
		if ((stop - start) / step >= SWEEP_MAX_VALUES) {
			rc = err_set(err, TCPSIM_EUSAGE, "--vary %s: more than %d values", b->arg, SWEEP_MAX_VALUES);
			goto out;
		}
		/* value i = start + i * step, not a running sum, so no drift */
		for (long i = 0; (v = start + (double)i * step) <= stop + 1e-9 * fmax(1.0, fabs(stop)); i++)
			if ((rc = range_push(b, v, is_time, err)))
				goto out;
	} else {
		double factor;
		char *end;
		errno = 0;
		factor = strtod(star + 1, &end);
		if (end == star + 1 || *end != '\0' || errno || !(factor > 1.0) || !isfinite(factor)) {
			rc = err_set(err, TCPSIM_EUSAGE, "--vary %s: factor '%s' must be a number > 1", b->arg, star + 1);
			goto out;
		}
		if (!(start > 0)) {
			rc = err_set(err, TCPSIM_EUSAGE, "--vary %s: a geometric range needs start > 0", b->arg);
			goto out;
		}
		for (long i = 0; (v = start * pow(factor, (double)i)) <= stop * (1 + 1e-9); i++)
			if ((rc = range_push(b, v, is_time, err)))
				goto out;
	}
out:
	free(s);
	return rc;
}

static int parse_list(struct axis_build *b, const char *list, struct tcpsim_err *err)
{
	char *s = xstrdup(list);
	char *p = s;
	int rc = TCPSIM_OK;

	for (;;) {
		char *comma = strchr(p, ',');
		char *end;
		if (comma)
			*comma = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		end = p + strlen(p);
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (*p == '\0') {
			rc = err_set(err, TCPSIM_EUSAGE, "--vary %s: empty value in the list", b->arg);
			break;
		}
		if ((rc = axis_push(b, p, err)))
			break;
		if (!comma)
			break;
		p = comma + 1;
	}
	free(s);
	return rc;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Two equal canonical values would make two points one: refuse. */
static int check_distinct(const struct axis_build *b, struct tcpsim_err *err)
{
	int n = b->ax->n_values;
	char **v = xmalloc((size_t)n * sizeof(char *));
	int rc = TCPSIM_OK;

	memcpy(v, b->ax->values, (size_t)n * sizeof(char *));
	qsort(v, (size_t)n, sizeof(char *), cmp_str_ptr);
	for (int i = 1; i < n; i++) {
		if (strcmp(v[i - 1], v[i]) == 0) {
			rc = err_set(err, TCPSIM_EUSAGE, "--vary %s: value %s appears twice", b->arg, v[i]);
			break;
		}
	}
	free(v);
	return rc;
}

int sweep_add_axis(struct sweep *sw, const char *arg, struct tcpsim_err *err)
{
	const char *eq = strchr(arg, '=');
	struct sweep_axis ax;
	struct axis_build b = {.base = &sw->base, .arg = arg, .ax = &ax};
	size_t klen;
	int rc;

	memset(&ax, 0, sizeof(ax));
	if (!eq || eq == arg || eq[1] == '\0')
		return err_set(err, TCPSIM_EUSAGE, "--vary '%s': expected section.key=LIST", arg);
	klen = (size_t)(eq - arg);
	if (klen >= sizeof(ax.key))
		return err_set(err, TCPSIM_EUSAGE, "--vary '%s': key too long", arg);
	memcpy(ax.key, arg, klen);
	if (!config_key_exists(ax.key)) {
		struct scenario sc = sw->base;
		char where[SWEEP_KEY_MAX + 16];
		snprintf(where, sizeof(where), "--vary %s", ax.key);
		/* config_set words the error (with a did-you-mean) */
		if (config_set(&sc, ax.key, eq + 1, where, err) == TCPSIM_OK || !err->code)
			err_set(err, TCPSIM_EUSAGE, "--vary %s: unknown key '%s'", arg, ax.key);
		return err->code;
	}
	if (strcmp(ax.key, "run.seed") == 0)
		return err_set(err, TCPSIM_EUSAGE, "--vary %s: run.seed is set per row (use --reps for repetitions)", arg);
	for (int a = 0; a < sw->n_axes; a++)
		if (strcmp(sw->axes[a].key, ax.key) == 0)
			return err_set(err, TCPSIM_EUSAGE, "--vary %s: %s is already an axis", arg, ax.key);
	if (sw->n_axes == SWEEP_MAX_AXES)
		return err_set(err, TCPSIM_EUSAGE, "--vary %s: at most %d axes", arg, SWEEP_MAX_AXES);

	rc = strchr(eq + 1, ':') ? parse_range(&b, eq + 1, err) : parse_list(&b, eq + 1, err);
	if (rc == TCPSIM_OK && ax.n_values == 0)
		rc = err_set(err, TCPSIM_EUSAGE, "--vary %s: no values", arg);
	if (rc == TCPSIM_OK)
		rc = check_distinct(&b, err);
	if (rc == TCPSIM_OK && sw->n_points > (UINT64_C(1) << 53) / (uint64_t)ax.n_values)
		rc = err_set(err, TCPSIM_EUSAGE, "--vary %s: too many points in all", arg);
	if (rc != TCPSIM_OK) {
		axis_release(&ax);
		return rc;
	}
	sw->n_points *= (uint64_t)ax.n_values;
	sw->axes[sw->n_axes++] = ax;
	return TCPSIM_OK;
}

/* ---- points ---------------------------------------------------------------- */

int sweep_point_value(const struct sweep *sw, uint64_t point, int a)
{
	uint64_t stride = 1;
	for (int b = sw->n_axes - 1; b > a; b--)
		stride *= (uint64_t)sw->axes[b].n_values;
	return (int)((point / stride) % (uint64_t)sw->axes[a].n_values);
}

/* "link.mtu=9000 offload.tso=off" */
static void point_text(const struct sweep *sw, uint64_t point, char *buf, size_t n)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int a = 0; a < sw->n_axes && used < n; a++) {
		int w = snprintf(buf + used, n - used, "%s%s=%s", a ? " " : "", sw->axes[a].key,
				 sw->axes[a].values[sweep_point_value(sw, point, a)]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

int sweep_point_scenario(const struct sweep *sw, uint64_t point, uint32_t rep,
			 struct scenario *sc, struct tcpsim_err *err)
{
	struct tcpsim_err e = {0};
	char seed[32];
	char where[64];

	INVARIANT(point < sw->n_points && rep < (uint32_t)sw->reps, "point %llu rep %u",
		  (unsigned long long)point, rep);
	*sc = sw->base;
	snprintf(where, sizeof(where), "sweep point %llu", (unsigned long long)point);
	for (int a = 0; a < sw->n_axes && !e.code; a++)
		config_set(sc, sw->axes[a].key, sw->axes[a].values[sweep_point_value(sw, point, a)],
			   where, &e);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)sweep_seed(sw->base.seed, point, rep));
	if (!e.code)
		config_set(sc, "run.seed", seed, where, &e);
	if (!e.code)
		config_validate(sc, &e);
	if (e.code) {
		char pt[512];
		point_text(sw, point, pt, sizeof(pt));
		return err_set(err, e.code, "sweep point %llu (%s): %s", (unsigned long long)point, pt, e.msg);
	}
	return TCPSIM_OK;
}

int sweep_parse_shard(const char *arg, int *k, int *n, struct tcpsim_err *err)
{
	char *end1, *end2;
	long kk, nn;

	errno = 0;
	kk = strtol(arg, &end1, 10);
	if (end1 == arg || *end1 != '/')
		goto bad;
	nn = strtol(end1 + 1, &end2, 10);
	if (end2 == end1 + 1 || *end2 != '\0' || errno)
		goto bad;
	if (nn < 1 || nn > 1000000 || kk < 1 || kk > nn)
		return err_set(err, TCPSIM_EUSAGE, "--shard %s: need 1 <= K <= N (N at most 1000000)", arg);
	*k = (int)kk;
	*n = (int)nn;
	return TCPSIM_OK;
bad:
	return err_set(err, TCPSIM_EUSAGE, "--shard '%s': expected K/N, e.g. 2/8", arg);
}

/* ---- rows ------------------------------------------------------------------- */

/* The extra leading columns: point, rep, seed, one per axis. */
struct row_cols {
	const char *v[3 + SWEEP_MAX_AXES];
	char point[24], rep[16], seed[24];
	int n;
};

static void row_cols_header(const struct sweep *sw, struct row_cols *c)
{
	c->v[0] = "point";
	c->v[1] = "rep";
	c->v[2] = "seed";
	for (int a = 0; a < sw->n_axes; a++)
		c->v[3 + a] = sw->axes[a].key;
	c->n = 3 + sw->n_axes;
}

static void row_cols_values(const struct sweep *sw, uint64_t point, uint32_t rep, struct row_cols *c)
{
	snprintf(c->point, sizeof(c->point), "%llu", (unsigned long long)point);
	snprintf(c->rep, sizeof(c->rep), "%u", rep);
	snprintf(c->seed, sizeof(c->seed), "%llu", (unsigned long long)sweep_seed(sw->base.seed, point, rep));
	c->v[0] = c->point;
	c->v[1] = c->rep;
	c->v[2] = c->seed;
	for (int a = 0; a < sw->n_axes; a++)
		c->v[3 + a] = sw->axes[a].values[sweep_point_value(sw, point, a)];
	c->n = 3 + sw->n_axes;
}

char *sweep_header_text(const struct sweep *sw, size_t *len)
{
	struct row_cols c;
	char *buf = NULL;
	FILE *ms = open_memstream(&buf, len);

	INVARIANT(ms != NULL, "open_memstream: %s", strerror(errno));
	row_cols_header(sw, &c);
	INVARIANT(report_csv_header(ms, c.v, c.n) == 0, "formatting the CSV header");
	INVARIANT(fclose(ms) == 0, "open_memstream: %s", strerror(errno));
	return buf;
}

/* The whole CSV line of one finished run. */
static char *row_text(const struct sweep *sw, uint64_t point, uint32_t rep, const struct metrics *m,
		      size_t *len)
{
	struct row_cols c;
	char *buf = NULL;
	FILE *ms = open_memstream(&buf, len);

	INVARIANT(ms != NULL, "open_memstream: %s", strerror(errno));
	row_cols_values(sw, point, rep, &c);
	INVARIANT(report_csv_row(ms, c.v, c.n, m) == 0, "formatting a CSV row");
	INVARIANT(fclose(ms) == 0, "open_memstream: %s", strerror(errno));
	return buf;
}

int sweep_check_row(const struct sweep *sw, const struct sweepfile_row *r, int n_cols,
		    const char *path, uint64_t *point, uint32_t *rep, struct tcpsim_err *err)
{
	char *end;
	unsigned long long p, q, seed;

	if (r->n_fields != n_cols)
		return err_set(err, TCPSIM_EUSAGE, "%s:%ld: %d fields, the header has %d", path, r->line,
			       r->n_fields, n_cols);
	errno = 0;
	p = strtoull(r->fields[0], &end, 10);
	if (end == r->fields[0] || *end || errno || p >= sw->n_points)
		return err_set(err, TCPSIM_EUSAGE, "%s:%ld: column point: '%s' is not a point of this sweep (0..%llu)",
			       path, r->line, r->fields[0], (unsigned long long)sw->n_points - 1);
	q = strtoull(r->fields[1], &end, 10);
	if (end == r->fields[1] || *end || errno || q >= (unsigned long long)sw->reps)
		return err_set(err, TCPSIM_EUSAGE, "%s:%ld: column rep: '%s' is not a rep of this sweep (0..%d)",
			       path, r->line, r->fields[1], sw->reps - 1);
	seed = strtoull(r->fields[2], &end, 10);
	if (end == r->fields[2] || *end || errno || seed != sweep_seed(sw->base.seed, p, (uint32_t)q))
		return err_set(err, TCPSIM_EUSAGE, "%s:%ld: column seed: '%s' is not the seed of point %llu rep %llu",
			       path, r->line, r->fields[2], p, q);
	for (int a = 0; a < sw->n_axes; a++) {
		const char *want = sw->axes[a].values[sweep_point_value(sw, p, a)];
		if (strcmp(r->fields[3 + a], want) != 0)
			return err_set(err, TCPSIM_EUSAGE, "%s:%ld: column %s: '%s', but point %llu has %s",
				       path, r->line, sw->axes[a].key, r->fields[3 + a], p, want);
	}
	*point = p;
	*rep = (uint32_t)q;
	return TCPSIM_OK;
}

/* ---- the task order --------------------------------------------------------- */

/* Tasks of one shard in order: point k-1, k-1+n, ...; reps inside a point. */
struct task_cursor {
	uint64_t point;
	uint32_t rep;
	bool end;
};

static void cursor_first(const struct sweep *sw, int shard_k, struct task_cursor *c)
{
	c->point = (uint64_t)(shard_k - 1);
	c->rep = 0;
	c->end = c->point >= sw->n_points;
}

static void cursor_next(const struct sweep *sw, int shard_n, struct task_cursor *c)
{
	if (++c->rep < (uint32_t)sw->reps)
		return;
	c->rep = 0;
	c->point += (uint64_t)shard_n;
	c->end = c->point >= sw->n_points;
}

static bool bit_get(const uint8_t *bits, uint64_t i) { return bits[i >> 3] & (1u << (i & 7)); }
/* Bit of (point, rep) in a --resume bitmap: the shard's runs only, in order
 * (point % shard_n is the same for every point of the shard). */
static uint64_t done_bit(const struct sweep *sw, int shard_n, uint64_t point, uint32_t rep)
{
	return point / (uint64_t)shard_n * (uint64_t)sw->reps + rep;
}
static void bit_set(uint8_t *bits, uint64_t i) { bits[i >> 3] |= (uint8_t)(1u << (i & 7)); }

/* ---- the engine ----------------------------------------------------------------- */

enum slot_state { SLOT_FREE, SLOT_BUSY, SLOT_DONE };

struct sweep_slot {
	enum slot_state state;
	uint64_t point;
	uint32_t rep;
	char *row;                /* DONE and ok: the line, owned */
	size_t len;
	bool unsettled;           /* DONE and ok: autotuning still moved buffers */
	struct tcpsim_err err;    /* DONE and failed */
};

struct sweep_engine {
	const struct sweep *sw;
	const struct sweep_opts *o;
	pthread_mutex_t mu;
	pthread_cond_t space;     /* a slot was freed, or stopping */
	pthread_cond_t ready;     /* a slot became DONE */
	struct sweep_slot *slots;
	unsigned window;
	struct task_cursor next;  /* the next task to hand out */
	const uint8_t *done;      /* (point * reps + rep) already in the file, or NULL */
	uint64_t n_dispatched, n_written;
	bool stopping;
};

static bool stop_requested(const struct sweep_engine *e)
{
	return e->o->stop && atomic_load(e->o->stop) != 0;
}

/* Skip tasks that --resume found in the file.  Called with mu held. */
static void engine_skip_done(struct sweep_engine *e)
{
	while (e->done && !e->next.end &&
	       bit_get(e->done, done_bit(e->sw, e->o->shard_n, e->next.point, e->next.rep)))
		cursor_next(e->sw, e->o->shard_n, &e->next);
}

static void *engine_worker(void *arg)
{
	struct sweep_engine *e = arg;
	struct metrics *m = xmalloc(sizeof(*m));
	struct scenario *sc = xmalloc(sizeof(*sc));

	pthread_mutex_lock(&e->mu);
	for (;;) {
		struct sweep_slot *s;
		struct tcpsim_err err = {0};
		char *row = NULL;
		size_t len = 0;

		while (!e->stopping && !e->next.end && e->n_dispatched >= e->n_written + e->window)
			pthread_cond_wait(&e->space, &e->mu);
		if (stop_requested(e))
			e->stopping = true;
		if (e->stopping || e->next.end)
			break;
		s = &e->slots[e->n_dispatched % e->window];
		INVARIANT(s->state == SLOT_FREE, "slot %llu busy", (unsigned long long)e->n_dispatched);
		e->n_dispatched++;
		s->state = SLOT_BUSY;
		s->point = e->next.point;
		s->rep = e->next.rep;
		cursor_next(e->sw, e->o->shard_n, &e->next);
		engine_skip_done(e);
		pthread_mutex_unlock(&e->mu);

		memset(m, 0, sizeof(*m));
		if (sweep_point_scenario(e->sw, s->point, s->rep, sc, &err) == TCPSIM_OK &&
		    e->o->run(sc, m, &err) == TCPSIM_OK)
			row = row_text(e->sw, s->point, s->rep, m, &len);
		else if (!err.code)
			err_set(&err, 1, "point %llu: the run failed without a message",
				(unsigned long long)s->point);

		pthread_mutex_lock(&e->mu);
		s->row = row;
		s->len = len;
		s->unsettled = row && !m->buffers_settled;
		s->err = err;
		s->state = SLOT_DONE;
		pthread_cond_signal(&e->ready);
	}
	pthread_mutex_unlock(&e->mu);
	free(sc);
	free(m);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void progress_line(FILE *f, uint64_t done, uint64_t total, uint64_t new_rows, double elapsed,
			  bool last)
{
	double rate = elapsed > 0 ? (double)new_rows / elapsed : 0;
	char eta[32] = "?";

	if (rate > 0) {
		double left = (double)(total - done) / rate;
		long s = (long)(left + 0.5);
		if (s >= 3600)
			snprintf(eta, sizeof(eta), "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
		else
			snprintf(eta, sizeof(eta), "%ld:%02ld", s / 60, s % 60);
	}
	fprintf(f, "\r\033[Ksweep: %llu/%llu runs (%.1f%%)  %.1f runs/s  ETA %s%s",
		(unsigned long long)done, (unsigned long long)total,
		total ? 100.0 * (double)done / (double)total : 100.0, rate, eta, last ? "\n" : "");
	fflush(f);
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, buf, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

/*
 * One row (or the header) whole or not at all: a write that fails part way
 * (a full disk, a file size limit) is cut back to where it began, so the
 * file stays whole rows and --columns, --merge and --resume read it.
 */
static int write_row(int fd, const char *buf, size_t len)
{
	off_t at = lseek(fd, 0, SEEK_CUR);

	if (write_all(fd, buf, len) == 0)
		return 0;
	int e = errno;
	if (at >= 0 && ftruncate(fd, at) == 0)
		lseek(fd, at, SEEK_SET);
	errno = e;
	return -1;
}

/*
 * The writer loop: write DONE slots in seq order until every task is
 * written, or stopping and every dispatched task is written, or a task
 * failed (nothing from it on is written).
 */
static int engine_write(struct sweep_engine *e, int fd, struct sweep_stats *st, struct tcpsim_err *err)
{
	double t0 = now_s(), last_progress = 0;
	int rc = TCPSIM_OK;

	pthread_mutex_lock(&e->mu);
	for (;;) {
		struct sweep_slot *s = &e->slots[e->n_written % e->window];
		if (e->n_written < e->n_dispatched && s->state == SLOT_DONE) {
			char *row = s->row;
			size_t len = s->len;
			if (!row) {
				*err = s->err;
				rc = err->code;
				break;
			}
			pthread_mutex_unlock(&e->mu);
			if (write_row(fd, row, len) != 0) {
				rc = err_set(err, TCPSIM_EIO, "cannot write '%s': %s", e->o->out_path, strerror(errno));
				pthread_mutex_lock(&e->mu);
				break;
			}
			free(row);
			pthread_mutex_lock(&e->mu);
			s->row = NULL;
			s->state = SLOT_FREE;
			e->n_written++;
			st->rows_written++;
			st->rows_unsettled += s->unsettled;
			pthread_cond_broadcast(&e->space);
			continue;
		}
		if (stop_requested(e) && !e->stopping) {
			e->stopping = true;
			pthread_cond_broadcast(&e->space);
		}
		if ((e->stopping || e->next.end) && e->n_written == e->n_dispatched)
			break;
		{
			/* a poll of *stop and the progress line every 100 ms */
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_nsec += 100 * 1000 * 1000;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&e->ready, &e->mu, &ts);
		}
		if (e->o->progress && now_s() - last_progress >= 0.5) {
			last_progress = now_s();
			progress_line(e->o->progress, st->rows_before + st->rows_written, st->rows_shard,
				      st->rows_written, last_progress - t0, false);
		}
	}
	st->interrupted = rc == TCPSIM_OK && !e->next.end;
	e->stopping = true;
	pthread_cond_broadcast(&e->space);
	pthread_mutex_unlock(&e->mu);
	if (e->o->progress)
		progress_line(e->o->progress, st->rows_before + st->rows_written, st->rows_shard,
			      st->rows_written, now_s() - t0, true);
	return rc;
}

/* ---- output file: fresh or resumed ---------------------------------------- */

static uint64_t shard_rows(const struct sweep *sw, int k, int n)
{
	uint64_t first = (uint64_t)(k - 1);
	if (first >= sw->n_points)
		return 0;
	return ((sw->n_points - 1 - first) / (uint64_t)n + 1) * (uint64_t)sw->reps;
}

/* Cut a torn last line (no newline) off; *keep is the new size. */
static int cut_torn_tail(int fd, const char *path, off_t size, off_t *keep, struct tcpsim_err *err)
{
	char buf[4096];
	off_t end = size;

	*keep = 0;
	while (end > 0) {
		off_t from = end > (off_t)sizeof(buf) ? end - (off_t)sizeof(buf) : 0;
		ssize_t n = pread(fd, buf, (size_t)(end - from), from);
		if (n != end - from)
			return err_set(err, TCPSIM_EIO, "cannot read '%s': %s", path, strerror(errno));
		for (ssize_t i = n - 1; i >= 0; i--) {
			if (buf[i] == '\n') {
				*keep = from + i + 1;
				goto found;
			}
		}
		end = from;
	}
found:
	if (*keep < size && ftruncate(fd, *keep) != 0)
		return err_set(err, TCPSIM_EIO, "cannot truncate '%s': %s", path, strerror(errno));
	return TCPSIM_OK;
}

/*
 * Read what an earlier run left in OUT.csv into the done bitmap.  The
 * header must be this sweep's; every row must be a row of this shard,
 * with its seed and axis values, once.  *prefix: the rows are exactly the
 * first tasks of the shard in order (what an interrupted run leaves).
 */
static int resume_scan(const struct sweep *sw, const struct sweep_opts *o, const char *header,
		       size_t header_len, uint8_t *done, struct sweep_stats *st, bool *prefix,
		       struct tcpsim_err *err)
{
	struct sweepfile_reader r;
	struct task_cursor c;
	bool got;
	int n_cols = 0, rc;

	*prefix = true;
	cursor_first(sw, o->shard_k, &c);
	if ((rc = sweepfile_open(&r, o->out_path, err)) != TCPSIM_OK)
		return rc;
	while ((rc = sweepfile_next(&r, &got, err)) == TCPSIM_OK && got) {
		uint64_t p;
		uint32_t q;
		if (r.row.line == 1 && n_cols == 0) {
			if (r.row.raw_len != header_len || memcmp(r.row.raw, header, header_len) != 0) {
				rc = err_set(err, TCPSIM_EUSAGE,
					     "%s:1: the header is not this sweep's columns; it belongs to another sweep (use another -o, or remove it)",
					     o->out_path);
				break;
			}
			n_cols = r.row.n_fields;
			continue;
		}
		if ((rc = sweep_check_row(sw, &r.row, n_cols, o->out_path, &p, &q, err)) != TCPSIM_OK)
			break;
		if (p % (uint64_t)o->shard_n != (uint64_t)(o->shard_k - 1)) {
			rc = err_set(err, TCPSIM_EUSAGE, "%s:%ld: point %llu is not in shard %d/%d",
				     o->out_path, r.row.line, (unsigned long long)p, o->shard_k, o->shard_n);
			break;
		}
		if (bit_get(done, done_bit(sw, o->shard_n, p, q))) {
			rc = err_set(err, TCPSIM_EUSAGE, "%s:%ld: point %llu rep %u appears twice",
				     o->out_path, r.row.line, (unsigned long long)p, q);
			break;
		}
		bit_set(done, done_bit(sw, o->shard_n, p, q));
		st->rows_before++;
		if (*prefix && !c.end && c.point == p && c.rep == q)
			cursor_next(sw, o->shard_n, &c);
		else
			*prefix = false;
	}
	if (rc == TCPSIM_OK && n_cols == 0)
		rc = err_set(err, TCPSIM_EUSAGE, "%s: no header row", o->out_path);
	sweepfile_close(&r);
	return rc;
}

/* Open OUT.csv for appending rows: fresh (sidecar + header) or resumed. */
static int output_prepare(const struct sweep *sw, const struct sweep_opts *o, uint8_t **done,
			  struct sweep_stats *st, int *fd_out, struct tcpsim_err *err)
{
	size_t header_len, side_len;
	char *header = sweep_header_text(sw, &header_len);
	char *side = sweepfile_sidecar_text(sw, o->shard_k, o->shard_n, &side_len);
	char *side_path = sweepfile_sidecar_path(o->out_path);
	struct stat stb;
	int fd = -1, rc = TCPSIM_OK;
	bool fresh = true;

	*done = NULL;
	if (stat(o->out_path, &stb) == 0) {
		off_t keep;
		if (!o->resume) {
			rc = err_set(err, TCPSIM_EUSAGE, "%s exists: add --resume to finish that sweep, or remove it",
				     o->out_path);
			goto out;
		}
		if ((rc = sweepfile_sidecar_check(side_path, side, side_len, "is not the sidecar of this sweep",
						  err)) != TCPSIM_OK)
			goto out;
		fd = open(o->out_path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			rc = err_set(err, TCPSIM_EIO, "cannot open '%s': %s", o->out_path, strerror(errno));
			goto out;
		}
		if ((rc = cut_torn_tail(fd, o->out_path, stb.st_size, &keep, err)) != TCPSIM_OK)
			goto out;
		st->torn_bytes = (uint64_t)(stb.st_size - keep);
		if (keep > 0) {
			bool prefix;
			*done = xcalloc((size_t)(st->rows_shard / 8 + 1), 1);
			if ((rc = resume_scan(sw, o, header, header_len, *done, st, &prefix, err)) != TCPSIM_OK)
				goto out;
			st->out_of_order = !prefix;
			fresh = false;
			if (lseek(fd, 0, SEEK_END) < 0) {
				rc = err_set(err, TCPSIM_EIO, "cannot seek '%s': %s", o->out_path, strerror(errno));
				goto out;
			}
		}
		/* else: not even a whole header, start over in this file */
	}
	if (fresh) {
		if ((rc = outfile_write_whole(side_path, NULL, side, side_len, err)) != TCPSIM_OK)
			goto out;
		if (fd < 0)
			fd = open(o->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (fd < 0 || write_row(fd, header, header_len) != 0) {
			rc = err_set(err, TCPSIM_EIO, "cannot write '%s': %s", o->out_path, strerror(errno));
			goto out;
		}
	}
out:
	if (rc != TCPSIM_OK && fd >= 0) {
		close(fd);
		fd = -1;
	}
	if (rc != TCPSIM_OK) {
		free(*done);
		*done = NULL;
	}
	*fd_out = fd;
	free(header);
	free(side);
	free(side_path);
	return rc;
}

/* Every point of the shard must be a valid scenario (cross-key checks):
 * fail before anything is written, not hours into the sweep. */
static int check_points(const struct sweep *sw, const struct sweep_opts *o, struct tcpsim_err *err)
{
	struct scenario *sc = xmalloc(sizeof(*sc));
	uint64_t total = shard_rows(sw, o->shard_k, o->shard_n) / (uint64_t)sw->reps, i = 0;
	double t0 = now_s(), last = t0;
	bool shown = false;
	int rc = TCPSIM_OK;

	for (uint64_t p = (uint64_t)(o->shard_k - 1); p < sw->n_points && rc == TCPSIM_OK;
	     p += (uint64_t)o->shard_n, i++) {
		rc = sweep_point_scenario(sw, p, 0, sc, err);
		if (o->progress && (i & 1023) == 1023 && now_s() - last >= 0.5) {
			last = now_s();
			fprintf(o->progress, "\r\033[Ksweep: checking point %llu/%llu (%.1f%%)",
				(unsigned long long)i + 1, (unsigned long long)total,
				100.0 * (double)(i + 1) / (double)total);
			fflush(o->progress);
			shown = true;
		}
	}
	if (shown) {
		fputs("\r\033[K", o->progress);
		fflush(o->progress);
	}
	free(sc);
	return rc;
}

/* The bound of sweep.h, before any allocation or pre-check. */
static int check_size(const struct sweep *sw, const struct sweep_opts *o, struct tcpsim_err *err)
{
	uint64_t points = sw->n_points > (uint64_t)(o->shard_k - 1)
				  ? (sw->n_points - (uint64_t)o->shard_k) / (uint64_t)o->shard_n + 1 : 0;
	char shard[48] = "";

	if (points <= SWEEP_MAX_RUNS / (uint64_t)sw->reps)
		return TCPSIM_OK;
	if (o->shard_n > 1)
		snprintf(shard, sizeof shard, " in shard %d/%d", o->shard_k, o->shard_n);
	return err_set(err, TCPSIM_EUSAGE,
		       "the sweep has %llu points x %d reps%s = %.3g runs, more than the %llu one "
		       "tcpsim sweep runs (narrow the --vary lists, or split it with --shard K/N, "
		       "N >= %llu)", (unsigned long long)points, sw->reps, shard,
		       (double)points * sw->reps, SWEEP_MAX_RUNS,
		       (unsigned long long)(((double)sw->n_points * sw->reps + (double)SWEEP_MAX_RUNS - 1) /
					    (double)SWEEP_MAX_RUNS));
}

int sweep_run(const struct sweep *sw, const struct sweep_opts *o, struct sweep_stats *st,
	      struct tcpsim_err *err)
{
	struct sweep_engine e = {.sw = sw, .o = o};
	pthread_condattr_t ca;
	pthread_t *tid;
	uint8_t *done = NULL;
	double t0 = now_s();
	int fd, rc, started = 0;

	memset(st, 0, sizeof(*st));
	INVARIANT(o->jobs >= 1 && o->shard_n >= 1 && o->shard_k >= 1 && o->shard_k <= o->shard_n &&
		  sw->reps >= 1 && o->run, "bad sweep options (jobs %d, shard %d/%d, reps %d)",
		  o->jobs, o->shard_k, o->shard_n, sw->reps);
	if ((rc = check_size(sw, o, err)) != TCPSIM_OK)
		return rc;
	st->rows_shard = shard_rows(sw, o->shard_k, o->shard_n);
	if ((rc = check_points(sw, o, err)) != TCPSIM_OK)
		return rc;
	if ((rc = output_prepare(sw, o, &done, st, &fd, err)) != TCPSIM_OK)
		return rc;

	e.window = o->window ? o->window : 8u * (unsigned)o->jobs + 8u;
	e.slots = xcalloc(e.window, sizeof(*e.slots));
	e.done = done;
	cursor_first(sw, o->shard_k, &e.next);
	engine_skip_done(&e);
	pthread_mutex_init(&e.mu, NULL);
	pthread_cond_init(&e.space, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* timed waits immune to clock steps */
	pthread_cond_init(&e.ready, &ca);
	pthread_condattr_destroy(&ca);

	tid = xcalloc((size_t)o->jobs, sizeof(*tid));
	for (int i = 0; i < o->jobs; i++) {
		if (pthread_create(&tid[i], NULL, engine_worker, &e) != 0)
			break;
		started++;
	}
	if (started == 0) {
		rc = err_set(err, 1, "cannot start worker threads: %s", strerror(errno));
		pthread_mutex_lock(&e.mu);
		e.stopping = true;
		pthread_mutex_unlock(&e.mu);
	} else {
		rc = engine_write(&e, fd, st, err);
	}
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	for (unsigned i = 0; i < e.window; i++)
		free(e.slots[i].row);
	if (fsync(fd) != 0 && rc == TCPSIM_OK)
		rc = err_set(err, TCPSIM_EIO, "cannot write '%s': %s", o->out_path, strerror(errno));
	if (close(fd) != 0 && rc == TCPSIM_OK)
		rc = err_set(err, TCPSIM_EIO, "cannot write '%s': %s", o->out_path, strerror(errno));
	pthread_cond_destroy(&e.ready);
	pthread_cond_destroy(&e.space);
	pthread_mutex_destroy(&e.mu);
	free(tid);
	free(e.slots);
	free(done);
	st->elapsed_s = now_s() - t0;
	return rc;
}
