/*
 * fuzzutil.c: the private temporary directory of a fuzzing process and the
 * cutting of one input into two files (see fuzzutil.h).
 */
#include "fuzzutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *fuzz_dir; /* the process's directory; libFuzzer's callback has no context */

static void *fuzz_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		abort();
	return p;
}

static void fuzz_dir_remove(void)
{
	fuzz_clean();
	rmdir(fuzz_dir);
}

static const char *fuzz_dir_get(void)
{
	if (!fuzz_dir) {
		const char *t = getenv("TMPDIR");
		size_t n;
		if (!t || !*t)
			t = "/tmp";
		n = strlen(t) + 32;
		fuzz_dir = fuzz_alloc(n);
		snprintf(fuzz_dir, n, "%s/tcpsim-fuzz.XXXXXX", t);
		if (!mkdtemp(fuzz_dir)) {
			perror("fuzz: mkdtemp");
			abort();
		}
		atexit(fuzz_dir_remove);
	}
	return fuzz_dir;
}

char *fuzz_path(const char *name)
{
	const char *d = fuzz_dir_get();
	size_t n = strlen(d) + strlen(name) + 2;
	char *p = fuzz_alloc(n);
	snprintf(p, n, "%s/%s", d, name);
	return p;
}

char *fuzz_file(const char *name, const uint8_t *data, size_t n)
{
	char *p = fuzz_path(name);
	FILE *f = fopen(p, "wb");
	if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) {
		perror(p);
		abort();
	}
	return p;
}

void fuzz_clean(void)
{
	DIR *d;
	struct dirent *e;

	if (!fuzz_dir || !(d = opendir(fuzz_dir)))
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *p = fuzz_path(e->d_name);
		unlink(p);
		free(p);
	}
	closedir(d);
}

void fuzz_split(const uint8_t *data, size_t size, size_t *n1, size_t *off2)
{
	size_t k = strlen(FUZZ_SEP);
	const uint8_t *s = size >= k ? memmem(data, size, FUZZ_SEP, k) : NULL;

	if (!s) {
		*n1 = *off2 = size;
		return;
	}
	*n1 = (size_t)(s - data) + 1; /* the first part keeps its newline */
	*off2 = (size_t)(s - data) + k;
}

char *fuzz_text(const uint8_t *data, size_t n)
{
	char *s = fuzz_alloc(n + 1);
	if (n)
		memcpy(s, data, n);
	s[n] = '\0';
	return s;
}
