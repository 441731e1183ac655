/*
 * test_fiber.c - the stacks serial execution switches between
 * (core/fiber.h): control goes back and forth between fibers and the OS
 * thread's own stack with each one's locals intact, each fiber keeps its
 * own floating-point rounding mode, a fiber's stack is usable to its
 * size, and a finished fiber's stack is freed from another.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/fiber.h"

#include <fenv.h>
#include <string.h>

typedef struct pingpong {
	eng_fiber host, a, b;
	int trace[16];
	int n;
	int round_in_a, round_in_host;
	volatile uint8_t *deep;
} pingpong;

static pingpong pp;

static void note(int v) { pp.trace[pp.n++] = v; }

static void fiber_a(void *arg)
{
	int mine = 100;

	assert_ptr_equal(arg, &pp);
	note(1);
	fesetround(FE_UPWARD);
	eng_fiber_switch(&pp.a, &pp.b);
	note(mine + 3);
	pp.round_in_a = fegetround();
	eng_fiber_switch(&pp.a, &pp.host);
	note(mine + 5);
	eng_fiber_finish(&pp.a, &pp.host);
}

static void fiber_b(void *arg)
{
	/* Most of the stack, to show all of it is there. */
	uint8_t big[900 * 1024];
	int mine = 200;

	(void)arg;
	memset(big, 0x5a, sizeof big);
	pp.deep = big;
	note(mine + 2);
	eng_fiber_switch(&pp.b, &pp.a);
	note(mine + big[sizeof big - 1] - 0x5a + 4);
	eng_fiber_finish(&pp.b, &pp.host);
}

static void switches_keep_each_stack(void **state)
{
	static const int want[] = {1, 202, 103, 204, 105};

	(void)state;
	memset(&pp, 0, sizeof pp);
	assert_true(eng_fiber_new(&pp.a, 64 * 1024, fiber_a, &pp));
	assert_true(eng_fiber_new(&pp.b, 1024 * 1024, fiber_b, NULL));
	eng_fiber_switch(&pp.host, &pp.a);
	/* a left its rounding mode on its own stack, not here. */
	pp.round_in_host = fegetround();
	assert_int_equal(pp.round_in_host, FE_TONEAREST);
	assert_int_equal(pp.round_in_a, FE_UPWARD);
	eng_fiber_switch(&pp.host, &pp.b);
	eng_fiber_switch(&pp.host, &pp.a);
	assert_int_equal(pp.n, 5);
	assert_memory_equal(pp.trace, want, sizeof want);
	eng_fiber_free(&pp.a);
	eng_fiber_free(&pp.b);
	assert_null(pp.a.map);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(switches_keep_each_stack),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
