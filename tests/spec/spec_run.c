/*
 * spec_run.c - runs the WebAssembly spec suite's commands on heisen's
 * engine, as converted by wast2json (see run.sh).
 *
 *   spec_run [options] FILE.json...
 *
 * Each .wast file runs in one eng_proc with one eng_thread, so that its
 * modules can share memories, tables and globals through imports. The
 * commands are walked in order, keeping the current module, the modules
 * named with "name" and the ones registered with `register ... as`:
 *   module                 decode, validate, compile, instantiate; imports
 *                          come from spectest (spectest.c) or registered
 *                          instances
 *   action                 invoke an export or get a global; must not trap
 *   assert_return          ... and the results must match: integers and
 *                          floats by bit pattern, nan:canonical and
 *                          nan:arithmetic by their NaN class
 *   assert_trap            must trap with that reason (module form:
 *                          assert_uninstantiable)
 *   assert_exhaustion      must trap with "call stack exhausted"
 *   assert_exception       must end with an uncaught exception
 *   assert_unlinkable      instantiation must fail with a link error
 *   assert_uninstantiable  instantiation must trap (start, segments)
 *   register               the module must exist
 * assert_malformed and assert_invalid are spec_validate's and are not
 * counted here, nor is anything in the text format.
 *
 * Skipped, with the reason counted: commands that need a second thread
 * (thread/wait commands, and an assert_return that expects a
 * memory.atomic.wait to be woken). v128 values are compared lane by lane
 * in the lane type the command gives (each float lane may be a NaN
 * class).
 *
 * A module that should instantiate and does not is reported once; every
 * later command that uses it counts as failed without a line of its own.
 *
 * Each .wast runs in a forked child (-j at a time): an engine crash, a
 * hang (--timeout) or a sanitizer report in one file is reported as
 * "CRASH" with the line of the command that was running, and all of that
 * file's commands from there on count as failed. The child's stderr is
 * shown then, so ASan's report reaches whoever reads the log.
 *
 * Known exceptions (--exceptions FILE) are lines "suite/file.wast:LINE
 * reason", as for spec_validate: a listed case that fails is skipped with
 * its reason; one that passes, or a line that names no counted command,
 * is a failure ("stale exception").
 *
 * --instrument 0|1 runs every module as the rewriter instruments it
 * (rewriter/instrument.h, with all_memories, so that the core suite's
 * unshared memories are exercised too): the decoded and validated module
 * goes through rw_instrument, its output is decoded, validated (with
 * multi-memory: the mask is a second memory), its site table read back,
 * and that module is compiled and instantiated instead. The resolver then
 * also provides heisen.mask, a new shared memory of the import's limits
 * per instance, every byte 0 or 1 (all sites disarmed or armed), and
 * heisen.probe, a host function doing nothing. The results must be those
 * of the original modules, checked by the same commands: traps compare
 * by kind (their messages name function indices, which the probe import
 * shifts by one), link errors by text (the heisen imports come after the
 * module's own, so the first unresolvable import is the same), and
 * registered modules export what they did. A module with no memory at all
 * has no site: the rewriter instruments it anyway (with all_memories it
 * adds the imports and nothing else), so it runs with a mask too; should
 * the rewriter refuse one ("nothing to instrument"), it runs unchanged and
 * is counted on the "instrumented:" line. Anything else the rewriter
 * refuses fails the module command. heisen.probe counts its calls and
 * checks the site id against the module's table: the run fails if any
 * probe is called at mask 0, or none at mask 1.
 *
 * Output: FAIL lines (the first --max-lines; -v lists all and every
 * skip), the skip reasons with counts, and last
 *   spec-run: N passed, M failed, K skipped
 * or, with --instrument B,
 *   spec-run (instrumented, mask B): N passed, M failed, K skipped
 * Exit status 0 only if nothing failed (2: bad usage or setup).
 */
#include "core/engine.h"
#include "rewriter/instrument.h"
#include "tests/spec/exceptions.h"
#include "tests/spec/json.h"
#include "tests/spec/spectest.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- results shared by a file's child with the parent ------------------- */

typedef enum skip_reason {
	SKIP_THREAD,
	SKIP_KNOWN,
	NSKIP
} skip_reason;

static const char *const skip_names[NSKIP] = {
    "needs a second thread",
    "known exceptions",
};

/* Flags per exception, set by the child of the exception's file. */
enum {
	EXC_FILE = 1,	/* the .wast was run */
	EXC_SEEN = 2,	/* a counted command is at that line */
	EXC_USED = 4,	/* ... and failed, and was excused */
	EXC_PASSED = 8, /* ... and passed: counted as passed so far */
};

/* In shared memory: the child writes, the parent reads after it ends. A
 * crash leaves the counts of what ran and where it stopped. */
typedef struct file_result {
	unsigned long passed, failed, skipped;
	unsigned long skip_by[NSKIP];
	long line;		 /* the command running now */
	unsigned long remaining; /* counted commands not finished yet */
	int done;		 /* the child reached the end of the file */
	char file[300];		 /* "core/i32.wast", once known */
	char stage[200];	 /* what the engine is doing for the command */
	unsigned long passthrough; /* --instrument: modules run unchanged */
	unsigned long sites;	   /* --instrument: sites instrumented */
	unsigned long probe_calls; /* --instrument: calls of heisen.probe */
	uint8_t exc[];		 /* EXC_* for each exception */
} file_result;

typedef struct exception {
	char *file; /* "threads/atomic.wast" */
	long line;
	char *reason;
	int src_line; /* line in the exceptions file */
} exception;

typedef struct options {
	int jobs;
	int timeout_s; /* per file; 0: none */
	int max_lines;
	bool verbose;
	bool fork;
	int instrument; /* -1: run the modules as they are; else mask byte */
	const char *exc_path;
	exception *excs;
	size_t nexcs;
} options;

static options opt = {
    .jobs = 2, .timeout_s = 15, .max_lines = 50, .fork = true,
    .instrument = -1};

static void oom(void)
{
	fprintf(stderr, "spec_run: out of memory\n");
	exit(2);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		oom();
	return d;
}

/* ---- one file: state of the child ------------------------------------- */

/* A module command's outcome. inst is NULL when it failed. */
typedef struct modrec {
	eng_instance *inst;
	long line;
	bool failed;
	unsigned long later; /* later commands that failed for it */
} modrec;

/* A name ("$M" of a module command, or "as" of a register) for a module. */
typedef struct binding {
	char *name;
	size_t len;
	size_t mod; /* index in mods */
} binding;

typedef struct filectx {
	const char *file; /* "core/i32.wast" */
	const char *dir;  /* holds the .wasm files */
	bool multi_memory;
	FILE *out;
	file_result *res;

	eng_proc *proc;
	eng_thread *thread;
	spectest *spectest;
	eng_module **cms; /* freed after the proc */
	size_t ncms;
	/* --instrument: the site count of the module being loaded, and the
	 * contexts of the heisen.probe functions (one per instance, which
	 * knows its module's site count). */
	uint32_t nsites;
	struct probe_ctx **probes;
	size_t nprobes;

	modrec *mods;
	size_t nmods;
	long cur; /* current module, -1 before the first */
	binding *names, *regs;
	size_t nnames, nregs;
} filectx;

/* Where the engine is now, for a CRASH line ("compile i32.0.wasm"). */
__attribute__((format(printf, 2, 3))) static void stage_of(filectx *c,
							   const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->res->stage, sizeof c->res->stage, fmt, ap);
	va_end(ap);
}

static exception *find_exception(const char *file, long line, size_t *idx)
{
	for (size_t i = 0; i < opt.nexcs; i++) {
		if (opt.excs[i].line == line &&
		    strcmp(opt.excs[i].file, file) == 0) {
			*idx = i;
			return &opt.excs[i];
		}
	}
	return NULL;
}

/* Every counted command ends in exactly one of pass/fail/skip. */
static void done_one(filectx *c)
{
	if (c->res->remaining)
		c->res->remaining--;
}

