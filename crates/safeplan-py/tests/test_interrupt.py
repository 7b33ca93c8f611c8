"""Ctrl-C stops a long call (issue 28: the GIL is released for real work, and a user who
gives up must not have to kill the interpreter). Each case runs in a child Python that sends
itself SIGINT half a second into a call that would otherwise run for minutes (8.1·10⁹
quantifier bindings; a breadth-first search over 2^40 states), and must see
KeyboardInterrupt, then go on using the package. The child's timeout is a liveness bound,
not a speed claim."""

import subprocess
import sys
import textwrap

QUANTIFIED = """(define (domain adv) (:requirements :typing :universal-preconditions :negative-preconditions)
  (:types obj) (:predicates (p ?a ?b ?c ?d - obj) (q))
  (:action go :parameters () :precondition (forall (?a ?b ?c ?d - obj) (not (p ?a ?b ?c ?d))) :effect (q)))"""
BIG = "(define (problem big) (:domain adv) (:objects " + " ".join(f"o{i}" for i in range(300)) + " - obj) (:init) (:goal (q)))"
SMALL = "(define (problem small) (:domain adv) (:objects a b - obj) (:init (p a a a a)) (:goal (q)))"

SWITCHES = """(define (domain switches) (:requirements :typing)
  (:types s) (:predicates (on ?x - s) (q))
  (:action flip :parameters (?x - s) :precondition (not (on ?x)) :effect (on ?x)))"""
# Every switch on: 40 steps deep, and breadth-first search meets 2^40 states on the way.
MANY = "(define (problem many) (:domain switches) (:objects " + " ".join(f"s{i}" for i in range(40)) + " - s) (:init) (:goal (and " + " ".join(f"(on s{i})" for i in range(40)) + ")))"


def interrupted(body: str) -> list:
    script = textwrap.dedent(
        """
        import os, signal, threading
        import safeplan
        # As at a terminal: a job a non-interactive shell starts in the background inherits
        # SIGINT ignored, and Python then installs no handler of its own.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
        try:
            {call}
            print("finished")
        except KeyboardInterrupt:
            print("interrupted")
        """
    ).format(call=body)
    env_code = f"QUANTIFIED={QUANTIFIED!r}\nBIG={BIG!r}\nSMALL={SMALL!r}\nSWITCHES={SWITCHES!r}\nMANY={MANY!r}\n"
    done = subprocess.run([sys.executable, "-c", env_code + script + "\n" + AFTER], capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


# After the interrupt the package goes on working, small quantifiers evaluated in full.
AFTER = "print(safeplan.Task(QUANTIFIED, SMALL).validate('(go)').valid)"


def test_ctrl_c_stops_a_validation_of_a_huge_quantifier():
    assert interrupted("safeplan.Task(QUANTIFIED, BIG).validate('(go)')") == ["interrupted", "False"]


def test_ctrl_c_stops_a_search():
    call = "safeplan.Task(SWITCHES, MANY).find_plan(algorithm='bfs')"
    assert interrupted(call) == ["interrupted", "False"]
