/* units.c: the one table of unit suffixes (units.h says what it serves). */
#include "units.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util.h"

#define KB 1024.0
#define MB (1024.0 * 1024.0)
#define GB (1024.0 * 1024.0 * 1024.0)

struct unit {
	enum unit_kind kind;
	const char *name;
	double mult;
	bool canon;        /* printed so; canonical entries are in ascending order per kind */
};

static const struct unit unit_table[] = {
	{UNIT_SIZE, "", 1, false},         {UNIT_SIZE, "b", 1, false},
	{UNIT_SIZE, "K", KB, true},        {UNIT_SIZE, "kb", KB, false},       {UNIT_SIZE, "kib", KB, false},
	{UNIT_SIZE, "M", MB, true},        {UNIT_SIZE, "mb", MB, false},       {UNIT_SIZE, "mib", MB, false},
	{UNIT_SIZE, "G", GB, true},        {UNIT_SIZE, "gb", GB, false},       {UNIT_SIZE, "gib", GB, false},
	{UNIT_SIZE, "t", GB * KB, false},  {UNIT_SIZE, "tb", GB * KB, false},  {UNIT_SIZE, "tib", GB * KB, false},
	{UNIT_TIME, "ns", 1, true},        {UNIT_TIME, "us", 1e3, true},
	{UNIT_TIME, "ms", 1e6, true},      {UNIT_TIME, "s", 1e9, true},
	{UNIT_RATE, "", 1, false},         {UNIT_RATE, "bit", 1, false},       {UNIT_RATE, "bit/s", 1, false},
	{UNIT_RATE, "Kbit", 1e3, true},    {UNIT_RATE, "kbit/s", 1e3, false},
	{UNIT_RATE, "Mbit", 1e6, true},    {UNIT_RATE, "mbit/s", 1e6, false},
	{UNIT_RATE, "Gbit", 1e9, true},    {UNIT_RATE, "gbit/s", 1e9, false},
	{UNIT_RATE, "tbit", 1e12, false},  {UNIT_RATE, "tbit/s", 1e12, false},
};

bool units_parse(enum unit_kind kind, const char *s, double *mult)
{
	for (size_t i = 0; i < ARRAY_SIZE(unit_table); i++)
		if (unit_table[i].kind == kind && strcasecmp(unit_table[i].name, s) == 0) {
			*mult = unit_table[i].mult;
			return true;
		}
	return false;
}

bool units_format(enum unit_kind kind, int64_t v, char *buf, size_t n)
{
	if (v == 0)
		return false;
	for (size_t i = ARRAY_SIZE(unit_table); i-- > 0;) {
		const struct unit *u = &unit_table[i];
		int64_t m = (int64_t)u->mult;
		if (u->kind == kind && u->canon && v % m == 0) {
			snprintf(buf, n, "%" PRId64 "%s", v / m, u->name);
			return true;
		}
	}
	return false;
}

bool units_canonical(const char *s, double *mult, bool *is_time)
{
	if (*s == '\0') {
		*mult = 1;
		*is_time = false;
		return true;
	}
	for (size_t i = 0; i < ARRAY_SIZE(unit_table); i++)
		if (unit_table[i].canon && strcmp(unit_table[i].name, s) == 0) {
			*mult = unit_table[i].mult;
			*is_time = unit_table[i].kind == UNIT_TIME;
			return true;
		}
	return false;
}
