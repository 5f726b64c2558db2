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

#define CSVREAD_RECORD_MAX (1 << 20) /* bytes of one record; a row of runs is a few hundred */

struct reader {
	csvread_fn fn;
	void *ctx;
	struct tcpsim_err *err;
	int line;       /* line of the byte being fed */
	int rec_line;   /* line where the current record began */
	int in_record;
	long rec_bytes; /* bytes of the current record so far */
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

/* Feed one byte; returns the error code so far. */
static int feed(struct reader *r, struct csv_parser *p, const char *path, unsigned char b)
{
	if (b == '\0')
		return err_set(r->err, TCPSIM_EUSAGE, "%s:%d: NUL byte in the file (a CSV file is text; is this "
			       "a binary file or a device?)", path, r->line);
	if (!r->in_record && b != ' ' && b != '\t' && b != '\r' && b != '\n') {
		r->in_record = 1;
		r->rec_line = r->line;
		r->rec_bytes = 0;
	}
	if (r->in_record && ++r->rec_bytes > CSVREAD_RECORD_MAX)
		return err_set(r->err, TCPSIM_EUSAGE, "%s:%d: a record longer than %d MiB (is this a CSV file?)",
			       path, r->rec_line, CSVREAD_RECORD_MAX >> 20);
	if (csv_parse(p, &b, 1, on_field, on_record, r) != 1 && !r->err->code)
		err_set(r->err, TCPSIM_EUSAGE,
			"%s:%d: malformed CSV: a quote inside an unquoted field, or text after a closing quote",
			path, r->line);
	if (b == '\n')
		r->line++;
	return r->err->code;
}

int csvread_file(const char *path, const char *what, csvread_fn fn, void *ctx, struct tcpsim_err *err)
{
	static const unsigned char bom[3] = {0xEF, 0xBB, 0xBF};
	FILE *f = fopen(path, "rb");
	struct csv_parser p;
	struct reader r = {.fn = fn, .ctx = ctx, .err = err, .line = 1, .rec_line = 1};
	unsigned char head[3];
	size_t nhead;
	int ch;

	if (!f)
		return err_set(err, TCPSIM_EIO, "cannot open %s '%s': %s", what, path, strerror(errno));
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
		fclose(f);
		return err_set(err, TCPSIM_EIO, "%s: cannot set up the CSV parser", path);
	}
	/* A UTF-8 byte-order mark (spreadsheets write one) is not part of the header. */
	nhead = fread(head, 1, sizeof head, f);
	if (nhead < sizeof head || memcmp(head, bom, sizeof head) != 0)
		for (size_t i = 0; i < nhead && !feed(&r, &p, path, head[i]); i++)
			;
	while (!err->code && (ch = getc(f)) != EOF)
		feed(&r, &p, path, (unsigned char)ch);
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
