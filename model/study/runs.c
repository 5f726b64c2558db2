/*
 * runs: recorded-run CSV files (see runs.h for the format and the rules).
 *
 * Reading feeds libcsv one byte at a time so that every record can be
 * traced to the line where it starts (libcsv itself reports no positions);
 * the files are small (tens of rows), so the cost does not matter.
 * Records are checked as they complete, into a scratch set that is merged
 * into the caller's set only once the whole file is good.
 */
#include "runs.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csvread.h"
#include "outfile.h"
#include "datadir.h"
#include "util.h"

enum run_col {
	COL_ID,
	COL_SOURCE,
	COL_SCENARIO,
	COL_OVERRIDES,
	COL_NOTE,
	COL_METRIC,
	COL_CV,
	COL_MEASURED, /* runs_column_measured_only(): accepted, not kept */
};

/* Meta columns, in the order they are written; `required` ones must exist. */
static const struct {
	const char *name;
	enum run_col col;
	int required;
} meta_cols[] = {
	{"id", COL_ID, 1},
	{"source", COL_SOURCE, 1},
	{"scenario", COL_SCENARIO, 1},
	{"overrides", COL_OVERRIDES, 1},
	{"note", COL_NOTE, 0},
};

#define CV_SUFFIX "_cv"

int runs_column_measured_only(const char *name)
{
	/* the per-CPU, pacing and TcpExt figures of tools/live-agg */
	static const char *const prefix[] = {"snd_cpu_", "rcv_cpu_", "tcpext_"};
	static const char *const whole[] = {"pace_kicks_per_s", "writes_per_s"};
	size_t nl = strlen(name), sl = strlen(CV_SUFFIX);
	if (nl > sl && strcmp(name + nl - sl, CV_SUFFIX) == 0)
		nl -= sl;
	{ /* a metric of the model (or its _cv) is not measured-only */
		char base[128];
		if (nl < sizeof(base)) {
			memcpy(base, name, nl);
			base[nl] = '\0';
			if (metric_find(base) >= 0)
				return 0;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(prefix); i++)
		if (nl > strlen(prefix[i]) && strncmp(name, prefix[i], strlen(prefix[i])) == 0)
			return 1;
	for (size_t i = 0; i < ARRAY_SIZE(whole); i++)
		if (nl == strlen(whole[i]) && strncmp(name, whole[i], nl) == 0)
			return 1;
	return 0;
}

/* ---------------------------------------------------------------- helpers */

static void run_init_values(struct recorded_run *r)
{
	for (int i = 0; i < METRIC_N; i++) {
		r->v[i] = NAN;
		r->cv[i] = NAN;
	}
}

static void run_release(struct recorded_run *r)
{
	free(r->id);
	free(r->source);
	free(r->scenario);
	free(r->overrides);
	free(r->note);
	free(r->file);
	runs_overrides_free(r->ov, r->n_ov);
	memset(r, 0, sizeof(*r));
}

static struct recorded_run *set_push(struct run_set *rs)
{
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? 2 * rs->cap : 16;
		rs->runs = xrealloc(rs->runs, (size_t)rs->cap * sizeof(rs->runs[0]));
	}
	struct recorded_run *r = &rs->runs[rs->n++];
	memset(r, 0, sizeof(*r));
	run_init_values(r);
	return r;
}

/* FNV-1a, 64 bits */
static uint64_t id_hash(const char *s)
{
	uint64_t h = 14695981039346656037ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void index_put(struct run_set *rs, int i)
{
	size_t mask = (size_t)rs->id_index_cap - 1, k = (size_t)id_hash(rs->runs[i].id) & mask;
	while (rs->id_index[k] >= 0)
		k = (k + 1) & mask;
	rs->id_index[k] = i;
}

/* Bring the index up to rs->n runs, at most half full. */
static void index_sync(struct run_set *rs)
{
	if ((size_t)rs->n * 2 >= (size_t)rs->id_index_cap) {
		int cap = 64;
		while (cap <= 2 * rs->n)
			cap *= 2;
		free(rs->id_index);
		rs->id_index = xmalloc((size_t)cap * sizeof(int));
		memset(rs->id_index, 0xff, (size_t)cap * sizeof(int));   /* -1 everywhere */
		rs->id_index_cap = cap;
		rs->id_indexed = 0;
	}
	for (; rs->id_indexed < rs->n; rs->id_indexed++)
		index_put(rs, rs->id_indexed);
}

static const struct recorded_run *set_find(struct run_set *rs, const char *id)
{
	if (!rs || rs->n == 0)
		return NULL;
	index_sync(rs);
	size_t mask = (size_t)rs->id_index_cap - 1, k = (size_t)id_hash(id) & mask;
	for (; rs->id_index[k] >= 0; k = (k + 1) & mask)
		if (strcmp(rs->runs[rs->id_index[k]].id, id) == 0)
			return &rs->runs[rs->id_index[k]];
	return NULL;
}

/* Copy s without leading and trailing blanks. */
static char *dup_trimmed(const char *s, size_t len)
{
	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r' ||
		       s[len - 1] == '\n'))
		len--;
	char *d = xmalloc(len + 1);
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

