;; The sketch scan's two passes: the Hamming distance of a query's first 256 sketch bits to every row of a scope, the
;; pick of the rows it keeps, then the distance of their other 768 bits; and the rerank's cosine of the query's vector
;; with each candidate's, over their 8-bit codes or their stored f32 values. Distances are 64-bit popcounts; the pick
;; and the cosines use WebAssembly SIMD.
;; Compiled by `npm run build:kernel` into sketch-kernel.generated.ts.
(module
  (import "sketch" "memory" (memory 1))

  ;; Rows are RECORD_BYTES (36) apart from `records`: the row's attribute word, then its first 8 sketch words. For each
  ;; row, writes its distance to the 8 query words at `query` as a u16 from `out` (0xffff when its attributes masked by
  ;; `mask` differ from `wanted`: the filter leaves it out) and adds one to the u32 histogram slot of that distance.
  ;; Returns the rows the filter kept. A distance is four 64-bit popcounts: one instruction each on x86-64, which has
  ;; no byte popcount for WebAssembly's SIMD one (V8 builds it from shuffles). Four rows that all pass the filter are
  ;; measured together, and each of the four counted in a histogram of its own (consecutive rows often share a
  ;; distance, and one histogram would make each count wait for the one before): the 257 slots at `histogram` are
  ;; followed by three more histograms of 257 slots, which the pass clears first and adds into the first at the end.
  (func (export "coarsePass")
    (param $records i32) (param $count i32) (param $query i32) (param $mask i32) (param $wanted i32)
    (param $out i32) (param $histogram i32) (result i32)
    (local $q0 i64) (local $q1 i64) (local $q2 i64) (local $q3 i64) (local $row i32) (local $end i32) (local $lastGroup i32)
    (local $distance i32) (local $kept i32) (local $slot i32) (local $a i32) (local $b i32) (local $c i32) (local $d i32)
    (local.set $slot (i32.add (local.get $histogram) (i32.const 1028)))
    (local.set $end (i32.add (local.get $histogram) (i32.const 4112)))
    (block $cleared
      (loop $clear
        (br_if $cleared (i32.ge_u (local.get $slot) (local.get $end)))
        (i32.store (local.get $slot) (i32.const 0))
        (local.set $slot (i32.add (local.get $slot) (i32.const 4)))
        (br $clear)))
    (local.set $q0 (i64.load (local.get $query)))
    (local.set $q1 (i64.load offset=8 (local.get $query)))
    (local.set $q2 (i64.load offset=16 (local.get $query)))
    (local.set $q3 (i64.load offset=24 (local.get $query)))
    (local.set $row (local.get $records))
    (local.set $end (i32.add (local.get $records) (i32.mul (local.get $count) (i32.const 36))))
    (local.set $lastGroup (i32.sub (local.get $end) (i32.const 144)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $row) (local.get $end)))
        (if (i32.and
              (i32.le_s (local.get $row) (local.get $lastGroup))
              (i32.and
                (i32.and
                  (i32.eq (i32.and (i32.load (local.get $row)) (local.get $mask)) (local.get $wanted))
                  (i32.eq (i32.and (i32.load offset=36 (local.get $row)) (local.get $mask)) (local.get $wanted)))
                (i32.and
                  (i32.eq (i32.and (i32.load offset=72 (local.get $row)) (local.get $mask)) (local.get $wanted))
                  (i32.eq (i32.and (i32.load offset=108 (local.get $row)) (local.get $mask)) (local.get $wanted)))))
          (then
            (local.set $a
              (i32.wrap_i64
                (i64.add
                  (i64.add (i64.popcnt (i64.xor (local.get $q0) (i64.load offset=4 align=4 (local.get $row))))
                    (i64.popcnt (i64.xor (local.get $q1) (i64.load offset=12 align=4 (local.get $row)))))
                  (i64.add (i64.popcnt (i64.xor (local.get $q2) (i64.load offset=20 align=4 (local.get $row))))
                    (i64.popcnt (i64.xor (local.get $q3) (i64.load offset=28 align=4 (local.get $row))))))))
            (local.set $b
              (i32.wrap_i64
                (i64.add
                  (i64.add (i64.popcnt (i64.xor (local.get $q0) (i64.load offset=40 align=4 (local.get $row))))
                    (i64.popcnt (i64.xor (local.get $q1) (i64.load offset=48 align=4 (local.get $row)))))
                  (i64.add (i64.popcnt (i64.xor (local.get $q2) (i64.load offset=56 align=4 (local.get $row))))
                    (i64.popcnt (i64.xor (local.get $q3) (i64.load offset=64 align=4 (local.get $row))))))))
            (local.set $c
              (i32.wrap_i64
                (i64.add
                  (i64.add (i64.popcnt (i64.xor (local.get $q0) (i64.load offset=76 align=4 (local.get $row))))
                    (i64.popcnt (i64.xor (local.get $q1) (i64.load offset=84 align=4 (local.get $row)))))
                  (i64.add (i64.popcnt (i64.xor (local.get $q2) (i64.load offset=92 align=4 (local.get $row))))
                    (i64.popcnt (i64.xor (local.get $q3) (i64.load offset=100 align=4 (local.get $row))))))))
            (local.set $d
              (i32.wrap_i64
                (i64.add
                  (i64.add (i64.popcnt (i64.xor (local.get $q0) (i64.load offset=112 align=4 (local.get $row))))
                    (i64.popcnt (i64.xor (local.get $q1) (i64.load offset=120 align=4 (local.get $row)))))
                  (i64.add (i64.popcnt (i64.xor (local.get $q2) (i64.load offset=128 align=4 (local.get $row))))
                    (i64.popcnt (i64.xor (local.get $q3) (i64.load offset=136 align=4 (local.get $row))))))))
            (i32.store16 (local.get $out) (local.get $a))
            (i32.store16 offset=2 (local.get $out) (local.get $b))
            (i32.store16 offset=4 (local.get $out) (local.get $c))
            (i32.store16 offset=6 (local.get $out) (local.get $d))
            (local.set $slot (i32.add (local.get $histogram) (i32.shl (local.get $a) (i32.const 2))))
            (i32.store (local.get $slot) (i32.add (i32.load (local.get $slot)) (i32.const 1)))
            (local.set $slot (i32.add (local.get $histogram) (i32.shl (local.get $b) (i32.const 2))))
            (i32.store offset=1028 (local.get $slot) (i32.add (i32.load offset=1028 (local.get $slot)) (i32.const 1)))
            (local.set $slot (i32.add (local.get $histogram) (i32.shl (local.get $c) (i32.const 2))))
            (i32.store offset=2056 (local.get $slot) (i32.add (i32.load offset=2056 (local.get $slot)) (i32.const 1)))
            (local.set $slot (i32.add (local.get $histogram) (i32.shl (local.get $d) (i32.const 2))))
            (i32.store offset=3084 (local.get $slot) (i32.add (i32.load offset=3084 (local.get $slot)) (i32.const 1)))
            (local.set $kept (i32.add (local.get $kept) (i32.const 4)))
            (local.set $out (i32.add (local.get $out) (i32.const 8)))
            (local.set $row (i32.add (local.get $row) (i32.const 144))))
          (else
            (if (i32.ne (i32.and (i32.load (local.get $row)) (local.get $mask)) (local.get $wanted))
              (then (i32.store16 (local.get $out) (i32.const 0xffff)))
              (else
                (local.set $distance
                  (i32.wrap_i64
                    (i64.add
                      (i64.add (i64.popcnt (i64.xor (local.get $q0) (i64.load offset=4 align=4 (local.get $row))))
                        (i64.popcnt (i64.xor (local.get $q1) (i64.load offset=12 align=4 (local.get $row)))))
                      (i64.add (i64.popcnt (i64.xor (local.get $q2) (i64.load offset=20 align=4 (local.get $row))))
                        (i64.popcnt (i64.xor (local.get $q3) (i64.load offset=28 align=4 (local.get $row))))))))
                (i32.store16 (local.get $out) (local.get $distance))
                (local.set $slot (i32.add (local.get $histogram) (i32.shl (local.get $distance) (i32.const 2))))
                (i32.store (local.get $slot) (i32.add (i32.load (local.get $slot)) (i32.const 1)))
                (local.set $kept (i32.add (local.get $kept) (i32.const 1)))))
            (local.set $out (i32.add (local.get $out) (i32.const 2)))
            (local.set $row (i32.add (local.get $row) (i32.const 36)))))
        (br $next)))
    (local.set $slot (local.get $histogram))
    (local.set $end (i32.add (local.get $histogram) (i32.const 1028)))
    (block $merged
      (loop $merge
        (br_if $merged (i32.ge_u (local.get $slot) (local.get $end)))
        (i32.store (local.get $slot)
          (i32.add
            (i32.add (i32.load (local.get $slot)) (i32.load offset=1028 (local.get $slot)))
            (i32.add (i32.load offset=2056 (local.get $slot)) (i32.load offset=3084 (local.get $slot)))))
        (local.set $slot (i32.add (local.get $slot) (i32.const 4)))
        (br $merge)))
    (local.get $kept))

  ;; Picks rows by their first-pass distance, at most `room`: each of the `count` u16 distances from `distances` under
  ;; `cut`, and each at `cut` while the u32 at `atCut` (counted down) allows. For each, writes its place (its index plus
  ;; `first`) as a u32 from `places`, and the address of its other sketch words (`fine` + index * 96) from `addresses`.
  ;; Eight distances are compared at once: eight with none at or under the cut are skipped, and of the others only
  ;; those are visited, lowest index first, through the bits of the comparison's mask. The last eight may reach up to
  ;; seven distances past `count` (the scan's scratch goes on after them): their bits are cleared. Returns the count.
  (func (export "pick")
    (param $distances i32) (param $count i32) (param $cut i32) (param $atCut i32) (param $first i32) (param $fine i32)
    (param $places i32) (param $addresses i32) (param $room i32) (result i32)
    (local $cuts v128) (local $under v128) (local $index i32) (local $bits i32) (local $at i32) (local $distance i32) (local $picked i32)
    (local.set $cuts (i16x8.splat (local.get $cut)))
    (block $done
      (loop $group
        (br_if $done (i32.ge_u (local.get $index) (local.get $count)))
        (br_if $done (i32.ge_u (local.get $picked) (local.get $room)))
        (local.set $under (i16x8.le_u (v128.load align=2 (i32.add (local.get $distances) (i32.shl (local.get $index) (i32.const 1)))) (local.get $cuts)))
        (if (v128.any_true (local.get $under))
          (then
            (local.set $bits (i16x8.bitmask (local.get $under)))
            (if (i32.lt_u (i32.sub (local.get $count) (local.get $index)) (i32.const 8))
              (then
                (local.set $bits
                  (i32.and (local.get $bits) (i32.sub (i32.shl (i32.const 1) (i32.sub (local.get $count) (local.get $index))) (i32.const 1))))))
            (block $visited
              (loop $next
                (br_if $visited (i32.eqz (local.get $bits)))
                (local.set $at (i32.add (local.get $index) (i32.ctz (local.get $bits))))
                (local.set $bits (i32.and (local.get $bits) (i32.sub (local.get $bits) (i32.const 1))))
                (local.set $distance (i32.load16_u (i32.add (local.get $distances) (i32.shl (local.get $at) (i32.const 1)))))
                (if (i32.or
                      (i32.lt_u (local.get $distance) (local.get $cut))
                      (i32.ne (i32.load (local.get $atCut)) (i32.const 0)))
                  (then
                    (if (i32.eq (local.get $distance) (local.get $cut))
                      (then (i32.store (local.get $atCut) (i32.sub (i32.load (local.get $atCut)) (i32.const 1)))))
                    (i32.store (i32.add (local.get $places) (i32.shl (local.get $picked) (i32.const 2)))
                      (i32.add (local.get $at) (local.get $first)))
                    (i32.store (i32.add (local.get $addresses) (i32.shl (local.get $picked) (i32.const 2)))
                      (i32.add (local.get $fine) (i32.mul (local.get $at) (i32.const 96))))
                    (local.set $picked (i32.add (local.get $picked) (i32.const 1)))
                    (br_if $done (i32.ge_u (local.get $picked) (local.get $room)))))
                (br $next)))))
        (local.set $index (i32.add (local.get $index) (i32.const 8)))
        (br $group)))
    (local.get $picked))

  ;; For each of `count` rows whose other 24 sketch words start at the byte addresses listed (u32) from `rows`, writes
  ;; their distance to the query's words 8 to 31 (from `query` + 32) as a u16 from `out`: twelve 64-bit popcounts. The
  ;; rows' loads do not wait on each other, so the misses of rows scattered through memory overlap.
  (func (export "finePass") (param $rows i32) (param $count i32) (param $query i32) (param $out i32)
    (local $end i32) (local $row i32)
    (local $q0 i64)
    (local $q1 i64)
    (local $q2 i64)
    (local $q3 i64)
    (local $q4 i64)
    (local $q5 i64)
    (local $q6 i64)
    (local $q7 i64)
    (local $q8 i64)
    (local $q9 i64)
    (local $q10 i64)
    (local $q11 i64)
    (local.set $q0 (i64.load offset=32 (local.get $query)))
    (local.set $q1 (i64.load offset=40 (local.get $query)))
    (local.set $q2 (i64.load offset=48 (local.get $query)))
    (local.set $q3 (i64.load offset=56 (local.get $query)))
    (local.set $q4 (i64.load offset=64 (local.get $query)))
    (local.set $q5 (i64.load offset=72 (local.get $query)))
    (local.set $q6 (i64.load offset=80 (local.get $query)))
    (local.set $q7 (i64.load offset=88 (local.get $query)))
    (local.set $q8 (i64.load offset=96 (local.get $query)))
    (local.set $q9 (i64.load offset=104 (local.get $query)))
    (local.set $q10 (i64.load offset=112 (local.get $query)))
    (local.set $q11 (i64.load offset=120 (local.get $query)))
    (local.set $end (i32.add (local.get $rows) (i32.shl (local.get $count) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $rows) (local.get $end)))
        (local.set $row (i32.load (local.get $rows)))
        (i32.store16 (local.get $out)
          (i32.wrap_i64
            (i64.add
              (i64.add
                (i64.add
                  (i64.popcnt (i64.xor (local.get $q0) (i64.load offset=0 align=4 (local.get $row))))
                  (i64.add
                    (i64.popcnt (i64.xor (local.get $q1) (i64.load offset=8 align=4 (local.get $row))))
                    (i64.popcnt (i64.xor (local.get $q2) (i64.load offset=16 align=4 (local.get $row))))))
                (i64.add
                  (i64.popcnt (i64.xor (local.get $q3) (i64.load offset=24 align=4 (local.get $row))))
                  (i64.add
                    (i64.popcnt (i64.xor (local.get $q4) (i64.load offset=32 align=4 (local.get $row))))
                    (i64.popcnt (i64.xor (local.get $q5) (i64.load offset=40 align=4 (local.get $row)))))))
              (i64.add
                (i64.add
                  (i64.popcnt (i64.xor (local.get $q6) (i64.load offset=48 align=4 (local.get $row))))
                  (i64.add
                    (i64.popcnt (i64.xor (local.get $q7) (i64.load offset=56 align=4 (local.get $row))))
                    (i64.popcnt (i64.xor (local.get $q8) (i64.load offset=64 align=4 (local.get $row))))))
                (i64.add
                  (i64.popcnt (i64.xor (local.get $q9) (i64.load offset=72 align=4 (local.get $row))))
                  (i64.add
                    (i64.popcnt (i64.xor (local.get $q10) (i64.load offset=80 align=4 (local.get $row))))
                    (i64.popcnt (i64.xor (local.get $q11) (i64.load offset=88 align=4 (local.get $row))))))))))
        (local.set $out (i32.add (local.get $out) (i32.const 2)))
        (local.set $rows (i32.add (local.get $rows) (i32.const 4)))
        (br $next))))

  ;; For each of `count` vectors of `dimensions` f32 values laid end to end from `vectors`, writes its cosine with the
  ;; query's (at `query`) as an f64 from `out`: NaN when either vector is all zeros (it has no direction). Products are
  ;; summed in f64, four values at a time, each vector read once for its dot product with the query and its norm. The
  ;; loop is written out in full: V8 does not inline calls, and a call per four values costs more than their arithmetic.
  (func (export "cosines") (param $query i32) (param $vectors i32) (param $count i32) (param $dimensions i32) (param $out i32)
    (local $queryNorm f64) (local $vector i32) (local $end i32) (local $stride i32) (local $wide i32) (local $offset i32)
    (local $dots v128) (local $norms v128) (local $values v128) (local $low v128) (local $high v128)
    (local $queryLow v128) (local $queryHigh v128) (local $dot f64) (local $norm f64) (local $value f64) (local $queryValue f64)
    (local.set $stride (i32.shl (local.get $dimensions) (i32.const 2)))
    (local.set $wide (i32.and (local.get $stride) (i32.const -16)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $offset) (local.get $stride)))
        (local.set $value (f64.promote_f32 (f32.load (i32.add (local.get $query) (local.get $offset)))))
        (local.set $queryNorm (f64.add (local.get $queryNorm) (f64.mul (local.get $value) (local.get $value))))
        (local.set $offset (i32.add (local.get $offset) (i32.const 4)))
        (br $next)))
    (local.set $vector (local.get $vectors))
    (local.set $end (i32.add (local.get $vectors) (i32.mul (local.get $count) (local.get $stride))))
    (block $rowsDone
      (loop $row
        (br_if $rowsDone (i32.ge_u (local.get $vector) (local.get $end)))
        (local.set $dots (f64x2.splat (f64.const 0)))
        (local.set $norms (f64x2.splat (f64.const 0)))
        (local.set $offset (i32.const 0))
        (block $wideDone
          (loop $wideNext
            (br_if $wideDone (i32.ge_u (local.get $offset) (local.get $wide)))
            (local.set $values (v128.load align=4 (i32.add (local.get $query) (local.get $offset))))
            (local.set $queryLow (f64x2.promote_low_f32x4 (local.get $values)))
            (local.set $queryHigh (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $values) (local.get $values))))
            (local.set $values (v128.load align=4 (i32.add (local.get $vector) (local.get $offset))))
            (local.set $low (f64x2.promote_low_f32x4 (local.get $values)))
            (local.set $high (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $values) (local.get $values))))
            (local.set $dots
              (f64x2.add (local.get $dots)
                (f64x2.add (f64x2.mul (local.get $low) (local.get $queryLow)) (f64x2.mul (local.get $high) (local.get $queryHigh)))))
            (local.set $norms
              (f64x2.add (local.get $norms)
                (f64x2.add (f64x2.mul (local.get $low) (local.get $low)) (f64x2.mul (local.get $high) (local.get $high)))))
            (local.set $offset (i32.add (local.get $offset) (i32.const 16)))
            (br $wideNext)))
        (local.set $dot (f64.add (f64x2.extract_lane 0 (local.get $dots)) (f64x2.extract_lane 1 (local.get $dots))))
        (local.set $norm (f64.add (f64x2.extract_lane 0 (local.get $norms)) (f64x2.extract_lane 1 (local.get $norms))))
        (block $tailDone
          (loop $tail
            (br_if $tailDone (i32.ge_u (local.get $offset) (local.get $stride)))
            (local.set $value (f64.promote_f32 (f32.load (i32.add (local.get $vector) (local.get $offset)))))
            (local.set $queryValue (f64.promote_f32 (f32.load (i32.add (local.get $query) (local.get $offset)))))
            (local.set $dot (f64.add (local.get $dot) (f64.mul (local.get $value) (local.get $queryValue))))
            (local.set $norm (f64.add (local.get $norm) (f64.mul (local.get $value) (local.get $value))))
            (local.set $offset (i32.add (local.get $offset) (i32.const 4)))
            (br $tail)))
        (f64.store (local.get $out)
          (select
            (f64.const nan)
            (f64.div (local.get $dot) (f64.sqrt (f64.mul (local.get $queryNorm) (local.get $norm))))
            (i32.or (f64.eq (local.get $queryNorm) (f64.const 0)) (f64.eq (local.get $norm) (f64.const 0)))))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (local.set $vector (i32.add (local.get $vector) (local.get $stride)))
        (br $row))))

  ;; For each of `count` rows whose 8-bit codes start at the byte addresses listed (u32) from `rows`, writes the cosine
  ;; of its code with the query's (at `query`) as an f64 from `out`: NaN when either code is all zeros. Codes are
  ;; `bytes` long (a multiple of 16, zero-padded); each 16 are widened to 16 bits and multiplied in pairs (one
  ;; instruction per eight products on x86-64 and arm64), summed exactly, in 32-bit lanes.
  (func (export "codeCosines") (param $query i32) (param $rows i32) (param $count i32) (param $bytes i32) (param $out i32)
    (local $end i32) (local $row i32) (local $offset i32) (local $values v128) (local $queryValues v128) (local $low v128) (local $high v128)
    (local $dots v128) (local $norms v128) (local $queryNorm f64) (local $dot f64) (local $norm f64)
    (local.set $norms (i32x4.splat (i32.const 0)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $offset) (local.get $bytes)))
        (local.set $values (v128.load (i32.add (local.get $query) (local.get $offset))))
        (local.set $low (i16x8.extend_low_i8x16_s (local.get $values)))
        (local.set $high (i16x8.extend_high_i8x16_s (local.get $values)))
        (local.set $norms
          (i32x4.add (local.get $norms)
            (i32x4.add (i32x4.dot_i16x8_s (local.get $low) (local.get $low)) (i32x4.dot_i16x8_s (local.get $high) (local.get $high)))))
        (local.set $offset (i32.add (local.get $offset) (i32.const 16)))
        (br $next)))
    (local.set $queryNorm
      (f64.convert_i32_s
        (i32.add
          (i32.add (i32x4.extract_lane 0 (local.get $norms)) (i32x4.extract_lane 1 (local.get $norms)))
          (i32.add (i32x4.extract_lane 2 (local.get $norms)) (i32x4.extract_lane 3 (local.get $norms))))))
    (local.set $end (i32.add (local.get $rows) (i32.shl (local.get $count) (i32.const 2))))
    (block $rowsDone
      (loop $nextRow
        (br_if $rowsDone (i32.ge_u (local.get $rows) (local.get $end)))
        (local.set $row (i32.load (local.get $rows)))
        (local.set $dots (i32x4.splat (i32.const 0)))
        (local.set $norms (i32x4.splat (i32.const 0)))
        (local.set $offset (i32.const 0))
        (block $codeDone
          (loop $codeNext
            (br_if $codeDone (i32.ge_u (local.get $offset) (local.get $bytes)))
            (local.set $queryValues (v128.load (i32.add (local.get $query) (local.get $offset))))
            (local.set $values (v128.load (i32.add (local.get $row) (local.get $offset))))
            (local.set $low (i16x8.extend_low_i8x16_s (local.get $values)))
            (local.set $high (i16x8.extend_high_i8x16_s (local.get $values)))
            (local.set $dots
              (i32x4.add (local.get $dots)
                (i32x4.add
                  (i32x4.dot_i16x8_s (local.get $low) (i16x8.extend_low_i8x16_s (local.get $queryValues)))
                  (i32x4.dot_i16x8_s (local.get $high) (i16x8.extend_high_i8x16_s (local.get $queryValues))))))
            (local.set $norms
              (i32x4.add (local.get $norms)
                (i32x4.add (i32x4.dot_i16x8_s (local.get $low) (local.get $low)) (i32x4.dot_i16x8_s (local.get $high) (local.get $high)))))
            (local.set $offset (i32.add (local.get $offset) (i32.const 16)))
            (br $codeNext)))
        (local.set $dot
          (f64.convert_i32_s
            (i32.add
              (i32.add (i32x4.extract_lane 0 (local.get $dots)) (i32x4.extract_lane 1 (local.get $dots)))
              (i32.add (i32x4.extract_lane 2 (local.get $dots)) (i32x4.extract_lane 3 (local.get $dots))))))
        (local.set $norm
          (f64.convert_i32_s
            (i32.add
              (i32.add (i32x4.extract_lane 0 (local.get $norms)) (i32x4.extract_lane 1 (local.get $norms)))
              (i32.add (i32x4.extract_lane 2 (local.get $norms)) (i32x4.extract_lane 3 (local.get $norms))))))
        (f64.store (local.get $out)
          (select
            (f64.const nan)
            (f64.div (local.get $dot) (f64.sqrt (f64.mul (local.get $queryNorm) (local.get $norm))))
            (i32.or (f64.eq (local.get $queryNorm) (f64.const 0)) (f64.eq (local.get $norm) (f64.const 0)))))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (local.set $rows (i32.add (local.get $rows) (i32.const 4)))
        (br $nextRow)))))
