/*
 * test_rewriter.c - the rewriter (rewriter/instrument.h): every access
 * family becomes a site of the right kind and width (every SIMD memory
 * instruction among them), the output validates
 * and keeps every index right after the probe and mask imports shift them,
 * stashed operands of every value type, static mode, refusals, the
 * heisen.sites table read back (and a corrupt one refused), allocation
 * failure at every step, hostile sizes, and the instrumented program run
 * in heisen's engine with the probe and mask provided, giving the same
 * results as the original and the expected (address, site) probes (SIMD
 * too: its v128 operands survive their stash).
 *
 * The three test modules are embedded as bytes generated once by
 * `wat2wasm --enable-threads --enable-multi-memory --debug-names` from:
 *
 * fam.wat:
 * (module
 *   (type $v (func))
 *   (memory $m (export "mem") 1 1 shared)
 *   (memory $p 1 1)
 *   (table $t 4 funcref)
 *   (global $g funcref (ref.func $helper))
 *   (global $cnt (mut i32) (i32.const 0))
 *   (elem (i32.const 0) $helper $start)
 *   (elem (table $t) (i32.const 2) funcref (ref.func $helper) (ref.null func))
 *   (elem declare func $run)
 *   (data $d "hello, world")
 *   (data (memory $m) (i32.const 512) "\01\02\03\04")
 *   (start $start)
 *   (func $start (global.set $cnt (i32.const 1)))
 *   (func $helper (result i32) (i32.const 40))
 *   (func $probe_me (export "probe_me") (result i64)
 *     (i32.store offset=8 (i32.const 100) (i32.const 7))
 *     (i64.load offset=4 (i32.const 200)))
 *   (func $run (export "run") (param $x i32) (result i64)
 *     (local $acc i64) (local $f f32) (local $d f64)
 *     ;; plain loads and stores, each value type
 *     (i32.store (i32.const 16) (i32.add (local.get $x) (i32.const 1)))
 *     (i64.store offset=8 (i32.const 16) (i64.const 0x1122334455667788))
 *     (f32.store (i32.const 32) (f32.const 1.5))
 *     (f64.store (i32.const 40) (f64.const 2.25))
 *     (i32.store8 (i32.const 48) (i32.const 0x1ff))
 *     (i32.store16 (i32.const 50) (i32.const 0x12345))
 *     (i64.store8 (i32.const 52) (i64.const 3))
 *     (i64.store16 (i32.const 54) (i64.const 4))
 *     (i64.store32 (i32.const 56) (i64.const 5))
 *     (local.set $acc (i64.extend_i32_u (i32.load (i32.const 16))))
 *     (local.set $acc (i64.add (local.get $acc) (i64.load offset=8 (i32.const
 * 16)))) (local.set $f (f32.load (i32.const 32))) (local.set $d (f64.load
 * (i32.const 40))) (local.set $acc (i64.add (local.get $acc) (i64.trunc_f32_s
 * (local.get $f)))) (local.set $acc (i64.add (local.get $acc) (i64.trunc_f64_s
 * (local.get $d)))) (local.set $acc (i64.add (local.get $acc) (i64.load8_s
 * (i32.const 48)))) (local.set $acc (i64.add (local.get $acc) (i64.load16_u
 * (i32.const 50)))) (local.set $acc (i64.add (local.get $acc) (i64.load32_s
 * (i32.const 56)))) (local.set $acc (i64.add (local.get $acc) (i64.extend_i32_s
 * (i32.load8_u (i32.const 52))))) (local.set $acc (i64.add (local.get $acc)
 * (i64.extend_i32_s (i32.load16_s (i32.const 54)))))
 *     ;; atomics
 *     (i32.atomic.store (i32.const 64) (i32.const 10))
 *     (i64.atomic.store (i32.const 72) (i64.const 20))
 *     (drop (i32.atomic.rmw.add (i32.const 64) (i32.const 5)))
 *     (drop (i64.atomic.rmw.xchg (i32.const 72) (i64.const 21)))
 *     (drop (i32.atomic.rmw.cmpxchg (i32.const 64) (i32.const 15) (i32.const
 * 16))) (drop (i64.atomic.rmw.cmpxchg (i32.const 72) (i64.const 21) (i64.const
 * 22))) (drop (i32.atomic.rmw8.or_u (i32.const 80) (i32.const 1))) (local.set
 * $acc (i64.add (local.get $acc) (i64.extend_i32_u (i32.atomic.load (i32.const
 * 64))))) (local.set $acc (i64.add (local.get $acc) (i64.atomic.load (i32.const
 * 72))))
 *     ;; synchronisation: not sites
 *     (drop (memory.atomic.notify (i32.const 64) (i32.const 0)))
 *     (atomic.fence)
 *     ;; ranges
 *     (memory.fill (i32.const 128) (i32.const 0x5a) (i32.const 16))
 *     (memory.copy (i32.const 160) (i32.const 128) (i32.const 8))
 *     (memory.init $d (i32.const 192) (i32.const 0) (i32.const 5))
 *     (local.set $acc (i64.add (local.get $acc) (i64.load (i32.const 160))))
 *     (local.set $acc (i64.add (local.get $acc) (i64.load (i32.const 192))))
 *     ;; the private memory: not a site without --all-memories
 *     (i32.store $p (i32.const 0) (i32.const 99))
 *     (local.set $acc (i64.add (local.get $acc) (i64.extend_i32_u (i32.load $p
 * (i32.const 0))))) (memory.copy $m $p (i32.const 300) (i32.const 0) (i32.const
 * 4)) (local.set $acc (i64.add (local.get $acc) (i64.extend_i32_u (i32.load
 * (i32.const 300)))))
 *     ;; calls, tables, size/grow, data segment
 *     (local.set $acc (i64.add (local.get $acc) (i64.extend_i32_u (call
 * $helper)))) (local.set $acc (i64.add (local.get $acc) (i64.extend_i32_u
 * (call_indirect (result i32) (i32.const 0))))) (local.set $acc (i64.add
 * (local.get $acc) (i64.extend_i32_u (call_indirect (result i32) (i32.const
 * 2))))) (local.set $acc (i64.add (local.get $acc) (i64.extend_i32_u
 * (memory.size $p)))) (local.set $acc (i64.add (local.get $acc)
 * (i64.extend_i32_s (memory.grow $p (i32.const 0))))) (local.set $acc (i64.add
 * (local.get $acc) (i64.extend_i32_u (i32.load (i32.const 512))))) (local.set
 * $acc (i64.add (local.get $acc) (i64.extend_i32_u (global.get $cnt)))) (if
 * (ref.is_null (ref.func $run)) (then (unreachable))) (if (ref.is_null
 * (global.get $g)) (then (unreachable))) (local.get $acc))
 * )
 *
 * simd.wat: every SIMD memory instruction, on a shared memory, and two
 * on an unshared one. f(100) is 0x7d3eac4a in V8 (node 20), for the
 * original and for its instrumentation with every site static (V8 has
 * no multi-memory for the mask), which probes the addresses of
 * simd_probe_addr below.
 * (module
 *   (memory $m 1 1 shared)
 *   (memory $p 1)
 *   (data (memory $m) (i32.const 96)
 *     "\01\23\45\67\89\ab\cd\ef\10\32\54\76\98\ba\dc\fe"
 *     "\f0\e1\d2\c3\b4\a5\96\87\78\69\5a\4b\3c\2d\1e\0f"
 *     "\11\22\33\44\55\66\77\88\99\aa\bb\cc\dd\ee\ff\00\5a\a5")
 *   (func $f (export "f") (param $a i32) (result i32)
 *     (local $v v128)
 *     (local.set $v (v128.load offset=32 (local.get $a)))
 *     (v128.store offset=16 (local.get $a) (local.get $v))
 *     (v128.store8_lane 3 (local.get $a) (local.get $v))
 *     (v128.store16_lane 7 (local.get $a) (local.get $v))
 *     (v128.store32_lane offset=4 2 (local.get $a) (local.get $v))
 *     (v128.store64_lane 1 (local.get $a) (local.get $v))
 *     (local.set $v (i8x16.add (local.get $v)
 *       (v128.load8x8_s (local.get $a))))
 *     (local.set $v (i8x16.add (local.get $v)
 *       (v128.load8x8_u offset=1 (local.get $a))))
 *     (local.set $v (i8x16.add (local.get $v)
 *       (v128.load16x4_s offset=2 (local.get $a))))
 *     (local.set $v (i8x16.add (local.get $v)
 *       (v128.load16x4_u offset=3 (local.get $a))))
 *     (local.set $v (i8x16.add (local.get $v)
 *       (v128.load32x2_s offset=4 (local.get $a))))
 *     (local.set $v (i8x16.add (local.get $v)
 *       (v128.load32x2_u offset=8 (local.get $a))))
 *     (local.set $v (i8x16.add (local.get $v)
 *       (v128.load8_splat offset=5 (local.get $a))))
 *     (local.set $v (i8x16.add (local.get $v)
 *       (v128.load16_splat offset=6 (local.get $a))))
 *     (local.set $v (i8x16.add (local.get $v)
 *       (v128.load32_splat offset=7 (local.get $a))))
 *     (local.set $v (i8x16.add (local.get $v)
 *       (v128.load64_splat offset=9 (local.get $a))))
 *     (local.set $v (i8x16.add (local.get $v)
 *       (v128.load32_zero offset=10 (local.get $a))))
 *     (local.set $v (i8x16.add (local.get $v)
 *       (v128.load64_zero offset=11 (local.get $a))))
 *     (local.set $v
 *       (v128.load8_lane offset=12 15 (local.get $a) (local.get $v)))
 *     (local.set $v
 *       (v128.load16_lane offset=13 0 (local.get $a) (local.get $v)))
 *     (local.set $v
 *       (v128.load32_lane offset=14 3 (local.get $a) (local.get $v)))
 *     (local.set $v
 *       (v128.load64_lane offset=15 1 (local.get $a) (local.get $v)))
 *     ;; the private memory: not sites
 *     (v128.store $p (i32.const 0) (local.get $v))
 *     (drop (v128.load $p offset=4 (i32.const 0)))
 *     (i32.xor
 *       (i32.xor (i32x4.extract_lane 0 (local.get $v))
 *         (i32x4.extract_lane 1 (local.get $v)))
 *       (i32.xor (i32x4.extract_lane 2 (local.get $v))
 *         (i32x4.extract_lane 3 (local.get $v)))))
 * )
 *
 * imp.wat:
 * (module
 *   (import "env" "memory" (memory $shm 1 2 shared))
 *   (import "env" "twice" (func $twice (param i32) (result i32)))
 *   (memory $priv (export "priv") 1)
 *   (table 2 funcref)
 *   (elem (i32.const 0) func $get $twice)
 *   (data (memory $priv) (i32.const 8) "\2a")
 *   (func $get (export "get") (param $a i32) (result i32)
 *     (i32.add (i32.load (local.get $a)) (i32.load8_u $priv (i32.const 8))))
 *   (func $put (export "put") (param $a i32) (param $v i32)
 *     (i32.store (local.get $a) (call $twice (local.get $v))))
 *   (func $stash (export "stash") (param $a i32) (param $x i64) (param $y i64)
 * (result i64) (i64.atomic.rmw.cmpxchg (local.get $a) (local.get $x) (local.get
 * $y)))
 * )
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/engine.h"
#include "modbuild.h"
#include "rewriter/instrument.h"

static const uint8_t fam_wasm[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x11, 0x04, 0x60,
    0x00, 0x00, 0x60, 0x00, 0x01, 0x7f, 0x60, 0x00, 0x01, 0x7e, 0x60, 0x01,
    0x7f, 0x01, 0x7e, 0x03, 0x05, 0x04, 0x00, 0x01, 0x02, 0x03, 0x04, 0x04,
    0x01, 0x70, 0x00, 0x04, 0x05, 0x07, 0x02, 0x03, 0x01, 0x01, 0x01, 0x01,
    0x01, 0x06, 0x0b, 0x02, 0x70, 0x00, 0xd2, 0x01, 0x0b, 0x7f, 0x01, 0x41,
    0x00, 0x0b, 0x07, 0x18, 0x03, 0x03, 0x6d, 0x65, 0x6d, 0x02, 0x00, 0x08,
    0x70, 0x72, 0x6f, 0x62, 0x65, 0x5f, 0x6d, 0x65, 0x00, 0x02, 0x03, 0x72,
    0x75, 0x6e, 0x00, 0x03, 0x08, 0x01, 0x00, 0x09, 0x17, 0x03, 0x00, 0x41,
    0x00, 0x0b, 0x02, 0x01, 0x00, 0x04, 0x41, 0x02, 0x0b, 0x02, 0xd2, 0x01,
    0x0b, 0xd0, 0x70, 0x0b, 0x03, 0x00, 0x01, 0x03, 0x0c, 0x01, 0x02, 0x0a,
    0x89, 0x04, 0x04, 0x06, 0x00, 0x41, 0x01, 0x24, 0x01, 0x0b, 0x04, 0x00,
    0x41, 0x28, 0x0b, 0x10, 0x00, 0x41, 0xe4, 0x00, 0x41, 0x07, 0x36, 0x02,
    0x08, 0x41, 0xc8, 0x01, 0x29, 0x03, 0x04, 0x0b, 0xe9, 0x03, 0x03, 0x01,
    0x7e, 0x01, 0x7d, 0x01, 0x7c, 0x41, 0x10, 0x20, 0x00, 0x41, 0x01, 0x6a,
    0x36, 0x02, 0x00, 0x41, 0x10, 0x42, 0x88, 0xef, 0x99, 0xab, 0xc5, 0xe8,
    0x8c, 0x91, 0x11, 0x37, 0x03, 0x08, 0x41, 0x20, 0x43, 0x00, 0x00, 0xc0,
    0x3f, 0x38, 0x02, 0x00, 0x41, 0x28, 0x44, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x02, 0x40, 0x39, 0x03, 0x00, 0x41, 0x30, 0x41, 0xff, 0x03, 0x3a,
    0x00, 0x00, 0x41, 0x32, 0x41, 0xc5, 0xc6, 0x04, 0x3b, 0x01, 0x00, 0x41,
    0x34, 0x42, 0x03, 0x3c, 0x00, 0x00, 0x41, 0x36, 0x42, 0x04, 0x3d, 0x01,
    0x00, 0x41, 0x38, 0x42, 0x05, 0x3e, 0x02, 0x00, 0x41, 0x10, 0x28, 0x02,
    0x00, 0xad, 0x21, 0x01, 0x20, 0x01, 0x41, 0x10, 0x29, 0x03, 0x08, 0x7c,
    0x21, 0x01, 0x41, 0x20, 0x2a, 0x02, 0x00, 0x21, 0x02, 0x41, 0x28, 0x2b,
    0x03, 0x00, 0x21, 0x03, 0x20, 0x01, 0x20, 0x02, 0xae, 0x7c, 0x21, 0x01,
    0x20, 0x01, 0x20, 0x03, 0xb0, 0x7c, 0x21, 0x01, 0x20, 0x01, 0x41, 0x30,
    0x30, 0x00, 0x00, 0x7c, 0x21, 0x01, 0x20, 0x01, 0x41, 0x32, 0x33, 0x01,
    0x00, 0x7c, 0x21, 0x01, 0x20, 0x01, 0x41, 0x38, 0x34, 0x02, 0x00, 0x7c,
    0x21, 0x01, 0x20, 0x01, 0x41, 0x34, 0x2d, 0x00, 0x00, 0xac, 0x7c, 0x21,
    0x01, 0x20, 0x01, 0x41, 0x36, 0x2e, 0x01, 0x00, 0xac, 0x7c, 0x21, 0x01,
    0x41, 0xc0, 0x00, 0x41, 0x0a, 0xfe, 0x17, 0x02, 0x00, 0x41, 0xc8, 0x00,
    0x42, 0x14, 0xfe, 0x18, 0x03, 0x00, 0x41, 0xc0, 0x00, 0x41, 0x05, 0xfe,
    0x1e, 0x02, 0x00, 0x1a, 0x41, 0xc8, 0x00, 0x42, 0x15, 0xfe, 0x42, 0x03,
    0x00, 0x1a, 0x41, 0xc0, 0x00, 0x41, 0x0f, 0x41, 0x10, 0xfe, 0x48, 0x02,
    0x00, 0x1a, 0x41, 0xc8, 0x00, 0x42, 0x15, 0x42, 0x16, 0xfe, 0x49, 0x03,
    0x00, 0x1a, 0x41, 0xd0, 0x00, 0x41, 0x01, 0xfe, 0x35, 0x00, 0x00, 0x1a,
    0x20, 0x01, 0x41, 0xc0, 0x00, 0xfe, 0x10, 0x02, 0x00, 0xad, 0x7c, 0x21,
    0x01, 0x20, 0x01, 0x41, 0xc8, 0x00, 0xfe, 0x11, 0x03, 0x00, 0x7c, 0x21,
    0x01, 0x41, 0xc0, 0x00, 0x41, 0x00, 0xfe, 0x00, 0x02, 0x00, 0x1a, 0xfe,
    0x03, 0x00, 0x41, 0x80, 0x01, 0x41, 0xda, 0x00, 0x41, 0x10, 0xfc, 0x0b,
    0x00, 0x41, 0xa0, 0x01, 0x41, 0x80, 0x01, 0x41, 0x08, 0xfc, 0x0a, 0x00,
    0x00, 0x41, 0xc0, 0x01, 0x41, 0x00, 0x41, 0x05, 0xfc, 0x08, 0x00, 0x00,
    0x20, 0x01, 0x41, 0xa0, 0x01, 0x29, 0x03, 0x00, 0x7c, 0x21, 0x01, 0x20,
    0x01, 0x41, 0xc0, 0x01, 0x29, 0x03, 0x00, 0x7c, 0x21, 0x01, 0x41, 0x00,
    0x41, 0xe3, 0x00, 0x36, 0x42, 0x01, 0x00, 0x20, 0x01, 0x41, 0x00, 0x28,
    0x42, 0x01, 0x00, 0xad, 0x7c, 0x21, 0x01, 0x41, 0xac, 0x02, 0x41, 0x00,
    0x41, 0x04, 0xfc, 0x0a, 0x00, 0x01, 0x20, 0x01, 0x41, 0xac, 0x02, 0x28,
    0x02, 0x00, 0xad, 0x7c, 0x21, 0x01, 0x20, 0x01, 0x10, 0x01, 0xad, 0x7c,
    0x21, 0x01, 0x20, 0x01, 0x41, 0x00, 0x11, 0x01, 0x00, 0xad, 0x7c, 0x21,
    0x01, 0x20, 0x01, 0x41, 0x02, 0x11, 0x01, 0x00, 0xad, 0x7c, 0x21, 0x01,
    0x20, 0x01, 0x3f, 0x01, 0xad, 0x7c, 0x21, 0x01, 0x20, 0x01, 0x41, 0x00,
    0x40, 0x01, 0xac, 0x7c, 0x21, 0x01, 0x20, 0x01, 0x41, 0x80, 0x04, 0x28,
    0x02, 0x00, 0xad, 0x7c, 0x21, 0x01, 0x20, 0x01, 0x23, 0x01, 0xad, 0x7c,
    0x21, 0x01, 0xd2, 0x03, 0xd1, 0x04, 0x40, 0x00, 0x0b, 0x23, 0x00, 0xd1,
    0x04, 0x40, 0x00, 0x0b, 0x20, 0x01, 0x0b, 0x0b, 0x19, 0x02, 0x01, 0x0c,
    0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x2c, 0x20, 0x77, 0x6f, 0x72, 0x6c, 0x64,
    0x00, 0x41, 0x80, 0x04, 0x0b, 0x04, 0x01, 0x02, 0x03, 0x04, 0x00, 0x65,
    0x04, 0x6e, 0x61, 0x6d, 0x65, 0x01, 0x1f, 0x04, 0x00, 0x05, 0x73, 0x74,
    0x61, 0x72, 0x74, 0x01, 0x06, 0x68, 0x65, 0x6c, 0x70, 0x65, 0x72, 0x02,
    0x08, 0x70, 0x72, 0x6f, 0x62, 0x65, 0x5f, 0x6d, 0x65, 0x03, 0x03, 0x72,
    0x75, 0x6e, 0x02, 0x17, 0x04, 0x00, 0x00, 0x01, 0x00, 0x02, 0x00, 0x03,
    0x04, 0x00, 0x01, 0x78, 0x01, 0x03, 0x61, 0x63, 0x63, 0x02, 0x01, 0x66,
    0x03, 0x01, 0x64, 0x04, 0x04, 0x01, 0x00, 0x01, 0x76, 0x05, 0x04, 0x01,
    0x00, 0x01, 0x74, 0x06, 0x07, 0x02, 0x00, 0x01, 0x6d, 0x01, 0x01, 0x70,
    0x07, 0x09, 0x02, 0x00, 0x01, 0x67, 0x01, 0x03, 0x63, 0x6e, 0x74, 0x09,
    0x04, 0x01, 0x00, 0x01, 0x64,
};

static const uint8_t simd_wasm[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x06, 0x01, 0x60,
    0x01, 0x7f, 0x01, 0x7f, 0x03, 0x02, 0x01, 0x00, 0x05, 0x06, 0x02, 0x03,
    0x01, 0x01, 0x00, 0x01, 0x07, 0x05, 0x01, 0x01, 0x66, 0x00, 0x00, 0x0a,
    0x9f, 0x02, 0x01, 0x9c, 0x02, 0x01, 0x01, 0x7b, 0x20, 0x00, 0xfd, 0x00,
    0x04, 0x20, 0x21, 0x01, 0x20, 0x00, 0x20, 0x01, 0xfd, 0x0b, 0x04, 0x10,
    0x20, 0x00, 0x20, 0x01, 0xfd, 0x58, 0x00, 0x00, 0x03, 0x20, 0x00, 0x20,
    0x01, 0xfd, 0x59, 0x01, 0x00, 0x07, 0x20, 0x00, 0x20, 0x01, 0xfd, 0x5a,
    0x02, 0x04, 0x02, 0x20, 0x00, 0x20, 0x01, 0xfd, 0x5b, 0x03, 0x00, 0x01,
    0x20, 0x01, 0x20, 0x00, 0xfd, 0x01, 0x03, 0x00, 0xfd, 0x6e, 0x21, 0x01,
    0x20, 0x01, 0x20, 0x00, 0xfd, 0x02, 0x03, 0x01, 0xfd, 0x6e, 0x21, 0x01,
    0x20, 0x01, 0x20, 0x00, 0xfd, 0x03, 0x03, 0x02, 0xfd, 0x6e, 0x21, 0x01,
    0x20, 0x01, 0x20, 0x00, 0xfd, 0x04, 0x03, 0x03, 0xfd, 0x6e, 0x21, 0x01,
    0x20, 0x01, 0x20, 0x00, 0xfd, 0x05, 0x03, 0x04, 0xfd, 0x6e, 0x21, 0x01,
    0x20, 0x01, 0x20, 0x00, 0xfd, 0x06, 0x03, 0x08, 0xfd, 0x6e, 0x21, 0x01,
    0x20, 0x01, 0x20, 0x00, 0xfd, 0x07, 0x00, 0x05, 0xfd, 0x6e, 0x21, 0x01,
    0x20, 0x01, 0x20, 0x00, 0xfd, 0x08, 0x01, 0x06, 0xfd, 0x6e, 0x21, 0x01,
    0x20, 0x01, 0x20, 0x00, 0xfd, 0x09, 0x02, 0x07, 0xfd, 0x6e, 0x21, 0x01,
    0x20, 0x01, 0x20, 0x00, 0xfd, 0x0a, 0x03, 0x09, 0xfd, 0x6e, 0x21, 0x01,
    0x20, 0x01, 0x20, 0x00, 0xfd, 0x5c, 0x02, 0x0a, 0xfd, 0x6e, 0x21, 0x01,
    0x20, 0x01, 0x20, 0x00, 0xfd, 0x5d, 0x03, 0x0b, 0xfd, 0x6e, 0x21, 0x01,
    0x20, 0x00, 0x20, 0x01, 0xfd, 0x54, 0x00, 0x0c, 0x0f, 0x21, 0x01, 0x20,
    0x00, 0x20, 0x01, 0xfd, 0x55, 0x01, 0x0d, 0x00, 0x21, 0x01, 0x20, 0x00,
    0x20, 0x01, 0xfd, 0x56, 0x02, 0x0e, 0x03, 0x21, 0x01, 0x20, 0x00, 0x20,
    0x01, 0xfd, 0x57, 0x03, 0x0f, 0x01, 0x21, 0x01, 0x41, 0x00, 0x20, 0x01,
    0xfd, 0x0b, 0x44, 0x01, 0x00, 0x41, 0x00, 0xfd, 0x00, 0x44, 0x01, 0x04,
    0x1a, 0x20, 0x01, 0xfd, 0x1b, 0x00, 0x20, 0x01, 0xfd, 0x1b, 0x01, 0x73,
    0x20, 0x01, 0xfd, 0x1b, 0x02, 0x20, 0x01, 0xfd, 0x1b, 0x03, 0x73, 0x73,
    0x0b, 0x0b, 0x39, 0x01, 0x00, 0x41, 0xe0, 0x00, 0x0b, 0x32, 0x01, 0x23,
    0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x10, 0x32, 0x54, 0x76, 0x98, 0xba,
    0xdc, 0xfe, 0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87, 0x78, 0x69,
    0x5a, 0x4b, 0x3c, 0x2d, 0x1e, 0x0f, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66,
    0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x5a, 0xa5,
    0x00, 0x1f, 0x04, 0x6e, 0x61, 0x6d, 0x65, 0x01, 0x04, 0x01, 0x00, 0x01,
    0x66, 0x02, 0x09, 0x01, 0x00, 0x02, 0x00, 0x01, 0x61, 0x01, 0x01, 0x76,
    0x06, 0x07, 0x02, 0x00, 0x01, 0x6d, 0x01, 0x01, 0x70,
};

static const uint8_t imp_wasm[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x12, 0x03, 0x60,
    0x01, 0x7f, 0x01, 0x7f, 0x60, 0x02, 0x7f, 0x7f, 0x00, 0x60, 0x03, 0x7f,
    0x7e, 0x7e, 0x01, 0x7e, 0x02, 0x1c, 0x02, 0x03, 0x65, 0x6e, 0x76, 0x06,
    0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x03, 0x01, 0x02, 0x03, 0x65,
    0x6e, 0x76, 0x05, 0x74, 0x77, 0x69, 0x63, 0x65, 0x00, 0x00, 0x03, 0x04,
    0x03, 0x00, 0x01, 0x02, 0x04, 0x04, 0x01, 0x70, 0x00, 0x02, 0x05, 0x03,
    0x01, 0x00, 0x01, 0x07, 0x1c, 0x04, 0x04, 0x70, 0x72, 0x69, 0x76, 0x02,
    0x01, 0x03, 0x67, 0x65, 0x74, 0x00, 0x01, 0x03, 0x70, 0x75, 0x74, 0x00,
    0x02, 0x05, 0x73, 0x74, 0x61, 0x73, 0x68, 0x00, 0x03, 0x09, 0x08, 0x01,
    0x00, 0x41, 0x00, 0x0b, 0x02, 0x01, 0x00, 0x0a, 0x29, 0x03, 0x0e, 0x00,
    0x20, 0x00, 0x28, 0x02, 0x00, 0x41, 0x08, 0x2d, 0x40, 0x01, 0x00, 0x6a,
    0x0b, 0x0b, 0x00, 0x20, 0x00, 0x20, 0x01, 0x10, 0x00, 0x36, 0x02, 0x00,
    0x0b, 0x0c, 0x00, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02, 0xfe, 0x49, 0x03,
    0x00, 0x0b, 0x0b, 0x08, 0x01, 0x02, 0x01, 0x41, 0x08, 0x0b, 0x01, 0x2a,
    0x00, 0x4b, 0x04, 0x6e, 0x61, 0x6d, 0x65, 0x01, 0x19, 0x04, 0x00, 0x05,
    0x74, 0x77, 0x69, 0x63, 0x65, 0x01, 0x03, 0x67, 0x65, 0x74, 0x02, 0x03,
    0x70, 0x75, 0x74, 0x03, 0x05, 0x73, 0x74, 0x61, 0x73, 0x68, 0x02, 0x1b,
    0x04, 0x00, 0x00, 0x01, 0x01, 0x00, 0x01, 0x61, 0x02, 0x02, 0x00, 0x01,
    0x61, 0x01, 0x01, 0x76, 0x03, 0x03, 0x00, 0x01, 0x61, 0x01, 0x01, 0x78,
    0x02, 0x01, 0x79, 0x06, 0x0c, 0x02, 0x00, 0x03, 0x73, 0x68, 0x6d, 0x01,
    0x04, 0x70, 0x72, 0x69, 0x76,
};

/* ---- helpers ----------------------------------------------------------- */

