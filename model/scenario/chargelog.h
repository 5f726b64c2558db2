/*
 * chargelog: what each CPU step of a window of a run charged, as perf script
 * lists a live machine's samples: when the step began, on which CPU, in
 * which context, and the cycles of each cost (cost.h) it charged, with the
 * step's whole length.  A step runs at one instant and its chunk takes the
 * time it charged, so the rows of one CPU tile its busy time; a frame or a
 * wakeup a step makes is there at the step's start (app.c).  cpu.c hands
 * each step over (cpu_dispatch's step_begin and step_finish, from the first
 * step that begins at or after `from` to the last that begins before `to`);
 * a charge made outside a step would be missing (there is none:
 * tests/test_costcat.c checks that a log of the measured interval holds
 * every cycle it charged).
 * The caller owns the struct; the run fills rows.
 */
#ifndef TCPSIM_CHARGELOG_H
#define TCPSIM_CHARGELOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct charge_row {
	int64_t t;          /* the step's start, ns of simulated time */
	int64_t step_ns;    /* the step's whole chunk (all its contexts and costs) */
	double cycles;      /* of cost `cost` in context `ctx` (jitter included) */
	int16_t host, cpu;  /* host 0 (the sender's) or 1; the CPU's number on it */
	uint8_t ctx;        /* enum ctx (sim.h) */
	uint16_t cost;      /* enum cost_id (cost.h) */
};

struct chargelog {
	int64_t from, to;   /* the window: steps that begin in [from, to) */
	size_t max_rows;    /* rows kept at most (0: none); beyond it, truncated */
	struct charge_row *rows;
	size_t n, cap;
	bool truncated;     /* a step's rows did not fit: the log ends before `to` */
	int64_t last_t;     /* the last step's start the log saw (-1: none) */
	/* the run's: each CPU's charges at its step's begin (ns, CTX_N x
	 * COST_N a CPU, hosts' CPUs in order), and whether the step in
	 * progress on it is in the window */
	double *mark;
	bool *open;
};

/* Append a row (grows rows); false, and truncated set, past max_rows. */
bool chargelog_add(struct chargelog *cl, const struct charge_row *r);
/* Free what the run allocated (rows, mark, open); the struct stays. */
void chargelog_free(struct chargelog *cl);

#endif
