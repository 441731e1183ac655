/*
 * stack-size.c - thread stacks: a thread with a 1 MiB local array runs
 * on the default stack (2 MiB); "deep" recurses on a thread with 64 KiB
 * frames until its stack is gone, "main" does so with 1 MiB frames on
 * the main thread (8 MiB): heisen reports a stack overflow naming the
 * thread and the function (tests/e2e/t_stack.sh).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int big_array(void)
{
	volatile char buf[1 << 20];
	int sum = 0;

	memset((char *)buf, 1, sizeof buf);
	for (size_t i = 0; i < sizeof buf; i += 4096)
		sum += buf[i];
	return sum;
}

static void *big_worker(void *arg) { return (void *)(long)big_array(); }

/* Both ends of a frame's array, so that it is all there. */
__attribute__((noinline)) static void touch(char *p, size_t n, int v)
{
	p[0] = (char)v;
	p[n - 1] = (char)v;
}

/* Not a leaf: a function that calls nothing may keep its frame without
 * moving the stack pointer. */
__attribute__((noinline)) static int recurse(int n, size_t size)
{
	char buf[size];

	touch(buf, size, n);
	if (n == 0)
		return buf[0];
	return recurse(n - 1, size) + buf[size - 1];
}

static void *deep_worker(void *arg)
{
	return (void *)(long)recurse(1000, 64 << 10);
}

int main(int argc, char **argv)
{
	pthread_t t;
	void *r;

	if (argc > 1 && !strcmp(argv[1], "main")) {
		printf("main: %d\n", recurse(200, 1 << 20));
		return 0;
	}
	pthread_create(&t, NULL, argc > 1 ? deep_worker : big_worker, NULL);
	pthread_join(t, &r);
	printf("thread: %ld\n", (long)r);
	return 0;
}
