/*
 * wasm.h - the WebAssembly module model: decode, validate, encode.
 *
 * Scope (DESIGN.md): Wasm 2.0 core, threads (shared memories, atomics),
 * legacy exception handling (tags, try/catch/delegate, throw/rethrow),
 * multi-memory; SIMD is decoded, validated and encoded but not run.
 *
 * How it fits together:
 *   wasm_decode()    bytes -> wasm_module. Checks the binary format of
 *                    every section except instruction streams, which are
 *                    read by the instruction reader below.
 *   wasm_validate()  type-checks the module and every function body; a
 *                    body's malformed instruction is reported here as
 *                    WASM_MALFORMED, a typing error as WASM_INVALID.
 *   wasm_encode()    module -> bytes, re-encoding every instruction.
 *   wasm_reader      decodes one instruction at a time from a body or a
 *                    constant expression; decoder, validator, encoder,
 *                    inspect and later the engine and rewriter share it.
 *
 * Ownership: a wasm_module owns a private copy of the bytes it was decoded
 * from; names, custom section payloads and code bodies point into that
 * copy and stay valid until wasm_module_free. Nothing here keeps global
 * state; modules may be used from several threads read-only.
 */
#ifndef HEISEN_CORE_WASM_H
#define HEISEN_CORE_WASM_H

#include "util.h"

/* Value and reference types, by their binary encoding. */
enum {
	WASM_I32 = 0x7F,
	WASM_I64 = 0x7E,
	WASM_F32 = 0x7D,
	WASM_F64 = 0x7C,
	WASM_V128 = 0x7B,
	WASM_FUNCREF = 0x70,
	WASM_EXTERNREF = 0x6F,
};

/* Name of a value type ("i32", "funcref"…), "?" for anything else. */
const char *wasm_type_name(uint8_t t);

/* Immediate formats (column IMM of opcodes.def). */
typedef enum wasm_imm {
	WASM_IMM_NONE,
	WASM_IMM_BLOCK,		/* block type */
	WASM_IMM_LABEL,		/* label depth */
	WASM_IMM_BR_TABLE,	/* vec(label) default */
	WASM_IMM_FUNC,		/* function index */
	WASM_IMM_CALL_INDIRECT, /* type index, table index */
	WASM_IMM_SELECT_T,	/* vec(valtype) */
	WASM_IMM_LOCAL,
	WASM_IMM_GLOBAL,
	WASM_IMM_TABLE,
	WASM_IMM_MEMARG,      /* align (+ memory when bit 6), offset */
	WASM_IMM_MEMARG_LANE, /* memarg, lane byte */
	WASM_IMM_MEM,	      /* memory index */
	WASM_IMM_I32,
	WASM_IMM_I64,
	WASM_IMM_F32,
	WASM_IMM_F64,
	WASM_IMM_V128,
	WASM_IMM_SHUFFLE, /* 16 lane bytes */
	WASM_IMM_LANE,	  /* one lane byte */
	WASM_IMM_REFTYPE,
	WASM_IMM_DATA,	      /* data segment index */
	WASM_IMM_ELEM,	      /* element segment index */
	WASM_IMM_MEMORY_INIT, /* data index, memory index */
	WASM_IMM_MEMORY_COPY, /* destination memory, source memory */
	WASM_IMM_TABLE_INIT,  /* element index, table index */
	WASM_IMM_TABLE_COPY,  /* destination table, source table */
	WASM_IMM_FENCE,	      /* one zero byte */
	WASM_IMM_TAG,	      /* tag index (exception handling) */
} wasm_imm;

/* Opcode flags (column FLAGS of opcodes.def). */
enum {
	WASM_F_LOAD = 1 << 0,  /* reads memory at an address operand */
	WASM_F_STORE = 1 << 1, /* writes memory at an address operand */
	WASM_F_ATOMIC = 1 << 2,
	WASM_F_SYNC = 1 << 3, /* wait/notify/fence: synchronisation */
	WASM_F_SIMD = 1 << 4,
	WASM_F_RANGE_WRITE = 1 << 5, /* memory.copy/fill/init */
	WASM_F_CONST = 1 << 6,	     /* allowed in constant expressions */
	WASM_F_CTRL = 1 << 7,
	WASM_F_CALL = 1 << 8,
	WASM_F_TRAPS = 1 << 9, /* may trap on its operands */
};

