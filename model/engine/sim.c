/*
 * sim.c: the engine's services to every layer: scheduling an event, failing
 * a run with a user-facing error, the event loop's step (the host's kernel
 * version and sim_next_inline are inline in sim.h).  Building a sim from a
 * scenario is the top's job (run.c: sim_init).
 */
#include "sim.h"

#include <stdarg.h>
#include <stdio.h>

#include "util.h"

uint64_t sim_at(struct sim *sim, sim_ns t, evq_fn fn, void *obj, uint64_t arg)
{
	INVARIANT(t >= sim->now, "event scheduled in the past (%lld < %lld)", (long long)t, (long long)sim->now);
	return evq_push(&sim->evq, t, fn, obj, arg);
}

void sim_fail(struct sim *sim, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!sim->err->code)
		sim->err->model_limit = true;
	err_set(sim->err, TCPSIM_EUSAGE, "%s (at t=%.6f s)", msg, (double)sim->now / 1e9);
	sim->stop = true;
}

bool sim_step(struct sim *sim, sim_ns until)
{
	struct evq_ev ev;

	if (!evq_pop_until(&sim->evq, until, &ev))
		return false;
	INVARIANT(ev.t >= sim->now, "time went backwards: event %llu at %lld < %lld",
		  (unsigned long long)sim->events, (long long)ev.t, (long long)sim->now);
	sim->now = ev.t;
	sim->events++;
	sim->step_until = until;
	if (sim->trace)
		sim->trace(sim->trace_ctx, &ev);
	ev.fn(sim, ev.obj, ev.arg);
	return true;
}
