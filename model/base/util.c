#include "util.h"
#include "err.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Noreturn void oom(size_t n)
{
	fprintf(stderr, "tcpsim: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

void *xaligned_alloc(size_t align, size_t n)
{
	void *p = aligned_alloc(align, n ? n : align);
	if (!p)
		oom(n);
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = xmalloc(n);
	memcpy(p, s, n);
	return p;
}

void invariant_failed(const char *file, int line, const char *expr, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "tcpsim: internal error at %s:%d: invariant '%s' failed: ", file, line, expr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

int err_set(struct tcpsim_err *e, int code, const char *fmt, ...)
{
	va_list ap;
	if (!e || e->code)
		return e ? e->code : code;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

void err_clear(struct tcpsim_err *e)
{
	e->code = 0;
	e->model_limit = false;
	e->msg[0] = '\0';
}

bool parse_finite(const char *s, double *out)
{
	char *end;
	double v;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno == ERANGE || !isfinite(v))
		return false;
	*out = v;
	return true;
}

bool parse_long_in(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;
	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

int cpulist_parse(const char *s, int ncpus, int *out, int *bad_cpu)
{
	bool *in = xcalloc((size_t)(ncpus > 0 ? ncpus : 1), sizeof(*in));
	int n = 0, rc = 0;

	while (*s && rc == 0) {
		char *end;
		long lo, hi;
		if (*s < '0' || *s > '9') {
			rc = -1;
			break;
		}
		errno = 0;
		lo = hi = strtol(s, &end, 10);
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9') {
				rc = -1;
				break;
			}
			hi = strtol(s, &end, 10);
		}
		if (errno || hi < lo || (*end && *end != ',') || (*end == ',' && !end[1])) {
			rc = -1;
			break;
		}
		if (hi >= ncpus) {
			*bad_cpu = hi > INT32_MAX ? INT32_MAX : (int)hi;
			rc = -2;
			break;
		}
		for (long c = lo; c <= hi; c++)
			in[c] = true;
		s = *end ? end + 1 : end;
	}
	for (int c = 0; rc == 0 && c < ncpus; c++)
		if (in[c])
			out[n++] = c;
	free(in);
	return rc ? rc : n;
}
