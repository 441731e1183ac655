/*
 * hb-ok-join.c - a race-free guest for `heisen check`: results written by
 * threads and read by their creator only after pthread_join.
 *
 * Each of four children fills its slot of a shared array and a malloc'd
 * vector it returns through pthread_join's result; child 0 also starts a
 * grandchild and joins it, so the grandchild's result reaches main through
 * two joins. Main reads the slots and vectors, and frees the vectors,
 * only after the joins, which are what order those reads after the
 * children's writes. The sums are the same every run.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define CHILDREN 4
#define LEN	 500

struct result {
	long sum;
	unsigned max;
};

static struct result slot[CHILDREN + 1]; /* the last is the grandchild's */

static unsigned *fill(int who, struct result *r)
{
	unsigned *v = malloc(LEN * sizeof *v);

	if (!v)
		return NULL;
	for (int i = 0; i < LEN; i++) {
		v[i] = (unsigned)(who + 1) * 2654435761u >> (i % 13);
		r->sum += v[i] % 1000;
		if (v[i] > r->max)
			r->max = v[i];
	}
	return v;
}

static void *grandchild(void *arg) { return fill(CHILDREN, &slot[CHILDREN]); }

static void *child(void *arg)
{
	int id = (int)(long)arg;
	unsigned *v, *g = NULL;
	pthread_t t;

	if (id == 0 && pthread_create(&t, NULL, grandchild, NULL))
		return NULL;
	v = fill(id, &slot[id]);
	if (id == 0) {
		void *r;
		pthread_join(t, &r);
		g = r;
		/* The grandchild's vector, folded into this child's. */
		for (int i = 0; v && g && i < LEN; i++)
			v[i] ^= g[i];
		free(g);
	}
	return v;
}

int main(void)
{
	pthread_t t[CHILDREN];
	unsigned check = 0;
	long total = 0;

	for (long k = 0; k < CHILDREN; k++)
		if (pthread_create(&t[k], NULL, child, (void *)k)) {
			fprintf(stderr, "hb-ok-join: pthread_create failed\n");
			return 1;
		}
	for (int k = 0; k < CHILDREN; k++) {
		void *r;
		unsigned *v;
		pthread_join(t[k], &r);
		if (!(v = r)) {
			fprintf(stderr, "hb-ok-join: child %d failed\n", k);
			return 1;
		}
		for (int i = 0; i < LEN; i++)
			check = check * 31 + v[i];
		free(v);
	}
	for (int k = 0; k <= CHILDREN; k++)
		total += slot[k].sum;
	printf("hb-ok-join: %d children and a grandchild, total %ld, max %u, "
	       "check %u\n",
	       CHILDREN, total, slot[CHILDREN].max, check);
	return 0;
}
