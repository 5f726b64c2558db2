#include "jsonpath.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

json_t *jsonpath_get(json_t *root, const char *path)
{
	char buf[256];
	json_t *j = root;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && j; k = strtok_r(NULL, ".", &save))
		j = json_is_object(j) ? json_object_get(j, k) : NULL;
	return j;
}

int jsonpath_number(json_t *root, const char *file, const char *path, double *out, struct tcpsim_err *err)
{
	json_t *j = jsonpath_get(root, path);
	double v;

	if (!j)
		return err_set(err, TCPSIM_EUSAGE, "%s: missing field '%s'", file, path);
	if (!json_is_number(j))
		return err_set(err, TCPSIM_EUSAGE, "%s: field '%s' is not a number", file, path);
	v = json_number_value(j);
	if (!isfinite(v) || v < 0)
		return err_set(err, TCPSIM_EUSAGE, "%s: field '%s': %g is out of range", file, path, v);
	*out = v;
	return TCPSIM_OK;
}