static void pass(filectx *c, long line)
{
	size_t i;
	if (find_exception(c->file, line, &i))
		c->res->exc[i] |= EXC_SEEN | EXC_PASSED;
	c->res->passed++;
	done_one(c);
}

static void skip(filectx *c, skip_reason why, long line, const char *what)
{
	size_t i;
	if (find_exception(c->file, line, &i))
		c->res->exc[i] |= EXC_SEEN;
	c->res->skipped++;
	c->res->skip_by[why]++;
	if (opt.verbose)
		fprintf(c->out, "SKIP %s:%ld %s: %s\n", c->file, line, what,
			skip_names[why]);
	done_one(c);
}

/* A failure: "FAIL LOC WHAT: DETAIL", or a SKIP when it is a known
 * exception. quiet: count it without a line (the cause was reported). */
__attribute__((format(printf, 5, 6))) static void
fail(filectx *c, long line, bool quiet, const char *what, const char *fmt, ...)
{
	char detail[1200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	size_t i;
	exception *e = find_exception(c->file, line, &i);
	if (e) {
		c->res->exc[i] |= EXC_SEEN | EXC_USED;
		c->res->skipped++;
		c->res->skip_by[SKIP_KNOWN]++;
		fprintf(c->out, "SKIP %s:%ld %s: %s (known exception: %s)\n",
			c->file, line, what, detail, e->reason);
	} else {
		c->res->failed++;
		if (!quiet)
			fprintf(c->out, "FAIL %s:%ld %s: %s\n", c->file, line,
				what, detail);
	}
	done_one(c);
}

/* ---- values ---------------------------------------------------------- */

typedef enum match { EXACT, NAN_CANONICAL, NAN_ARITHMETIC, ANY_NONNULL } match;

/* An argument or an expected result, in slot form (a v128 in v[0..1]). */
typedef struct tval {
	uint8_t type; /* WASM_I32... */
	eng_val v[2];
	uint8_t match; /* enum match */
	/* v128: the lane type (WASM_I32... ; i8 and i16 lanes as
	 * WASM_I32 with lane_bytes 1 or 2), and each lane's match. */
	uint8_t lane_type, lane_bytes;
	uint8_t lane_match[16];
} tval;

typedef enum parse_rc { PARSE_OK, PARSE_BAD } parse_rc;

static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return false;
	*out = v;
	return true;
}

/* The number types and the v128 lane types of wast2json, with the
 * width of their bit patterns. */
static const struct {
	const char *name;
	uint8_t type;
	uint8_t bytes;
} nums[] = {
    {"i32", WASM_I32, 4}, {"i64", WASM_I64, 8}, {"f32", WASM_F32, 4},
    {"f64", WASM_F64, 8}, {"i8", WASM_I32, 1},  {"i16", WASM_I32, 2},
};

/* One number: a NaN class (expected floats only) or the unsigned decimal
 * of the bit pattern, at most `bytes` wide. */
static bool parse_num(const char *s, uint8_t type, unsigned bytes,
		      bool expected, uint64_t *v, uint8_t *m)
{
	bool fl = type == WASM_F32 || type == WASM_F64;
	*m = EXACT;
	*v = 0;
	if (expected && fl && s && !strcmp(s, "nan:canonical")) {
		*m = NAN_CANONICAL;
		return true;
	}
	if (expected && fl && s && !strcmp(s, "nan:arithmetic")) {
		*m = NAN_ARITHMETIC;
		return true;
	}
	return parse_u64(s, bytes == 8 ? UINT64_MAX : (1ull << 8 * bytes) - 1,
			 v);
}

/* A v128: {"type": "v128", "lane_type": "i32", "value": [lanes]}. */
static parse_rc parse_v128(const json_value *jv, bool expected, tval *out,
			   char *why, size_t cap)
{
	const char *lt = json_get_str(jv, "lane_type");
	const json_value *lanes = json_get(jv, "value");
	size_t k = 0;
	uint8_t bytes[16];

	out->type = WASM_V128;
	while (k < sizeof nums / sizeof *nums &&
	       (!lt || strcmp(lt, nums[k].name) != 0))
		k++;
	if (k == sizeof nums / sizeof *nums ||
	    json_len(lanes) * nums[k].bytes != 16) {
		snprintf(why, cap, "bad v128 value (lane type %s, %zu lanes)",
			 lt ? lt : "(none)", json_len(lanes));
		return PARSE_BAD;
	}
	out->lane_type = nums[k].type;
	out->lane_bytes = nums[k].bytes;
	for (size_t i = 0; i < json_len(lanes); i++) {
		const char *s = json_str(json_at(lanes, i));
		uint64_t v;
		if (!parse_num(s, out->lane_type, out->lane_bytes, expected,
			       &v, &out->lane_match[i])) {
			snprintf(why, cap, "bad v128 lane %s", s ? s : "");
			return PARSE_BAD;
		}
		memcpy(bytes + i * out->lane_bytes, &v, out->lane_bytes);
	}
	memcpy(out->v, bytes, 16);
	return PARSE_OK;
}

/* One {"type": T, "value": V} of wast2json. Integers and floats are the
 * unsigned decimal of their bit pattern; a reference is "null" or, for
 * externref, a number N, represented as host value N+1 so that
 * externref 0 is not the null reference. */
static parse_rc parse_val(const json_value *jv, bool expected, tval *out,
			  char *why, size_t cap)
{
	const char *type = json_get_str(jv, "type");
	const json_value *val = json_get(jv, "value");
	const char *s = json_str(val);
	memset(out, 0, sizeof *out);
	if (!type) {
		snprintf(why, cap, "value without a type");
		return PARSE_BAD;
	}
	if (!strcmp(type, "v128"))
		return parse_v128(jv, expected, out, why, cap);
	for (size_t i = 0; i < 4; i++) {
		if (strcmp(type, nums[i].name) != 0)
			continue;
		out->type = nums[i].type;
		if (!parse_num(s, out->type, nums[i].bytes, expected,
			       &out->v[0], &out->match)) {
			snprintf(why, cap, "bad %s value %s", type,
				 s ? s : "(none)");
			return PARSE_BAD;
		}
		return PARSE_OK;
	}
	if (!strcmp(type, "externref") || !strcmp(type, "funcref")) {
		out->type = type[0] == 'e' ? WASM_EXTERNREF : WASM_FUNCREF;
		if (!val && expected) {
			/* (ref.extern) / (ref.func) without an index: any
			 * non-null reference. */
			out->match = ANY_NONNULL;
			return PARSE_OK;
		}
		if (s && !strcmp(s, "null")) {
			out->v[0] = 0;
			return PARSE_OK;
		}
		uint64_t v;
		if (out->type == WASM_EXTERNREF &&
		    parse_u64(s, UINT64_MAX - 1, &v)) {
			out->v[0] = v + 1;
			return PARSE_OK;
		}
		snprintf(why, cap, "bad %s value %s", type, s ? s : "(none)");
		return PARSE_BAD;
	}
	snprintf(why, cap, "unsupported value type %s", type);
	return PARSE_BAD;
}

/* Append text to buf at *at, a space before all but the first. */
static void put_text(char *buf, size_t cap, size_t *at, const char *text)
{
	if (*at < cap) {
		int n = snprintf(buf + *at, cap - *at, "%s%s", *at ? " " : "",
				 text);
		if (n > 0)
			*at += (size_t)n;
	}
}

/* "i32:-5", "f32:0x7fc00000 (nan)", "externref:3", "v128:0x.. 0x.. 0x..
 * 0x.." (its i32 lanes), into buf at *at; v in slot form. */
