/*
 * coremark.c - benchmark kernel: a CoreMark-style mixed integer workload.
 *
 * Written for heisen (not derived from EEMBC CoreMark, whose structure it
 * only resembles): each of N iterations runs
 *   - linked-list work on LIST_NODES nodes: searches, in-place reversal,
 *     a bottom-up merge sort by key then back by index through a
 *     comparison function pointer (indirect calls), and a key update;
 *   - matrix work on MAT_N x MAT_N int16 matrices: add a constant,
 *     multiply by a constant, matrix-vector, matrix-matrix, and a
 *     matrix-matrix with bit-field extraction, each folded to a summary;
 *   - a switch-driven state machine that classifies the comma-separated
 *     tokens of a generated text (integers, decimals, exponents, hex,
 *     junk), once as is and once with a few characters altered;
 * and folds every intermediate result into a bitwise CRC-16/CCITT.
 *
 *   coremark [N]   prints "coremark n=N checksum=C"; N defaults to DEFAULT_SIZE
 *
 * Entry points, the size argument and the no-libc build: harness.h.
 */
#define NAME "coremark"
#define DEFAULT_SIZE 6000
#define MIN_SIZE 1
#define MAX_SIZE 100000000

#include "harness.h"

#define LIST_NODES 200
#define MAT_N 18
#define TEXT_LEN 400

/* ---- CRC-16/CCITT (polynomial 0x1021), bit by bit ---------------------- */

static uint16_t crc8(uint16_t crc, uint8_t b)
{
	crc ^= (uint16_t)(b << 8);
	for (int i = 0; i < 8; i++)
		crc = (uint16_t)(crc & 0x8000 ? crc << 1 ^ 0x1021 : crc << 1);
	return crc;
}

static uint16_t crc16(uint16_t crc, uint16_t v)
{
	return crc8(crc8(crc, (uint8_t)v), (uint8_t)(v >> 8));
}

static uint16_t crc32w(uint16_t crc, uint32_t v)
{
	return crc16(crc16(crc, (uint16_t)v), (uint16_t)(v >> 16));
}

