/*
 * csvread.c: the byte-fed libcsv loop shared by the recorded-run and the
 * target readers (see csvread.h).
 */
#include "csvread.h"

#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct reader {
	csvread_fn fn;
	void *ctx;
	struct tcpsim_err *err;
	int line;       /* line of the byte being fed */
	int rec_line;   /* line where the current record began */
	int in_record;
	int records;
	char **field;
	int n, cap;
};

static void clear_fields(struct reader *r)
{
	for (int i = 0; i < r->n; i++)
		free(r->field[i]);
	r->n = 0;
}

static void on_field(void *s, size_t len, void *data)
{
	struct reader *r = data;
	char *f = xmalloc(len + 1);

	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 32;
		r->field = xrealloc(r->field, (size_t)r->cap * sizeof(r->field[0]));
	}
	if (len)
		memcpy(f, s, len);
	f[len] = '\0';
	r->field[r->n++] = f;
}

static void on_record(int c, void *data)
{
	struct reader *r = data;
	(void)c;
	r->in_record = 0;
	if (!r->err->code) {
		struct csvread_rec rec = {.field = r->field, .n = r->n, .line = r->rec_line};
		r->records++;
		r->fn(r->ctx, &rec, r->err);
	}
	clear_fields(r);
}

int csvread_file(const char *path, const char *what, csvread_fn fn, void *ctx, struct tcpsim_err *err)
{
	FILE *f = fopen(path, "rb");
	struct csv_parser p;
	struct reader r = {.fn = fn, .ctx = ctx, .err = err, .line = 1, .rec_line = 1};
	int ch;

	if (!f)
		return err_set(err, TCPSIM_EIO, "cannot open %s '%s': %s", what, path, strerror(errno));
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
		fclose(f);
		return err_set(err, TCPSIM_EIO, "%s: cannot set up the CSV parser", path);
	}
	while (!err->code && (ch = getc(f)) != EOF) {
		unsigned char b = (unsigned char)ch;
		if (!r.in_record && b != ' ' && b != '\t' && b != '\r' && b != '\n') {
			r.in_record = 1;
			r.rec_line = r.line;
		}
		if (csv_parse(&p, &b, 1, on_field, on_record, &r) != 1 && !err->code)
			err_set(err, TCPSIM_EUSAGE,
				"%s:%d: malformed CSV: a quote inside an unquoted field, or text after a closing quote",
				path, r.line);
		if (b == '\n')
			r.line++;
	}
	if (!err->code && ferror(f))
		err_set(err, TCPSIM_EIO, "cannot read %s '%s': %s", what, path, strerror(errno));
	if (!err->code && csv_fini(&p, on_field, on_record, &r) != 0 && !err->code)
		err_set(err, TCPSIM_EUSAGE, "%s:%d: unterminated quoted field (the file ends inside quotes)", path,
			r.rec_line);
	if (!err->code && r.records == 0)
		err_set(err, TCPSIM_EUSAGE, "%s:1: empty file (expected a header line)", path);
	clear_fields(&r);
	free(r.field);
	csv_free(&p);
	fclose(f);
	return err->code;
}
