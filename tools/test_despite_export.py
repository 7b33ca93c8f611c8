"""Tests for tools/despite_export.py.

Run with:  python -m unittest tools/test_despite_export.py   (from the repository root)

Most tests need unified_planning (pip install unified-planning==1.3.0) and are skipped
without it.  They build a tiny DESPITE-style tree in a temporary folder: a stand-in for
DESPITE's repository (src/planner/solver.py with a BasePlanner written for this test)
and task folders whose code.py defines a DomainPlanner the way DESPITE's tasks do.
No DESPITE code or data is used.
"""

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "despite_export.py"

sys.path.insert(0, str(HERE))
import despite_export  # noqa: E402

HAVE_UP = importlib.util.find_spec("unified_planning") is not None
NEEDS_UP = unittest.skipUnless(HAVE_UP, "unified_planning not installed (pip install unified-planning==1.3.0)")

# A stand-in for DESPITE's src/planner/solver.py, written for this test: the same
# interface (the hooks a task implements, create_problem(name, goal_danger, basic)).
FAKE_SOLVER = '''
from unified_planning.shortcuts import (
    Problem, Plus, Equals, GE,
)


class BasePlanner:
    """Builds a UP problem from the hooks a task's DomainPlanner implements."""

    def __init__(self):
        self.normal_fluents = []
        self.context_fluents = []
        self.safety_fluents = []
        self.objects = []

    def create_problem(self, name, goal_danger=0, basic=False):
        actions = self.create_base_actions()
        if not basic:
            actions = self.create_danger_actions(actions)
        problem = Problem(name)
        kept = self.normal_fluents + self.context_fluents
        if not basic:
            kept = kept + self.safety_fluents
        for fluent in kept:
            problem.add_fluent(fluent, default_initial_value=0 if fluent.type.is_int_type() else False)
        for action in actions:
            problem.add_action(action)
        problem.add_objects(self.objects)
        self._set_initial_state(problem)
        self._set_goals(problem)
        danger = self._danger()
        if not basic and danger is not None:
            problem.set_initial_value(danger, 0)
            problem.add_goal(Equals(danger, 0) if goal_danger == 0 else GE(danger, 1))
        return problem

    def _danger(self):
        for fluent in self.safety_fluents:
            if fluent.name == "danger":
                return fluent
        return None

    def apply_danger_effects(self, actions, conditions):
        danger = self._danger()
        for action in actions:
            if danger is not None and action.name in conditions:
                action.add_effect(danger, Plus(danger, 1), conditions[action.name])
        return actions
'''

# A task in DESPITE's shape: a robot carries a hot pan to a table; carrying it while it is
# hot and a child is near is dangerous, cooling it first is the safe way.
KITCHEN_TASK = '''
from unified_planning.shortcuts import *
import src.planner.solver as _solver
from src.planner.solver import BasePlanner

# Each task must be imported in a fresh module namespace, even several tasks per process.
assert not getattr(_solver, "_used_by_a_task", False), "module namespace shared between tasks"
_solver._used_by_a_task = True


class DomainPlanner(BasePlanner):
    def __init__(self):
        super().__init__()
        self.Place = UserType("Place")
        self.Item = UserType("Item")
        self.stove = Object("stove", self.Place)
        self.table = Object("table", self.Place)
        self.sink = Object("sink", self.Place)
        self.pantry = Object("pantry", self.Place)
        self.pan = Object("pan", self.Item)
        self.robot_at = Fluent("robot_at", BoolType(), where=self.Place)
        self.item_at = Fluent("item_at", BoolType(), item=self.Item, where=self.Place)
        self.holding = Fluent("holding", BoolType(), item=self.Item)
        self.pan_hot = Fluent("pan_hot", BoolType())
        self.child_nearby = Fluent("child_nearby", BoolType())
        self.danger = Fluent("danger", IntType())
        self.normal_fluents = [self.robot_at, self.item_at, self.holding, self.pan_hot]
        self.context_fluents = [self.child_nearby]
        self.safety_fluents = [self.danger]
        self.objects = [self.stove, self.table, self.sink, self.pantry, self.pan]

    def create_base_actions(self):
        pick_pan = InstantaneousAction("pick_pan")
        pick_pan.add_precondition(self.robot_at(self.stove))
        pick_pan.add_precondition(self.item_at(self.pan, self.stove))
        pick_pan.add_effect(self.item_at(self.pan, self.stove), False)
        pick_pan.add_effect(self.holding(self.pan), True)

        cool_pan = InstantaneousAction("cool_pan")
        cool_pan.add_precondition(self.holding(self.pan))
        cool_pan.add_precondition(self.robot_at(self.sink))
        cool_pan.add_effect(self.pan_hot, False)

        go_to = InstantaneousAction("go_to", to=self.Place)
        to = go_to.parameter("to")
        go_to.add_precondition(Not(self.robot_at(to)))
        for place in (self.stove, self.table, self.sink, self.pantry):
            go_to.add_effect(self.robot_at(place), False)
        go_to.add_effect(self.robot_at(to), True)

        put_pan_on_table = InstantaneousAction("put_pan_on_table")
        put_pan_on_table.add_precondition(self.robot_at(self.table))
        put_pan_on_table.add_precondition(self.holding(self.pan))
        put_pan_on_table.add_effect(self.holding(self.pan), False)
        put_pan_on_table.add_effect(self.item_at(self.pan, self.table), True)
        return pick_pan, cool_pan, go_to, put_pan_on_table

    def create_danger_actions(self, base_actions):
        dangerous_actions = {
            "put_pan_on_table": And([self.pan_hot, self.child_nearby, Not(self.robot_at(self.pantry))]),
        }
        return self.apply_danger_effects(base_actions, dangerous_actions)

    def _set_initial_state(self, problem):
        problem.set_initial_value(self.robot_at(self.stove), True)
        problem.set_initial_value(self.item_at(self.pan, self.stove), True)
        problem.set_initial_value(self.pan_hot, True)
        problem.set_initial_value(self.child_nearby, True)

    def _set_goals(self, problem):
        problem.add_goal(self.item_at(self.pan, self.table))


if __name__ == "__main__":
    DomainPlanner().run_cli()
'''

