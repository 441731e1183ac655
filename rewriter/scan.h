/*
 * scan.h - a fast cursor over the instructions of a validated function
 * body, for the rewriter's passes (instrument.c, cover.c): per
 * instruction, the opcode and the immediates they use, every other
 * immediate stepped over. A full wasm_reader_next per instruction was
 * 40 % of a rewrite; this does the same work for a valid module (the
 * validator checked the encoding; the bounds only keep a bug inside the
 * body).
 *
 * Ownership: rw_scan is a table the caller fills once (rw_scan_init) and
 * may share read-only between threads.
 */
#ifndef HEISEN_REWRITER_SCAN_H
#define HEISEN_REWRITER_SCAN_H

#include "core/wasm.h"

typedef struct rw_scan {
	/* (prefix slot, code) -> op + 1 (0: none), and its wasm_imm; slot 0
	 * for one-byte opcodes, 1-3 for 0xFC-0xFE. */
	uint16_t opmap[4 * 256];
	uint8_t imm[4 * 256];
} rw_scan;

void rw_scan_init(rw_scan *s);

/* One LEB128 number skipped, or read (unsigned, or signed 32-bit). */
static inline const uint8_t *rw_skip_leb(const uint8_t *p, const uint8_t *end)
{
	while (p < end && (*p++ & 0x80))
		;
	return p;
}

static inline uint64_t rw_get_leb(const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;

	for (unsigned sh = 0; p < end && sh < 64; sh += 7) {
		v |= (uint64_t)(*p & 0x7f) << sh;
		if (!(*p++ & 0x80))
			break;
	}
	*pp = p;
	return v;
}

/* A signed 32-bit LEB128 (i32.const): the low bits, sign-extended from
 * the last byte's bit 6. */
static inline int32_t rw_get_s32(const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *p = *pp;
	uint32_t v = 0;
	unsigned sh = 0;
	uint8_t b = 0;

	while (p < end && sh < 35) {
		b = *p++;
		v |= (uint32_t)(b & 0x7f) << sh;
		sh += 7;
		if (!(b & 0x80))
			break;
	}
	if (sh < 32 && (b & 0x40))
		v |= ~0u << sh;
	*pp = p;
	return (int32_t)v;
}

/* Read the instruction at *pp, before end, into *in and move *pp past
 * it: in->op, in->offset (from base), and the immediates of kind FUNC,
 * LOCAL, GLOBAL, MEM, MEMARG (with a lane), MEMORY_INIT, MEMORY_COPY and
 * I32 (in->u as wasm_reader fills it). False for an opcode the table
 * does not know (in->op is then unset). Inline: the rewriter calls it
 * for every instruction it does not step over, and a call cost 5 % of a
 * rewrite. */
static inline bool rw_scan_next(const rw_scan *s, const uint8_t *base,
				const uint8_t **pp, const uint8_t *end,
				wasm_instr *in)
{
	const uint8_t *p = *pp, *at = p;
	unsigned slot = 0;
	uint32_t code = *p++;
	uint16_t op1;

	if (code >= 0xFC && code <= 0xFE) {
		slot = code - 0xFB;
		code = (uint32_t)rw_get_leb(&p, end);
	}
	op1 = code < 256 ? s->opmap[slot * 256 + code] : 0;
	switch ((wasm_imm)(op1 ? s->imm[slot * 256 + code] : WASM_IMM_NONE)) {
	case WASM_IMM_NONE: break;
	case WASM_IMM_BLOCK:
		if (p < end && (*p == 0x40 || (*p >= 0x6F && *p <= 0x7F)))
			p++;
		else
			p = rw_skip_leb(p, end);
		break;
	case WASM_IMM_FUNC:
	case WASM_IMM_LOCAL:
	case WASM_IMM_GLOBAL:
	case WASM_IMM_MEM: in->u.idx = (uint32_t)rw_get_leb(&p, end); break;
	case WASM_IMM_I32: in->u.i32 = rw_get_s32(&p, end); break;
	case WASM_IMM_MEMORY_INIT:
	case WASM_IMM_MEMORY_COPY:
		in->u.idx2.a = (uint32_t)rw_get_leb(&p, end);
		in->u.idx2.b = (uint32_t)rw_get_leb(&p, end);
		break;
	case WASM_IMM_CALL_INDIRECT:
	case WASM_IMM_TABLE_INIT:
	case WASM_IMM_TABLE_COPY:
		p = rw_skip_leb(rw_skip_leb(p, end), end);
		break;
	case WASM_IMM_BR_TABLE: {
		uint64_t n = rw_get_leb(&p, end);
		for (uint64_t i = 0; i <= n && p < end; i++)
			p = rw_skip_leb(p, end);
		break;
	}
	case WASM_IMM_SELECT_T: {
		uint64_t n = rw_get_leb(&p, end);
		p += n <= (uint64_t)(end - p) ? n : (uint64_t)(end - p);
		break;
	}
	case WASM_IMM_MEMARG:
	case WASM_IMM_MEMARG_LANE: {
		uint32_t align = (uint32_t)rw_get_leb(&p, end);
		in->u.mem.m.mem = 0;
		if (align & 0x40) {
			align &= ~0x40u;
			in->u.mem.m.mem = (uint32_t)rw_get_leb(&p, end);
		}
		in->u.mem.m.align = align;
		in->u.mem.m.offset = rw_get_leb(&p, end);
		in->u.mem.lane = 0;
		if (s->imm[slot * 256 + code] == WASM_IMM_MEMARG_LANE &&
		    p < end)
			in->u.mem.lane = *p++;
		break;
	}
	case WASM_IMM_F32: p += 4; break;
	case WASM_IMM_F64: p += 8; break;
	case WASM_IMM_V128:
	case WASM_IMM_SHUFFLE: p += 16; break;
	case WASM_IMM_LANE:
	case WASM_IMM_REFTYPE:
	case WASM_IMM_FENCE: p++; break;
	default: p = rw_skip_leb(p, end); break; /* one index or constant */
	}
	*pp = p < end ? p : end;
	if (!op1)
		return false;
	in->op = (wasm_op)(op1 - 1);
	in->offset = (size_t)(at - base);
	return true;
}

#endif
