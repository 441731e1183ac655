/*
 * plain-flag.c - publication through a plain flag: a writer fills a table,
 * then sets a volatile int; a reader spins until it sees the flag, then
 * sums the table.
 *
 * volatile keeps the reader's spin reading memory (so the program ends)
 * but makes nothing atomic and orders nothing: the flag's store and loads
 * race, and so do the table's stores and loads, because without an atomic
 * release and acquire no happens-before edge carries the table from the
 * writer to the reader. It works on x86 and in heisen's engine, which do
 * not reorder these stores; a weaker machine or a compiler that moves the
 * table's stores below the flag's would hand over a half-written table.
 *
 * A collision sweep (heisen sweep) sometimes catches the flag's race, as
 * the reader keeps polling the flag while the writer stores it, but never
 * the table's: the reader reads the table only after the flag, which the
 * writer sets after the table, so however a sweep delays either thread
 * the two never overlap. Happens-before (heisen check) sees both races in
 * every run.
 * The reader is created first, and the writer waits until it runs
 * (an atomic flag, which orders the reader's start before the writer's
 * work and nothing the other way), so that nothing the writer releases
 * (the heap's or stdio's lock, the guest library's count of live threads
 * as the writer ends) can order the table before a reader that started
 * late. The reader's sum goes to stderr: one that saw a half-written
 * table would print another.
 *
 * hb-race: plain-flag.c:51 plain-flag.c:60
 * hb-race: plain-flag.c:47 plain-flag.c:63
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#define VALUES 256

static int table[VALUES];
static volatile int ready;
static atomic_int reader_up;

static void *publish(void *arg)
{
	while (!atomic_load(&reader_up))
		sched_yield();
	for (int i = 0; i < VALUES; i++)
		table[i] = i * i % 1009; /* heisen:site write table */
	/* A call the compiler cannot see into, so the table's stores stay
	 * above the flag's in the binary, as the program's luck needs. */
	fprintf(stderr, "plain-flag: table written\n");
	ready = 1; /* heisen:site write ready */
	return NULL;
}

static void *consume(void *arg)
{
	long sum = 0;

	atomic_store(&reader_up, 1);
	while (!ready)	       /* heisen:site read ready */
		sched_yield(); /* the writer may need this CPU */
	for (int i = 0; i < VALUES; i++)
		sum += table[i]; /* heisen:site read table */
	return (void *)sum;
}

int main(void)
{
	pthread_t w, r;
	void *sum;
	long want = 0;

	if (pthread_create(&r, NULL, consume, NULL) ||
	    pthread_create(&w, NULL, publish, NULL)) {
		fprintf(stderr, "plain-flag: pthread_create failed\n");
		return 1;
	}
	pthread_join(w, NULL);
	pthread_join(r, &sum);
	for (int i = 0; i < VALUES; i++)
		want += i * i % 1009;
	printf("plain-flag: %d values handed over\n", VALUES);
	fprintf(stderr, "plain-flag: reader's sum %ld, writer's %ld\n",
		(long)sum, want);
	return 0;
}
