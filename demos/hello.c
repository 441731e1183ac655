/*
 * hello.c - the smallest demo: a single-threaded WASI command that touches
 * its (shared, imported) linear memory, so `heisen inspect` has accesses
 * to count. The racy multi-threaded demos arrive with the guest thread
 * library (demos/guest/).
 */
#include <stdio.h>
#include <string.h>

static int table[64];

int main(int argc, char **argv)
{
	int sum = 0;

	for (int i = 0; i < 64; i++)
		table[i] = i * i;
	for (int i = 0; i < 64; i++)
		sum += table[i];
	printf("hello from heisen's demo: %d args, sum %d\n", argc, sum);
	return 0;
}
