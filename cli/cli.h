/*
 * cli: the thin command line over libtcpsim.  Each subcommand is one
 * function taking the arguments after its name and returning the process
 * exit status (0 ok, 1 runtime failure, 2 bad input).  main() in tcpsim.c
 * dispatches through a table of these.
 */
#ifndef TCPSIM_CLI_H
#define TCPSIM_CLI_H

#include <stdio.h>

int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_validate(int argc, char **argv);

/* An option with a value at argv[*i]: "-s V", "--set V", "--set=V" and
 * "-sV" (shrt may be NULL).  1 with *val set and *i advanced past it, 0 if
 * argv[*i] is not this option, -1 when its value is missing. */
int cli_option_value(int argc, char **argv, int *i, const char *shrt, const char *lng, const char **val);

/* open_memstream for a report; NULL (said on stderr) when it cannot. */
FILE *cli_memstream(char **buf, size_t *len);

#endif