static wasm_module *load(const uint8_t *bytes, size_t len)
{
	wasm_err e;
	wasm_module *m = mb_load(bytes, len, &e);

	if (!m)
		fail_msg("load: %s", e.msg);
	return m;
}

/* Instrument bytes; the output must validate. Returns the output module;
 * *t gets the site table. */
static wasm_module *instrument(const uint8_t *bytes, size_t len,
			       const rw_options *opt, rw_sites *t)
{
	wasm_module *m = load(bytes, len), *o;
	uint8_t *out = NULL;
	size_t olen = 0;
	wasm_err e;

	if (rw_instrument(m, opt, &out, &olen, t, &e))
		fail_msg("instrument: %s", e.msg);
	o = load(out, olen);
	wasm_free(out);
	wasm_module_free(m);
	return o;
}

static uint32_t count_kind(const rw_sites *t, rw_kind k)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < t->nsites; i++)
		n += t->sites[i].kind == k;
	return n;
}

static uint32_t export_index(const wasm_module *m, const char *name)
{
	for (uint32_t i = 0; i < m->nexports; i++)
		if (m->exports[i].name.len == strlen(name) &&
		    !memcmp(m->exports[i].name.p, name, m->exports[i].name.len))
			return m->exports[i].index;
	fail_msg("no export %s", name);
	return UINT32_MAX;
}

