/*
 * mask.c - the mask generator (splitmix64-seeded xoshiro256**, Lemire's
 * bounded draw, a partial Fisher-Yates shuffle) and the mask file reader.
 *
 * Every step here is part of DET_MASK_VERSION: a mask stored in the
 * database or a repro file is regenerated from (seed, density, pool), so
 * changing any constant or the order of the draws must bump the version.
 */
#include "detector/race.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

uint64_t det_seed_mix(uint64_t x) { return splitmix64(&x); }

void det_rng_seed(det_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

uint64_t det_rng_below(det_rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)det_rng_next(r) * n;
	uint64_t low = (uint64_t)m;

	/* Reject the low products that would make some results one draw
	 * likelier than others: (2^64 - n) % n of them. */
	if (low < n) {
		uint64_t threshold = -n % n;
		while (low < threshold) {
			m = (unsigned __int128)det_rng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

uint32_t det_mask_count(uint32_t density_bp, uint32_t npool)
{
	return (uint32_t)(((uint64_t)density_bp * npool + 5000) / 10000);
}

wasm_status det_mask_make(uint64_t seed, uint32_t density_bp,
			  const uint32_t *pool, uint32_t npool, uint8_t *mask,
			  uint32_t nsites, wasm_err *err)
{
	uint32_t *ids;
	uint32_t k;
	det_rng r;

	if (density_bp > DET_DENSITY_FULL)
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "density %u.%02u%% is above 100%%",
				    density_bp / 100, density_bp % 100);
	if (!pool)
		npool = nsites;
	memset(mask, 0, nsites);
	/* The mask doubles as the duplicate check; it is cleared after. */
	for (uint32_t i = 0; pool && i < npool; i++) {
		if (pool[i] >= nsites || mask[pool[i]]) {
			wasm_status st = wasm_err_set(
			    err, WASM_INVALID, WASM_NO_OFFSET,
			    pool[i] >= nsites
				? "probe pool: site %u out of range (the "
				  "module has %u sites)"
				: "probe pool: site %u listed twice (%u sites)",
			    pool[i], nsites);
			memset(mask, 0, nsites);
			return st;
		}
		mask[pool[i]] = 1;
	}
	memset(mask, 0, nsites);
	ids = wasm_malloc((size_t)npool * sizeof *ids);
	if (!ids)
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory for a mask of %u sites",
				    npool);
	for (uint32_t i = 0; i < npool; i++)
		ids[i] = pool ? pool[i] : i;
	det_rng_seed(&r, seed);
	k = det_mask_count(density_bp, npool);
	for (uint32_t i = 0; i < k; i++) {
		uint32_t j = i + (uint32_t)det_rng_below(&r, npool - i);
		uint32_t tmp = ids[i];
		ids[i] = ids[j];
		ids[j] = tmp;
		mask[ids[i]] = 1;
	}
	wasm_free(ids);
	return WASM_OK;
}

static wasm_status bad_syntax(wasm_err *err, unsigned line)
{
	return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
			    "line %u: expected a site id or a range A-B (ids "
			    "separated by spaces, commas or newlines; # "
			    "starts a comment)",
			    line);
}

wasm_status det_mask_read(const char *path, uint8_t *mask, uint32_t nsites,
			  wasm_err *err)
{
	uint8_t *data;
	size_t len, i = 0;
	unsigned line = 1;
	wasm_status st;

	if ((st = wasm_read_file(path, &data, &len, err)))
		return st;
	while (i < len) {
		unsigned long long lo, hi;
		char word[48], *end;
		size_t k = 0;
		int c = data[i];

		if (c == '\n') {
			line++;
			i++;
			continue;
		}
		if (isspace(c) || c == ',') {
			i++;
			continue;
		}
		if (c == '#') {
			while (i < len && data[i] != '\n')
				i++;
			continue;
		}
		if (!isdigit(c)) {
			st = bad_syntax(err, line);
			goto done;
		}
		/* data is not NUL-terminated: parse a bounded copy. A word
		 * too long for it is no site id. */
		while (i < len && (isdigit(data[i]) || data[i] == '-')) {
			if (k + 1 == sizeof word) {
				st = bad_syntax(err, line);
				goto done;
			}
			word[k++] = (char)data[i++];
		}
		word[k] = '\0';
		errno = 0;
		lo = strtoull(word, &end, 10);
		hi = lo;
		if (*end == '-') {
			const char *h = end + 1;
			if (!isdigit((unsigned char)*h)) {
				st = bad_syntax(err, line);
				goto done;
			}
			hi = strtoull(h, &end, 10);
		}
		if (*end || errno || hi < lo) {
			st = bad_syntax(err, line);
			goto done;
		}
		if (hi >= nsites) {
			st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
					  "line %u: site id %llu out of range "
					  "(the module has %u sites)",
					  line, hi, nsites);
			goto done;
		}
		memset(mask + lo, 1, (size_t)(hi - lo + 1));
	}
done:
	wasm_free(data);
	return st;
}