static void put_val(char *buf, size_t cap, size_t *at, uint8_t type,
		    const eng_val *vp)
{
	char tmp[96];
	eng_val v = vp[0];
	uint32_t b32 = (uint32_t)v;
	float f;
	double d;
	switch (type) {
	case WASM_I32:
		snprintf(tmp, sizeof tmp, "i32:%" PRId32, (int32_t)b32);
		break;
	case WASM_I64:
		snprintf(tmp, sizeof tmp, "i64:%" PRId64, (int64_t)v);
		break;
	case WASM_F32:
		memcpy(&f, &b32, sizeof f);
		snprintf(tmp, sizeof tmp, "f32:0x%08" PRIx32 " (%.9g)", b32,
			 (double)f);
		break;
	case WASM_F64:
		memcpy(&d, &v, sizeof d);
		snprintf(tmp, sizeof tmp, "f64:0x%016" PRIx64 " (%.17g)", v, d);
		break;
	case WASM_EXTERNREF:
		if (v)
			snprintf(tmp, sizeof tmp, "externref:%" PRIu64, v - 1);
		else
			snprintf(tmp, sizeof tmp, "externref:null");
		break;
	case WASM_FUNCREF:
		if (v)
			snprintf(tmp, sizeof tmp, "funcref:%#" PRIx64, v);
		else
			snprintf(tmp, sizeof tmp, "funcref:null");
		break;
	case WASM_V128: {
		uint32_t l[4];
		memcpy(l, vp, 16);
		snprintf(tmp, sizeof tmp,
			 "v128:0x%08" PRIx32 " 0x%08" PRIx32 " 0x%08" PRIx32
			 " 0x%08" PRIx32,
			 l[0], l[1], l[2], l[3]);
		break;
	}
	default:
		snprintf(tmp, sizeof tmp, "%s:%#" PRIx64, wasm_type_name(type),
			 v);
		break;
	}
	put_text(buf, cap, at, tmp);
}

static const char *match_name(uint8_t m)
{
	switch (m) {
	case NAN_CANONICAL: return "nan:canonical";
	case NAN_ARITHMETIC: return "nan:arithmetic";
	case ANY_NONNULL: return "non-null";
	}
	return NULL;
}

/* An expected v128 lane by lane: "v128:f32[nan:canonical 0x3f800000 ..]". */
static void put_v128_lanes(char *buf, size_t cap, size_t *at, const tval *t)
{
	char tmp[400];
	size_t o, n = 16 / t->lane_bytes;
	const uint8_t *b = (const uint8_t *)t->v;

	if (t->lane_type == WASM_I32)
		snprintf(tmp, sizeof tmp, "v128:i%u[", t->lane_bytes * 8u);
	else
		snprintf(tmp, sizeof tmp, "v128:%s[",
			 wasm_type_name(t->lane_type));
	o = strlen(tmp);
	for (size_t i = 0; i < n && o < sizeof tmp; i++) {
		uint64_t lane = 0;
		const char *m = match_name(t->lane_match[i]);
		memcpy(&lane, b + i * t->lane_bytes, t->lane_bytes);
		if (m)
			o += (size_t)snprintf(tmp + o, sizeof tmp - o, "%s%s",
					      i ? " " : "", m);
		else
			o += (size_t)snprintf(tmp + o, sizeof tmp - o,
					      "%s0x%" PRIx64, i ? " " : "",
					      lane);
	}
	if (o < sizeof tmp)
		snprintf(tmp + o, sizeof tmp - o, "]");
	put_text(buf, cap, at, tmp);
}

static void put_expected(char *buf, size_t cap, size_t *at, const tval *t)
{
	const char *special = match_name(t->match);
	char tmp[80];

	if (t->type == WASM_V128) {
		put_v128_lanes(buf, cap, at, t);
	} else if (!special) {
		put_val(buf, cap, at, t->type, t->v);
	} else {
		snprintf(tmp, sizeof tmp, "%s:%s", wasm_type_name(t->type),
			 special);
		put_text(buf, cap, at, tmp);
	}
}

/* A number's bit pattern v against what is wanted (m: enum match):
 * canonical NaN is exponent all ones and only the top mantissa bit, of
 * either sign; arithmetic NaN has the top mantissa bit set. */
static bool num_matches(uint8_t type, uint8_t m, uint64_t want, uint64_t v)
{
	switch (type) {
	case WASM_I32: return (uint32_t)v == (uint32_t)want;
	case WASM_F32:
		if (m == NAN_CANONICAL)
			return ((uint32_t)v & 0x7fffffffu) == 0x7fc00000u;
		if (m == NAN_ARITHMETIC)
			return ((uint32_t)v & 0x7fc00000u) == 0x7fc00000u;
		return (uint32_t)v == (uint32_t)want;
	case WASM_F64:
		if (m == NAN_CANONICAL)
			return (v & 0x7fffffffffffffffull) ==
			       0x7ff8000000000000ull;
		if (m == NAN_ARITHMETIC)
			return (v & 0x7ff8000000000000ull) ==
			       0x7ff8000000000000ull;
		return v == want;
	default: return v == want;
	}
}

/* Whether the value v (slot form) of the given type is what is wanted;
 * a v128 lane by lane in the lane type the command gives. */
static bool val_matches(const tval *want, uint8_t type, const eng_val *v)
{
	if (want->type != type)
		return false;
	switch (type) {
	case WASM_V128: {
		const uint8_t *got = (const uint8_t *)v;
		const uint8_t *exp = (const uint8_t *)want->v;
		for (unsigned i = 0; i < 16u / want->lane_bytes; i++) {
			uint64_t g = 0, e = 0;
			unsigned o = i * want->lane_bytes;
			memcpy(&g, got + o, want->lane_bytes);
			memcpy(&e, exp + o, want->lane_bytes);
			if (!num_matches(want->lane_type, want->lane_match[i],
					 e, g))
				return false;
		}
		return true;
	}
	case WASM_EXTERNREF:
	case WASM_FUNCREF:
		if (want->match == ANY_NONNULL)
			return v[0] != 0;
		return v[0] == want->v[0];
	default: return num_matches(type, want->match, want->v[0], v[0]);
	}
}

/* A name as C text for messages: non-printable bytes as \xx, cut long. */
static void show_name(const char *s, size_t len, char *buf, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; i < len && o + 8 < cap; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (i == 40) {
			o += (size_t)snprintf(buf + o, cap - o, "...");
			break;
		}
		if (ch < 0x20 || ch == 0x7f || ch == '"' || ch == '\\')
			o += (size_t)snprintf(buf + o, cap - o, "\\%02x", ch);
		else
			buf[o++] = (char)ch;
	}
	buf[o] = '\0';
}

/* ---- modules ---------------------------------------------------------- */

static long find_binding(const binding *b, size_t n, const char *name,
			 size_t len)
{
	/* The latest binding of a name wins, as in the reference
	 * interpreter's registry. */
	for (size_t i = n; i-- > 0;)
		if (b[i].len == len && memcmp(b[i].name, name, len) == 0)
			return (long)b[i].mod;
	return -1;
}

static void add_binding(binding **b, size_t *n, const char *name, size_t len,
			size_t mod)
{
	*b = xrealloc(*b, (*n + 1) * sizeof **b);
	char *copy = xcalloc(1, len + 1);
	memcpy(copy, name, len);
	(*b)[(*n)++] = (binding){copy, len, mod};
}

typedef struct probe_ctx {
	filectx *c;
	uint32_t nsites;
} probe_ctx;

/* heisen.probe(address, site): counts its calls, so that the summary
 * shows the probes really ran at mask 1 and never at mask 0, and checks
 * the site id against the module's table (a range site's extra calls
 * carry a flag beside it). */
static eng_trap_kind probe(eng_thread *t, void *ctx, const eng_val *args,
			   eng_val *results, eng_trap *trap)
{
	probe_ctx *p = ctx;
	uint32_t site = (uint32_t)args[1];
	p->c->res->probe_calls++;
	if ((site & ~(RW_PROBE_SRC | RW_PROBE_LEN)) >= p->nsites) {
		snprintf(trap->msg, sizeof trap->msg,
			 "heisen.probe called with site %u, the module has %u",
			 site, p->nsites);
		return ENG_TRAP_HOST;
	}
	return ENG_OK;
}