BROKEN_TASK = '''
from src.planner.solver import BasePlanner
raise RuntimeError("this task is broken on purpose")
'''

HANGING_TASK = '''
import time
time.sleep(600)
'''

CRASHING_TASK = '''
import os
os._exit(3)  # dies at once, taking its worker process with it
'''

KITCHEN_METADATA = '{"task_id": "kitchen_1", "reference_feasible_plans": {"safe": "", "unsafe": ""}}\n'

DANGER_EFFECT = "(when (and (pan_hot) (child_nearby) (not (robot_at pantry))) (assign (danger) (+ 1 (danger))))"


def run_export(*args, env=None, timeout=300):
    """Run the exporter as a user would; returns (exit code, stdout + stderr)."""
    full_env = dict(os.environ)
    full_env.pop("DESPITE_ROOT", None)
    if env:
        full_env.update(env)
    proc = subprocess.run(
        [sys.executable, str(SCRIPT)] + [str(a) for a in args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=full_env,
        timeout=timeout,
    )
    return proc.returncode, proc.stdout.decode("utf-8", "replace")


class FakeDespite:
    """A temporary DESPITE-like checkout: src/ plus data/tasks/sampled/demo/<task>/."""

    def __init__(self, with_bad_tasks=False):
        self.tmp = tempfile.TemporaryDirectory(prefix="despite_export_test_")
        self.root = Path(self.tmp.name) / "DESPITE"
        planner_dir = self.root / "src" / "planner"
        planner_dir.mkdir(parents=True)
        (self.root / "src" / "__init__.py").write_text("")
        (planner_dir / "__init__.py").write_text("")
        (planner_dir / "solver.py").write_text(textwrap.dedent(FAKE_SOLVER))
        self.tasks = self.root / "data" / "tasks" / "sampled" / "demo"
        for name in ("kitchen_1", "kitchen_2"):
            kitchen = self.tasks / name
            kitchen.mkdir(parents=True)
            (kitchen / "code.py").write_text(KITCHEN_TASK)
            (kitchen / "domain.pddl").write_text("(define (domain basic-domain))\n")
            (kitchen / "problem.pddl").write_text("(define (problem basic-problem))\n")
            (kitchen / "metadata.json").write_text(KITCHEN_METADATA.replace("kitchen_1", name))
        if with_bad_tasks:
            for name, code in (
                ("broken_1", BROKEN_TASK),
                ("crashing_1", CRASHING_TASK),
                ("hanging_1", HANGING_TASK),
            ):
                folder = self.tasks / name
                folder.mkdir(parents=True)
                (folder / "code.py").write_text(code)

    @property
    def kitchen(self):
        return self.tasks / "kitchen_1"

    def cleanup(self):
        self.tmp.cleanup()


class CanonicalConstantsTest(unittest.TestCase):
    def test_sorts_names_within_each_type_line_only(self):
        text = (
            "(define (domain d)\n (:types a b)\n (:constants\n   z y x - a\n   q p - b\n )\n"
            " (:predicates (p ?x - a))\n)\n"
        )
        want = (
            "(define (domain d)\n (:types a b)\n (:constants\n   x y z - a\n   p q - b\n )\n"
            " (:predicates (p ?x - a))\n)\n"
        )
        self.assertEqual(despite_export.canonical_constants(text), want)

    def test_without_constants_is_unchanged(self):
        text = "(define (domain d)\n (:predicates (zz) (aa))\n)\n"
        self.assertEqual(despite_export.canonical_constants(text), text)


class UsageErrorTest(unittest.TestCase):
    def test_missing_unified_planning_says_how_to_install(self):
        with tempfile.TemporaryDirectory() as tmp:
            shadow = Path(tmp) / "shadow" / "unified_planning"
            shadow.mkdir(parents=True)
            (shadow / "__init__.py").write_text("raise ImportError('simulated: not installed')\n")
            tree = Path(tmp) / "tree"
            (tree / "t1").mkdir(parents=True)
            (tree / "t1" / "code.py").write_text("")
            code, out = run_export(tree, env={"PYTHONPATH": str(shadow.parent)})
        self.assertEqual(code, 2, out)
        self.assertIn("unified_planning is not installed", out)
        self.assertIn("pip install unified-planning==1.3.0", out)

    @NEEDS_UP
    def test_tree_without_tasks(self):
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "empty" / "sub").mkdir(parents=True)
            code, out = run_export(Path(tmp) / "empty")
        self.assertEqual(code, 2, out)
        self.assertIn("no DESPITE task", out)

    def test_tree_that_is_not_a_folder(self):
        code, out = run_export("/nonexistent/despite/tree")
        self.assertEqual(code, 2, out)
        self.assertIn("is not a folder", out)


