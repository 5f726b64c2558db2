/*
 * Sweep files: the libcsv row reader, the sidecar, the merge of shard files
 * and the column extractor for plots.  See sweepfile.h for the formats.
 */
#include "sweepfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "outfile.h"
#include "util.h"

/* ---- the row reader ---------------------------------------------------------- */

static void row_clear(struct sweepfile_row *row)
{
	for (int i = 0; i < row->n_fields; i++)
		free(row->fields[i]);
	row->n_fields = 0;
	row->raw_len = 0;
}

static void on_field(void *data, size_t len, void *arg)
{
	struct sweepfile_reader *r = arg;
	struct sweepfile_row *row = &r->row;
	char *s = xmalloc(len + 1);

	if (len)
		memcpy(s, data, len);
	s[len] = '\0';
	if (row->n_fields == row->cap_fields) {
		row->cap_fields = row->cap_fields ? 2 * row->cap_fields : 32;
		row->fields = xrealloc(row->fields, (size_t)row->cap_fields * sizeof(char *));
	}
	row->fields[row->n_fields++] = s;
}

static void on_row(int c, void *arg)
{
	struct sweepfile_reader *r = arg;
	(void)c;
	r->complete = true;
}

static void raw_append(struct sweepfile_row *row, const char *s, size_t n)
{
	if (row->raw_len + n + 1 > row->raw_cap) {
		row->raw_cap = 2 * (row->raw_len + n + 1);
		row->raw = xrealloc(row->raw, row->raw_cap);
	}
	memcpy(row->raw + row->raw_len, s, n);
	row->raw_len += n;
	row->raw[row->raw_len] = '\0';
}