/* The first instruction of a constant expression. */
static wasm_instr first_instr(const wasm_module *m, wasm_expr x)
{
	wasm_reader r;
	wasm_instr in;
	wasm_err e;

	wasm_reader_init(&r, m->bytes, x.start, x.end);
	assert_int_equal(wasm_reader_next(&r, &in, &e), WASM_OK);
	wasm_reader_fini(&r);
	return in;
}

static bool name_is(const wasm_module *m, uint32_t f, const char *s)
{
	const wasm_str *n = wasm_func_name(m, f);
	return n && n->len == strlen(s) && !memcmp(n->p, s, n->len);
}

/* ---- sites ------------------------------------------------------------- */

static void every_access_family_is_a_site(void **state)
{
	wasm_module *m = load(fam_wasm, sizeof fam_wasm);
	rw_sites t;
	wasm_module *o;
	(void)state;

	o = instrument(fam_wasm, sizeof fam_wasm, NULL, &t);
	/* 2 in probe_me, 35 in run: notify, fence and the private memory's
	 * accesses are not sites; memory.copy into the shared memory is. */
	assert_int_equal(t.nsites, 37);
	assert_int_equal(count_kind(&t, RW_READ), 14);
	assert_int_equal(count_kind(&t, RW_WRITE), 10);
	assert_int_equal(count_kind(&t, RW_ATOMIC_READ), 2);
	assert_int_equal(count_kind(&t, RW_ATOMIC_WRITE), 2);
	assert_int_equal(count_kind(&t, RW_ATOMIC_RMW), 5);
	assert_int_equal(count_kind(&t, RW_RANGE_WRITE), 4);
	for (uint32_t i = 0; i < t.nsites; i++) {
		const rw_site *s = &t.sites[i];
		const wasm_opinfo *oi = wasm_op_info(s->op);
		wasm_reader r;
		wasm_instr in;
		wasm_err e;
		/* The offset is the access's opcode in the original. */
		wasm_reader_init(&r, m->bytes, s->offset, m->size);
		assert_int_equal(wasm_reader_next(&r, &in, &e), WASM_OK);
		wasm_reader_fini(&r);
		assert_int_equal(in.op, s->op);
		assert_int_equal(s->mem, 0);
		assert_int_equal(s->width,
				 s->kind == RW_RANGE_WRITE ? 0 : oi->width);
		assert_false(oi->flags & WASM_F_SYNC);
		assert_true(s->func == 2 || s->func == 3);
		if (i)
			assert_true(s->offset > t.sites[i - 1].offset);
	}
	assert_int_equal(t.sites[0].op, WASM_OP_I32_STORE);
	assert_int_equal(t.sites[0].kind, RW_WRITE);
	assert_int_equal(t.sites[1].op, WASM_OP_I64_LOAD);
	assert_int_equal(t.sites[1].kind, RW_READ);
	assert_int_equal(t.sites[1].width, 8);
	assert_string_equal(rw_kind_name(RW_ATOMIC_RMW), "atomic-rmw");
	assert_string_equal(rw_kind_name(RW_RANGE_WRITE), "range-write");
	rw_sites_free(&t);
	wasm_module_free(o);
	wasm_module_free(m);
}

