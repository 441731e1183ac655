/*
 * fuzz_module.c - libFuzzer target for the module model's round trip.
 *
 * How it works: every input goes through wasm_decode and wasm_validate.
 * Rejection is fine (most mutated inputs are malformed); what must hold is
 * that nothing crashes, leaks or trips a sanitizer, and that an error
 * always carries a reason. When the input is a valid module the target
 * also checks the encoder:
 *
 *   bytes --decode/validate--> m1 --encode--> e1 --decode/validate--> m2
 *
 *   - e1 must decode and validate: the encoder never writes a module the
 *     decoder or validator refuses;
 *   - wasm_module_equal(m1, m2): encoding loses or changes nothing;
 *   - encode(m2) == e1 byte for byte: the encoding is canonical, so a
 *     second round trip is a fixed point (this is what makes re-encoded
 *     files diffable and the rewriter's output reproducible).
 *
 * Then the engine compiles m2 (eng_compile): every valid module, SIMD and
 * all, must translate to the register code or fail with WASM_LIMIT or
 * WASM_NOMEM and a reason, and the compiler's stack simulation must stay
 * in bounds (its v128 slot pairs especially).
 *
 * A broken property calls __builtin_trap() after printing what broke, so
 * that libFuzzer records the input as a crash and keeps it for replay.
 *
 * Limitations: the allocation hook is left alone (a separate unit test
 * fails the Nth allocation); WASM_NOMEM and WASM_LIMIT are accepted as
 * outcomes since libFuzzer's malloc limit can provoke them.
 */
#include <stdio.h>
#include <string.h>

#include "core/engine.h"
#include "core/wasm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Print what broke and stop the fuzzer on this input. */
static void fail(const char *what, const wasm_err *err, const char *detail)
{
	char buf[512];

	if (err) {
		wasm_err_format(err, "<round-trip>", buf, sizeof buf);
		fprintf(stderr, "fuzz_module: %s: %s\n", what, buf);
	} else {
		fprintf(stderr, "fuzz_module: %s%s%s\n", what,
			detail ? ": " : "", detail ? detail : "");
	}
	__builtin_trap();
}

/* A resource failure is not a bug of the input path; anything else that
 * is not OK must be MALFORMED or INVALID with a reason. */
static void check_failure(const wasm_err *err, wasm_status st)
{
	if (st == WASM_NOMEM || st == WASM_LIMIT)
		return;
	if (st != WASM_MALFORMED && st != WASM_INVALID)
		fail("decode/validate returned an unexpected status", err,
		     NULL);
	if (err->status != st)
		fail("error status differs from the returned status", err,
		     NULL);
	if (err->msg[0] == '\0')
		fail("error without a reason", NULL, wasm_status_name(st));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	wasm_module *m1 = NULL, *m2 = NULL;
	uint8_t *e1 = NULL, *e2 = NULL;
	size_t n1 = 0, n2 = 0;
	wasm_err err;
	wasm_status st;
	char why[512];

	wasm_err_clear(&err);
	st = wasm_decode(data, size, &m1, &err);
	if (st != WASM_OK) {
		check_failure(&err, st);
		goto done;
	}
	wasm_err_clear(&err);
	st = wasm_validate(m1, &err);
	if (st != WASM_OK) {
		check_failure(&err, st);
		goto done;
	}

	wasm_err_clear(&err);
	st = wasm_encode(m1, &e1, &n1, &err);
	if (st == WASM_NOMEM || st == WASM_LIMIT)
		goto done;
	if (st != WASM_OK)
		fail("encode refused a valid module", &err, NULL);

	wasm_err_clear(&err);
	st = wasm_decode(e1, n1, &m2, &err);
	if (st == WASM_NOMEM || st == WASM_LIMIT)
		goto done;
	if (st != WASM_OK)
		fail("re-encoded module does not decode", &err, NULL);
	wasm_err_clear(&err);
	st = wasm_validate(m2, &err);
	if (st == WASM_NOMEM || st == WASM_LIMIT)
		goto done;
	if (st != WASM_OK)
		fail("re-encoded module does not validate", &err, NULL);

	why[0] = '\0';
	if (!wasm_module_equal(m1, m2, why, sizeof why))
		fail("round trip changed the module", NULL, why);

	wasm_err_clear(&err);
	st = wasm_encode(m2, &e2, &n2, &err);
	if (st == WASM_NOMEM || st == WASM_LIMIT)
		goto done;
	if (st != WASM_OK)
		fail("second encode failed", &err, NULL);
	if (n1 != n2 || memcmp(e1, e2, n1) != 0) {
		size_t i = 0;

		while (i < n1 && i < n2 && e1[i] == e2[i])
			i++;
		snprintf(why, sizeof why,
			 "encode(decode(encode(m))) differs from encode(m) at "
			 "offset 0x%zx (sizes %zu and %zu)",
			 i, n1, n2);
		fail("encoding is not a fixed point", NULL, why);
	}

	{
		eng_module *cm = NULL;
		wasm_err_clear(&err);
		st = eng_compile(m2, &cm, &err);
		m2 = NULL; /* eng_compile owns it, also on error */
		if (st == WASM_OK)
			eng_module_free(cm);
		else if (st != WASM_NOMEM && st != WASM_LIMIT)
			fail("the engine refused a valid module", &err, NULL);
		else if (err.msg[0] == '\0')
			fail("compile error without a reason", NULL,
			     wasm_status_name(st));
	}

done:
	wasm_free(e2);
	wasm_free(e1);
	wasm_module_free(m2);
	wasm_module_free(m1);
	return 0;
}
