#!/usr/bin/env bash
# mpk-stack-figures.sh — the simulator's modelled figures for a decoder stack (docs/mpk.md, "A decoder stack"):
# `axle mpk --simulate` on 1 and 4 layers of tests/mpk/decoder_layer.mug (LLaMA-like, hidden
# 2048, one token) on the H100 and the A100, as a Markdown table. Every figure is modelled
# by axle's cost model, none measured.
#   tools/mpk-stack-figures.sh [AXLE]     (default build/axle)
set -eu
axle=${1:-build/axle}
layer=tests/mpk/decoder_layer.mug
echo "| target | layers | tasks | events | megakernel µs | per-kernel µs | bound µs | per-kernel / megakernel | megakernel / bound |"
echo "|---|---|---|---|---|---|---|---|---|"
for t in h100 a100; do
  for n in 1 4; do
    "$axle" mpk "$layer" --layers "$n" --simulate --target "$t" --format json |
      jq -r --arg n "$n" '"| \(.target) | \($n) | \(.tasks) | \(.events) | \(.megakernel_us * 10 | round / 10) | \(.per_kernel_us * 10 | round / 10) | \(.bound_us * 10 | round / 10) | \(.per_kernel_us / .megakernel_us * 100 | round / 100)× | \(.megakernel_us / .bound_us * 100 | round / 100)× |"'
  done
done
