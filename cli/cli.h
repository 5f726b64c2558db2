/*
 * cli: the thin command line over libtcpsim.  Each subcommand is one
 * function taking the arguments after its name and returning the process
 * exit status (0 ok, 1 runtime failure, 2 bad input, 3 an output could not
 * be written).  main() in tcpsim.c dispatches through a table of these.
 */
#ifndef TCPSIM_CLI_H
#define TCPSIM_CLI_H

#include <stdio.h>

#include "err.h"

int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_validate(int argc, char **argv);

/* An option with a value at argv[*i]: "-s V", "--set V", "--set=V" and
 * "-sV" (shrt may be NULL).  1 with *val set and *i advanced past it, 0 if
 * argv[*i] is not this option, -1 when its value is missing. */
int cli_option_value(int argc, char **argv, int *i, const char *shrt, const char *lng, const char **val);

/* The exit status of a library status: 0 TCPSIM_OK, 2 TCPSIM_EUSAGE (bad
 * input), 3 TCPSIM_EIO (a file could not be written), 1 anything else (a
 * runtime failure, a fit that did not converge).  A command that reads its
 * inputs maps their TCPSIM_EIO to TCPSIM_EUSAGE first (a missing input is
 * bad input). */
int cli_exit_status(int code);

/* open_memstream for a report; NULL (said on stderr) when it cannot. */
FILE *cli_memstream(char **buf, size_t *len);

/* --states T (run, validate): T as app.recv_start parses it, in ns, into
 * *ns; 0, or 2 with one line on stderr ("tcpsim: CMD: --states T: ...",
 * CMD left out when NULL) when T is no time above 0. */
int cli_late_start(const char *cmd, const char *text, double *ns);

#endif