/* simd.wat's sites, in code order: instruction, width, kind. */
static const struct {
	wasm_op op;
	uint8_t width, kind;
} simd_site[] = {
    {WASM_OP_V128_LOAD, 16, RW_READ},
    {WASM_OP_V128_STORE, 16, RW_WRITE},
    {WASM_OP_V128_STORE8_LANE, 1, RW_WRITE},
    {WASM_OP_V128_STORE16_LANE, 2, RW_WRITE},
    {WASM_OP_V128_STORE32_LANE, 4, RW_WRITE},
    {WASM_OP_V128_STORE64_LANE, 8, RW_WRITE},
    {WASM_OP_V128_LOAD8X8_S, 8, RW_READ},
    {WASM_OP_V128_LOAD8X8_U, 8, RW_READ},
    {WASM_OP_V128_LOAD16X4_S, 8, RW_READ},
    {WASM_OP_V128_LOAD16X4_U, 8, RW_READ},
    {WASM_OP_V128_LOAD32X2_S, 8, RW_READ},
    {WASM_OP_V128_LOAD32X2_U, 8, RW_READ},
    {WASM_OP_V128_LOAD8_SPLAT, 1, RW_READ},
    {WASM_OP_V128_LOAD16_SPLAT, 2, RW_READ},
    {WASM_OP_V128_LOAD32_SPLAT, 4, RW_READ},
    {WASM_OP_V128_LOAD64_SPLAT, 8, RW_READ},
    {WASM_OP_V128_LOAD32_ZERO, 4, RW_READ},
    {WASM_OP_V128_LOAD64_ZERO, 8, RW_READ},
    {WASM_OP_V128_LOAD8_LANE, 1, RW_READ},
    {WASM_OP_V128_LOAD16_LANE, 2, RW_READ},
    {WASM_OP_V128_LOAD32_LANE, 4, RW_READ},
    {WASM_OP_V128_LOAD64_LANE, 8, RW_READ},
};
#define NSIMD (sizeof simd_site / sizeof *simd_site)

