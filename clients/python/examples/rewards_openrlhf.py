"""kjudge as an OpenRLHF reward function:

    --remote_rm_url clients/python/examples/rewards_openrlhf.py --label_key problem

OpenRLHF calls reward_func(queries, prompts, labels) with each query = prompt + response and
labels from the dataset's `problem` field (the kjudge problem name); it gets {"rewards",
"scores" (1 for CORRECT, else 0: for dynamic filtering), "extra_logs"}. The server and key come
from $KJUDGE_SERVER and $KJUDGE_API_KEY.

    python clients/python/examples/rewards_openrlhf.py --demo     # scores one canned answer
"""

import argparse

from kjudge.rewards import openrlhf_reward_func

reward_func = openrlhf_reward_func(tags={"run": "openrlhf-1"}, deadline=600)

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="kjudge reward for OpenRLHF (demo)")
    parser.add_argument("--demo", action="store_true")
    if parser.parse_args().demo:
        import kjudge
        with kjudge.Client() as kj:
            starter = kj.problem("level1/19_ReLU").starter_file
        demo = openrlhf_reward_func(compile_only=True, deadline=120, tags={"run": "openrlhf-demo"})
        print(demo(queries=["PROMPT" + f"```cuda\n{starter}```"], prompts=["PROMPT"], labels=["level1/19_ReLU"]))
