/*
 * fuzz_suppress.c - libFuzzer target for suppression files
 * (det_supp_parse and det_supp_load, detector/suppress.h) and what the
 * reports print of them (tui/report/suppress.c).
 *
 * The input is the file. A refusal is WASM_MALFORMED (WASM_IO for the
 * size cap, WASM_NOMEM) with a reason, the same from the parser and the
 * loader. The rules of an accepted file are matched against stacks made
 * of every rule's own pattern and file (names as hostile as the rules),
 * each pattern against every rule's text, and the rules are printed as
 * the reports print them, as text and JSON.
 */
#include "tests/fuzz/fuzz_util.h"

#include "detector/suppress.h"
#include "tui/cli/cli.h"
#include "tui/report/filter.h"
#include "tui/report/jsonw.h"

/* Rules used as names and patterns at most: the pairs are n^2. */
#define MAX_RULES 24

static void match_all(det_supp *s)
{
	uint32_t n = s->n < MAX_RULES ? s->n : MAX_RULES;
	db_frame f[MAX_RULES];
	db_stack acc[2];

	for (uint32_t i = 0; i < n; i++) {
		f[i] = (db_frame){
		    .func = s->rule[i].text,
		    .file = s->rule[i].file ? s->rule[i].file : s->rule[i].text,
		    .line = s->rule[i].file_line ? s->rule[i].file_line : i,
		    .offset = i,
		    .inlined = i & 1,
		};
		for (uint32_t j = 0; j < n; j++)
			det_supp_template_match(s->rule[i].pattern,
						s->rule[j].text);
	}
	for (uint32_t i = 0; i < n; i++) {
		const det_supp_rule *r;

		acc[0] = (db_stack){.frame = f + i, .n = n - i};
		acc[1] = (db_stack){.frame = f + (n - 1 - i), .n = i + 1};
		r = det_supp_match(s, acc);
		if (r && (r < s->rule || r >= s->rule + s->n))
			fuzz_fail("det_supp_match gave no rule of the file");
		det_supp_hit(s, r);
	}
}

static FILE *null_out(void)
{
	static FILE *f;

	if (!f && !(f = fopen("/dev/null", "w")))
		fuzz_fail("cannot open /dev/null");
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	det_supp *s = NULL, *l = NULL;
	wasm_status st, st2;
	wasm_err e, e2;
	tui_json j;

	wasm_err_clear(&e);
	wasm_err_clear(&e2);
	st = det_supp_parse("fuzz.supp", (const char *)data, size, &s, &e);
	st2 = det_supp_load(fuzz_file(data, size), &l, &e2);
	if (st != st2 && st2 != WASM_NOMEM && st != WASM_NOMEM)
		fuzz_fail("det_supp_parse gave %s, det_supp_load %s",
			  wasm_status_name(st), wasm_status_name(st2));
	if (st) {
		if (st != WASM_MALFORMED && st != WASM_NOMEM)
			fuzz_fail("det_supp_parse: unexpected %s: %s",
				  wasm_status_name(st), e.msg);
		fuzz_check_err(&e, st);
		if (st2)
			fuzz_check_err(&e2, st2);
		det_supp_free(s);
		det_supp_free(l);
		return 0;
	}
	if (!st2 && l->n != s->n)
		fuzz_fail("det_supp_load found %u rules, det_supp_parse %u",
			  l->n, s->n);
	for (uint32_t i = 0; i < s->n; i++)
		if (s->rule[i].number != i + 1 || !s->rule[i].pattern[0])
			fuzz_fail("rule %u: number %u, pattern '%s'", i,
				  s->rule[i].number, s->rule[i].pattern);
	match_all(s);
	tui_supp_print(null_out(), s, 1 + s->n, "race", "hint");
	tui_json_init(&j, null_out());
	tui_json_obj(&j, NULL);
	tui_supp_json(&j, s, s->n);
	tui_json_end(&j, '}');
	tui_json_done(&j);
	det_supp_free(s);
	det_supp_free(l);
	return 0;
}
