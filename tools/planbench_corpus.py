#!/usr/bin/env python3
"""Build the real-reply corpus from PlanBench's stored LLM replies (issue 27).

PlanBench (github.com/karthikv792/LLMs-Planning, MIT licence, Valmeekam et al.) stores, for
every model it ran, the prompt, the model's raw reply, the plan PlanBench extracted from it
and VAL's verdict on that plan (`llm_correct`, or `correct` in older files). This script
reads those result files from a local clone (a bare git directory is enough) and writes one
JSON object per reply:

    {"id", "source": {"repo", "commit", "path", "instance_id"}, "domain", "engine", "task",
     "style", "reply", "extracted", "llm_correct", "pddl": {"domain", "problem"} | null}

`style` is `pddl` (the prompt asked for PDDL actions: the `*_pddl` result files), `natural`
(PlanBench's natural-language prompts, whose replies PlanBench reads with per-domain phrase
rules), or `replanning` (task 6, where the right answer is often that nothing is left to
do). `extracted` is PlanBench's extracted plan as a list of steps. For `pddl` and `natural`
replies the PDDL domain and instance the reply answers are written beside the JSONL (under
`pddl/`, their repository paths kept), so the verdicts can be recomputed (replanning asks
about a rewritten instance PlanBench does not store).

Usage:

    python3 tools/planbench_corpus.py GITDIR OUT_DIR [--sample N --sample-out DIR]
    python3 tools/planbench_corpus.py GITDIR --held-out DIR

GITDIR is the clone (`git clone --bare https://github.com/karthikv792/LLMs-Planning`, or the
snapshot the project's `fetch` tool brings). OUT_DIR gets `replies.jsonl` and `pddl/`.
With `--sample N`, a deterministic sample of N replies (every style and file represented,
the unusual replies — empty, refusals, "no further actions" — always in) goes to
`--sample-out` with the PDDL it needs and PlanBench's licence: that is what the repository
keeps as test data (crates/safeplan-pddl/tests/replies/). Nothing is downloaded.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys

REPO = "karthikv792/LLMs-Planning"

# (results file, style). PDDL-style replies are every `*_pddl` plan-generation file with
# replies; natural-language ones a spread of models; replanning the task-6 files.
FILES = [
    ("llm_planning_analysis/results/blocksworld/gpt-4_chat/task_1_plan_generation_pddl.json", "pddl"),
    ("llm_planning_analysis/results/blocksworld/gpt-4_chat/task_1_plan_generation_zero_shot_pddl.json", "pddl"),
    ("llm_planning_analysis/results/blocksworld_3/gpt-4_chat/task_1_plan_generation_pddl.json", "pddl"),
    ("llm_planning_analysis/results/blocksworld_3/gpt-4_chat/task_1_plan_generation_zero_shot_pddl.json", "pddl"),
    ("llm_planning_analysis/results/logistics/gpt-4_chat/task_1_plan_generation_pddl.json", "pddl"),
    ("llm_planning_analysis/results/logistics/gpt-4_chat/task_1_zero_shot_plan_generation_pddl.json", "pddl"),
    ("llm_planning_analysis/results/logistics/llama-3.1-405b_aws/task_1_plan_generation_zero_shot_pddl.json", "pddl"),
    ("llm_planning_analysis/results/logistics/o1-preview_chat/task_1_plan_generation_zero_shot_pddl.json", "pddl"),
    ("llm_planning_analysis/results/mystery_blocksworld/gpt-4_chat/task_1_plan_generation_pddl.json", "pddl"),
    ("llm_planning_analysis/results/mystery_blocksworld/gpt-4_chat/task_1_plan_generation_zero_shot_pddl.json", "pddl"),
    ("llm_planning_analysis/results/mystery_blocksworld_3/gpt-4_chat/task_1_plan_generation_pddl.json", "pddl"),
    ("llm_planning_analysis/results/mystery_blocksworld_3/gpt-4_chat/task_1_plan_generation_zero_shot_pddl.json", "pddl"),
    ("llm_planning_analysis/results/unsolvable_blocksworld/o1-preview_chat/task_1_plan_generation_zero_shot_pddl.json", "pddl"),
    ("llm_planning_analysis/results/blocksworld/gpt-4_chat/task_1_plan_generation.json", "natural"),
    ("llm_planning_analysis/results/blocksworld/claude-3-opus/task_1_plan_generation.json", "natural"),
    ("llm_planning_analysis/results/blocksworld/o1-preview_chat/task_1_plan_generation_zero_shot.json", "natural"),
    ("llm_planning_analysis/results/blocksworld/qwen-qwq/task_1_plan_generation.json", "natural"),
    ("llm_planning_analysis/results/blocksworld/llama-3.1-405b_aws/task_1_plan_generation.json", "natural"),
    ("llm_planning_analysis/results/blocksworld/gemini-1.5-pro/task_1_plan_generation.json", "natural"),
    ("plan-bench/results/blocksworld/gpt-4_chat/task_6_replanning.json", "replanning"),
    ("plan-bench/results/blocksworld_3/gpt-4_chat/task_6_replanning.json", "replanning"),
]

# Held out: replies of models and domains the reading rules were NOT written on (no reply of
# these files was read while the rules were written). `--held-out DIR` writes them apart; the
# figure measured on them is the reader's held-out figure in docs/benchmarks.md.
HELD_OUT = [
    ("llm_planning_analysis/results/mystery_blocksworld/deepseek-r1-api/task_1_plan_generation_zero_shot_pddl.json", "pddl"),
    ("llm_planning_analysis/results/obfuscated_randomized_logistics/o1-preview_chat/task_1_plan_generation_zero_shot_pddl.json", "pddl"),
    ("llm_planning_analysis/results/sokoban/llama-3.1-405b_aws/task_1_plan_generation_zero_shot_pddl.json", "pddl"),
    ("llm_planning_analysis/results/sokoban/o1-preview_chat/task_1_plan_generation_zero_shot_pddl.json", "pddl"),
    ("llm_planning_analysis/results/unsolvable_blocksworld/gpt-4o-mini-2024-07-18_chat/task_1_plan_generation_zero_shot_pddl.json", "pddl"),
    ("llm_planning_analysis/results/unsolvable_obfuscated_randomized_blocksworld/o1-preview_chat/task_1_plan_generation_zero_shot_pddl.json", "pddl"),
]

# Where each domain's PDDL lives (plan-bench/configs/<domain>.yaml: instance_dir, domain_file).
PDDL = {
    "blocksworld": ("blocksworld/generated_basic", "blocksworld/generated_domain.pddl"),
    "blocksworld_3": ("blocksworld/generated_basic_3", "blocksworld/generated_domain.pddl"),
    "mystery_blocksworld": ("blocksworld/mystery/generated_basic", "blocksworld/mystery/generated_domain.pddl"),
    "mystery_blocksworld_3": ("blocksworld/mystery/generated_basic_3", "blocksworld/mystery/generated_domain.pddl"),
    "logistics": ("logistics/generated_basic", "logistics/generated_domain.pddl"),
    "unsolvable_blocksworld": ("unsolvable_blocksworld/generated_basic", "unsolvable_blocksworld/generated_domain.pddl"),
    "obfuscated_randomized_logistics": ("obfuscated_randomized_logistics/generated_basic", "obfuscated_randomized_logistics/generated_domain.pddl"),
    "sokoban": ("sokoban/generated_basic", "sokoban/generated_domain.pddl"),
    "unsolvable_obfuscated_randomized_blocksworld": ("unsolvable_obfuscated_randomized_blocksworld/generated_basic", "unsolvable_obfuscated_randomized_blocksworld/generated_domain.pddl"),
}
INSTANCE_ROOTS = ["plan-bench/instances", "llm_planning_analysis/instances"]


def git(gitdir, *args):
    return subprocess.run(
        ["git", "--git-dir", gitdir, *args], check=True, capture_output=True
    ).stdout


def show(gitdir, path):
    try:
        return git(gitdir, "show", f"HEAD:{path}")
    except subprocess.CalledProcessError:
        return None


def steps_of(extracted):
    if isinstance(extracted, list):
        items = extracted
    elif isinstance(extracted, str):
        items = extracted.splitlines()
    else:
        items = []
    return [s.strip() for s in items if s and s.strip()]


def domain_of(path, data):
    parts = path.split("/")
    # .../results/<domain>/<engine>/<file>
    i = parts.index("results")
    return parts[i + 1], parts[i + 2]


def pddl_paths(gitdir, domain, instance_id):
    if domain not in PDDL:
        return None
    inst_dir, dom = PDDL[domain]
    for root in INSTANCE_ROOTS:
        problem = f"{root}/{inst_dir}/instance-{instance_id}.pddl"
        if show(gitdir, problem) is not None:
            return {"domain": f"{root}/{dom}", "problem": problem}
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gitdir")
    ap.add_argument("out", nargs="?")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--sample-out")
    ap.add_argument("--held-out", help="write the held-out files' replies to this folder instead")
    args = ap.parse_args()
    commit = git(args.gitdir, "rev-parse", "HEAD").decode().strip()
    if args.held_out:
        rows = read_rows(args.gitdir, commit, HELD_OUT, from_prompt=True)
        write(rows, args.held_out, args.gitdir)
        print(f"{len(rows)} held-out replies from {commit[:10]} -> {args.held_out}", file=sys.stderr)
        return
    os.makedirs(args.out, exist_ok=True)
    rows = read_rows(args.gitdir, commit, FILES)
    write(rows, args.out, args.gitdir)
    print(f"{len(rows)} replies from {commit[:10]} -> {args.out}", file=sys.stderr)
    if args.sample:
        sample = choose(rows, args.sample)
        write(sample, args.sample_out, args.gitdir)
        lic = show(args.gitdir, "LICENSE")
        with open(os.path.join(args.sample_out, "LICENSE.PlanBench"), "wb") as f:
            f.write(lic or b"")
        print(f"{len(sample)} sampled -> {args.sample_out}", file=sys.stderr)


def prompt_pddl(query):
    """The domain and problem a PDDL-style prompt shows the model ([DOMAIN] ... [QUERY
    PROBLEM] ... [PLAN]): the task the reply answers, also where the domain is randomized
    per instance (obfuscated_randomized_*), as {"domain": text, "problem": text}."""
    if not query or "[DOMAIN]" not in query or "[QUERY PROBLEM]" not in query:
        return None
    # The instructions name the headings first: the sections are the last ones.
    p0 = query.rindex("[QUERY PROBLEM]")
    d0 = query.rindex("[DOMAIN]", 0, p0) + len("[DOMAIN]")
    problem = query[p0 + len("[QUERY PROBLEM]"):]
    if "[PLAN]" in problem:
        problem = problem[: problem.index("[PLAN]")]
    return {"domain": query[d0:p0].strip() + "\n", "problem": problem.strip() + "\n"}


def read_rows(gitdir, commit, files, from_prompt=False):
    rows = []
    for path, style in files:
        raw = show(gitdir, path)
        if raw is None:
            print(f"skipped (not in this snapshot): {path}", file=sys.stderr)
            continue
        data = json.loads(raw)
        domain, engine = domain_of(path, data)
        for inst in data.get("instances", []):
            iid = inst.get("instance_id")
            reply = inst.get("llm_raw_response")
            if reply is None:
                continue
            correct = inst.get("llm_correct", inst.get("correct"))
            row = {
                "id": f"{path}#{iid}",
                "source": {"repo": REPO, "commit": commit, "path": path, "instance_id": iid},
                "domain": domain,
                "engine": engine,
                "task": data.get("task"),
                "style": style,
                "reply": reply,
                "extracted": steps_of(inst.get("extracted_llm_plan")),
                "llm_correct": bool(correct) if correct is not None else None,
                # Task-1 replies answer instance-N of their domain (natural-language prompts
                # name its objects by colour: the reading then finds no object it knows).
                "pddl": pddl_paths(gitdir, domain, iid) if style != "replanning" else None,
            }
            # The held-out files are read against the task their prompt showed.
            shown = prompt_pddl(inst.get("query")) if from_prompt else None
            if shown:
                row["pddl"] = {}
                for kind, text in shown.items():
                    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
                    row["pddl"][kind] = f"prompts/{kind}-{digest}.pddl"
                    row.setdefault("_texts", {})[row["pddl"][kind]] = text
            rows.append(row)
    return rows


# Replies every sample keeps: one of each class of difference with PlanBench's reading that
# docs/benchmarks.md explains, so the repository's test sees each.
ALWAYS = {
    # a plan stated twice (PlanBench reads both copies, VAL then says invalid)
    "llm_planning_analysis/results/blocksworld/gpt-4_chat/task_1_plan_generation_zero_shot_pddl.json#69",
    "llm_planning_analysis/results/blocksworld/gpt-4_chat/task_1_plan_generation_zero_shot_pddl.json#156",
    # `3-` as a list marker
    "llm_planning_analysis/results/blocksworld/gpt-4_chat/task_1_plan_generation_zero_shot_pddl.json#252",
    # wrappers: `([PLAN] ...)`, `(seq ...)`, `(plan (:step1 (...)) ...)`
    "llm_planning_analysis/results/mystery_blocksworld/gpt-4_chat/task_1_plan_generation_pddl.json#376",
    "llm_planning_analysis/results/mystery_blocksworld/gpt-4_chat/task_1_plan_generation_zero_shot_pddl.json#279",
    "llm_planning_analysis/results/mystery_blocksworld/gpt-4_chat/task_1_plan_generation_zero_shot_pddl.json#15",
    # a trailing `\` on every line (o1-preview)
    "llm_planning_analysis/results/logistics/o1-preview_chat/task_1_plan_generation_zero_shot_pddl.json#82",
    # a hallucinated action PlanBench drops
    "llm_planning_analysis/results/blocksworld/gpt-4_chat/task_1_plan_generation_pddl.json#21",
}


def unusual(row):
    reply = row["reply"].strip().lower()
    return (
        not reply
        or not row["extracted"]
        or "sorry" in reply
        or "no further action" in reply
        or "no plan" in reply
        or "not possible" in reply
    )


def choose(rows, n):
    """The ALWAYS replies, unusual replies (up to a third of n), then an even spread over
    the files, chosen by a hash of the id (stable across runs)."""
    key = lambda r: hashlib.sha256(r["id"].encode()).hexdigest()
    always = [r for r in rows if r["id"] in ALWAYS]
    picked = {r["id"] for r in always}
    odd = always + sorted((r for r in rows if unusual(r) and r["id"] not in picked), key=key)[: n // 3]
    picked = {r["id"] for r in odd}
    by_file = {}
    for r in sorted(rows, key=key):
        if r["id"] not in picked:
            by_file.setdefault(r["source"]["path"], []).append(r)
    out = list(odd)
    files = sorted(by_file)
    i = 0
    while len(out) < n and any(by_file.values()):
        f = files[i % len(files)]
        if by_file[f]:
            out.append(by_file[f].pop(0))
        i += 1
    return sorted(out, key=lambda r: r["id"])


def write(rows, out, gitdir):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "replies.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps({k: v for k, v in r.items() if k != "_texts"}, sort_keys=True) + "\n")
    for r in rows:
        texts = r.get("_texts", {})
        for p in (r["pddl"] or {}).values():
            dest = os.path.join(out, "pddl", p)
            if not os.path.exists(dest):
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with open(dest, "wb") as g:
                    g.write(texts[p].encode() if p in texts else show(gitdir, p))


if __name__ == "__main__":
    main()
