/*
 * A function that returns nothing, called through a pointer that reads
 * a result: natively the caller reads whatever the return register
 * held; heisen cannot run that call as it would (the result was never
 * written), so it traps, naming the function and both types, and says
 * what to change. t_posix checks the message.
 */
#include <stdio.h>

static void nothing() /* () -> () in Wasm, called as () -> (i32) */ {}

int main(void)
{
	int (*volatile get)(void) = (int (*)(void))nothing;

	printf("%d\n", get());
	return 0;
}
