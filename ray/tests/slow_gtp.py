"""A GTP engine in front of another, for the tests: every command goes
through unchanged, but each genmove is answered only after a pause (so that
games last long enough to lose a node in the middle of one); with
--crash-after N the process exits instead of answering the Nth genmove, and
with --refuse-seed S --seed {seed} it exits at once in the game where its
seed is S.

    python3 slow_gtp.py [--delay SECONDS] [--crash-after N]
                        [--refuse-seed S --seed SEED] -- ENGINE...
"""

import argparse
import os
import subprocess
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--crash-after", type=int, default=0)
    parser.add_argument("--refuse-seed")
    parser.add_argument("--seed")
    parser.add_argument("engine", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.refuse_seed is not None and args.refuse_seed == args.seed:
        sys.exit(3)
    engine = args.engine[1:] if args.engine[:1] == ["--"] else args.engine
    child = subprocess.Popen(engine, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    genmoves = 0
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if "genmove" in words:
            genmoves += 1
            if args.crash_after and genmoves >= args.crash_after:
                child.kill()
                os._exit(3)
            time.sleep(args.delay)
        child.stdin.write(line)
        child.stdin.flush()
        # A GTP response ends with an empty line.
        while True:
            answer = child.stdout.readline()
            if not answer:
                return
            sys.stdout.write(answer)
            if answer == "\n":
                break
        sys.stdout.flush()
        if "quit" in words:
            break
    # The referee is gone (or said quit): the engine behind must see its
    # input end too, or it would wait for it forever.
    child.stdin.close()
    child.wait()


if __name__ == "__main__":
    main()
