/* The source of the DWARF seeds (tests/fuzz/make-corpus.sh): globals of
 * several types, a struct the optimiser splits, static functions to
 * inline, a loop with a range list, and no C library, so that the debug
 * sections stay small. */
struct pair {
	int a;
	long long b;
};
typedef struct pair pair_t;

int counter;
static volatile int flags[8];
pair_t pairs[4];
const char *const label = "seed";

static inline int twice(int x) { return 2 * x; }

static inline int bump(int i)
{
	flags[i & 7] += twice(i);
	return flags[i & 7];
}

__attribute__((noinline)) static long long sum(const pair_t *p, int n)
{
	long long s = 0;
	for (int i = 0; i < n; i++)
		s += p[i].a + p[i].b + bump(i);
	return s;
}

int work(int n)
{
	pairs[n & 3].a = n;
	pairs[n & 3].b = (long long)n << 33;
	counter += bump(n) + (int)sum(pairs, 4);
	return counter + label[n & 3];
}
