#!/usr/bin/env bash
# The arena runs behind docs/strength.md.  Usage:
#   benchmarks/strength.sh ladder   OUTDIR   # random < beginner < intermediate < expert, reproducible
#                                            # (iteration budgets), online and partners
#   benchmarks/strength.sh default  OUTDIR   # the expert at its default think time against
#                                            # intermediate (online, partners) and against flat
#                                            # Monte-Carlo at the same think time; wants many cores
#   benchmarks/strength.sh twodeck  OUTDIR   # expert − intermediate with two decks (online2,
#                                            # partners2), reproducible (50 worlds per decision)
#   benchmarks/strength.sh endgame  OUTDIR   # the expert solving its last four tricks exactly
#                                            # against the plain expert (online, partners),
#                                            # reproducible (100 worlds per decision)
#   benchmarks/strength.sh learned  OUTDIR   # the learned level against intermediate (online,
#                                            # partners), the expert on the same deals and the
#                                            # learned level's share of its margin (share.py),
#                                            # the expert taking one kind of the learned level's
#                                            # decisions (learned-expert-KIND) on them, the
#                                            # policy against the action values and the logits
#                                            # alone, and the expert weighing its worlds by the
#                                            # network against the plain expert at the same
#                                            # think time (THINK, 0.05 s), with its weights as
#                                            # they are and flattened (expert-weighted-soft)
# GONGZHU="python -m gongzhu.cli.main", PYTHON and JOBS=N may be set; each run writes
# OUTDIR/<name>.json (and, where the script needs its games, OUTDIR/<name>.jsonl).
set -euo pipefail
mode=${1:?ladder, default, twodeck, endgame or learned}
out=${2:?output folder}
mkdir -p "$out"
gz=${GONGZHU:-gongzhu}
jobs=${JOBS:-2}
arena() {  # name, then arena arguments
    local name=$1; shift
    echo "== $name: $gz arena $* --duplicate --json" >&2
    $gz arena "$@" --duplicate --json --no-progress > "$out/$name.json"
}
case $mode in
ladder)
    for preset in online partners; do
        if [ $preset = online ]; then
            b=beginner,random,random,random; i=intermediate,beginner,beginner,beginner
            e=expert,intermediate,intermediate,intermediate
        else  # teams: the first level sits N–S, the second E–W; rotations swap them
            b=beginner,random,beginner,random; i=intermediate,beginner,intermediate,beginner
            e=expert,intermediate,expert,intermediate
        fi
        arena "$preset-beginner-random" --players $b --preset $preset --deals 1000 --seed 1 --jobs "$jobs"
        arena "$preset-intermediate-beginner" --players $i --preset $preset --deals 1000 --seed 2 --jobs "$jobs"
        arena "$preset-expert-intermediate" --players $e --preset $preset --deals 200 --seed 3 \
            --iterations 150 --jobs "$jobs"
    done
    ;;
default)
    arena online-expert-intermediate-default --players expert,intermediate,intermediate,intermediate \
        --preset online --deals "${DEALS1:-160}" --seed 11 --jobs "${JOBS1:-$jobs}" &
    arena online-expert-flatmc-default --players expert,flatmc,flatmc,flatmc \
        --preset online --deals "${DEALS2:-40}" --seed 12 --jobs "${JOBS2:-$jobs}" &
    arena partners-expert-intermediate-default --players expert,intermediate,expert,intermediate \
        --preset partners --deals "${DEALS3:-60}" --seed 13 --jobs "${JOBS3:-$jobs}" &
    wait
    ;;
twodeck)
    arena online2-expert-intermediate --players expert,intermediate,intermediate,intermediate \
        --preset online2 --deals 150 --seed 31 --iterations 50 --jobs "$jobs"
    arena partners2-expert-intermediate --players expert,intermediate,expert,intermediate \
        --preset partners2 --deals 150 --seed 32 --iterations 50 --jobs "$jobs"
    ;;
endgame)  # the research level sits N–S, the plain expert E–W; rotations swap them
    for preset in online partners; do
        seed=$([ $preset = online ] && echo 51 || echo 52)
        arena "$preset-expert-endgame4" --players expert-endgame4,expert,expert-endgame4,expert \
            --preset $preset --deals "${DEALS:-300}" --seed "$seed" --iterations 100 --jobs "$jobs"
    done
    ;;
learned)
    arena online-learned-intermediate --players learned,intermediate,intermediate,intermediate \
        --preset online --deals "${DEALS1:-1000}" --seed 61 --jobs "$jobs" --out "$out/online-learned-intermediate.jsonl"
    arena partners-learned-intermediate --players learned,intermediate,learned,intermediate \
        --preset partners --deals "${DEALS1:-1000}" --seed 62 --jobs "$jobs"
    arena online-learned-values-intermediate --players learned-values,intermediate,intermediate,intermediate \
        --preset online --deals "${DEALS1:-1000}" --seed 61 --jobs "$jobs"
    arena online-learned-policy-intermediate --players learned-policy,intermediate,intermediate,intermediate \
        --preset online --deals "${DEALS1:-1000}" --seed 61 --jobs "$jobs"
    # The expert on the learned level's online deals (the same seed deals them), and the learned
    # level's margin as a share of the expert's on those deals.
    arena online-expert-intermediate-61 --players expert,intermediate,intermediate,intermediate \
        --preset online --deals "${DEALS1:-1000}" --seed 61 --iterations 150 --jobs "$jobs" \
        --out "$out/online-expert-intermediate-61.jsonl"
    ${PYTHON:-python} "$(dirname "$0")/share.py" "$out/online-learned-intermediate.jsonl" \
        "$out/online-expert-intermediate-61.jsonl" --json > "$out/online-learned-share.json"
    # The learned level with the expert taking one kind of its decisions, on the same deals, and
    # its gain over the learned level deal by deal.
    for kind in declare lead follow discard; do
        arena online-learned-expert-$kind --players learned-expert-$kind,intermediate,intermediate,intermediate \
            --preset online --deals "${DEALS1:-1000}" --seed 61 --iterations 150 --jobs "$jobs" \
            --out "$out/online-learned-expert-$kind.jsonl"
        ${PYTHON:-python} "$(dirname "$0")/share.py" "$out/online-learned-expert-$kind.jsonl" \
            "$out/online-learned-intermediate.jsonl" --target 1 --json > "$out/online-learned-expert-$kind-gain.json"
    done
    arena online-expert-weighted --players expert-weighted,expert,expert-weighted,expert \
        --preset online --deals "${DEALS3:-600}" --seed 63 --think "${THINK:-0.05}" --jobs "$jobs"
    arena online-expert-weighted-soft --players expert-weighted-soft,expert,expert-weighted-soft,expert \
        --preset online --deals "${DEALS4:-300}" --seed 63 --think "${THINK:-0.05}" --jobs "$jobs"
    ;;
*)
    echo "unknown mode $mode: ladder, default, twodeck, endgame or learned" >&2
    exit 2
    ;;
esac
