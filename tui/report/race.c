/*
 * race.c - the one text of a data race (race.h).
 */
#include "tui/report/race.h"

#include <string.h>

#include "detector/campaign.h"
#include "rewriter/instrument.h"
#include "tui/cli/cli.h"
#include "tui/report/report.h"

const char *tui_access_name(uint8_t kind, bool cap)
{
	switch (kind) {
	case RW_READ: return cap ? "Read" : "read";
	case RW_ATOMIC_READ: return cap ? "Atomic read" : "atomic read";
	case RW_ATOMIC_WRITE: return cap ? "Atomic write" : "atomic write";
	case RW_ATOMIC_RMW:
		return cap ? "Atomic read-modify-write"
			   : "atomic read-modify-write";
	case RW_RANGE_READ: return cap ? "Range read" : "range read";
	case RW_RANGE_WRITE: return cap ? "Range write" : "range write";
	default: return cap ? "Write" : "write";
	}
}

/* " FILE:LINE", or " FILE (line unknown)" where DWARF has no line for
 * the code (never FILE:0). */
static void print_place(FILE *out, const char *file, uint32_t line)
{
	if (line)
		fprintf(out, " %s:%u", file, line);
	else
		fprintf(out, " %s (line unknown)", file);
}

/* Frames of s, frame 0 marked with its site unless site is NO_SITE. */
#define NO_SITE UINT32_MAX
static void print_stack(FILE *out, const db_stack *s, uint32_t site)
{
	for (uint32_t i = 0; i < s->n; i++) {
		const db_frame *f = &s->frame[i];
		fprintf(out, "    #%u %s", i, f->func);
		if (f->file)
			print_place(out, f->file, f->line);
		else if (f->offset)
			fprintf(out, " (offset 0x%x)", f->offset);
		if (f->inlined)
			fprintf(out, " (inlined)");
		if (!i && site != NO_SITE)
			fprintf(out, " (site %u)", site);
		fputc('\n', out);
	}
	if (s->truncated)
		fprintf(out, "    ... (deeper callers not kept)\n");
}

static void print_frames(FILE *out, const tui_access *a)
{
	if (!a->stack || !a->stack->n) {
		fprintf(out, "    #0 %s", a->func ? a->func : "?");
		if (a->file)
			print_place(out, a->file, a->line);
		fprintf(out, " (site %u)\n", a->site);
		return;
	}
	print_stack(out, a->stack, a->site);
}

bool tui_loc_text(const db_loc *l, char *buf, size_t cap)
{
	const char *name = l->name ? l->name : "?";
	char off[24] = "";
	int n = -1;

	if (l->offset)
		snprintf(off, sizeof off,
			 l->kind == DB_LOC_SEGMENT ? " + 0x%x" : " + %u",
			 l->offset);
	switch (l->kind) {
	case DB_LOC_GLOBAL:
		n = snprintf(buf, cap, "global '%s'%s", name, off);
		if (l->size && n >= 0 && (size_t)n < cap)
			snprintf(buf + n, cap - (size_t)n, " (size %u)",
				 l->size);
		break;
	case DB_LOC_SEGMENT:
		n = snprintf(buf, cap, "in data segment %s%s", name, off);
		break;
	case DB_LOC_STACK:
		n = snprintf(buf, cap, "stack of thread %u", l->tid);
		break;
	case DB_LOC_HEAP:
		if (!l->size)
			n = snprintf(buf, cap,
				     "heap (allocation site unknown)");
		else
			n = snprintf(buf, cap,
				     "heap block%s (size %u) allocated by "
				     "thread %u",
				     off, l->size, l->tid);
		break;
	}
	if (n < 0 && cap)
		buf[0] = '\0';
	return n >= 0;
}

static void print_loc(FILE *out, const db_loc *l)
{
	char text[300];

	if (!tui_loc_text(l, text, sizeof text))
		return;
	fprintf(out, "  Location is %s%s\n", text, l->stack.n ? " at:" : "");
	print_stack(out, &l->stack, NO_SITE);
}

static void print_spawns(FILE *out, const tui_race *r)
{
	for (int i = 0; i < 2; i++) {
		const tui_access *a = &r->acc[i];
		if (!a->spawn || !a->spawn->known ||
		    (i && a->tid == r->acc[0].tid))
			continue;
		fprintf(out, "  Thread %u%s%s%s created by thread %u%s\n",
			a->tid, a->name && a->name[0] ? " '" : "",
			a->name ? a->name : "",
			a->name && a->name[0] ? "'" : "", a->spawn->parent,
			a->spawn->stack.n ? " at:" : "");
		print_stack(out, &a->spawn->stack, NO_SITE);
	}
}

/* Bytes as one little-endian number when they are the width of one (the
 * engine's memory is little-endian), else as bytes in memory order. */