/* heisen.mask and heisen.probe for an instrumented module. Each instance
 * gets its own mask: a mask is indexed by the site ids of one module. */
static bool resolve_heisen(filectx *c, const wasm_import *imp,
			   eng_extern *out)
{
	if (imp->name.len == 4 && !memcmp(imp->name.p, "mask", 4) &&
	    imp->kind == WASM_EXTERN_MEMORY) {
		wasm_err err;
		wasm_err_clear(&err);
		eng_memory *mem = eng_memory_new(c->proc, &imp->u.memory, &err);
		if (!mem)
			return false;
		memset(eng_memory_data(mem), opt.instrument,
		       (size_t)eng_memory_size(mem));
		out->kind = WASM_EXTERN_MEMORY;
		out->u.memory = mem;
		return true;
	}
	if (imp->name.len == 5 && !memcmp(imp->name.p, "probe", 5) &&
	    imp->kind == WASM_EXTERN_FUNC) {
		static uint8_t types[2] = {WASM_I32, WASM_I32};
		static const wasm_functype ft = {2, 0, types};
		probe_ctx *p = xcalloc(1, sizeof *p);
		*p = (probe_ctx){c, c->nsites};
		c->probes =
		    xrealloc(c->probes, (c->nprobes + 1) * sizeof *c->probes);
		c->probes[c->nprobes++] = p;
		out->kind = WASM_EXTERN_FUNC;
		out->u.func =
		    eng_host_func_new(c->proc, &ft, probe, p, "heisen.probe");
		return out->u.func != NULL;
	}
	return false;
}

static bool resolve(void *ctx, const wasm_import *imp, eng_extern *out)
{
	filectx *c = ctx;
	if (opt.instrument >= 0 && imp->module.len == 6 &&
	    !memcmp(imp->module.p, "heisen", 6))
		return resolve_heisen(c, imp, out);
	long m =
	    find_binding(c->regs, c->nregs, imp->module.p, imp->module.len);
	if (m < 0) {
		if (imp->module.len == 8 &&
		    !memcmp(imp->module.p, "spectest", 8))
			return spectest_lookup(c->spectest, imp->name.p,
					       imp->name.len, out, NULL);
		return false;
	}
	eng_instance *inst = c->mods[m].inst;
	return inst &&
	       eng_instance_export_n(inst, imp->name.p, imp->name.len, out);
}

/* --instrument: replace *m by its instrumented form, decoded and
 * validated, or leave it when it has no memory and the rewriter says
 * there is nothing to instrument. *stage names the step that failed. */
static wasm_status instrument(filectx *c, wasm_module **m, const char **stage,
			      wasm_err *err)
{
	const rw_options o = {.all_memories = true};
	uint8_t *out = NULL;
	size_t len = 0;
	rw_sites sites, back;
	wasm_module *im = NULL;
	memset(&sites, 0, sizeof sites);
	memset(&back, 0, sizeof back);
	wasm_status st = rw_instrument(*m, &o, &out, &len, &sites, err);
	if (st == WASM_INVALID && (*m)->nmem_imports + (*m)->nmems == 0 &&
	    strstr(err->msg, "nothing to instrument")) {
		c->res->passthrough++;
		wasm_err_clear(err);
		return WASM_OK;
	}
	if (st == WASM_OK) {
		*stage = "decode instrumented";
		st = wasm_decode(out, len, &im, err);
	}
	if (st == WASM_OK) {
		*stage = "validate instrumented";
		st = wasm_validate(im, err);
	}
	if (st == WASM_OK) {
		*stage = "read site table of";
		st = rw_sites_read(im, &back, err);
	}
	if (st == WASM_OK && (back.nsites != sites.nsites ||
			      back.hash != sites.hash ||
			      back.probe_func != sites.probe_func ||
			      back.mask_mem != sites.mask_mem)) {
		*stage = "site table of";
		wasm_err_clear(err);
		err->status = st = WASM_MALFORMED;
		snprintf(err->msg, sizeof err->msg,
			 "heisen.sites reads back %u sites (probe %u, mask "
			 "%u), rw_instrument returned %u (probe %u, mask %u)",
			 back.nsites, back.probe_func, back.mask_mem,
			 sites.nsites, sites.probe_func, sites.mask_mem);
	}
	if (st == WASM_OK) {
		c->res->sites += sites.nsites;
		c->nsites = sites.nsites;
		wasm_module_free(*m);
		*m = im;
		im = NULL;
	}
	wasm_module_free(im);
	wasm_free(out);
	rw_sites_free(&sites);
	rw_sites_free(&back);
	return st;
}

/* Read, decode, validate and compile the command's module. On failure
 * why says which stage refused it. */
static eng_module *load_module(filectx *c, const char *filename, char *why,
			       size_t cap)
{
	char *path = NULL;
	if (asprintf(&path, "%s/%s", c->dir, filename) < 0)
		oom();
	uint8_t *bytes = NULL;
	size_t len = 0;
	wasm_module *m = NULL;
	eng_module *cm = NULL;
	wasm_err err;
	char f[600];
	wasm_err_clear(&err);
	const char *stage = "read";
	stage_of(c, "decode/validate %s", filename);
	wasm_status st = wasm_read_file(path, &bytes, &len, &err);
	if (st == WASM_OK) {
		stage = "decode";
		st = wasm_decode(bytes, len, &m, &err);
	}
	if (st == WASM_OK) {
		stage = "validate";
		/* The core and threads suites predate multi-memory and test
		 * its absence, as in spec_validate. */
		const wasm_features feat = {.multi_memory = c->multi_memory};
		st = wasm_validate_with(m, &feat, &err);
	}
	if (st == WASM_OK && opt.instrument >= 0) {
		stage = "instrument";
		stage_of(c, "instrument %s", filename);
		st = instrument(c, &m, &stage, &err);
	}
	if (st == WASM_OK) {
		stage = "compile";
		stage_of(c, "compile %s", filename);
		st = eng_compile(m, &cm, &err); /* owns m from here */
		m = NULL;
	}
	if (st != WASM_OK) {
		wasm_err_format(&err, filename, f, sizeof f);
		snprintf(why, cap, "%s %s: %s", stage, wasm_status_name(st), f);
		cm = NULL;
	} else {
		c->cms = xrealloc(c->cms, (c->ncms + 1) * sizeof *c->cms);
		c->cms[c->ncms++] = cm;
	}
	wasm_module_free(m);
	wasm_free(bytes);
	free(path);
	return cm;
}

/* Spec trap texts are compared the way the reference interpreter does,
 * by prefix; the engine names the kind only, so a text that adds detail
 * to the name ("uninitialized element 2") matches it as well. */
static bool trap_text_matches(eng_trap_kind k, const char *want)
{
	const char *name = eng_trap_name(k);
	size_t n = strlen(name), w = strlen(want);
	return strncmp(name, want, n < w ? n : w) == 0;
}

