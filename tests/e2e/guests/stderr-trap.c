/*
 * stderr-trap.c - a guest for t_world's diagnostics: it writes seven
 * numbered lines to stderr, then traps (unreachable) in a function of
 * its own, so that a campaign's reasons show the trap's function and
 * offset and the last lines of its stderr.
 */
#include <stdio.h>

__attribute__((noinline)) static void give_up(int code)
{
	if (code)
		__builtin_trap();
}

int main(void)
{
	for (int i = 1; i <= 7; i++)
		fprintf(stderr, "stderr-trap: line %d\n", i);
	give_up(1);
	return 0;
}