typedef enum wasm_op {
#define OP(id, pfx, code, name, imm, sig, width, flags, syn) WASM_OP_##id,
#include "opcodes.def"
#undef OP
	WASM_OP_COUNT
} wasm_op;

/* Static facts about an opcode, one row of opcodes.def. */
typedef struct wasm_opinfo {
	uint8_t prefix;	  /* 0, 0xFC, 0xFD or 0xFE */
	uint8_t code;	  /* opcode byte or sub-opcode */
	uint8_t imm;	  /* wasm_imm */
	uint8_t width;	  /* access width in bytes, 0 if none */
	uint16_t flags;	  /* WASM_F_* */
	const char *name; /* "i32.add" */
	const char *sig;  /* "ii>i" or NULL */
	const char *synopsis;
} wasm_opinfo;

extern const wasm_opinfo wasm_opinfo_table[WASM_OP_COUNT];
static inline const wasm_opinfo *wasm_op_info(wasm_op op)
{
	return &wasm_opinfo_table[op];
}

/* Block types: empty, one value type, or a type index. */
typedef struct wasm_blocktype {
	enum { WASM_BT_EMPTY, WASM_BT_VAL, WASM_BT_TYPE } kind;
	uint32_t val; /* value type byte or type index */
} wasm_blocktype;

typedef struct wasm_memarg {
	uint32_t align; /* log2 of the alignment */
	uint32_t mem;	/* memory index */
	uint64_t offset;
} wasm_memarg;

/* One decoded instruction. Which union member is set follows
 * wasm_op_info(op)->imm. */
typedef struct wasm_instr {
	wasm_op op;
	size_t offset; /* file offset of the opcode's first byte */
	union {
		wasm_blocktype block;
		uint32_t idx; /* LABEL FUNC LOCAL GLOBAL TABLE MEM DATA ELEM
				 TAG */
		struct {
			uint32_t a, b; /* the two indices, in binary order */
		} idx2;
		/* LANE keeps its lane index in lanes[0]; SHUFFLE uses all 16.
		 */
		struct {
			wasm_memarg m;
			uint8_t lane;
		} mem;
		int32_t i32;
		int64_t i64;
		uint32_t f32; /* bit pattern */
		uint64_t f64; /* bit pattern */
		uint8_t v128[16];
		uint8_t lanes[16];
		uint8_t reftype;
		struct {
			uint32_t count; /* targets, not counting default */
			const uint32_t
			    *labels; /* count entries, reader-owned */
			uint32_t def;
		} br_table;
		struct {
			uint32_t count;
			const uint8_t *types; /* reader-owned */
		} select;
	} u;
} wasm_instr;

/* Reads instructions from [pos, end) of a module's bytes. Vectors of
 * br_table labels and select types live in the reader and are valid
 * until the next wasm_reader_next or wasm_reader_fini. */
typedef struct wasm_reader {
	const uint8_t *base; /* start of the file: offsets are from here */
	size_t pos, end;
	uint32_t *labels;
	uint32_t labels_cap;
	uint8_t *types;
	uint32_t types_cap;
} wasm_reader;

void wasm_reader_init(wasm_reader *r, const uint8_t *base, size_t pos,
		      size_t end);
void wasm_reader_fini(wasm_reader *r);
/* Decode the next instruction into *in. WASM_MALFORMED with the offset
 * for an unknown opcode, a bad LEB128 or a truncated immediate. Check
 * r->pos < r->end before calling: reading at the end is malformed. */
wasm_status wasm_reader_next(wasm_reader *r, wasm_instr *in, wasm_err *err);

/* Append the canonical encoding of one instruction. */
void wasm_encode_instr(wasm_buf *b, const wasm_instr *in);

/* Function type: params then results in one array. */
typedef struct wasm_functype {
	uint32_t nparams, nresults;
	uint8_t *types; /* nparams + nresults value types */
} wasm_functype;

/* Entries the validator may reject carry `at`: the file offset where the
 * entry starts, so that errors point into the file. */
