/*
 * replay: a main() for the fuzz targets when clang's libFuzzer is not
 * there -- each file named on the command line is given to
 * LLVMFuzzerTestOneInput once, as libFuzzer does with file arguments, so
 * `make check` replays the seed corpora under gcc's ASan+UBSan too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *buf = NULL;
		size_t n = 0, cap = 0, got;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		do {
			if (n == cap) {
				cap = cap ? 2 * cap : 65536;
				if (!(buf = realloc(buf, cap)))
					abort();
			}
			got = fread(buf + n, 1, cap - n, f);
			n += got;
		} while (got > 0);
		if (ferror(f)) {
			perror(argv[i]);
			return 1;
		}
		fclose(f);
		printf("Running: %s\n", argv[i]);
		LLVMFuzzerTestOneInput(buf, n);
		free(buf);
	}
	printf("Executed %d inputs\n", argc - 1);
	return 0;
}
