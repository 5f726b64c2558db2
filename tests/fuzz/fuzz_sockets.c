/*
 * fuzz_sockets: the reader of measure-live's sockets table (sockets_load)
 * against a run set of a few ids, twice over the same set (a second file
 * adds to the first).  A failed load must say why and add nothing; a good
 * one keeps only counts from 1 up (or -1, not given), and the median send
 * buffer of a run lies between its least and most.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sockets.h"
#include "util.h"

#include "fuzzutil.h"

static const char *const ids[] = {"s1", "s2", "amd-epyc-2cpu-2596-lo-mtu9000-tso_on-gso_on-send4K", "a"};

static void check(const struct sock_set *s, int n_runs)
{
	for (int i = 0; i < n_runs; i++) {
		const struct sock_runs *r = sockets_of(s, i);
		int64_t lo, hi, med;
		for (int k = 0; r && k < r->n; k++) {
			const struct sock_end *e = &r->e[k];
			if (e->cwnd == 0 || e->cwnd < -1 || e->ssthresh == 0 || e->ssthresh < -1 || e->sndbuf == 0 ||
			    e->sndbuf < -1) {
				fprintf(stderr, "fuzz_sockets: run %d row %d: a count out of range\n", i, k);
				abort();
			}
		}
		med = sockets_sndbuf_median(r, &lo, &hi);
		if (med != -1 && (med < lo || med > hi)) {
			fprintf(stderr, "fuzz_sockets: run %d: median %lld outside %lld..%lld\n", i, (long long)med,
				(long long)lo, (long long)hi);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_file("sockets.txt", data, size);
	struct run_set rs;
	struct sock_set s;
	struct tcpsim_err err;

	runs_init(&rs);
	sockets_init(&s);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		err_clear(&err);
		runs_add(&rs, ids[i], "fuzz", "fuzz.cfg", NULL, NULL, &err);
	}
	for (int pass = 0; pass < 2; pass++) {
		int used = s.rows_used;
		err_clear(&err);
		if (sockets_load(&s, &rs, in, &err) != TCPSIM_OK) {
			if (err.msg[0] == '\0') {
				fprintf(stderr, "fuzz_sockets: sockets_load failed without a message\n");
				abort();
			}
			if (s.rows_used != used) {
				fprintf(stderr, "fuzz_sockets: a failed load added rows\n");
				abort();
			}
		}
		check(&s, rs.n);
	}
	sockets_free(&s);
	runs_free(&rs);
	free(in);
	fuzz_clean();
	return 0;
}
