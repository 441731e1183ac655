/*
 * scan.c - the rewriter's instruction cursor (scan.h).
 */
#include "rewriter/scan.h"

#include <string.h>

void rw_scan_init(rw_scan *s)
{
	memset(s, 0, sizeof *s);
	for (int op = 0; op < WASM_OP_COUNT; op++) {
		const wasm_opinfo *oi = wasm_op_info((wasm_op)op);
		unsigned slot = oi->prefix ? oi->prefix - 0xFB : 0;
		s->opmap[slot * 256 + oi->code] = (uint16_t)(op + 1);
		s->imm[slot * 256 + oi->code] = oi->imm;
	}
}
