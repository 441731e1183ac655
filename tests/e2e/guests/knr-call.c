/*
 * A thread function declared without its parameters, as older C code
 * does: it runs natively, and traps under heisen when pthread_create's
 * (void *(*)(void *)) call reaches it, since Wasm checks the type of a
 * call through a pointer (docs/porting.md). t_posix checks that the trap
 * names the function and both types, and says what to do.
 */
#include <pthread.h>
#include <stdio.h>

static int done;

static void *work() /* no prototype: () -> (i32) in Wasm */
{
	done = 1;
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, (void *(*)(void *))work, NULL))
		return 2;
	pthread_join(t, NULL);
	printf("done %d\n", done);
	return 0;
}