typedef struct wasm_limits {
	uint32_t min, max;
	bool has_max;
	bool shared;
	size_t at; /* offset of the flags byte */
} wasm_limits;

typedef struct wasm_tabletype {
	uint8_t elem; /* WASM_FUNCREF or WASM_EXTERNREF */
	wasm_limits lim;
} wasm_tabletype;

typedef struct wasm_globaltype {
	uint8_t type;
	bool mut;
} wasm_globaltype;

/* A byte string inside the module's bytes (names are UTF-8 checked). */
typedef struct wasm_str {
	const char *p;
	uint32_t len;
} wasm_str;

/* A constant expression: the bytes [start, end) including the final
 * `end`, read with a wasm_reader. */
typedef struct wasm_expr {
	size_t start, end;
} wasm_expr;

typedef enum wasm_extern {
	WASM_EXTERN_FUNC = 0,
	WASM_EXTERN_TABLE = 1,
	WASM_EXTERN_MEMORY = 2,
	WASM_EXTERN_GLOBAL = 3,
	WASM_EXTERN_TAG = 4, /* exception handling */
} wasm_extern;

/* "func", "table", "memory", "global", "tag". */
const char *wasm_extern_name(wasm_extern k);

typedef struct wasm_import {
	size_t at;
	wasm_str module, name;
	wasm_extern kind;
	union {
		uint32_t func_type;
		wasm_tabletype table;
		wasm_limits memory;
		wasm_globaltype global;
		uint32_t tag_type; /* type index: params, no results */
	} u;
} wasm_import;

typedef struct wasm_export {
	size_t at;
	wasm_str name;
	wasm_extern kind;
	uint32_t index;
} wasm_export;

typedef struct wasm_global {
	wasm_globaltype type;
	wasm_expr init;
} wasm_global;

typedef struct wasm_localgroup {
	uint32_t count;
	uint8_t type;
} wasm_localgroup;

/* A defined function (imports are not here; see wasm_module). */
typedef struct wasm_func {
	uint32_t type;
	uint32_t ngroups;
	wasm_localgroup *groups;
	uint64_t nlocals;  /* sum of group counts, without params */
	size_t body_start; /* file offset of the body entry's size LEB */
	size_t code_start; /* first instruction */
	size_t code_end;   /* one past the final `end` */
} wasm_func;

typedef enum wasm_segmode {
	WASM_SEG_ACTIVE,
	WASM_SEG_PASSIVE,
	WASM_SEG_DECLARATIVE, /* element segments only */
} wasm_segmode;

typedef struct wasm_elem {
	size_t at;
	wasm_segmode mode;
	uint8_t flags;	/* 0..7 as encoded; kept so encode is faithful */
	uint8_t type;	/* WASM_FUNCREF or WASM_EXTERNREF */
	uint32_t table; /* active only */
	wasm_expr offset;
	uint32_t count;
	uint32_t *funcs;  /* flags without bit 2: function indices */
	wasm_expr *exprs; /* flags with bit 2: one expression each */
} wasm_elem;

typedef struct wasm_data {
	wasm_segmode mode;
	uint8_t flags; /* 0..2 as encoded */
	uint32_t mem;
	wasm_expr offset;
	size_t start; /* payload offset in the file */
	uint32_t len;
} wasm_data;

/* A custom section and where it stood: after the last known section of
 * id `after` (0 = before every known section), so encode can put it back
 * in the same place. */
typedef struct wasm_custom {
	wasm_str name;
	size_t start; /* payload after the name */
	uint32_t len;
	uint8_t after;
} wasm_custom;

typedef struct wasm_name {
	uint32_t index;
	wasm_str name;
} wasm_name;

/* Names from the "name" custom section, if present and well formed (a
 * broken name section is ignored, as the spec requires). */
typedef struct wasm_names {
	bool present;
	wasm_str module;
	uint32_t nfuncs;
	wasm_name *funcs; /* sorted by index */
	uint32_t nglobals;
	wasm_name *globals; /* sorted by index (subsection 7) */
	uint32_t nlocal_funcs;
	struct wasm_local_names {
		uint32_t func;
		uint32_t count;
		wasm_name *locals;
	} * locals;
} wasm_names;

