;; The JS engine's field scan in WebAssembly SIMD (assets/profiler-engine.js, SCAN_WASM:
;; scripts/build_scan_wasm.js assembles this text into the bytes embedded there).
;; scan(n, d, base): the bytes memory[0, n) (n <= 1 MiB, copied in by the engine) are
;; read sixteen at a time; the offset (+ base) of each byte that can end a field or a
;; quoted section (the delimiter d, '"', LF, CR) is written, in order, as an i32 from
;; memory[1 MiB] on; returns how many.
(module
  (memory (export "mem") 80)
  (func (export "scan") (param $n i32) (param $d i32) (param $base i32) (result i32)
    (local $p i32) (local $end i32) (local $m i32) (local $v v128) (local $o i32)
    (local $dv v128) (local $c i32)
    (local.set $o (i32.const 1048576))
    (local.set $dv (i8x16.splat (local.get $d)))
    (local.set $end (i32.and (local.get $n) (i32.const -16)))
    (block $done
      (loop $blk
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $v (v128.load (local.get $p)))
        (local.set $m (i8x16.bitmask
          (v128.or
            (v128.or (i8x16.eq (local.get $v) (local.get $dv))
                     (i8x16.eq (local.get $v) (i8x16.splat (i32.const 10))))
            (v128.or (i8x16.eq (local.get $v) (i8x16.splat (i32.const 34)))
                     (i8x16.eq (local.get $v) (i8x16.splat (i32.const 13)))))))
        (block $nomore
          (loop $bits
            (br_if $nomore (i32.eqz (local.get $m)))
            (i32.store (local.get $o)
              (i32.add (local.get $base) (i32.add (local.get $p) (i32.ctz (local.get $m)))))
            (local.set $o (i32.add (local.get $o) (i32.const 4)))
            (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
            (br $bits)))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $blk)))
    (block $tail
      (loop $byte
        (br_if $tail (i32.ge_u (local.get $p) (local.get $n)))
        (local.set $c (i32.load8_u (local.get $p)))
        (if (i32.or (i32.or (i32.eq (local.get $c) (local.get $d)) (i32.eq (local.get $c) (i32.const 10)))
                    (i32.or (i32.eq (local.get $c) (i32.const 34)) (i32.eq (local.get $c) (i32.const 13))))
          (then
            (i32.store (local.get $o) (i32.add (local.get $base) (local.get $p)))
            (local.set $o (i32.add (local.get $o) (i32.const 4)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $byte)))
    (i32.shr_u (i32.sub (local.get $o) (i32.const 1048576)) (i32.const 2)))
)