/* What f(100) probes, site by site: 100 + the access's offset. */
static const uint32_t simd_probe_addr[NSIMD] = {
    132, 116, 100, 100, 104, 100, 100, 101, 102, 103, 104,
    108, 105, 106, 107, 109, 110, 111, 112, 113, 114, 115,
};

static void simd_accesses_are_sites(void **state)
{
	wasm_module *m = load(simd_wasm, sizeof simd_wasm);
	rw_sites t;
	wasm_module *o = instrument(simd_wasm, sizeof simd_wasm, NULL, &t);
	const wasm_func *f;
	(void)state;

	/* The unshared memory's v128.store and v128.load are not sites. */
	assert_int_equal(t.nsites, NSIMD);
	for (uint32_t i = 0; i < NSIMD; i++) {
		const rw_site *s = &t.sites[i];
		wasm_reader r;
		wasm_instr in;
		wasm_err e;
		assert_int_equal(s->op, simd_site[i].op);
		assert_int_equal(s->width, simd_site[i].width);
		assert_int_equal(s->kind, simd_site[i].kind);
		assert_int_equal(s->mem, 0);
		/* The offset is the access's opcode in the original. */
		wasm_reader_init(&r, m->bytes, s->offset, m->size);
		assert_int_equal(wasm_reader_next(&r, &in, &e), WASM_OK);
		wasm_reader_fini(&r);
		assert_int_equal(in.op, s->op);
	}
	/* Scratch locals after $v: $addr, then the stashed v128 operand of
	 * the stores and lane accesses, one local for all of them. */
	f = &o->funcs[0];
	assert_int_equal(f->nlocals, 3);
	assert_int_equal(f->groups[f->ngroups - 2].type, WASM_I32);
	assert_int_equal(f->groups[f->ngroups - 1].type, WASM_V128);
	rw_sites_free(&t);
	wasm_module_free(o);
	wasm_module_free(m);
}

/* ---- renumbering ----------------------------------------------------- */