static void cmd_module(filectx *c, const json_value *cmd, const char *type,
		       long line)
{
	const char *filename = json_get_str(cmd, "filename");
	const char *text = json_get_str(cmd, "text");
	const json_value *jname = json_get(cmd, "name");
	bool plain = !strcmp(type, "module");
	char why[800];
	eng_instance *inst = NULL;
	eng_trap trap;
	wasm_err err;
	bool ok = false;

	memset(&trap, 0, sizeof trap);
	wasm_err_clear(&err);
	eng_module *cm =
	    filename ? load_module(c, filename, why, sizeof why) : NULL;
	if (!filename)
		snprintf(why, sizeof why, "command has no filename");
	if (cm)
		stage_of(c, "instantiate %s", filename);
	if (cm)
		ok = eng_instantiate(cm, c->proc, c->thread, resolve, c, &inst,
				     &trap, &err);

	if (plain) {
		modrec r = {
		    .inst = ok ? inst : NULL, .line = line, .failed = !ok};
		c->mods = xrealloc(c->mods, (c->nmods + 1) * sizeof *c->mods);
		c->mods[c->nmods] = r;
		c->cur = (long)c->nmods;
		if (jname && jname->type == JSON_STRING)
			add_binding(&c->names, &c->nnames, jname->u.str,
				    jname->len, c->nmods);
		c->nmods++;
		if (ok) {
			pass(c, line);
		} else if (!cm) {
			fail(c, line, false, "module", "%s", why);
		} else if (trap.kind != ENG_OK) {
			fail(c, line, false, "module",
			     "instantiation trapped: %s", trap.msg);
		} else {
			char f[600];
			wasm_err_format(&err, filename, f, sizeof f);
			fail(c, line, false, "module",
			     "instantiation failed: %s", f);
		}
		return;
	}

	if (!text)
		text = "";
	if (!cm) {
		fail(c, line, false, type, "%s (want %s \"%s\")", why,
		     !strcmp(type, "assert_unlinkable") ? "link error" : "trap",
		     text);
		return;
	}
	if (ok) {
		fail(c, line, false, type, "instantiated, want %s \"%s\"",
		     !strcmp(type, "assert_unlinkable") ? "link error" : "trap",
		     text);
		return;
	}
	if (!strcmp(type, "assert_unlinkable")) {
		/* A link error is a host error in err, with no trap. */
		if (trap.kind != ENG_OK) {
			fail(c, line, false, type,
			     "trapped (%s), want link error \"%s\"", trap.msg,
			     text);
		} else if (strncmp(err.msg, text, strlen(text)) != 0) {
			fail(c, line, false, type,
			     "link error \"%s\", want \"%s\"", err.msg, text);
		} else {
			pass(c, line);
		}
		return;
	}
	/* assert_uninstantiable: a trap in the start function or while
	 * initialising segments. */
	if (trap.kind == ENG_OK) {
		char f[600];
		wasm_err_format(&err, filename, f, sizeof f);
		fail(c, line, false, type, "link error (%s), want trap \"%s\"",
		     f, text);
	} else if (!trap_text_matches(trap.kind, text)) {
		fail(c, line, false, type,
		     "trapped with \"%s\" (%s), want \"%s\"",
		     eng_trap_name(trap.kind), trap.msg, text);
	} else {
		pass(c, line);
	}
}

static void cmd_register(filectx *c, const json_value *cmd, long line)
{
	const json_value *jname = json_get(cmd, "name");
	const json_value *as = json_get(cmd, "as");
	long m = c->cur;
	if (jname && jname->type == JSON_STRING)
		m = find_binding(c->names, c->nnames, jname->u.str, jname->len);
	if (!as || as->type != JSON_STRING) {
		fail(c, line, false, "register", "no \"as\" name");
		return;
	}
	if (m < 0) {
		fail(c, line, false, "register", "no such module %s",
		     jname ? json_str(jname) : "(current)");
		return;
	}
	add_binding(&c->regs, &c->nregs, as->u.str, as->len, (size_t)m);
	if (c->mods[m].failed) {
		c->mods[m].later++;
		fail(c, line, true, "register", "module failed");
		return;
	}
	pass(c, line);
}

/* ---- actions ---------------------------------------------------------- */

typedef enum act_rc {
	ACT_DONE,   /* ran: results or trap are set */
	ACT_BROKEN, /* its module failed earlier (counted quietly) */
	ACT_ERROR,  /* could not run: why says so */
} act_rc;

typedef struct act_out {
	eng_trap_kind kind;
	eng_trap trap;
	uint32_t nresults;
	uint8_t types[64];
	eng_val results[128]; /* slot form */
	char what[400]; /* "add(i32:1 i32:2)" for messages */
} act_out;

static act_rc run_action(filectx *c, const json_value *act, act_out *o,
			 char *why, size_t cap)
{
	const char *atype = json_get_str(act, "type");
	const json_value *field = json_get(act, "field");
	const json_value *jmod = json_get(act, "module");
	const json_value *args = json_get(act, "args");
	char fname[200];

	memset(o, 0, sizeof *o);
	o->kind = ENG_OK;
	if (!atype || !field || field->type != JSON_STRING) {
		snprintf(why, cap, "action without type or field");
		return ACT_ERROR;
	}
	show_name(field->u.str, field->len, fname, sizeof fname);
	snprintf(o->what, sizeof o->what, "%s", fname);

	size_t nargs = json_len(args);
	tval argv[64];
	if (nargs > 64) {
		snprintf(why, cap, "%zu arguments (the runner takes 64)",
			 nargs);
		return ACT_ERROR;
	}
	for (size_t i = 0; i < nargs; i++) {
		if (parse_val(json_at(args, i), false, &argv[i], why, cap))
			return ACT_ERROR;
	}
	if (!strcmp(atype, "invoke")) {
		char argtext[120];
		size_t at = 0;
		argtext[0] = '\0';
		for (size_t i = 0; i < nargs; i++)
			put_val(argtext, sizeof argtext, &at, argv[i].type,
				argv[i].v);
		snprintf(o->what, sizeof o->what, "%s(%s)", fname, argtext);
	}

	long m = c->cur;
	if (jmod && jmod->type == JSON_STRING) {
		m = find_binding(c->names, c->nnames, jmod->u.str, jmod->len);
		if (m < 0) {
			snprintf(why, cap, "no module named %s", jmod->u.str);
			return ACT_ERROR;
		}
	}
	if (m < 0) {
		snprintf(why, cap, "no module yet");
		return ACT_ERROR;
	}
	if (c->mods[m].failed) {
		c->mods[m].later++;
		return ACT_BROKEN;
	}
	eng_extern ex;
	memset(&ex, 0, sizeof ex);
	if (!eng_instance_export_n(c->mods[m].inst, field->u.str, field->len,
				   &ex)) {
		snprintf(why, cap, "no export \"%s\"", fname);
		return ACT_ERROR;
	}

	if (!strcmp(atype, "get")) {
		if (ex.kind != WASM_EXTERN_GLOBAL) {
			snprintf(why, cap,
				 "export \"%s\" is a %s, not a global", fname,
				 wasm_extern_name(ex.kind));
			return ACT_ERROR;
		}
		o->nresults = 1;
		o->types[0] = eng_global_type(ex.u.global).type;
		eng_global_get(ex.u.global, o->results);
		return ACT_DONE;
	}
	if (strcmp(atype, "invoke") != 0) {
		snprintf(why, cap, "unknown action type %s", atype);
		return ACT_ERROR;
	}
	if (ex.kind != WASM_EXTERN_FUNC) {
		snprintf(why, cap, "export \"%s\" is a %s, not a function",
			 fname, wasm_extern_name(ex.kind));
		return ACT_ERROR;
	}
	const wasm_functype *ft = eng_func_type(ex.u.func);
	if (ft->nparams != nargs) {
		snprintf(why, cap,
			 "%s takes %u arguments, the command gives %zu", fname,
			 ft->nparams, nargs);
		return ACT_ERROR;
	}
	if (ft->nresults > 64) {
		snprintf(why, cap, "%u results (the runner takes 64)",
			 ft->nresults);
		return ACT_ERROR;
	}
	eng_val a[128];
	size_t na = 0;
	for (size_t i = 0; i < nargs; i++) {
		if (argv[i].type != ft->types[i]) {
			snprintf(why, cap, "argument %zu is %s, %s takes %s", i,
				 wasm_type_name(argv[i].type), fname,
				 wasm_type_name(ft->types[i]));
			return ACT_ERROR;
		}
		for (uint32_t k = 0; k < eng_type_slots(argv[i].type); k++)
			a[na++] = argv[i].v[k];
	}
	o->nresults = ft->nresults;
	memcpy(o->types, ft->types + ft->nparams, ft->nresults);
	stage_of(c, "call %s", o->what);
	o->kind = eng_call(c->thread, ex.u.func, a, o->results, &o->trap);
	return ACT_DONE;
}

