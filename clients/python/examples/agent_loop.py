#!/usr/bin/env python3
"""An agent loop on kjudge: keep --in-flight submissions (64) in flight, turn each verdict into a
reward, and print a JSON summary.

propose() stands in for your model: it gets the problem (its .prompt is the LLM-ready task) and
the results so far, and returns a .cu file. Here it fills in the catalog's starter with a random
block size and, like a model, now and then writes code that does not compile, so the loop runs
without a model. Each submission carries an idempotency key "<run>/<n>": rerunning a crashed
loop with the same --run returns the jobs already judged instead of judging them twice.

    python3 clients/python/examples/agent_loop.py --server 127.0.0.1:50051 --count 256
    python3 clients/python/examples/agent_loop.py --compile-only   # a worker without a GPU
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import math
import random
import re
import time
import uuid
from typing import Dict, List, Optional

import kjudge


def propose(problem: kjudge.Problem, history: List[dict], rng: random.Random) -> str:
    """Your model goes here. This stand-in edits the starter's launch plan and kernel body."""
    block = rng.choice([64, 128, 256, 512, 1024])
    source = re.sub(r"\b256\b", str(block), problem.starter_file)  # the starter's block size
    source = source.replace("// TODO: compute Y[i] from X[i].", "Y[i] = fmaxf(X[i], 0.0f);")
    if rng.random() < 0.15:
        source += "\nthis line is not CUDA\n"  # models write broken code too
    return source


def reward(job: kjudge.Job, baseline: Optional[str]) -> float:
    """CORRECT: 1 + log2(speedup against `baseline`, default the strongest one measured; 1 when
    none was); COMPILED (compile-only): 0.1; anything else 0."""
    if job.verdict == kjudge.Verdict.CORRECT:
        speedup = job.speedup(baseline)
        return 1.0 + math.log2(speedup) if speedup else 1.0
    return 0.1 if job.verdict == kjudge.Verdict.COMPILED else 0.0


async def run(args: argparse.Namespace) -> Dict[str, object]:
    rng = random.Random(args.seed)
    history: List[dict] = []
    verdicts: collections.Counter = collections.Counter()
    in_flight = 0
    most_in_flight = 0
    slots = asyncio.Semaphore(args.in_flight)
    start = time.monotonic()
    async with kjudge.AsyncClient(args.server, api_key=args.api_key, tls_ca=args.tls_ca) as kj:
        problem = await kj.problem(args.problem)

        async def one(n: int) -> None:
            nonlocal in_flight, most_in_flight
            async with slots:  # a slot frees as soon as a verdict comes back
                source = propose(problem, history, rng)
                in_flight += 1
                most_in_flight = max(most_in_flight, in_flight)
                try:
                    job = await kj.evaluate(problem.name, source, compile_only=args.compile_only,
                                            tags={"run": args.run, "agent": "agent_loop"},
                                            idempotency_key=f"{args.run}/{n}", timeout=args.timeout)
                except kjudge.KjudgeError as e:  # refused after retries, unreachable, ...
                    verdicts[f"error:{type(e).__name__}"] += 1
                    return
                finally:
                    in_flight -= 1
                verdicts[job.verdict.value] += 1
                history.append({"n": n, "job": job.id, "verdict": job.verdict.value,
                                "reward": reward(job, args.baseline), "message": job.message})

        await asyncio.gather(*(one(n) for n in range(args.count)))
        stats = await kj.stats(tags={"run": args.run}, baseline=args.baseline)
    best = max(history, key=lambda h: h["reward"], default=None)
    return {
        "run": args.run,
        "problem": args.problem,
        "submitted": args.count,
        "judged": len(history),
        "most_in_flight": most_in_flight,
        "verdicts": dict(verdicts),
        "mean_reward": sum(h["reward"] for h in history) / len(history) if history else 0.0,
        "best": best,
        "stats": {"jobs": stats.jobs, "correct": stats.correct, "geomean_speedup": stats.geomean_speedup,
                  "baseline": stats.baseline},
        "seconds": round(time.monotonic() - start, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default=None, help="kjudge-server host:port (env KJUDGE_SERVER)")
    parser.add_argument("--api-key", default=None, help="API key (env KJUDGE_API_KEY)")
    parser.add_argument("--tls-ca", default=None, help="PEM file: connect with TLS, trusting this CA")
    parser.add_argument("--problem", default="level1/19_ReLU")
    parser.add_argument("--count", type=int, default=256, help="submissions in all")
    parser.add_argument("--in-flight", type=int, default=64, help="submissions waiting for a verdict at once")
    parser.add_argument("--compile-only", action="store_true", help="only compile (workers without a GPU)")
    parser.add_argument("--baseline", default=None,
                        help="baseline for rewards and stats (default: rewards use each job's strongest "
                             "baseline measured, stats the server's default)")
    parser.add_argument("--run", default=f"agent-{uuid.uuid4().hex[:8]}", help="run tag; also the idempotency key prefix")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds one evaluation may take")
    parser.add_argument("--seed", type=int, default=7)
    print(json.dumps(asyncio.run(run(parser.parse_args())), indent=2))


if __name__ == "__main__":
    main()
