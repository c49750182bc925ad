;; The JS engine's field scan in WebAssembly SIMD (assets/profiler-engine.js, SCAN_WASM:
;; scripts/build_scan_wasm.js assembles this text into the bytes embedded there).
;; scan(n, d, base): the bytes memory[0, n) (n <= 1 MiB, copied in by the engine) are
;; read sixteen at a time; the offset (+ base) of each byte that can end a field or a
;; quoted section (the delimiter d, '"', LF, CR) is written, in order, as an i32 from
;; memory[1 MiB] on; returns how many.
;; check(n): the first problem byte of memory[0, n) as SPEC 0.1 and the engine's
;; firstBadByte define it (a NUL, or the first byte of an ill-formed UTF-8 sequence,
;; one cut off by n included), returned as offset * 2 + 1 for a NUL, offset * 2 for
;; UTF-8; -1 when there is none. Sixteen bytes a step while they are non-NUL ASCII.
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
;; check: see the top. $p moves over whole characters; a block of sixteen with a
  ;; NUL or a byte >= 0x80 sends $p to the first such byte, checked one character.
  (func (export "check") (param $n i32) (result i32)
    (local $p i32) (local $m i32) (local $v v128) (local $b i32) (local $need i32)
    (local $lo i32) (local $hi i32) (local $k i32) (local $c i32)
    (block $done
      (loop $step
        (br_if $done (i32.ge_u (local.get $p) (local.get $n)))
        (if (i32.le_u (i32.add (local.get $p) (i32.const 16)) (local.get $n))
          (then
            (local.set $v (v128.load (local.get $p)))
            (local.set $m (i8x16.bitmask
              (v128.or (local.get $v) (i8x16.eq (local.get $v) (v128.const i32x4 0 0 0 0)))))
            (if (i32.eqz (local.get $m))
              (then
                (local.set $p (i32.add (local.get $p) (i32.const 16)))
                (br $step)))
            (local.set $p (i32.add (local.get $p) (i32.ctz (local.get $m))))))
        (local.set $b (i32.load8_u (local.get $p)))
        (if (i32.eqz (local.get $b))
          (then (return (i32.add (i32.shl (local.get $p) (i32.const 1)) (i32.const 1)))))
        (if (i32.lt_u (local.get $b) (i32.const 128))
          (then
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (br $step)))
        ;; the lead byte: how many continuation bytes, the first one's range
        (local.set $lo (i32.const 128))
        (local.set $hi (i32.const 191))
        (block $lead
          (if (i32.and (i32.ge_u (local.get $b) (i32.const 194)) (i32.le_u (local.get $b) (i32.const 223)))
            (then (local.set $need (i32.const 1)) (br $lead)))
          (if (i32.eq (local.get $b) (i32.const 224))
            (then (local.set $need (i32.const 2)) (local.set $lo (i32.const 160)) (br $lead)))
          (if (i32.eq (local.get $b) (i32.const 237))
            (then (local.set $need (i32.const 2)) (local.set $hi (i32.const 159)) (br $lead)))
          (if (i32.and (i32.ge_u (local.get $b) (i32.const 225)) (i32.le_u (local.get $b) (i32.const 239)))
            (then (local.set $need (i32.const 2)) (br $lead)))
          (if (i32.eq (local.get $b) (i32.const 240))
            (then (local.set $need (i32.const 3)) (local.set $lo (i32.const 144)) (br $lead)))
          (if (i32.eq (local.get $b) (i32.const 244))
            (then (local.set $need (i32.const 3)) (local.set $hi (i32.const 143)) (br $lead)))
          (if (i32.and (i32.ge_u (local.get $b) (i32.const 241)) (i32.le_u (local.get $b) (i32.const 243)))
            (then (local.set $need (i32.const 3)) (br $lead)))
          (return (i32.shl (local.get $p) (i32.const 1))))
        (if (i32.ge_u (i32.add (local.get $p) (local.get $need)) (local.get $n))
          (then (return (i32.shl (local.get $p) (i32.const 1)))))
        (local.set $c (i32.load8_u offset=1 (local.get $p)))
        (if (i32.or (i32.lt_u (local.get $c) (local.get $lo)) (i32.gt_u (local.get $c) (local.get $hi)))
          (then (return (i32.shl (local.get $p) (i32.const 1)))))
        (local.set $k (i32.const 2))
        (block $tail
          (loop $more
            (br_if $tail (i32.gt_u (local.get $k) (local.get $need)))
            (local.set $c (i32.load8_u (i32.add (local.get $p) (local.get $k))))
            (if (i32.or (i32.lt_u (local.get $c) (i32.const 128)) (i32.gt_u (local.get $c) (i32.const 191)))
              (then (return (i32.shl (local.get $p) (i32.const 1)))))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br $more)))
        (local.set $p (i32.add (local.get $p) (i32.add (local.get $need) (i32.const 1))))
        (br $step)))
    (i32.const -1))
)