/* Known section ids are 0..WASM_NSECTIONS-1: the core's 0..12 and the
 * tag section (13). */
enum { WASM_SECTION_TAG = 13, WASM_NSECTIONS = 14 };

typedef struct wasm_module {
	uint8_t *bytes; /* owned copy of the binary */
	size_t size;

	uint32_t ntypes;
	wasm_functype *types;

	uint32_t nimports;
	wasm_import *imports;
	/* Index spaces start with imports: counts of each kind. */
	uint32_t nfunc_imports, ntable_imports, nmem_imports, nglobal_imports;
	uint32_t ntag_imports;

	uint32_t nfuncs; /* defined functions */
	wasm_func *funcs;
	uint32_t ntables;
	wasm_tabletype *tables; /* defined tables */
	uint32_t nmems;
	wasm_limits *mems; /* defined memories */
	uint32_t nglobals;
	wasm_global *globals;
	/* Defined tags (the exception-handling proposal's tag section, id
	 * 13, between the memory and global sections): a type index each,
	 * the type of the values an exception of the tag carries. */
	uint32_t ntags;
	uint32_t *tags;
	uint32_t nexports;
	wasm_export *exports;
	bool has_start;
	uint32_t start;
	size_t start_at; /* offset of the start section's index */
	uint32_t nelems;
	wasm_elem *elems;
	bool has_datacount;
	uint32_t datacount;
	uint32_t ndatas;
	wasm_data *datas;
	uint32_t ncustoms;
	wasm_custom *customs;
	wasm_names names;
	/* Section sizes by id (0..13), payload bytes; for inspect. */
	uint32_t section_size[WASM_NSECTIONS];
	bool section_present[WASM_NSECTIONS];
	/* File offset of each known section's payload (after id and size);
	 * 0 if absent. DWARF addresses are offsets from section_start[10]. */
	size_t section_start[WASM_NSECTIONS];
} wasm_module;

/* Decode a binary module. Copies `bytes`; the caller keeps its own.
 * On success *out owns a new module (free with wasm_module_free). Errors:
 * WASM_MALFORMED with the offset and section, WASM_NOMEM, WASM_LIMIT. */
wasm_status wasm_decode(const uint8_t *bytes, size_t len, wasm_module **out,
			wasm_err *err);

/* Free a module and everything it owns. Accepts NULL. */
void wasm_module_free(wasm_module *m);

/* Validate a decoded module: WASM_OK, or WASM_INVALID / WASM_MALFORMED
 * with the offset, section and function of the first problem. Every
 * feature of DESIGN's scope is on (heisen needs multi-memory for its probe
 * mask). */
wasm_status wasm_validate(const wasm_module *m, wasm_err *err);

/* Proposals that change the rules of earlier ones, for tools that must
 * judge a module by an older standard (the spec suites of Wasm 2.0 and
 * threads predate multi-memory). */
typedef struct wasm_features {
	/* Off: at most one memory, and memory.size/grow/copy/fill/init
	 * take a single 0x00 byte where multi-memory has a memory index. */
	bool multi_memory;
} wasm_features;

wasm_status wasm_validate_with(const wasm_module *m, const wasm_features *f,
			       wasm_err *err);

/* Encode a module. On success *out (caller frees with wasm_free) holds
 * *len bytes. The module must have been validated. */
wasm_status wasm_encode(const wasm_module *m, uint8_t **out, size_t *len,
			wasm_err *err);

/* Edits applied while encoding, so that the rewriter writes a changed
 * module through this encoder instead of a copy of it. Every member may be
 * NULL / 0; wasm_encode is wasm_encode_with(m, NULL, …). */
