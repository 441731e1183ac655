/*
 * cmd_wasm.c - `heisen inspect` and `heisen validate`: reports on one
 * module. The analysis lives in core/; this file only prints.
 */
#include "tui/cli/cli.h"
#include "tui/cmd/cmd.h"
#include "tui/report/jsonw.h"

#include "core/wasm.h"

#include <inttypes.h>
#include <string.h>

int tui_cmd_validate(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err)
{
	const char *path = a->operands[0];
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	wasm_module *m;
	wasm_err e;
	int rc = tui_load_module(path, &m, &e, err);

	if (json) {
		tui_json j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.validate/1");
		tui_json_str(&j, "file", path);
		tui_json_bool(&j, "valid", rc == TUI_EXIT_OK);
		if (rc != TUI_EXIT_OK) {
			tui_json_obj(&j, "error");
			tui_json_str(&j, "kind", wasm_status_name(e.status));
			if (e.offset != WASM_NO_OFFSET)
				tui_json_u64(&j, "offset", e.offset);
			else
				tui_json_null(&j, "offset");
			tui_json_str(&j, "section", e.section);
			if (e.func != WASM_NO_FUNC)
				tui_json_u64(&j, "func", e.func);
			else
				tui_json_null(&j, "func");
			tui_json_str(&j, "message", e.msg);
			tui_json_end(&j, '}');
		}
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else if (rc == TUI_EXIT_OK) {
		fprintf(out, "%s: valid\n", path);
	}
	wasm_module_free(m);
	return rc;
}

/* "(i32 i64) -> (f32)" */
static void format_type(const wasm_functype *ft, char *buf, size_t cap)
{
	size_t n = 0;

	n += (size_t)snprintf(buf + n, cap - n, "(");
	for (uint32_t i = 0; i < ft->nparams && n < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? " " : "",
				      wasm_type_name(ft->types[i]));
	if (n < cap)
		n += (size_t)snprintf(buf + n, cap - n, ") -> (");
	for (uint32_t i = 0; i < ft->nresults && n < cap; i++)
		n += (size_t)snprintf(
		    buf + n, cap - n, "%s%s", i ? " " : "",
		    wasm_type_name(ft->types[ft->nparams + i]));
	if (n < cap)
		snprintf(buf + n, cap - n, ")");
}

static void format_limits(const wasm_limits *l, const char *unit, char *buf,
			  size_t cap)
{
	if (l->has_max)
		snprintf(buf, cap, "%u..%u %s%s", l->min, l->max, unit,
			 l->shared ? ", shared" : "");
	else
		snprintf(buf, cap, "%u.. %s%s", l->min, unit,
			 l->shared ? ", shared" : "");
}

/* Sections in file order: known ones by rank, customs after the section
 * they followed. Calls fn for each. */
typedef void (*section_fn)(void *ctx, uint8_t id, const wasm_custom *c,
			   uint32_t size);

static void each_section(const wasm_module *m, section_fn fn, void *ctx)
{
	static const uint8_t order[] = {0, 1, 2, 3, 4,	5,  WASM_SECTION_TAG,
					6, 7, 8, 9, 12, 10, 11};
	for (size_t k = 0; k < sizeof order; k++) {
		uint8_t id = order[k];
		if (id && m->section_present[id])
			fn(ctx, id, NULL, m->section_size[id]);
		for (uint32_t i = 0; i < m->ncustoms; i++)
			if (m->customs[i].after == id &&
			    (id == 0 || m->section_present[id]))
				fn(ctx, 0, &m->customs[i], m->customs[i].len);
	}
}

static void text_section(void *ctx, uint8_t id, const wasm_custom *c,
			 uint32_t size)
{
	FILE *out = ctx;
	char name[80];

	if (c)
		snprintf(name, sizeof name, "custom %.*s",
			 c->name.len > 60 ? 60 : (int)c->name.len, c->name.p);
	else
		snprintf(name, sizeof name, "%s", wasm_section_name(id));
	fprintf(out, "  %-24s %10u byte%s\n", name, size, size == 1 ? "" : "s");
}

static void json_section(void *ctx, uint8_t id, const wasm_custom *c,
			 uint32_t size)
{
	tui_json *j = ctx;
	tui_json_obj(j, NULL);
	tui_json_str(j, "name", wasm_section_name(id));
	if (c)
		tui_json_strn(j, "custom_name", c->name.p, c->name.len);
	tui_json_u64(j, "size", size);
	tui_json_end(j, '}');
}

/* Which import a memory index is, or NULL if it is defined. */
static const wasm_import *mem_import(const wasm_module *m, uint32_t idx)
{
	for (uint32_t i = 0; i < m->nimports; i++)
		if (m->imports[i].kind == WASM_EXTERN_MEMORY && idx-- == 0)
			return &m->imports[i];
	return NULL;
}

static void inspect_text(const char *path, const wasm_module *m,
			 const wasm_summary *s, FILE *out)
{
	char buf[512];

	fprintf(out, "%s: %zu bytes, valid WebAssembly module\n\n", path,
		m->size);
	fprintf(out, "sections:\n");
	each_section(m, text_section, out);
	fprintf(out, "\nimports (%u):\n", m->nimports);
	for (uint32_t i = 0; i < m->nimports; i++) {
		const wasm_import *im = &m->imports[i];
		buf[0] = '\0';
		if (im->kind == WASM_EXTERN_FUNC && im->u.func_type < m->ntypes)
			format_type(&m->types[im->u.func_type], buf,
				    sizeof buf);
		else if (im->kind == WASM_EXTERN_MEMORY)
			format_limits(&im->u.memory, "pages", buf, sizeof buf);
		else if (im->kind == WASM_EXTERN_TABLE)
			format_limits(&im->u.table.lim, "elements", buf,
				      sizeof buf);
		else if (im->kind == WASM_EXTERN_TAG &&
			 im->u.tag_type < m->ntypes)
			format_type(&m->types[im->u.tag_type], buf, sizeof buf);
		else if (im->kind == WASM_EXTERN_GLOBAL)
			snprintf(buf, sizeof buf, "%s%s",
				 im->u.global.mut ? "mut " : "",
				 wasm_type_name(im->u.global.type));
		fprintf(out, "  %.*s.%.*s  %s %s\n", (int)im->module.len,
			im->module.p, (int)im->name.len, im->name.p,
			wasm_extern_name(im->kind), buf);
	}
	fprintf(out, "\nexports (%u):\n", m->nexports);
	for (uint32_t i = 0; i < m->nexports; i++)
		fprintf(out, "  %.*s  %s %u\n", (int)m->exports[i].name.len,
			m->exports[i].name.p,
			wasm_extern_name(m->exports[i].kind),
			m->exports[i].index);
	fprintf(out, "\nmemories (%u):\n", wasm_mem_count(m));
	for (uint32_t i = 0; i < wasm_mem_count(m); i++) {
		const wasm_import *im = mem_import(m, i);
		format_limits(wasm_mem_limits(m, i), "pages", buf, sizeof buf);
		fprintf(out, "  %u  %s", i, buf);
		if (im)
			fprintf(out, ", imported as %.*s.%.*s",
				(int)im->module.len, im->module.p,
				(int)im->name.len, im->name.p);
		fprintf(out, "  accesses: %" PRIu64 "\n", s->per_mem[i]);
	}
	fprintf(out,
		"\nfunctions: %u (%u imported, %u defined), %" PRIu64
		" instructions\n",
		wasm_func_count(m), m->nfunc_imports, m->nfuncs, s->instrs);
	fprintf(out, "memory accesses: %" PRIu64 " (%" PRIu64 " atomic)\n",
		s->accesses, s->atomics);
	fprintf(out, "debug info: DWARF %s%s, name section %s\n",
		s->has_dwarf ? "yes" : "no",
		s->has_dwarf && !s->has_debug_line ? " (no .debug_line)" : "",
		m->names.present ? "yes" : "no");
}

static void json_limits(tui_json *j, const wasm_limits *l)
{
	tui_json_u64(j, "min", l->min);
	if (l->has_max)
		tui_json_u64(j, "max", l->max);
	else
		tui_json_null(j, "max");
	tui_json_bool(j, "shared", l->shared);
}

static void inspect_json(const char *path, const wasm_module *m,
			 const wasm_summary *s, FILE *out)
{
	tui_json j;
	char buf[512];

	tui_json_init(&j, out);
	tui_json_obj(&j, NULL);
	tui_json_str(&j, "schema", "heisen.inspect/1");
	tui_json_str(&j, "file", path);
	tui_json_u64(&j, "size", m->size);
	tui_json_bool(&j, "valid", true);
	tui_json_arr(&j, "sections");
	each_section(m, json_section, &j);
	tui_json_end(&j, ']');
	tui_json_arr(&j, "imports");
	for (uint32_t i = 0; i < m->nimports; i++) {
		const wasm_import *im = &m->imports[i];
		tui_json_obj(&j, NULL);
		tui_json_strn(&j, "module", im->module.p, im->module.len);
		tui_json_strn(&j, "name", im->name.p, im->name.len);
		tui_json_str(&j, "kind", wasm_extern_name(im->kind));
		switch (im->kind) {
		case WASM_EXTERN_FUNC:
			format_type(&m->types[im->u.func_type], buf,
				    sizeof buf);
			tui_json_str(&j, "type", buf);
			break;
		case WASM_EXTERN_MEMORY: json_limits(&j, &im->u.memory); break;
		case WASM_EXTERN_TABLE:
			tui_json_str(&j, "elem",
				     wasm_type_name(im->u.table.elem));
			json_limits(&j, &im->u.table.lim);
			break;
		case WASM_EXTERN_GLOBAL:
			tui_json_str(&j, "type",
				     wasm_type_name(im->u.global.type));
			tui_json_bool(&j, "mutable", im->u.global.mut);
			break;
		case WASM_EXTERN_TAG:
			format_type(&m->types[im->u.tag_type], buf, sizeof buf);
			tui_json_str(&j, "type", buf);
			break;
		}
		tui_json_end(&j, '}');
	}
	tui_json_end(&j, ']');
	tui_json_arr(&j, "exports");
	for (uint32_t i = 0; i < m->nexports; i++) {
		tui_json_obj(&j, NULL);
		tui_json_strn(&j, "name", m->exports[i].name.p,
			      m->exports[i].name.len);
		tui_json_str(&j, "kind", wasm_extern_name(m->exports[i].kind));
		tui_json_u64(&j, "index", m->exports[i].index);
		tui_json_end(&j, '}');
	}
	tui_json_end(&j, ']');
	tui_json_arr(&j, "memories");
	for (uint32_t i = 0; i < wasm_mem_count(m); i++) {
		tui_json_obj(&j, NULL);
		tui_json_u64(&j, "index", i);
		tui_json_bool(&j, "imported", mem_import(m, i) != NULL);
		json_limits(&j, wasm_mem_limits(m, i));
		tui_json_u64(&j, "accesses", s->per_mem[i]);
		tui_json_end(&j, '}');
	}
	tui_json_end(&j, ']');
	tui_json_obj(&j, "functions");
	tui_json_u64(&j, "imported", m->nfunc_imports);
	tui_json_u64(&j, "defined", m->nfuncs);
	tui_json_u64(&j, "instructions", s->instrs);
	tui_json_end(&j, '}');
	tui_json_obj(&j, "accesses");
	tui_json_u64(&j, "total", s->accesses);
	tui_json_u64(&j, "atomic", s->atomics);
	tui_json_end(&j, '}');
	tui_json_obj(&j, "debug");
	tui_json_bool(&j, "dwarf", s->has_dwarf);
	tui_json_bool(&j, "debug_line", s->has_debug_line);
	tui_json_bool(&j, "name_section", m->names.present);
	tui_json_end(&j, '}');
	tui_json_end(&j, '}');
	tui_json_done(&j);
}

int tui_cmd_inspect(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *path = a->operands[0];
	wasm_module *m;
	wasm_summary s;
	wasm_err e;
	wasm_status st;
	int rc = tui_load_module(path, &m, &e, err);

	if (rc != TUI_EXIT_OK)
		return rc;
	if ((st = wasm_summarize(m, &s, &e))) {
		tui_print_err(err, path, &e);
		wasm_module_free(m);
		return tui_exit_for(st);
	}
	if (tui_opt_value(cmd, a, "--json"))
		inspect_json(path, m, &s, out);
	else
		inspect_text(path, m, &s, out);
	wasm_summary_fini(&s);
	wasm_module_free(m);
	return TUI_EXIT_OK;
}
