/*
 * jsonpath: fields of a jansson document by dotted path, for the readers
 * of iperf3 --json output (tools/import-iperf3, tools/live-row).
 *
 * "end.sum_received.bits_per_second" walks objects from root; a missing
 * key or a non-object on the way gives NULL.  The number reader is for
 * measured quantities: finite and >= 0, else a user error naming the file
 * and the path.
 */
#ifndef TCPSIM_JSONPATH_H
#define TCPSIM_JSONPATH_H

#include <jansson.h>

#include "err.h"

json_t *jsonpath_get(json_t *root, const char *path);

/* A required number >= 0 at path; errors name file and path. */
int jsonpath_number(json_t *root, const char *file, const char *path, double *out, struct tcpsim_err *err);

#endif