static uint32_t xorshift32(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

/* ---- linked list --------------------------------------------------------- */

struct node {
	struct node *next;
	int16_t key;
	int16_t idx;
};

typedef int (*node_cmp)(const struct node *, const struct node *);

static int cmp_key(const struct node *a, const struct node *b)
{
	return a->key != b->key ? a->key - b->key : a->idx - b->idx;
}

static int cmp_idx(const struct node *a, const struct node *b)
{
	return a->idx - b->idx;
}

/* Read through volatile so the sort keeps its indirect calls (compilers
 * would otherwise clone list_sort for each constant comparator). */
static node_cmp volatile by_key = cmp_key, by_idx = cmp_idx;

/* Position of the first node with KEY, or -1. */
static int list_find(const struct node *p, int16_t key)
{
	for (int pos = 0; p; p = p->next, pos++)
		if (p->key == key)
			return pos;
	return -1;
}

static struct node *list_reverse(struct node *p)
{
	struct node *prev = NULL;

	while (p) {
		struct node *next = p->next;

		p->next = prev;
		prev = p;
		p = next;
	}
	return prev;
}

/* Stable bottom-up merge sort: merges runs of 1, 2, 4, ... nodes. */
static struct node *list_sort(struct node *list, node_cmp cmp)
{
	for (size_t run = 1;; run *= 2) {
		struct node *p = list, *tail = NULL;
		size_t merges = 0;

		list = NULL;
		while (p) {
			struct node *q = p;
			size_t np = 0, nq = run;

			merges++;
			while (np < run && q) {
				np++;
				q = q->next;
			}
			while (np > 0 || (nq > 0 && q)) {
				struct node *e;

				if (np == 0 || (nq > 0 && q && cmp(p, q) > 0)) {
					e = q;
					q = q->next;
					nq--;
				} else {
					e = p;
					p = p->next;
					np--;
				}
				if (tail)
					tail->next = e;
				else
					list = e;
				tail = e;
			}
			p = q;
		}
		if (tail)
			tail->next = NULL;
		if (merges <= 1)
			return list;
	}
}

static uint16_t list_work(struct node **headp, uint32_t r, uint16_t crc)
{
	struct node *head = *headp;
	uint32_t weighted = 0;
	int pos = 0;

	for (int t = 0; t < 4; t++)
		crc = crc16(crc, (uint16_t)list_find(head, (int16_t)(r >> (8 * t) & 0xff)));
	head = list_reverse(head);
	head = list_sort(head, by_key);
	for (struct node *p = head; p; p = p->next, pos++) {
		weighted += (uint32_t)p->key * (uint32_t)(pos + 1);
		p->key = (int16_t)((p->key * 5 + (int)(r & 0xff) + p->idx) & 0xff);
	}
	crc = crc32w(crc, weighted);
	head = list_sort(head, by_idx);
	crc = crc16(crc, (uint16_t)head->key);
	*headp = head;
	return crc;
}

/* ---- matrices ------------------------------------------------------------ */

static void mat_add_const(int16_t *a, int16_t v)
{
	for (int i = 0; i < MAT_N * MAT_N; i++)
		a[i] = (int16_t)(a[i] + v);
}

/* Sum of C plus the number of elements above a threshold, in the top bits. */
static uint32_t mat_summary(const int32_t *c, int32_t threshold)
{
	uint32_t sum = 0, above = 0;

	for (int i = 0; i < MAT_N * MAT_N; i++) {
		sum += (uint32_t)c[i];
		above += c[i] > threshold;
	}
	return sum ^ above << 24;
}

static void mat_mul_const(int32_t *c, const int16_t *a, int16_t v)
{
	for (int i = 0; i < MAT_N * MAT_N; i++)
		c[i] = (int32_t)a[i] * v;
}

static void mat_mul_vec(int32_t *c, const int16_t *a, const int16_t *b)
{
	for (int i = 0; i < MAT_N; i++) {
		int32_t s = 0;

		for (int j = 0; j < MAT_N; j++)
			s += (int32_t)a[i * MAT_N + j] * b[j * MAT_N];
		c[i] = s;
	}
}

static void mat_mul_mat(int32_t *c, const int16_t *a, const int16_t *b)
{
	for (int i = 0; i < MAT_N; i++)
		for (int j = 0; j < MAT_N; j++) {
			int32_t s = 0;

			for (int k = 0; k < MAT_N; k++)
				s += (int32_t)a[i * MAT_N + k] * b[k * MAT_N + j];
			c[i * MAT_N + j] = s;
		}
}

static void mat_mul_bits(int32_t *c, const int16_t *a, const int16_t *b)
{
	for (int i = 0; i < MAT_N; i++)
		for (int j = 0; j < MAT_N; j++) {
			int32_t s = 0;

			for (int k = 0; k < MAT_N; k++) {
				int32_t t = (int32_t)a[i * MAT_N + k] * b[k * MAT_N + j];

				s += (t >> 2 & 0xf) * (t >> 6 & 0x7f);
			}
			c[i * MAT_N + j] = s;
		}
}

static uint16_t mat_work(int16_t *a, const int16_t *b, int32_t *c,
			 uint32_t r, uint16_t crc)
{
	int16_t v = (int16_t)((r & 0x7f) | 1);

	mat_add_const(a, v);
	mat_mul_const(c, a, v);
	crc = crc32w(crc, mat_summary(c, 4096));
	mat_mul_vec(c, a, b);
	crc = crc32w(crc, mat_summary(c, 0));
	mat_mul_mat(c, a, b);
	crc = crc32w(crc, mat_summary(c, 65536));
	mat_mul_bits(c, a, b);
	crc = crc32w(crc, mat_summary(c, 2048));
	mat_add_const(a, (int16_t)-v);
	return crc;
}

/* ---- state machine ------------------------------------------------------- */

enum state {
	S_START, S_SIGN, S_INT, S_DOT, S_FRAC, S_EXP, S_EXP_SIGN, S_EXP_INT,
	S_ZERO, S_HEX_X, S_HEX, S_BAD, S_COUNT
};

static int is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static int is_hex(char ch)
{
	return is_digit(ch) || (ch >= 'a' && ch <= 'f');
}

static enum state step(enum state s, char ch)
{
	switch (s) {
	case S_START:
		if (ch == '0')
			return S_ZERO;
		if (is_digit(ch))
			return S_INT;
		if (ch == '-' || ch == '+')
			return S_SIGN;
		if (ch == '.')
			return S_DOT;
		return S_BAD;
	case S_SIGN:
		return is_digit(ch) ? S_INT : ch == '.' ? S_DOT : S_BAD;
	case S_ZERO: /* "0x" starts hex; otherwise 0 is an ordinary digit */
		return ch == 'x' ? S_HEX_X : step(S_INT, ch);
	case S_INT:
		return is_digit(ch) ? S_INT : ch == '.' ? S_DOT
			: ch == 'e' ? S_EXP : S_BAD;
	case S_DOT:
		return is_digit(ch) ? S_FRAC : S_BAD;
	case S_FRAC:
		return is_digit(ch) ? S_FRAC : ch == 'e' ? S_EXP : S_BAD;
	case S_EXP:
		return is_digit(ch) ? S_EXP_INT
			: ch == '-' || ch == '+' ? S_EXP_SIGN : S_BAD;
	case S_EXP_SIGN:
	case S_EXP_INT:
		return is_digit(ch) ? S_EXP_INT : S_BAD;
	case S_HEX_X:
	case S_HEX:
		return is_hex(ch) ? S_HEX : S_BAD;
	default:
		return S_BAD;
	}
}

static uint16_t scan(const char *text, uint16_t crc)
{
	uint32_t final[S_COUNT] = {0}, changes = 0;
	enum state s = S_START;

	for (const char *p = text;; p++) {
		if (*p == ',' || *p == '\0') {
			final[s]++;
			s = S_START;
			if (*p == '\0')
				break;
		} else {
			enum state t = step(s, *p);

			changes += t != s;
			s = t;
		}
	}
	for (int i = 0; i < S_COUNT; i++)
		crc = crc16(crc, (uint16_t)final[i]);
	return crc32w(crc, changes);
}

static void put_digits(char **w, uint32_t *seed, int min, int max,
		       const char *alphabet, uint32_t radix)
{
	int n = min + (int)(xorshift32(seed) % (uint32_t)(max - min + 1));

	while (n-- > 0)
		*(*w)++ = alphabet[xorshift32(seed) % radix];
}

/* TEXT_LEN characters of comma-separated tokens of mixed kinds. */
static void make_text(char *text, uint32_t seed)
{
	static const char digits[] = "0123456789abcdef";
	static const char junk[] = "0123456789.e-+xz!";
	char tok[32], *w, *out = text, *end = text + TEXT_LEN;

	for (;;) {
		w = tok;
		switch (xorshift32(&seed) % 6) {
		case 0: /* integer */
			if (xorshift32(&seed) & 1)
				*w++ = '-';
			put_digits(&w, &seed, 1, 6, digits, 10);
			break;
		case 1: /* decimal */
			put_digits(&w, &seed, 1, 4, digits, 10);
			*w++ = '.';
			put_digits(&w, &seed, 1, 4, digits, 10);
			break;
		case 2: /* exponent */
			put_digits(&w, &seed, 1, 2, digits, 10);
			*w++ = '.';
			put_digits(&w, &seed, 1, 3, digits, 10);
			*w++ = 'e';
			if (xorshift32(&seed) & 1)
				*w++ = '-';
			put_digits(&w, &seed, 1, 2, digits, 10);
			break;
		case 3: /* hex */
			*w++ = '0';
			*w++ = 'x';
			put_digits(&w, &seed, 1, 8, digits, 16);
			break;
		default: /* junk, often almost a number */
			put_digits(&w, &seed, 1, 7, junk, sizeof junk - 1);
			break;
		}
		if (out + (w - tok) + 1 >= end)
			break;
		for (char *p = tok; p < w; p++)
			*out++ = *p;
		*out++ = ',';
	}
	out[-1] = '\0';
}

static uint16_t text_work(char *text, uint32_t r, uint16_t crc)
{
	static const char subst[] = "09.e-x";
	size_t pos[4];
	char saved[4];

	crc = scan(text, crc);
	for (int k = 0; k < 4; k++) {
		pos[k] = (r >> (8 * k)) % (TEXT_LEN / 2) * 2 % (TEXT_LEN - 8);
		saved[k] = text[pos[k]];
		if (saved[k] != ',' && saved[k] != '\0')
			text[pos[k]] = subst[(r >> (4 * k)) % 6];
	}
	crc = scan(text, crc);
	for (int k = 3; k >= 0; k--)
		text[pos[k]] = saved[k];
	return crc;
}

/* ---- driver -------------------------------------------------------------- */

static uint32_t kernel(long n)
{
	struct node *nodes = xalloc(LIST_NODES * sizeof *nodes), *head;
	int16_t *a = xalloc(MAT_N * MAT_N * sizeof *a);
	int16_t *b = xalloc(MAT_N * MAT_N * sizeof *b);
	int32_t *c = xalloc(MAT_N * MAT_N * sizeof *c);
	char *text = xalloc(TEXT_LEN);
	uint32_t seed = 0x1234567u, lcg = 12345u, acc = 2166136261u;
	uint16_t crc = 0xffff;

	for (int i = 0; i < LIST_NODES; i++) {
		nodes[i].next = i + 1 < LIST_NODES ? &nodes[i + 1] : NULL;
		nodes[i].key = (int16_t)(xorshift32(&seed) & 0xff);
		nodes[i].idx = (int16_t)i;
	}
	head = nodes;
	for (int i = 0; i < MAT_N * MAT_N; i++) {
		a[i] = (int16_t)((int)(xorshift32(&seed) & 0x3ff) - 512);
		b[i] = (int16_t)((int)(xorshift32(&seed) & 0x3ff) - 512);
	}
	make_text(text, seed);

	for (long it = 0; it < n; it++) {
		uint32_t r;

		lcg = lcg * 1103515245u + 12345u;
		r = lcg ^ lcg >> 15;
		crc = list_work(&head, r, crc);
		crc = mat_work(a, b, c, r, crc);
		crc = text_work(text, r, crc);
		acc = (acc ^ crc) * 16777619u;
	}
	xfree(text);
	xfree(c);
	xfree(b);
	xfree(a);
	xfree(nodes);
	return acc;
}