static void indices_move_behind_the_imports(void **state)
{
	wasm_module *m = load(fam_wasm, sizeof fam_wasm);
	rw_sites t, back;
	wasm_module *o = instrument(fam_wasm, sizeof fam_wasm, NULL, &t);
	wasm_err e;
	(void)state;

	/* heisen.mask is memory 0, heisen.probe function 0. */
	assert_int_equal(o->nimports, 2);
	assert_int_equal(o->imports[0].kind, WASM_EXTERN_MEMORY);
	assert_true(o->imports[0].u.memory.shared);
	assert_int_equal(o->imports[0].u.memory.min, 1);
	assert_int_equal(o->imports[0].u.memory.max, 1);
	assert_int_equal(o->imports[1].kind, WASM_EXTERN_FUNC);
	{
		const wasm_functype *ft = wasm_func_type(o, 0);
		assert_int_equal(ft->nparams, 2);
		assert_int_equal(ft->nresults, 0);
		assert_int_equal(ft->types[0], WASM_I32);
		assert_int_equal(ft->types[1], WASM_I32);
	}
	assert_int_equal(t.probe_func, 0);
	assert_int_equal(t.mask_mem, 0);
	assert_int_equal(o->nfuncs, m->nfuncs);
	/* Exports, start, elements, globals, data: everything moved by 1. */
	assert_int_equal(export_index(o, "run"), export_index(m, "run") + 1);
	assert_int_equal(export_index(o, "probe_me"),
			 export_index(m, "probe_me") + 1);
	assert_int_equal(export_index(o, "mem"), 1);
	assert_true(o->has_start);
	assert_int_equal(o->start, m->start + 1);
	assert_int_equal(o->elems[0].funcs[0], m->elems[0].funcs[0] + 1);
	assert_int_equal(o->elems[0].funcs[1], m->elems[0].funcs[1] + 1);
	assert_int_equal(first_instr(o, o->elems[1].exprs[0]).u.idx,
			 first_instr(m, m->elems[1].exprs[0]).u.idx + 1);
	assert_int_equal(o->elems[2].funcs[0], m->elems[2].funcs[0] + 1);
	assert_int_equal(first_instr(o, o->globals[0].init).u.idx,
			 first_instr(m, m->globals[0].init).u.idx + 1);
	assert_int_equal(o->datas[1].mem, 1);
	assert_int_equal(o->datas[1].mode, WASM_SEG_ACTIVE);
	/* The name section follows its functions. */
	assert_true(name_is(o, 1, "start"));
	assert_true(name_is(o, 2, "helper"));
	assert_true(name_is(o, 4, "run"));
	assert_non_null(o->names.locals);
	/* The table reads back as written. */
	assert_int_equal(rw_sites_read(o, &back, &e), WASM_OK);
	assert_int_equal(back.version, RW_SITES_VERSION);
	assert_true(back.hash == rw_hash(fam_wasm, sizeof fam_wasm));
	assert_int_equal(back.probe_func, 0);
	assert_int_equal(back.mask_mem, 0);
	assert_int_equal(back.code_start, m->section_start[10]);
	assert_int_equal(back.nsites, t.nsites);
	assert_memory_equal(back.sites, t.sites, t.nsites * sizeof *t.sites);
	/* So does the offset map (spec_instrument checks that it leads
	 * every instruction of the spec suite's modules back). */
	assert_int_equal(back.nmapfn, m->nfuncs);
	assert_memory_equal(back.map_at, t.map_at,
			    (t.nmapfn + 1) * sizeof *t.map_at);
	assert_memory_equal(back.map, t.map, t.map_at[t.nmapfn] * sizeof *t.map);
	assert_true(t.map_at[t.nmapfn] > t.nmapfn);
	rw_sites_free(&back);
	rw_sites_free(&t);
	wasm_module_free(o);
	wasm_module_free(m);
}

static void imported_memory_keeps_its_index(void **state)
{
	rw_sites t;
	wasm_module *o = instrument(imp_wasm, sizeof imp_wasm, NULL, &t);
	const wasm_func *f;
	(void)state;

	/* env.memory 0, env.twice 0 stay; the mask is memory 1, the probe
	 * function 1; $priv and the defined functions move up. */
	assert_int_equal(o->nimports, 4);
	assert_int_equal(t.probe_func, 1);
	assert_int_equal(t.mask_mem, 1);
	assert_int_equal(t.nsites, 3);
	assert_int_equal(t.sites[0].func, 1);
	assert_int_equal(export_index(o, "priv"), 2);
	assert_int_equal(export_index(o, "get"), 2);
	assert_int_equal(o->elems[0].funcs[0], 2);
	assert_int_equal(o->elems[0].funcs[1], 0);
	assert_int_equal(o->datas[0].mem, 2);
	assert_true(name_is(o, 0, "twice"));
	assert_true(name_is(o, 2, "get"));
	/* cmpxchg i64: both operands above the address are stashed. */
	f = &o->funcs[2];
	assert_int_equal(f->nlocals, 3);
	assert_int_equal(f->groups[0].type, WASM_I32);
	assert_int_equal(f->groups[1].type, WASM_I64);
	assert_int_equal(f->groups[2].type, WASM_I64);
	assert_int_equal(t.sites[2].kind, RW_ATOMIC_RMW);
	rw_sites_free(&t);
	wasm_module_free(o);
}

/* ---- static mode, refusals ------------------------------------------- */

static void static_mode_has_no_mask(void **state)
{
	uint8_t mask[37] = {0};
	rw_options opt = {.static_mask = mask, .static_len = sizeof mask};
	rw_sites t;
	wasm_module *o;
	(void)state;

	mask[1] = 1;
	o = instrument(fam_wasm, sizeof fam_wasm, &opt, &t);
	assert_int_equal(t.nsites, 37); /* the full table, same ids */
	assert_int_equal(t.mask_mem, UINT32_MAX);
	assert_int_equal(o->nimports, 1);
	assert_int_equal(o->imports[0].kind, WASM_EXTERN_FUNC);
	assert_int_equal(o->nmem_imports, 0);
	assert_int_equal(export_index(o, "mem"), 0);
	/* Only probe_me got scratch locals (site 1 is its load). */
	assert_int_equal(o->funcs[2].nlocals, 1);
	assert_int_equal(o->funcs[3].nlocals, 3);
	rw_sites_free(&t);
	wasm_module_free(o);
}

/* A module with one unshared memory and a store. */
static void build_private(wasm_buf *b)
{
	static const uint8_t types[] = {1, 0x60, 0, 0};
	static const uint8_t funcs[] = {1, 0};
	static const uint8_t mem[] = {1, 0, 1};
	static const uint8_t code[] = {1, 9,	0, 0x41, 0,   0x41,
				       5, 0x36, 2, 0,	 0x0b};
	mb_begin(b);
	mb_section(b, 1, types, sizeof types);
	mb_section(b, 3, funcs, sizeof funcs);
	mb_section(b, 5, mem, sizeof mem);
	mb_section(b, 10, code, sizeof code);
}

