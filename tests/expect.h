/*
 * expect.h: value-printing expectations the cmocka tests share: a failure
 * says what was measured, what was expected and by how much it is off.
 * Include after <cmocka.h>.
 */
#ifndef TCPSIM_TEST_EXPECT_H
#define TCPSIM_TEST_EXPECT_H

/* got within rel (a fraction) of want */
static inline void expect_within(double got, double want, double rel, const char *what)
{
	double e = (got - want) / want;
	if (e < -rel || e > rel)
		fail_msg("%s: got %.6g, expected %.6g within %.2f%% (off by %+.3f%%)", what, got, want, rel * 100,
			 e * 100);
}

/* got < want */
static inline void expect_below(double got, double want, const char *what)
{
	if (!(got < want))
		fail_msg("%s: %.6g is not below %.6g", what, got, want);
}

/* lo <= got <= hi */
static inline void expect_range(double got, double lo, double hi, const char *what)
{
	if (!(got >= lo && got <= hi))
		fail_msg("%s: got %.6g, expected within [%.6g, %.6g]", what, got, lo, hi);
}

#endif
