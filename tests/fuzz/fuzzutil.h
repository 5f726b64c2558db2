/*
 * fuzzutil: what every libFuzzer target of tests/fuzz/ shares.
 *
 * The readers under test take paths, so a target writes its input into
 * files of one private temporary directory (made on first use, under
 * $TMPDIR or /tmp, removed at exit) and empties that directory after every
 * input: nothing is written anywhere else and no input sees the files of
 * the one before.  An input that stands for two files holds them one after
 * the other, cut at the first FUZZ_SEP line; the seed corpora
 * (tests/fuzz/corpus/NAME/) are written that way.
 *
 * Allocation failures abort, as util.h's wrappers do.
 */
#ifndef TCPSIM_FUZZUTIL_H
#define TCPSIM_FUZZUTIL_H

#include <stddef.h>
#include <stdint.h>

#define FUZZ_SEP "\n=====\n"

/* Write data to NAME in the directory; the path (malloc'd) is returned. */
char *fuzz_file(const char *name, const uint8_t *data, size_t n);
/* The path NAME would have in the directory (malloc'd); nothing written. */
char *fuzz_path(const char *name);
/* Remove every file of the directory (call at the end of each input). */
void fuzz_clean(void);
/* Cut data at the first FUZZ_SEP: *n1 bytes of the first part, the second
 * from *off2 (at size, empty, when there is no separator). */
void fuzz_split(const uint8_t *data, size_t size, size_t *n1, size_t *off2);
/* data as a NUL-terminated string (malloc'd); a NUL inside stays. */
char *fuzz_text(const uint8_t *data, size_t n);

#endif