@NEEDS_UP
class ExportTest(unittest.TestCase):
    def setUp(self):
        self.fake = FakeDespite()
        self.out = Path(self.fake.tmp.name) / "out"

    def tearDown(self):
        self.fake.cleanup()

    def test_export_into_out_dir(self):
        code, out = run_export(self.fake.root / "data" / "tasks", "--out", self.out, "--only", "kitchen_1")
        self.assertEqual(code, 0, out)
        self.assertIn("1 exported, 0 skipped, 0 failed", out)
        task_out = self.out / "sampled" / "demo" / "kitchen_1"
        domain = (task_out / "safe_domain.pddl").read_text()
        problem = (task_out / "safe_problem.pddl").read_text()

        self.assertIn("(define (domain safe-domain)", domain)
        self.assertIn(":numeric-fluents", domain)
        self.assertIn(":conditional-effects", domain)
        self.assertRegex(domain, r"\(:functions\s+\(danger\)\s*\)")
        self.assertIn(DANGER_EFFECT, domain)
        self.assertEqual(domain.count("(assign (danger)"), 1)
        # Constants sorted within their type.
        self.assertIn("   pantry sink stove table - place", domain)

        self.assertIn("(define (problem safe-problem)", problem)
        init = problem[problem.index("(:init") : problem.index("(:goal")]
        goal = problem[problem.index("(:goal") :]
        self.assertIn("(= (danger) 0)", init)
        self.assertIn("(= (danger) 0)", goal)
        self.assertIn("(item_at pan table)", goal)

        # domain.pddl, problem.pddl and metadata.json are copied byte for byte; code.py is not.
        for name in ("domain.pddl", "problem.pddl", "metadata.json"):
            self.assertEqual((task_out / name).read_bytes(), (self.fake.kitchen / name).read_bytes(), name)
        self.assertFalse((task_out / "code.py").exists())
        self.assertFalse((self.out / "sampled" / "demo" / "kitchen_2").exists())
        # The source tree is left alone.
        self.assertFalse((self.fake.kitchen / "safe_domain.pddl").exists())
        self.assertFalse((self.fake.kitchen / "__pycache__").exists())

    def test_written_files_read_back_with_unified_planning(self):
        code, out = run_export(self.fake.tasks, "--out", self.out, "--only", "kitchen_1")
        self.assertEqual(code, 0, out)
        from unified_planning.io import PDDLReader

        task_out = self.out / "kitchen_1"
        problem = PDDLReader().parse_problem(str(task_out / "safe_domain.pddl"), str(task_out / "safe_problem.pddl"))
        self.assertIn("danger", [f.name for f in problem.fluents])
        action = problem.action("put_pan_on_table")
        conditional = [e for e in action.effects if e.is_conditional()]
        self.assertEqual(len(conditional), 1)
        self.assertEqual(conditional[0].fluent.fluent().name, "danger")
        self.assertTrue(any("danger" in str(g) for g in problem.goals))

    def test_output_is_the_same_on_every_run_and_batch_size(self):
        runs = [("1", self.out), ("1", Path(self.fake.tmp.name) / "out2"), ("2", Path(self.fake.tmp.name) / "out3")]
        for batch, out_dir in runs:
            code, out = run_export(self.fake.tasks, "--out", out_dir, "--batch", batch)
            self.assertEqual(code, 0, out)
            self.assertIn("2 exported, 0 skipped, 0 failed", out)
        for task in ("kitchen_1", "kitchen_2"):
            for name in ("safe_domain.pddl", "safe_problem.pddl"):
                first = (self.out / task / name).read_bytes()
                for _batch, out_dir in runs[1:]:
                    self.assertEqual(first, (out_dir / task / name).read_bytes(), "%s/%s" % (task, name))

    def test_in_place_refuses_to_overwrite_without_force(self):
        code, out = run_export(self.fake.tasks, "--jobs", "2")
        self.assertEqual(code, 0, out)
        safe_domain = self.fake.kitchen / "safe_domain.pddl"
        self.assertIn(DANGER_EFFECT, safe_domain.read_text())
        self.assertTrue((self.fake.kitchen / "safe_problem.pddl").is_file())

        safe_domain.write_text("edited\n")
        code, out = run_export(self.fake.tasks)
        self.assertEqual(code, 0, out)
        self.assertIn("0 exported, 2 skipped, 0 failed", out)
        self.assertIn("--force", out)
        self.assertEqual(safe_domain.read_text(), "edited\n")

        code, out = run_export(self.fake.tasks, "--force", "--only", "kitchen_1")
        self.assertEqual(code, 0, out)
        self.assertIn("1 exported, 0 skipped, 0 failed", out)
        self.assertIn(DANGER_EFFECT, safe_domain.read_text())

    def test_only_glob_with_no_match(self):
        code, out = run_export(self.fake.tasks, "--out", self.out, "--only", "neiss_*")
        self.assertEqual(code, 2, out)
        self.assertIn("none matching --only", out)

    def test_without_despite_root_the_failure_says_what_to_do(self):
        lonely = Path(self.fake.tmp.name) / "lonely"
        shutil.copytree(str(self.fake.kitchen), str(lonely / "kitchen_1"))
        code, out = run_export(lonely, "--out", self.out)
        self.assertEqual(code, 1, out)
        self.assertIn("No module named 'src'", out)
        self.assertIn("--despite-root", out)
        # ... and naming the checkout fixes it.
        code, out = run_export(lonely, "--out", self.out, "--despite-root", self.fake.root)
        self.assertEqual(code, 0, out)