int sweepfile_open(struct sweepfile_reader *r, const char *path, struct tcpsim_err *err)
{
	memset(r, 0, sizeof(*r));
	r->f = fopen(path, "r");
	if (!r->f)
		return err_set(err, TCPSIM_EIO, "cannot open '%s': %s", path, strerror(errno));
	r->path = xstrdup(path);
	if (csv_init(&r->p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
		fclose(r->f);
		r->f = NULL;
		return err_set(err, TCPSIM_EIO, "%s: cannot start the CSV parser", path);
	}
	return TCPSIM_OK;
}

void sweepfile_close(struct sweepfile_reader *r)
{
	if (r->f) {
		fclose(r->f);
		csv_free(&r->p);
	}
	r->f = NULL;
	row_clear(&r->row);
	free(r->row.fields);
	free(r->row.raw);
	free(r->line);
	free(r->path);
	memset(r, 0, sizeof(*r));
}

int sweepfile_next(struct sweepfile_reader *r, bool *got, struct tcpsim_err *err)
{
	row_clear(&r->row);
	r->complete = false;
	r->row.line = r->lineno + 1;
	*got = false;
	for (;;) {
		ssize_t n = getline(&r->line, &r->line_cap, r->f);
		if (n < 0) {
			if (ferror(r->f))
				return err_set(err, TCPSIM_EIO, "cannot read '%s': %s", r->path, strerror(errno));
			if (r->row.raw_len == 0)
				return TCPSIM_OK;
			if (csv_fini(&r->p, on_field, on_row, r) != 0) /* it ends inside a quoted field */
				return err_set(err, TCPSIM_EUSAGE, "%s:%ld: " SWEEPFILE_TORN, r->path, r->row.line);
			r->torn = true;
			*got = r->complete;
			return TCPSIM_OK;
		}
		r->lineno++;
		if (memchr(r->line, '\0', (size_t)n))   /* a cell would read as its prefix */
			return err_set(err, TCPSIM_EUSAGE, "%s:%ld: NUL byte in the file (a sweep CSV is text)",
				       r->path, r->lineno);
		if (r->row.raw_len == 0 && (strcmp(r->line, "\n") == 0 || strcmp(r->line, "\r\n") == 0)) {
			r->row.line = r->lineno + 1; /* a blank line between rows */
			continue;
		}
		raw_append(&r->row, r->line, (size_t)n);
		if (csv_parse(&r->p, r->line, (size_t)n, on_field, on_row, r) != (size_t)n)
			return err_set(err, TCPSIM_EUSAGE, "%s:%ld: %s", r->path, r->lineno,
				       csv_strerror(csv_error(&r->p)));
		if (r->complete) {
			*got = true;
			return TCPSIM_OK;
		}
	}
}

/* ---- the sidecar ------------------------------------------------------------- */

char *sweepfile_sidecar_path(const char *csv_path)
{
	size_t n = strlen(csv_path) + 5;
	char *s = xmalloc(n);
	snprintf(s, n, "%s.cfg", csv_path);
	return s;
}

#define SHARD_LINE "# sweep.shard = "

char *sweepfile_sidecar_text(const struct sweep *sw, int k, int n, size_t *len)
{
	char *buf = NULL;
	FILE *ms = open_memstream(&buf, len);

	INVARIANT(ms != NULL, "open_memstream: %s", strerror(errno));
	fputs("# tcpsim sweep: the effective settings of the sweep's base scenario, an\n"
	      "# includable .cfg.  Any row of the CSV beside this file is reproduced by\n"
	      "#   tcpsim run THIS.cfg -s KEY=VALUE... -s run.seed=SEED\n"
	      "# with the row's varied keys (the columns after seed) and its seed.\n", ms);
	fprintf(ms, "# sweep.points = %" PRIu64 "\n", sw->n_points);
	fprintf(ms, "# sweep.reps = %d\n", sw->reps);
	for (int a = 0; a < sw->n_axes; a++) {
		fprintf(ms, "# sweep.vary = %s=", sw->axes[a].key);
		for (int i = 0; i < sw->axes[a].n_values; i++)
			fprintf(ms, "%s%s", i ? "," : "", sw->axes[a].values[i]);
		fputc('\n', ms);
	}
	if (n > 1)
		fprintf(ms, SHARD_LINE "%d/%d\n", k, n);
	config_dump(&sw->base, ms, "");
	INVARIANT(fclose(ms) == 0, "open_memstream: %s", strerror(errno));
	return buf;
}

/* Read a whole (small) file. */
static int read_whole(const char *path, char **buf, size_t *len, struct tcpsim_err *err)
{
	FILE *f = fopen(path, "r");
	FILE *ms;
	char chunk[8192];
	size_t n;

	*buf = NULL;
	if (!f)
		return err_set(err, errno == ENOENT ? TCPSIM_EUSAGE : TCPSIM_EIO, "cannot open '%s': %s", path,
			       strerror(errno));
	ms = open_memstream(buf, len);
	INVARIANT(ms != NULL, "open_memstream: %s", strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, ms);
	INVARIANT(fclose(ms) == 0, "open_memstream: %s", strerror(errno));
	if (ferror(f)) {
		fclose(f);
		free(*buf);
		*buf = NULL;
		return err_set(err, TCPSIM_EIO, "cannot read '%s': %s", path, strerror(errno));
	}
	fclose(f);
	return TCPSIM_OK;
}

/* Line l (1-based) of text, at most n-1 characters. */
static void nth_line(const char *text, size_t len, long l, char *out, size_t n)
{
	const char *p = text, *end = text + len;
	for (long i = 1; i < l && p < end; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	size_t k = 0;
	while (p < end && *p != '\n' && k + 1 < n)
		out[k++] = *p++;
	out[k] = '\0';
	if (k + 1 == n && n > 4)
		memcpy(out + n - 4, "...", 4);
}

/* 0 if equal, else the first line where a and b differ. */
static long first_diff_line(const char *a, size_t alen, const char *b, size_t blen)
{
	long line = 1;
	size_t i;
	for (i = 0; i < alen && i < blen && a[i] == b[i]; i++)
		if (a[i] == '\n')
			line++;
	return (i == alen && i == blen) ? 0 : line;
}

int sweepfile_sidecar_check(const char *path, const char *text, size_t len, const char *what,
			    struct tcpsim_err *err)
{
	char *have;
	size_t have_len;
	long l;
	int rc = read_whole(path, &have, &have_len, err);

	if (rc != TCPSIM_OK)
		return rc;
	if ((l = first_diff_line(have, have_len, text, len)) != 0) {
		char h[96], w[96];
		nth_line(have, have_len, l, h, sizeof(h));
		nth_line(text, len, l, w, sizeof(w));
		rc = err_set(err, TCPSIM_EUSAGE, "%s:%ld: has '%s' where this sweep has '%s': %s %s",
			     path, l, h, w, path, what);
	}
	free(have);
	return rc;
}

/* ---- merge --------------------------------------------------------------------- */

/* The sidecar of one shard, its shard line cut out. */
struct merge_side {
	char *text;       /* without the shard line */
	size_t len;
	int k, n;         /* 0/0 when there was no shard line */
};

static int side_load(const char *csv_path, struct merge_side *s, struct tcpsim_err *err)
{
	char *path = sweepfile_sidecar_path(csv_path);
	char *line, *nl;
	int rc = read_whole(path, &s->text, &s->len, err);

	s->k = s->n = 0;
	if (rc == TCPSIM_OK && (line = strstr(s->text, "\n" SHARD_LINE)) != NULL) {
		line++;
		if (sscanf(line + strlen(SHARD_LINE), "%d/%d", &s->k, &s->n) != 2)
			rc = err_set(err, TCPSIM_EUSAGE, "%s: bad '%s' line", path, SHARD_LINE);
		nl = strchr(line, '\n');
		nl = nl ? nl + 1 : s->text + s->len;
		memmove(line, nl, (size_t)(s->text + s->len - nl) + 1);
		s->len -= (size_t)(nl - line);
	}
	free(path);
	return rc;
}

/* Rebuild the sweep a sidecar describes: base from the .cfg, axes and reps
 * from its comment block.  On error sw holds nothing to release. */
static int sweep_from_sidecar(struct sweep *sw, const char *csv_path, const struct merge_side *s,
			      struct tcpsim_err *err)
{
	char *path = sweepfile_sidecar_path(csv_path);
	struct scenario *base = xcalloc(1, sizeof(*base));
	const char *p = s->text;
	int rc;

	config_defaults(base);
	rc = config_load(base, path, err);
	sweep_init(sw, base);
	free(base);
	while (rc == TCPSIM_OK && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xmalloc(n + 1);
		memcpy(line, p, n);
		line[n] = '\0';
		if (strncmp(line, "# sweep.vary = ", 15) == 0)
			rc = sweep_add_axis(sw, line + 15, err);
		else if (strncmp(line, "# sweep.reps = ", 15) == 0) {
			long reps;   /* whole, in range: else "bad sweep.reps" below */
			sw->reps = parse_long_in(line + 15, 1, 1000000, &reps) ? (int)reps : 0;
		}
		free(line);
		p = nl ? nl + 1 : p + n;
	}
	if (rc == TCPSIM_OK && sw->reps < 1)
		rc = err_set(err, TCPSIM_EUSAGE, "%s: bad sweep.reps", path);
	if (rc == TCPSIM_OK) {
		/* what this rebuilt sweep would write must be the file itself */
		size_t len;
		char *text = sweepfile_sidecar_text(sw, 1, 1, &len);
		long l = first_diff_line(s->text, s->len, text, len);
		if (l)
			rc = err_set(err, TCPSIM_EUSAGE, "%s:%ld: not a sweep sidecar written by this tcpsim", path, l);
		free(text);
	}
	if (rc != TCPSIM_OK)
		sweep_release(sw);   /* the caller releases only a sweep that was built */
	free(path);
	return rc;
}

/* Input i of a merge. */
struct merge_in {
	struct sweepfile_reader r;
	bool has;             /* r.row holds the next row to place */
	uint64_t point;
	uint32_t rep;
};

static int merge_advance(const struct sweep *sw, struct merge_in *in, int n_cols, struct tcpsim_err *err)
{
	uint64_t p0 = in->point;
	uint32_t q0 = in->rep;
	bool first = !in->has;
	int rc = sweepfile_next(&in->r, &in->has, err);

	if (rc != TCPSIM_OK || !in->has)
		return rc;
	if (in->r.torn)
		return err_set(err, TCPSIM_EUSAGE,
			       "%s:%ld: " SWEEPFILE_TORN,
			       in->r.path, in->r.row.line);
	if ((rc = sweep_check_row(sw, &in->r.row, n_cols, in->r.path, &in->point, &in->rep, err)))
		return rc;
	if (!first && (in->point < p0 || (in->point == p0 && in->rep <= q0)))
		return err_set(err, TCPSIM_EUSAGE, "%s:%ld: point %" PRIu64 " rep %u comes after point %" PRIu64
			       " rep %u: rows out of order or repeated", in->r.path, in->r.row.line,
			       in->point, in->rep, p0, q0);
	return TCPSIM_OK;
}

int sweep_merge(const char *out_path, const char *const *in_paths, int n_in, struct tcpsim_err *err)
{
	struct merge_side *side = xcalloc((size_t)n_in, sizeof(*side));
	struct merge_in *in = xcalloc((size_t)n_in, sizeof(*in));
	struct sweep *sw = xcalloc(1, sizeof(*sw));
	char *header = NULL, *out_side = sweepfile_sidecar_path(out_path);
	char **in_sides = xcalloc((size_t)n_in, sizeof(*in_sides));
	size_t header_len = 0;
	uint64_t want_point = 0;
	uint32_t want_rep = 0;
	struct outfile of = {0};
	FILE *out = NULL;
	int n_cols = 0, rc = TCPSIM_OK, opened = 0;
	bool have_sweep = false;

	if (n_in < 1) {
		rc = err_set(err, TCPSIM_EUSAGE, "merge: no input files");
		goto out;
	}
	/* an input's CSV or sidecar as the output would be replaced by the merge */
	for (int i = 0; i < n_in; i++)
		in_sides[i] = sweepfile_sidecar_path(in_paths[i]);
	if ((rc = outfile_check_inputs(out_path, in_paths, n_in, err)) != TCPSIM_OK ||
	    (rc = outfile_check_inputs(out_side, (const char *const *)in_sides, n_in, err)) != TCPSIM_OK ||
	    (rc = outfile_probe(out_path, NULL, err)) != TCPSIM_OK ||
	    (rc = outfile_probe(out_side, NULL, err)) != TCPSIM_OK)
		goto out;
	for (int i = 0; i < n_in && rc == TCPSIM_OK; i++) {
		if ((rc = side_load(in_paths[i], &side[i], err)) != TCPSIM_OK)
			break;
		if (i > 0) {
			long l = first_diff_line(side[0].text, side[0].len, side[i].text, side[i].len);
			if (l)
				rc = err_set(err, TCPSIM_EUSAGE,
					     "%s.cfg differs from %s.cfg (line %ld without the shard line): not shards of one sweep",
					     in_paths[i], in_paths[0], l);
		}
	}
	if (rc != TCPSIM_OK || (rc = sweep_from_sidecar(sw, in_paths[0], &side[0], err)) != TCPSIM_OK)
		goto out;
	have_sweep = true;
	header = sweep_header_text(sw, &header_len);
	for (int i = 0; i < n_in && rc == TCPSIM_OK; i++) {
		bool got;
		if ((rc = sweepfile_open(&in[i].r, in_paths[i], err)) != TCPSIM_OK)
			break;
		opened++;
		if ((rc = sweepfile_next(&in[i].r, &got, err)) != TCPSIM_OK)
			break;
		if (!got || in[i].r.row.raw_len != header_len || memcmp(in[i].r.row.raw, header, header_len)) {
			rc = err_set(err, TCPSIM_EUSAGE, "%s:1: the header is not the columns of the sweep in %s.cfg",
				     in_paths[i], in_paths[i]);
			break;
		}
		n_cols = in[i].r.row.n_fields;
		rc = merge_advance(sw, &in[i], n_cols, err);
	}
	if (rc != TCPSIM_OK)
		goto out;

	if ((rc = outfile_open(&of, out_path, NULL, err)) != TCPSIM_OK)
		goto out;
	out = of.f;
	fwrite(header, 1, header_len, out);
	for (;;) {
		int best = -1;
		for (int i = 0; i < n_in; i++)
			if (in[i].has && (best < 0 || in[i].point < in[best].point ||
					  (in[i].point == in[best].point && in[i].rep < in[best].rep)))
				best = i;
		if (best < 0)
			break;
		if (in[best].point != want_point || in[best].rep != want_rep) {
			bool dup = in[best].point < want_point ||
				   (in[best].point == want_point && in[best].rep < want_rep);
			if (dup)
				rc = err_set(err, TCPSIM_EUSAGE, "%s:%ld: point %" PRIu64 " rep %u is in another input too",
					     in[best].r.path, in[best].r.row.line, in[best].point, in[best].rep);
			else
				rc = err_set(err, TCPSIM_EUSAGE, "point %" PRIu64 " rep %u is in no input%s",
					     want_point, want_rep,
					     side[0].n > 1 ? " (is a shard file missing, or unfinished?)" : "");
			goto out;
		}
		fwrite(in[best].r.row.raw, 1, in[best].r.row.raw_len, out);
		if (++want_rep == (uint32_t)sw->reps) {
			want_rep = 0;
			want_point++;
		}
		if ((rc = merge_advance(sw, &in[best], n_cols, err)) != TCPSIM_OK)
			goto out;
	}
	if (want_point != sw->n_points) {
		rc = err_set(err, TCPSIM_EUSAGE, "point %" PRIu64 " rep %u is in no input%s", want_point, want_rep,
			     side[0].n > 1 ? " (is a shard file missing, or unfinished?)" : "");
		goto out;
	}
	if (ferror(out)) {
		rc = err_set(err, TCPSIM_EIO, "cannot write '%s': %s", out_path, strerror(errno ? errno : EIO));
		goto out;
	}
	/* the sidecar first, so the CSV never stands without its own */
	if ((rc = outfile_write_whole(out_side, NULL, side[0].text, side[0].len, err)) != TCPSIM_OK)
		goto out;
	out = NULL;
	rc = outfile_commit(&of, err);
out:
	if (out)
		outfile_abort(&of);
	for (int i = 0; i < opened; i++)
		sweepfile_close(&in[i].r);
	for (int i = 0; i < n_in; i++)
		free(side[i].text);
	if (have_sweep)
		sweep_release(sw);
	free(sw);
	free(side);
	free(in);
	free(header);
	for (int i = 0; i < n_in; i++)
		free(in_sides[i]);
	free(in_sides);
	free(out_side);
	return rc;
}

/* ---- columns for plots ------------------------------------------------------------ */

/* Split "a,b,c" (modified in place) into a malloc'd array; *n its length. */
static char **split_names(char *list, int *n)
{
	char **v = NULL, *save = NULL;

	*n = 0;
	for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		v = xrealloc(v, (size_t)(*n + 1) * sizeof(char *));
		v[(*n)++] = tok;
	}
	return v;
}

/*
 * The cells of a --numeric column that is a key go through the key's own
 * parser (config_value_number), so "64K" plots at 65536 and "1us" at 1000:
 * the CSV keeps the text the user wrote (and resumes and merges compare),
 * and no second numeric column is needed for a plot.  Other columns (the
 * metrics) are numbers already and pass as they are.
 */
int sweep_columns(const char *csv_path, const char *names, const char *numeric, FILE *out,
		  struct tcpsim_err *err)
{
	struct sweepfile_reader r;
	char *list = xstrdup(names), *nlist = xstrdup(numeric ? numeric : "");
	char **want, **nwant;
	int *idx = NULL, n_want, n_num, rc = TCPSIM_OK;
	bool *as_num = NULL, got;

	want = split_names(list, &n_want);
	nwant = split_names(nlist, &n_num);
	if (n_want == 0) {
		rc = err_set(err, TCPSIM_EUSAGE, "--columns: no column names");
		goto out0;
	}
	idx = xcalloc((size_t)n_want, sizeof(int));
	as_num = xcalloc((size_t)n_want, sizeof(bool));
	for (int m = 0; m < n_num; m++) {
		bool found = false;
		for (int j = 0; j < n_want; j++)
			if (strcmp(want[j], nwant[m]) == 0)
				found = as_num[j] = true;
		if (!found) {
			rc = err_set(err, TCPSIM_EUSAGE, "--numeric %s: not one of the --columns", nwant[m]);
			goto out0;
		}
	}
	if ((rc = sweepfile_open(&r, csv_path, err)) != TCPSIM_OK)
		goto out0;
	if ((rc = sweepfile_next(&r, &got, err)) != TCPSIM_OK)
		goto out;
	if (!got) {
		rc = err_set(err, TCPSIM_EUSAGE, "%s: empty file", csv_path);
		goto out;
	}
	for (int j = 0; j < n_want; j++) {
		idx[j] = -1;
		for (int i = 0; i < r.row.n_fields; i++)
			if (strcmp(r.row.fields[i], want[j]) == 0)
				idx[j] = i;
		if (idx[j] < 0) {
			rc = err_set(err, TCPSIM_EUSAGE, "%s:1: no column '%s'", csv_path, want[j]);
			goto out;
		}
		as_num[j] = as_num[j] && config_key_exists(want[j]);
	}
	fputs("#", out);
	for (int j = 0; j < n_want; j++) {
		double x;
		const char *unit = "";
		struct tcpsim_err e = {0};
		fprintf(out, "%c%s", j ? '\t' : ' ', want[j]);
		/* "0" is a value of every numeric key: it tells the unit */
		if (as_num[j] && config_value_number(want[j], "0", &x, &unit, &e) == TCPSIM_OK && *unit)
			fprintf(out, " (%s)", unit);
	}
	fputc('\n', out);
	while ((rc = sweepfile_next(&r, &got, err)) == TCPSIM_OK && got) {
		if (r.torn) {
			rc = err_set(err, TCPSIM_EUSAGE, "%s:%ld: " SWEEPFILE_TORN, csv_path, r.row.line);
			break;
		}
		for (int j = 0; j < n_want; j++) {
			const char *v = idx[j] < r.row.n_fields ? r.row.fields[idx[j]] : "";
			if (j)
				fputc('\t', out);
			if (*v == '\0') {
				fputs("NaN", out); /* an empty cell: not measured */
			} else if (as_num[j]) {
				double x;
				const char *unit;
				struct tcpsim_err e = {0};
				if (config_value_number(want[j], v, &x, &unit, &e) != TCPSIM_OK) {
					rc = err_set(err, TCPSIM_EUSAGE, "%s:%ld: --numeric %s", csv_path, r.row.line, e.msg);
					goto out;
				}
				fprintf(out, "%.15g", x);
			} else {
				for (; *v; v++)
					fputc(*v == '\t' || *v == '\n' || *v == '\r' || *v == ' ' ? '_' : *v, out);
			}
		}
		fputc('\n', out);
	}
out:
	sweepfile_close(&r);
out0:
	free(idx);
	free(as_num);
	free(want);
	free(nwant);
	free(list);
	free(nlist);
	return rc;
}
