/*
 * fuzz_liverow: the two readers of tools/live-row -- the iperf3 client's
 * --json (read_iperf3: jansson and jsonpath) and the check of an existing
 * repetitions file before a row is appended (check_existing: libcsv,
 * header, fields per row).  The tool's code is compiled in, its main()
 * renamed out of the way; every input goes to both.  A failure must say
 * why.
 */
#define main live_row_main
#include "../../tools/live-row.c"
#undef main

#include "fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_file("iperf3.json", data, size);
	char *text = fuzz_text(data, size);
	struct iperf3_result r;
	struct tcpsim_err err;

	memset(&r, 0, sizeof(r));
	err_clear(&err);
	if (read_iperf3(in, &r, &err) != TCPSIM_OK && err.msg[0] == '\0') {
		fprintf(stderr, "fuzz_liverow: read_iperf3 failed without a message\n");
		abort();
	}
	err_clear(&err);
	if (check_existing("reps.csv", text, strlen(text), &err) != TCPSIM_OK && err.msg[0] == '\0') {
		fprintf(stderr, "fuzz_liverow: check_existing failed without a message\n");
		abort();
	}
	free(text);
	free(in);
	fuzz_clean();
	return 0;
}