/* Where a duplicate lives, for messages: " (first at FILE:LINE)" or "". */
static void where_of(const struct recorded_run *r, char *buf, size_t n)
{
	if (r->file && r->line)
		snprintf(buf, n, " (first at %s:%d)", r->file, r->line);
	else
		buf[0] = '\0';
}

/*
 * Parse a metric cell: 0 empty (not measured), 1 number in *out, -1 not a
 * number, -2 negative.  Metrics are rates, percentages and ratios: never
 * negative, never infinite.
 */
static int parse_metric(const char *s, double *out)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return 0;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	if (end == s || *end || errno == ERANGE || !isfinite(v))
		return -1;
	if (v < 0)
		return -2;
	*out = v;
	return 1;
}

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;
	return m < c ? m : c;
}

/* Levenshtein distance, for did-you-mean. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = xmalloc((lb + 1) * sizeof(*row));
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			row[j] = min3(row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1]));
			diag = up;
		}
	}
	size_t d = row[lb];
	free(row);
	return d;
}

/* The known column name closest to `name`, if close enough; else NULL. */
static const char *closest_column(const char *name, char *buf, size_t n)
{
	size_t best = (size_t)-1;
	const char *best_name = NULL;
	char cand[128];
	for (size_t i = 0; i < ARRAY_SIZE(meta_cols) + 2 * METRIC_N; i++) {
		if (i < ARRAY_SIZE(meta_cols)) {
			snprintf(cand, sizeof(cand), "%s", meta_cols[i].name);
		} else {
			size_t m = (i - ARRAY_SIZE(meta_cols)) / 2;
			int cv = (i - ARRAY_SIZE(meta_cols)) % 2;
			snprintf(cand, sizeof(cand), "%s%s", metric_table[m].name, cv ? CV_SUFFIX : "");
		}
		size_t d = edit_distance(name, cand);
		if (d < best) {
			best = d;
			snprintf(buf, n, "%s", cand);
			best_name = buf;
		}
	}
	size_t limit = strlen(name) / 3;
	if (limit < 2)
		limit = 2;
	return best <= limit ? best_name : NULL;
}

/* ------------------------------------------------------------ overrides */

void runs_overrides_free(struct run_override *ov, int n)
{
	for (int i = 0; i < n; i++) {
		free(ov[i].assignment);
		free(ov[i].key);
		free(ov[i].value);
	}
	free(ov);
}

/* "section.key": two non-empty names around one '.', no blanks inside. */
static int valid_key(const char *k)
{
	const char *dot = strchr(k, '.');
	if (!dot || dot == k || !dot[1] || strchr(dot + 1, '.'))
		return 0;
	for (const char *p = k; *p; p++)
		if (*p == ' ' || *p == '\t')
			return 0;
	return 1;
}

bool runs_overrides_set(const struct run_override *ov, int n, const char *key, const char *values)
{
	for (int k = 0; k < n; k++) {
		size_t vlen = strlen(ov[k].value);
		const char *p = values;
		if (strcmp(ov[k].key, key) != 0)
			continue;
		for (;;) {
			const char *e = strchr(p, ',');
			size_t len = e ? (size_t)(e - p) : strlen(p);
			if (len == vlen && strncmp(p, ov[k].value, vlen) == 0)
				return true;
			if (!e)
				break;
			p = e + 1;
		}
	}
	return false;
}

