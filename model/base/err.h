/*
 * err: user-facing errors (tier one of two; see util.h for tier two).
 *
 * A function that can fail on user input takes a `struct tcpsim_err *` and
 * returns TCPSIM_OK or a non-zero status after filling the message.  The
 * message is one line, git style: "file.cfg:12: [tcp] sndbuf: value 3 below
 * minimum 4096".  Only the first error is kept; later ones are ignored so the
 * root cause is what the user sees.
 */
#ifndef TCPSIM_ERR_H
#define TCPSIM_ERR_H

#include <stdbool.h>

enum {
	TCPSIM_OK = 0,
	TCPSIM_EUSAGE = 2,   /* bad input: config, CSV, command line */
	TCPSIM_EIO = 3,      /* cannot read or write a file; as an exit status (3):
			      * an output could not be written (outfile.h) */
	TCPSIM_EFIT = 4,     /* calibration did not converge / at a bound */
};

struct tcpsim_err {
	int code;
	/* set with the error by sim_fail: the run reached a state the model
	 * does not follow (a backlog overflow: drops are not modelled), not bad
	 * input; a fit counts such a run as a missing prediction */
	bool model_limit;
	char msg[1024];
};

/* Set the error unless one is already set; returns code for `return err_set(...)`. */
int err_set(struct tcpsim_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void err_clear(struct tcpsim_err *e);

#endif
