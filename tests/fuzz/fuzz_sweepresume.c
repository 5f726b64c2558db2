/*
 * fuzz_sweepresume: `tcpsim sweep --resume` over whatever OUT.csv holds --
 * the torn-tail cut, the row reader, the header and row checks against the
 * sweep and the bitmap of rows done (sweep.c's output_prepare and
 * resume_scan), then the run of what is missing.
 *
 * The sweep is fixed (defaults, link.mtu=1500,9000 x offload.tso=on,off,
 * two reps: 8 rows) with its sidecar written beside the input, and a
 * deterministic double stands in for the simulator (as in
 * tests/test_sweep.c).  A resume that succeeds must leave every row once:
 * as many kept and written as the sweep has, and, when the rows it found
 * were in order (else it leaves them unsorted, and says so), a file that
 * merges (sweep_merge checks every row is there once, in order).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "sweep.h"
#include "sweepfile.h"
#include "util.h"

#include "fuzzutil.h"

static int fake_run(const struct scenario *sc, struct metrics *m, struct tcpsim_err *err)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < METRIC_N; i++)
		m->v[i] = (double)(i + 1) * 0.5;
	m->v[METRIC_THROUGHPUT_MBPS] = sc->mtu_bytes * (sc->tso ? 2.0 : 1.0) + (double)(sc->seed % 997) / 1000.0;
	return TCPSIM_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scenario *base = xcalloc(1, sizeof(*base));
	struct sweep *sw = xcalloc(1, sizeof(*sw));
	struct sweep_stats st;
	struct tcpsim_err err;
	size_t side_len;

	config_defaults(base);
	sweep_init(sw, base);
	sw->reps = 2;
	err_clear(&err);
	if (sweep_add_axis(sw, "link.mtu=1500,9000", &err) != TCPSIM_OK ||
	    sweep_add_axis(sw, "offload.tso=on,off", &err) != TCPSIM_OK) {
		fprintf(stderr, "fuzz_sweepresume: %s\n", err.msg);
		abort();
	}
	char *csv = fuzz_file("out.csv", data, size);
	char *side = sweepfile_sidecar_text(sw, 1, 1, &side_len);
	free(fuzz_file("out.csv.cfg", (const uint8_t *)side, side_len));
	char *merged = fuzz_path("merged.csv");
	const struct sweep_opts o = {.out_path = csv, .run = fake_run, .jobs = 1, .shard_k = 1, .shard_n = 1,
				     .resume = true, .window = 4};

	if (sweep_run(sw, &o, &st, &err) == TCPSIM_OK) {
		const char *in[1] = {csv};
		if (st.rows_before + st.rows_written != st.rows_shard) {
			fprintf(stderr, "fuzz_sweepresume: %llu rows kept + %llu written, %llu wanted\n",
				(unsigned long long)st.rows_before, (unsigned long long)st.rows_written,
				(unsigned long long)st.rows_shard);
			abort();
		}
		if (!st.out_of_order && sweep_merge(merged, in, 1, &err) != TCPSIM_OK) {
			fprintf(stderr, "fuzz_sweepresume: the resumed sweep does not merge: %s\n", err.msg);
			abort();
		}
	} else if (err.msg[0] == '\0') {
		fprintf(stderr, "fuzz_sweepresume: sweep_run failed without a message\n");
		abort();
	}
	free(merged);
	free(side);
	free(csv);
	sweep_release(sw);
	free(sw);
	free(base);
	fuzz_clean();
	return 0;
}
