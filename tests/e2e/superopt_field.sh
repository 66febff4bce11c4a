#!/usr/bin/env bash
# `axle equiv` can be trusted by a search: the field's primes are drawn
# per run, so what fooled the old fixed pair (p = 4294967087, q = 2147483543) — constants
# that differ by a multiple of p·q or of q under an exp, a graph that relies on Fermat's
# little theorem in Zq — is told apart (and, with `--primes` set to the old pair, shown to
# fool it); a square-root law (sqrt(x)·sqrt(x) = x) is never called "not equivalent";
# --jobs does not change a verdict; the search's fast path rejects every mutant at the
# scaled instance and accepts the hand-written graph.
set -u
cd "$AXLE_SRC" || exit 1
source tests/e2e/lib.bash
OLD=4294967087,2147483543
run() { "$AXLE" equiv "$@" >"$tmp/out" 2>&1; echo $? >"$tmp/st"; }
st() { [ "$(cat "$tmp/st")" -eq "$1" ]; }

cat >"$tmp/p.axl" <<'AXL'
program p {
  input X : f32[4, 8]
  output O = exp(X * 2)
  output E = X * 1
}
AXL
# 2147483545 = 2 + q_old; 9223371137059149242 = 1 + p_old * q_old
cat >"$tmp/m.mug" <<'MUG'
mugraph p {
  input X : f32[4, 8]
  t = mul(X, 2147483545)
  O = exp(t)
  E = mul(X, 9223371137059149242)
  output O, E
}
MUG
run "$tmp/p.axl" "$tmp/m.mug" --float-tests 0 --primes $OLD --seed 1
check "the old fixed pair is fooled by constants off by a multiple of p or q" st 0
for seed in 1 2 3; do
  run "$tmp/p.axl" "$tmp/m.mug" --float-tests 0 --seed $seed
  check "constants off by a multiple of the old p or q: not equivalent (seed $seed)" st 1
  check "the drawn primes are printed (seed $seed)" has "$tmp/out" "(drawn from the seed); seed $seed"
  check "the difference is reported (seed $seed)" has "$tmp/out" "^not equivalent: output"
done

# Fermat in Zq: x^q_old = x mod q_old, so exp(x^q_old) = exp(x) on the p side of the old pair.
{
  echo "program f {"
  echo "  input X : f32[4]"
  echo "  let a0 = X"
  q=2147483543 i=0 acc=""
  while [ "$q" -gt 0 ]; do
    if [ $((q & 1)) -eq 1 ]; then
      if [ -z "$acc" ]; then acc="a$i"; else echo "  let r$i = $acc * a$i"; acc="r$i"; fi
    fi
    q=$((q >> 1))
    [ "$q" -gt 0 ] && echo "  let a$((i + 1)) = a$i * a$i"
    i=$((i + 1))
  done
  echo "  output O = exp($acc)"
  echo "}"
} >"$tmp/f.axl"
cat >"$tmp/f.mug" <<'MUG'
mugraph f {
  input X : f32[4]
  O = exp(X)
  output O
}
MUG
run "$tmp/f.axl" "$tmp/f.mug" --float-tests 0 --primes $OLD --seed 4
check "the old fixed pair is fooled by Fermat's little theorem" st 0
run "$tmp/f.axl" "$tmp/f.mug" --float-tests 0 --seed 4
check "a graph relying on Fermat's little theorem is not equivalent" st 1

# sqrt(a)·sqrt(a) = a: the uninterpreted reading differs, the reals do not.
cat >"$tmp/s.axl" <<'AXL'
program s {
  input X : f32[4, 8]
  let A = X * X + 1
  output O = sqrt(A) * sqrt(A)
}
AXL
cat >"$tmp/s.mug" <<'MUG'
mugraph s {
  input X : f32[4, 8]
  a = mul(X, X)
  O = add(a, 1)
  output O
}
MUG
sed 's/add(a, 1)/add(a, 2)/' "$tmp/s.mug" >"$tmp/s2.mug"
run "$tmp/s.axl" "$tmp/s.mug" --seed 5
check "sqrt(x)*sqrt(x) = x is not rejected, nor established: exit 2" st 2
check "... the doubles' agreement said, as evidence, not a proof" has "$tmp/out" \
  "^not established: the field tests differ where sqrt is read as an uninterpreted function and the doubles agree"
run "$tmp/s.axl" "$tmp/s.mug" --seed 5 --require-bound
check "... --require-bound: exit 2 too" st 2
run "$tmp/s.axl" "$tmp/s.mug" --seed 5 --field-only
check "... and --field-only (what the search uses) does not establish it: exit 2" st 2
check "... saying why" has "$tmp/out" "^not established: the field tests differ"
run "$tmp/s.axl" "$tmp/s2.mug" --seed 5
check "a wrong graph with a square root is still not equivalent" st 1
check "... a witness replayed in interval arithmetic" has "$tmp/out" "replayed in interval arithmetic"

# --jobs: the same verdicts and the same report of the failing test.
ex=superopt/examples
run $ex/lora.axl $ex/mutants/lora.sub-for-add.mug --seed 6 --jobs 1
cp "$tmp/out" "$tmp/j1"
run $ex/lora.axl $ex/mutants/lora.sub-for-add.mug --seed 6 --jobs 2
check "--jobs 2 finds the difference --jobs 1 finds" st 1
check "... in the same test" cmp -s <(grep '^not equivalent' "$tmp/j1") <(grep '^not equivalent' "$tmp/out")
run "$tmp/p.axl" "$tmp/m.mug" --jobs 0
check "--jobs 0 is a usage error" st 3
run "$tmp/p.axl" "$tmp/m.mug" --primes 7,3
check "--primes with unusable primes is a usage error" st 3

# The search's fast path: every mutant is rejected at the scaled instance.
run --candidates $ex/lora.axl $ex/lora.mug $ex/mutants/lora.*.mug --seed 7
check "--candidates: a mutant is not equivalent, so exit 1" st 1
check "the hand-written graph passes the filter and the full check" has "$tmp/out" "^superopt/examples/lora.mug: equivalent (scale"
n=$(ls $ex/mutants/lora.*.mug | wc -l)
check "every mutant is rejected at the scaled instance" [ "$(count "$tmp/out" 'not equivalent at the scaled instance')" -eq "$n" ]

echo "superopt field: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
