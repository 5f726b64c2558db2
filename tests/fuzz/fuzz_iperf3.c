/*
 * fuzz_iperf3: the reader of iperf3 --json output, as tools/import-iperf3
 * uses it (jansson, then jsonpath_get/jsonpath_number over the fields of
 * that tool's header comment).  The tool's own import() is compiled in
 * here, its main() renamed out of the way.  A run it makes is written with
 * runs_write and must load back: importers append to recorded-run files.
 */
#define main import_iperf3_main
#include "../../tools/import-iperf3.c"
#undef main

#include "fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_file("iperf3-fuzz.json", data, size);
	char *out = fuzz_path("out.csv");
	const struct opts o = {.out = out, .source = "fuzz", .scenario = "fuzz.cfg"};
	struct run_set rs, back;
	struct tcpsim_err err;

	runs_init(&rs);
	runs_init(&back);
	err_clear(&err);
	if (import(in, &o, &rs, &err) == TCPSIM_OK) {
		if (runs_write(&rs, out, &err) != TCPSIM_OK || runs_load(&back, out, &err) != TCPSIM_OK ||
		    back.n != 1) {
			fprintf(stderr, "fuzz_iperf3: the imported run does not read back: %s\n", err.msg);
			abort();
		}
	} else if (err.msg[0] == '\0') {
		fprintf(stderr, "fuzz_iperf3: import failed without a message\n");
		abort();
	}
	runs_free(&back);
	runs_free(&rs);
	free(out);
	free(in);
	fuzz_clean();
	return 0;
}
