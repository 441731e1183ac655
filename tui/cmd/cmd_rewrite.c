/*
 * cmd_rewrite.c - `heisen instrument` and `heisen sites`: the rewriter's
 * commands. The work is in rewriter/; this file reads options and prints.
 */
#include "tui/cli/cli.h"
#include "tui/cmd/cmd.h"
#include "tui/report/jsonw.h"

#include "core/wasm.h"
#include "detector/race.h"
#include "rewriter/instrument.h"
#include "rewriter/srcmap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int tui_cmd_instrument(const tui_cmd *cmd, const tui_args *a, FILE *out,
		       FILE *err)
{
	const char *in = a->operands[0];
	const char *outp = tui_opt_value(cmd, a, "-o");
	const char *maskp = tui_opt_value(cmd, a, "--static");
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	rw_options opt = {.cover = true};
	wasm_module *m = NULL;
	uint8_t *bytes = NULL, *mask = NULL;
	size_t len = 0;
	rw_sites t = {0};
	wasm_err e;
	wasm_status st;
	uint32_t by_kind[RW_RANGE_WRITE + 1] = {0}, nmem = 0, armed = 0;
	int rc;

	if (!outp) {
		fprintf(err,
			"heisen instrument: missing -o OUT.wasm\nusage: "
			"heisen instrument %s\n",
			cmd->usage);
		return TUI_EXIT_USAGE;
	}
	if ((rc = tui_load_module(in, &m, &e, err)))
		return rc;
	opt.all_memories = tui_opt_value(cmd, a, "--all-memories") != NULL;
	if (maskp) {
		/* Site ids are those of the full table: count them first. */
		st = rw_instrument(m, &opt, &bytes, &len, &t, &e);
		wasm_free(bytes);
		bytes = NULL;
		if (st)
			goto fail;
		mask = wasm_calloc(t.nsites ? t.nsites : 1, 1);
		if (!mask) {
			rc = TUI_EXIT_INTERNAL;
			fprintf(err, "heisen instrument: out of memory\n");
			goto done;
		}
		if ((st = det_mask_read(maskp, mask, t.nsites, &e))) {
			tui_print_err(err, maskp, &e);
			rc = st == WASM_NOMEM ? TUI_EXIT_INTERNAL
					      : TUI_EXIT_USAGE;
			goto done;
		}
		for (uint32_t i = 0; i < t.nsites; i++)
			armed += mask[i] != 0;
		opt.static_mask = mask;
		opt.static_len = t.nsites;
		rw_sites_free(&t);
	}
	if ((st = rw_instrument(m, &opt, &bytes, &len, &t, &e)))
		goto fail;
	if ((st = wasm_write_file(outp, bytes, len, &e)))
		goto fail;
	for (uint32_t i = 0; i < t.nsites; i++)
		by_kind[t.sites[i].kind]++;
	for (uint32_t i = 0; i < wasm_mem_count(m); i++)
		nmem += wasm_mem_limits(m, i)->shared || opt.all_memories;
	if (json) {
		tui_json j;
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.instrument/1");
		tui_json_str(&j, "in", in);
		tui_json_str(&j, "out", outp);
		tui_json_u64(&j, "in_size", m->size);
		tui_json_u64(&j, "out_size", len);
		tui_json_u64(&j, "sites", t.nsites);
		tui_json_u64(&j, "memories", nmem);
		tui_json_bool(&j, "static", maskp != NULL);
		if (maskp)
			tui_json_u64(&j, "armed", armed);
		else
			tui_json_null(&j, "armed");
		tui_json_obj(&j, "by_kind");
		for (int k = 0; k <= RW_RANGE_WRITE; k++)
			tui_json_u64(&j, rw_kind_name((rw_kind)k), by_kind[k]);
		tui_json_end(&j, '}');
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else {
		fprintf(out,
			"%s: %u sites (%u reads, %u writes, %u atomic, %u "
			"range) on %u memor%s",
			outp, t.nsites, by_kind[RW_READ], by_kind[RW_WRITE],
			by_kind[RW_ATOMIC_READ] + by_kind[RW_ATOMIC_WRITE] +
			    by_kind[RW_ATOMIC_RMW],
			by_kind[RW_RANGE_READ] + by_kind[RW_RANGE_WRITE], nmem,
			nmem == 1 ? "y" : "ies");
		if (maskp)
			fprintf(out, ", %u armed (static)", armed);
		fprintf(out, "\n");
	}
	rc = TUI_EXIT_OK;
	goto done;
fail:
	tui_print_err(err, st == WASM_IO ? NULL : in, &e);
	rc = tui_exit_for(st);
done:
	wasm_free(bytes);
	wasm_free(mask);
	rw_sites_free(&t);
	wasm_module_free(m);
	return rc;
}

/* Index of original function f in module m: instrumented modules have
 * the probe import in front of their defined functions. */
static uint32_t cur_func(const rw_sites *t, bool instrumented, uint32_t f)
{
	return instrumented && f >= t->probe_func ? f + 1 : f;
}

int tui_cmd_sites(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	const char *path = a->operands[0];
	bool json = tui_opt_value(cmd, a, "--json") != NULL;
	rw_options opt = {.cover = true};
	wasm_module *m = NULL;
	rw_srcmap *sm = NULL;
	rw_sites t = {0};
	wasm_err e;
	wasm_status st;
	bool instrumented;
	int64_t shift;
	int rc;

	if ((rc = tui_load_module(path, &m, &e, err)))
		return rc;
	opt.all_memories = tui_opt_value(cmd, a, "--all-memories") != NULL;
	st = rw_sites_read(m, &t, &e);
	instrumented = st != WASM_INVALID;
	if (st == WASM_INVALID) {
		/* Not instrumented: the table rw_instrument would write. */
		uint8_t *bytes;
		size_t len;
		st = rw_instrument(m, &opt, &bytes, &len, &t, &e);
		wasm_free(bytes);
	}
	if (st) {
		tui_print_err(err, path, &e);
		rc = tui_exit_for(st);
		goto done;
	}
	if (rw_srcmap_new(m, &sm, &e)) {
		fprintf(err, "heisen sites: warning: ");
		tui_print_err(err, path, &e);
		sm = NULL;
	}
	/* Site offsets are in the original binary; the DWARF (carried over
	 * unchanged) counts from the original code section. */
	shift = (int64_t)m->section_start[10] - (int64_t)t.code_start;
	if (json) {
		tui_json j;
		char hash[24];
		tui_json_init(&j, out);
		tui_json_obj(&j, NULL);
		tui_json_str(&j, "schema", "heisen.sites/1");
		tui_json_str(&j, "file", path);
		snprintf(hash, sizeof hash, "%016" PRIx64, t.hash);
		tui_json_str(&j, "hash", hash);
		tui_json_bool(&j, "instrumented", instrumented);
		tui_json_arr(&j, "sites");
		for (uint32_t i = 0; i < t.nsites; i++) {
			const rw_site *s = &t.sites[i];
			const wasm_str *nm = wasm_func_name(
			    m, cur_func(&t, instrumented, s->func));
			rw_srcpos pos;
			tui_json_obj(&j, NULL);
			tui_json_u64(&j, "id", i);
			tui_json_str(&j, "kind", rw_kind_name(s->kind));
			tui_json_str(&j, "op", wasm_op_info(s->op)->name);
			tui_json_u64(&j, "width", s->width);
			tui_json_u64(&j, "memory", s->mem);
			tui_json_u64(&j, "func", s->func);
			if (nm)
				tui_json_strn(&j, "function", nm->p, nm->len);
			else
				tui_json_null(&j, "function");
			tui_json_u64(&j, "offset", s->offset);
			if (s->covered)
				tui_json_u64(&j, "covered_by", s->covered_by);
			else
				tui_json_null(&j, "covered_by");
			if (sm &&
			    rw_srcmap_lookup_near(
				sm, (size_t)(s->offset + shift), &pos) &&
			    pos.file) {
				tui_json_obj(&j, "source");
				tui_json_str(&j, "file", pos.file);
				tui_json_u64(&j, "line", pos.line);
				tui_json_u64(&j, "column", pos.column);
				tui_json_end(&j, '}');
			} else {
				tui_json_null(&j, "source");
			}
			tui_json_end(&j, '}');
		}
		tui_json_end(&j, ']');
		tui_json_end(&j, '}');
		tui_json_done(&j);
	} else {
		/* Names run from 8 to 26 characters (i32.load to
		 * i64.atomic.rmw32.cmpxchg_u): the column takes the longest
		 * present, so that short tables stay narrow. */
		int opw = 2;
		for (uint32_t i = 0; i < t.nsites; i++) {
			int n = (int)strlen(wasm_op_info(t.sites[i].op)->name);
			opw = n > opw ? n : opw;
		}
		fprintf(out, "%-6s %-12s %-*s %5s %3s  %-24s %-10s %s\n", "id",
			"kind", opw, "op", "width", "mem", "function", "offset",
			"source");
		for (uint32_t i = 0; i < t.nsites; i++) {
			const rw_site *s = &t.sites[i];
			const wasm_str *nm = wasm_func_name(
			    m, cur_func(&t, instrumented, s->func));
			rw_srcpos pos;
			char fn[64], src[512];
			if (nm)
				snprintf(fn, sizeof fn, "%.*s",
					 (int)(nm->len > 60 ? 60 : nm->len),
					 nm->p);
			else
				snprintf(fn, sizeof fn, "func[%u]", s->func);
			if (sm &&
			    rw_srcmap_lookup_near(
				sm, (size_t)(s->offset + shift), &pos) &&
			    pos.file)
				snprintf(src, sizeof src, "%s:%u:%u", pos.file,
					 pos.line, pos.column);
			else
				snprintf(src, sizeof src, "-");
			fprintf(out, "%-6u %-12s %-*s %5u %3u  %-24s 0x%-8x %s",
				i, rw_kind_name(s->kind), opw,
				wasm_op_info(s->op)->name, s->width, s->mem, fn,
				s->offset, src);
			if (s->covered)
				fprintf(out, "  (covered by %u)",
					s->covered_by);
			fputc('\n', out);
		}
	}
	rc = TUI_EXIT_OK;
done:
	rw_srcmap_free(sm);
	rw_sites_free(&t);
	wasm_module_free(m);
	return rc;
}
