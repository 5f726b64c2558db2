/*
 * fuzz_config: the .cfg loader (config_load: inih, the key table, value
 * parsing with units, includes) and config_validate.
 *
 * The input is main.cfg, or main.cfg FUZZ_SEP inc.cfg: the second part is
 * there for a `include = inc.cfg` of the first (or of itself, for cycles).
 * A scenario that loads must survive its own dump: config_dump's text,
 * loaded over the defaults, loads and dumps to the same text -- every
 * sidecar and fitted profile tcpsim writes is such a dump.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "util.h"

#include "fuzzutil.h"

static char *dump_text(const struct scenario *sc, size_t *len)
{
	char *buf = NULL;
	FILE *ms = open_memstream(&buf, len);
	if (!ms)
		abort();
	config_dump(sc, ms, "");
	if (fclose(ms) != 0)
		abort();
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scenario *sc = xcalloc(1, sizeof(*sc));
	struct tcpsim_err err;
	size_t n1, off2;

	fuzz_split(data, size, &n1, &off2);
	char *main_cfg = fuzz_file("main.cfg", data, n1);
	free(fuzz_file("inc.cfg", data + off2, size - off2));
	err_clear(&err);
	config_defaults(sc);
	if (config_load(sc, main_cfg, &err) == TCPSIM_OK) {
		size_t len, len2;
		char *text = dump_text(sc, &len);
		char *dump = fuzz_file("dump.cfg", (const uint8_t *)text, len);
		struct scenario *back = xcalloc(1, sizeof(*back));
		struct tcpsim_err err2;

		(void)config_validate(sc, &err);
		err_clear(&err2);
		config_defaults(back);
		if (config_load(back, dump, &err2) != TCPSIM_OK) {
			fprintf(stderr, "fuzz_config: the dump of a loaded scenario does not load: %s\n", err2.msg);
			abort();
		}
		char *text2 = dump_text(back, &len2);
		if (len != len2 || memcmp(text, text2, len) != 0) {
			fprintf(stderr, "fuzz_config: the dump changes when loaded back:\n%s\n---\n%s\n", text, text2);
			abort();
		}
		free(text2);
		free(back);
		free(dump);
		free(text);
	} else if (err.code == TCPSIM_OK || err.msg[0] == '\0') {
		fprintf(stderr, "fuzz_config: config_load failed without a message\n");
		abort();
	}
	free(main_cfg);
	free(sc);
	fuzz_clean();
	return 0;
}
