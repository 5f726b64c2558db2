/*
 * config: scenario files, overrides and the key table.
 *
 * One table (config.c) declares every key: section, name, type, bounds,
 * default, unit and help.  It drives parsing (.cfg files through inih),
 * range checks, -s overrides, `tcpsim --help-config`, the legal sweep axes
 * and the effective-settings dump.
 *
 * Files: INI, sections [run] [host] [cost] [rhost] [rcost] [link] [offload]
 * [tcp] [app] [sched] [mem].  A line `include = PATH` (before any section or
 * in any section) reads another file at that point, PATH relative to the
 * including file; later settings override earlier ones.
 *
 * Values accept units where the key has one: sizes 64K, 1M, 1G (powers of
 * 1024) or plain bytes; rates 10Gbit, 100Mbit, 1e9 (bit/s); times 40us,
 * 1.5ms, 10s, 300ns (a bare number is the key's own unit); booleans
 * on/off/yes/no/true/false/1/0.
 *
 * Errors name where: "FILE:LINE: [section] key: message", or
 * "-s ARG: message"; unknown keys get a did-you-mean.  Status TCPSIM_EUSAGE.
 */
#ifndef TCPSIM_CONFIG_H
#define TCPSIM_CONFIG_H

#include <stdio.h>

#include "err.h"
#include "scenario.h"

/* Fill every field with its default. */
void config_defaults(struct scenario *sc);

/* Read a .cfg file (and its includes) over sc. */
int config_load(struct scenario *sc, const char *path, struct tcpsim_err *err);

/* Apply "section.key=value" (origin names it in errors, e.g. "-s ARG"). */
int config_override(struct scenario *sc, const char *assignment, const char *origin,
		    struct tcpsim_err *err);

/* Set one key by its full name "section.key"; value text as in a file. */
int config_set(struct scenario *sc, const char *fullkey, const char *value,
	       const char *where, struct tcpsim_err *err);

/* The whole recipe of a command line: defaults, the file, each "-s"
 * assignment in order (named "-s ARG" in errors), then config_validate.
 * A relative path that names nothing is looked for in the installed data
 * directory too (datadir_find). */
int config_load_with_overrides(struct scenario *sc, const char *path, const char *const *overrides, int n,
			       struct tcpsim_err *err);

/* Check cross-key constraints (e.g. recv_cpu < cpus).  Called after loading. */
int config_validate(const struct scenario *sc, struct tcpsim_err *err);

/* 1 if "section.key" names a key, else 0. */
int config_key_exists(const char *fullkey);

/* Format the value of one key as text that config_set would accept. */
int config_get(const struct scenario *sc, const char *fullkey, char *buf, size_t n);

/* The number a value of a numeric key stands for, in the key's base unit
 * (*unit: "bytes", "ns", "bit/s", or the key's own; a boolean is 1 or 0):
 * "64K" of tcp.sndbuf is 65536 bytes, "1us" of link.delay 1000 ns.  Same
 * parser as a .cfg.  TCPSIM_EUSAGE for an unknown or non-numeric key
 * (enum, string) or a text that is no value of it. */
int config_value_number(const char *fullkey, const char *text, double *out, const char **unit,
			struct tcpsim_err *err);
/* Print the key table (tcpsim --help-config). */
void config_print_help(FILE *f);

/* Print every key = value of sc as an includable .cfg (prefix before each line, e.g. "# "). */
void config_dump(const struct scenario *sc, FILE *f, const char *prefix);

/* Number of keys and the i-th key's full name, for iteration (sweep axes, dumps). */
int config_key_count(void);
const char *config_key_name(int i);

#endif
