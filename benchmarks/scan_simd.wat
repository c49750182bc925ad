;; The CSV scan of the JS engine's parse loop in WebAssembly SIMD, for
;; benchmarks/scan_simd.js: scan(p, n, d, out) writes to out the offsets (i32) of the
;; bytes in [p, p + n) that stop an unquoted field (the delimiter d, '"', LF, CR) and
;; returns how many. Sixteen bytes a step (four compares, one bitmask, one ctz per stop
;; byte), then a byte at a time for the last n % 16.
(module
  (memory (export "mem") 128)
  (func (export "scan") (param $p i32) (param $n i32) (param $d i32) (param $out i32) (result i32)
    (local $end i32) (local $last i32) (local $m i32) (local $v v128) (local $o i32)
    (local $dv v128) (local $c i32)
    (local.set $o (local.get $out))
    (local.set $dv (i8x16.splat (local.get $d)))
    (local.set $last (i32.add (local.get $p) (local.get $n)))
    (local.set $end (i32.add (local.get $p) (i32.and (local.get $n) (i32.const -16))))
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
            (i32.store (local.get $o) (i32.add (local.get $p) (i32.ctz (local.get $m))))
            (local.set $o (i32.add (local.get $o) (i32.const 4)))
            (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
            (br $bits)))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $blk)))
    (block $tail
      (loop $byte
        (br_if $tail (i32.ge_u (local.get $p) (local.get $last)))
        (local.set $c (i32.load8_u (local.get $p)))
        (if (i32.or (i32.or (i32.eq (local.get $c) (local.get $d)) (i32.eq (local.get $c) (i32.const 10)))
                    (i32.or (i32.eq (local.get $c) (i32.const 34)) (i32.eq (local.get $c) (i32.const 13))))
          (then
            (i32.store (local.get $o) (local.get $p))
            (local.set $o (i32.add (local.get $o) (i32.const 4)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $byte)))
    (i32.shr_u (i32.sub (local.get $o) (local.get $out)) (i32.const 2)))
)