static int fmt_bytes(char *buf, size_t cap, const uint8_t *b, uint32_t w)
{
	int n = 0;

	if (w == 1 || w == 2 || w == 4 || w == 8) {
		uint64_t v = 0;
		for (uint32_t i = w; i-- > 0;)
			v = v << 8 | b[i];
		return snprintf(buf, cap, "0x%0*llx", (int)(2 * w),
				(unsigned long long)v);
	}
	for (uint32_t i = 0; i < w && (size_t)n < cap; i++)
		n += snprintf(buf + n, cap - (size_t)n, "%s%02x", i ? " " : "",
			      b[i]);
	return n;
}

bool tui_value_change(const db_value *v, char *buf, size_t cap)
{
	int n;

	if (cap)
		buf[0] = '\0';
	if (!v || !db_value_changed(v) || cap < 8)
		return false;
	n = fmt_bytes(buf, cap, v->before, v->width);
	if (n > 0 && (size_t)n < cap)
		n += snprintf(buf + n, cap - (size_t)n, " -> ");
	if (n > 0 && (size_t)n < cap)
		fmt_bytes(buf + n, cap - (size_t)n, v->after, v->width);
	return true;
}

const char *tui_lock_mode(uint8_t kind)
{
	return kind == DB_LOCK_READ ? "read" : "write";
}

const char *tui_lock_type(uint8_t kind)
{
	switch (kind) {
	case DB_LOCK_READ:
	case DB_LOCK_WRITE: return "rwlock";
	case DB_LOCK_SPIN: return "spinlock";
	default: return "mutex";
	}
}

/* Whether acc[0] holds the lock at addr. */
static bool first_holds(const db_locks *const acc[2], uint32_t addr)
{
	for (uint32_t j = 0; acc[0] && j < acc[0]->n; j++)
		if (acc[0]->lock[j].addr == addr)
			return true;
	return false;
}

uint32_t tui_lock_number(const db_locks *const acc[2], int side, uint32_t i)
{
	uint32_t addr = acc[side]->lock[i].addr, n = 0;

	for (uint32_t j = 0; acc[0] && j < acc[0]->n; j++)
		if (acc[0]->lock[j].addr == addr)
			return j + 1;
	n = acc[0] ? acc[0]->n : 0;
	for (uint32_t j = 0; acc[1] && j < acc[1]->n; j++) {
		if (first_holds(acc, acc[1]->lock[j].addr))
			continue;
		n++;
		if (acc[1]->lock[j].addr == addr)
			break;
	}
	return n;
}

static void print_lock_list(FILE *out, const db_locks *const acc[2], int side)
{
	const db_locks *l = acc[side];

	if (!l || !l->held)
		return;
	fprintf(out, " (mutexes:");
	for (uint32_t i = 0; i < l->n; i++)
		fprintf(out, "%s %s M%u", i ? "," : "",
			tui_lock_mode(l->lock[i].kind),
			tui_lock_number(acc, side, i));
	if (l->held > l->n)
		fprintf(out, "%s %u more", l->n ? "," : "", l->held - l->n);
	fputc(')', out);
}

static void print_locks(FILE *out, const db_locks *const acc[2])
{
	char text[300];

	for (int k = 0; k < 2; k++)
		for (uint32_t i = 0; acc[k] && i < acc[k]->n; i++) {
			const db_lock *l = &acc[k]->lock[i];
			uint32_t m = tui_lock_number(acc, k, i);
			if (k && first_holds(acc, l->addr))
				continue;
			fprintf(out, "  Mutex M%u is a %s at 0x%08x", m,
				tui_lock_type(l->kind), l->addr);
			if (tui_loc_text(&l->loc, text, sizeof text))
				fprintf(out, ", %s%s", text,
					l->loc.stack.n ? " at:" : "");
			fputc('\n', out);
			print_stack(out, &l->loc.stack, NO_SITE);
			if (l->known)
				fprintf(out,
					"  Mutex M%u first taken by thread "
					"%u%s\n",
					m, l->tid, l->first.n ? " at:" : "");
			print_stack(out, &l->first, NO_SITE);
		}
}