int runs_overrides_split(const char *text, const char *where, struct run_override **ov,
			 int *n, struct tcpsim_err *err)
{
	*ov = NULL;
	*n = 0;
	if (!text)
		return TCPSIM_OK;
	int cap = 0;
	const char *p = text;
	for (;;) {
		const char *semi = strchr(p, ';');
		size_t len = semi ? (size_t)(semi - p) : strlen(p);
		char *piece = dup_trimmed(p, len);
		if (piece[0]) {
			char *eq = strchr(piece, '=');
			char *key = eq ? dup_trimmed(piece, (size_t)(eq - piece)) : NULL;
			if (!eq || !valid_key(key)) {
				err_set(err, TCPSIM_EUSAGE,
					"%s: '%s' is not section.key=value", where, piece);
				free(key);
				free(piece);
				runs_overrides_free(*ov, *n);
				*ov = NULL;
				*n = 0;
				return TCPSIM_EUSAGE;
			}
			if (*n == cap) {
				cap = cap ? 2 * cap : 4;
				*ov = xrealloc(*ov, (size_t)cap * sizeof(**ov));
			}
			struct run_override *o = &(*ov)[(*n)++];
			o->key = key;
			o->value = dup_trimmed(eq + 1, strlen(eq + 1));
			size_t alen = strlen(key) + strlen(o->value) + 2;
			o->assignment = xmalloc(alen);
			snprintf(o->assignment, alen, "%s=%s", key, o->value);
		}
		free(piece);
		if (!semi)
			break;
		p = semi + 1;
	}
	return TCPSIM_OK;
}

/* ------------------------------------------------------------------ set */

void runs_init(struct run_set *rs)
{
	memset(rs, 0, sizeof(*rs));
}