/* Results as text: "i32:1 f64:0x..." */
static void show_results(const act_out *o, char *buf, size_t cap)
{
	size_t at = 0, slot = 0;
	buf[0] = '\0';
	for (uint32_t i = 0; i < o->nresults; i++) {
		put_val(buf, cap, &at, o->types[i], o->results + slot);
		slot += eng_type_slots(o->types[i]);
	}
	if (!o->nresults)
		snprintf(buf, cap, "nothing");
}

/* A wait that only another thread's notify could end: the suite expects
 * "ok" (0) from memory.atomic.wait*, which needs a second thread. */
static bool needs_second_thread(const json_value *cmd)
{
	const json_value *act = json_get(cmd, "action");
	const char *field = json_get_str(act, "field");
	const json_value *exp = json_get(cmd, "expected");
	if (!field || !strstr(field, "wait") || json_len(exp) != 1)
		return false;
	const json_value *e0 = json_at(exp, 0);
	return json_str_eq(json_get(e0, "type"), "i32") &&
	       json_str_eq(json_get(e0, "value"), "0");
}

static void cmd_action(filectx *c, const json_value *cmd, const char *type,
		       long line)
{
	const json_value *act = json_get(cmd, "action");
	const json_value *exp = json_get(cmd, "expected");
	const char *text = json_get_str(cmd, "text");
	char why[700], label[440];
	act_out *o = xcalloc(1, sizeof *o);

	if (!strcmp(type, "assert_return") && needs_second_thread(cmd)) {
		skip(c, SKIP_THREAD, line, type);
		goto done;
	}
	/* Expected results are parsed before running: a bad one fails the
	 * command without running half of it. */
	size_t nexp = json_len(exp);
	tval want[64];
	bool check_results = !strcmp(type, "assert_return");
	if (check_results) {
		if (nexp > 64) {
			fail(c, line, false, type, "%zu expected results",
			     nexp);
			goto done;
		}
		for (size_t i = 0; i < nexp; i++) {
			parse_rc rc = parse_val(json_at(exp, i), true, &want[i],
						why, sizeof why);
			if (rc == PARSE_BAD) {
				fail(c, line, false, type, "%s", why);
				goto done;
			}
		}
	}

	act_rc rc = run_action(c, act, o, why, sizeof why);
	snprintf(label, sizeof label, "%s %s", type, o->what);
	if (rc == ACT_BROKEN) {
		fail(c, line, true, label, "its module failed");
		goto done;
	}
	if (rc == ACT_ERROR) {
		fail(c, line, false, label, "%s", why);
		goto done;
	}

	char got[400];
	show_results(o, got, sizeof got);
	if (!strcmp(type, "assert_trap") ||
	    !strcmp(type, "assert_exhaustion") ||
	    !strcmp(type, "assert_exception")) {
		const char *w = text ? text : "";
		if (!strcmp(type, "assert_exhaustion"))
			w = "call stack exhausted";
		if (!strcmp(type, "assert_exception"))
			w = eng_trap_name(ENG_TRAP_EXCEPTION);
		if (o->kind == ENG_OK)
			fail(c, line, false, label,
			     "returned %s, want trap \"%s\"", got, w);
		else if (!trap_text_matches(o->kind, w))
			fail(c, line, false, label,
			     "trapped with \"%s\" (%s), want \"%s\"",
			     eng_trap_name(o->kind), o->trap.msg, w);
		else
			pass(c, line);
		goto done;
	}
	if (o->kind != ENG_OK) {
		fail(c, line, false, label, "trapped: %s", o->trap.msg);
		goto done;
	}
	if (!check_results) { /* action */
		pass(c, line);
		goto done;
	}
	bool same = o->nresults == nexp;
	for (size_t i = 0, slot = 0; same && i < nexp; i++) {
		same = val_matches(&want[i], o->types[i], o->results + slot);
		slot += eng_type_slots(o->types[i]);
	}
	if (same) {
		pass(c, line);
		goto done;
	}
	char wtext[400];
	size_t at = 0;
	wtext[0] = '\0';
	for (size_t i = 0; i < nexp; i++)
		put_expected(wtext, sizeof wtext, &at, &want[i]);
	fail(c, line, false, label, "got %s want %s", got,
	     nexp ? wtext : "nothing");
done:
	free(o);
}

/* ---- one file --------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Whether a command counts: the binary-format module commands and the
 * ones that run code. */
static bool counted(const json_value *cmd)
{
	const char *type = json_get_str(cmd, "type");
	if (!type || !strcmp(type, "assert_malformed") ||
	    !strcmp(type, "assert_invalid"))
		return false;
	const char *mtype = json_get_str(cmd, "module_type");
	const char *name = json_get_str(cmd, "filename");
	if ((mtype && strcmp(mtype, "binary") != 0) ||
	    (!mtype && name && !ends_with(name, ".wasm")))
		return false; /* text format */
	return true;
}

static void run_command(filectx *c, const json_value *cmd)
{
	const char *type = json_get_str(cmd, "type");
	int64_t line = 0;
	json_get_int(cmd, "line", &line);
	if (!counted(cmd))
		return;
	c->res->line = (long)line;
	stage_of(c, "%s", type);
	if (!strcmp(type, "module") || !strcmp(type, "assert_unlinkable") ||
	    !strcmp(type, "assert_uninstantiable"))
		cmd_module(c, cmd, type, (long)line);
	else if (!strcmp(type, "register"))
		cmd_register(c, cmd, (long)line);
	else if (!strcmp(type, "action") || !strcmp(type, "assert_return") ||
		 !strcmp(type, "assert_trap") ||
		 !strcmp(type, "assert_exhaustion") ||
		 !strcmp(type, "assert_exception"))
		cmd_action(c, cmd, type, (long)line);
	else if (!strcmp(type, "thread") || !strcmp(type, "wait"))
		skip(c, SKIP_THREAD, (long)line, type);
	else
		fail(c, (long)line, false, type, "unknown command type");
}

/* The folder name that holds a path's last component ("" if none). */
static void parent_name(const char *path, char *out, size_t cap)
{
	const char *end = strrchr(path, '/');
	out[0] = '\0';
	if (!end)
		return;
	const char *start = end;
	while (start > path && start[-1] != '/')
		start--;
	snprintf(out, cap, "%.*s", (int)(end - start), start);
}

/* "suite/name.wast" for a JSON file, as spec_validate names it: the
 * .wast's folder names the suite, or else the folder run.sh wrote the
 * JSON to (spec-json/SUITE/NAME/NAME.json). */
static void file_label(const char *json_path, const char *src, char *suite,
		       size_t scap, char *file, size_t fcap)
{
	parent_name(src, suite, scap);
	if (!suite[0]) {
		char *dir = xstrdup(json_path);
		char *slash = strrchr(dir, '/');
		if (slash) {
			*slash = '\0';
			parent_name(dir, suite, scap);
		}
		free(dir);
	}
	const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	snprintf(file, fcap, "%s/%s", suite[0] ? suite : ".", base);
}