void tui_race_print(FILE *out, const tui_race *r)
{
	const db_locks *const locks[2] = {r->acc[0].locks, r->acc[1].locks};
	const tui_access *top = &r->acc[0];
	const db_value *v = r->value;
	char change[128];

	fprintf(out, "==================\nWARNING: heisen: data race");
	if (r->title)
		fprintf(out, " (%s)", r->title);
	fputc('\n', out);
	for (int i = 0; i < 2; i++) {
		const tui_access *a = &r->acc[i];
		fprintf(out, "  %s%s",
			i ? (r->concurrent ? "Concurrent " : "Unordered ") : "",
			tui_access_name(a->kind, !i));
		/* A range's length is not kept: its byte is named. */
		if (a->width)
			fprintf(out, " of size %u", a->width);
		fprintf(out, " at 0x%08x by thread %u", a->addr, a->tid);
		if (a->name && a->name[0])
			fprintf(out, " '%s'", a->name);
		print_lock_list(out, locks, i);
		fprintf(out, ":\n");
		print_frames(out, a);
	}
	if (v && v->side < 2 && tui_value_change(v, change, sizeof change))
		fprintf(out, "  Value changed while thread %u waited: %s\n",
			r->acc[v->side].tid, change);
	if (r->loc)
		print_loc(out, r->loc);
	print_locks(out, locks);
	print_spawns(out, r);
	{
		/* The first frame of the program's own code: a race inside
		 * libc or the guest library (sprintf's copy, the guest's
		 * stdio wrapper) is the caller's. */
		const db_frame *f0 =
		    top->stack && top->stack->n ? &top->stack->frame[0] : NULL;
		for (uint32_t i = 0;
		     f0 && det_library_source(f0->file) && i < top->stack->n;
		     i++)
			if (top->stack->frame[i].file &&
			    !det_library_source(top->stack->frame[i].file)) {
				f0 = &top->stack->frame[i];
				break;
			}
		fprintf(out, "SUMMARY: heisen: data race");
		print_place(out,
			    f0 ? (f0->file ? f0->file : "?")
			       : (top->file ? top->file : "?"),
			    f0 ? f0->line : top->line);
		fprintf(out, " in %s\n",
			f0 ? f0->func : (top->func ? top->func : "?"));
	}
	fprintf(out, "==================\n");
}

void tui_json_value(tui_json *j, const char *key, const db_value *v)
{
	char hex[2 * DB_VALUE_BYTES + 1];

	if (!v || !v->width || v->width > DB_VALUE_BYTES) {
		tui_json_null(j, key);
		return;
	}
	tui_json_obj(j, key);
	tui_json_u64(j, "access", v->side);
	for (int k = 0; k < 2; k++) {
		const uint8_t *b = k ? v->after : v->before;
		for (uint32_t i = 0; i < v->width; i++)
			snprintf(hex + 2 * i, 3, "%02x", b[i]);
		tui_json_str(j, k ? "after" : "before", hex);
	}
	tui_json_bool(j, "changed", db_value_changed(v));
	tui_json_end(j, '}');
}

void tui_json_loc(tui_json *j, const char *key, const db_loc *l)
{
	if (!l || !l->kind) {
		tui_json_null(j, key);
		return;
	}
	tui_json_obj(j, key);
	tui_json_str(j, "kind", db_loc_kind_name(l->kind));
	tui_json_u64(j, "offset", l->offset);
	tui_json_u64(j, "size", l->size);
	if (l->name)
		tui_json_str(j, "name", l->name);
	/* A heap address in no known block has no allocation. */
	if (l->kind == DB_LOC_STACK || (l->kind == DB_LOC_HEAP && l->size))
		tui_json_u64(j, "thread", l->tid);
	if (l->kind == DB_LOC_HEAP && l->size)
		tui_json_stack(j, "stack", &l->stack);
	tui_json_end(j, '}');
}

void tui_json_locks(tui_json *j, const char *key, const char *key_held,
		    const db_locks *const acc[2], int side)
{
	const db_locks *l = acc[side];
	char id[16];

	tui_json_arr(j, key);
	for (uint32_t i = 0; l && i < l->n; i++) {
		const db_lock *k = &l->lock[i];
		snprintf(id, sizeof id, "M%u", tui_lock_number(acc, side, i));
		tui_json_obj(j, NULL);
		tui_json_str(j, "id", id);
		tui_json_str(j, "type", tui_lock_type(k->kind));
		tui_json_str(j, "mode", tui_lock_mode(k->kind));
		tui_json_u64(j, "address", k->addr);
		tui_json_loc(j, "location", &k->loc);
		if (k->known) {
			tui_json_obj(j, "first");
			tui_json_u64(j, "thread", k->tid);
			tui_json_stack(j, "stack", &k->first);
			tui_json_end(j, '}');
		} else {
			tui_json_null(j, "first");
		}
		tui_json_end(j, '}');
	}
	tui_json_end(j, ']');
	tui_json_u64(j, key_held, l ? l->held : 0);
}

void tui_json_spawn(tui_json *j, const char *key, const db_spawn *s)
{
	if (!s || !s->known) {
		tui_json_null(j, key);
		return;
	}
	tui_json_obj(j, key);
	tui_json_u64(j, "thread", s->parent);
	tui_json_stack(j, "stack", &s->stack);
	tui_json_end(j, '}');
}

void tui_print_stack(FILE *out, const db_stack *s)
{
	print_stack(out, s, NO_SITE);
}
