/*
 * util: the one memory policy and the invariant check.
 *
 * Allocation never fails visibly: xmalloc/xcalloc/xrealloc/xaligned_alloc
 * abort with a message, so callers need no NULL checks.  INVARIANT() is
 * for broken internal state only (never for user input): it prints file,
 * line and the failed expression and aborts.  User errors go through struct tcpsim_err
 * (err.h) and a non-zero status instead.
 */
#ifndef TCPSIM_UTIL_H
#define TCPSIM_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* n bytes at an address that is a multiple of align (a power of two; n a
 * multiple of it, as aligned_alloc wants); free() frees them. */
void *xaligned_alloc(size_t align, size_t n);
char *xstrdup(const char *s);

/* s is, whole, a finite number in strtod's syntax (no trailing characters,
 * no overflow); *out is set only when it is. */
bool parse_finite(const char *s, double *out);
/* s is, whole, a decimal integer within lo..hi; *out is set only when it is. */
bool parse_long_in(const char *s, long lo, long hi, long *out);

/* A CPU list as /proc/irq/N/smp_affinity_list reads it (the kernel's
 * cpulist_parse, lib/bitmap.c): ranges and single CPUs, "0-7,16,18-19".
 * As there, the list is a set: out[] gets its CPUs in ascending order, each
 * once.  Returns how many, 0 for an empty list, -1 when malformed, -2 when
 * a CPU is ncpus or more (*bad_cpu is that CPU). */
int cpulist_parse(const char *s, int ncpus, int *out, int *bad_cpu);

_Noreturn void invariant_failed(const char *file, int line, const char *expr,
				const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* INVARIANT(cond, fmt, ...): abort with file:line and a message when !cond. */
#define INVARIANT(cond, ...)                                                   \
	do {                                                                   \
		if (__builtin_expect(!(cond), 0))                              \
			invariant_failed(__FILE__, __LINE__, #cond, __VA_ARGS__); \
	} while (0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
