"""A robot's execution loop guarded by safeplan's Monitor (as a ROS 2 node would run it).

    python crates/safeplan-py/examples/robot_loop.py [TASK_DIR]

Before each action the robot asks whether it can be executed in the state it believes it is
in; it executes only those that can, and tells the monitor afterwards. The second action of
the list comes too early (the robot is still at the stove), so it is refused and skipped.
"""

import pathlib
import sys

import safeplan

TASK = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[3] / "examples" / "tasks" / "hot-soup")
ACTIONS = ["(pick-up soup stove)", "(put-down soup table)", "(move stove table)", "(put-down soup table)"]


def main() -> int:
    task = safeplan.load_task(TASK / "domain.pddl", TASK / "problem.pddl")
    monitor = task.monitor()
    for action in ACTIONS:
        failure = monitor.check(action)
        if failure is not None:
            print(f"refused {action}: {failure['message']}")
            continue
        # ... the robot executes the action here ...
        monitor.apply(action)
        print(f"done    {action}")
    print(f"goal reached: {monitor.goal_reached()}; danger: {monitor.value('danger')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