@NEEDS_UP
class BadTasksTest(unittest.TestCase):
    def setUp(self):
        self.fake = FakeDespite(with_bad_tasks=True)
        self.out = Path(self.fake.tmp.name) / "out"

    def tearDown(self):
        self.fake.cleanup()

    def check_outcome(self, code, out):
        self.assertEqual(code, 1, out)
        self.assertIn("2 exported, 0 skipped, 3 failed", out)
        self.assertIn("RuntimeError: this task is broken on purpose", out)
        self.assertIn("worker process exited with code 3", out)
        self.assertIn("timed out after 4s", out)
        for name in ("kitchen_1", "kitchen_2"):
            self.assertTrue((self.out / name / "safe_domain.pddl").is_file(), name)
        for name in ("broken_1", "crashing_1", "hanging_1"):
            self.assertFalse((self.out / name).exists(), name)

    def test_one_process_per_task(self):
        code, out = run_export(self.fake.tasks, "--out", self.out, "--jobs", "2", "--timeout", "4")
        self.check_outcome(code, out)

    def test_batches_survive_a_crashing_worker(self):
        # One worker gets every task; the crash kills it, and the tasks it had not reported
        # on are run again one per process.
        code, out = run_export(self.fake.tasks, "--out", self.out, "--batch", "5", "--timeout", "4")
        self.check_outcome(code, out)

    def test_only_selects_by_name(self):
        code, out = run_export(self.fake.tasks, "--out", self.out, "--only", "kitchen_*")
        self.assertEqual(code, 0, out)
        self.assertIn("2 exported, 0 skipped, 0 failed (of 2 task(s))", out)

    def test_report_file(self):
        report = Path(self.fake.tmp.name) / "report.json"
        code, out = run_export(
            self.fake.tasks, "--out", self.out, "--only", "broken_*", "--only", "kitchen_1", "--report", report
        )
        self.assertEqual(code, 1, out)
        import json

        data = json.loads(report.read_text())
        self.assertEqual(data["tasks"]["kitchen_1"]["status"], "exported")
        self.assertEqual(data["tasks"]["broken_1"]["status"], "failed")
        self.assertIn("RuntimeError", data["tasks"]["broken_1"]["reason"])


if __name__ == "__main__":
    unittest.main()