typedef struct wasm_encode_hooks {
	void *ctx;
	/* New index of function / memory idx of m, applied to exports,
	 * start, element segments, ref.func in constant expressions and
	 * data segments (a data segment for memory 0 that moves gets the
	 * explicit-memory form). Bodies are the section hook's business. */
	uint32_t (*func_index)(void *ctx, uint32_t idx);
	uint32_t (*mem_index)(void *ctx, uint32_t idx);
	/* Types and imports appended after the module's own (the sections
	 * are written even if m has none). */
	uint32_t nextra_types;
	const wasm_functype *extra_types;
	uint32_t nextra_imports;
	const wasm_import *extra_imports;
	/* Write the payload of known section id into s instead of the
	 * encoder, setting *done; leave *done false to let it encode. s is
	 * empty; the hook may also replace it by a wasm_buf of its own
	 * (after wasm_buf_fini(s)), which the encoder then frees. */
	wasm_status (*section)(void *ctx, uint8_t id, wasm_buf *s, bool *done,
			       wasm_err *err);
	/* Custom section c: write a replacement (name and payload) into s
	 * and set *keep, or leave *keep false to drop it. When NULL, every
	 * custom section is copied unchanged. */
	wasm_status (*custom)(void *ctx, const wasm_custom *c, wasm_buf *s,
			      bool *keep, wasm_err *err);
	/* After known section id (before the custom sections that followed
	 * it in m): write a new custom section (name and payload) into s, or
	 * nothing. */
	wasm_status (*after)(void *ctx, uint8_t id, wasm_buf *s, wasm_err *err);
	/* Expected size of the output, to allocate it once (0: unknown). */
	size_t size_hint;
} wasm_encode_hooks;

/* wasm_encode with edits; h may be NULL. */
wasm_status wasm_encode_with(const wasm_module *m, const wasm_encode_hooks *h,
			     uint8_t **out, size_t *len, wasm_err *err);

/* Compare two modules structurally: types, imports, every section, and
 * each body instruction by instruction (offsets and LEB padding aside).
 * Returns true if equal; otherwise writes the first difference to why. */
bool wasm_module_equal(const wasm_module *a, const wasm_module *b, char *why,
		       size_t cap);

/* Index-space helpers. */
uint32_t wasm_func_count(const wasm_module *m); /* imports + defined */
uint32_t wasm_table_count(const wasm_module *m);
uint32_t wasm_mem_count(const wasm_module *m);
uint32_t wasm_global_count(const wasm_module *m);
uint32_t wasm_tag_count(const wasm_module *m);
/* Type of tag `idx` (imported or defined), NULL if out of range or its
 * type index is. */
const wasm_functype *wasm_tag_type(const wasm_module *m, uint32_t idx);
/* Type of function `idx` in the whole index space, NULL if out of range. */
const wasm_functype *wasm_func_type(const wasm_module *m, uint32_t idx);
/* Limits of memory `idx` (imported or defined), NULL if out of range. */
const wasm_limits *wasm_mem_limits(const wasm_module *m, uint32_t idx);
/* Type of global `idx` (imported or defined), NULL if out of range. */
const wasm_globaltype *wasm_global_type(const wasm_module *m, uint32_t idx);
/* Name of function idx from the name section, or NULL. */
const wasm_str *wasm_func_name(const wasm_module *m, uint32_t idx);
/* Name of global idx from the name section (subsection 7), or NULL. */
const wasm_str *wasm_global_name(const wasm_module *m, uint32_t idx);

/* What `heisen inspect` reports about code, computed in one pass over
 * every body. Memory-access instructions are the ones the rewriter turns
 * into sites: loads, stores, atomic loads/stores/RMW/cmpxchg and the range
 * operations memory.copy/fill/init (memory.copy counts for both of its
 * memories when they differ); wait, notify and fence are synchronisation
 * and are not counted. */
typedef struct wasm_summary {
	uint64_t instrs;   /* instructions in all bodies */
	uint64_t accesses; /* memory-access instructions, all memories */
	uint64_t atomics;  /* of which atomic */
	uint32_t nmems;	   /* wasm_mem_count(m) */
	uint64_t *per_mem; /* nmems counters, owned by the summary */
	bool has_dwarf;	   /* a custom section named .debug_* exists */
	bool has_debug_line;
} wasm_summary;

/* Fill *s for a validated module. Release with wasm_summary_fini. */
wasm_status wasm_summarize(const wasm_module *m, wasm_summary *s,
			   wasm_err *err);
void wasm_summary_fini(wasm_summary *s);

/* Section name by id ("type", "import"…; "custom" for 0). */
const char *wasm_section_name(uint8_t id);

#endif
