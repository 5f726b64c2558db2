/*
 * fuzz_sweepfile: the files of a sweep as `sweep --merge` and
 * `sweep --columns` read them -- the row reader (sweepfile_next over
 * libcsv), the sidecar (its comment block, read back into axes with
 * sweep_add_axis, and its .cfg part through config_load) and the check of
 * every row against the sweep (sweep_check_row).
 *
 * The input is OUT.csv FUZZ_SEP OUT.csv.cfg.  A merge that succeeds wrote
 * a file and sidecar of its own (in the temporary directory): merged
 * again, they must merge.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sweep.h"
#include "sweepfile.h"

#include "fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n1, off2;
	struct tcpsim_err err;
	FILE *sink = fopen("/dev/null", "w");

	if (!sink)
		abort();
	fuzz_split(data, size, &n1, &off2);
	char *csv = fuzz_file("in.csv", data, n1);
	free(fuzz_file("in.csv.cfg", data + off2, size - off2));
	char *merged = fuzz_path("merged.csv");
	char *again = fuzz_path("again.csv");

	err_clear(&err);
	if (sweep_columns(csv, "point,rep,seed", NULL, sink, &err) != TCPSIM_OK && err.msg[0] == '\0')
		abort();
	err_clear(&err);
	const char *in[1] = {csv};
	if (sweep_merge(merged, in, 1, &err) == TCPSIM_OK) {
		const char *in2[1] = {merged};
		if (sweep_merge(again, in2, 1, &err) != TCPSIM_OK) {
			fprintf(stderr, "fuzz_sweepfile: a merged sweep does not merge again: %s\n", err.msg);
			abort();
		}
	} else if (err.msg[0] == '\0') {
		fprintf(stderr, "fuzz_sweepfile: sweep_merge failed without a message\n");
		abort();
	}
	fclose(sink);
	free(again);
	free(merged);
	free(csv);
	fuzz_clean();
	return 0;
}
