/*
 * fuzz_script.c - libFuzzer target for script files (`heisen -f FILE`,
 * `-c`, the shell): the command language's word splitting
 * (tui_split_words, tui/cli/script.c) and option parsing against the
 * command table (tui_parse_opts, tui/cli/parse.c), without running a
 * command.
 *
 * The input is a script: lines as tui_run_script reads them (a line
 * with a NUL byte is refused there, and skipped here), each split into
 * commands as tui_run_line does. A syntax error is WASM_MALFORMED with
 * a reason and an offset inside the line; splitting always moves on and
 * ends at the line's end; each command's argv is NULL-terminated. A
 * command word that names a command has its options parsed (messages
 * to /dev/null).
 */
#include "tests/fuzz/fuzz_util.h"

#include "tui/cli/cli.h"

static FILE *null_out(void)
{
	static FILE *f;

	if (!f && !(f = fopen("/dev/null", "w")))
		fuzz_fail("cannot open /dev/null");
	return f;
}

static void one_line(const char *line, size_t len)
{
	size_t pos = 0;

	while (line[pos]) {
		size_t before = pos;
		const tui_cmd *cmd;
		tui_words w;
		tui_args a;
		wasm_status st;
		wasm_err e;

		wasm_err_clear(&e);
		st = tui_split_words(line, &pos, &w, &e);
		if (st) {
			if (st != WASM_MALFORMED && st != WASM_NOMEM)
				fuzz_fail("tui_split_words: unexpected %s",
					  wasm_status_name(st));
			fuzz_check_err(&e, st);
			if (st == WASM_MALFORMED && e.offset > len)
				fuzz_fail("syntax error at %zu of a %zu-byte "
					  "line",
					  e.offset, len);
			if (w.argv || w.buf || w.argc)
				fuzz_fail("words left after an error");
			return;
		}
		if (pos <= before || pos > len)
			fuzz_fail("split moved from %zu to %zu (line of %zu)",
				  before, pos, len);
		if (w.argc < 0 || (w.argc && w.argv[w.argc]))
			fuzz_fail("argv of %d words not NULL-terminated",
				  w.argc);
		if (w.argc && (cmd = tui_find_cmd(w.argv[0])))
			tui_parse_opts(cmd, w.argc - 1, w.argv + 1, &a,
				       null_out());
		tui_words_free(&w);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	size_t at = 0;

	if (!text)
		fuzz_fail("out of memory");
	memcpy(text, data, size);
	text[size] = '\0';
	while (at < size) {
		char *nl = memchr(text + at, '\n', size - at);
		size_t end = nl ? (size_t)(nl - text) : size;

		text[end] = '\0';
		if (!memchr(text + at, '\0', end - at))
			one_line(text + at, end - at);
		at = end + 1;
	}
	free(text);
	return 0;
}
