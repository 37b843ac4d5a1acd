"""kjudge as a verl custom reward function. Point verl at this file:

    custom_reward_function.path=clients/python/examples/rewards_verl.py
    custom_reward_function.name=compute_score
    # with reward_model.reward_manager=batch, verl calls it once per batch (faster: one kjudge batch)

Each data row's `reward_model.ground_truth` holds the kjudge problem name (e.g.
"kernelbench/level1/19_ReLU") and its prompt the problem's prompt (kjudge problem NAME shows it).
The server and key come from $KJUDGE_SERVER and $KJUDGE_API_KEY.

verl calls compute_score(data_source, solution_str, ground_truth, extra_info) per sample, or
compute_score(data_sources=, solution_strs=, ground_truths=, extra_infos=) with the batch manager.

    python clients/python/examples/rewards_verl.py --demo     # scores one canned answer
"""

import argparse

from kjudge.rewards import verl_compute_score

compute_score = verl_compute_score(tags={"run": "verl-1"}, deadline=600)

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="kjudge reward for verl (demo)")
    parser.add_argument("--demo", action="store_true")
    if parser.parse_args().demo:
        import kjudge
        with kjudge.Client() as kj:
            starter = kj.problem("level1/19_ReLU").starter_file
        demo = verl_compute_score(compile_only=True, deadline=120, tags={"run": "verl-demo"})
        print(demo("kjudge", f"```cuda\n{starter}```", "level1/19_ReLU", {}))