/* Runs one JSON file; the outcome goes to res and report lines to out. */
static void run_file(const char *json_path, file_result *res, FILE *out)
{
	json_error jerr;
	json_doc *doc = json_parse_file(json_path, &jerr);
	const json_value *root = doc ? json_root(doc) : NULL;
	const json_value *cmds = json_get(root, "commands");
	const char *src = json_get_str(root, "source_filename");
	if (!doc || !cmds || cmds->type != JSON_ARRAY || !src) {
		if (doc)
			fprintf(out,
				"FAIL %s bad JSON: no \"commands\" array or "
				"\"source_filename\"\n",
				json_path);
		else
			fprintf(out, "FAIL %s bad JSON: line %zu col %zu: %s\n",
				json_path, jerr.line, jerr.col, jerr.msg);
		res->failed++;
		res->done = 1;
		json_free(doc);
		return;
	}
	char suite[100], file[300];
	file_label(json_path, src, suite, sizeof suite, file, sizeof file);
	snprintf(res->file, sizeof res->file, "%s", file);
	for (size_t i = 0; i < opt.nexcs; i++)
		if (!strcmp(opt.excs[i].file, file))
			res->exc[i] |= EXC_FILE;

	for (size_t i = 0; i < json_len(cmds); i++)
		if (counted(json_at(cmds, i)))
			res->remaining++;

	char *dir = xstrdup(json_path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	filectx c = {
	    .file = file,
	    .dir = dir,
	    .multi_memory = !strcmp(suite, "multi-memory"),
	    .out = out,
	    .res = res,
	    .cur = -1,
	};
	wasm_err err;
	wasm_err_clear(&err);
	c.proc = eng_proc_new(NULL);
	c.thread = c.proc ? eng_thread_new(c.proc, &err) : NULL;
	c.spectest = c.proc ? spectest_new(c.proc, NULL) : NULL;
	if (!c.proc || !c.thread || !c.spectest) {
		char f[400];
		wasm_err_format(&err, NULL, f, sizeof f);
		fprintf(out,
			"FAIL %s: cannot set up a proc and thread: %s "
			"(%lu commands not run)\n",
			file, c.proc ? f : "eng_proc_new failed",
			res->remaining);
		res->failed += res->remaining;
		res->remaining = 0;
		goto cleanup;
	}
	for (size_t i = 0; i < json_len(cmds); i++)
		run_command(&c, json_at(cmds, i));
	for (size_t i = 0; i < c.nmods; i++)
		if (c.mods[i].later)
			fprintf(out,
				"NOTE %s:%ld module failed above: %lu later "
				"commands that use it counted as failed\n",
				file, c.mods[i].line, c.mods[i].later);

cleanup:
	/* Modules outlive their instances, which the proc owns. */
	stage_of(&c, "eng_proc_free after the last command");
	if (c.proc)
		eng_proc_free(c.proc);
	stage_of(&c, "eng_module_free after the last command");
	for (size_t i = 0; i < c.ncms; i++)
		eng_module_free(c.cms[i]);
	spectest_free(c.spectest);
	free(c.cms);
	for (size_t i = 0; i < c.nprobes; i++)
		free(c.probes[i]);
	free(c.probes);
	free(c.mods);
	for (size_t i = 0; i < c.nnames; i++)
		free(c.names[i].name);
	for (size_t i = 0; i < c.nregs; i++)
		free(c.regs[i].name);
	free(c.names);
	free(c.regs);
	free(dir);
	json_free(doc);
	res->done = 1;
}

/* ---- the parent: a child per file ------------------------------------- */

typedef struct job {
	const char *json;
	pid_t pid;
	file_result *res;
	size_t res_size;
	FILE *out, *err;
	int status;
	enum { JOB_WAITING, JOB_RUNNING, JOB_ENDED, JOB_PRINTED } state;
} job;

typedef struct totals {
	unsigned long passed, failed, skipped;
	unsigned long skip_by[NSKIP];
	unsigned long passthrough, sites, probe_calls;
	unsigned long lines_shown, lines_hidden;
	uint8_t *exc; /* EXC_* merged over files */
	char **failed_files;
	unsigned long *failed_counts;
	size_t nfailed_files;
} totals;

/* A line of a child's report, within the cap on shown lines. */
static void show_line(totals *t, const char *line)
{
	if (opt.verbose || t->lines_shown < (unsigned long)opt.max_lines) {
		fputs(line, stdout);
		t->lines_shown++;
	} else {
		t->lines_hidden++;
	}
}

/* Failures per .wast, for the summary. */
static void tally_file(totals *t, const char *label, unsigned long nfail)
{
	if (!nfail)
		return;
	for (size_t i = 0; i < t->nfailed_files; i++) {
		if (!strcmp(t->failed_files[i], label)) {
			t->failed_counts[i] += nfail;
			return;
		}
	}
	t->failed_files =
	    xrealloc(t->failed_files, (t->nfailed_files + 1) * sizeof(char *));
	t->failed_counts = xrealloc(
	    t->failed_counts, (t->nfailed_files + 1) * sizeof(unsigned long));
	t->failed_files[t->nfailed_files] = xstrdup(label);
	t->failed_counts[t->nfailed_files++] = nfail;
}

static void print_job(totals *t, job *j)
{
	file_result *r = j->res;
	char *line = NULL;
	size_t cap = 0;
	/* The .wast, or the JSON if the child died before it knew. */
	r->file[sizeof r->file - 1] = '\0';
	const char *label = r->file[0] ? r->file : j->json;

	rewind(j->out);
	while (getline(&line, &cap, j->out) >= 0)
		show_line(t, line);

	bool crashed = !r->done;
	bool bad_exit = !(WIFEXITED(j->status) && WEXITSTATUS(j->status) == 0);
	if (crashed || bad_exit) {
		char how[120];
		if (WIFSIGNALED(j->status)) {
			int sig = WTERMSIG(j->status);
			if (sig == SIGALRM)
				snprintf(how, sizeof how,
					 "timeout: still running after %d s",
					 opt.timeout_s);
			else
				snprintf(how, sizeof how, "signal %d %s", sig,
					 strsignal(sig));
		} else {
			snprintf(how, sizeof how, "exit status %d",
				 WIFEXITED(j->status) ? WEXITSTATUS(j->status)
						      : -1);
		}
		if (crashed) {
			/* Every command from the one that was running on is
			 * a failure. */
			unsigned long lost = r->remaining ? r->remaining : 1;
			r->stage[sizeof r->stage - 1] = '\0';
			printf(
			    "FAIL %s:%ld CRASH %s (%s) at line %ld (%s): %lu "
			    "commands from there on counted as failed\n",
			    label, r->line, label, how, r->line,
			    r->stage[0] ? r->stage : "setting up", lost);
			r->failed += lost;
		} else {
			/* It finished, then failed: LeakSanitizer at exit. */
			printf("FAIL %s CRASH after its last command (%s): a "
			       "sanitizer report at exit, such as a leak; its "
			       "stderr:\n",
			       label, how);
			r->failed++;
		}
		/* Crash lines are never hidden by the cap. */
		t->lines_shown++;
		/* The child's stderr: a sanitizer report or the engine's
		 * last words. */
		rewind(j->err);
		unsigned long n = 0;
		while (getline(&line, &cap, j->err) >= 0) {
			if (n++ < 60)
				printf("  | %s", line);
		}
		if (n > 60)
			printf("  | ... %lu more lines of stderr\n", n - 60);
	}
	free(line);

	t->passed += r->passed;
	t->failed += r->failed;
	t->skipped += r->skipped;
	t->passthrough += r->passthrough;
	t->sites += r->sites;
	t->probe_calls += r->probe_calls;
	for (int k = 0; k < NSKIP; k++)
		t->skip_by[k] += r->skip_by[k];
	for (size_t i = 0; i < opt.nexcs; i++)
		t->exc[i] |= r->exc[i];
	tally_file(t, label, r->failed);
}

static void start_job(job *j)
{
	j->res_size = sizeof(file_result) + opt.nexcs;
	j->res = mmap(NULL, j->res_size, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	j->out = tmpfile();
	j->err = tmpfile();
	if (j->res == MAP_FAILED || !j->out || !j->err) {
		fprintf(stderr, "spec_run: cannot set up a child: %s\n",
			strerror(errno));
		exit(2);
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "spec_run: fork: %s\n", strerror(errno));
		exit(2);
	}
	if (pid == 0) {
		/* The child: its stderr goes to the parent's report of it. */
		dup2(fileno(j->err), 2);
		setvbuf(j->out, NULL, _IOLBF, 0);
		if (opt.timeout_s > 0)
			alarm((unsigned)opt.timeout_s);
		run_file(j->json, j->res, j->out);
		fflush(j->out);
		/* exit, not _exit: LeakSanitizer checks the child's heap. */
		exit(0);
	}
	j->pid = pid;
	j->state = JOB_RUNNING;
}

static void run_all(totals *t, char **files, size_t n)
{
	job *jobs = xcalloc(n, sizeof *jobs);
	size_t next_start = 0, next_print = 0;
	int running = 0;
	for (size_t i = 0; i < n; i++)
		jobs[i].json = files[i];
	while (next_print < n) {
		while (running < opt.jobs && next_start < n) {
			start_job(&jobs[next_start++]);
			running++;
		}
		int status;
		pid_t pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "spec_run: waitpid: %s\n",
				strerror(errno));
			exit(2);
		}
		for (size_t i = 0; i < next_start; i++) {
			if (jobs[i].state == JOB_RUNNING &&
			    jobs[i].pid == pid) {
				jobs[i].status = status;
				jobs[i].state = JOB_ENDED;
				running--;
			}
		}
		/* Reports come out in file order whatever the finishing
		 * order, so that two runs diff cleanly. */
		while (next_print < n && jobs[next_print].state == JOB_ENDED) {
			job *j = &jobs[next_print++];
			print_job(t, j);
			fclose(j->out);
			fclose(j->err);
			munmap(j->res, j->res_size);
			j->state = JOB_PRINTED;
		}
	}
	free(jobs);
}

