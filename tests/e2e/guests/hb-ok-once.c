/*
 * hb-ok-once.c - a race-free guest for `heisen check`: four threads each
 * call pthread_once to build a shared CRC-32 table, then all read it.
 *
 * Whichever thread comes first writes the 256 entries inside the once
 * routine; the others either wait in pthread_once until it is done or
 * find it done, and pthread_once is what orders the table's writes
 * before their reads. Each thread checksums its own messages with the
 * table, calling pthread_once again before every message as a library
 * entry point would (the done fast path). The CRCs are the same every
 * run.
 */
#include <pthread.h>
#include <stdio.h>

#define THREADS	 4
#define MESSAGES 50
#define LEN	 200

static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static unsigned crc_table[256];

static void make_table(void)
{
	for (unsigned n = 0; n < 256; n++) {
		unsigned c = n;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[n] = c;
	}
}

static unsigned crc32(const unsigned char *p, int n)
{
	unsigned c = 0xffffffffu;

	pthread_once(&table_once, make_table);
	for (int i = 0; i < n; i++)
		c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

static unsigned result[THREADS];

static void *work(void *arg)
{
	int id = (int)(long)arg;
	unsigned char msg[LEN];
	unsigned acc = 0;

	for (int m = 0; m < MESSAGES; m++) {
		for (int i = 0; i < LEN; i++)
			msg[i] =
			    (unsigned char)('a' + (id * 7 + m * 3 + i) % 26);
		acc ^= crc32(msg, LEN) + (unsigned)m;
	}
	result[id] = acc;
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	static const unsigned char check[] = "123456789";

	for (long k = 0; k < THREADS; k++)
		if (pthread_create(&t[k], NULL, work, (void *)k)) {
			fprintf(stderr, "hb-ok-once: pthread_create failed\n");
			return 1;
		}
	for (int k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	printf("hb-ok-once: crc32(\"123456789\") %08x; threads %08x %08x %08x "
	       "%08x\n",
	       crc32(check, 9), result[0], result[1], result[2], result[3]);
	return 0;
}
