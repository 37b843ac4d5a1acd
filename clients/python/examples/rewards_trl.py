"""kjudge as a TRL reward (GRPOTrainer). The dataset has a `prompt` column (the problem's prompt)
and a `problem` column (its kjudge name); each completion's reward comes from kjudge.

    python clients/python/examples/rewards_trl.py --server 127.0.0.1:50051 --demo   # no TRL needed

With TRL installed (the training part; not run by --demo):

    from trl import GRPOConfig, GRPOTrainer
    trainer = GRPOTrainer(model="Qwen/Qwen2.5-Coder-7B-Instruct", train_dataset=dataset(kj),
                          reward_funcs=[kjudge_reward], args=GRPOConfig(output_dir="out"))
    trainer.train()

TRL calls kjudge_reward(prompts=[...], completions=[...], problem=[...], ...) once per batch and
gets one float per completion: -1 no code, -0.5 compile error, 0 wrong, 0.1 compiled (compile-only
workers), 1 + ln(speedup) correct (at least 0.5); see kjudge.rewards.RewardShaping.
"""

import argparse

import kjudge
from kjudge.rewards import trl_reward_function

# Tags per batch: every job carries them, so `kjudge stats --tag run=grpo-1` and the dashboard
# show how the run is doing. deadline: a batch never waits longer than this for verdicts.
kjudge_reward = trl_reward_function(problem_column="problem", tags={"run": "grpo-1"}, deadline=600)


def dataset(kj: kjudge.Client, prefix: str = "level1/"):
    """Rows {"prompt", "problem"} for every problem under `prefix` (a datasets.Dataset in TRL)."""
    rows = [{"prompt": kj.problem(p.name).prompt, "problem": p.name}
            for p in kj.problems() if p.name.startswith(prefix)]
    try:
        from datasets import Dataset
        return Dataset.from_list(rows)
    except ImportError:
        return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", default=None)
    parser.add_argument("--demo", action="store_true", help="score two canned answers, as TRL would")
    args = parser.parse_args()
    if args.demo:
        with kjudge.Client(args.server) as kj:
            starter = kj.problem("level1/19_ReLU").starter_file
            reward = trl_reward_function(client=kj, compile_only=True, deadline=120, tags={"run": "trl-demo"})
            print(reward(prompts=["", ""], completions=[f"```cuda\n{starter}```", "no idea"],
                         problem=["level1/19_ReLU"] * 2))


if __name__ == "__main__":
    main()
