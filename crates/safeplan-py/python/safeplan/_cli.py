"""The wheel's `safeplan-full` command: the Rust CLI's whole program (`safeplan_cli::run`), run
in this process by the extension module. The wheel's `safeplan` is the CLI's native core
executable (build_backend/safeplan_build.py); it runs the core commands itself and hands
every other command line (`mcp`, `bench`, `judge`, `--help`...) to this one by `exec`, as the
Cargo-installed `safeplan` hands them to the Cargo-built `safeplan-full`: same subcommands,
output and exit codes."""

import signal
import sys


def main() -> None:
    # Ctrl-C ends the command as it ends the native one (Python would otherwise only set a
    # flag that Rust code never reads); `bench` installs its own handler to stop cleanly.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    from ._safeplan import run_cli

    sys.stdout.flush()
    raise SystemExit(run_cli(["safeplan", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