/* --no-fork: everything in this process (for a debugger). */
static void run_inline(totals *t, char **files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		job j = {.json = files[i]};
		j.res_size = sizeof(file_result) + opt.nexcs;
		j.res = xcalloc(1, j.res_size);
		j.out = tmpfile();
		j.err = tmpfile();
		if (!j.out || !j.err) {
			fprintf(stderr, "spec_run: tmpfile: %s\n",
				strerror(errno));
			exit(2);
		}
		run_file(j.json, j.res, j.out);
		print_job(t, &j);
		fclose(j.out);
		fclose(j.err);
		free(j.res);
	}
}

/* ---- exceptions file --------------------------------------------------- */

static void add_exception(void *ctx, const char *file, long line,
			  const char *reason, int src_line)
{
	(void)ctx;
	opt.excs = xrealloc(opt.excs, (opt.nexcs + 1) * sizeof *opt.excs);
	opt.excs[opt.nexcs++] =
	    (exception){xstrdup(file), line, xstrdup(reason), src_line};
}

static bool load_exceptions(const char *path)
{
	return spec_exceptions_read("spec_run", path, add_exception, NULL);
}

/* Listed cases that passed or matched nothing fail the run: the list
 * must say exactly what is broken today. */
static void check_stale(totals *t)
{
	for (size_t i = 0; i < opt.nexcs; i++) {
		exception *e = &opt.excs[i];
		uint8_t f = t->exc[i];
		if (!(f & EXC_FILE) || (f & EXC_USED))
			continue;
		if (!(f & EXC_SEEN))
			printf("FAIL %s:%ld stale exception: no counted "
			       "command at "
			       "this line (%s:%d)\n",
			       e->file, e->line, opt.exc_path, e->src_line);
		else
			printf(
			    "FAIL %s:%ld stale exception: the case passes now; "
			    "remove it from %s:%d (%s)\n",
			    e->file, e->line, opt.exc_path, e->src_line,
			    e->reason);
		if (f & EXC_PASSED)
			t->passed--;
		t->failed++;
	}
}

#if defined(__SANITIZE_ADDRESS__)
/* A UBSan report (fatal under SANITIZE=1) with the stack that led to it,
 * so that the CRASH report names the engine's code path. UBSAN_OPTIONS
 * still overrides this. */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) { return "print_stacktrace=1"; }
#endif

/* ---- main -------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr,
		"usage: spec_run [options] FILE.json...\n"
		"options:\n"
		"  --exceptions FILE  known failures, \"suite/file.wast:LINE "
		"reason\"\n"
		"  -j N               files run at once, each in a child "
		"(default 2)\n"
		"  --timeout S        seconds one file may take (default 15; "
		"0: none)\n"
		"  --max-lines N      report lines shown before \"... N more\" "
		"(50)\n"
		"  --no-fork          run in this process (for a debugger)\n"
		"  --instrument B     run every module instrumented by the "
		"rewriter,\n"
		"                     its heisen.mask filled with byte B (0 or "
		"1)\n"
		"  -v                 show every line, and every skipped "
		"command\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int first = argc;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--exceptions") && i + 1 < argc) {
			opt.exc_path = argv[++i];
		} else if (!strcmp(a, "-j") && i + 1 < argc) {
			opt.jobs = atoi(argv[++i]);
			if (opt.jobs < 1)
				usage();
		} else if (!strcmp(a, "--timeout") && i + 1 < argc) {
			opt.timeout_s = atoi(argv[++i]);
		} else if (!strcmp(a, "--max-lines") && i + 1 < argc) {
			opt.max_lines = atoi(argv[++i]);
		} else if (!strcmp(a, "--instrument") && i + 1 < argc) {
			const char *b = argv[++i];
			if (strcmp(b, "0") != 0 && strcmp(b, "1") != 0)
				usage();
			opt.instrument = b[0] - '0';
		} else if (!strcmp(a, "--no-fork")) {
			opt.fork = false;
		} else if (!strcmp(a, "-v")) {
			opt.verbose = true;
		} else if (!strcmp(a, "--")) {
			first = i + 1;
			break;
		} else if (a[0] == '-') {
			usage();
		} else {
			first = i;
			break;
		}
	}
	if (first >= argc)
		usage();
	if (opt.exc_path && !load_exceptions(opt.exc_path))
		return 2;

	totals t = {0};
	t.exc = xcalloc(opt.nexcs, 1);
	if (opt.fork)
		run_all(&t, argv + first, (size_t)(argc - first));
	else
		run_inline(&t, argv + first, (size_t)(argc - first));
	check_stale(&t);

	if (t.lines_hidden)
		printf("... %lu more lines (-v shows them)\n", t.lines_hidden);
	if (t.nfailed_files) {
		printf("failed by file:");
		for (size_t i = 0; i < t.nfailed_files; i++)
			printf(" %s %lu%s", t.failed_files[i],
			       t.failed_counts[i],
			       i + 1 < t.nfailed_files ? "," : "\n");
	}
	const char *sep = "skipped: ";
	for (int k = 0; k < NSKIP; k++) {
		if (t.skip_by[k]) {
			printf("%s%lu %s", sep, t.skip_by[k], skip_names[k]);
			sep = ", ";
		}
	}
	if (sep[0] == ',')
		printf("\n");
	char label[64] = "";
	if (opt.instrument >= 0) {
		printf("instrumented: %lu sites, %lu probe calls; %lu modules "
		       "without a memory run as they are\n",
		       t.sites, t.probe_calls, t.passthrough);
		/* The mask must decide: no call when every site is disarmed,
		 * and calls when they are armed (the suite does access
		 * memory), or the instrumented code never ran. */
		if (opt.instrument == 0 && t.probe_calls) {
			printf("FAIL heisen.probe called %lu times with every "
			       "site disarmed (mask 0)\n",
			       t.probe_calls);
			t.failed++;
		}
		if (opt.instrument == 1 && t.sites && !t.probe_calls) {
			printf("FAIL heisen.probe never called with every site "
			       "armed (mask 1)\n");
			t.failed++;
		}
		snprintf(label, sizeof label, " (instrumented, mask %d)",
			 opt.instrument);
	}
	printf("spec-run%s: %lu passed, %lu failed, %lu skipped\n", label,
	       t.passed, t.failed, t.skipped);

	for (size_t i = 0; i < t.nfailed_files; i++)
		free(t.failed_files[i]);
	free(t.failed_files);
	free(t.failed_counts);
	free(t.exc);
	for (size_t i = 0; i < opt.nexcs; i++) {
		free(opt.excs[i].file);
		free(opt.excs[i].reason);
	}
	free(opt.excs);
	return t.failed ? 1 : 0;
}