static void refuses_what_it_cannot_do(void **state)
{
	wasm_buf b;
	wasm_module *m, *o;
	rw_options all = {.all_memories = true};
	rw_sites t;
	uint8_t *out = (uint8_t *)1;
	size_t len = 1;
	wasm_err e;
	(void)state;

	build_private(&b);
	m = load(b.data, b.len);
	assert_int_equal(rw_instrument(m, NULL, &out, &len, &t, &e),
			 WASM_INVALID);
	assert_null(out);
	assert_non_null(strstr(e.msg, "no shared memory: nothing to "
				      "instrument (use --all-memories"));
	assert_int_equal(rw_sites_read(m, &t, &e), WASM_INVALID);
	assert_non_null(strstr(e.msg, "not instrumented"));
	assert_int_equal(rw_instrument(m, &all, &out, &len, &t, &e), WASM_OK);
	assert_int_equal(t.nsites, 1);
	rw_sites_free(&t);
	o = load(out, len);
	wasm_free(out);
	assert_int_equal(rw_instrument(o, &all, &out, &len, &t, &e),
			 WASM_INVALID);
	assert_non_null(strstr(e.msg, "already instrumented"));
	assert_null(out);
	wasm_module_free(o);
	wasm_module_free(m);
	wasm_buf_fini(&b);
}

/* ---- the site table ---------------------------------------------------- */

/* The private module with a custom section heisen.sites of payload p. */
static wasm_module *with_sites(const uint8_t *p, size_t n)
{
	wasm_buf b, c = {0};
	wasm_module *m = NULL;
	wasm_err e;

	build_private(&b);
	wasm_buf_u32(&c, 12);
	wasm_buf_put(&c, "heisen.sites", 12);
	wasm_buf_put(&c, p, n);
	mb_section(&b, 0, c.data, c.len);
	assert_int_equal(wasm_decode(b.data, b.len, &m, &e), WASM_OK);
	wasm_buf_fini(&b);
	wasm_buf_fini(&c);
	return m;
}

static void corrupt_site_table_is_malformed(void **state)
{
	/* version 1, hash 5, probe 0, mask 0, code_start 9, 1 site. */
	static const uint8_t good[] = {1, 5,	0,    0, 9, 1,
				       1, 0x20, 0x28, 4, 0, 0};
	uint8_t bad[sizeof good];
	rw_sites t;
	wasm_err e;
	wasm_module *m;
	(void)state;

	m = with_sites(good, sizeof good);
	assert_int_equal(rw_sites_read(m, &t, &e), WASM_OK);
	assert_int_equal(t.nsites, 1);
	assert_int_equal(t.sites[0].offset, 0x20);
	assert_int_equal(t.sites[0].op, 0x28);
	rw_sites_free(&t);
	wasm_module_free(m);
	/* Every truncation, and every byte set to 0xff or 0x7f: a status,
	 * never a crash; a huge count is no huge allocation. */
	for (size_t n = 0; n < sizeof good; n++) {
		m = with_sites(good, n);
		assert_int_equal(rw_sites_read(m, &t, &e), WASM_MALFORMED);
		wasm_module_free(m);
	}
	for (size_t i = 0; i < sizeof good; i++) {
		for (int v = 0; v < 2; v++) {
			wasm_status st;
			memcpy(bad, good, sizeof good);
			bad[i] = v ? 0x7f : 0xff;
			m = with_sites(bad, sizeof bad);
			st = rw_sites_read(m, &t, &e);
			assert_true(st == WASM_OK || st == WASM_MALFORMED);
			rw_sites_free(&t);
			wasm_module_free(m);
		}
	}
	{
		static const uint8_t huge[] = {1,    5,	   0,	 0,    9,
					       0xff, 0xff, 0xff, 0xff, 0x0f};
		m = with_sites(huge, sizeof huge);
		assert_int_equal(rw_sites_read(m, &t, &e), WASM_MALFORMED);
		wasm_module_free(m);
	}
}

static void hash_is_fnv1a_64(void **state)
{
	(void)state;
	assert_true(rw_hash(NULL, 0) == 0xcbf29ce484222325ull);
	assert_true(rw_hash((const uint8_t *)"a", 1) == 0xaf63dc4c8601ec8cull);
}

/* ---- failure and size ------------------------------------------------ */

static void allocation_failure_at_every_step(void **state)
{
	wasm_module *m = load(fam_wasm, sizeof fam_wasm);
	bool done = false;
	long n;
	(void)state;

	for (n = 0; !done && n < 10000; n++) {
		uint8_t *out = NULL;
		size_t len;
		rw_sites t;
		wasm_err e;
		wasm_status st;
		wasm_alloc_fail_after(n);
		st = rw_instrument(m, NULL, &out, &len, &t, &e);
		wasm_alloc_fail_after(-1);
		assert_true(st == WASM_OK || st == WASM_NOMEM);
		if (st)
			assert_null(out);
		done = st == WASM_OK;
		wasm_free(out);
		rw_sites_free(&t);
	}
	assert_true(done);
	assert_true(n > 3);
	wasm_module_free(m);
}

/* nfuncs functions `i32.const 0 i32.load drop`, the first one with
 * nlocals i32 locals, on a shared memory. */
static void build_many(wasm_buf *b, uint32_t nfuncs, uint32_t nlocals)
{
	wasm_buf s = {0};
	static const uint8_t types[] = {1, 0x60, 0, 0};
	static const uint8_t mem[] = {1, 3, 1, 1};

	mb_begin(b);
	mb_section(b, 1, types, sizeof types);
	wasm_buf_u32(&s, nfuncs);
	for (uint32_t i = 0; i < nfuncs; i++)
		wasm_buf_byte(&s, 0);
	mb_section(b, 3, s.data, s.len);
	s.len = 0;
	mb_section(b, 5, mem, sizeof mem);
	wasm_buf_u32(&s, nfuncs);
	for (uint32_t i = 0; i < nfuncs; i++) {
		static const uint8_t code[] = {0x41, 0, 0x28, 2, 0, 0x1a, 0x0b};
		wasm_buf body = {0};
		if (i == 0 && nlocals) {
			wasm_buf_u32(&body, 1);
			wasm_buf_u32(&body, nlocals);
			wasm_buf_byte(&body, WASM_I32);
		} else {
			wasm_buf_u32(&body, 0);
		}
		wasm_buf_put(&body, code, sizeof code);
		wasm_buf_u32(&s, (uint32_t)body.len);
		wasm_buf_put(&s, body.data, body.len);
		wasm_buf_fini(&body);
	}
	mb_section(b, 10, s.data, s.len);
	wasm_buf_fini(&s);
}

static void hostile_sizes(void **state)
{
	wasm_buf b;
	rw_sites t;
	wasm_module *o;
	(void)state;

	/* 2^16 + 1 functions: 65537 sites need a two-page mask. */
	build_many(&b, 65537, 0);
	o = instrument(b.data, b.len, NULL, &t);
	assert_int_equal(t.nsites, 65537);
	assert_int_equal(o->imports[0].u.memory.min, 2);
	assert_int_equal(t.sites[65536].func, 65536);
	rw_sites_free(&t);
	wasm_module_free(o);
	wasm_buf_fini(&b);
	/* 50000 locals: the scratch local comes after them. */
	build_many(&b, 1, 50000);
	o = instrument(b.data, b.len, NULL, &t);
	assert_int_equal(o->funcs[0].nlocals, 50001);
	rw_sites_free(&t);
	wasm_module_free(o);
	wasm_buf_fini(&b);
}

/* ---- meaning kept: run it in the engine -------------------------------- */

typedef struct probe_log {
	eng_memory *mask;
	eng_func *probe;
	uint32_t n;
	uint32_t addr[64], site[64];
} probe_log;

static eng_trap_kind probe_fn(eng_thread *t, void *ctx, const eng_val *a,
			      eng_val *r, eng_trap *trap)
{
	probe_log *l = ctx;
	(void)t;
	(void)r;
	(void)trap;
	if (l->n < 64) {
		l->addr[l->n] = (uint32_t)a[0];
		l->site[l->n] = (uint32_t)a[1];
	}
	l->n++;
	return ENG_OK;
}

