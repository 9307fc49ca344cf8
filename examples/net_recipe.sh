#!/usr/bin/env bash
# Rebuild the shipped network (agents/net_policy.npz, load_agent("net")) from
# nothing, and measure it as the bot ladder of docs/bots.md does. Run from the repository
# root with the project installed with the [train] extra (make .venv; source
# .venv/bin/activate):
#
#     bash examples/net_recipe.sh [OUT]          # OUT defaults to runs/net; WORKERS=2 by default
#
# Every step is resumable: rerunning the script after a stop or a crash skips the PIMC
# shards already written and goes on from the PPO run's newest checkpoint. How long each
# step took when the shipped file was made: docs/EXPERIMENTS.md, "Making net".
set -euo pipefail
OUT=${1:-runs/net}
WORKERS=${WORKERS:-2}
mkdir -p "$OUT"

# 1. search data: 86 shards (25,093 positions) of play, every position labelled by PIMC
#    with uniform worlds; shard k is the same file whatever the number of workers
widderkopf-distill generate --out "$OUT/data" --shards 86 --seed 1 --matches 4 \
    --expert pimc-uniform --workers "$WORKERS"

# 2. imitation, starting from the shipped PPO policy's weights (the architecture of both)
if [ ! -f "$OUT/distilled.npz" ]; then
    widderkopf-distill train --data "$OUT/data" --out "$OUT/distilled.npz" \
        --init ppo --net-arch 256,256 --lr 3e-5 --epochs 8 \
        --soft 0.8 --tau 8
fi

# 3. PPO fine-tuning against the heuristic: 3M steps, then on to 8M (the shipped run was
#    made in these two legs; --resume re-seeds the envs at the step it resumes from, so a
#    first leg stopped early and finished by the second is a different, equivalent run)
ppo=(--out "$OUT/ppo" --no-progress-bar)
if [ ! -f "$OUT/ppo/config.json" ]; then
    widderkopf-train "${ppo[@]}" --init "$OUT/distilled.npz" --total-steps 3000000 \
        --lr 1e-4 --lr-schedule constant --eval-every 500000 --eval-pairs 300 \
        --final-eval-pairs 2000 --seed 1
fi
widderkopf-train "${ppo[@]}" --resume --total-steps 8000000

# 4. self-play: 3M steps against the learner's snapshots, the heuristic (50%) and the
#    random bot (10%)
sp=(--out "$OUT/self-play" --no-progress-bar)
if [ ! -f "$OUT/self-play/config.json" ]; then
    widderkopf-train "${sp[@]}" --init "$OUT/ppo/final_policy.npz" --self-play \
        --total-steps 3000000 --lr 1e-4 --lr-schedule constant --eval-every 1000000 \
        --eval-pairs 300 --seed 4
elif [ ! -f "$OUT/self-play/final_policy.npz" ]; then  # stopped part-way: go on
    widderkopf-train "${sp[@]}" --resume --total-steps 3000000
fi
cp "$OUT/self-play/final_policy.npz" "$OUT/policy.npz"

# 5. exact-value data for the card-value network: the policy (sampling its moves) against the
#    heuristic, every legal card of every card decision with at most 12 tricks left valued
#    exactly in the true deal (1,457,519 + 212,555 positions)
values=(--policy "$OUT/policy.npz" --workers "$WORKERS")
widderkopf-values data --out "$OUT/values/1-8" --shards 116 --games 1000 --tricks 1 8 \
    --seed 11 "${values[@]}"
widderkopf-values data --out "$OUT/values/9-12" --shards 100 --games 300 --tricks 9 12 \
    --seed 12 "${values[@]}"

# 6. the card-value network (plays the cards of the last 12 tricks), written with the
#    policy as one agent file: the shipped agents/net_policy.npz
if [ ! -f "$OUT/net.npz" ]; then
    widderkopf-values fit --data "$OUT/values/1-8" "$OUT/values/9-12" \
        --policy "$OUT/policy.npz" --out "$OUT/net.npz" --tricks 12 --epochs 10
fi

# 7. the ladder rows (any .npz network file is an agent)
widderkopf-eval "$OUT/net.npz" heuristic --pairs 2000 --seed 2026 --workers "$WORKERS"
widderkopf-eval "$OUT/net.npz" ppo --pairs 2000 --seed 2026 --workers "$WORKERS"
widderkopf-eval "$OUT/net.npz" pimc --pairs 500 --seed 2026 --workers "$WORKERS"
