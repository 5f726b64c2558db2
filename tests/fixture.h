/*
 * fixture.h: what the whole-run cmocka tests share: set a key, run a
 * scenario (validated first, as the command line does), read a metric by
 * name; each fails the test with the library's own message.  Include after
 * <cmocka.h>.
 */
#ifndef TCPSIM_TEST_FIXTURE_H
#define TCPSIM_TEST_FIXTURE_H

#include "config.h"
#include "metrics.h"
#include "tcpsim.h"

static inline void set(struct scenario *sc, const char *key, const char *val)
{
	struct tcpsim_err err = {0};
	if (config_set(sc, key, val, "test", &err))
		fail_msg("config_set %s=%s: %s", key, val, err.msg);
}

static inline void run(const struct scenario *sc, struct metrics *m)
{
	struct tcpsim_err err = {0};
	if (config_validate(sc, &err) || tcpsim_run(sc, m, &err))
		fail_msg("tcpsim_run: %s", err.msg);
}

static inline double m_of(const struct metrics *m, const char *name)
{
	int id = metric_find(name);
	if (id < 0)
		fail_msg("no metric '%s'", name);
	return m->v[id];
}

#endif