static bool resolve(void *ctx, const wasm_import *imp, eng_extern *out)
{
	probe_log *l = ctx;
	if (imp->kind == WASM_EXTERN_MEMORY) {
		out->kind = WASM_EXTERN_MEMORY;
		out->u.memory = l->mask;
		return true;
	}
	out->kind = WASM_EXTERN_FUNC;
	out->u.func = l->probe;
	return true;
}

/* Run the exports names[0..n) of bytes (original or instrumented) in one
 * instance, in order, export i with argument args[i] when it takes one,
 * its result into res[i], with the mask filled with `fill`. */
static void run_exports(const uint8_t *bytes, size_t len, uint8_t fill,
			probe_log *l, const char *const *names,
			const eng_val *args, eng_val *res, int n)
{
	wasm_module *m = load(bytes, len);
	eng_module *cm = NULL;
	eng_proc *p = eng_proc_new(NULL);
	eng_thread *t;
	eng_instance *in = NULL;
	eng_extern ex;
	eng_trap tr;
	wasm_err err;
	wasm_limits lim = {.min = 1, .max = 1, .has_max = true, .shared = true};
	uint8_t ty[2] = {WASM_I32, WASM_I32};
	wasm_functype ft = {2, 0, ty};

	memset(l, 0, sizeof *l);
	assert_non_null(p);
	assert_int_equal(eng_compile(m, &cm, &err), WASM_OK);
	t = eng_thread_new(p, &err);
	assert_non_null(t);
	l->mask = eng_memory_new(p, &lim, &err);
	assert_non_null(l->mask);
	memset(eng_memory_data(l->mask), fill, eng_memory_size(l->mask));
	l->probe = eng_host_func_new(p, &ft, probe_fn, l, "probe");
	if (!eng_instantiate(cm, p, t, resolve, l, &in, &tr, &err))
		fail_msg("instantiate: %s / %s", err.msg, tr.msg);
	for (int i = 0; i < n; i++) {
		res[i] = 0;
		assert_true(eng_instance_export(in, names[i], &ex));
		if (eng_call(t, ex.u.func, &args[i], &res[i], &tr))
			fail_msg("%s: %s", names[i], tr.msg);
	}
	eng_proc_free(p);
	eng_module_free(cm);
}

/* Run probe_me() and run(5) of fam. */
static void run_fam(const uint8_t *bytes, size_t len, uint8_t fill,
		    probe_log *l, eng_val *r1, eng_val *r2)
{
	static const char *const names[2] = {"probe_me", "run"};
	static const eng_val args[2] = {0, 5};
	eng_val res[2];

	run_exports(bytes, len, fill, l, names, args, res, 2);
	*r1 = res[0];
	*r2 = res[1];
}

static void engine_runs_it_the_same(void **state)
{
	wasm_module *m = load(fam_wasm, sizeof fam_wasm);
	uint8_t *out = NULL, smask[37] = {0};
	size_t len;
	rw_sites t;
	wasm_err e;
	probe_log l;
	eng_val a1, a2, b1, b2;
	rw_options st = {.static_mask = smask, .static_len = sizeof smask};
	(void)state;

	run_fam(fam_wasm, sizeof fam_wasm, 0, &l, &a1, &a2);
	assert_int_equal(l.n, 0);
	assert_int_equal(rw_instrument(m, NULL, &out, &len, &t, &e), WASM_OK);
	/* Mask all zero: no probe, same results. */
	run_fam(out, len, 0, &l, &b1, &b2);
	assert_int_equal(l.n, 0);
	assert_true(a1 == b1 && a2 == b2);
	/* Mask all set: every executed site once, in order, addr+offset; a
	 * range site's call followed by its source (a copy within one
	 * memory) and its length. */
	run_fam(out, len, 1, &l, &b1, &b2);
	assert_true(a1 == b1 && a2 == b2);
	assert_true(l.n <= 64);
	assert_int_equal(l.addr[0], 108);
	assert_int_equal(l.site[0], 0);
	assert_int_equal(l.addr[1], 204);
	assert_int_equal(l.site[1], 1);
	assert_int_equal(l.addr[3], 24); /* i64.store offset=8 at 16 */
	uint32_t next = 0, lens = 0;
	for (uint32_t i = 0; i < l.n; i++) {
		uint32_t site = l.site[i];
		if (!(site & (RW_PROBE_SRC | RW_PROBE_LEN))) {
			assert_int_equal(site, next++);
			continue;
		}
		/* After its range site's call (or its source's). */
		assert_true(i > 0);
		assert_int_equal(site & ~(RW_PROBE_SRC | RW_PROBE_LEN),
				 next - 1);
		assert_int_equal(t.sites[next - 1].kind, RW_RANGE_WRITE);
		lens += (site & RW_PROBE_LEN) != 0;
	}
	assert_int_equal(next, t.nsites);
	assert_int_equal(lens, count_kind(&t, RW_RANGE_WRITE));
	wasm_free(out);
	rw_sites_free(&t);
	/* Static: only the armed site, whatever the mask memory says. */
	smask[1] = 1;
	assert_int_equal(rw_instrument(m, &st, &out, &len, &t, &e), WASM_OK);
	run_fam(out, len, 0, &l, &b1, &b2);
	assert_true(a1 == b1 && a2 == b2);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.addr[0], 204);
	assert_int_equal(l.site[0], 1);
	wasm_free(out);
	rw_sites_free(&t);
	wasm_module_free(m);
}

/* SIMD keeps its meaning too: the v128 operands of stores and lane
 * accesses pass through their stash, and each probe gets the access's
 * address. The result is V8's (see simd.wat). */
static void engine_runs_simd_the_same(void **state)
{
	static const char *const f[1] = {"f"};
	static const eng_val arg[1] = {100};
	wasm_module *m = load(simd_wasm, sizeof simd_wasm);
	uint8_t *out = NULL;
	size_t len;
	rw_sites t;
	wasm_err e;
	probe_log l;
	eng_val a, b;
	(void)state;

	run_exports(simd_wasm, sizeof simd_wasm, 0, &l, f, arg, &a, 1);
	assert_int_equal(a, 0x7d3eac4a);
	assert_int_equal(rw_instrument(m, NULL, &out, &len, &t, &e), WASM_OK);
	run_exports(out, len, 0, &l, f, arg, &b, 1);
	assert_int_equal(l.n, 0);
	assert_int_equal(b, a);
	run_exports(out, len, 1, &l, f, arg, &b, 1);
	assert_int_equal(b, a);
	assert_int_equal(l.n, NSIMD);
	for (uint32_t i = 0; i < NSIMD; i++) {
		assert_int_equal(l.site[i], i);
		assert_int_equal(l.addr[i], simd_probe_addr[i]);
	}
	wasm_free(out);
	rw_sites_free(&t);
	wasm_module_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_access_family_is_a_site),
	    cmocka_unit_test(simd_accesses_are_sites),
	    cmocka_unit_test(indices_move_behind_the_imports),
	    cmocka_unit_test(imported_memory_keeps_its_index),
	    cmocka_unit_test(static_mode_has_no_mask),
	    cmocka_unit_test(refuses_what_it_cannot_do),
	    cmocka_unit_test(corrupt_site_table_is_malformed),
	    cmocka_unit_test(hash_is_fnv1a_64),
	    cmocka_unit_test(allocation_failure_at_every_step),
	    cmocka_unit_test(hostile_sizes),
	    cmocka_unit_test(engine_runs_it_the_same),
	    cmocka_unit_test(engine_runs_simd_the_same),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
