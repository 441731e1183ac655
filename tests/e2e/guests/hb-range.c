/*
 * hb-range.c - races on the bytes of memory.copy and memory.fill ranges
 * far from their first byte, for `heisen check`: each bulk operation must
 * count as an access of every byte it reads or writes.
 *
 * The copier copies src to dst and fills buf 20 ms in, after main has made
 * every thread (so that nothing in the guest library orders a later
 * pthread_create after the copy); 100 ms in, three threads touch byte
 * 150 of src (a write: races with the copy's read), of dst (a read: races
 * with the copy's write) and of buf (a write: races with the fill). After
 * the joins, main copies again: ordered, no race. With -mbulk-memory
 * (which threads need) clang turns these memcpy/memset calls into
 * memory.copy and memory.fill.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define LEN 200

static char src[256], dst[256], buf[256];
static volatile int len = LEN; /* not a constant: a bulk op, not stores */

static void sleep_ms(long ms)
{
	struct timespec t = {0, ms * 1000 * 1000};

	nanosleep(&t, NULL);
}

static void later(void) { sleep_ms(100); }

static void *copier(void *arg)
{
	sleep_ms(20);
	memcpy(dst, src, len); /* heisen:site range copy */
	memset(buf, 1, len);   /* heisen:site range fill */
	return arg;
}

static void *src_writer(void *arg)
{
	later();
	src[150] = 7; /* heisen:site write src */
	return arg;
}

static void *dst_reader(void *arg)
{
	later();
	return (void *)(long)dst[150]; /* heisen:site read dst */
}

static void *buf_writer(void *arg)
{
	later();
	buf[150] = 9; /* heisen:site write buf */
	return arg;
}

int main(void)
{
	void *(*const fn[])(void *) = {copier, src_writer, dst_reader,
				       buf_writer};
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, fn[i], NULL))
			return 1;
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	memcpy(dst, src, len);
	printf("%d %d\n", dst[150], buf[150]);
	return 0;
}
