/*
 * wasi_world.c - a program's world (directories, environment, limits) in
 * the packed form campaigns and repro files keep, and its application to
 * a wasi_config. See wasi.h.
 */
#include "wasi.h"

#include <string.h>

/* Bytes of n packed strings at p. */
static size_t packed_len(const char *p, uint32_t n)
{
	size_t len = 0;

	for (uint32_t i = 0; i < n; i++)
		len += strlen(p + len) + 1;
	return len;
}

size_t wasi_world_dirs_len(const wasi_world *w)
{
	return w->dirs ? packed_len(w->dirs, 2 * w->ndirs) : 0;
}

size_t wasi_world_env_len(const wasi_world *w)
{
	return w->env ? packed_len(w->env, w->nenv) : 0;
}

/* Append the strings s[0..n) (lengths l) to the packed buffer *buf of
 * *len bytes. False when out of memory. */
static bool append(char **buf, size_t len, const char *const *s,
		   const size_t *l, int n)
{
	size_t add = 0;
	char *b;

	for (int i = 0; i < n; i++)
		add += l[i] + 1;
	if (!(b = wasm_realloc(*buf, len + add)))
		return false;
	for (int i = 0; i < n; i++) {
		memcpy(b + len, s[i], l[i]);
		b[len + l[i]] = '\0';
		len += l[i] + 1;
	}
	*buf = b;
	return true;
}

static wasm_status nomem(wasm_err *err)
{
	return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET, "out of memory");
}

wasm_status wasi_world_add_dir(wasi_world *w, const char *spec,
			       const char *host, wasm_err *err)
{
	const char *sep = strstr(spec, "::");
	size_t hl = sep ? (size_t)(sep - spec) : strlen(spec);
	const char *s[2];
	size_t l[2];

	if (hl == 0 || (sep && !sep[2]))
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "--dir expects HOST or HOST::GUEST, got "
				    "'%s'",
				    spec);
	s[0] = host ? host : spec;
	l[0] = host ? strlen(host) : hl;
	s[1] = sep ? sep + 2 : spec;
	l[1] = sep ? strlen(sep + 2) : hl;
	if (!append(&w->dirs, wasi_world_dirs_len(w), s, l, 2))
		return nomem(err);
	w->ndirs++;
	return WASM_OK;
}

wasm_status wasi_world_add_env(wasi_world *w, const char *kv, wasm_err *err)
{
	size_t l = strlen(kv);

	if (kv[0] == '=' || !strchr(kv, '='))
		return wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
				    "--env expects NAME=VALUE, got '%s'", kv);
	if (!append(&w->env, wasi_world_env_len(w), &kv, &l, 1))
		return nomem(err);
	w->nenv++;
	return WASM_OK;
}

/* n packed strings exactly filling p[0..len) into a fresh *out; false
 * when they do not, or when out of memory (*oom). */
static bool take(char **out, uint32_t *count, const void *p, size_t len,
		 bool pairs, bool *oom)
{
	const char *b = p;
	uint32_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += b[i] == '\0';
	if ((len && b[len - 1] != '\0') || (pairs && n % 2))
		return false;
	*out = NULL;
	*count = 0;
	if (!len)
		return true;
	if (!(*out = wasm_malloc(len)))
		return !(*oom = true);
	memcpy(*out, p, len);
	*count = pairs ? n / 2 : n;
	return true;
}

bool wasi_world_set_dirs(wasi_world *w, const void *p, size_t len, bool *oom)
{
	return take(&w->dirs, &w->ndirs, p, len, true, oom);
}

bool wasi_world_set_env(wasi_world *w, const void *p, size_t len, bool *oom)
{
	return take(&w->env, &w->nenv, p, len, false, oom);
}

wasm_status wasi_world_copy(wasi_world *dst, const wasi_world *src,
			    wasm_err *err)
{
	bool oom = false;

	*dst = (wasi_world){.max_threads = src->max_threads,
			    .max_memory_pages = src->max_memory_pages};
	if (!wasi_world_set_dirs(dst, src->dirs, wasi_world_dirs_len(src),
				 &oom) ||
	    !wasi_world_set_env(dst, src->env, wasi_world_env_len(src), &oom)) {
		wasi_world_clear(dst);
		return nomem(err);
	}
	return WASM_OK;
}

bool wasi_world_given(const wasi_world *w)
{
	return w->ndirs || w->nenv || w->max_threads || w->max_memory_pages;
}

wasm_status wasi_world_apply(const wasi_world *w, wasi_config *cfg, void **mem,
			     wasm_err *err)
{
	wasi_dir *dirs;
	const char **env;
	const char *p;

	*mem = NULL;
	if (w->max_threads)
		cfg->limits.max_threads = w->max_threads;
	if (w->max_memory_pages)
		cfg->limits.max_memory_pages = w->max_memory_pages;
	if (!w->ndirs && !w->nenv)
		return WASM_OK;
	/* One block: the directory pairs, then the environment's pointers. */
	if (!(*mem = wasm_malloc(w->ndirs * sizeof *dirs +
				 (w->nenv + 1) * sizeof *env)))
		return nomem(err);
	dirs = *mem;
	env = (const char **)(dirs + w->ndirs);
	p = w->dirs;
	for (uint32_t i = 0; i < w->ndirs; i++) {
		dirs[i].host = p;
		p += strlen(p) + 1;
		dirs[i].guest = p;
		p += strlen(p) + 1;
	}
	p = w->env;
	for (uint32_t i = 0; i < w->nenv; i++) {
		env[i] = p;
		p += strlen(p) + 1;
	}
	if (w->ndirs) {
		cfg->dirs = dirs;
		cfg->ndirs = w->ndirs;
	}
	if (w->nenv) {
		cfg->env = env;
		cfg->nenv = w->nenv;
	}
	return WASM_OK;
}

void wasi_world_clear(wasi_world *w)
{
	if (!w)
		return;
	wasm_free(w->dirs);
	wasm_free(w->env);
	memset(w, 0, sizeof *w);
}
