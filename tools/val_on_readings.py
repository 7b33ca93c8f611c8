#!/usr/bin/env python3
"""VAL's verdict on the plans safeplan read out of PlanBench's replies (issue 27).

`cargo run --release -p safeplan-benches --bin replies -- target/planbench-corpus
--write-plans DIR` writes each plan safeplan read from a PDDL-style reply as a plan file,
with safeplan's verdict on it, in DIR/manifest.jsonl. This script runs VAL's `Validate` on
each (the same domain, problem and plan) and prints how often the verdicts agree, and every
disagreement. VAL is not downloaded: pass the binary built from KCL-Planning/VAL.

Usage: python3 tools/val_on_readings.py VALIDATE DIR CORPUS_DIR
"""

import json
import os
import re
import subprocess
import sys
import tempfile

# VAL (KCL-Planning/VAL) crashes (SIGSEGV, no output) on a domain or problem name that
# starts with a digit, as the obfuscated_randomized_* prompts have (`(problem 822rz...)`).
# Such a pair is judged again with the names prefixed by `n`: names are not semantics.
DIGIT_NAME = re.compile(r"\((problem|domain|:domain)(\s+)([0-9][^\s()]*)")


def val(validate, domain, problem, plan):
    """VAL's verdict (True/False), or None when it gives none (a crash)."""
    out = subprocess.run([validate, domain, problem, plan], capture_output=True, text=True)
    if "Plan valid" in out.stdout:
        return True
    # VAL exits 1 on an invalid plan, and refuses a step naming no operator ("Bad operator
    # in plan!", on stderr); a crash is a signal and no verdict line.
    said = out.stdout + out.stderr
    if out.returncode >= 0 and any(
        m in said
        for m in ("Plan failed", "Goal not satisfied", "Bad plan", "Plan invalid", "Bad operator")
    ):
        return False
    return None


def renamed(path, tmp):
    with open(path) as f:
        text = DIGIT_NAME.sub(lambda m: f"({m.group(1)}{m.group(2)}n{m.group(3)}", f.read())
    out = os.path.join(tmp, os.path.basename(path))
    with open(out, "w") as f:
        f.write(text)
    return out


def main():
    validate, plans, corpus = sys.argv[1:4]
    agree, differ, n, crashed, renamed_n = 0, [], 0, [], 0
    with open(os.path.join(plans, "manifest.jsonl")) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        for r in rows:
            n += 1
            domain = os.path.join(corpus, "pddl", r["domain"])
            problem = os.path.join(corpus, "pddl", r["problem"])
            plan = os.path.join(plans, r["plan"])
            verdict = val(validate, domain, problem, plan)
            if verdict is None:
                verdict = val(validate, renamed(domain, tmp), renamed(problem, tmp), plan)
                if verdict is not None:
                    renamed_n += 1
            if verdict is None:
                crashed.append((r["id"], r["safeplan_valid"]))
            elif verdict == r["safeplan_valid"]:
                agree += 1
            else:
                differ.append((r["id"], r["safeplan_valid"], verdict))
    print(f"{agree} of {n} plans read: safeplan's verdict = VAL's on the same plan")
    print(f"  ({renamed_n} judged by VAL only after renaming a name that starts with a digit, "
          f"on which VAL crashes)")
    print(f"{len(crashed)} without a verdict from VAL (it crashes, e.g. on a step with the wrong "
          f"number of arguments); safeplan calls {sum(not v for _, v in crashed)} of them invalid")
    for d in differ:
        print("differs:", *d)
    for c, v in crashed:
        print("no VAL verdict:", c, "safeplan:", "valid" if v else "invalid")


if __name__ == "__main__":
    main()
