"""`python -m kgb.worker JOB_DIR`: the candidate worker's entry (kgb.worker.main).

The worker's own modules are taken out of `sys.modules` and off the package once imported, so
the candidate cannot reach the running worker's functions by name (`import kgb.worker.main`
would give it a fresh, unused copy). The process leaves with `os._exit` right after
result.json is written: no atexit hook, finalizer or lingering thread of the candidate may run
afterwards (it could rewrite the file); the sandbox kills whatever it left behind."""

import os
import sys


def _boot() -> int:
    # `python -m` put the working folder — the job's writable output folder — first on sys.path:
    # a module planted there would shadow any module the worker imports later (threat 23).
    sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]
    from pathlib import Path

    import kgb.worker
    from kgb.worker import compile_clock

    compile_clock.startup("+")  # before torch: its import is start-up, not the candidate's time
    from kgb.worker import main as worker_main

    run = worker_main.main
    for name in [n for n in sys.modules if n.startswith("kgb.worker.")]:
        del sys.modules[name]
        setattr(kgb.worker, name.rsplit(".", 1)[1], None)
    return run(Path(sys.argv[1]))


if __name__ == "__main__":
    code = _boot()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
