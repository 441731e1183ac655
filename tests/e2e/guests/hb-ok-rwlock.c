/*
 * hb-ok-rwlock.c - a race-free guest for `heisen check`: one writer
 * updates a shared table under a write lock while three readers look
 * entries up under read locks.
 *
 * Each entry holds a value and a check word derived from it, written
 * together by the writer; a reader that ever saw them disagree would have
 * read a half-done update. Readers read concurrently with one another,
 * which is not a race, and the rwlock orders them against the writer.
 * The readers also try tryrdlock first, falling back to rdlock. What a
 * reader sees depends on the timing, so it only counts torn entries
 * (always 0); the final table is the same every run.
 */
#include <pthread.h>
#include <stdio.h>

#define READERS 3
#define ENTRIES 64
#define UPDATES 3000
#define LOOKUPS 3000 /* per reader */

struct entry {
	unsigned value, check;
};

static struct entry table[ENTRIES];
static unsigned version;
static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;

static unsigned check_of(unsigned v) { return ~v * 2654435761u; }

static void *write_table(void *arg)
{
	for (unsigned u = 1; u <= UPDATES; u++) {
		unsigned i = u * 37 % ENTRIES;
		pthread_rwlock_wrlock(&lock);
		table[i].value += u;
		table[i].check = check_of(table[i].value);
		version = u;
		pthread_rwlock_unlock(&lock);
	}
	return NULL;
}

static void *read_table(void *arg)
{
	unsigned id = (unsigned)(long)arg, seen = 0;
	long torn = 0;

	for (unsigned n = 0; n < LOOKUPS; n++) {
		unsigned i = (n * 11 + id) % ENTRIES;
		if (pthread_rwlock_tryrdlock(&lock))
			pthread_rwlock_rdlock(&lock);
		torn += table[i].check != check_of(table[i].value);
		torn += version < seen; /* versions only grow */
		seen = version;
		pthread_rwlock_unlock(&lock);
	}
	return (void *)torn;
}

int main(void)
{
	pthread_t w, r[READERS];
	long torn = 0;
	unsigned sum = 0;

	for (int i = 0; i < ENTRIES; i++)
		table[i].check = check_of(0);
	for (long k = 0; k < READERS; k++)
		if (pthread_create(&r[k], NULL, read_table, (void *)k))
			return 1;
	if (pthread_create(&w, NULL, write_table, NULL))
		return 1;
	pthread_join(w, NULL);
	for (int k = 0; k < READERS; k++) {
		void *t;
		pthread_join(r[k], &t);
		torn += (long)t;
	}
	for (int i = 0; i < ENTRIES; i++)
		sum = sum * 31 + table[i].value;
	printf("hb-ok-rwlock: %d readers x %d lookups, %ld torn; version %u, "
	       "table %u\n",
	       READERS, LOOKUPS, torn, version, sum);
	return torn != 0;
}