void runs_free(struct run_set *rs)
{
	for (int i = 0; i < rs->n; i++)
		run_release(&rs->runs[i]);
	free(rs->runs);
	free(rs->id_index);
	memset(rs, 0, sizeof(*rs));
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

char *runs_scenario_path(const struct recorded_run *r)
{
	const char *s = r->scenario;
	char *dir, *cand;

	if (s[0] == '/')
		return xstrdup(s);
	dir = r->file ? realpath(r->file, NULL) : NULL;
	while (dir) {
		char *slash = strrchr(dir, '/');
		if (!slash) {
			free(dir);
			break;
		}
		*slash = '\0';   /* the directory above; "" is / */
		cand = datadir_join(*dir ? dir : "/", s);
		if (datadir_exists(cand)) {
			free(dir);
			if (same_file(cand, s)) {
				free(cand);
				return xstrdup(s);
			}
			return cand;
		}
		free(cand);
		if (!*dir) {
			free(dir);
			break;
		}
	}
	return datadir_find(s);
}

const struct recorded_run *runs_find(const struct run_set *rs, const char *id)
{
	for (int i = 0; i < rs->n; i++)   /* const: no index update; a lookup, not a load */
		if (strcmp(rs->runs[i].id, id) == 0)
			return &rs->runs[i];
	return NULL;
}

struct recorded_run *runs_add(struct run_set *rs, const char *id, const char *source,
			      const char *scenario, const char *overrides, const char *note,
			      struct tcpsim_err *err)
{
	if (!id || !*id) {
		err_set(err, TCPSIM_EUSAGE, "recorded run: empty id");
		return NULL;
	}
	if (!source || !*source || !scenario || !*scenario) {
		err_set(err, TCPSIM_EUSAGE, "run '%s': %s is empty", id,
			!source || !*source ? "source" : "scenario");
		return NULL;
	}
	const struct recorded_run *dup = set_find(rs, id);
	if (dup) {
		char w[600];
		where_of(dup, w, sizeof(w));
		err_set(err, TCPSIM_EUSAGE, "duplicate id '%s'%s", id, w);
		return NULL;
	}
	struct run_override *ov;
	int n_ov;
	char where[300];
	snprintf(where, sizeof(where), "run '%s': overrides", id);
	if (runs_overrides_split(overrides, where, &ov, &n_ov, err))
		return NULL;
	struct recorded_run *r = set_push(rs);
	r->id = xstrdup(id);
	r->source = xstrdup(source);
	r->scenario = xstrdup(scenario);
	r->overrides = xstrdup(overrides ? overrides : "");
	r->note = xstrdup(note ? note : "");
	r->ov = ov;
	r->n_ov = n_ov;
	return r;
}

/* ------------------------------------------------------------- reading */

struct runs_reader {
	const char *path;
	struct tcpsim_err *err;
	struct run_set *existing;        /* checked for duplicate ids */
	struct run_set got;              /* rows read so far */

	int rec_line;                    /* line where the current record began */
	char **fields;                   /* fields of the current record (csvread's) */
	int nf;

	int ncols;                       /* 0 until the header is read */
	char **colname;
	enum run_col *coltype;
	int *colmetric;
};

static int read_header(struct runs_reader *rd)
{
	const char *P = rd->path;
	int L = rd->rec_line;
	rd->ncols = rd->nf;
	rd->colname = xcalloc((size_t)rd->nf, sizeof(rd->colname[0]));
	rd->coltype = xcalloc((size_t)rd->nf, sizeof(rd->coltype[0]));
	rd->colmetric = xcalloc((size_t)rd->nf, sizeof(rd->colmetric[0]));
	for (int c = 0; c < rd->nf; c++) {
		char *name = dup_trimmed(rd->fields[c], strlen(rd->fields[c]));
		rd->colname[c] = name;
		rd->colmetric[c] = -1;
		if (!name[0])
			return err_set(rd->err, TCPSIM_EUSAGE, "%s:%d: column %d has no name", P, L,
				       c + 1);
		for (int k = 0; k < c; k++)
			if (strcmp(rd->colname[k], name) == 0)
				return err_set(rd->err, TCPSIM_EUSAGE,
					       "%s:%d: column '%s' appears twice (columns %d and %d)",
					       P, L, name, k + 1, c + 1);
		int known = 0;
		for (size_t k = 0; k < ARRAY_SIZE(meta_cols); k++)
			if (strcmp(meta_cols[k].name, name) == 0) {
				rd->coltype[c] = meta_cols[k].col;
				known = 1;
			}
		if (!known && (rd->colmetric[c] = metric_find(name)) >= 0) {
			rd->coltype[c] = COL_METRIC;
			known = 1;
		}
		size_t nl = strlen(name), sl = strlen(CV_SUFFIX);
		if (!known && nl > sl && strcmp(name + nl - sl, CV_SUFFIX) == 0) {
			char *base = dup_trimmed(name, nl - sl);
			rd->colmetric[c] = metric_find(base);
			free(base);
			if (rd->colmetric[c] >= 0) {
				rd->coltype[c] = COL_CV;
				known = 1;
			}
		}
		if (!known && runs_column_measured_only(name)) {
			rd->coltype[c] = COL_MEASURED;
			known = 1;
		}
		if (!known) {
			char sug[128];
			const char *s = closest_column(name, sug, sizeof(sug));
			if (s)
				return err_set(rd->err, TCPSIM_EUSAGE,
					       "%s:%d: unknown column '%s' (did you mean '%s'?)", P, L,
					       name, s);
			return err_set(rd->err, TCPSIM_EUSAGE,
				       "%s:%d: unknown column '%s' (not a metric of metrics.h, "
				       "a meta column or <metric>_cv)",
				       P, L, name);
		}
	}
	for (size_t k = 0; k < ARRAY_SIZE(meta_cols); k++) {
		if (!meta_cols[k].required)
			continue;
		int found = 0;
		for (int c = 0; c < rd->ncols; c++)
			found |= rd->coltype[c] == meta_cols[k].col;
		if (!found)
			return err_set(rd->err, TCPSIM_EUSAGE,
				       "%s:%d: missing required column '%s'", P, L,
				       meta_cols[k].name);
	}
	return TCPSIM_OK;
}

static int read_row(struct runs_reader *rd)
{
	const char *P = rd->path;
	int L = rd->rec_line;
	if (rd->nf != rd->ncols)
		return err_set(rd->err, TCPSIM_EUSAGE, "%s:%d: row has %d field%s, header has %d",
			       P, L, rd->nf, rd->nf == 1 ? "" : "s", rd->ncols);
	const char *meta[COL_NOTE + 1] = {0};
	for (int c = 0; c < rd->ncols; c++)
		if (rd->coltype[c] <= COL_NOTE)
			meta[rd->coltype[c]] = rd->fields[c];
	char *id = dup_trimmed(meta[COL_ID], strlen(meta[COL_ID]));
	int rc = TCPSIM_OK;
	const struct recorded_run *dup;
	if (!id[0]) {
		rc = err_set(rd->err, TCPSIM_EUSAGE, "%s:%d: column 'id': empty", P, L);
	} else if ((dup = set_find(rd->existing, id)) || (dup = set_find(&rd->got, id))) {
		char w[600];
		where_of(dup, w, sizeof(w));
		rc = err_set(rd->err, TCPSIM_EUSAGE, "%s:%d: duplicate id '%s'%s", P, L, id, w);
	}
	for (int k = COL_SOURCE; !rc && k <= COL_SCENARIO; k++) {
		const char *s = meta[k];
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			rc = err_set(rd->err, TCPSIM_EUSAGE, "%s:%d: column '%s': empty%s", P, L,
				     k == COL_SOURCE ? "source" : "scenario",
				     k == COL_SOURCE ? " (a recorded run needs a citation)" : "");
	}
	struct run_override *ov = NULL;
	int n_ov = 0;
	if (!rc) {
		char where[600];
		snprintf(where, sizeof(where), "%s:%d: column 'overrides'", P, L);
		rc = runs_overrides_split(meta[COL_OVERRIDES], where, &ov, &n_ov, rd->err);
	}
	double v[METRIC_N], cv[METRIC_N];
	for (int i = 0; i < METRIC_N; i++)
		v[i] = cv[i] = NAN;
	for (int c = 0; !rc && c < rd->ncols; c++) {
		if (rd->coltype[c] != COL_METRIC && rd->coltype[c] != COL_CV)
			continue;
		double x;
		int st = parse_metric(rd->fields[c], &x);
		if (st == -1)
			rc = err_set(rd->err, TCPSIM_EUSAGE, "%s:%d: column '%s': '%s' is not a number",
				     P, L, rd->colname[c], rd->fields[c]);
		else if (st == -2)
			rc = err_set(rd->err, TCPSIM_EUSAGE, "%s:%d: column '%s': '%s' is negative",
				     P, L, rd->colname[c], rd->fields[c]);
		else if (st == 1)
			(rd->coltype[c] == COL_METRIC ? v : cv)[rd->colmetric[c]] = x;
	}
	if (rc) {
		runs_overrides_free(ov, n_ov);
		free(id);
		return rc;
	}
	struct recorded_run *r = set_push(&rd->got);
	r->id = id;
	r->source = dup_trimmed(meta[COL_SOURCE], strlen(meta[COL_SOURCE]));
	r->scenario = dup_trimmed(meta[COL_SCENARIO], strlen(meta[COL_SCENARIO]));
	r->overrides = dup_trimmed(meta[COL_OVERRIDES], strlen(meta[COL_OVERRIDES]));
	r->note = meta[COL_NOTE] ? dup_trimmed(meta[COL_NOTE], strlen(meta[COL_NOTE]))
				 : xstrdup("");
	r->ov = ov;
	r->n_ov = n_ov;
	memcpy(r->v, v, sizeof(v));
	memcpy(r->cv, cv, sizeof(cv));
	r->file = xstrdup(P);
	r->line = L;
	return TCPSIM_OK;
}

static int on_record(void *data, struct csvread_rec *rec, struct tcpsim_err *err)
{
	struct runs_reader *rd = data;
	(void)err; /* rd->err */
	rd->fields = rec->field;
	rd->nf = rec->n;
	rd->rec_line = rec->line;
	return rd->ncols == 0 ? read_header(rd) : read_row(rd);
}

static void reader_release(struct runs_reader *rd)
{
	for (int c = 0; c < rd->ncols; c++)
		free(rd->colname[c]);
	free(rd->colname);
	free(rd->coltype);
	free(rd->colmetric);
	runs_free(&rd->got);
}

int runs_load(struct run_set *rs, const char *path, struct tcpsim_err *err)
{
	struct tcpsim_err local;
	err_clear(&local);
	struct runs_reader rd = {.path = path, .err = &local, .existing = rs};
	runs_init(&rd.got);

	if (csvread_file(path, "recorded runs", on_record, &rd, &local)) {
		reader_release(&rd);
		return err_set(err, local.code, "%s", local.msg);
	}
	for (int i = 0; i < rd.got.n; i++) {
		struct recorded_run *dst = set_push(rs);
		*dst = rd.got.runs[i];
	}
	rd.got.n = 0; /* moved */
	reader_release(&rd);
	return TCPSIM_OK;
}

/* ------------------------------------------------------------- writing */

/* Shortest "%.Ng" (N = 15..17) that reads back as exactly v. */
static void format_number(char *buf, size_t n, double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

static int put_field(FILE *f, const char *s, int first)
{
	if (!first && fputc(',', f) == EOF)
		return -1;
	return csv_fwrite(f, s, strlen(s));
}

int runs_write(const struct run_set *rs, const char *path, struct tcpsim_err *err)
{
	int has_v[METRIC_N] = {0}, has_cv[METRIC_N] = {0}, has_note = 0;
	for (int i = 0; i < rs->n; i++) {
		const struct recorded_run *r = &rs->runs[i];
		for (int m = 0; m < METRIC_N; m++) {
			has_v[m] |= !isnan(r->v[m]) || m < METRIC_CONTRACT_N;
			has_cv[m] |= !isnan(r->cv[m]);
		}
		has_note |= r->note && r->note[0];
	}
	if (rs->n == 0)
		for (int m = 0; m < METRIC_CONTRACT_N; m++)
			has_v[m] = 1;

	struct outfile o;
	int rc = outfile_open(&o, path, "recorded runs", err);
	if (rc != TCPSIM_OK)
		return rc;
	FILE *f = o.f;
	int bad = 0;
	char name[128];
	for (size_t k = 0; k < ARRAY_SIZE(meta_cols) - 1; k++) /* note goes last */
		bad |= put_field(f, meta_cols[k].name, k == 0);
	for (int m = 0; m < METRIC_N; m++)
		if (has_v[m])
			bad |= put_field(f, metric_table[m].name, 0);
	for (int m = 0; m < METRIC_N; m++)
		if (has_cv[m]) {
			snprintf(name, sizeof(name), "%s%s", metric_table[m].name, CV_SUFFIX);
			bad |= put_field(f, name, 0);
		}
	if (has_note)
		bad |= put_field(f, "note", 0);
	bad |= fputc('\n', f) == EOF;

	char num[64];
	for (int i = 0; i < rs->n && !bad; i++) {
		const struct recorded_run *r = &rs->runs[i];
		bad |= put_field(f, r->id, 1);
		bad |= put_field(f, r->source, 0);
		bad |= put_field(f, r->scenario, 0);
		bad |= put_field(f, r->overrides ? r->overrides : "", 0);
		for (int m = 0; m < METRIC_N; m++) {
			if (!has_v[m])
				continue;
			num[0] = '\0';
			if (!isnan(r->v[m]))
				format_number(num, sizeof(num), r->v[m]);
			bad |= put_field(f, num, 0);
		}
		for (int m = 0; m < METRIC_N; m++) {
			if (!has_cv[m])
				continue;
			num[0] = '\0';
			if (!isnan(r->cv[m]))
				format_number(num, sizeof(num), r->cv[m]);
			bad |= put_field(f, num, 0);
		}
		if (has_note)
			bad |= put_field(f, r->note ? r->note : "", 0);
		bad |= fputc('\n', f) == EOF;
	}
	if (bad) {
		rc = err_set(err, TCPSIM_EIO, "cannot write recorded runs '%s': %s", path,
			     strerror(errno ? errno : EIO));
		outfile_abort(&o);
		return rc;
	}
	return outfile_commit(&o, err);
}

int runs_append_file(const char *path, const struct run_set *add, struct tcpsim_err *err)
{
	struct run_set all;
	runs_init(&all);
	int rc = TCPSIM_OK;
	if (access(path, F_OK) == 0)
		rc = runs_load(&all, path, err);
	for (int i = 0; !rc && i < add->n; i++) {
		const struct recorded_run *a = &add->runs[i];
		const struct recorded_run *dup = set_find(&all, a->id);
		if (dup) {
			if (dup->file)
				rc = err_set(err, TCPSIM_EUSAGE, "%s:%d: id '%s' is already there",
					     dup->file, dup->line, a->id);
			else
				rc = err_set(err, TCPSIM_EUSAGE, "id '%s' given twice", a->id);
			break;
		}
		struct recorded_run *r =
			runs_add(&all, a->id, a->source, a->scenario, a->overrides, a->note, err);
		if (!r) {
			rc = err->code;
			break;
		}
		memcpy(r->v, a->v, sizeof(r->v));
		memcpy(r->cv, a->cv, sizeof(r->cv));
	}
	if (!rc)
		rc = runs_write(&all, path, err);
	runs_free(&all);
	return rc;
}
