/*
 * datadir.c: the installed data directory (see datadir.h).
 */
#include "datadir.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

#ifndef TCPSIM_DATADIR
#define TCPSIM_DATADIR "/usr/local/share/tcpsim"
#endif

const char *datadir_path(void)
{
	return TCPSIM_DATADIR;
}

bool datadir_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

char *datadir_join(const char *dir, const char *path)
{
	size_t n = strlen(dir);
	if (path[0] == '/' || n == 0)
		return xstrdup(path);
	char *s = xmalloc(n + 1 + strlen(path) + 1);
	memcpy(s, dir, n);
	s[n] = '/';
	strcpy(s + n + 1, path);
	return s;
}

char *datadir_find(const char *path)
{
	if (path[0] == '/' || datadir_exists(path))
		return xstrdup(path);
	char *in = datadir_join(datadir_path(), path);
	if (datadir_exists(in))
		return in;
	free(in);
	return NULL;
}
