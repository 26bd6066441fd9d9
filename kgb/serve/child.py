"""One verification in a process of its own, started by kgb.serve.executor:
`python -m kgb.serve.child SPEC.json`. It runs exactly what kgb.verify_kernel (or kgb.verify,
for an archive) runs and leaves FOLDER/run/report.json; a KgbError leaves one line on stderr
and its exit code (kgb.errors.ExitCode). Its own process, so a deadline can end it (SIGTERM:
run_verify tears its sandboxes down, as for `kgb verify`) without touching the server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kgb.errors import ExitCode, KgbError


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[1]).read_text())  # written by the executor, not by a client
    folder = Path(spec["folder"])
    options = {"tasks": spec["tasks"], "device": spec["device"], "sandbox": spec["sandbox"],
               "timeout_s": spec["timeout_s"]}
    from kgb import api

    try:
        if spec["submission"] is None:
            api.verify_kernel(spec["task"], (folder / "kernel.py").read_text(), out=folder,
                              **options)
        else:
            api.verify(spec["submission"], out=folder / "run", **options)
    except KgbError as exc:
        sys.stderr.write(exc.message.replace("\n", " ") + "\n")
        return exc.exit_code
    except KeyboardInterrupt:  # the executor's SIGTERM (a deadline, a cancelled request)
        return ExitCode.INTERRUPTED
    return ExitCode.OK


if __name__ == "__main__":
    sys.exit(main(sys.argv))
