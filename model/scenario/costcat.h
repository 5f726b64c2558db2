/*
 * costcat: the CPU-time categories of Cai et al. and which cost is which.
 *
 * Cai, Chaudhary, Vuppalapati, Hwang, Agarwal, "Understanding Host Network
 * Stack Overheads", SIGCOMM 2021, profile the receiver with perf and sort
 * ~330 kernel symbols into eight categories (symbol_mapping.tsv of their
 * public scripts, github.com/Terabit-Ethernet/Understanding-network-stack-
 * overheads-SIGCOMM-2021).  Each of the model's cost keys (cost.h) belongs
 * to exactly one of them: the category of the kernel functions that do
 * most of that unit of work, named beside each row in costcat.c.  A key
 * whose work spans categories is not split; the rows say where.
 *
 * Nothing the model charges is a lock: lock_sock and the spinlocks are
 * inside the keys' costs, so "lock" is always 0 here (Cai et al. measure
 * 5.0% in their sample run with every offload off).
 *
 * Adding a cost key: add its row to costcat_table too, and the key to its
 * category's row in docs/output.md (tests/test_costcat.c fails on a key
 * without either).
 */
#ifndef TCPSIM_COSTCAT_H
#define TCPSIM_COSTCAT_H

#include "cost.h"

/* In the order their scripts print the columns (alphabetical). */
enum cost_cat {
	CAT_DATA_COPY,
	CAT_ETC,
	CAT_LOCK,
	CAT_MM,
	CAT_NETDEV,
	CAT_SCHED,
	CAT_SKB,
	CAT_TCPIP,
	CAT_N
};

/* CPU roles of the breakdown: process context (the applications, their
 * system calls) and interrupt context (hardirq and softirq). */
enum cost_role { ROLE_APP, ROLE_IRQ, ROLE_N };

struct costcat_desc {
	enum cost_cat cat;
	const char *symbols; /* the kernel functions the key stands for, as Cai et al. map them */
};

extern const struct costcat_desc costcat_table[COST_N];

/* "data_copy", "tcp/ip", ...: the names Cai et al. print; NULL out of range. */
const char *costcat_name(int cat);

/* The same as a column or frame name: "tcp/ip" becomes "tcpip". */
const char *costcat_ident(int cat);

/* "app", "irq"; NULL out of range. */
const char *costcat_role_name(int role);

/* The role of a CPU context (0 hardirq, 1 softirq, 2 process). */
enum cost_role costcat_role_of_ctx(int ctx);

/*
 * Category shares from per-context, per-cost busy time: cat_pct[r][c] is
 * the share of role r's category c in all of busy (the sum over roles and
 * categories is 100 when anything ran, else every share is 0).
 * ctx_cost is [3][COST_N], in any unit.
 */
void costcat_shares(const double (*ctx_cost)[COST_N], double cat_pct[ROLE_N][CAT_N]);

/* Indices of categories by share, largest first (ties: lower index first). */
void costcat_order(const double *pct, int order[CAT_N]);

#endif
