"""The browser table's speed: seconds from ``widderkopf-play --web --no-browser`` to its
first page, and milliseconds per move through the HTTP API.

    python bench/web.py [--runs N] [--moves M] [--full]

First page: the command is started ``--runs`` times (``--no-record``, a free port); the
time runs from the start of the process to the end of the first ``GET`` of the printed
address. Moves: the human's moves of whole matches against ``heuristic`` posted to
``/api/move`` (each answer holds the table picture and the bot's replies) until
``--moves`` were made; the mean wall-clock time per request.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from bench_args import parse

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from web_client import Client, running_table  # noqa: E402  (tests/web_client.py)

from widderkopf_env.agents.web_play import TableConfig  # noqa: E402
from widderkopf_env.registry import load_agent  # noqa: E402


def first_page() -> float:
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "widderkopf_env.agents.play_cli", "--web",
                             "--no-browser", "--no-record"], stdout=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().split(": ", 1)[1].strip()
        with urllib.request.urlopen(url, timeout=60) as response:
            response.read()
        return time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(30)


def move_seconds(moves: int) -> float:
    config = TableConfig(opponent="heuristic", make_bot=lambda: load_agent("heuristic"),
                         hands=4, seed=0)
    made, seconds = 0, 0.0
    with running_table(config) as server:
        client = Client(server)
        state = client.state()
        while made < moves:
            if state["over"]:
                state = client.call("/api/new", {"match": state["match"]})
                continue
            body = {"step": state["step"], "action": state["legal"][0]["action"]}
            t0 = time.perf_counter()
            status, raw = client.post("/api/move", body)
            seconds += time.perf_counter() - t0
            state, made = json.loads(raw), made + 1
    return seconds / made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--moves", type=int, default=20)
    args = parse(parser, None, runs=10, moves=200)
    starts = [first_page() for _ in range(args.runs)]
    print(f"first page of widderkopf-play --web --no-browser: median "
          f"{statistics.median(starts):.2f} s (min {min(starts):.2f}, max {max(starts):.2f}; "
          f"{args.runs} runs)")
    print(f"a move through the HTTP API against heuristic: "
          f"{1000 * move_seconds(args.moves):.1f} ms per request ({args.moves} moves)")


if __name__ == "__main__":
    main()
