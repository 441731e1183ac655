/*
 * posix-setjmp.c - setjmp and longjmp as C programs use them: an error
 * path out of three nested calls, locals kept across the jump, nested
 * setjmp points (a longjmp passing a function that has its own), the
 * sigsetjmp names, and four threads jumping at once. Prints the same as
 * its native glibc build (tests/e2e/t_sjlj.sh). With the argument
 * "stale" it longjmps to a function that has returned, which C leaves
 * undefined: heisen reports an uncaught exception there.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

static jmp_buf on_error;
static int depth_reached;

static void parse_value(int v)
{
	depth_reached = 3;
	if (v < 0)
		longjmp(on_error, 42);
	printf("value %d ok\n", v);
}

static void parse_list(int v)
{
	depth_reached = 2;
	parse_value(v);
	parse_value(v - 10);
	printf("list never ends here\n");
}

static void parse(int v)
{
	depth_reached = 1;
	parse_list(v);
}

/* Error path: the jump leaves parse_value, parse_list and parse. */
static void error_path(void)
{
	volatile int tries = 0;
	int code = setjmp(on_error);

	tries++;
	if (code) {
		printf("error %d from depth %d after %d tries\n", code,
		       depth_reached, tries);
		if (tries == 2)
			parse(8); /* fails again at its second value */
		if (tries == 3)
			longjmp(on_error, 0); /* setjmp returns 1 */
		return;
	}
	parse(5);
}

/* A longjmp to outer passes inner's frame, which has a setjmp of its
 * own: inner's handler must let it go on. */
static jmp_buf outer_buf, inner_buf;

static void thrower(int which)
{
	longjmp(which ? outer_buf : inner_buf, which ? 7 : 3);
}

static int inner(int which)
{
	int r = setjmp(inner_buf);
	if (r)
		return 100 + r;
	thrower(which);
	return -1;
}

static void nesting(void)
{
	int r = setjmp(outer_buf);
	if (r) {
		printf("outer caught %d\n", r);
		return;
	}
	printf("inner returned %d\n", inner(0));
	printf("inner returned %d\n", inner(1));
}

static void sig_names(void)
{
	sigjmp_buf b;
	volatile int n = 0;

	if (sigsetjmp(b, 1) < 3) {
		n++;
		siglongjmp(b, n);
	}
	printf("sigsetjmp looped %d times\n", n);
}

/* Each thread jumps out of a recursion of its own depth, many times. */
static int recurse(jmp_buf *b, int n, int id)
{
	if (n == 0)
		longjmp(*b, id + 1);
	return recurse(b, n - 1, id) + 1;
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	jmp_buf b;
	volatile long sum = 0;

	for (volatile int i = 0; i < 100; i++) {
		int r = setjmp(b);
		if (r) {
			sum += r;
			continue;
		}
		recurse(&b, 3 + id, id);
	}
	return (void *)sum;
}

static void threads(void)
{
	pthread_t t[4];
	long total = 0;

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		total += (long)r;
	}
	printf("threads: %ld\n", total);
}

static jmp_buf stale_buf;

static void set_and_return(void)
{
	if (setjmp(stale_buf))
		printf("back in a function that had returned\n");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "stale")) {
		set_and_return();
		longjmp(stale_buf, 1);
	}
	error_path();
	nesting();
	sig_names();
	threads();
	return 0;
}
