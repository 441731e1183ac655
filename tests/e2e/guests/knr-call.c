/*
 * Functions declared without their parameters, as older C code declares
 * them, called through pointers that pass some: a thread start routine
 * (`void *work()` given to pthread_create), a task (`void task()` called
 * as `void (*)(void *)`, a thread pool's shape) and a signal handler
 * (`void on_usr1()` installed as `void (*)(int)`). Natively each runs;
 * Wasm checks the type of such a call, and heisen runs it as natively in
 * a program heisen cc built (docs/porting.md). t_posix checks the output
 * is the native one.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

static int done, tasks;
static volatile sig_atomic_t signalled;

static void *work() /* () -> (i32) in Wasm, called as (i32) -> (i32) */
{
	done = 1;
	return NULL;
}

static void task() /* () -> (), called as (i32) -> () */ { tasks++; }

static void on_usr1() /* () -> (), called as (i32) -> () */ { signalled = 1; }

int main(void)
{
	void (*volatile run)(void *) = (void (*)(void *))task;
	pthread_t t;

	if (pthread_create(&t, NULL, (void *(*)(void *))work, NULL))
		return 2;
	pthread_join(t, NULL);
	for (int i = 0; i < 3; i++)
		run(&i);
	signal(SIGUSR1, (void (*)(int))on_usr1);
	raise(SIGUSR1);
	printf("done %d tasks %d signalled %d\n", done, tasks, (int)signalled);
	return 0;
}
