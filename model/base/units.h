/*
 * units: the unit suffixes of sizes, times and rates, declared once, for
 * parsing (the .cfg parser, -s, --vary) and for printing (--help-config,
 * the effective settings, sweep values).
 *
 * Sizes are bytes in powers of 1024 (64K, 4M; b, kb, kib ... accepted),
 * times nanoseconds (ns, us, ms, s), rates bit/s in powers of 1000 (Kbit,
 * Mbit, Gbit; bit/s forms accepted).  Parsing ignores case; printing uses
 * the canonical spelling (K, M, G; s, ms, us, ns; Kbit, Mbit, Gbit), the
 * largest that divides the value.
 */
#ifndef TCPSIM_UNITS_H
#define TCPSIM_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum unit_kind { UNIT_SIZE, UNIT_TIME, UNIT_RATE };

/* The multiplier of suffix s (any accepted spelling, any case) for kind. */
bool units_parse(enum unit_kind kind, const char *s, double *mult);

/* v (nonzero) with the largest canonical suffix of kind that divides it;
 * false (buf untouched) when none does. */
bool units_format(enum unit_kind kind, int64_t v, char *buf, size_t n);

/* A canonical suffix as units_format prints it ("" is a bare number, not a
 * time): its multiplier, and whether it is a time. */
bool units_canonical(const char *s, double *mult, bool *is_time);

#endif
