"""`mur-trace` and `python -m mur_trace`: the command line, started.

DuckDB opens its in-memory database in the background while Typer and the commands import
(`load.open_in_background`): 20-50 ms off every command's start. When the command is done,
the objects it leaves are frozen out of the collection Python runs as it exits (`gc.freeze`):
a pass over every object of Typer, DuckDB's Python layer and the commands (10-15 ms after
`show`). `atexit` handlers run, and objects freed by their count are freed, as before; the
finalizers of objects left in reference cycles do not run, so everything that must be
flushed or closed (output files, a catalog's database, staging directories) is closed
explicitly by the command.
"""

import gc
import signal

# Absolute, so that this file also runs as a script: spark-submit .../mur_trace/__main__.py
from mur_trace.load import open_in_background


def main() -> None:
    """Entry point of the `mur-trace` console script."""
    open_in_background()
    from mur_trace.cli import main as run  # Typer and the commands, imported meanwhile

    try:
        run()
    finally:
        from mur_trace.cli import COMMITTED

        if COMMITTED.is_set():
            # a catalog committed, the status decided: a Ctrl-C or SIGTERM as the process
            # ends would replace it (`exit 143` with no word); this process is ending
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        gc.freeze()


if __name__ == "__main__":
    main()
