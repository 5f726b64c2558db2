/*
 * timeline.c: the step a moment falls in (timeline.h).
 */
#include <stddef.h>

#include "timeline.h"

struct timeline_step *timeline_step_at(struct timeline *tl, int64_t now, bool data)
{
	int64_t k;

	if (tl->t0 < 0) {
		if (!data)
			return NULL;
		tl->t0 = now;
	}
	k = (now - tl->t0) / tl->step_ns;
	return k < tl->nsteps ? &tl->steps[k] : NULL;
}
