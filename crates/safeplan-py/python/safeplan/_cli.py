"""The `safeplan` command of the wheel: the Rust CLI's program (`safeplan_cli::run`), run in
this process by the extension module, so that `pip install safeplan` gives the same command
as `cargo install safeplan-cli` (same subcommands, output and exit codes)."""

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
